//! The engine: events in, decisions out.
use crate::config::Config;
use crate::types::*;
use serde::Serialize;

/// What the host knows about a new job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// Number of tasks (unlaunched at submission).
    pub tasks: u32,
    /// Estimated mean task duration, seconds.
    pub estimate: f64,
    /// Force a class (user hint); `None` classifies from `estimate` and the cutoff.
    pub class: Option<Class>,
}

/// Counters every host can report (simulator JSON, plugin summary).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Launch decisions (task handed to a slot).
    pub decisions: u64,
    /// Probes and reservations enqueued on nodes.
    pub probes_placed: u64,
    /// Probes refused by SSS because the node held long work.
    pub probes_rejected_sss: u64,
    /// Short probes that arrived at a node holding long work (Eagle: always 0).
    pub probes_behind_long: u64,
    /// Short tasks launched from a probe that had queued behind long work.
    pub short_tasks_after_hol: u64,
    /// Probes re-sent in an SSS round after the first.
    pub rescheduled_probes: u64,
    /// Probes that fell back to the short-only partition.
    pub fallback_probes: u64,
    /// Probes moved by work stealing.
    pub stolen_probes: u64,
    /// SRPT picks that bypassed at least one probe ahead.
    pub srpt_bypasses: u64,
    /// Task fetches that found the job had nothing left.
    pub empty_fetches: u64,
    /// Driver mode: launches for a job that held no reservation on the node.
    pub backfills: u64,
    /// Driver mode: launches the host declined.
    pub declines: u64,
}

/// A read-only view of a job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobView {
    pub class: Class,
    pub estimate: f64,
    pub unlaunched: u32,
    pub launched: u32,
    pub running: u32,
}

/// A read-only view of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub live: bool,
    pub slots: u32,
    pub free_slots: u32,
    pub queue_len: usize,
    pub short_only: bool,
    pub running_long: u32,
    pub queued_long: u32,
}

pub struct Engine {
    _cfg: Config,
}

impl Engine {
    /// A new engine; fails with a message naming the bad field.
    pub fn new(_config: Config, _seed: u64) -> Result<Engine, String> {
        todo!()
    }
    /// Schedules periodic timers (DLWL heartbeats). Call once before the first event.
    pub fn start(&mut self, _now: Time, _out: &mut Vec<Output>) {
        todo!()
    }
    /// Adds a node with `slots` task slots; ids are dense and never reused.
    pub fn add_node(&mut self, _now: Time, _slots: u32, _out: &mut Vec<Output>) -> NodeId {
        todo!()
    }
    /// Removes a node: its queued probes and reservations are re-placed elsewhere;
    /// tasks that were running there are forgotten (the host re-reports them as pending).
    pub fn remove_node(&mut self, _now: Time, _node: NodeId, _out: &mut Vec<Output>) {
        todo!()
    }
    /// Submits a job: classifies it, then probes (short) or places by LWL (long).
    pub fn submit_job(&mut self, _now: Time, _spec: JobSpec, _out: &mut Vec<Output>) -> JobId {
        todo!()
    }
    /// A task of `job` that ran on `node` ended (success or failure): its slot frees.
    pub fn task_finished(&mut self, _now: Time, _node: NodeId, _job: JobId, _out: &mut Vec<Output>) {
        todo!()
    }
    /// Delivers a message the engine scheduled with [`Output::Timer`].
    pub fn deliver(&mut self, _now: Time, _msg: Msg, _out: &mut Vec<Output>) {
        todo!()
    }
    /// Driver mode: `free` slots are free on `node`; launch up to that many tasks,
    /// skipping jobs in `exclude` (those the host could not launch there this round).
    pub fn offer(&mut self, _now: Time, _node: NodeId, _free: u32, _exclude: &[JobId], _out: &mut Vec<Output>) {
        todo!()
    }
    /// Driver mode: the host could not launch the task of `job` the engine chose for
    /// `node` (e.g. locality): undo that launch.
    pub fn decline(&mut self, _now: Time, _node: NodeId, _job: JobId) {
        todo!()
    }
    /// Driver mode: the host's truth about how many tasks of `job` wait to launch
    /// (retries, lost executors and speculation change it).
    pub fn set_pending(&mut self, _now: Time, _job: JobId, _pending: u32, _out: &mut Vec<Output>) {
        todo!()
    }
    /// A new estimate for the job's mean task duration (running mean); may reclassify it.
    pub fn set_estimate(&mut self, _now: Time, _job: JobId, _estimate: f64, _out: &mut Vec<Output>) {
        todo!()
    }
    /// The job is gone (finished, aborted or zombie): drop its probes everywhere.
    pub fn remove_job(&mut self, _now: Time, _job: JobId) {
        todo!()
    }
    pub fn counters(&self) -> &Counters {
        todo!()
    }
    pub fn config(&self) -> &Config {
        &self._cfg
    }
    pub fn job(&self, _job: JobId) -> Option<JobView> {
        todo!()
    }
    pub fn node(&self, _node: NodeId) -> Option<NodeView> {
        todo!()
    }
    /// Slots taken (running, or fetching a task), across live nodes.
    pub fn busy_slots(&self) -> u64 {
        todo!()
    }
    pub fn total_slots(&self) -> u64 {
        todo!()
    }
}
