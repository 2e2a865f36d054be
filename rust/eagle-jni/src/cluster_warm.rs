//! Warm executors in cluster mode: which grants are worth a task.
//!
//! A Spark task set's first tasks on an executor fetch and deserialise its task binary and
//! compile its code (eagle-core [`eagle_core::warmup`]). Outside cluster mode the adaptive
//! policy weighs that warm-up before it starts a task set on a new executor. In cluster
//! mode the slots come as grants from the hosts' daemons, and every grant used to be used:
//! a short job's probes reach every host (`max(K, 2t)` of 8), so its tasks ran on as many
//! executors as granted first. `scripts/bench cluster` (2026-11-27, seventh session) found
//! that cost dominating the interactive applications' slot time: their short stages ran on
//! 302-988 (stage, executor) pairs per plan, each first task deserialising for 170-310 ms
//! against tasks of 25 ms, 86-177 s of slot time per plan, where the static split ran the
//! same stages on one executor each (186 pairs, 17-61 ms).
//!
//! Here the driver applies the same rule to a probe's grant on an executor where the job
//! has not ended a task ([`eagle_core::Driver::worth_grant`]), from what it tracks per
//! (job, executor): the tasks launched under grants and ended. A grant not worth it goes
//! back (`NoTask`), which drops the job's probe there, so the slot goes to whatever else
//! that node has queued; the job drains on the executors where it already runs, whose
//! nodes grant it again as its tasks end (Sticky Batch Probing, §3.3). Long tasks (the
//! central's placements) are always taken: the central chose the host.

use eagle_core::{Driver, JobId, NodeId};
use std::collections::HashMap;
use std::time::Instant;

#[derive(Clone, Copy, Debug)]
struct Here {
    running: u32,
    ended: u32,
    /// When the earliest task still running there started (reset when none runs).
    since: Instant,
}

/// Per (job, executor): tasks running and ended under grants.
#[derive(Debug, Default)]
pub struct WarmGrants {
    on: HashMap<(JobId, NodeId), Here>,
}

impl WarmGrants {
    pub fn launched(&mut self, job: JobId, node: NodeId) {
        let h = self.on.entry((job, node)).or_insert(Here { running: 0, ended: 0, since: Instant::now() });
        if h.running == 0 {
            h.since = Instant::now();
        }
        h.running += 1;
    }

    pub fn ended(&mut self, job: JobId, node: NodeId) {
        if let Some(h) = self.on.get_mut(&(job, node)) {
            h.running = h.running.saturating_sub(1);
            h.ended = h.ended.saturating_add(1);
        }
    }

    pub fn job_removed(&mut self, job: JobId) {
        self.on.retain(|(j, _), _| *j != job);
    }

    pub fn node_removed(&mut self, node: NodeId) {
        self.on.retain(|(_, n), _| *n != node);
    }

    /// Whether a grant on `node` is worth a task of `job`, which has `waiting` tasks not
    /// launched, beside `others` live task sets of the application. `planned`: the executors
    /// this offer round has already planned a task of `job` on, one entry per task; they
    /// count as running there (warming), or the grants held at a round's start would each
    /// find the job running nowhere and all be used, which is how a short job spread to
    /// every host that granted first.
    pub fn worth(&self, driver: &Driver, job: JobId, node: NodeId, waiting: u32, others: usize, planned: &[NodeId]) -> bool {
        let slots_of = |n: NodeId| driver.engine().node(n).map_or(1, |v| v.slots);
        let (mut running, mut warm_slots) = (planned.len() as u32, 0u32);
        let mut warm_nodes: Vec<NodeId> = Vec::new();
        for ((j, n), h) in &self.on {
            if *j == job {
                running += h.running;
                if h.running > 0 || h.ended > 0 {
                    warm_nodes.push(*n);
                }
            }
        }
        warm_nodes.extend(planned.iter().copied());
        warm_nodes.sort_unstable();
        warm_nodes.dedup();
        for &n in &warm_nodes {
            warm_slots += slots_of(n);
        }
        let (mut here, mut since) = self
            .on
            .get(&(job, node))
            .map_or(((0, 0), 0.0), |h| ((h.running, h.ended), h.since.elapsed().as_secs_f64()));
        let planned_here = planned.iter().filter(|&&n| n == node).count() as u32;
        if here.0 == 0 && planned_here > 0 {
            since = 0.0;
        }
        here.0 += planned_here;
        driver.worth_grant(job, here, since, running, warm_slots, waiting, others)
    }

    /// Entries tracked (bounded by live task sets × executors).
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.on.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_follow_launches_and_ends_and_go_with_their_job_or_executor() {
        let mut w = WarmGrants::default();
        let (a, b) = (JobId(1), JobId(2));
        w.launched(a, NodeId(0));
        w.launched(a, NodeId(0));
        w.launched(a, NodeId(1));
        w.launched(b, NodeId(1));
        w.ended(a, NodeId(0));
        w.ended(a, NodeId(5)); // never launched there: nothing
        let h = w.on[&(a, NodeId(0))];
        assert_eq!((h.running, h.ended), (1, 1));
        assert_eq!(w.len(), 3);
        w.node_removed(NodeId(1));
        assert_eq!(w.len(), 1);
        w.job_removed(a);
        assert_eq!(w.len(), 0);
    }

    /// A driver of 8 executors of 2 slots that has measured a warm-up of 0.27 s (cold tasks
    /// 0.3 s, settled ones 0.03 s, all under grants).
    fn calibrated() -> (Driver, Vec<NodeId>) {
        let mut d = Driver::new(eagle_core::DriverConfig { cutoff: Some(100.0), ..Default::default() }, 1).unwrap();
        let nodes: Vec<NodeId> = (0..8).map(|_| d.add_node(0.0, 2)).collect();
        let w = d.submit(0.0, 8, None, Some(0.03), 9);
        for &n in &nodes[..2] {
            d.task_launched_under_grant(n, w);
            d.task_launched_under_grant(n, w);
        }
        for &n in &nodes[..2] {
            d.task_observed(0.3, n, w, Some(0.3));
            d.task_observed(0.3, n, w, Some(0.3));
            d.task_launched_under_grant(n, w);
            d.task_observed(0.33, n, w, Some(0.03));
            d.task_launched_under_grant(n, w);
            d.task_observed(0.36, n, w, Some(0.03));
        }
        d.remove_job(0.4, w);
        assert!(d.warmup_cost() > 0.2);
        (d, nodes)
    }

    #[test]
    fn a_small_job_takes_its_first_grant_and_not_a_cold_one_beside_it_in_the_same_round() {
        let (mut d, n) = calibrated();
        let job = d.submit(1.0, 10, None, Some(0.025), 10);
        let w = WarmGrants::default();
        assert!(w.worth(&d, job, n[3], 10, 2, &[]), "running nowhere: it starts somewhere");
        assert!(!w.worth(&d, job, n[4], 9, 2, &[n[3]]), "planned on n3 this round: n4 would be a second cold start");
        assert!(!w.worth(&d, job, n[3], 9, 2, &[n[3]]), "nor a second task beside the first, both cold");
        let mut w = w;
        w.launched(job, n[3]);
        w.ended(job, n[3]);
        assert!(w.worth(&d, job, n[3], 9, 2, &[]), "warm once a task ended there");
        w.launched(job, n[3]);
        assert!(!w.worth(&d, job, n[5], 8, 2, &[]), "still not worth a new executor");
        let big = d.submit(1.0, 200, None, Some(1.0), 11);
        assert!(w.worth(&d, big, n[5], 199, 2, &[n[3]]), "a long stage spreads");
    }
}
