//! Paper policies, placement: where a job's probes (short) and LWL reservations
//! (long) go (Eagle §3.1 SSS and the short partition, §3.2 probing and LWL), and the
//! arrival of an entry in a node's queue.
use super::Paper;
use crate::eagle::lwl;
use crate::eagle::node_queue::Entry;
use crate::eagle::partition::Partitions;
use crate::eagle::probe;
use crate::eagle::sss::{self, Snapshot};
use crate::types::*;

impl Paper {
    // ---------------------------------------------------------------- internals

    pub(super) fn refresh_partitions(&mut self) {
        if !self.parts_dirty {
            return;
        }
        self.parts = if self.cfg.driver {
            let live: Vec<NodeId> =
                (0..self.c.nodes.len()).filter(|&i| self.c.nodes[i].live).map(|i| NodeId(i as u32)).collect();
            Partitions::dynamic_layout(&live, (100.0 - self.cfg.big_partition_pct) / 100.0)
        } else {
            Partitions::static_layout(self.c.nodes.len(), self.cfg.small_partition_pct, self.cfg.big_partition_pct)
        };
        self.parts_dirty = false;
    }

    pub(super) fn timer(&mut self, now: Time, delay: f64, msg: Msg, out: &mut Vec<Output>) {
        if delay <= 0.0 {
            self.immediate.push_back(msg);
        } else {
            out.push(Output::Timer { at: now + delay, msg });
        }
    }

    /// Delivers zero-delay messages.
    pub(super) fn flush(&mut self, now: Time, out: &mut Vec<Output>) {
        while let Some(msg) = self.immediate.pop_front() {
            self.handle(now, msg, out);
        }
    }

    pub(super) fn handle(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>) {
        match msg {
            Msg::Enqueue { node, job, epoch } => self.enqueue(now, node.0 as usize, job, false, epoch, out),
            Msg::SlotFree { node } => {
                let n = &mut self.c.nodes[node.0 as usize];
                if !n.live {
                    return;
                }
                n.free += 1;
                self.c.busy -= 1;
                if !self.cfg.driver {
                    self.slot_freed(now, node.0 as usize, out);
                }
            }
            Msg::RemainingUpdate { job } => {
                let j = &self.c.jobs[job.0 as usize];
                let r = &mut self.c.remaining[job.0 as usize];
                if *r >= 0.0 {
                    *r -= j.est;
                }
                if j.unlaunched == 0 {
                    *r = -1.0;
                }
            }
            Msg::Heartbeat => {
                self.stale_work.clone_from(&self.work);
                out.push(Output::Timer { at: now + self.cfg.heartbeat, msg: Msg::Heartbeat });
            }
            Msg::Tick => {}
            Msg::MigrationDone { node, job, task } => {
                if let Some(e) = self.eirene.as_mut() {
                    e.migration_done(now, node, job, task, &mut self.c.counters, out);
                }
            }
            Msg::Revive { node } => {
                let n = &mut self.c.nodes[node.0 as usize];
                n.revive_at = None;
                if n.live && n.free > 0 {
                    self.slot_freed(now, node.0 as usize, out);
                }
            }
        }
    }

    /// Places `count` entries for a job: probes for short jobs, LWL reservations
    /// for centrally scheduled ones, random probes for Sparrow's long jobs.
    pub(super) fn place(&mut self, now: Time, job: JobId, count: usize, out: &mut Vec<Output>) {
        self.refresh_partitions();
        let j = &self.c.jobs[job.0 as usize];
        let (sched_long, class, est) = (j.sched_long, j.class, j.est);
        let nd = self.cfg.network_delay;
        let mut targets = std::mem::take(&mut self.scratch);
        targets.clear();
        if self.cfg.lwl_all {
            let candidates = if class.is_long() { &self.parts.big } else { &self.parts.small };
            let candidates = candidates.clone();
            let stale = self.is_dlwl();
            self.lwl_targets(now, &candidates, count, est, stale, &mut targets);
            self.reserve(now, job, &targets, est, out);
        } else if sched_long && self.cfg.centralized_long {
            let big = std::mem::take(&mut self.parts.big);
            self.lwl_targets(now, &big, count, est, false, &mut targets);
            self.parts.big = big;
            self.reserve(now, job, &targets, est, out);
        } else {
            let tasks = count as u32;
            let n = probe::probe_count(tasks, self.cfg.probe_ratio, self.cfg.min_probes);
            // Locality mode: one probe per task on a node holding its block, the rest random.
            if let Some(loc) = self.c.jobs[job.0 as usize].loc.as_ref() {
                let rng = &mut self.rng;
                loc.probe_hints(count.min(n), |k| rng.below(k), &mut targets);
            }
            let from = if sched_long { &self.parts.big } else { &self.parts.small };
            let rest = n - targets.len().min(n);
            probe::sample_with_replacement(&mut self.rng, from, rest, &mut targets);
            if self.cfg.driver {
                targets.sort_unstable();
                targets.dedup();
                let nodes = &self.c.nodes;
                targets.retain(|t| nodes[t.0 as usize].position_of(job).is_none());
            }
            if self.cfg.sss && !sched_long {
                self.probe_with_sss(now, job, &mut targets, out);
            } else {
                for &t in &targets {
                    self.c.counters.probes_placed += 1;
                    self.c.jobs[job.0 as usize].queued += 1;
                    let epoch = self.longmap.version();
                    self.timer(now, nd, Msg::Enqueue { node: t, job, epoch }, out);
                }
            }
        }
        self.scratch = targets;
    }

    /// Sends one reservation per target (LWL), updating the central state at once.
    pub(super) fn reserve(&mut self, now: Time, job: JobId, targets: &[NodeId], est: f64, out: &mut Vec<Output>) {
        let long = self.c.jobs[job.0 as usize].class.is_long();
        for &t in targets {
            self.work[t.0 as usize] += est;
            if long {
                self.longmap.add(t.0 as usize);
            }
            self.c.counters.probes_placed += 1;
            self.c.jobs[job.0 as usize].queued += 1;
            let epoch = self.longmap.version();
            self.timer(now, self.cfg.network_delay, Msg::Enqueue { node: t, job, epoch }, out);
        }
    }

    /// Undoes the central accounting of one reservation.
    pub(super) fn release_reservation(&mut self, node: usize, marks_long: bool, est: f64) {
        self.work[node] = (self.work[node] - est).max(0.0);
        if self.work[node] < 1e-9 {
            self.work[node] = 0.0;
        }
        if marks_long {
            self.longmap.remove(node);
        }
    }

    pub(super) fn is_dlwl(&self) -> bool {
        self.cfg.system == crate::config::System::Dlwl
    }

    /// LWL targets for `count` tasks over `candidates` (see [`crate::eagle::lwl`]).
    pub(super) fn lwl_targets(
        &mut self,
        now: Time,
        candidates: &[NodeId],
        count: usize,
        est: f64,
        stale: bool,
        out: &mut Vec<NodeId>,
    ) {
        let nd2 = 2.0 * self.cfg.network_delay;
        if candidates.is_empty() || count == 0 {
            return;
        }
        if stale {
            // DLWL: stale heartbeat view, floored, plus jitter in [0, H].
            let h = self.cfg.heartbeat.floor().max(0.0) as i64;
            let mut scored = Vec::with_capacity(candidates.len());
            for &c in candidates {
                let i = c.0 as usize;
                let mut s = self.stale_work[i];
                if let Some((t0, e)) = self.c.nodes[i].long_started {
                    s = (nd2 + s - (now - t0).min(e)).max(0.0);
                }
                s += self.rng.int_inclusive(0, h) as f64;
                scored.push((s, c));
            }
            lwl::water_fill(scored, count, est, out);
            return;
        }
        // Enough empty nodes: lowest ids first.
        let start = out.len();
        for &c in candidates {
            if self.work[c.0 as usize] == 0.0 && self.c.nodes[c.0 as usize].live {
                out.push(c);
                if out.len() - start == count {
                    return;
                }
            }
        }
        // Reference (`find_workers_long_job_prio`): every empty node takes one task, and
        // only the remaining tasks are water-filled, empty nodes competing with score `est`.
        let count = count - (out.len() - start);
        let nodes = &self.c.nodes;
        let work = &self.work;
        let scored = candidates.iter().filter(|c| nodes[c.0 as usize].live).map(|&c| {
            let i = c.0 as usize;
            let q = work[i];
            if q == 0.0 {
                (est, c)
            } else if let Some((t0, e)) = nodes[i].long_started {
                (nd2 + q - (now - t0).min(e), c)
            } else {
                (q, c)
            }
        });
        lwl::water_fill(scored, count, est, out);
    }

    /// Eagle's SSS probing rounds (see [`crate::eagle::sss`]).
    pub(super) fn probe_with_sss(&mut self, now: Time, job: JobId, targets: &mut Vec<NodeId>, out: &mut Vec<Output>) {
        let nd = self.cfg.network_delay;
        let mut missing = targets.len();
        let mut freshest: Option<(Time, Snapshot)> = None;
        let mut list = std::mem::take(targets);
        for round in 1..=self.cfg.sss_rounds {
            let arrive = nd * ((round / 2 + 1) as f64);
            let mut ok = 0;
            for &w in &list {
                let wi = w.0 as usize;
                if !self.longmap.holds_long(wi) {
                    self.c.counters.probes_placed += 1;
                    self.c.jobs[job.0 as usize].queued += 1;
                    let epoch = self.longmap.version();
                    self.timer(now, arrive, Msg::Enqueue { node: w, job, epoch }, out);
                    ok += 1;
                } else {
                    self.c.counters.probes_rejected_sss += 1;
                }
                if let Some((stamp, snap)) = &self.c.nodes[wi].bitvector {
                    if freshest.as_ref().is_none_or(|f| *stamp > f.0) {
                        freshest = Some((*stamp, snap.clone()));
                    }
                }
            }
            missing -= ok;
            if missing == 0 || round == self.cfg.sss_rounds {
                break;
            }
            list.clear();
            if self.cfg.driver {
                let snap = self.longmap.snapshot();
                self.sample_free_of_long(&snap, missing, &mut list);
            } else if let Some((_, snap)) = &freshest {
                let snap = snap.clone();
                self.sample_free_of_long(&snap, missing, &mut list);
            } else {
                let small = std::mem::take(&mut self.parts.small);
                probe::sample_with_replacement(&mut self.rng, &small, missing, &mut list);
                self.parts.small = small;
            }
            self.c.counters.rescheduled_probes += missing as u64;
        }
        if missing > 0 {
            list.clear();
            let so = std::mem::take(&mut self.parts.short_only);
            if so.is_empty() {
                // No short-only partition: nowhere is guaranteed free of long work. Queue on
                // random nodes anyway so the job is never lost (it may wait behind long work).
                let small = std::mem::take(&mut self.parts.small);
                probe::sample_with_replacement(&mut self.rng, &small, missing, &mut list);
                self.parts.small = small;
            } else {
                probe::sample_with_replacement(&mut self.rng, &so, missing, &mut list);
            }
            self.parts.short_only = so;
            if self.cfg.driver {
                list.sort_unstable();
                list.dedup();
            }
            for &w in &list {
                self.c.counters.probes_placed += 1;
                self.c.counters.fallback_probes += 1;
                self.c.jobs[job.0 as usize].queued += 1;
                let epoch = self.longmap.version();
                self.timer(now, 2.0 * nd, Msg::Enqueue { node: w, job, epoch }, out);
            }
        }
        *targets = list;
    }

    /// Samples with replacement from the short-only partition plus the general nodes
    /// whose bit is clear in `snap` (rejection sampling over that union).
    pub(super) fn sample_free_of_long(&mut self, snap: &[u64], count: usize, out: &mut Vec<NodeId>) {
        let so = self.parts.short_only.len();
        let big = self.parts.big.len();
        let universe = so + big;
        if universe == 0 {
            return;
        }
        let mut drawn = 0;
        let mut tries = 0usize;
        while drawn < count {
            let k = self.rng.below(universe);
            let node = if k < so { self.parts.short_only[k] } else { self.parts.big[k - so] };
            tries += 1;
            if k < so || !sss::bit(snap, node.0 as usize) {
                out.push(node);
                drawn += 1;
            } else if tries > 64 * (count + 1) {
                // Almost every general node is marked: sample the explicit list instead.
                let list: Vec<NodeId> = self
                    .parts
                    .short_only
                    .iter()
                    .copied()
                    .chain(self.parts.big.iter().copied().filter(|n| !sss::bit(snap, n.0 as usize)))
                    .collect();
                probe::sample_with_replacement(&mut self.rng, &list, count - drawn, out);
                return;
            }
        }
    }

    /// A probe or reservation reaches a node's queue; `epoch` is the long map's
    /// version when it was sent.
    pub(super) fn enqueue(
        &mut self,
        now: Time,
        ni: usize,
        job: JobId,
        stolen: bool,
        epoch: u32,
        out: &mut Vec<Output>,
    ) {
        let j = &self.c.jobs[job.0 as usize];
        let (long, reservation, est) = (j.sched_long, j.sched_long && self.uses_reservations(j.class), j.est);
        let marks_long = reservation && j.class.is_long();
        let (node_live, job_live) = (self.c.nodes[ni].live, j.live);
        if !node_live || !job_live {
            // The node (whose state was cleared) or the job went away while the message was on the wire.
            let j = &mut self.c.jobs[job.0 as usize];
            j.queued = j.queued.saturating_sub(1);
            if node_live && reservation {
                self.release_reservation(ni, marks_long, est);
            }
            if job_live {
                self.replace_missing(now, job, out);
            } else {
                self.c.maybe_free_job(job);
            }
            return;
        }
        if self.cfg.driver && !long && self.c.nodes[ni].position_of(job).is_some() {
            // One probe per node per job is enough with SBP.
            self.c.jobs[job.0 as usize].queued -= 1;
            return;
        }
        let n = &mut self.c.nodes[ni];
        let behind_long = n.holds_long();
        if !long && !stolen && behind_long {
            // SSS accepted the probe at send time against the exact long map; long work
            // placed after that can still arrive first (it flies 1 network delay, a
            // round-2 probe 2). That is the model's staleness, not a broken rule.
            if self.cfg.sss && self.longmap.placed_after(ni, epoch) {
                self.c.counters.probes_overtaken_by_long += 1;
            } else {
                self.c.counters.probes_behind_long += 1;
            }
        }
        if long {
            n.queued_long += 1;
            if !self.cfg.driver && self.cfg.sss {
                n.bitvector = Some((now, self.longmap.snapshot()));
            }
        }
        n.queue.push_back(Entry {
            job,
            long,
            reservation,
            marks_long,
            est,
            behind_long,
            acc_delay: 0.0,
            sticky: false,
        });
        if let (false, Some(e)) = (long, self.eirene.as_mut()) {
            // CCDM: the probe carries the job's task table; the node queues migrations.
            e.probe_arrived(now, NodeId(ni as u32), job, &mut self.c.counters, out);
        }
        if self.cfg.sbp && !long && !self.cfg.driver {
            self.c.jobs[job.0 as usize].probe_nodes.push(ni as u32);
        }
        if !self.cfg.driver && self.c.nodes[ni].free > 0 {
            self.pull(now, ni, out);
        }
    }

    pub(super) fn uses_reservations(&self, class: Class) -> bool {
        self.cfg.lwl_all || (class.is_long() && self.cfg.centralized_long)
    }
}
