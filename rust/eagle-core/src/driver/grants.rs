//! Warm executors in cluster mode: whether a slot that a host's `eagle-node`
//! grants this application is worth a task of the job, or better handed back.
//!
//! Under cluster mode the daemons, not the driver's engine, choose which job a freed slot
//! serves (Sticky Batch Probing + SRPT, Eagle §3.3), and a short job probes max(K, 2t)
//! hosts, so its grants arrive from several hosts at once. Taking each one spreads a stage
//! of tiny tasks over as many executors as granted first, and each new (stage, executor)
//! pair pays the warm-up of [`crate::adaptive::warmup`].
//!
//! The late-binding answer makes the choice cheap: a grant the driver does not want goes
//! back as "no task", and the node serves the next entry of its queue at once. So a grant
//! of a host where the job is cold is taken only when [`crate::adaptive::warmup::worth_cold_start`]
//! says so, and one where it is warming only when [`crate::adaptive::warmup::worth_warming_slot`]
//! does, as the adaptive policy rules a free slot in one application. The difference is
//! what the job drains on instead: here only the slots it holds under a probe that its node
//! keeps. An Eagle daemon keeps a job's probe (Sticky Batch Probing, §3.3) while the job
//! has tasks left and, under eagle-adaptive, while the host holds no long work, so each of
//! those tasks hands its slot back to the job when it ends, unless the node's SRPT finds
//! less work elsewhere. The other slots of a warm host belong to every application's queue,
//! and are not counted; nor are grants used up at once (Hawk and Sparrow never keep a
//! probe, so the rule never hands back theirs). A job with no such slot always takes the
//! grant (it must start somewhere), so handing back never strands a job: its kept probes
//! stay where its tasks run.

use super::Driver;
use crate::adaptive::warmup::{overran, worth_cold_start, worth_warming_slot, Warmth};
use crate::types::{JobId, NodeId, Time};

impl Driver {
    /// Cluster mode: a task of `job` started on executor `node` under a grant at `now` (the
    /// warm-up is measured as in one application, and a start on a cold executor is timed).
    pub fn cluster_launched(&mut self, now: Time, job: JobId, node: NodeId) {
        if !self.tracks_warmup(job) {
            return;
        }
        if self.warmup.warmth(job.0, node.0) == Warmth::Cold {
            if let Some(m) = self.meta.get_mut(&job.0) {
                match m.started_cold.binary_search_by_key(&node.0, |s| s.0) {
                    Ok(i) => m.started_cold[i].1 = now,
                    Err(i) => m.started_cold.insert(i, (node.0, now)),
                }
            }
        }
        self.warmup.task_launched(job.0, node.0);
    }

    /// Cluster mode: whether a slot granted on executor `node` is worth a task of `job`,
    /// which has `waiting` tasks it could still launch and `running` tasks running or
    /// assigned under grants whose node keeps its probe. Always true with `running` 0,
    /// under the paper's policy, for an unknown job, until a warm-up is measured, and where
    /// a task of the job not launched yet has its input (its data locality). The
    /// cost of a warm-up to the others counts every other live task set of this
    /// application over its executors' slots (the driver sees no other application's).
    /// Both tests weigh how long the job's first task on each host has run
    /// ([`Driver::cluster_launched`] times it), as in one application: a warming host by
    /// when its first task is due to end, and, with no other task set live, a cold host is
    /// taken once a first task elsewhere shows the estimate low ([`crate::adaptive::warmup::overran`];
    /// the driver's cluster side then probes again a host it handed back).
    pub fn worth_grant(&self, now: Time, job: JobId, node: NodeId, waiting: u32, running: u32) -> bool {
        let warmup = self.warmup.cost();
        if !self.tracks_warmup(job) || warmup <= 0.0 || running == 0 {
            return true;
        }
        let Some(j) = self.engine.job(job) else { return true };
        // Data locality (see [`crate::adaptive::warmup`]): a waiting task reads its input there, and
        // Spark's delay scheduling keeps it off the other executors for the locality wait.
        if self.engine.holds_input(job, node) {
            return true;
        }
        let others = self.meta.len().saturating_sub(1);
        let slots = self.engine.total_slots();
        // How long ago the first task of the job started on each executor it is warming.
        let warming = self.meta.get(&job.0).map_or(&[][..], |m| &m.started_cold[..]);
        let since = |n: u32| {
            let at = warming.binary_search_by_key(&n, |s| s.0).map_or(now, |i| warming[i].1);
            (now - at).max(0.0)
        };
        match self.warmup.warmth(job.0, node.0) {
            Warmth::Warm => true,
            Warmth::Warming => worth_warming_slot(since(node.0), running, j.estimate, warmup, others, slots),
            Warmth::Cold => {
                // As in one application ([`crate::adaptive::warmup::overran`]): with no other task set
                // of it live, a first task far past the estimate shows the estimate low.
                let overran = warming
                    .iter()
                    .filter(|s| self.warmup.warmth(job.0, s.0) == Warmth::Warming)
                    .any(|s| overran(since(s.0), j.estimate, warmup));
                (others == 0 && overran)
                    || worth_cold_start(waiting, running, running, j.estimate, warmup, others, slots)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::types::{Class, JobId, NodeId};
    use crate::{Driver, DriverConfig, System};

    /// An application of `nodes` executors × 2 slots whose warm-up is measured at 0.1 s
    /// from one ended task set (a cold task of 0.15 s beside settled ones of 0.05 s), after
    /// a task set that started every executor (it gives no sample).
    fn measured(policy: System, nodes: u32) -> (Driver, Vec<NodeId>) {
        let cfg = DriverConfig { policy, cutoff: Some(10.0), ..DriverConfig::default() };
        let mut d = Driver::new(cfg, 1).unwrap();
        let ns: Vec<NodeId> = (0..nodes).map(|_| d.add_node(0.0, 2)).collect();
        let start = d.submit(0.0, nodes, Some(Class::Short), Some(0.05), 99);
        for &n in &ns {
            d.cluster_launched(0.0, start, n);
            d.task_observed(0.0, n, start, Some(0.05));
        }
        d.remove_job(0.0, start);
        let j = d.submit(0.0, 6, Some(Class::Short), Some(0.05), 1);
        d.cluster_launched(0.0, j, ns[0]);
        d.task_observed(0.15, ns[0], j, Some(0.15));
        for k in 0..5 {
            d.cluster_launched(0.15 + 0.05 * k as f64, j, ns[0]);
            d.task_observed(0.2 + 0.05 * k as f64, ns[0], j, Some(0.05));
        }
        d.remove_job(0.5, j);
        (d, ns)
    }

    #[test]
    fn a_cold_host_is_handed_back_while_the_jobs_own_slots_drain_it_sooner() {
        let (mut d, ns) = measured(System::EagleAdaptive, 4);
        assert!((d.warmup_cost() - 0.1).abs() < 1e-9, "{}", d.warmup_cost());
        let j = d.submit(1.0, 4, Some(Class::Short), Some(0.03), 2);
        // Nothing running: the first grant is taken wherever it is.
        assert!(d.worth_grant(1.0, j, ns[1], 4, 0));
        d.cluster_launched(1.0, j, ns[1]);
        // 3 × 30 ms waiting beside one running task: a new executor's 100 ms warm-up
        // costs more than it gains; on the host where it runs, the second slot gains a
        // task's 30 ms over waiting for that host to be warm.
        assert!(!d.worth_grant(1.0, j, ns[2], 3, 1), "cold host");
        assert!(d.worth_grant(1.0, j, ns[1], 3, 1), "warming host, no other task set");
        d.task_observed(1.2, ns[1], j, Some(0.2));
        assert!(d.worth_grant(1.0, j, ns[1], 3, 1), "warm host");
        // Enough waiting work is worth a new executor: 40 × 30 ms against 100 ms.
        assert!(d.worth_grant(1.0, j, ns[3], 40, 1));
    }

    /// A grant of the host holding a waiting task's input is taken, cold or not: Spark's
    /// delay scheduling keeps that task off other executors for the locality wait, so
    /// handing the grant back would leave it waiting 3 s and then reading its block over the
    /// network (a cached stage on the cluster-mode testbed).
    #[test]
    fn a_cold_host_holding_a_waiting_tasks_input_is_taken() {
        let (mut d, ns) = measured(System::EagleAdaptive, 4);
        let j = d.submit(1.0, 4, Some(Class::Short), Some(0.03), 2);
        d.set_input_nodes(j, &[ns[1], ns[1], ns[2], ns[2]]);
        d.cluster_launched(1.0, j, ns[1]);
        assert!(!d.worth_grant(1.0, j, ns[3], 3, 1), "cold host without its input");
        assert!(d.worth_grant(1.0, j, ns[2], 3, 1), "cold host holding the input of two waiting tasks");
    }

    /// A stage estimated far too low (an application's typical task of 35 ms, for tasks of
    /// seconds) fills one host's slots; a cold host's grant is handed back at first, as the
    /// estimate says the warm slots free in 35 ms. Once the running tasks have overrun the
    /// estimate and the warm-up by more than a warm-up, with no other task set live, the
    /// cold host is taken, as in one application ([`crate::adaptive::warmup::overran`]). Without the
    /// launch times the driver judged the cold host by the estimate for the whole first
    /// wave, and the host idled unless another application queued there.
    #[test]
    fn a_cold_host_is_taken_once_the_running_tasks_overrun_a_low_estimate() {
        let (mut d, ns) = measured(System::EagleAdaptive, 4);
        let j = d.submit(1.0, 4, None, Some(0.035), 2);
        d.cluster_launched(1.0, j, ns[0]);
        d.cluster_launched(1.0, j, ns[0]);
        assert!(!d.worth_grant(1.05, j, ns[1], 2, 2), "within the estimate: the warm slots free first");
        assert!(!d.worth_grant(1.2, j, ns[1], 2, 2), "overran by less than a warm-up");
        assert!(d.worth_grant(1.3, j, ns[1], 2, 2), "overran by more than a warm-up, nothing else live");
        d.cluster_launched(1.3, j, ns[1]);
        // The new host's first task has only just started; the old host's count.
        assert!(d.worth_grant(1.31, j, ns[2], 1, 3));
        // With another task set of the application live, the slot has a use there: under
        // load a task overruns as much from sharing the cores as from a low estimate.
        let other = d.submit(1.3, 4, None, Some(0.035), 3);
        assert!(!d.worth_grant(1.4, j, ns[2], 1, 3), "another task set live");
        d.remove_job(1.4, other);
        assert!(d.worth_grant(1.4, j, ns[2], 1, 3), "alone again");
    }

    /// On a warming host the gain of a second cold task is over waiting for the first one
    /// there to end, due `est + warm-up` after it started: with another task set live, a
    /// slot beside a first task about to end goes back (as in one application).
    #[test]
    fn a_warming_hosts_slot_is_handed_back_when_its_first_task_is_nearly_done_and_others_are_live() {
        let (mut d, ns) = measured(System::EagleAdaptive, 4);
        let j = d.submit(1.0, 4, None, Some(0.035), 2);
        let _other = d.submit(1.0, 4, None, Some(0.035), 3);
        d.cluster_launched(1.0, j, ns[0]);
        assert!(d.worth_grant(1.0, j, ns[0], 3, 1), "the first task there has just started");
        assert!(!d.worth_grant(1.1, j, ns[0], 3, 1), "it is due to end in 35 ms");
    }

    #[test]
    fn the_paper_policy_and_an_unmeasured_warm_up_take_every_grant() {
        let (d, ns) = measured(System::Eagle, 4);
        assert_eq!(d.warmup_cost(), 0.0);
        assert!(d.worth_grant(1.0, JobId(0), ns[2], 3, 1));
        let mut fresh = Driver::new(DriverConfig::default(), 1).unwrap();
        let n: Vec<NodeId> = (0..2).map(|_| fresh.add_node(0.0, 2)).collect();
        let j = fresh.submit(0.0, 4, Some(Class::Short), Some(0.03), 2);
        fresh.cluster_launched(1.0, j, n[0]);
        assert!(fresh.worth_grant(1.0, j, n[1], 3, 1), "no warm-up measured yet");
    }
}
