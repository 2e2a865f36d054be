//! A node's side of the client: its link coming up and going down, and what it sends:
//! grants (Eagle §3.2's late binding: a grant is launched or handed back at once),
//! rejections under Succinct State Sharing (§3.1), revocations and unqueued placements.

use super::State;
use crate::books::Lease;
use crate::link::LinkEvent;
use crate::{Event, Grant};
use eagle_wire::{FromNode, ToNode};
use std::sync::atomic::Ordering;
use std::time::Instant;

impl State {
    pub(super) fn node_event(&mut self, e: LinkEvent<FromNode>) {
        match e {
            LinkEvent::Up { link, writer } => {
                let Some(h) = self.hosts.get_mut(&link) else { return };
                h.up = true;
                self.executors_stale = true;
                let name = h.name.clone();
                self.writers.insert(link, writer);
                log::info!("eagle-client: node of {name} linked");
                self.emit(Event::HostUp(name));
                // Short jobs still short of probes take this host too.
                let short: Vec<u64> =
                    self.jobs.iter().filter(|(_, j)| j.left > 0 && !j.long).map(|(&id, _)| id).collect();
                for job in short {
                    self.probe(job);
                }
            }
            LinkEvent::Down { link, why, .. } => {
                if self.hosts.get(&link).is_some_and(|h| h.up) {
                    log::warn!("eagle-client: node link down: {why}");
                }
                self.host_down(link);
            }
            LinkEvent::Msg { link, msg } => self.node_msg(link, msg),
        }
    }

    /// The node of `link` is gone: its probes and leases with it. Jobs that lost
    /// probes probe other hosts.
    pub(super) fn host_down(&mut self, link: u64) {
        let Some(h) = self.hosts.get_mut(&link) else { return };
        let was_up = std::mem::replace(&mut h.up, false);
        self.executors_stale |= was_up;
        h.local_long_ms = 0.0;
        let name = h.name.clone();
        self.writers.remove(link);
        let gone: Vec<(u64, u64)> = self.leases.keys().filter(|(l, _)| *l == link).copied().collect();
        for k in gone {
            let l = self.leases.remove(&k).unwrap();
            if l.launched_at.is_none() {
                self.emit(Event::Revoked(Grant {
                    host: name.clone(),
                    lease: k.1,
                    job: l.job,
                    long: l.long,
                    kept: false,
                }));
            }
        }
        let mut lost = Vec::new();
        let mut replace = Vec::new();
        for (&id, j) in self.jobs.iter_mut() {
            j.rejected.remove(&link);
            j.lose_share(link);
            let placed = j.lose_placed(link);
            if placed > 0 && j.left > 0 {
                replace.push((id, placed.min(j.left)));
            }
            if j.probed.remove(&link) && j.left > 0 {
                lost.push(id);
            }
        }
        if was_up {
            self.emit(Event::HostDown(name));
        }
        for job in lost {
            self.reprobe(job);
        }
        // The central's placements there are gone with the link: place those tasks again.
        for (job, n) in replace {
            self.place_long(job, n);
        }
    }

    /// A grant of `link` for `job` came (`long`: a central placement): a long job's
    /// placement is no longer to come, and a grant under its local share takes one of the
    /// share's tasks, whose estimate (returned, in ms) leaves the host's local work when
    /// the lease is over.
    pub(super) fn take_placement(&mut self, link: u64, job: u64, long: bool) -> f64 {
        let central_up = self.central_up;
        let Some(j) = self.jobs.get_mut(&job).filter(|j| j.long) else { return 0.0 };
        j.reserved = j.reserved.saturating_sub(1);
        let mut local_ms = 0.0;
        if let Some(n) = j.share.get_mut(&link).filter(|n| **n > 0 && !long) {
            *n -= 1;
            local_ms = j.est;
        }
        if long {
            j.unqueue_placed(link, 1, central_up);
        }
        local_ms
    }

    pub(super) fn node_msg(&mut self, link: u64, msg: FromNode) {
        let Some(name) = self.hosts.get(&link).map(|h| h.name.clone()) else { return };
        match msg {
            FromNode::Grant { lease, job, long, kept } => {
                let Some(j) = self.jobs.get(&job) else {
                    self.writers.send(link, &ToNode::NoTask { lease });
                    return;
                };
                if j.left == 0 {
                    // Nothing left to launch (a spare placement, placed for a retry while a
                    // grant was in the driver's hands): back at once, through the same books
                    // as a grant the driver hands back, its placement used up all the same.
                    // (Kept in a long job's count of placements to come, a task that failed
                    // later would ask for no slot, for good.)
                    let local_ms = self.take_placement(link, job, long);
                    self.leases.insert((link, lease), Lease { job, long, local_ms, launched_at: None, once: false });
                    self.lease_over(Grant { host: name, lease, job, long, kept }, true);
                    return;
                }
                if !long && !j.long && self.unlaunched(job) >= j.left {
                    // Late binding's surplus: every task left already has a grant in the
                    // driver's hands. Handing this one to the driver would keep the slot
                    // idle for a round trip through Spark's offer round; it goes back now,
                    // and the node drops the probe with it. Should a held grant go unused
                    // after all, its return reaches the node the same way.
                    self.writers.send(link, &ToNode::NoTask { lease });
                    self.jobs.get_mut(&job).unwrap().probed.remove(&link);
                    self.counters.surplus_returned.fetch_add(1, Ordering::Relaxed);
                    return;
                }
                let once = !long && !kept && !j.long;
                let local_ms = self.take_placement(link, job, long);
                self.leases.insert((link, lease), Lease { job, long, local_ms, launched_at: None, once });
                self.emit(Event::Grant(Grant { host: name, lease, job, long, kept }));
                if !long && !kept {
                    // The grant used the probe up (hawk and sparrow grant once per probe).
                    let j = self.jobs.get_mut(&job).unwrap();
                    j.probed.remove(&link);
                    if once {
                        j.beside.insert(link);
                    }
                    if j.long {
                        // A local long job runs only where LWL placed it: the rest of this
                        // host's share is asked for again there, and nowhere else.
                        let (share, est, cpus) = (j.share.get(&link).copied().unwrap_or(0), j.est, j.cpus);
                        if share > 0 {
                            j.probed.insert(link);
                            self.writers.send(link, &ToNode::Probe { job, tasks: share, est_ms: est, cpus });
                        }
                    } else if j.left > 1 {
                        // A short job with more tasks than this one probes again.
                        self.probe(job);
                    }
                }
            }
            FromNode::Rejected { job, bitvector } => {
                if let Some(bv) = bitvector.filter(|b| self.bitvector.as_ref().is_none_or(|old| old.stamp < b.stamp)) {
                    self.bitvector = Some(bv);
                }
                let holds_once = self.leases.iter().any(|(&(l, _), x)| l == link && x.job == job && x.once);
                let Some(j) = self.jobs.get_mut(&job) else { return };
                j.probed.remove(&link);
                if !holds_once && j.beside.remove(&link) {
                    // The probe reached the node while the job's own task held the slot it
                    // had been granted once, and that task has ended since: ask again.
                    self.probe_host(link, job);
                    return;
                }
                j.rejected.insert(link);
                j.rejected_at = Some(Instant::now());
                self.unshare(job, &[link]);
                self.reprobe(job);
            }
            FromNode::Revoked { lease, reason } => {
                log::debug!("eagle-client: lease {lease} on {name} revoked: {reason}");
                if let Some(l) = self.leases.remove(&(link, lease)) {
                    if let Some(h) = self.hosts.get_mut(&link) {
                        h.release_local(l.local_ms);
                    }
                    if l.long && l.launched_at.is_none() {
                        self.placement_spent(l.job, &name);
                    }
                    self.emit(Event::Revoked(Grant { host: name, lease, job: l.job, long: l.long, kept: false }));
                }
            }
            FromNode::Unqueued { job, tasks } => self.unqueued(link, job, tasks),
            FromNode::Error { what } => log::warn!("eagle-client: node of {name}: {what}"),
            _ => {}
        }
    }
}
