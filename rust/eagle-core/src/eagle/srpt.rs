//! Shortest Remaining Processing Time with starvation prevention, and Sticky
//! Batch Probing (Eagle §3.3, Algorithm 1).
//!
//! When a slot frees on a node, the node chooses which queued entry to serve:
//!
//! 1. A long entry at the head of the queue runs first (FIFO among long work).
//! 2. Otherwise scan the short probes up to the first long entry. The probe of
//!    the job with the least *remaining work* (unlaunched tasks × estimate, as
//!    the scheduler last reported it) wins; ties go to the earlier position.
//! 3. A probe may only jump ahead if its estimated task duration fits within the
//!    smallest *slack* among the short probes it would bypass, where
//!    `slack = factor × own estimate − accumulated delay`. This caps how long
//!    any probe can be starved (5× its own task duration in the paper).
//! 4. After a short launch, every bypassed probe's accumulated delay grows by
//!    the launched task's estimate.
//!
//! Sticky Batch Probing: a probe stands for its whole job. After a successful
//! launch it *stays* in the queue, so the node keeps serving that job's next
//! task while SRPT still picks it; it leaves only when the job has nothing left
//! to launch. Probes of jobs with no remaining work (remaining = −1) are dropped
//! during the scan.
//!
//! DLWL (Yaq-D) uses the plain variant: every entry competes, the slack test is
//! strict (`<`), and there is no stickiness.

/// What the scan needs to know about a queued entry.
pub trait Candidate {
    fn is_long(&self) -> bool;
    /// Remaining work of the entry's job as the node sees it; `< 0` means the job
    /// has nothing left and the probe should be dropped.
    fn remaining(&self) -> f64;
    fn estimate(&self) -> f64;
    fn accumulated_delay(&self) -> f64;
}

/// Result of an SBP + SRPT scan.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Pick {
    /// Serve the entry at this position (positions after dropping dead probes).
    At(usize),
    /// Nothing to serve.
    Empty,
}

/// Eagle's choice (Algorithm 1) over the queue in order. The caller removes
/// probes of jobs with nothing left (`remaining() < 0`) before the scan.
pub fn pick_sbp<C: Candidate>(entries: impl Iterator<Item = C>, factor: f64) -> Pick {
    scan(entries, factor, Variant::Eagle)
}

/// Plain SRPT (DLWL/Yaq-D): all entries compete, strict slack test.
pub fn pick_plain<C: Candidate>(entries: impl Iterator<Item = C>, factor: f64) -> Pick {
    scan(entries, factor, Variant::Plain)
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Variant {
    /// Long work at the head runs first and is never bypassed; `est <= slack`.
    Eagle,
    /// Every entry competes; `est < slack`.
    Plain,
}

fn scan<C: Candidate>(entries: impl Iterator<Item = C>, factor: f64, variant: Variant) -> Pick {
    let eagle = variant == Variant::Eagle;
    let mut entries = entries.enumerate().peekable();
    if eagle && entries.peek().is_some_and(|(_, e)| e.is_long()) {
        return Pick::At(0);
    }
    // Never bypass long work (Eagle): the scan stops at the first long entry. No allocation:
    // this runs at every grant of a node daemon.
    best(entries.take_while(|(_, e)| !(eagle && e.is_long())), factor, variant).map_or(Pick::Empty, Pick::At)
}

/// Queue entries with their positions, in queue order.
type Positioned<C> = Vec<(usize, C)>;

/// The least-remaining entry among `entries` (queue positions with their entries, in
/// queue order) whose estimate fits the slack of every entry it bypasses.
fn best<C: Candidate>(entries: impl Iterator<Item = (usize, C)>, factor: f64, variant: Variant) -> Option<usize> {
    let mut best: Option<usize> = None;
    let mut min_remaining = f64::INFINITY;
    let mut min_slack = f64::INFINITY;
    for (i, e) in entries {
        let est = e.estimate();
        let fits = match variant {
            Variant::Eagle => est <= min_slack,
            Variant::Plain => est < min_slack,
        };
        if e.remaining() < min_remaining && fits {
            best = Some(i);
            min_remaining = e.remaining();
        }
        min_slack = min_slack.min(factor * est - e.accumulated_delay());
    }
    best
}

/// eagle-adaptive at a node daemon (cluster mode). Short probes go first, chosen by
/// Algorithm 1 over the short entries alone (a long entry ahead of them does not hold
/// them back: Eagle's priority of short work, §3.1). With no short entry to serve, the
/// long entries compete by SRPT too, rather than the paper's FIFO (§3.3 keeps long work
/// in order): the long entry of least remaining work wins if its estimate fits the slack
/// of every long entry it bypasses, `factor × own estimate − accumulated delay` (the
/// strict test of plain SRPT). The starvation cap holds for long work against short work
/// too: a long entry whose accumulated delay passed `factor ×` its estimate goes before
/// everything (the first such entry), so a stream of short probes delays a long task by
/// at most that, plus one grant. The caller charges every entry a grant bypasses.
pub fn pick_short_first<C: Candidate>(entries: impl Iterator<Item = C>, factor: f64) -> Pick {
    let (long, short): (Positioned<C>, Positioned<C>) = entries.enumerate().partition(|(_, e)| e.is_long());
    if let Some((i, _)) = long.iter().find(|(_, e)| e.accumulated_delay() > factor * e.estimate()) {
        return Pick::At(*i);
    }
    best(short.into_iter(), factor, Variant::Eagle)
        .or_else(|| best(long.into_iter(), factor, Variant::Plain))
        .map_or(Pick::Empty, Pick::At)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy)]
    struct E {
        long: bool,
        rem: f64,
        est: f64,
        acc: f64,
    }
    impl Candidate for E {
        fn is_long(&self) -> bool {
            self.long
        }
        fn remaining(&self) -> f64 {
            self.rem
        }
        fn estimate(&self) -> f64 {
            self.est
        }
        fn accumulated_delay(&self) -> f64 {
            self.acc
        }
    }
    fn s(rem: f64, est: f64, acc: f64) -> E {
        E { long: false, rem, est, acc }
    }
    fn l() -> E {
        E { long: true, rem: 1e9, est: 1000.0, acc: 0.0 }
    }

    #[test]
    fn picks_least_remaining() {
        let q = [s(100.0, 10.0, 0.0), s(20.0, 10.0, 0.0), s(50.0, 10.0, 0.0)];
        assert_eq!(pick_sbp(q.iter().copied(), 5.0), Pick::At(1));
    }

    #[test]
    fn ties_go_to_earlier_position() {
        let q = [s(20.0, 10.0, 0.0), s(20.0, 10.0, 0.0)];
        assert_eq!(pick_sbp(q.iter().copied(), 5.0), Pick::At(0));
    }

    #[test]
    fn starvation_cap_blocks_bypass() {
        // Head has est 2, cap 5x = 10, already delayed by 9: slack 1 < est 3 of the shorter job.
        let q = [s(100.0, 2.0, 9.0), s(3.0, 3.0, 0.0)];
        assert_eq!(pick_sbp(q.iter().copied(), 5.0), Pick::At(0), "FIFO head when no probe may bypass");
        // With slack 3 == est 3 the bypass is allowed (<=).
        let q = [s(100.0, 2.0, 7.0), s(3.0, 3.0, 0.0)];
        assert_eq!(pick_sbp(q.iter().copied(), 5.0), Pick::At(1));
        // DLWL's strict test refuses equality.
        assert_eq!(pick_plain(q.iter().copied(), 5.0), Pick::At(0));
    }

    #[test]
    fn long_head_runs_first_and_long_is_never_bypassed() {
        let q = [l(), s(1.0, 1.0, 0.0)];
        assert_eq!(pick_sbp(q.iter().copied(), 5.0), Pick::At(0));
        let q = [s(50.0, 1.0, 0.0), l(), s(1.0, 1.0, 0.0)];
        assert_eq!(pick_sbp(q.iter().copied(), 5.0), Pick::At(0), "the probe behind the long entry is not reachable");
    }

    #[test]
    fn short_first_serves_short_work_past_long_entries() {
        let q = [l(), s(50.0, 1.0, 0.0), s(1.0, 1.0, 0.0)];
        assert_eq!(pick_short_first(q.iter().copied(), 5.0), Pick::At(2), "the short probe of least remaining work");
        assert_eq!(pick_sbp(q.iter().copied(), 5.0), Pick::At(0), "the paper serves the long head first");
    }

    #[test]
    fn short_first_ranks_long_work_by_remaining_work_within_the_starvation_cap() {
        let big = E { long: true, rem: 40_000.0, est: 1000.0, acc: 0.0 };
        let small = E { long: true, rem: 500.0, est: 500.0, acc: 0.0 };
        let q = [big, big, small];
        assert_eq!(pick_short_first(q.iter().copied(), 5.0), Pick::At(2), "the small long job jumps the big one");
        // The head was bypassed for 4.6 s already: slack 5 x 1 s - 4.6 s = 0.4 s < 0.5 s.
        let starved = E { acc: 4600.0, ..big };
        let q = [starved, big, small];
        assert_eq!(pick_short_first(q.iter().copied(), 5.0), Pick::At(0), "no bypass past the starvation cap");
        assert_eq!(pick_short_first(std::iter::empty::<E>(), 5.0), Pick::Empty);
        // Short work goes first until a long entry has waited 5x its estimate for it.
        let q = [big, s(1.0, 1.0, 0.0)];
        assert_eq!(pick_short_first(q.iter().copied(), 5.0), Pick::At(1));
        let overdue = E { acc: 5001.0, ..big };
        let q = [big, overdue, s(1.0, 1.0, 0.0)];
        assert_eq!(
            pick_short_first(q.iter().copied(), 5.0),
            Pick::At(1),
            "the overdue long entry before the short probe"
        );
    }

    #[test]
    fn empty_queue() {
        assert_eq!(pick_sbp(std::iter::empty::<E>(), 5.0), Pick::Empty);
    }
}
