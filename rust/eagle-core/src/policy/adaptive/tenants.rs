//! The adaptive policy's books for tenants ([`crate::tenant`]): a job's weight in the SRPT
//! key, the tasks each tenant runs, and the jobs of tenants below their minimum share,
//! which go before every job not overdue.

use super::Adaptive;
use crate::tenant::Share;
use crate::types::{JobId, Time};

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
            self.tenants.leave(t);
        }
    }

    /// `job` runs for `tenant`, whose share is `share` from now on. A job moved to another
    /// tenant takes its running tasks with it.
    pub(super) fn join_tenant(&mut self, job: JobId, tenant: u64, share: Share) {
        let i = job.0 as usize;
        if self.c.jobs.get(i).is_none_or(|j| !j.live) {
            return;
        }
        let running = self.c.jobs[i].running as i32;
        if let Some(old) = self.meta[i].tenant {
            self.tenants.running(old, -running);
            self.tenants.leave(old);
        }
        self.tenants.join(tenant, share);
        self.tenants.running(tenant, running);
        self.meta[i].tenant = Some(tenant);
        self.refresh_group_of(job.0);
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
