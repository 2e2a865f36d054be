//! A node (Spark executor) and its queue of probes and reservations.
//!
//! One queue per node; every slot of the node pulls from it. An entry is either
//! a *probe* of a short job (late binding: it asks the job for a task only when
//! a slot frees) or a *reservation* for one task of a centrally placed job (LWL).

use crate::eagle::srpt::Candidate;
use crate::eagle::sss::Snapshot;
use crate::types::{JobId, Time};
use std::collections::VecDeque;

/// One queued probe or reservation.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub job: JobId,
    /// Scheduled as long (a long job, or every job under DLWL/CLWL).
    pub long: bool,
    /// Placed centrally by LWL: counted in the central work map.
    pub reservation: bool,
    /// Counted in the long-work map (SSS): a reservation of a long job.
    pub marks_long: bool,
    /// The job's estimate when the entry was placed (what LWL added for it).
    pub est: f64,
    /// Queued when the node already held long work (Hawk's head-of-line blocking).
    pub behind_long: bool,
    /// SRPT: estimated delay accumulated from being bypassed.
    pub acc_delay: f64,
    /// SBP: has launched at least one task already.
    pub sticky: bool,
}

/// A task running on a node (the engine frees its slot on `task_finished`).
#[derive(Clone, Debug, PartialEq)]
pub struct Running {
    pub job: JobId,
    pub long: bool,
    pub reservation: bool,
    pub marks_long: bool,
    pub est: f64,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub live: bool,
    pub slots: u32,
    pub free: u32,
    pub queue: VecDeque<Entry>,
    /// Long entries in the queue.
    pub queued_long: u32,
    /// Long tasks running.
    pub running_long: u32,
    /// Start time and estimate of the current long task (LWL refinement); `None` when none.
    pub long_started: Option<(Time, f64)>,
    /// The last long-work bitvector this node received, and when (SSS).
    pub bitvector: Option<(Time, Snapshot)>,
    pub running: Vec<Running>,
    /// Locality mode: when a revive is already scheduled.
    pub revive_at: Option<Time>,
}

impl Node {
    pub fn new(slots: u32) -> Node {
        Node {
            live: true,
            slots,
            free: slots,
            queue: VecDeque::new(),
            queued_long: 0,
            running_long: 0,
            long_started: None,
            bitvector: None,
            running: Vec::with_capacity(slots as usize),
            revive_at: None,
        }
    }

    /// The node holds long work locally (running or queued).
    pub fn holds_long(&self) -> bool {
        self.running_long > 0 || self.queued_long > 0
    }

    /// Removes the record of one running task of `job`, returning it.
    pub fn take_running(&mut self, job: JobId) -> Option<Running> {
        let i = self.running.iter().position(|r| r.job == job)?;
        Some(self.running.swap_remove(i))
    }

    /// Position of a queued entry of `job`, if any.
    pub fn position_of(&self, job: JobId) -> Option<usize> {
        self.queue.iter().position(|e| e.job == job)
    }
}

/// An entry seen through its job's current state, for the SRPT scan.
pub struct View<'a> {
    pub entry: &'a Entry,
    pub remaining: f64,
    pub est: f64,
    /// The delay the starvation cap counts: the entry's `acc_delay`, or less where the
    /// node's policy says so (eagle-adaptive's wall-time floor in `eagle-node`).
    pub acc_delay: f64,
}

impl Candidate for View<'_> {
    fn is_long(&self) -> bool {
        self.entry.long
    }
    fn remaining(&self) -> f64 {
        self.remaining
    }
    fn estimate(&self) -> f64 {
        self.est
    }
    fn accumulated_delay(&self) -> f64 {
        self.acc_delay
    }
}
