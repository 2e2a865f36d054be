//! The simulator's event queue.
//!
//! Events are ordered by **(time, rank, sequence)**, which makes a run with a
//! given seed reproducible bit for bit:
//!
//! | rank | event |
//! |------|-------|
//! | 0 | job arrival (kept outside the heap: the trace is already sorted) |
//! | 1 | task end |
//! | 2 + [`Msg::rank`] | engine timer: heartbeat, remaining-work update, slot free, enqueue |
//!
//! Arrivals come first so that a job submitted at `t` is known before anything
//! else happens at `t`; a task end comes before engine messages so that a slot
//! freed at `t` is free when a probe reaching that node at `t` is queued. Among
//! equal (time, rank), insertion order decides.
//!
//! Events are small `Copy` values in a `BinaryHeap`.

use eagle_core::{JobId, Msg, NodeId, Time};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Rank of a job arrival (the smallest).
pub const RANK_ARRIVAL: u8 = 0;
/// Rank of a task end.
pub const RANK_TASK_END: u8 = 1;
/// Engine timers rank `RANK_TIMER_BASE + msg.rank()`.
pub const RANK_TIMER_BASE: u8 = 2;

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
            Kind::Timer(m) => RANK_TIMER_BASE + m.rank(),
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
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.at, e.kind)).collect();
        assert_eq!(
            order,
            vec![
                (1.0, end(2)),
                (1.0, end(3)),
                (1.0, Kind::Timer(Msg::Heartbeat)),
                (1.0, Kind::Timer(Msg::Enqueue { node: NodeId(1), job: JobId(0) })),
                (2.0, end(0)),
            ]
        );
        assert_eq!(q.pending_work(), 0);
    }
}
