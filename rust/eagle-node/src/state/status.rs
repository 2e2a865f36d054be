//! What a node reports of itself: its status for operators and the invariants the tests
//! assert.

use super::*;

impl NodeState {
    /// The answer to `Status`.
    pub fn status(&self) -> NodeStatus {
        fn row<'a>(rows: &'a mut BTreeMap<String, QueuedByApp>, app: &str) -> &'a mut QueuedByApp {
            rows.entry(app.to_string()).or_insert_with(|| QueuedByApp {
                app: app.to_string(),
                probes: 0,
                reservations: 0,
                leased: 0,
            })
        }
        let mut by_app: BTreeMap<String, QueuedByApp> = BTreeMap::new();
        let app_of = |conn: ConnId| self.conns.get(&conn).map(|c| c.peer.app.as_str());
        for e in &self.node.queue {
            let Some(app) = self.jobs[e.job.0 as usize].as_ref().and_then(|j| app_of(j.conn)) else { continue };
            let r = row(&mut by_app, app);
            if e.reservation {
                r.reservations += 1;
            } else {
                r.probes += 1;
            }
        }
        for l in self.leases.values() {
            if let Some(app) = app_of(l.conn) {
                row(&mut by_app, app).leased += l.cpus;
            }
        }
        NodeStatus {
            policy: self.settings.policy.name().to_string(),
            slots: self.settings.slots,
            leased: self.leased(),
            running: self.leases.values().filter(|l| l.state == LeaseState::Running).count() as u32,
            holds_long: self.node.holds_long(),
            apps: by_app.into_values().collect(),
            bitvector: self.bitvector.clone(),
            short_slots: self.short_slots,
        }
    }

    /// Checks the invariants of the module documentation; `Err` names the first broken one.
    pub fn check(&self) -> Result<(), crate::error::BrokenInvariant> {
        use crate::error::BrokenInvariant;
        let slots = self.settings.slots;
        if self.leased() + self.node.free != slots {
            return Err(BrokenInvariant::Slots { leased: self.leased(), free: self.node.free, slots });
        }
        if self.leases.keys().any(|&id| id >= self.next_lease) {
            return Err(BrokenInvariant::LeaseIdReused);
        }
        let queued_long = self.node.queue.iter().filter(|e| e.long).count() as u32;
        if queued_long != self.node.queued_long {
            return Err(BrokenInvariant::QueuedLong { counted: self.node.queued_long, entries: queued_long });
        }
        let leased_long = self.leases.values().filter(|l| l.long).count() as u32;
        if leased_long != self.node.running_long {
            return Err(BrokenInvariant::RunningLong { counted: self.node.running_long, leases: leased_long });
        }
        for (i, j) in self.jobs.iter().enumerate() {
            let Some(j) = j else { continue };
            let q = self.node.queue.iter().filter(|e| e.job.0 as usize == i).count() as u32;
            let l = self.leases.values().filter(|l| l.job.0 as usize == i).count() as u32;
            if q != j.queued || l != j.leases {
                return Err(BrokenInvariant::JobCounts {
                    job: j.id,
                    queued: j.queued,
                    leases: j.leases,
                    held_entries: q,
                    held_leases: l,
                });
            }
            if !self.conns.contains_key(&j.conn) {
                return Err(BrokenInvariant::JobOutlivedConnection { job: j.id });
            }
            if q == 0 && l == 0 {
                return Err(BrokenInvariant::JobNotFreed { job: j.id });
            }
        }
        if let Some(e) = self.node.queue.iter().find(|e| self.jobs[e.job.0 as usize].is_none()) {
            return Err(BrokenInvariant::FreedJobQueued { job: e.job });
        }
        let _ = &self.by_key;
        Ok(())
    }

    /// Slots under a lease (granted or running).
    pub fn leased(&self) -> u32 {
        self.leases.values().map(|l| l.cpus).sum()
    }

    /// Leases held (granted or running), whatever their width.
    pub fn leases(&self) -> u32 {
        self.leases.len() as u32
    }
}
