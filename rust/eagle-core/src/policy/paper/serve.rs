//! Paper policies, serving: what a node with a free slot runs next (Eagle §3.3 SRPT
//! with the starvation cap and Sticky Batch Probing; FIFO otherwise), the driver-mode
//! backfill, Hawk's work stealing, and withdrawing or re-placing a job's entries.
use super::Paper;
use crate::eagle::node_queue::{Entry, Running, View};
use crate::eagle::srpt::{self, Pick};
use crate::eagle::steal;
use crate::locality::Fetch;
use crate::types::*;

/// SRPT rank of a probe whose job has no task left to start but a task to clone
/// (Eirene SATC): after every job with work left, still ahead of nothing.
const CLONE_ONLY: f64 = 1e300;

/// An entry as the SRPT scan sees it; `clone_only` when its job has no task left to
/// start but one to clone (SATC). Such a probe ranks behind every job with work left and
/// has no task waiting, so it never starves: its slack is infinite. With the slack of
/// its own estimate, a clone-only probe bypassed often enough would stop every entry
/// behind it from overtaking it (the starvation cap), and SRPT would turn to FIFO there:
/// that raised short P50 by 10-15% on GOOG_subtrace at 4400 nodes, where SATC never
/// gets an idle slot (docs/policies/eirene.md).
fn view(entry: &Entry, remaining: f64, clone_only: bool) -> View<'_> {
    if clone_only {
        View { entry, remaining: CLONE_ONLY, est: entry.est, acc_delay: f64::NEG_INFINITY }
    } else {
        View { entry, remaining: remaining.max(0.0), est: entry.est, acc_delay: entry.acc_delay }
    }
}

/// What a node got when it asked a job for a task.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Served {
    Launched,
    /// The job had nothing left (the slot is lost for a round trip).
    NoTask,
    /// The job has tasks but must wait for a more local slot (the slot stays free).
    Wait,
}

impl Paper {
    /// A slot freed on a simulated node: serve the queue, or steal (Hawk).
    pub(super) fn slot_freed(&mut self, now: Time, ni: usize, out: &mut Vec<Output>) {
        if !self.c.nodes[ni].queue.is_empty() {
            self.pull(now, ni, out);
        } else if self.cfg.stealing {
            self.steal(now, ni, out);
        }
    }

    /// Serves the queue of a node with a free slot (simulator: one slot at a time).
    pub(super) fn pull(&mut self, now: Time, ni: usize, out: &mut Vec<Output>) {
        let mut waiting: Vec<JobId> = Vec::new();
        while self.c.nodes[ni].free > 0 && !self.c.nodes[ni].queue.is_empty() {
            match self.pick(ni, &waiting) {
                Some(pos) => {
                    let job = self.c.nodes[ni].queue[pos].job;
                    if self.serve(now, ni, pos, out) == Served::Wait {
                        // Algorithm 1: skip the job that waits for locality, try the next.
                        waiting.push(job);
                    }
                }
                None => break,
            }
        }
        if !waiting.is_empty() && self.c.nodes[ni].free > 0 {
            self.schedule_revive(now, ni, &waiting, out);
        }
    }

    /// Locality mode: wakes an idle node when the first of its waiting jobs may relax.
    pub(super) fn schedule_revive(&mut self, now: Time, ni: usize, waiting: &[JobId], out: &mut Vec<Output>) {
        let Some(params) = self.cfg.locality.as_ref() else { return };
        let at = waiting
            .iter()
            .filter_map(|j| self.c.jobs[j.0 as usize].loc.as_ref())
            .map(|l| l.next_relax(params))
            .fold(f64::INFINITY, f64::min)
            .max(now + 1e-6);
        if !at.is_finite() || self.c.nodes[ni].revive_at.is_some_and(|t| t <= at) {
            return;
        }
        self.c.nodes[ni].revive_at = Some(at);
        out.push(Output::Timer { at, msg: Msg::Revive { node: NodeId(ni as u32) } });
    }

    /// Chooses the queue position to serve: SRPT + SBP (Eagle), plain SRPT (DLWL) or FIFO.
    /// Drops probes of jobs with nothing left on the way (SBP, and always in driver mode).
    ///
    /// One pass scans the queue and spots dead probes at the same time; the queue is
    /// then compacted once, so a scan stays linear however many probes died.
    pub(super) fn pick(&mut self, ni: usize, exclude: &[JobId]) -> Option<usize> {
        // A job is dead once its remaining work is −1: in driver mode as soon as nothing
        // is pending, in the simulator one round trip after its last launch.
        let drop_dead = self.cfg.sbp || self.cfg.driver;
        let remaining = &self.c.remaining;
        // Eirene SATC: a job whose tasks all started keeps its probes while one of its
        // running tasks could still be cloned; they rank behind every job with work left.
        let eirene = self.eirene.as_ref();
        let for_clone = |job: JobId| eirene.is_some_and(|e| e.cloneable(job));
        let is_dead = |e: &Entry| drop_dead && remaining[e.job.0 as usize] < 0.0 && !for_clone(e.job);
        let queue = &self.c.nodes[ni].queue;
        let dead = std::cell::Cell::new(0usize);
        let views = queue
            .iter()
            .filter(|e| {
                if is_dead(e) {
                    dead.set(dead.get() + 1);
                    false
                } else {
                    true
                }
            })
            .filter(|e| !exclude.contains(&e.job))
            .map(|e| {
                let r = remaining[e.job.0 as usize];
                view(e, r, r < 0.0 && for_clone(e.job))
            });
        let pick = if self.cfg.sbp && self.cfg.srpt {
            srpt::pick_sbp(views, self.cfg.starvation_factor)
        } else if self.cfg.srpt {
            srpt::pick_plain(views, self.cfg.starvation_factor)
        } else {
            let mut views = views;
            if views.next().is_some() {
                Pick::At(0)
            } else {
                Pick::Empty
            }
        };
        // Dead probes past the point where the scan stopped (SBP stops at the first long
        // entry) are left for a later scan: they are never served, only skipped.
        if dead.get() > 0 {
            let mut gone = std::mem::take(&mut self.dead_scratch);
            let remaining = &self.c.remaining;
            let eirene = self.eirene.as_ref();
            self.c.nodes[ni].queue.retain(|e| {
                let d = remaining[e.job.0 as usize] < 0.0 && !eirene.is_some_and(|x| x.cloneable(e.job));
                if d {
                    gone.push(e.clone());
                }
                !d
            });
            for e in gone.drain(..) {
                self.drop_entry(ni, &e);
            }
            self.dead_scratch = gone;
        }
        let queue = &self.c.nodes[ni].queue;
        match pick {
            Pick::Empty => None,
            Pick::At(k) if exclude.is_empty() => Some(k),
            // Map the k-th non-excluded entry back to its queue position.
            Pick::At(k) => queue.iter().enumerate().filter(|(_, e)| !exclude.contains(&e.job)).nth(k).map(|(i, _)| i),
        }
    }

    /// Removes the bookkeeping of an entry dropped without launching.
    pub(super) fn drop_entry(&mut self, ni: usize, e: &Entry) {
        let n = &mut self.c.nodes[ni];
        if e.long {
            n.queued_long = n.queued_long.saturating_sub(1);
        }
        if e.reservation {
            self.release_reservation(ni, e.marks_long, e.est);
        }
        let j = &mut self.c.jobs[e.job.0 as usize];
        j.queued = j.queued.saturating_sub(1);
        self.c.maybe_free_job(e.job);
    }

    /// Takes a slot for the entry at `pos` and asks its job for a task (late binding).
    pub(super) fn serve(&mut self, now: Time, ni: usize, pos: usize, out: &mut Vec<Output>) -> Served {
        let nd2 = 2.0 * self.cfg.network_delay;
        let e = self.c.nodes[ni].queue[pos].clone();
        let job = e.job;
        let est_now = self.c.jobs[job.0 as usize].est;
        // Locality mode: the job picks a node-local task, or waits, before the slot is taken.
        let mut chosen: Option<u32> = None;
        let jm = &mut self.c.jobs[job.0 as usize];
        let has_tasks = jm.unlaunched > 0;
        if let (Some(params), Some(loc)) = (self.cfg.locality.as_ref(), jm.loc.as_mut()) {
            if has_tasks {
                match loc.fetch(now, params, NodeId(ni as u32)) {
                    Fetch::Local(t) | Fetch::Remote(t) => chosen = Some(t),
                    Fetch::Wait => return Served::Wait,
                    Fetch::Empty => {}
                }
            }
        }
        {
            let n = &mut self.c.nodes[ni];
            n.free -= 1;
            if e.long {
                n.queued_long = n.queued_long.saturating_sub(1);
            }
        }
        self.c.busy += 1;
        let j = &self.c.jobs[job.0 as usize];
        let success = j.unlaunched > 0 && j.live;
        // SATC clones only into a slot nothing else waits for: no other entry in this
        // node's queue belongs to a job with work left (Eirene §III-C: cloning uses free
        // resources, so it stays off while the cluster is loaded).
        let idle_otherwise = || {
            let rem = &self.c.remaining;
            !self.c.nodes[ni].queue.iter().enumerate().any(|(i, x)| i != pos && rem[x.job.0 as usize] >= 0.0)
        };
        if !success && j.live && !e.long && self.eirene.is_some() && idle_otherwise() {
            if let Some(ei) = self.eirene.as_mut() {
                if let Some(task) = ei.clone_for(now, NodeId(ni as u32), job, &mut self.c.counters, out) {
                    self.launch_clone(now, ni, pos, &e, task, est_now, out);
                    return Served::Launched;
                }
            }
        }
        if success && chosen.is_none() {
            if let Some(ei) = self.eirene.as_mut() {
                chosen = ei.hand_out(now, NodeId(ni as u32), job, &mut self.c.counters, out);
            }
        }
        let j = &mut self.c.jobs[job.0 as usize];
        if success {
            j.unlaunched -= 1;
            let task = chosen.unwrap_or(j.launched);
            j.launched += 1;
            j.running += 1;
            let class_long = j.class.is_long();
            self.c.counters.decisions += 1;
            let n = &mut self.c.nodes[ni];
            if e.long {
                n.running_long += 1;
                n.long_started = Some((now, e.est));
            } else {
                n.long_started = None;
            }
            n.running.push(Running {
                job,
                long: e.long,
                reservation: e.reservation,
                marks_long: e.marks_long,
                est: e.est,
            });
            out.push(Output::Launch { node: NodeId(ni as u32), job, task, start: now + nd2 });
            if !e.long && e.behind_long {
                self.c.counters.short_tasks_after_hol += 1;
            }
            if self.cfg.sbp && self.cfg.srpt {
                if self.cfg.driver {
                    let j = &self.c.jobs[job.0 as usize];
                    self.c.remaining[job.0 as usize] =
                        if j.unlaunched == 0 { -1.0 } else { j.unlaunched as f64 * j.est };
                } else {
                    self.timer(now, nd2, Msg::RemainingUpdate { job }, out);
                }
            }
            let keep = self.cfg.sbp && !e.long && !class_long;
            let n = &mut self.c.nodes[ni];
            if keep {
                n.queue[pos].sticky = true;
            } else {
                n.queue.remove(pos);
                let j = &mut self.c.jobs[job.0 as usize];
                j.queued = j.queued.saturating_sub(1);
            }
            if !self.cfg.sbp {
                // Without SBP the scheduler's view is live: unlaunched tasks × estimate.
                let j = &self.c.jobs[job.0 as usize];
                self.c.remaining[job.0 as usize] = j.unlaunched as f64 * j.est;
            }
            // Eagle charges bypassed probes only for short launches; plain SRPT (DLWL)
            // charges every entry it jumps.
            if self.cfg.srpt && pos > 0 && (!e.long || !self.cfg.sbp) {
                self.c.counters.srpt_bypasses += 1;
                let n = &mut self.c.nodes[ni];
                for k in 0..pos {
                    n.queue[k].acc_delay += est_now;
                }
            }
            Served::Launched
        } else {
            // The job has nothing left: the fetch round trip is lost, then the slot frees.
            self.c.counters.empty_fetches += 1;
            let n = &mut self.c.nodes[ni];
            n.queue.remove(pos);
            if !e.long {
                n.long_started = None;
            }
            if e.reservation {
                self.release_reservation(ni, e.marks_long, e.est);
            }
            let j = &mut self.c.jobs[job.0 as usize];
            j.queued = j.queued.saturating_sub(1);
            self.c.maybe_free_job(job);
            if self.cfg.driver {
                let n = &mut self.c.nodes[ni];
                n.free += 1;
                self.c.busy -= 1;
                return Served::NoTask;
            }
            self.timer(now, nd2, Msg::SlotFree { node: NodeId(ni as u32) }, out);
            Served::NoTask
        }
    }

    /// Eirene SATC: the entry at `pos` runs a clone of `task` (the slot is taken). The
    /// probe stays, as after any short launch under SBP.
    #[allow(clippy::too_many_arguments)]
    fn launch_clone(
        &mut self,
        now: Time,
        ni: usize,
        pos: usize,
        e: &Entry,
        task: u32,
        est_now: f64,
        out: &mut Vec<Output>,
    ) {
        let job = e.job;
        self.c.jobs[job.0 as usize].running += 1;
        self.c.counters.decisions += 1;
        let n = &mut self.c.nodes[ni];
        n.long_started = None;
        n.running.push(Running { job, long: false, reservation: e.reservation, marks_long: e.marks_long, est: e.est });
        let start = now + 2.0 * self.cfg.network_delay;
        out.push(Output::Clone { node: NodeId(ni as u32), job, task, start });
        if self.cfg.sbp {
            n.queue[pos].sticky = true;
        } else {
            n.queue.remove(pos);
            let j = &mut self.c.jobs[job.0 as usize];
            j.queued = j.queued.saturating_sub(1);
        }
        if self.cfg.srpt && pos > 0 {
            self.c.counters.srpt_bypasses += 1;
            let n = &mut self.c.nodes[ni];
            for k in 0..pos {
                n.queue[k].acc_delay += est_now;
            }
        }
    }

    /// Driver mode: the queue had nothing launchable, so take a task from any eligible
    /// job (short jobs on nodes free of long work, long jobs on general nodes), least
    /// remaining work first. Keeps exact-state Eagle work-conserving.
    pub(super) fn backfill(&mut self, now: Time, ni: usize, exclude: &[JobId], out: &mut Vec<Output>) -> bool {
        if !self.cfg.driver {
            return false;
        }
        let node = NodeId(ni as u32);
        let general = self.parts.big.contains(&node);
        let free_of_long = !self.longmap.holds_long(ni) && self.c.nodes[ni].running_long == 0;
        // Short jobs before long ones, then least remaining work, then oldest id.
        let mut best: Option<(bool, f64, u32)> = None;
        for (i, j) in self.c.jobs.iter().enumerate() {
            if !j.live || j.unlaunched == 0 || exclude.contains(&JobId(i as u32)) {
                continue;
            }
            let long = j.class.is_long();
            let eligible = if long { general } else { free_of_long || !general };
            if !eligible {
                continue;
            }
            let key = (long, j.unlaunched as f64 * j.est, i as u32);
            let better = best.is_none_or(|b| {
                key.0.cmp(&b.0).then(key.1.total_cmp(&b.1)).then(key.2.cmp(&b.2)) == std::cmp::Ordering::Less
            });
            if better {
                best = Some(key);
            }
        }
        let Some((long, _, id)) = best else { return false };
        let job = JobId(id);
        let est = self.c.jobs[id as usize].est;
        let reservation = long && self.uses_reservations(Class::Long);
        if reservation {
            // The job's task moves here: withdraw one of its reservations elsewhere.
            self.steal_one_reservation(job);
            self.work[ni] += est;
            self.longmap.add(ni);
        }
        self.c.counters.backfills += 1;
        self.c.jobs[id as usize].queued += 1;
        self.c.nodes[ni].queued_long += long as u32;
        self.c.nodes[ni].queue.push_front(Entry {
            job,
            long,
            reservation,
            marks_long: reservation,
            est,
            behind_long: false,
            acc_delay: 0.0,
            sticky: false,
        });
        self.serve(now, ni, 0, out) == Served::Launched
    }

    /// Removes one queued reservation of `job` from the node that holds the most work.
    pub(super) fn steal_one_reservation(&mut self, job: JobId) {
        let mut best: Option<(f64, usize, usize)> = None;
        for (ni, n) in self.c.nodes.iter().enumerate() {
            if !n.live {
                continue;
            }
            if let Some(pos) = n.queue.iter().rposition(|e| e.job == job && e.reservation) {
                if best.is_none_or(|b| self.work[ni] > b.0) {
                    best = Some((self.work[ni], ni, pos));
                }
            }
        }
        if let Some((_, ni, pos)) = best {
            let e = self.c.nodes[ni].queue.remove(pos).unwrap();
            self.drop_entry(ni, &e);
        }
    }

    /// Hawk: an idle node steals blocked short probes from random general nodes.
    pub(super) fn steal(&mut self, now: Time, ni: usize, out: &mut Vec<Output>) {
        self.refresh_partitions();
        if self.parts.big.is_empty() {
            return;
        }
        let mut stolen = Vec::new();
        for _ in 0..self.cfg.steal_attempts {
            let victim = self.parts.big[self.rng.below(self.parts.big.len())].0 as usize;
            let jobs = &self.c.jobs;
            let v = &mut self.c.nodes[victim];
            let runs_long = v.running_long > 0;
            stolen = steal::take_blocked_shorts(&mut v.queue, runs_long, self.cfg.steal_limit as usize, |e| {
                jobs[e.job.0 as usize].class.is_long()
            });
            if !stolen.is_empty() {
                break;
            }
        }
        self.c.counters.stolen_probes += stolen.len() as u64;
        for e in stolen {
            // Moved, not re-sent: the job's entry count is unchanged, and head-of-line
            // blocking is not counted again.
            self.enqueue_stolen(now, ni, e, out);
        }
    }

    pub(super) fn enqueue_stolen(&mut self, now: Time, ni: usize, mut e: Entry, out: &mut Vec<Output>) {
        let n = &mut self.c.nodes[ni];
        e.behind_long = n.holds_long();
        e.acc_delay = 0.0;
        n.queue.push_back(e);
        if n.free > 0 {
            self.pull(now, ni, out);
        }
    }

    /// A job's estimate changed (driver mode): its queued entries carry the new one.
    pub(super) fn retime_entries(&mut self, job: JobId, est: f64) {
        for n in &mut self.c.nodes {
            for e in n.queue.iter_mut().filter(|e| e.job == job && !e.reservation) {
                e.est = est;
            }
        }
    }

    /// Drops the entries of `job` from the queues of `nodes`.
    pub(super) fn purge(&mut self, job: JobId, nodes: &[u32]) {
        let mut gone = std::mem::take(&mut self.dead_scratch);
        for &ni in nodes {
            let q = &mut self.c.nodes[ni as usize].queue;
            if q.iter().any(|e| e.job == job) {
                q.retain(|e| {
                    if e.job == job {
                        gone.push(e.clone());
                    }
                    e.job != job
                });
                for e in gone.drain(..) {
                    self.drop_entry(ni as usize, &e);
                }
            }
        }
        self.dead_scratch = gone;
    }

    /// Withdraws every queued entry of `job` (reclassification, removal).
    pub(super) fn withdraw(&mut self, job: JobId) {
        for ni in 0..self.c.nodes.len() {
            if self.c.nodes[ni].queue.iter().all(|e| e.job != job) {
                continue;
            }
            let queue = std::mem::take(&mut self.c.nodes[ni].queue);
            let (gone, kept): (Vec<Entry>, Vec<Entry>) = queue.into_iter().partition(|e| e.job == job);
            self.c.nodes[ni].queue = kept.into();
            for e in &gone {
                self.drop_entry(ni, e);
            }
        }
    }

    /// Makes sure a job with unlaunched tasks has entries to serve them: short jobs need
    /// at least one probe, centrally placed jobs one reservation per unlaunched task.
    pub(super) fn replace_missing(&mut self, now: Time, job: JobId, out: &mut Vec<Output>) {
        let j = &self.c.jobs[job.0 as usize];
        if !j.live || j.unlaunched == 0 {
            return;
        }
        let reservation = j.sched_long && self.uses_reservations(j.class);
        let missing = if reservation {
            j.unlaunched.saturating_sub(j.queued) as usize
        } else if j.queued == 0 {
            j.unlaunched as usize
        } else {
            0
        };
        if missing > 0 {
            self.place(now, job, missing, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(job: u32, est: f64, acc_delay: f64) -> Entry {
        Entry {
            job: JobId(job),
            long: false,
            reservation: false,
            marks_long: false,
            est,
            behind_long: false,
            acc_delay,
            sticky: false,
        }
    }

    #[test]
    fn a_probe_kept_only_to_clone_never_stops_srpt_from_serving_the_smallest_job() {
        // Queue: a big job, a probe kept only to clone (bypassed far beyond its own cap),
        // then a small job. SRPT serves the small one.
        let (big, clone_only, small) = (entry(0, 1.0, 0.0), entry(1, 1.0, 100.0), entry(2, 1.0, 0.0));
        let views = [view(&big, 50.0, false), view(&clone_only, -1.0, true), view(&small, 1.0, false)];
        assert_eq!(srpt::pick_sbp(views.into_iter(), 5.0), Pick::At(2));
        // A real entry bypassed that often still stops the scan (the starvation cap).
        let starved = entry(1, 1.0, 100.0);
        let views = [view(&big, 50.0, false), view(&starved, 40.0, false), view(&small, 1.0, false)];
        assert_eq!(srpt::pick_sbp(views.into_iter(), 5.0), Pick::At(1));
        // Alone, a clone-only probe is still served (SATC's clone into an idle slot).
        assert_eq!(srpt::pick_sbp([view(&clone_only, -1.0, true)].into_iter(), 5.0), Pick::At(0));
    }
}
