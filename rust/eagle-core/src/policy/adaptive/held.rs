//! The adaptive policy's books for the hold ([`crate::adaptive::hold`]): what it learns from the
//! policy's events, and whether a free slot is held.

use super::Adaptive;
use crate::types::Time;

impl Adaptive {
    /// After a task of `job` ended: a job with nothing left to run, smaller in all than the
    /// remaining work of every job still waiting, opens a hold of its slots; so does a short
    /// job with nothing waiting, while long work has arrived within `idle` (a long job that
    /// arrives within the hold's window finds the slots held).
    pub(super) fn maybe_small_ended(&mut self, now: Time, job: u32) {
        let j = &self.c.jobs[job as usize];
        if j.running > 0 || j.unlaunched > 0 {
            return;
        }
        let (tasks, work, short) = (j.launched, j.launched as f64 * j.est, !j.class.is_long());
        let p = self.reservation.params();
        let (cap, idle) = ((p.max_fraction * self.c.total as f64 + 1e-9).floor() as u32, p.idle);
        if self.ready_short.is_empty() && self.ready_long.is_empty() {
            if short && self.long_arrived.is_some_and(|t| now - t <= idle) {
                let reserved = self.long_allowed(now).1 as u32;
                self.hold.small_ended_alone(now, tasks, self.c.total as f64, cap, reserved);
            }
            return;
        }
        let waiting = self.ready_short.iter().chain(self.ready_long.iter());
        if !waiting.clone().all(|&(_, w)| w != job && self.group_remaining(w) > work) {
            return;
        }
        // The short reservation keeps slots from long work only, at its size now.
        let reserved = if self.ready_short.is_empty() { self.long_allowed(now).1 as u32 } else { 0 };
        self.hold.small_ended(now, tasks, self.c.total as f64, cap, reserved);
    }

    /// Whether the hold keeps every free slot now.
    pub(super) fn slot_held(&mut self, now: Time) -> bool {
        let held = self.hold.held(now) as u64;
        held > 0 && self.c.total.saturating_sub(self.c.busy) <= held
    }

    /// The slots the open hold holds, without ending an expired one (for reporting).
    pub(super) fn hold_current(&self) -> u32 {
        self.hold.current()
    }
}
