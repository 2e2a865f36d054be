//! Eirene (Coordinated Cold Data Migration and Scheduler-Aware Task Cloning, §III)
//! on top of a hybrid scheduler's short-job path.
//!
//! Both schemes are off by default ([`EireneParams`]); a policy that supports them
//! holds an [`Eirene`] only when one is on, so the paper systems are untouched
//! otherwise. The policy calls the hooks below at the points the paper names:
//!
//! | paper (§III)                                   | hook                          |
//! |------------------------------------------------|-------------------------------|
//! | a probe (carrying the TST) is enqueued in PQ   | [`Eirene::probe_arrived`]     |
//! | the scheduler answers a node's task request    | [`Eirene::hand_out`]          |
//! | …and every primary copy has already started    | [`Eirene::clone_for`]         |
//! | a task completion message arrives              | [`Eirene::copy_ended`]        |
//! | a migration ends                               | [`Eirene::migration_done`]    |
//!
//! **CCDM** ([`ccdm`], §III-B): each node migrates MPP random not-started tasks of a
//! probe's job (MQ, at most CM at once), and the next not-started task of a job it was
//! just handed (fast lane). When the node asks for a task, the scheduler prefers a
//! not-started task whose input that node has migrated; such a task reads from memory
//! and runs DMT seconds shorter (the host is told by [`Output::InputMigrated`]).
//! The probe carries the job's task status table: in one engine the node reads the
//! job's table directly, at the probe's arrival.
//!
//! **SATC** ([`satc`], §III-C): when a node asks for a task of a short job whose
//! primary copies have all started, the answer is a clone ([`Output::Clone`]) of a
//! running task that has none, preferring one whose input the node has migrated. The
//! first copy to end completes the task; the engine asks the host to cancel the other
//! ([`Output::Cancel`]). A job with a cloneable task keeps its (sticky) probes alive,
//! behind every job with real work in SRPT order.
//!
//! Only short jobs are tracked: Eirene targets short-job latency (§III-A).

pub mod ccdm;
pub mod clone_gate;
pub mod prefetch;
pub mod satc;

use crate::counters::Counters;
pub use crate::counters::EireneCounters;
use crate::rng::Rng;
use crate::types::*;
use satc::{CopyEnd, Table};
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

/// The switches and Table V parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct EireneParams {
    /// Scheduler-Aware Task Cloning (§III-C).
    pub satc: bool,
    /// Coordinated Cold Data Migration (§III-B).
    pub ccdm: bool,
    /// CM: concurrent migrations per node from the Migration Queue (Table V: 10).
    pub cm: u32,
    /// MPP: migration requests per probe (Table V: 2).
    pub mpp: u32,
    /// DMT: seconds one migration takes, and the runtime a task reading migrated input
    /// saves (Table V: 6.42 s, from Ignem's 64 MiB block read).
    pub dmt: f64,
}

impl Default for EireneParams {
    fn default() -> Self {
        EireneParams { satc: false, ccdm: false, cm: 10, mpp: 2, dmt: 6.42 }
    }
}

impl EireneParams {
    /// Either scheme is on.
    pub fn on(&self) -> bool {
        self.satc || self.ccdm
    }
    pub fn validate(&self) -> Result<(), crate::error::ConfigError> {
        use crate::error::{Bound, ConfigError};
        if self.cm == 0 {
            return Err(ConfigError::Invalid { key: "eirene.cm", bound: Bound::AtLeast(1.0) });
        }
        if !(self.dmt >= 0.0 && self.dmt.is_finite()) {
            return Err(ConfigError::out_of_range("eirene.dmt", self.dmt, Bound::FiniteNonNegative));
        }
        Ok(())
    }
}

/// Eirene's state: the scheduler's task tables and every node's Migration Manager.
pub struct Eirene {
    pub params: EireneParams,
    /// Per job id: the TST of a live short job, and the nodes holding its MST rows.
    jobs: Vec<Option<(Table, Vec<u32>)>>,
    nodes: Vec<ccdm::Manager>,
    rng: Rng,
    started: Vec<(JobId, u32)>,
    /// Jobs whose primaries have all started, oldest first, while some task may still
    /// be cloned (pruned lazily): what a central scheduler's idle slot may clone.
    clone_ready: BTreeSet<u32>,
}

fn counters(c: &mut Counters) -> &mut EireneCounters {
    c.eirene.get_or_insert_with(Default::default)
}

impl Eirene {
    pub fn new(params: EireneParams, seed: u64) -> Eirene {
        Eirene {
            params,
            jobs: Vec::new(),
            nodes: Vec::new(),
            rng: Rng::new(seed ^ 0xE12E_E000_0000_0001),
            started: Vec::new(),
            clone_ready: BTreeSet::new(),
        }
    }

    pub fn add_node(&mut self) {
        self.nodes.push(ccdm::Manager::default());
    }

    /// A job was submitted: short jobs get a task table.
    pub fn submit(&mut self, job: JobId, tasks: u32, short: bool) {
        let i = job.0 as usize;
        if self.jobs.len() <= i {
            self.jobs.resize_with(i + 1, || None);
        }
        self.jobs[i] = (short && tasks > 0).then(|| (Table::new(tasks), Vec::new()));
    }

    /// The job's task table, while it is a live short job.
    pub fn table(&self, job: JobId) -> Option<&Table> {
        self.jobs.get(job.0 as usize).and_then(|b| b.as_ref()).map(|b| &b.0)
    }

    /// A node's Migration Manager.
    pub fn manager(&self, node: NodeId) -> Option<&ccdm::Manager> {
        self.nodes.get(node.0 as usize)
    }

    /// SATC could answer a request for `job` with a clone: every primary has started
    /// and some running task has no clone.
    pub fn cloneable(&self, job: JobId) -> bool {
        self.params.satc && self.table(job).is_some_and(|t| t.not_started() == 0 && t.cloneable())
    }

    /// CCDM (§III-B2): a probe of `job` entered `node`'s queue. The node picks up to MPP
    /// random not-started tasks it holds no row for and queues their migration.
    pub fn probe_arrived(&mut self, now: Time, node: NodeId, job: JobId, c: &mut Counters, out: &mut Vec<Output>) {
        if !self.params.ccdm || self.params.mpp == 0 {
            return;
        }
        let Some(Some((table, nodes))) = self.jobs.get_mut(job.0 as usize) else { return };
        let m = &mut self.nodes[node.0 as usize];
        let want = self.params.mpp.min(table.not_started());
        let mut added = 0;
        for _ in 0..4 * self.params.mpp {
            if added == want {
                break;
            }
            let t = self.rng.below(table.len() as usize) as u32;
            if table.is_not_started(t) && m.request(job, t) {
                added += 1;
            }
        }
        if added > 0 && nodes.last() != Some(&node.0) {
            nodes.push(node.0);
        }
        self.start_queued(now, node, c, out);
    }

    /// Starts the node's queued migrations while fewer than CM run.
    fn start_queued(&mut self, now: Time, node: NodeId, c: &mut Counters, out: &mut Vec<Output>) {
        let jobs = &self.jobs;
        let mut started = std::mem::take(&mut self.started);
        self.nodes[node.0 as usize].start_queued(
            self.params.cm,
            |job, task| jobs.get(job.0 as usize).and_then(|b| b.as_ref()).is_some_and(|b| b.0.is_not_started(task)),
            &mut started,
        );
        for (job, task) in started.drain(..) {
            counters(c).migrations += 1;
            out.push(Output::Timer { at: now + self.params.dmt, msg: Msg::MigrationDone { node, job, task } });
        }
        self.started = started;
    }

    /// A migration ended: the data stays while its job lives; the MQ moves on.
    pub fn migration_done(
        &mut self,
        now: Time,
        node: NodeId,
        job: JobId,
        task: u32,
        c: &mut Counters,
        out: &mut Vec<Output>,
    ) {
        let Some(m) = self.nodes.get_mut(node.0 as usize) else { return };
        let keep = self.jobs.get(job.0 as usize).is_some_and(|b| b.is_some());
        m.done(job, task, keep);
        self.start_queued(now, node, c, out);
    }

    /// The scheduler answers `node`'s request for a task of `job` (§III-B2): a random
    /// not-started task whose input the node has migrated, else the lowest-numbered
    /// not-started one. Marks it started, tells the host when it reads migrated input,
    /// and puts the job's next not-started task in the node's fast lane. `None` when the
    /// job is not tracked (long) or has no task left to start.
    pub fn hand_out(
        &mut self,
        now: Time,
        node: NodeId,
        job: JobId,
        c: &mut Counters,
        out: &mut Vec<Output>,
    ) -> Option<u32> {
        let ccdm = self.params.ccdm;
        let Some(Some((table, nodes))) = self.jobs.get_mut(job.0 as usize) else { return None };
        let m = &mut self.nodes[node.0 as usize];
        let mut task = None;
        if ccdm {
            let ready: Vec<u32> = m.migrated(job).filter(|&t| table.is_not_started(t)).collect();
            if !ready.is_empty() {
                task = Some(ready[self.rng.below(ready.len())]);
            }
        }
        let migrated = task.is_some();
        let task = match task {
            Some(t) => t,
            None => table.next_not_started(|_| false)?,
        };
        table.start(task, node);
        if self.params.satc && table.not_started() == 0 {
            self.clone_ready.insert(job.0);
        }
        if migrated {
            counters(c).ccdm_helped += 1;
            out.push(Output::InputMigrated { node, job, task });
        }
        if ccdm {
            // The fast lane: the next task this probe will likely ask for.
            if let Some(next) = table.next_not_started(|t| m.state(job, t).is_some()) {
                if m.fast(job, next) {
                    if nodes.last() != Some(&node.0) {
                        nodes.push(node.0);
                    }
                    counters(c).migrations += 1;
                    out.push(Output::Timer {
                        at: now + self.params.dmt,
                        msg: Msg::MigrationDone { node, job, task: next },
                    });
                }
            }
        }
        Some(task)
    }

    /// SATC (§III-C): the clone `node` runs for `job`, if every primary has started and
    /// some running task elsewhere has no clone; one whose input the node migrated first.
    pub fn clone_for(
        &mut self,
        _now: Time,
        node: NodeId,
        job: JobId,
        c: &mut Counters,
        out: &mut Vec<Output>,
    ) -> Option<u32> {
        if !self.params.satc {
            return None;
        }
        let Some(Some((table, _))) = self.jobs.get_mut(job.0 as usize) else { return None };
        let m = &self.nodes[node.0 as usize];
        let prefer: Vec<u32> = if self.params.ccdm { m.migrated(job).collect() } else { Vec::new() };
        let task = table.clone_candidates(node, &prefer)?;
        table.start_clone(task, node);
        let k = counters(c);
        k.clones_launched += 1;
        if prefer.contains(&task) {
            k.ccdm_helped += 1;
            out.push(Output::InputMigrated { node, job, task });
        }
        Some(task)
    }

    /// The oldest job with a task SATC could clone (central schedulers: what an idle
    /// slot runs when no task waits).
    pub fn next_clone_job(&mut self) -> Option<JobId> {
        while let Some(&j) = self.clone_ready.first() {
            if self.cloneable(JobId(j)) {
                return Some(JobId(j));
            }
            // Once every primary started, no task becomes cloneable again.
            self.clone_ready.pop_first();
        }
        None
    }

    /// A copy of `task` of `job` ended on `node`. The first copy completes the task and
    /// the other, if it runs, is cancelled ([`Output::Cancel`]). Returns true for the
    /// first copy (and for untracked jobs, whose tasks have one copy).
    pub fn copy_ended(
        &mut self,
        _now: Time,
        node: NodeId,
        job: JobId,
        task: u32,
        c: &mut Counters,
        out: &mut Vec<Output>,
    ) -> bool {
        let Some(Some((table, _))) = self.jobs.get_mut(job.0 as usize) else { return true };
        match table.copy_ended(task, node) {
            CopyEnd::First { cancel, clone_won } => {
                if clone_won {
                    counters(c).clones_won += 1;
                } else if cancel.is_some() {
                    counters(c).clones_wasted += 1;
                }
                if let Some(other) = cancel {
                    out.push(Output::Cancel { node: other, job, task });
                }
                if table.done() {
                    // The job completed: its migrated data is evicted.
                    if let Some((_, nodes)) = self.jobs[job.0 as usize].take() {
                        for n in nodes {
                            self.nodes[n as usize].evict(job);
                        }
                    }
                }
                true
            }
            CopyEnd::Second | CopyEnd::Unknown => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn on(satc: bool, ccdm: bool, cm: u32, mpp: u32) -> Eirene {
        let mut e = Eirene::new(EireneParams { satc, ccdm, cm, mpp, dmt: 5.0 }, 1);
        for _ in 0..4 {
            e.add_node();
        }
        e
    }

    fn migrations(out: &[Output]) -> Vec<(NodeId, u32, Time)> {
        out.iter()
            .filter_map(|o| match o {
                Output::Timer { at, msg: Msg::MigrationDone { node, task, .. } } => Some((*node, *task, *at)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn each_probe_queues_at_most_mpp_migrations() {
        let mut e = on(false, true, 10, 2);
        let mut c = Counters::default();
        let mut out = vec![];
        e.submit(JobId(0), 50, true);
        e.probe_arrived(0.0, NodeId(1), JobId(0), &mut c, &mut out);
        let m = migrations(&out);
        assert_eq!(m.len(), 2);
        assert!(m.iter().all(|&(n, _, at)| n == NodeId(1) && at == 5.0));
        assert_ne!(m[0].1, m[1].1);
        // A second probe on the same node adds at most MPP more.
        e.probe_arrived(0.0, NodeId(1), JobId(0), &mut c, &mut out);
        assert!((3..=4).contains(&migrations(&out).len()));
        // A one-task job gets one request however large MPP is.
        let mut e = on(false, true, 10, 5);
        let mut out = vec![];
        e.submit(JobId(0), 1, true);
        e.probe_arrived(0.0, NodeId(0), JobId(0), &mut c, &mut out);
        assert_eq!(migrations(&out), vec![(NodeId(0), 0, 5.0)]);
        // Long jobs are not tracked: no migration.
        e.submit(JobId(1), 10, false);
        out.clear();
        e.probe_arrived(0.0, NodeId(0), JobId(1), &mut c, &mut out);
        assert!(out.is_empty());
    }

    #[test]
    fn probes_beyond_cm_wait_in_the_queue_until_a_migration_ends() {
        let mut e = on(false, true, 3, 2);
        let mut c = Counters::default();
        let mut out = vec![];
        e.submit(JobId(0), 100, true);
        for _ in 0..4 {
            e.probe_arrived(0.0, NodeId(2), JobId(0), &mut c, &mut out);
        }
        let m = migrations(&out);
        assert_eq!(m.len(), 3, "CM bounds the migrations running at once");
        assert_eq!(e.manager(NodeId(2)).unwrap().active(), 3);
        assert_eq!(e.manager(NodeId(2)).unwrap().queued(), 5);
        out.clear();
        e.migration_done(5.0, NodeId(2), JobId(0), m[0].1, &mut c, &mut out);
        let next = migrations(&out);
        assert_eq!(next.len(), 1);
        assert_eq!(next[0].2, 10.0);
        assert_eq!(e.manager(NodeId(2)).unwrap().active(), 3);
    }

    #[test]
    fn the_answer_prefers_migrated_input_and_feeds_the_fast_lane() {
        let mut e = on(false, true, 1, 1);
        let mut c = Counters::default();
        let mut out = vec![];
        e.submit(JobId(0), 6, true);
        e.probe_arrived(0.0, NodeId(3), JobId(0), &mut c, &mut out);
        let (_, t, _) = migrations(&out)[0];
        // Before the migration ends, the answer is the lowest not-started task.
        out.clear();
        let low = if t == 0 { 1 } else { 0 };
        let first = e.hand_out(1.0, NodeId(3), JobId(0), &mut c, &mut out);
        assert_eq!(first, Some(low));
        assert!(!out.iter().any(|o| matches!(o, Output::InputMigrated { .. })));
        // The fast lane migrates the next not-started task at once, although CM = 1 is taken.
        let fast = migrations(&out);
        assert_eq!(fast.len(), 1);
        assert_eq!(fast[0].2, 6.0);
        assert_ne!(fast[0].1, t);
        assert_eq!(e.manager(NodeId(3)).unwrap().fast_active(), 1);
        // After the migration, node 3 is handed the migrated task, which reads from memory.
        e.migration_done(5.0, NodeId(3), JobId(0), t, &mut c, &mut out);
        out.clear();
        assert_eq!(e.hand_out(6.0, NodeId(3), JobId(0), &mut c, &mut out), Some(t));
        assert_eq!(out[0], Output::InputMigrated { node: NodeId(3), job: JobId(0), task: t });
        assert_eq!(c.eirene.as_ref().unwrap().ccdm_helped, 1);
        // Another node does not hold that data: it gets the lowest not-started task.
        out.clear();
        let other = e.hand_out(6.0, NodeId(0), JobId(0), &mut c, &mut out).unwrap();
        assert!(!out.iter().any(|o| matches!(o, Output::InputMigrated { .. })));
        assert!(other != t && other != low);
    }

    #[test]
    fn clones_only_after_every_primary_started_and_the_loser_is_cancelled() {
        let mut e = on(true, false, 10, 2);
        let mut c = Counters::default();
        let mut out = vec![];
        e.submit(JobId(0), 2, true);
        assert_eq!(e.hand_out(0.0, NodeId(0), JobId(0), &mut c, &mut out), Some(0));
        assert!(!e.cloneable(JobId(0)));
        assert_eq!(e.clone_for(0.0, NodeId(2), JobId(0), &mut c, &mut out), None);
        assert_eq!(e.hand_out(0.0, NodeId(1), JobId(0), &mut c, &mut out), Some(1));
        assert!(e.cloneable(JobId(0)));
        assert_eq!(e.clone_for(0.0, NodeId(2), JobId(0), &mut c, &mut out), Some(0));
        assert_eq!(e.clone_for(0.0, NodeId(3), JobId(0), &mut c, &mut out), Some(1));
        assert_eq!(e.clone_for(0.0, NodeId(3), JobId(0), &mut c, &mut out), None, "one clone per task");
        out.clear();
        // Task 0: the clone ends first and wins; the primary is cancelled.
        assert!(e.copy_ended(3.0, NodeId(2), JobId(0), 0, &mut c, &mut out));
        assert_eq!(out, vec![Output::Cancel { node: NodeId(0), job: JobId(0), task: 0 }]);
        assert!(!e.copy_ended(3.0, NodeId(0), JobId(0), 0, &mut c, &mut out));
        // Task 1: the primary wins; the clone is wasted.
        out.clear();
        assert!(e.copy_ended(4.0, NodeId(1), JobId(0), 1, &mut c, &mut out));
        assert_eq!(out, vec![Output::Cancel { node: NodeId(3), job: JobId(0), task: 1 }]);
        let k = c.eirene.unwrap();
        assert_eq!((k.clones_launched, k.clones_won, k.clones_wasted), (2, 1, 1));
        assert!(e.table(JobId(0)).is_none(), "a completed job's table is dropped");
    }

    #[test]
    fn a_clone_prefers_a_task_whose_input_the_node_migrated() {
        let mut e = on(true, true, 10, 1);
        let mut c = Counters::default();
        let mut out = vec![];
        e.submit(JobId(0), 3, true);
        e.probe_arrived(0.0, NodeId(3), JobId(0), &mut c, &mut out);
        let (_, t, _) = migrations(&out)[0];
        e.migration_done(5.0, NodeId(3), JobId(0), t, &mut c, &mut out);
        for n in 0..3 {
            e.hand_out(6.0, NodeId(n), JobId(0), &mut c, &mut out);
        }
        out.clear();
        assert_eq!(e.clone_for(6.0, NodeId(3), JobId(0), &mut c, &mut out), Some(t));
        assert_eq!(out, vec![Output::InputMigrated { node: NodeId(3), job: JobId(0), task: t }]);
    }
}
