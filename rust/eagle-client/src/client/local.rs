//! The driver's own placement of long tasks (the paper's LWL, §3.2, run locally): while the
//! central is unreachable, for tasks it could not place, and for task sets Spark lets run
//! only on some hosts. The tasks go out as probes to the hosts by their local long work.

use super::State;
use crate::placement::local_lwl;
use eagle_wire::ToNode;
use std::sync::atomic::Ordering;

impl State {
    /// The central is unreachable (or could not place them): water-fill `tasks` long
    /// tasks of `job` over the up hosts by the local long work there, near the hosts of
    /// their input within one task estimate (as the central places them), as probes.
    pub(super) fn place_locally(&mut self, job: u64, tasks: u32) {
        let Some(j) = self.jobs.get_mut(&job) else { return };
        let up: Vec<u64> = self
            .hosts
            .iter()
            .filter(|(i, h)| h.up && !j.rejected.contains(i) && j.may_run_on(&h.name))
            .map(|(&i, _)| i)
            .collect();
        j.local = true;
        let (est, cpus) = (j.est, j.cpus);
        let input: Vec<u32> = up
            .iter()
            .map(|h| j.input.iter().find(|(name, _)| *name == self.hosts[h].name).map_or(0, |&(_, n)| n))
            .collect();
        if !up.is_empty() {
            j.reserved += tasks;
            self.counters.placed_locally.fetch_add(tasks as u64, Ordering::Relaxed);
        }
        let work: Vec<f64> = up.iter().map(|h| self.hosts[h].local_long_ms).collect();
        for (i, n) in local_lwl(&work, &input, tasks, est).into_iter().enumerate() {
            if n == 0 {
                continue;
            }
            let h = up[i];
            let j = self.jobs.get_mut(&job).unwrap();
            let share = j.share.entry(h).or_default();
            *share += n;
            j.probed.insert(h);
            self.writers.send(h, &ToNode::Probe { job, tasks: *share, est_ms: est, cpus });
            self.hosts.get_mut(&h).unwrap().local_long_ms += n as f64 * est;
        }
    }

    /// The local long tasks of `job` shared out to `links` will not be granted there:
    /// they leave the job's reservations and the hosts' local long work.
    pub(super) fn unshare(&mut self, job: u64, links: &[u64]) {
        let Some(j) = self.jobs.get_mut(&job) else { return };
        for &link in links {
            let n = j.lose_share(link);
            if let Some(h) = self.hosts.get_mut(&link) {
                h.release_local(n as f64 * j.est);
            }
        }
    }

    /// [`Self::unshare`] on every host: the job has no task left to run there.
    pub(super) fn unshare_all(&mut self, job: u64) {
        let links: Vec<u64> = self.jobs.get(&job).map(|j| j.share.keys().copied().collect()).unwrap_or_default();
        self.unshare(job, &links);
    }
}
