//! Warm executors in the adaptive policy ([`crate::adaptive::warmup`]): whether a free slot is worth
//! a task of a job, given where the job is warm and what a cold start costs the others.

use super::Adaptive;
use crate::policy::WarmExecutors;
use crate::types::{JobId, NodeId, Time};

impl Adaptive {
    /// Whether a free slot of node `ni` is worth a task of `job` (warm executors); with
    /// `crowded` false, as if no other job wanted the slot. A cold start's warm-up is slot
    /// time lost on a busy cluster: every other live group or job ends that much later
    /// (shared over the slots), not only the ones with a task waiting now.
    pub(super) fn worth_here(&self, now: Time, ni: usize, job: u32, crowded: bool) -> bool {
        let m = &self.meta[job as usize];
        if self.warmup <= 0.0 || m.warm.binary_search(&(ni as u32)).is_ok() {
            return true;
        }
        // Data locality: a waiting task reads its input here; elsewhere it would read it
        // over the network after a locality wait, and a free slot here would idle.
        if self.holds_input(JobId(job), NodeId(ni as u32)) {
            return true;
        }
        let j = &self.c.jobs[job as usize];
        let others = if crowded { self.live_units().saturating_sub(1) } else { 0 };
        match m.warming.binary_search_by_key(&(ni as u32), |w| w.0) {
            Ok(i) => {
                let since = now - m.warming[i].1;
                crate::adaptive::warmup::worth_warming_slot(since, j.running, j.est, self.warmup, others, self.c.total)
            }
            Err(_) => {
                // No other unit live: a first task elsewhere far past the estimate shows it low.
                if others == 0
                    && m.warming.iter().any(|w| crate::adaptive::warmup::overran(now - w.1, j.est, self.warmup))
                {
                    return true;
                }
                let enough =
                    crate::adaptive::warmup::enough_warm_slots(j.unlaunched, j.est, self.warmup, others, self.c.total);
                let warm_slots = self.warm_slots(job, enough);
                crate::adaptive::warmup::worth_cold_start(
                    j.unlaunched,
                    j.running,
                    warm_slots,
                    j.est,
                    self.warmup,
                    others,
                    self.c.total,
                )
            }
        }
    }

    /// The slots `job` would get warm without a cold start, counted up to `enough`: those
    /// of the live executors where it is warm or warming, less the ones other jobs' long
    /// tasks hold (they free only after seconds to minutes).
    pub(super) fn warm_slots(&self, job: u32, enough: u32) -> u32 {
        let m = &self.meta[job as usize];
        let nodes = m.warm.iter().copied().chain(m.warming.iter().map(|w| w.0));
        let mut sum = 0;
        for n in nodes.filter_map(|n| self.c.nodes.get(n as usize).filter(|n| n.live)) {
            sum += n.slots - n.running.iter().filter(|r| r.long && r.job.0 != job).count() as u32;
            if sum >= enough {
                break;
            }
        }
        sum
    }
}
