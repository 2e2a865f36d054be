//! The adaptive policy's side of preemption ([`crate::adaptive::preempt`]): the situation
//! from its books (the jobs whose tasks waited the bound, the free slots, the jobs'
//! estimates), and the counters of what was killed.

use super::Adaptive;
use crate::adaptive::preempt::{Attempt, Situation};
use crate::policy::Preempting;
use crate::types::*;

impl Preempting for Adaptive {
    fn preempt(&mut self, now: Time, attempts: &[Attempt], killing: u32) -> Option<usize> {
        if !self.preemption.on() {
            return None;
        }
        let after = self.preemption.after();
        let jobs = &self.c.jobs;
        let waiting_est = self
            .ready_short
            .iter()
            .chain(self.ready_long.iter())
            .filter(|&&(_, j)| now - self.meta[j as usize].ready_since >= after)
            .map(|&(_, j)| jobs[j as usize].est)
            .min_by(f64::total_cmp);
        let s = Situation {
            waiting_est,
            free_slots: self.c.total.saturating_sub(self.c.busy),
            total_slots: self.c.total,
            killing,
        };
        let est = |j: JobId| jobs.get(j.0 as usize).filter(|jb| jb.live).map(|jb| jb.est);
        let victim = self.preemption.victim(now, s, attempts, est)?;
        self.c.counters.preemptions += 1;
        self.c.counters.preempted_ms += ((now - attempts[victim].started).max(0.0) * 1000.0).round() as u64;
        Some(victim)
    }
}
