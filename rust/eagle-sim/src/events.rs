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
//! the reference. This table is the one place that orders simultaneous events.
//!
//! Events are small `Copy` values keyed by one `u128`, held in per-rank sorted
//! lanes plus a 4-ary heap (see [`EventQueue`]).

use eagle_core::{JobId, Msg, NodeId, Time};
use std::collections::VecDeque;

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
        Msg::Revive { .. } | Msg::Tick | Msg::MigrationDone { .. } => 5,
    }
}

/// What happens at an event.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Kind {
    /// The task of `job` running on `node` ends.
    /// `oh`: seconds the task lost to a remote read (locality mode), or −1 when
    /// locality is not simulated.
    TaskEnd { node: NodeId, job: JobId, oh: f32 },
    /// Eirene: copy `serial` (see [`crate::eirene::Copies`]) of a task of `job` on
    /// `node` ends, or is cancelled. Ranks with task ends.
    CopyEnd { node: NodeId, job: JobId, serial: u32 },
    /// Hand `msg` back to the engine.
    Timer(Msg),
}

impl Kind {
    pub fn rank(&self) -> u8 {
        match self {
            Kind::TaskEnd { .. } | Kind::CopyEnd { .. } => RANK_TASK_END,
            Kind::Timer(m) => msg_rank(m),
        }
    }
}

/// A scheduled event: a packed ordering key and what happens.
///
/// The key is one `u128`, `time bits << 64 | rank << 56 | seq`, so that an
/// ordering test is a single integer comparison. Times are never negative, and
/// the IEEE-754 bits of non-negative floats order like the floats.
#[derive(Copy, Clone, Debug)]
pub struct Event {
    key: u128,
    pub kind: Kind,
}

const SEQ_BITS: u32 = 56;

impl Event {
    fn new(at: Time, rank: u8, seq: u64, kind: Kind) -> Event {
        debug_assert!(at >= 0.0, "negative event time {at}");
        debug_assert!(seq < 1 << SEQ_BITS);
        let at = if at == 0.0 { 0.0 } else { at }; // -0.0 → +0.0
        Event { key: (at.to_bits() as u128) << 64 | (rank as u128) << SEQ_BITS | seq as u128, kind }
    }
    /// When it happens.
    pub fn at(&self) -> Time {
        f64::from_bits((self.key >> 64) as u64)
    }
    /// Its rank among events at the same time (see the module table).
    pub fn rank(&self) -> u8 {
        (self.key >> SEQ_BITS) as u8
    }
    /// Insertion sequence number.
    pub fn seq(&self) -> u64 {
        (self.key as u64) & ((1 << SEQ_BITS) - 1)
    }
}

/// A min-queue of events by (time, rank, insertion sequence).
///
/// Two structures share the work:
///
/// - **lanes**, one sorted FIFO per rank: an event whose key is not below the
///   last one in its rank's lane is appended there in O(1). Engine timers are
///   mostly "now + a fixed network delay", so they arrive in order and almost
///   all take this path;
/// - a **4-ary heap** for everything else (task ends, mostly), shallower than a
///   binary heap, with a node's children in one or two cache lines.
///
/// A pop takes the least of the heap's top and the lanes' heads, so the order is
/// exactly the (time, rank, sequence) order whichever structure holds an event.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: Vec<Event>,
    lanes: [VecDeque<Event>; LANES],
    /// Where the least event is (kept up to date by `push` and `pop`).
    best: Option<(u128, Source)>,
    len: usize,
    seq: u64,
    /// Events other than heartbeats: when none is left and nothing else can
    /// happen, the run is over (or stuck).
    pending_work: usize,
    /// Largest number of events held at once.
    peak_len: usize,
}

const ARITY: usize = 4;
const LANES: usize = RANK_TASK_END as usize + 1;

/// Where the least event is.
#[derive(Copy, Clone, Debug)]
enum Source {
    Heap,
    Lane(usize),
}

impl EventQueue {
    pub fn new() -> EventQueue {
        EventQueue::default()
    }
    pub fn with_capacity(n: usize) -> EventQueue {
        EventQueue { heap: Vec::with_capacity(n), ..EventQueue::default() }
    }
    /// Schedules `kind` at `at` (not negative, not NaN).
    pub fn push(&mut self, at: Time, kind: Kind) {
        if !matches!(kind, Kind::Timer(Msg::Heartbeat)) {
            self.pending_work += 1;
        }
        self.seq += 1;
        let rank = kind.rank();
        let ev = Event::new(at, rank, self.seq, kind);
        self.len += 1;
        self.peak_len = self.peak_len.max(self.len);
        let lane = &mut self.lanes[rank as usize];
        let source = if lane.back().is_none_or(|b| b.key <= ev.key) {
            lane.push_back(ev);
            Source::Lane(rank as usize)
        } else {
            self.heap_push(ev);
            Source::Heap
        };
        // Smaller than the least so far: it is at the head of where it went.
        if self.best.is_none_or(|(k, _)| ev.key < k) {
            self.best = Some((ev.key, source));
        }
    }
    /// The earliest event, if any.
    #[inline]
    pub fn peek(&self) -> Option<&Event> {
        match self.best?.1 {
            Source::Heap => self.heap.first(),
            Source::Lane(i) => self.lanes[i].front(),
        }
    }
    /// Removes and returns the earliest event.
    pub fn pop(&mut self) -> Option<Event> {
        let top = match self.best?.1 {
            Source::Heap => self.heap_pop(),
            Source::Lane(i) => self.lanes[i].pop_front().expect("non-empty lane"),
        };
        self.best = self.least();
        self.len -= 1;
        if !matches!(top.kind, Kind::Timer(Msg::Heartbeat)) {
            self.pending_work -= 1;
        }
        Some(top)
    }
    #[inline]
    fn least(&self) -> Option<(u128, Source)> {
        let mut best: Option<(u128, Source)> = self.heap.first().map(|e| (e.key, Source::Heap));
        for (i, lane) in self.lanes.iter().enumerate() {
            if let Some(e) = lane.front() {
                if best.is_none_or(|(k, _)| e.key < k) {
                    best = Some((e.key, Source::Lane(i)));
                }
            }
        }
        best
    }
    fn heap_push(&mut self, ev: Event) {
        let h = &mut self.heap;
        let mut i = h.len();
        h.push(ev);
        while i > 0 {
            let parent = (i - 1) / ARITY;
            if h[parent].key <= ev.key {
                break;
            }
            h[i] = h[parent];
            i = parent;
        }
        h[i] = ev;
    }
    fn heap_pop(&mut self) -> Event {
        let h = &mut self.heap;
        let last = h.pop().expect("non-empty heap");
        if h.is_empty() {
            return last;
        }
        let top = h[0];
        // Sift `last` down from the root.
        let n = h.len();
        let mut i = 0;
        loop {
            let first = i * ARITY + 1;
            if first >= n {
                break;
            }
            let end = (first + ARITY).min(n);
            let mut best = first;
            for c in first + 1..end {
                if h[c].key < h[best].key {
                    best = c;
                }
            }
            if h[best].key >= last.key {
                break;
            }
            h[i] = h[best];
            i = best;
        }
        h[i] = last;
        top
    }
    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Largest number of events held at once.
    pub fn peak_len(&self) -> usize {
        self.peak_len
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
        let end = |n| Kind::TaskEnd { node: NodeId(n), job: JobId(0), oh: -1.0 };
        q.push(2.0, end(0));
        q.push(1.0, Kind::Timer(Msg::Enqueue { node: NodeId(1), job: JobId(0), epoch: 0 }));
        q.push(1.0, end(2));
        q.push(1.0, end(3));
        q.push(1.0, Kind::Timer(Msg::Heartbeat));
        q.push(1.0, Kind::Timer(Msg::SlotFree { node: NodeId(4) }));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).map(|e| (e.at(), e.kind)).collect();
        assert_eq!(
            order,
            vec![
                (1.0, Kind::Timer(Msg::SlotFree { node: NodeId(4) })),
                (1.0, Kind::Timer(Msg::Enqueue { node: NodeId(1), job: JobId(0), epoch: 0 })),
                (1.0, Kind::Timer(Msg::Heartbeat)),
                (1.0, end(2)),
                (1.0, end(3)),
                (2.0, end(0)),
            ]
        );
        assert_eq!(q.pending_work(), 0);
    }

    #[test]
    fn pops_in_key_order_under_random_load() {
        // Like a simulation: pushes never go before the last pop's time, so popped
        // times never decrease; a full drain comes out in key order; every event
        // comes out once.
        let mut rng = eagle_core::rng::Rng::new(5);
        let mut q = EventQueue::new();
        let mut now = 0.0;
        let (mut pushed, mut popped) = (0, 0);
        for _ in 0..20_000 {
            for _ in 0..rng.below(5) {
                let at = now + rng.below(50) as f64 * 0.5;
                let kind = match rng.below(3) {
                    0 => Kind::TaskEnd { node: NodeId(0), job: JobId(0), oh: -1.0 },
                    1 => Kind::Timer(Msg::SlotFree { node: NodeId(1) }),
                    _ => Kind::Timer(Msg::Heartbeat),
                };
                q.push(at, kind);
                pushed += 1;
            }
            for _ in 0..rng.below(5) {
                if let Some(e) = q.pop() {
                    assert!(e.at() >= now, "{} after {now}", e.at());
                    now = e.at();
                    popped += 1;
                }
            }
        }
        let mut last = (now, 0u8, 0u64);
        while let Some(e) = q.pop() {
            let k = (e.at(), e.rank(), e.seq());
            assert!(k >= last, "{k:?} after {last:?}");
            last = k;
            popped += 1;
        }
        assert_eq!(pushed, popped);
        assert_eq!(q.pending_work(), 0);
    }
}
