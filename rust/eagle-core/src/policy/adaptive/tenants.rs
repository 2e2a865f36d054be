//! The adaptive policy's books for tenants ([`crate::tenant`]): a job's weight in the SRPT
//! key, the tasks each tenant runs, the jobs of tenants below their minimum share, which go
//! before every job not overdue, the long share, which with several tenants is what FAIR
//! pools would give the tenants that have long work and is split between them as pools
//! would, and the width and the turn of a task set whose size is a guess.

use super::Adaptive;
use crate::tenant::Share;
use crate::types::{JobId, Time};
use std::collections::HashMap;

impl Adaptive {
    /// The weight the job's remaining work is divided by in the SRPT key.
    pub(super) fn weight_of(&self, job: u32) -> f64 {
        self.meta[job as usize].tenant.map_or(1.0, |t| self.tenants.weight(t))
    }

    pub(super) fn tenant_running(&mut self, job: u32, delta: i32) {
        if let Some(t) = self.meta.get(job as usize).and_then(|m| m.tenant) {
            self.tenants.running(t, delta);
        }
    }

    pub(super) fn leave_tenant(&mut self, job: u32) {
        if let Some(t) = self.meta[job as usize].tenant {
            if self.c.jobs[job as usize].class.is_long() {
                self.tenants.long_jobs(t, -1);
            }
            self.tenants.leave(t);
        }
    }

    /// A live job's class changed to long (`long`) or short: its tenant's books follow.
    pub(super) fn long_class_changed(&mut self, job: u32, long: bool) {
        if long {
            self.long_live += 1;
        } else {
            self.long_live -= 1;
        }
        if let Some(t) = self.meta[job as usize].tenant {
            self.tenants.long_jobs(t, if long { 1 } else { -1 });
        }
    }

    /// The share of the cluster long work keeps while it waits (`longShare`), and with
    /// several tenants live at most what FAIR pools would give the tenants that have long
    /// work (`pools`, from [`Adaptive::pools_long_share`]). Eight dashboard users beside two
    /// ETL sessions keep 8/10 of the cluster for the users while each user asks for more than
    /// a tenth, as pools per session would, not half; what a user does not ask for goes to
    /// the ETL.
    pub(super) fn long_share_of(&self, pools: Option<f64>) -> f64 {
        let share = self.reservation.params().long_share;
        pools.map_or(share, |f| share.min(f))
    }

    /// With several tenants live, the part of the cluster FAIR pools would give the tenants
    /// with long work ([`crate::tenant::Tenants::long_pool_fraction`]): each tenant asks for
    /// the tasks its live jobs run and have waiting, the jobs outside any tenant counted as one
    /// tenant of weight 1. `None` with one tenant or none.
    pub(super) fn pools_long_share(&self) -> Option<f64> {
        self.live_tenant_weight()?;
        let mut demand: HashMap<u64, f64> = HashMap::new();
        let mut others: Option<(f64, bool)> = None;
        for (jb, m) in self.c.jobs.iter().zip(&self.meta).filter(|(jb, _)| jb.live) {
            let d = (jb.running + jb.unlaunched) as f64;
            match m.tenant {
                Some(t) => *demand.entry(t).or_default() += d,
                None => {
                    let o = others.get_or_insert((0.0, false));
                    o.0 += d;
                    o.1 |= jb.class.is_long();
                }
            }
        }
        self.tenants.long_pool_fraction(self.c.total as f64, &demand, others)
    }

    /// With several tenants live, how many ways FAIR pools would split the slots for the job:
    /// the live tenants' weight over its tenant's (its pool's part of the cluster), times its
    /// tenant's live jobs (the pool's part split among them). `None` for a job outside any
    /// tenant, or with fewer than two tenants live. Its deadline's fair time takes the smaller
    /// of this and the task sets waiting, so another tenant keeping many queries waiting at
    /// once does not stretch this tenant's bound, as it would not under pools.
    pub(super) fn pool_sharing(&self, job: u32) -> Option<f64> {
        let t = self.meta[job as usize].tenant?;
        let live = self.live_tenant_weight()?;
        Some(live / self.tenants.weight(t) * self.tenants.jobs_of(t).max(1) as f64)
    }

    /// While a task set whose estimate is a guess waits and several tenants are live: the
    /// live tenants' weight (the jobs outside any counted as one tenant of weight 1).
    pub(super) fn guess_width(&self) -> Option<f64> {
        if self.guessed == 0 {
            return None;
        }
        self.live_tenant_weight()
    }

    /// The live tenants' weight, the jobs outside any tenant counted as one tenant of weight
    /// 1; `None` while fewer than two are live.
    fn live_tenant_weight(&self) -> Option<f64> {
        let (jobs, _) = self.tenants.jobs();
        self.tenants.live_weight(self.live_jobs as u32 > jobs)
    }

    /// A task set whose size is a guess runs no wider than its tenant's share of the slots
    /// (`total` × its weight over `live_weight`, at least one, or its minimum share) while
    /// other jobs want them: fair sharing while its size is unknown, SRPT once a task has
    /// ended. A guess is the typical task, so an ETL stage of 30 s tasks nothing knew came
    /// in at a query stage's 0.5 s, ranked ahead of every user's query, and took the whole
    /// cluster.
    pub(super) fn too_wide(&self, job: u32, live_weight: Option<f64>) -> bool {
        let (Some(w), m) = (live_weight, &self.meta[job as usize]) else { return false };
        match m.tenant {
            Some(t) if m.guessed && !self.tenants.needy(t) => {
                let share = (self.c.total as f64 * self.tenants.weight(t) / w).ceil().max(1.0);
                self.tenants.running_of(t) as f64 >= share
            }
            _ => false,
        }
    }

    /// While several tenants are live (`live_weight`): the first task set whose size is a
    /// guess that may take the slot ([`Adaptive::too_wide`] keeps it within its tenant's
    /// share), the tenant running the fewest tasks for its weight first, then least key, as
    /// FAIR orders pools. A guess goes before SRPT's order up to that share: ranked by a
    /// guess, a new query larger than the others would get no slot while they last, and its
    /// first task's end is what tells its size.
    pub(super) fn guess_first(
        &self,
        now: Time,
        node: Option<usize>,
        live_weight: Option<f64>,
        eligible: &dyn Fn(&Self, u32) -> bool,
    ) -> Option<u32> {
        live_weight?;
        let mut best: Option<(f64, (u64, u32))> = None;
        for &(k, j) in self.ready_short.iter().chain(self.ready_long.iter()) {
            let m = &self.meta[j as usize];
            let Some(t) = m.tenant.filter(|_| m.guessed) else { continue };
            let ratio = self.tenants.running_of(t) as f64 / self.tenants.weight(t);
            if best.is_some_and(|b| (b.0, b.1) <= (ratio, (k, j))) {
                continue;
            }
            if eligible(self, j) && node.is_none_or(|ni| self.worth_here(now, ni, j, true)) {
                best = Some((ratio, (k, j)));
            }
        }
        best.map(|(_, (_, j))| j)
    }

    /// `job` runs for `tenant`, whose share is `share` from now on. A job moved to another
    /// tenant takes its running tasks with it.
    pub(super) fn join_tenant(&mut self, job: JobId, tenant: u64, share: Share) {
        let i = job.0 as usize;
        if self.c.jobs.get(i).is_none_or(|j| !j.live) {
            return;
        }
        let running = self.c.jobs[i].running as i32;
        let long = self.c.jobs[i].class.is_long();
        if let Some(old) = self.meta[i].tenant {
            self.tenants.running(old, -running);
            if long {
                self.tenants.long_jobs(old, -1);
            }
            self.tenants.leave(old);
        }
        self.tenants.join(tenant, share);
        self.tenants.running(tenant, running);
        if long {
            self.tenants.long_jobs(tenant, 1);
        }
        self.meta[i].tenant = Some(tenant);
        self.refresh_group_of(job.0);
    }

    /// The long job a slot serves among those `ok` accepts: the first in key order (SRPT);
    /// but while two or more tenants have long work, the first of the tenant running the
    /// fewest tasks for its weight (a job outside any tenant counted as a tenant of its own,
    /// of weight 1), as FAIR pools split slots among pools. Long work is ranked by a size
    /// that is the tenant's own business: one session's ETL job smaller than another's ran
    /// first on every slot the long share gave, and the other's time grew by all of it.
    pub(super) fn long_first(&self, ok: impl Fn(u32) -> bool) -> Option<(u64, u32)> {
        if self.tenants.long_tenants() < 2 {
            return self.ready_long.iter().find(|(_, j)| ok(*j)).copied();
        }
        let load = |j: u32| match self.meta[j as usize].tenant {
            Some(t) => self.tenants.running_of(t) as f64 / self.tenants.weight(t),
            None => self.c.jobs[j as usize].running as f64,
        };
        let mut best: Option<(f64, (u64, u32))> = None;
        for &(k, j) in self.ready_long.iter().filter(|(_, j)| ok(*j)) {
            let l = load(j);
            if best.is_none_or(|(b, _)| l < b) {
                best = Some((l, (k, j)));
            }
        }
        best.map(|(_, e)| e)
    }

    /// The first job, in key order, of a tenant below its minimum share that may take the
    /// slot (`eligible`) and is worth it there.
    pub(super) fn needy_first(
        &self,
        now: Time,
        node: Option<usize>,
        eligible: &dyn Fn(&Self, u32) -> bool,
    ) -> Option<u32> {
        if !self.tenants.any_min_share() {
            return None;
        }
        let needy = |j: u32| {
            self.meta[j as usize].tenant.is_some_and(|t| self.tenants.needy(t))
                && eligible(self, j)
                && node.is_none_or(|ni| self.worth_here(now, ni, j, true))
        };
        let short = self.ready_short.iter().find(|(_, j)| needy(*j)).copied();
        let long = self.ready_long.iter().find(|(_, j)| needy(*j)).copied();
        match (short, long) {
            (Some(a), Some(b)) => Some(a.min(b).1),
            (a, b) => a.or(b).map(|(_, j)| j),
        }
    }
}
