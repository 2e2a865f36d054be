//! Bounded waiting by preemption (ours, off by default): when a short job has waited longer
//! than a bound and every slot holds long work, the youngest long attempt is killed so the
//! short job gets its slot. Eagle (SoCC'16 §3), Hawk and Spark's FAIR pools all leave a short
//! job behind a running long task: without preemption its wait is at least the time until
//! the next long task ends, however the scheduler orders the queue.
//!
//! The rule (the host passes the facts; this decides):
//! - **When.** A job's tasks have waited at least `after` seconds, every slot is taken, no
//!   running attempt is expected to end within `after` (its job's task estimate less its run
//!   time so far), and no earlier kill is still ending.
//! - **Whom.** Of the attempts of jobs whose task estimate is at least [`RATIO`] times the
//!   waiting job's (the waiting job with the smallest estimate), the youngest: the least
//!   work lost. Never an attempt of a task preempted before: a task is killed at most once.
//! - **Budget.** Over any `window`, the work killed (each victim's run time so far, in
//!   slot-seconds) stays at most `fraction` of the cluster's slot-seconds. A victim that
//!   would exceed it is spared, and so is every older one.
//!
//! - **Instead of idle slots.** While the budget has room, the short reservation keeps no
//!   slot idle for short work that may come (only for short tasks waiting now): a short job
//!   gets a slot within the bound by a kill, and long work keeps the slots meanwhile.
//!
//! The host kills through Spark's own task kill: the attempt re-runs, and Spark does not
//! count a kill as a task failure. Invariants: at most one kill in flight; no task killed
//! twice; killed slot-seconds within the budget; `after = 0` or `fraction = 0` turns it off.

use super::windowed::Windowed;
use crate::types::{JobId, Time};

/// A running attempt the host could kill: its job, when it started (engine time) and
/// whether its task was preempted before.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attempt {
    pub job: JobId,
    pub started: Time,
    pub preempted_before: bool,
}

/// A victim's job has a task estimate at least this many times the waiting job's: a task an
/// order of magnitude longer than the one waiting for its slot.
pub const RATIO: f64 = 10.0;

/// The state of the situation the rule reads, from the policy's books.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Situation {
    /// The task estimate of the job the kill would serve: of the jobs whose tasks have
    /// waited at least the bound, the smallest; `None` when no job has waited that long.
    pub waiting_est: Option<f64>,
    pub free_slots: u64,
    pub total_slots: u64,
    /// Kills decided before whose attempts have not ended yet.
    pub killing: u32,
}

#[derive(Clone, Debug)]
pub struct Preemption {
    after: f64,
    fraction: f64,
    window: f64,
    killed: Windowed,
}

impl Preemption {
    /// `after`: the bound on a short job's wait (seconds); `fraction`: the budget over `window`.
    pub fn new(after: f64, fraction: f64, window: f64) -> Preemption {
        Preemption { after, fraction, window, killed: Windowed::new(window) }
    }

    pub fn on(&self) -> bool {
        self.after > 0.0 && self.fraction > 0.0
    }

    /// On, with budget left over the window for a kill of at least `after` seconds of run
    /// time on a cluster of `total_slots`: a waiting short job would get a slot within the
    /// bound, so the reservation need keep none idle for it.
    pub fn can_kill(&self, now: Time, total_slots: u64) -> bool {
        self.on() && self.killed.total(now) + self.after <= self.fraction * total_slots as f64 * self.window
    }

    /// The bound on a job's wait, seconds.
    pub fn after(&self) -> f64 {
        self.after
    }

    /// The index in `attempts` of the attempt to kill now, if any; `est(job)` is a live job's
    /// task estimate. The kill is booked against the budget.
    pub fn victim(
        &mut self,
        now: Time,
        s: Situation,
        attempts: &[Attempt],
        est: impl Fn(JobId) -> Option<f64>,
    ) -> Option<usize> {
        let waiting = s.waiting_est?;
        if !self.on() || s.killing > 0 || s.free_slots > 0 || s.total_slots == 0 {
            return None;
        }
        // A slot that frees within the bound serves the waiting job without a kill.
        let ends_soon = |a: &Attempt| est(a.job).is_none_or(|e| e - (now - a.started) <= self.after);
        if attempts.iter().any(ends_soon) {
            return None;
        }
        let (i, a) = attempts
            .iter()
            .enumerate()
            .filter(|(_, a)| !a.preempted_before && est(a.job).is_some_and(|e| e >= RATIO * waiting))
            .max_by(|x, y| x.1.started.total_cmp(&y.1.started))?;
        let lost = (now - a.started).max(0.0);
        let budget = self.fraction * s.total_slots as f64 * self.window;
        if self.killed.total(now) + lost > budget {
            return None;
        }
        self.killed.add(now, lost.max(1e-9));
        Some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(est: f64) -> Situation {
        Situation { waiting_est: Some(est), free_slots: 0, total_slots: 4, killing: 0 }
    }

    fn at(job: u32, started: f64) -> Attempt {
        Attempt { job: JobId(job), started, preempted_before: false }
    }

    /// Job 0 has 100 s tasks, job 1 has 5 s tasks.
    fn est(j: JobId) -> Option<f64> {
        [Some(100.0), Some(5.0)].get(j.0 as usize).copied().flatten()
    }

    #[test]
    fn kills_the_youngest_long_attempt_once_a_job_waited_the_bound() {
        let mut p = Preemption::new(1.0, 0.05, 60.0);
        let running = [at(0, 1.0), at(0, 3.0), at(0, 2.0), at(0, 1.5)];
        let none_waited = Situation { waiting_est: None, ..waiting(0.1) };
        assert_eq!(p.victim(5.0, none_waited, &running, est), None, "no job waited the bound");
        assert_eq!(p.victim(5.0, waiting(0.1), &running, est), Some(1), "the youngest");
    }

    #[test]
    fn no_kill_while_a_slot_is_free_or_frees_soon_or_a_kill_is_in_flight() {
        let mut p = Preemption::new(1.0, 0.05, 60.0);
        let s = waiting(0.1);
        assert_eq!(p.victim(5.0, Situation { free_slots: 1, ..s }, &[at(0, 1.0)], est), None);
        assert_eq!(p.victim(5.0, Situation { killing: 1, ..s }, &[at(0, 1.0)], est), None);
        // Job 1's task started at 1.0 and is estimated at 5 s: it ends within the bound.
        assert_eq!(p.victim(5.0, s, &[at(0, 1.0), at(1, 1.0)], est), None, "a slot frees soon");
        let s1 = waiting(1.0);
        assert_eq!(p.victim(5.0, s1, &[at(0, 1.0), at(1, 4.5)], est), Some(0), "5 s tasks are no victims of 1 s");
    }

    #[test]
    fn spares_tasks_not_much_longer_than_the_waiting_one_and_tasks_preempted_before() {
        let mut p = Preemption::new(1.0, 0.05, 60.0);
        let again = Attempt { preempted_before: true, ..at(0, 4.0) };
        assert_eq!(p.victim(5.0, waiting(1.0), &[at(1, 4.5), again], est), None);
        assert_eq!(p.victim(5.0, waiting(1.0), &[at(1, 4.5), again, at(0, 2.0)], est), Some(2));
    }

    #[test]
    fn the_budget_bounds_the_work_killed_over_the_window() {
        // 4 slots x 60 s x 0.05 = 12 slot-seconds.
        let mut p = Preemption::new(1.0, 0.05, 60.0);
        assert_eq!(p.victim(10.0, waiting(0.1), &[at(0, 2.0)], est), Some(0), "8 s lost");
        assert_eq!(p.victim(11.0, waiting(0.1), &[at(0, 5.0)], est), None, "8 + 6 > 12");
        assert_eq!(p.victim(11.0, waiting(0.1), &[at(0, 8.0)], est), Some(0), "8 + 3 <= 12");
        assert_eq!(p.victim(100.0, waiting(0.1), &[at(0, 90.0)], est), Some(0), "the window passed");
    }

    #[test]
    fn off_when_the_bound_or_the_budget_is_zero() {
        for (after, fraction) in [(0.0, 0.05), (1.0, 0.0)] {
            let mut p = Preemption::new(after, fraction, 60.0);
            assert!(!p.on());
            assert_eq!(p.victim(5.0, waiting(0.1), &[at(0, 4.0)], est), None);
        }
    }
}
