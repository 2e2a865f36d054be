//! The engine: events in, decisions out.
//!
//! A façade over the policy that [`Config::system`] selects (see [`crate::policy`]).
//! Hosts (the simulator, the JNI bridge through [`crate::Driver`]) see only this type.
pub use crate::cluster::{Counters, JobSpec, JobView, NodeView};
use crate::config::Config;
use crate::locality::delay::Sample;
use crate::policy::{self, Policy};
use crate::types::*;

pub struct Engine {
    p: Box<dyn Policy>,
}

impl Engine {
    /// A new engine; fails with a message naming the bad field.
    pub fn new(config: Config, seed: u64) -> Result<Engine, crate::error::ConfigError> {
        Ok(Engine { p: policy::build(config, seed)? })
    }

    /// Schedules periodic timers (DLWL heartbeats). Call once before the first event.
    pub fn start(&mut self, now: Time, out: &mut Vec<Output>) {
        self.p.start(now, out)
    }

    /// Adds a node with `slots` task slots; ids are dense and never reused.
    pub fn add_node(&mut self, now: Time, slots: u32, out: &mut Vec<Output>) -> NodeId {
        self.p.add_node(now, slots, out)
    }

    /// Removes a node: its queued probes and reservations are re-placed elsewhere;
    /// tasks that were running there are forgotten (the host re-reports them as pending).
    pub fn remove_node(&mut self, now: Time, node: NodeId, out: &mut Vec<Output>) {
        self.p.remove_node(now, node, out)
    }

    /// Submits a job: the policy classifies it (unless `spec.class` forces a class) and
    /// places or launches its tasks.
    pub fn submit_job(&mut self, now: Time, spec: JobSpec, out: &mut Vec<Output>) -> JobId {
        self.p.submit_job(now, spec, out)
    }

    /// Locality mode: submits a job whose task `i` reads a block held by `prefs[i]`. The
    /// one entry of locality submissions: it checks the list has one entry per task (in
    /// debug builds), so the policies need not.
    pub fn submit_job_with_locality(
        &mut self,
        now: Time,
        spec: JobSpec,
        prefs: &[Vec<NodeId>],
        out: &mut Vec<Output>,
    ) -> JobId {
        debug_assert_eq!(prefs.len(), spec.tasks as usize);
        self.p.submit_job_with_locality(now, spec, prefs, out)
    }

    /// Locality mode: a task of `job` ended; it ran node-local or not and lost `net_oh`
    /// seconds to remote reads. Feeds the stage's adaptive delay.
    pub fn locality_feedback(&mut self, now: Time, job: JobId, local: bool, net_oh: f64) {
        self.p.locality_feedback(now, job, local, net_oh)
    }

    /// Locality mode: the job's node-local wait over time.
    pub fn delay_history(&self, job: JobId) -> Vec<Sample> {
        self.p.delay_history(job)
    }

    /// A task of `job` that ran on `node` ended (success or failure): its slot frees.
    pub fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, out: &mut Vec<Output>) {
        self.p.task_finished(now, node, job, out)
    }

    /// Eirene: the copy of `task` (the number a [`Output::Launch`] or [`Output::Clone`]
    /// gave) of `job` on `node` ended. The first copy completes the task and the engine
    /// cancels the other ([`Output::Cancel`]); hosts without Eirene may call
    /// [`Engine::task_finished`] instead.
    pub fn copy_finished(&mut self, now: Time, node: NodeId, job: JobId, task: u32, out: &mut Vec<Output>) {
        self.p.copy_finished(now, node, job, task, out)
    }

    /// Delivers a message the engine scheduled with [`Output::Timer`].
    pub fn deliver(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>) {
        self.p.deliver(now, msg, out)
    }

    /// Driver mode: `free` slots are free on `node`; launch up to that many tasks,
    /// skipping jobs in `exclude` (those the host could not launch there this round).
    pub fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId], out: &mut Vec<Output>) {
        self.p.offer(now, node, free, exclude, out)
    }

    /// Driver mode: the host could not launch the task of `job` the engine chose for
    /// `node` (e.g. locality): undo that launch.
    pub fn decline(&mut self, now: Time, node: NodeId, job: JobId) {
        self.p.decline(now, node, job)
    }

    /// Driver mode: the host's truth about how many tasks of `job` wait to launch
    /// (retries, lost executors and speculation change it).
    pub fn set_pending(&mut self, now: Time, job: JobId, pending: u32, out: &mut Vec<Output>) {
        self.p.set_pending(now, job, pending, out)
    }

    /// A new estimate for the job's mean task duration (running mean); may reclassify it.
    pub fn set_estimate(&mut self, now: Time, job: JobId, estimate: f64, out: &mut Vec<Output>) {
        self.p.set_estimate_with(now, job, estimate, None, out)
    }

    /// Like [`Engine::set_estimate`], with the class fixed by the caller (`Some`) or
    /// derived from the cutoff (`None`).
    pub fn set_estimate_with(
        &mut self,
        now: Time,
        job: JobId,
        estimate: f64,
        class: Option<Class>,
        out: &mut Vec<Output>,
    ) {
        self.p.set_estimate_with(now, job, estimate, class, out)
    }

    /// The job is gone (finished, aborted or zombie): drop its probes everywhere.
    pub fn remove_job(&mut self, now: Time, job: JobId) {
        self.p.remove_job(now, job)
    }

    /// Query-aware SRPT: `job` belongs to `group` (a Spark job or SQL execution).
    pub fn set_group(&mut self, job: JobId, group: u64) {
        self.p.set_group(job, group)
    }

    /// Query-aware SRPT: estimated work (seconds) of the group's stages not yet submitted.
    pub fn set_group_future(&mut self, group: u64, work: f64) {
        self.p.set_group_future(group, work)
    }

    /// The short/long boundary moved (a learned cutoff): class-based state restarts.
    pub fn classes_changed(&mut self, now: Time) {
        self.p.classes_changed(now)
    }

    /// Driver mode: the measured warm-up of a task set on a new executor (seconds).
    pub fn set_warmup(&mut self, seconds: f64) {
        self.p.set_warmup(seconds)
    }

    /// Driver mode: the nodes holding input of `job`'s tasks, one entry per task.
    pub fn set_input_nodes(&mut self, job: JobId, nodes: &[NodeId]) {
        self.p.set_input_nodes(job, nodes)
    }

    /// Driver mode: a task of `job` not launched yet reads its input on `node`.
    pub fn holds_input(&self, job: JobId, node: NodeId) -> bool {
        self.p.holds_input(job, node)
    }

    /// Slots reserved for short work now (eagle-adaptive); `None` under the paper systems.
    pub fn reservation(&self) -> Option<u32> {
        self.p.reservation()
    }

    pub fn counters(&self) -> &Counters {
        &self.p.cluster().counters
    }
    pub fn config(&self) -> &Config {
        self.p.config()
    }
    pub fn job(&self, job: JobId) -> Option<JobView> {
        self.p.cluster().job_view(job)
    }
    pub fn node(&self, node: NodeId) -> Option<NodeView> {
        self.p.cluster().node_view(node, self.p.short_only(node))
    }
    /// The node's queue, head first: `(job, scheduled as long)` per entry.
    pub fn queue(&self, node: NodeId) -> impl Iterator<Item = (JobId, bool)> + '_ {
        self.p.cluster().nodes.get(node.0 as usize).into_iter().flat_map(|n| n.queue.iter().map(|e| (e.job, e.long)))
    }
    /// True when the central state says the node holds long work (placed, in flight, queued or running).
    pub fn holds_long_work(&self, node: NodeId) -> bool {
        self.p.holds_long_work(node)
    }
    /// Slots taken (running, or fetching a task), across live nodes.
    pub fn busy_slots(&self) -> u64 {
        self.p.cluster().busy
    }
    pub fn total_slots(&self) -> u64 {
        self.p.cluster().total
    }
}
