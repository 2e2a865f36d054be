//! The simulator's event queue.
//!
//! Events are ordered by **(time, rank, sequence)**, which makes a run with a
//! given seed reproducible bit for bit. The ranks mirror the order in which the
//! reference simulator (CPython 2) happens to break ties: its heap holds
//! `(time, event)` tuples, so equal times compare the event objects, and
//! objects of different classes compare by *type name*: `JobArrival` <
//! `NoopGetTaskResponseEvent` < `PeriodicTimerEvent` < `ProbeEvent` <
//! `UpdateRemainingTimeEvent` < `WorkerHeartbeatEvent` < `instance` (its
//! `TaskEndEvent` is an old-style class, whose type name is "instance"). Objects
//! of the same class compare by memory address, which is arbitrary; we use
//! insertion order instead.
//!
//! | rank | event | reference class |
//! |------|-------|-----------------|
//! | 0 | job arrival (kept outside the heap: the trace is already sorted) | `JobArrival` |
//! | 1 | [`Msg::SlotFree`]: an empty fetch returns | `NoopGetTaskResponseEvent` |
//! | 2 | utilization sample (taken by the run loop, not queued) | `PeriodicTimerEvent` |
//! | 3 | [`Msg::Enqueue`]: a probe or reservation reaches a node | `ProbeEvent` |
//! | 4 | [`Msg::RemainingUpdate`] | `UpdateRemainingTimeEvent` |
//! | 5 | [`Msg::Heartbeat`] | `WorkerHeartbeatEvent` |
//! | 6 | task end | `TaskEndEvent` |
//!
//! So at equal times a task end comes last: a probe reaching a node at the
//! instant its task ends is queued first (Hawk then does not steal there), as in
//! the reference. The engine's own [`Msg::rank`] is not used for this.
//!
//! Events are small `Copy` values in a `BinaryHeap`.

use eagle_core::{JobId, Msg, NodeId, Time};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Rank of a job arrival (the smallest).
pub const RANK_ARRIVAL: u8 = 0;
/// Rank of a utilization sample: after arrivals and empty fetches at the same
/// time, before everything else.
pub const RANK_SAMPLE: u8 = 2;
/// Rank of a task end (the largest).
pub const RANK_TASK_END: u8 = 6;

/// The rank of an engine message (see the module table).
pub fn msg_rank(msg: &Msg) -> u8 {
    match msg {
        Msg::SlotFree { .. } => 1,
        Msg::Enqueue { .. } => 3,
        Msg::RemainingUpdate { .. } => 4,
        Msg::Heartbeat => 5,
    }
}

/// What happens at an event.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Kind {
    /// The task of `job` running on `node` ends.
    TaskEnd { node: NodeId, job: JobId },
    /// Hand `msg` back to the engine.
    Timer(Msg),
}

impl Kind {
    pub fn rank(&self) -> u8 {
        match self {
            Kind::TaskEnd { .. } => RANK_TASK_END,
            Kind::Timer(m) => msg_rank(m),
        }
    }
}

/// A scheduled event.
#[derive(Copy, Clone, Debug)]
pub struct Event {
    pub at: Time,
    pub rank: u8,
    pub seq: u64,
    pub kind: Kind,
}

impl Event {
    fn key(&self) -> (Time, u8, u64) {
        (self.at, self.rank, self.seq)
    }
}

impl PartialEq for Event {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Event {}
impl PartialOrd for Event {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Event {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the earliest event.
    fn cmp(&self, other: &Self) -> Ordering {
        let (a, b) = (self.key(), other.key());
        b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.cmp(&a.2))
    }
}

/// A min-queue of events by (time, rank, insertion sequence).
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Event>,
    seq: u64,
    /// Events other than heartbeats: when none is left and nothing else can
    /// happen, the run is over (or stuck).
    pending_work: usize,
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue::default()
    }
    pub fn with_capacity(n: usize) -> EventQueue {
        EventQueue { heap: BinaryHeap::with_capacity(n), ..EventQueue::default() }
    }
    /// Schedules `kind` at `at`.
    pub fn push(&mut self, at: Time, kind: Kind) {
        if !matches!(kind, Kind::Timer(Msg::Heartbeat)) {
            self.pending_work += 1;
        }
        self.seq += 1;
        self.heap.push(Event { at, rank: kind.rank(), seq: self.seq, kind });
    }
    /// The earliest event, if any.
    pub fn peek(&self) -> Option<&Event> {
        self.heap.peek()
    }
    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<Event> {
        let e = self.heap.pop()?;
        if !matches!(e.kind, Kind::Timer(Msg::Heartbeat)) {
            self.pending_work -= 1;
        }
        Some(e)
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Scheduled events that are not periodic heartbeats.
    pub fn pending_work(&self) -> usize {
        self.pending_work
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_rank_then_insertion() {
        let mut q = EventQueue::new();
        let end = |n| Kind::TaskEnd { node: NodeId(n), job: JobId(0) };
        q.push(2.0, end(0));
        q.push(1.0, Kind::Timer(Msg::Enqueue { node: NodeId(1), job: JobId(0) }));
        q.push(1.0, end(2));
        q.push(1.0, end(3));
        q.push(1.0, Kind::Timer(Msg::Heartbeat));
        q.push(1.0, Kind::Timer(Msg::SlotFree { node: NodeId(4) }));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.at, e.kind)).collect();
        assert_eq!(
            order,
            vec![
                (1.0, Kind::Timer(Msg::SlotFree { node: NodeId(4) })),
                (1.0, Kind::Timer(Msg::Enqueue { node: NodeId(1), job: JobId(0) })),
                (1.0, Kind::Timer(Msg::Heartbeat)),
                (1.0, end(2)),
                (1.0, end(3)),
                (2.0, end(0)),
            ]
        );
        assert_eq!(q.pending_work(), 0);
    }
}
