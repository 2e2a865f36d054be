//! Work stealing on a node.
//!
//! - **Hawk** (Hawk §4, [`eagle_core::eagle::steal`]): an idle node asks random peers for
//!   the short probes blocked behind their long work, and takes them.
//! - **eagle-adaptive** (beyond the papers): a task ends, and the slot would go to long
//!   work queued here. Under Succinct State Sharing short probes avoid a host holding long
//!   work, so on a small cluster a burst of short jobs queues on the short-only hosts while
//!   the general hosts' freed slots go to the next long task: a short job waits for short
//!   work, then for a long task, though a slot freed beside it. So the node first asks its
//!   peers, each at most once, for the short probes they cannot serve now; a peer hands out
//!   copies and keeps its own (whichever slot frees first serves the task: late binding,
//!   the driver launches each task once and answers a surplus grant with `NoTask`). The
//!   long task waits one round of asking, and takes at most as many probes as it has free
//!   slots, the peer's least remaining work first. Bound: a long entry past its starvation cap
//!   (which every short grant passing it charges) is served without asking, as
//!   [`eagle_core::eagle::srpt::pick_short_first`] serves it before local short work; a
//!   slot handed back unused (`NoTask`) does not ask again. Budget: over the reservation
//!   window (`adaptive.window`, 60 s), stolen short work holds at most `hold_fraction` (5 %)
//!   of the host's slot-time; past it the node asks no more until old work leaves the
//!   window, so under a short load the partition cannot carry, long work loses at most that
//!   share of the host to it.

use super::{Action, Ms, NodeState, STEAL_WAIT_MS};
use eagle_core::eagle::steal::take_blocked_shorts;
use eagle_wire::StolenProbe;

impl NodeState {
    /// Hawk: an idle node (free slot, empty queue) asks peers for blocked probes.
    pub(super) fn maybe_steal(&mut self, out: &mut Vec<Action>) {
        let idle = self.node.free > 0 && self.node.queue.is_empty();
        if !(self.stealing
            && std::mem::take(&mut self.want_steal)
            && idle
            && !self.steal_pending
            && !self.apps.is_empty())
        {
            return;
        }
        self.steal_pending = true;
        let apps = self.apps.keys().cloned().collect();
        out.push(Action::Steal { apps, limit: self.steal_limit, attempts: self.steal_attempts, each_once: false });
    }

    /// eagle-adaptive: the steal's budget, a share `f` (in [0, 1]) of the host's slot-time
    /// over the reservation window (default `adaptive.hold_fraction`); 0 turns the steal off.
    pub fn set_steal_fraction(&mut self, f: f64) {
        self.steal_budget_ms = f.clamp(0.0, 1.0) * self.settings.slots as f64 * self.steal_window_ms;
    }

    /// eagle-adaptive, thief side: the policy picked the long entry at `pos` for the slot a
    /// task's end freed; unless that entry has waited past its starvation cap, ask the peers
    /// for waiting short work first (the slot stays free until [`super::StealDone`]).
    /// While a steal is in flight, the long entry waits for its answer, at most
    /// [`STEAL_WAIT_MS`].
    pub(super) fn steals_before_long(&mut self, now: Ms, pos: usize, out: &mut Vec<Action>) -> bool {
        let e = &self.node.queue[pos];
        let starved = e.acc_delay > self.starvation_factor * e.est;
        if !self.adaptive || !e.long || starved {
            return false;
        }
        if self.steal_pending {
            return self.steal_sent.is_some_and(|t| now.saturating_sub(t) < STEAL_WAIT_MS);
        }
        if !self.task_ended
            || self.apps.is_empty()
            || self.steal_budget_ms <= 0.0
            || self.stolen_work.total(now as f64) >= self.steal_budget_ms
        {
            return false;
        }
        self.task_ended = false;
        self.steal_pending = true;
        self.steal_sent = Some(now);
        let apps = self.apps.keys().cloned().collect();
        // As many probes as this node can serve now: a copy queued here past that would
        // pass the long work at a later slot, for a job its own probes may have finished.
        let limit = self.node.free.max(1);
        out.push(Action::Steal { apps, limit, attempts: self.steal_attempts, each_once: true });
        true
    }

    /// eagle-adaptive, victim side: copies of the short probes of `apps` that wait here (the
    /// queue holds only what no free slot could serve), one per job with tasks left, the
    /// least remaining work first (the order this node would serve them), at most `limit`.
    pub(super) fn give_waiting(&self, limit: u32, apps: &[String]) -> Vec<StolenProbe> {
        let mut given: Vec<(f64, StolenProbe)> = Vec::new();
        for e in self.node.queue.iter().filter(|e| !e.long) {
            let Some(j) = self.jobs[e.job.0 as usize].as_ref() else { continue };
            let app = self.app_of(j.conn);
            if j.tasks == 0 || !apps.contains(&app) || given.iter().any(|(_, g)| g.job == j.id && g.app == app) {
                continue;
            }
            let left = j.tasks as f64 * j.est;
            given.push((left, StolenProbe { app, job: j.id, tasks: j.tasks, est_ms: e.est, cpus: j.cpus }));
        }
        // Stable: equal work keeps queue order.
        given.sort_by(|a, b| a.0.total_cmp(&b.0));
        given.into_iter().take(limit as usize).map(|(_, p)| p).collect()
    }

    /// Thief side (Hawk, and eagle-adaptive before long work): queue the stolen probes as if
    /// their drivers had sent them here.
    pub(super) fn stolen(&mut self, now: Ms, probes: Vec<StolenProbe>) {
        self.steal_pending = false;
        self.steal_sent = None;
        for p in probes {
            let Some(&conn) = self.apps.get(&p.app) else { continue };
            if p.tasks > 0 && p.est_ms.is_finite() && p.est_ms >= 0.0 && (1..=self.settings.slots).contains(&p.cpus) {
                self.enqueue_probe(now, conn, p.job, p.tasks, p.est_ms, p.cpus, true);
            }
        }
    }

    /// Hawk, victim side: give away the short probes blocked behind long work (of the
    /// thief's applications); the others keep their place.
    pub(super) fn give_blocked(&mut self, limit: u32, apps: &[String]) -> Vec<StolenProbe> {
        let runs_long = self.node.running_long > 0;
        let taken = take_blocked_shorts(&mut self.node.queue, runs_long, limit as usize, |e| e.long);
        let mut given = Vec::new();
        let mut kept = Vec::new();
        for e in taken {
            let j = self.jobs[e.job.0 as usize].as_ref().unwrap();
            let app = self.conns.get(&j.conn).map(|c| c.peer.app.clone()).unwrap_or_default();
            if apps.contains(&app) && j.tasks > 0 {
                given.push(StolenProbe { app, job: j.id, tasks: j.tasks, est_ms: e.est, cpus: j.cpus });
                let j = self.jobs[e.job.0 as usize].as_mut().unwrap();
                j.queued -= 1;
                self.maybe_free_job(e.job);
            } else {
                kept.push(e);
            }
        }
        // Not stealable by this thief: back at the end of the queue (still behind long work).
        self.node.queue.extend(kept);
        given
    }
}
