//! Hawk's work stealing on a node (Hawk §4, [`eagle_core::eagle::steal`]): an idle node asks its
//! peers for the short probes blocked behind their long work.

use super::{Action, Ms, NodeState};
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
        out.push(Action::Steal { apps, limit: self.steal_limit, attempts: self.steal_attempts });
    }

    /// Hawk, thief side: queue the stolen probes as if their drivers had sent them here.
    pub(super) fn stolen(&mut self, now: Ms, probes: Vec<StolenProbe>) {
        self.steal_pending = false;
        for p in probes {
            let Some(&conn) = self.apps.get(&p.app) else { continue };
            if p.tasks > 0 && p.est_ms.is_finite() && p.est_ms >= 0.0 && (1..=self.settings.slots).contains(&p.cpus) {
                self.enqueue_probe(now, conn, p.job, p.tasks, p.est_ms, p.cpus);
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
