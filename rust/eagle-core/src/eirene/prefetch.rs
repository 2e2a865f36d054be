//! CCDM for a host that owns the tasks (the Spark plugin, driver mode): Eirene §III-B's
//! Migration Managers, one per executor, driven from the driver's view of its task sets.
//!
//! In driver mode one scheduler sees every executor and Spark's TaskSetManager picks the
//! task a slot runs; the paper's workflow (§III-B2) maps onto it as follows.
//!
//! - **A probe.** A short task set still waiting after a round probes `min(2 × waiting,
//!   executors)` random executors once (probe ratio 2, §II-A); each probe queues up to MPP
//!   not-started tasks into that executor's Migration Queue (MPP = 2, Table V).
//! - **The Migration Queue** runs at most CM migrations per executor at once (CM = 10,
//!   Table V); a request whose task started meanwhile is dropped
//!   ([`super::ccdm::Manager::start_queued`]).
//! - **The fast lane.** A launch on an executor migrates another not-started task of the
//!   same job there at once, past CM.
//! - **The answer to a slot** prefers a task whose input is migrated on that executor
//!   ([`Prefetch::done`], [`Prefetch::migrated`]).
//! - **Eviction** (RVFS, §III-B1): a job's migrated data goes when its task set ends
//!   ([`Prefetch::forget`]; a migration still running then is dropped when it ends).
//!
//! **One copy per task (driver mode only).** The paper's workers pick their MPP tasks
//! independently, and its simulator charges a migration time, not bandwidth; here a copy
//! costs the network what the task's own read would, so the driver coordinates exactly: a
//! task's input is queued, migrating or migrated on at most one executor at a time, and
//! never on an executor that already holds it (its `holder`). A failed or dropped request
//! frees the task for another executor.
//!
//! **Which tasks (driver mode only).** Spark's TaskSetManager hands an executor first the
//! tasks whose input it holds, else the not-started task of the lowest index, so a copy
//! made for the lowest index is most likely taken elsewhere first. Both the probes and the
//! fast lane take the candidates the host hands out *last*, highest index first: those wait
//! longest (the paper's lead time) and stay for the executor that holds the copy
//! (docs/policies/eirene.md).
//!
//! What a migration *is* stays with the host (the plugin replicates a task's cached input
//! block into the target executor's memory); the planner only decides which task's input
//! goes where, and when.

use super::ccdm::{Manager, MigState};
use crate::rng::Rng;
use crate::types::{JobId, NodeId};
use std::collections::{BTreeMap, HashMap, HashSet};

/// One migration to start: copy the input of `task` of `job` to `node`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Migration {
    pub node: NodeId,
    pub job: JobId,
    pub task: u32,
    /// Started by the fast lane (not counted against CM).
    pub fast: bool,
}

/// The planner's counters (the plugin adds the executor side's).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PrefetchCounters {
    /// Task sets that probed.
    pub probes: u64,
    /// Migrations started from the MQ.
    pub started: u64,
    /// Migrations started by the fast lane.
    pub fast: u64,
    /// Migrations that ended with the input in memory.
    pub migrated: u64,
    /// Migrations that failed (the host could not copy the input).
    pub failed: u64,
    /// Tasks launched on an executor that had migrated their input (`ccdm_helped`).
    pub helped: u64,
}

#[derive(Clone, Debug, Default)]
struct JobInputs {
    /// Task indices with an input to migrate, ascending, and the executor holding each
    /// input already (if known).
    cold: Vec<(u32, Option<NodeId>)>,
    started: HashSet<u32>,
    /// Tasks whose input is queued, migrating or migrated on some executor.
    placed: HashMap<u32, NodeId>,
    probed: bool,
}

impl JobInputs {
    /// Tasks that may still be migrated to `node`: not started, not placed anywhere, and
    /// not already held there.
    fn candidates(&self, node: NodeId) -> impl Iterator<Item = u32> + '_ {
        self.cold
            .iter()
            .filter(move |(t, h)| *h != Some(node) && !self.started.contains(t) && !self.placed.contains_key(t))
            .map(|&(t, _)| t)
    }
}

/// The driver's Migration Managers and the per-job books they read.
#[derive(Clone, Debug)]
pub struct Prefetch {
    cm: u32,
    mpp: u32,
    nodes: BTreeMap<u32, Manager>,
    jobs: HashMap<u32, JobInputs>,
    rng: Rng,
    pub counters: PrefetchCounters,
}

impl Prefetch {
    /// `cm`: migrations per executor at once from the MQ; `mpp`: requests per probe.
    pub fn new(cm: u32, mpp: u32, seed: u64) -> Result<Prefetch, crate::error::ConfigError> {
        if cm == 0 {
            return Err(crate::error::ConfigError::NoConcurrentMigrations);
        }
        Ok(Prefetch {
            cm,
            mpp,
            nodes: BTreeMap::new(),
            jobs: HashMap::new(),
            rng: Rng::new(seed),
            counters: Default::default(),
        })
    }

    /// A short task set arrived; `cold` are its tasks with an input to migrate, each with
    /// the executor that holds that input already, if known. A second call for the same
    /// job is ignored (the set is fixed at submission).
    pub fn register(&mut self, job: JobId, cold: &[(u32, Option<NodeId>)]) {
        self.jobs.entry(job.0).or_insert_with(|| {
            let mut c = cold.to_vec();
            c.sort_unstable_by_key(|x| x.0);
            c.dedup_by_key(|x| x.0);
            JobInputs { cold: c, ..Default::default() }
        });
    }

    /// Whether `job` is registered (a short task set with inputs to migrate).
    pub fn knows(&self, job: JobId) -> bool {
        self.jobs.get(&job.0).is_some_and(|j| !j.cold.is_empty())
    }

    /// The job found the cluster full with `waiting` tasks left: it probes
    /// `min(2 × waiting, nodes)` of `nodes` at random, once per job; each probe queues MPP
    /// random tasks that may still migrate there. Appends the migrations that start now.
    pub fn probe(&mut self, job: JobId, waiting: u32, nodes: &[NodeId], out: &mut Vec<Migration>) {
        let Some(j) = self.jobs.get_mut(&job.0) else { return };
        if j.probed || waiting == 0 || nodes.is_empty() || j.cold.is_empty() {
            return;
        }
        j.probed = true;
        self.counters.probes += 1;
        let mut pool: Vec<NodeId> = nodes.to_vec();
        pool.sort_unstable_by_key(|n| n.0);
        pool.dedup();
        let k = (2 * waiting as usize).min(pool.len());
        for i in 0..k {
            let pick = i + self.rng.below(pool.len() - i);
            pool.swap(i, pick);
        }
        for &node in &pool[..k] {
            let j = self.jobs.get_mut(&job.0).expect("checked above");
            // Ascending: the tasks the host hands out last are at the end.
            let mut cand: Vec<u32> = j.candidates(node).collect();
            let m = self.nodes.entry(node.0).or_default();
            for _ in 0..self.mpp {
                let Some(t) = cand.pop() else { break };
                if m.request(job, t) {
                    j.placed.insert(t, node);
                }
            }
            self.start_queued(node, out);
        }
    }

    /// Starts queued migrations on `node` while fewer than CM run, dropping requests for
    /// tasks that started meanwhile or whose job is gone.
    fn start_queued(&mut self, node: NodeId, out: &mut Vec<Migration>) {
        let jobs = &self.jobs;
        let mut started = Vec::new();
        let cm = self.cm;
        self.nodes.entry(node.0).or_default().start_queued(
            cm,
            |job, task| jobs.get(&job.0).is_some_and(|j| !j.started.contains(&task)),
            &mut started,
        );
        self.counters.started += started.len() as u64;
        out.extend(started.into_iter().map(|(job, task)| Migration { node, job, task, fast: false }));
    }

    /// Task `task` of `job` launched on `node`. Returns whether its input had been migrated
    /// there (CCDM helped it). Feeds the fast lane: the not-started task of the job the host
    /// hands out last (the highest index) whose input is not placed anywhere nor held on
    /// `node` migrates there now.
    pub fn launched(&mut self, node: NodeId, job: JobId, task: u32, out: &mut Vec<Migration>) -> bool {
        let Some(j) = self.jobs.get_mut(&job.0) else { return false };
        j.started.insert(task);
        let helped = self.nodes.get(&node.0).and_then(|m| m.state(job, task)) == Some(MigState::Migrated);
        if helped {
            self.counters.helped += 1;
        }
        let m = self.nodes.entry(node.0).or_default();
        let next = j.candidates(node).last();
        if let Some(t) = next {
            if m.fast(job, t) {
                j.placed.insert(t, node);
                self.counters.fast += 1;
                out.push(Migration { node, job, task: t, fast: true });
            }
        }
        helped
    }

    /// A migration ended (`ok`: the input is in `node`'s memory). Returns whether the data
    /// should stay (false: the job is gone, or the copy failed; the host drops it). Starts
    /// queued migrations the freed MQ slot allows.
    pub fn done(&mut self, node: NodeId, job: JobId, task: u32, ok: bool, out: &mut Vec<Migration>) -> bool {
        let keep = ok && self.jobs.contains_key(&job.0);
        let Some(m) = self.nodes.get_mut(&node.0) else { return false };
        if !matches!(m.state(job, task), Some(MigState::Migrating { .. })) {
            return false; // unknown or duplicate report
        }
        m.done(job, task, keep);
        if ok {
            self.counters.migrated += 1;
        } else {
            self.counters.failed += 1;
            if let Some(j) = self.jobs.get_mut(&job.0) {
                j.placed.remove(&task); // another executor may try
            }
        }
        self.start_queued(node, out);
        keep
    }

    /// Not-started tasks of `job` whose input is in `node`'s memory, ascending.
    pub fn migrated(&self, node: NodeId, job: JobId) -> Vec<u32> {
        let (Some(m), Some(j)) = (self.nodes.get(&node.0), self.jobs.get(&job.0)) else { return Vec::new() };
        let mut v: Vec<u32> = m.migrated(job).filter(|t| !j.started.contains(t)).collect();
        v.sort_unstable();
        v
    }

    /// The job's task set ended: its books go, and the returned `(node, task)` pairs are
    /// the migrated inputs the host should drop now (migrations still running are dropped
    /// when they end).
    pub fn forget(&mut self, job: JobId) -> Vec<(NodeId, u32)> {
        if self.jobs.remove(&job.0).is_none() {
            return Vec::new();
        }
        let mut drop = Vec::new();
        for (&n, m) in self.nodes.iter_mut() {
            drop.extend(m.migrated(job).map(|t| (NodeId(n), t)));
            m.evict(job);
        }
        drop
    }

    /// The executor is gone with whatever it held: its tasks may migrate elsewhere.
    pub fn remove_node(&mut self, node: NodeId) {
        self.nodes.remove(&node.0);
        for j in self.jobs.values_mut() {
            j.placed.retain(|_, n| *n != node);
        }
    }

    /// Migrations running on `node` from the MQ and by the fast lane.
    pub fn in_flight(&self, node: NodeId) -> (u32, u32) {
        self.nodes.get(&node.0).map_or((0, 0), |m| (m.active(), m.fast_active()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const J: JobId = JobId(1);

    fn nodes(n: u32) -> Vec<NodeId> {
        (0..n).map(NodeId).collect()
    }

    fn cold(tasks: &[u32]) -> Vec<(u32, Option<NodeId>)> {
        tasks.iter().map(|&t| (t, None)).collect()
    }

    #[test]
    fn a_probe_goes_to_twice_the_waiting_tasks_with_mpp_each_and_one_copy_per_task() {
        let mut p = Prefetch::new(10, 2, 7).unwrap();
        p.register(J, &cold(&[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
        let mut out = vec![];
        p.probe(J, 2, &nodes(8), &mut out);
        let probed: HashSet<u32> = out.iter().map(|m| m.node.0).collect();
        assert_eq!(probed.len(), 4, "2 x 2 waiting tasks: {out:?}");
        for n in &probed {
            assert_eq!(out.iter().filter(|m| m.node.0 == *n).count(), 2, "MPP requests per probe");
        }
        let tasks: HashSet<u32> = out.iter().map(|m| m.task).collect();
        assert_eq!(tasks.len(), out.len(), "no task's input goes to two executors: {out:?}");
        assert!(out.iter().all(|m| !m.fast));
        // Once per job.
        let before = out.len();
        p.probe(J, 2, &nodes(8), &mut out);
        assert_eq!(out.len(), before);
        assert_eq!(p.counters.probes, 1);
    }

    #[test]
    fn a_probe_skips_started_tasks_inputs_already_placed_and_inputs_the_executor_holds() {
        let mut p = Prefetch::new(10, 3, 1).unwrap();
        p.register(J, &[(0, None), (1, Some(NodeId(1))), (2, None), (3, None)]);
        let mut out = vec![];
        p.launched(NodeId(9), J, 0, &mut out); // task 0 started before any probe; 3 goes by the fast lane
        assert_eq!(out, vec![Migration { node: NodeId(9), job: J, task: 3, fast: true }]);
        out.clear();
        p.probe(J, 5, &nodes(3), &mut out);
        let mut tasks: Vec<u32> = out.iter().map(|m| m.task).collect();
        tasks.sort_unstable();
        assert_eq!(tasks, vec![1, 2], "0 started, 3 placed; 1 only where its holder is not: {out:?}");
        assert!(out.iter().all(|m| m.task != 1 || m.node != NodeId(1)), "{out:?}");
    }

    /// Spark hands a free executor the lowest not-started index it holds no input of: the
    /// copies go to the tasks handed out last, so the executor that got one is still the
    /// one to run it.
    #[test]
    fn copies_go_to_the_tasks_the_host_hands_out_last() {
        let mut p = Prefetch::new(10, 2, 5).unwrap();
        p.register(J, &cold(&[0, 1, 2, 3, 4, 5, 6, 7]));
        let mut out = vec![];
        p.launched(NodeId(0), J, 0, &mut out);
        assert_eq!(out, vec![Migration { node: NodeId(0), job: J, task: 7, fast: true }]);
        out.clear();
        p.probe(J, 1, &nodes(4), &mut out);
        // 2 x 1 waiting: two executors, two tasks each, from the top down.
        let mut tasks: Vec<u32> = out.iter().map(|m| m.task).collect();
        tasks.sort_unstable();
        assert_eq!(tasks, vec![3, 4, 5, 6], "{out:?}");
        let first = out[0].node;
        let mut on_first: Vec<u32> = out.iter().filter(|m| m.node == first).map(|m| m.task).collect();
        on_first.sort_unstable();
        assert_eq!(on_first, vec![5, 6], "the first probe takes the two highest: {out:?}");
    }

    #[test]
    fn an_executor_never_migrates_an_input_it_holds() {
        let mut p = Prefetch::new(10, 3, 1).unwrap();
        p.register(J, &[(0, Some(NodeId(0))), (1, Some(NodeId(0)))]);
        let mut out = vec![];
        p.probe(J, 1, &nodes(1), &mut out);
        assert!(out.is_empty(), "{out:?}");
        p.launched(NodeId(0), J, 0, &mut out);
        assert!(out.is_empty(), "{out:?}");
    }

    #[test]
    fn cm_bounds_each_executor_and_a_finished_migration_starts_the_next() {
        let mut p = Prefetch::new(1, 2, 3).unwrap();
        p.register(J, &cold(&[0, 1, 2, 3]));
        let mut out = vec![];
        p.probe(J, 1, &nodes(1), &mut out);
        // 2 x 1 waiting, capped by 1 executor: one probe, MPP 2 requests, CM 1 at once.
        assert_eq!(out.len(), 1);
        assert_eq!(p.in_flight(NodeId(0)), (1, 0));
        let first = out[0].task;
        out.clear();
        assert!(p.done(NodeId(0), J, first, true, &mut out));
        assert_eq!(out.len(), 1, "the queued request starts");
        assert_ne!(out[0].task, first);
        assert_eq!(p.migrated(NodeId(0), J), vec![first]);
        // A duplicate report changes nothing.
        assert!(!p.done(NodeId(0), J, first, true, &mut out));
        assert_eq!(p.counters.migrated, 1);
    }

    #[test]
    fn a_queued_request_for_a_task_that_started_is_dropped_unstarted() {
        let mut p = Prefetch::new(1, 2, 3).unwrap();
        p.register(J, &cold(&[0, 1]));
        let mut out = vec![];
        p.probe(J, 1, &nodes(1), &mut out);
        let (running, queued) = (out[0].task, 1 - out[0].task);
        out.clear();
        p.launched(NodeId(5), J, queued, &mut out); // ran elsewhere
        out.clear();
        p.done(NodeId(0), J, running, true, &mut out);
        assert!(out.is_empty(), "{out:?}");
        assert_eq!(p.in_flight(NodeId(0)), (0, 0));
    }

    #[test]
    fn the_fast_lane_migrates_the_next_task_past_cm_and_a_migrated_launch_counts_as_helped() {
        let mut p = Prefetch::new(1, 1, 3).unwrap();
        p.register(J, &cold(&[0, 1, 2]));
        let mut out = vec![];
        p.probe(J, 1, &nodes(1), &mut out);
        let t = out[0].task;
        p.done(NodeId(0), J, t, true, &mut vec![]);
        out.clear();
        // Launching the migrated task on its executor: helped; the fast lane takes the
        // highest task placed nowhere.
        assert!(p.launched(NodeId(0), J, t, &mut out));
        let next = [2, 1, 0].into_iter().find(|&x| x != t).unwrap();
        assert_eq!(out, vec![Migration { node: NodeId(0), job: J, task: next, fast: true }]);
        assert_eq!(p.in_flight(NodeId(0)), (0, 1));
        // Elsewhere: not helped, and the fast lane takes the last task, not `next` again.
        out.clear();
        let last = 3 - t - next;
        assert!(!p.launched(NodeId(1), J, last, &mut out));
        assert!(out.is_empty(), "every remaining input is placed or started: {out:?}");
        assert_eq!(p.counters.helped, 1);
        assert!(p.migrated(NodeId(0), J).is_empty(), "started tasks are not offered again");
    }

    #[test]
    fn forget_names_the_migrated_inputs_and_a_late_migration_is_not_kept() {
        let mut p = Prefetch::new(10, 2, 3).unwrap();
        p.register(J, &cold(&[0, 1]));
        let mut out = vec![];
        p.probe(J, 1, &nodes(1), &mut out);
        assert_eq!(out.len(), 2);
        p.done(NodeId(0), J, out[0].task, true, &mut vec![]);
        let dropped = p.forget(J);
        assert_eq!(dropped, vec![(NodeId(0), out[0].task)]);
        assert!(!p.done(NodeId(0), J, out[1].task, true, &mut vec![]), "job gone: the copy is dropped");
        assert_eq!(p.in_flight(NodeId(0)), (0, 0));
        assert!(!p.knows(J));
    }

    #[test]
    fn a_failed_migration_frees_its_task_for_another_executor() {
        let mut p = Prefetch::new(1, 1, 3).unwrap();
        p.register(J, &cold(&[0]));
        let mut out = vec![];
        p.probe(J, 1, &nodes(1), &mut out);
        assert_eq!(out.len(), 1);
        out.clear();
        assert!(!p.done(NodeId(0), J, 0, false, &mut out));
        assert!(p.migrated(NodeId(0), J).is_empty());
        assert_eq!(p.counters.failed, 1);
        // Task 0 may go elsewhere now: the fast lane of a launch on another executor takes it.
        p.launched(NodeId(1), J, 9, &mut out);
        assert_eq!(out.last(), Some(&Migration { node: NodeId(1), job: J, task: 0, fast: true }));
    }

    #[test]
    fn a_lost_executor_frees_its_tasks() {
        let mut p = Prefetch::new(10, 1, 3).unwrap();
        p.register(J, &cold(&[0]));
        let mut out = vec![];
        p.probe(J, 1, &nodes(1), &mut out);
        p.remove_node(NodeId(0));
        out.clear();
        p.launched(NodeId(1), J, 7, &mut out);
        assert_eq!(out, vec![Migration { node: NodeId(1), job: J, task: 0, fast: true }]);
    }

    #[test]
    fn unknown_jobs_and_empty_inputs_do_nothing() {
        let mut p = Prefetch::new(10, 2, 3).unwrap();
        let mut out = vec![];
        p.probe(J, 3, &nodes(4), &mut out);
        assert!(!p.launched(NodeId(0), J, 0, &mut out));
        p.register(JobId(2), &[]);
        p.probe(JobId(2), 3, &nodes(4), &mut out);
        assert!(out.is_empty());
        assert!(Prefetch::new(0, 2, 1).is_err());
    }
}
