//! The cluster state every policy shares: nodes (executors) with their slots and
//! queues, jobs (Spark task sets) with their task counts, and the counters.
//!
//! A policy ([`crate::policy`]) owns one [`Cluster`] and decides; the cluster only
//! keeps the books: which slot is busy with which job's task, how many tasks of a
//! job wait, run or are queued, and when a job id may be recycled.

pub use crate::counters::Counters;
use crate::eagle::node_queue::{Node, Running};
use crate::locality::JobLocality;
use crate::types::*;

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

/// Per-job state.
#[derive(Clone, Debug)]
pub struct Job {
    pub live: bool,
    pub class: Class,
    /// Scheduled as long: placed centrally (long jobs, or every job under DLWL/CLWL).
    pub sched_long: bool,
    pub est: f64,
    pub unlaunched: u32,
    pub launched: u32,
    pub running: u32,
    /// Entries of this job in queues or on the wire.
    pub queued: u32,
    /// Locality mode: where each task's input block lives, and the stage's delay.
    pub loc: Option<Box<JobLocality>>,
    /// SBP: nodes that received a probe of this job, to purge them when it completes.
    pub probe_nodes: Vec<u32>,
}

impl Job {
    pub fn new(class: Class, sched_long: bool, est: f64, tasks: u32) -> Job {
        Job {
            live: true,
            class,
            sched_long,
            est,
            unlaunched: tasks,
            launched: 0,
            running: 0,
            queued: 0,
            loc: None,
            probe_nodes: Vec::new(),
        }
    }
}

/// Nodes, jobs and the slot books.
#[derive(Clone, Debug, Default)]
pub struct Cluster {
    pub nodes: Vec<Node>,
    pub jobs: Vec<Job>,
    /// SRPT's view of each job's remaining work (unlaunched × estimate, in the
    /// simulator updated one round trip after each launch); −1 once nothing is left.
    /// Kept apart from `jobs` so that queue scans touch 8 bytes per entry.
    pub remaining: Vec<f64>,
    pub free_job_ids: Vec<u32>,
    pub counters: Counters,
    /// Slots taken (running, or fetching a task), across live nodes.
    pub busy: u64,
    /// Slots of live nodes.
    pub total: u64,
    /// Recycle job ids once nothing refers to them (driver mode).
    pub recycle_ids: bool,
}

impl Cluster {
    pub fn new(recycle_ids: bool) -> Cluster {
        Cluster { recycle_ids, ..Cluster::default() }
    }

    /// Adds a node with `slots` task slots; ids are dense and never reused.
    pub fn add_node(&mut self, slots: u32) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node::new(slots));
        self.total += slots as u64;
        id
    }

    /// Registers a job, recycling a free id when there is one.
    pub fn insert_job(&mut self, job: Job) -> JobId {
        let remaining = if job.unlaunched == 0 { -1.0 } else { job.est * job.unlaunched as f64 };
        match self.free_job_ids.pop() {
            Some(i) => {
                self.jobs[i as usize] = job;
                self.remaining[i as usize] = remaining;
                JobId(i)
            }
            None => {
                self.jobs.push(job);
                self.remaining.push(remaining);
                JobId(self.jobs.len() as u32 - 1)
            }
        }
    }

    /// Frees the slot of one running task of `job` on node `ni`, returning its record.
    pub fn release_slot(&mut self, ni: usize, job: JobId) -> Option<Running> {
        let n = &mut self.nodes[ni];
        let r = n.take_running(job)?;
        n.free += 1;
        self.busy -= 1;
        if r.long {
            n.running_long = n.running_long.saturating_sub(1);
        }
        Some(r)
    }

    /// Marks a live job gone: nothing left to launch, remaining work −1. Returns false
    /// when the job was unknown or already gone (the caller then has nothing to undo).
    pub fn retire_job(&mut self, job: JobId) -> bool {
        let Some(j) = self.jobs.get_mut(job.0 as usize) else { return false };
        if !j.live {
            return false;
        }
        j.live = false;
        j.unlaunched = 0;
        self.remaining[job.0 as usize] = -1.0;
        true
    }

    /// A live job's new estimate and class (`lwl_all`: every job is placed centrally);
    /// its remaining work follows. Returns whether the class changed, `None` when the
    /// job is unknown or gone.
    pub fn set_estimate(&mut self, job: JobId, estimate: f64, class: Class, lwl_all: bool) -> Option<bool> {
        let j = self.jobs.get_mut(job.0 as usize).filter(|j| j.live)?;
        j.est = estimate;
        let reclassified = class != j.class;
        j.class = class;
        j.sched_long = class.is_long() || lwl_all;
        if self.remaining[job.0 as usize] >= 0.0 {
            self.remaining[job.0 as usize] = j.unlaunched as f64 * estimate;
        }
        Some(reclassified)
    }

    /// Recycles a job id once nothing refers to the job any more (driver mode).
    pub fn maybe_free_job(&mut self, job: JobId) {
        if !self.recycle_ids {
            return;
        }
        let j = &self.jobs[job.0 as usize];
        if !j.live && j.running == 0 && j.queued == 0 && !self.free_job_ids.contains(&job.0) {
            self.free_job_ids.push(job.0);
        }
    }

    pub fn live_node(&self, node: NodeId) -> bool {
        self.nodes.get(node.0 as usize).is_some_and(|n| n.live)
    }

    pub fn job_view(&self, job: JobId) -> Option<JobView> {
        self.jobs.get(job.0 as usize).filter(|j| j.live).map(|j| JobView {
            class: j.class,
            estimate: j.est,
            unlaunched: j.unlaunched,
            launched: j.launched,
            running: j.running,
        })
    }

    pub fn node_view(&self, node: NodeId, short_only: bool) -> Option<NodeView> {
        let n = self.nodes.get(node.0 as usize)?;
        Some(NodeView {
            live: n.live,
            slots: n.slots,
            free_slots: n.free,
            queue_len: n.queue.len(),
            short_only,
            running_long: n.running_long,
            queued_long: n.queued_long,
        })
    }
}
