//! Hosts where a task set handed back a grant under the warm-executors rule
//! (`cluster.warmGrants`, [`eagle_core::Driver::worth_grant`]), and its probe there again.
//!
//! The hand-back is late binding's "no task", and on a short "no task" the node drops the
//! task set's probe (Eagle §3.3: a probe that finds no task is gone). The task set keeps its
//! probes where its tasks run, so its client never probes that host again: it is neither
//! rejected there (Succinct State Sharing's retry, [`crate::ClientConfig::retry_rejected`])
//! nor left without probes. That is right while the rule's reason holds: the task set's own
//! slots drain it sooner. But the rule judges from the estimate, and an estimate can be far
//! too low (a stage of 3 s tasks that came in at an application's typical task of 35 ms):
//! the rule turns once the running tasks overrun it ([`eagle_core::adaptive::warmup::overran`]), and
//! by then the host it handed back holds no probe of it. So each host a task set handed a
//! grant back on is remembered, and when an executor there has a free slot in an offer
//! round and the rule now says yes, the task set probes that host again: its node grants
//! the slot if its own queue (Sticky Batch Probing + SRPT) picks the task set.

use super::ClusterSide;
use eagle_core::JobId;
use std::collections::{HashMap, HashSet};

impl ClusterSide {
    /// The slots each job holds under a kept probe, over every host (Sticky Batch Probing:
    /// its node offers them to it again as its tasks end), and the jobs holding a slot of
    /// `host` (running or assigned this round).
    pub(super) fn holding(&self, host: &str) -> (HashMap<JobId, u32>, HashSet<JobId>) {
        let mut sticky: HashMap<JobId, u32> = HashMap::new();
        let mut here: HashSet<JobId> = HashSet::new();
        let holding = self.running.values().map(|(_, g)| g).chain(self.assigned.iter().map(|(_, g, _)| g));
        for g in holding {
            if g.kept {
                *sticky.entry(JobId(g.job as u32)).or_default() += 1;
            }
            if g.host == host {
                here.insert(JobId(g.job as u32));
            }
        }
        (sticky, here)
    }

    /// `job` handed back a grant of `host` under the warm-executors rule.
    pub(super) fn handed_back(&mut self, job: JobId, host: &str) {
        let hosts = self.handed.entry(job).or_default();
        if !hosts.iter().any(|h| h == host) {
            hosts.push(host.to_string());
        }
    }

    /// An executor of `host` has `free` slots in this offer round: each task set that handed
    /// back a grant there, may run there (not in `exclude`), holds no slot there, and has
    /// tasks waiting, probes the host again if `worth(job, waiting, kept slots)` now says yes.
    pub(super) fn probe_handed_back(
        &mut self,
        host: &str,
        free: u32,
        exclude: &[JobId],
        worth: &impl Fn(JobId, u32, u32) -> bool,
    ) {
        // Cheap test first: this runs on every offer of a free slot, and the set is usually
        // empty or names other hosts.
        if !self.handed.values().any(|hosts| hosts.iter().any(|h| h == host)) {
            return;
        }
        let (sticky, here) = self.holding(host);
        let mut again = Vec::new();
        let pending = &self.pending;
        self.handed.retain(|job, hosts| {
            let Some(i) = hosts.iter().position(|h| h == host) else { return true };
            let Some((units, shape)) = pending.get(job) else { return false };
            let waiting = units / shape.width;
            if here.contains(job) {
                // A task of it runs there: its probe is back (another grant was taken).
                hosts.swap_remove(i);
            } else if waiting > 0
                && free >= shape.width
                && !exclude.contains(job)
                && worth(*job, waiting, sticky.get(job).copied().unwrap_or(0))
            {
                hosts.swap_remove(i);
                again.push(*job);
            }
            !hosts.is_empty()
        });
        for job in again {
            self.counters.probed_again += 1;
            self.client().probe_again(job.0 as u64, host);
        }
    }
}
