//! The long share of the adaptive policy (docs/policies/adaptive.md, "Long work keeps a share"): when long
//! tasks may start beside the short reservation, and when short work is held to its cap
//! while long work waits. Eagle's general partition guarantees long work a part of the
//! cluster (SoCC'16 §3.1); this is that guarantee for a floating reservation.

use super::Adaptive;
use crate::types::Time;
use std::collections::{BTreeSet, HashSet};

impl Adaptive {
    /// Long tasks may start while fewer than `total − R` run; returns that and `R`.
    pub(super) fn long_allowed(&mut self, now: Time) -> (bool, u64) {
        // How often a slot would free if long work filled the cluster: the mean estimate of
        // the running long tasks over all slots (not over the long tasks running now, which
        // the reservation itself keeps down).
        let lr = self.long_running as f64;
        let gap = if lr > 0.0 { self.long_est_sum / lr / self.c.total.max(1) as f64 } else { 0.0 };
        let mut r = self.reservation.size(now, self.short_waiting, self.c.total, gap) as u64;
        if let Some(pools) = self.pools_long_share() {
            // Tenants' pools: the reservation holds no slot of the long tenants' share.
            r = r.min(self.short_cap(self.long_share_of(Some(pools))));
        }
        if self.preemption.can_kill(now, self.c.total) {
            // Preemption bounds a short job's wait while its budget lasts: no slot is kept
            // idle for short work that may come, only for short tasks that wait now.
            r = r.min(self.short_waiting);
        }
        (self.long_running + r < self.c.total, r)
    }

    /// With several tenants live, whether long work runs fewer tasks than its tenants' pools
    /// share: then a slot the hold keeps for the next short job is long work's, as no pool
    /// keeps a slot of another's ([`crate::adaptive::hold`] holds slots from long work only).
    pub(super) fn long_below_pools_share(&self) -> bool {
        self.pools_long_share()
            .is_some_and(|f| self.long_running + self.short_cap(self.long_share_of(Some(f))) < self.c.total)
    }

    /// The slots short work may hold while long work waits under a long share of `share`.
    fn short_cap(&self, share: f64) -> u64 {
        ((((1.0 - share) * self.c.total as f64) + 1e-9).floor() as u64).max(1)
    }

    /// Short tasks may start unless long work waits for a slot and short work already
    /// holds `max(R, floor((1 − long_share) × total))` slots: the starvation guarantee of
    /// long work under a short stream that alone fills the cluster, where a deadline
    /// scaled by the jobs sharing the cluster would never fall due.
    ///
    /// The share holds against a *sustained* stream only: it applies while short work has
    /// held at least `cap` slots on average over the reservation window. A burst (one wide
    /// short job) still takes every slot, as Eagle's short jobs do; a stream that alone
    /// fills the cluster is held to `cap` slots on average, while the share pays
    /// ([`Adaptive::share_pays`]).
    ///
    /// On a free slot of executor `node` (driver mode), short work may hold one slot over
    /// `cap` to keep executors to one class ([`crate::adaptive::affinity`]).
    ///
    /// With several tenants live the share is their pools' ([`Adaptive::pools_long_share`])
    /// and holds whenever long work waits: neither the reservation nor a burst nor a drained
    /// stream takes a tenant's share from it, as no pool takes another's.
    pub(super) fn short_allowed(&self, now: Time, r: u64, long_waits: bool, node: Option<usize>) -> bool {
        if !long_waits {
            return true;
        }
        let pools = self.pools_long_share();
        let share = self.long_share_of(pools);
        if share <= 0.0 {
            return true;
        }
        let pools = pools.is_some();
        let cap = if pools { self.short_cap(share) } else { self.short_cap(share).max(r) };
        self.short_running < cap
            || (!pools && (self.reservation.observed_mean(now) < cap as f64 || !self.share_pays(now)))
            || (self.short_running == cap
                && node.is_some_and(|ni| crate::adaptive::affinity::lend_to_short(&self.c.nodes, ni)))
    }

    /// Whether the long share holds short work to its cap: while short units (queries, or
    /// jobs outside any group) have arrived within the reservation window, so the stream
    /// may not end; after that, only while the short backlog would bypass more than
    /// `starvation_factor` times the long work left (the paper's starvation cap of
    /// Algorithm 1, a probe bypassed by at most that multiple of its own work, taken to
    /// the classes). A backlog that no longer grows then drains first, in SRPT order, and
    /// long work waits at most that multiple of its own work behind it. TPC-H under a sort:
    /// 22 queries in 33 s; holding them to half the slots after that moved the sort's end
    /// by 10 s and the queries' p90 by 54 s.
    pub(super) fn share_pays(&self, now: Time) -> bool {
        if self.arrivals.within(now, self.reservation.params().window) {
            return true;
        }
        let (short, long) = (self.backlog(&self.ready_short), self.backlog(&self.ready_long));
        short > self.cfg.starvation_factor * long
    }

    /// Remaining work (unlaunched tasks, and stages not submitted) of the units with a job
    /// in `ready`, each group counted once.
    pub(super) fn backlog(&self, ready: &BTreeSet<(u64, u32)>) -> f64 {
        let mut seen: HashSet<u64> = HashSet::new();
        let mut sum = 0.0;
        for &(_, j) in ready {
            if let Some(g) = self.meta[j as usize].group {
                if !seen.insert(g) {
                    continue;
                }
            }
            sum += self.group_remaining(j);
        }
        sum
    }
}
