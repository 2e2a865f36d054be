//! Short task sets' probes (Eagle SoCC'16 §3.1-§3.2): Sticky Batch Probing to
//! `max(K, r·t)` hosts (the paper's r = 2, `probeRatio`), rescheduling after a rejection (Succinct State Sharing), and
//! probing again where a slot granted once beside long work frees.

use super::State;
use crate::placement::{affinity_wait, distinct, rescheduling_targets, warm_first};
use eagle_wire::ToNode;
use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

impl State {
    /// Probes up hosts for `job` until it holds `max(K, r·t)` probes (or every
    /// usable host has one). Hosts that rejected it are not probed again; after a
    /// rejection, hosts the freshest bitvector marks as holding long work are left out
    /// while others remain (§3.1: the first probes go uniformly at random, even with a
    /// bitvector at hand; the re-scheduled ones avoid long work). With application
    /// affinity on ([`crate::Client::affinity_wait`]), a job's first probes go to the
    /// application's warm hosts only ([`warm_first`]), and the rest after the wait
    /// ([`State::spread_due`]).
    pub(super) fn probe(&mut self, job: u64) {
        let Some(j) = self.jobs.get(&job) else { return };
        let mut fresh: Vec<u64> = self
            .up_hosts()
            .into_iter()
            .filter(|h| !j.probed.contains(h) && !j.rejected.contains(h) && j.may_run_on(&self.hosts[h].name))
            .collect();
        if !j.rejected.is_empty() {
            fresh = rescheduling_targets(&fresh, &self.flagged_hosts());
        }
        let want = eagle_core::eagle::probe::probe_count(j.left, self.cfg.probe_ratio, self.cfg.min_probes)
            .saturating_sub(j.probed.len());
        let first = j.probed.is_empty() && j.rejected.is_empty() && j.spread_at.is_none() && !j.long;
        let warm = if first { self.warm_hosts(job, &fresh, want as usize) } else { Vec::new() };
        let picked: Vec<u64> = if warm.is_empty() {
            distinct(&mut self.rng, fresh.len(), want).into_iter().map(|i| fresh[i]).collect()
        } else {
            self.counters.warm_first.fetch_add(1, Ordering::Relaxed);
            if warm.len() < (want as usize).min(fresh.len()) {
                // Fewer than it would probe: the others only if the warm ones are too slow.
                let due = Instant::now() + self.hold_back(&warm, &fresh);
                self.jobs.get_mut(&job).unwrap().spread_at = Some(due);
                self.spreads.insert((due, job));
            }
            warm
        };
        let j = &self.jobs[&job];
        let (tasks, est, cpus) = (j.left, j.est, j.cpus);
        for h in picked {
            self.writers.send(h, &ToNode::Probe { job, tasks, est_ms: est, cpus });
            self.jobs.get_mut(&job).unwrap().probed.insert(h);
        }
    }

    /// Application affinity: the hosts `job`'s first probes go to (empty: affinity is off or
    /// no host is warm, and it probes as without). Of `fresh`, the hosts the freshest
    /// bitvector leaves clear of long work, ranked by the application's short tasks run
    /// there, at most `min(r·t, want)`.
    fn warm_hosts(&self, job: u64, fresh: &[u64], want: usize) -> Vec<u64> {
        let Some(j) = self.jobs.get(&job).filter(|_| !self.affinity_wait.is_zero()) else { return Vec::new() };
        let flagged = self.flagged_hosts();
        let clear: Vec<(u64, u64)> =
            fresh.iter().filter(|h| !flagged.contains(h)).map(|&h| (h, self.hosts[&h].short_runs)).collect();
        let per_task = (j.left as usize).saturating_mul(self.cfg.probe_ratio.max(1) as usize);
        warm_first(&clear, per_task.min(want))
    }

    /// How long a job whose first probes went to `warm` waits before probing the rest of
    /// `fresh` ([`affinity_wait`]).
    fn hold_back(&self, warm: &[u64], fresh: &[u64]) -> Duration {
        let holds = |warm_side: bool| -> Vec<f64> {
            fresh.iter().filter(|h| warm.contains(h) == warm_side).filter_map(|h| self.hosts[h].hold_ms).collect()
        };
        affinity_wait(self.affinity_wait, &holds(true), &holds(false))
    }

    /// Short jobs whose affinity wait is over by `now` and that still have tasks without a
    /// grant probe the other hosts, as without affinity.
    pub(super) fn spread_due(&mut self, now: Instant) {
        while let Some(&(t, job)) = self.spreads.first() {
            if t > now {
                break;
            }
            self.spreads.remove(&(t, job));
            let Some(j) = self.jobs.get(&job) else { continue };
            if j.left > self.unlaunched(job) {
                // A rejection may have re-scheduled it meanwhile: count it only if it spreads now.
                let before = j.probed.len();
                self.probe(job);
                if self.jobs.get(&job).is_some_and(|j| j.probed.len() > before) {
                    self.counters.spread_late.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
    }

    /// The links of the hosts the freshest bitvector marks as holding long work.
    fn flagged_hosts(&self) -> BTreeSet<u64> {
        let Some(bv) = &self.bitvector else { return BTreeSet::new() };
        self.central_hosts
            .iter()
            .enumerate()
            .filter(|&(i, _)| bv.bit(i))
            .filter_map(|(_, name)| self.by_name.get(name).copied())
            .collect()
    }

    /// A task of short `job` ended on a slot of `host` that the node granted once, beside
    /// long work. The probe sent after that grant found the slot leased and was rejected,
    /// and a rejecting host is not probed again while the job holds probes elsewhere, so
    /// a many-task job would stay on the hosts without long work for the rest of its life.
    /// Its own slot is free now: `host` is probed again, right behind the `TaskEnd` on the
    /// same link. The node grants it only if nothing else waits there (long work queued
    /// meanwhile goes first), so short work still never waits behind long work. If that
    /// probe's answer is still on its way, the rejection handler asks again instead.
    /// Only a host that rejected the job is probed again, so policies that never reject a
    /// short probe (Hawk, Sparrow) send exactly what they did.
    pub(super) fn probe_after(&mut self, host: u64, job: u64) {
        let Some(j) = self.jobs.get_mut(&job) else { return };
        if j.probed.contains(&host) {
            return; // in flight: a rejection of it finds `beside` and asks again
        }
        j.beside.remove(&host);
        if j.rejected.remove(&host) {
            self.probe_host(host, job);
        }
    }

    /// Probes `host` alone for short `job`, if it is up and the job has tasks that no grant
    /// in the driver's hands covers.
    pub(super) fn probe_host(&mut self, host: u64, job: u64) {
        let unlaunched = self.unlaunched(job);
        let up = self.hosts.get(&host).is_some_and(|h| h.up);
        let Some(j) = self.jobs.get_mut(&job) else { return };
        if !up || j.long || j.left <= unlaunched || j.probed.contains(&host) {
            return;
        }
        j.probed.insert(host);
        let (tasks, est_ms, cpus) = (j.left, j.est, j.cpus);
        self.writers.send(host, &ToNode::Probe { job, tasks, est_ms, cpus });
    }

    /// Succinct State Sharing (§3.1) tells a short job where long work was when its probe
    /// arrived; that changes. A job that keeps a sticky probe elsewhere never hears from the
    /// hosts that rejected it again, so a many-task job could run on a single host while the
    /// rest of the cluster drained its long work and went idle (a 410-task job of the
    /// cluster benchmark ran 18 s on one host, the last 8 s of it alone on the testbed).
    /// At each keep-alive tick, a short job with tasks no grant covers whose last rejection
    /// is at least `period` old forgets its rejections and probes as at submission: a host
    /// that still holds long work rejects again (one message), one that no longer does
    /// takes the probe. Short work still never queues behind long work, since the node
    /// decides; and under the paper's policy ([`crate::ClientConfig::retry_rejected`] off)
    /// this does not run.
    pub(super) fn retry_rejected(&mut self, period: Duration) {
        let now = Instant::now();
        let due: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, j)| !j.long && !j.rejected.is_empty())
            .filter(|(_, j)| j.rejected_at.is_none_or(|t| now.duration_since(t) >= period))
            .map(|(&id, _)| id)
            .collect();
        for job in due {
            if self.jobs[&job].left <= self.unlaunched(job) {
                continue;
            }
            let j = self.jobs.get_mut(&job).unwrap();
            j.rejected.clear();
            j.rejected_at = None;
            self.probe(job);
        }
    }

    /// A job lost a probe: short jobs probe again; long ones placed locally are
    /// placed again (the central's own placements are the central's to redo).
    pub(super) fn reprobe(&mut self, job: u64) {
        let Some(j) = self.jobs.get(&job) else { return };
        if !j.long {
            self.probe(job);
        } else if j.local && j.left > j.reserved {
            let more = j.left - j.reserved;
            self.place_locally(job, more);
        }
    }
}
