//! Coordinated Cold Data Migration: a worker node's Migration Manager (Eirene §III-B,
//! Fig. 3).
//!
//! Each node keeps
//!
//! - a **Per-Job Task Migration Status Table** (MST, Table II): which tasks of which
//!   jobs are queued for migration, migrating, or migrated into the node's memory;
//! - a **Migration Queue** (MQ): migration requests placed by arriving probes (MPP of
//!   them per probe, §III-B2), started while fewer than CM migrations run (§III-B3,
//!   "How to enforce I/O bandwidth management with MQ?");
//! - a **Migration Fast Lane** (MFL): when the node is handed a task, the next
//!   not-started, not-migrated task of the same job is migrated *immediately*, ahead of
//!   the MQ and regardless of the CM bound, so that it overlaps the running task
//!   (Sticky Batch Probing will most likely ask for it next). At most one fast-lane
//!   migration per launch, so the fast lane adds at most one stream per slot.
//!
//! The RamDisk file system is not modelled beyond the MST: a migrated task's data
//! stays until its job completes (the paper argues memory suffices, §III-B3).
//! A migration takes the engine-wide DMT seconds; the host is told nothing until a
//! task reads migrated input ([`crate::Output::InputMigrated`]).

use crate::types::JobId;
use std::collections::VecDeque;

/// The migration status of one task's input on one node (MST column 3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MigState {
    /// Waiting in the Migration Queue.
    Queued,
    /// Being copied into memory (counted against CM unless it came by the fast lane).
    Migrating { fast: bool },
    /// In memory, ready to be read.
    Migrated,
}

/// One MST row.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Row {
    pub job: JobId,
    pub task: u32,
    pub state: MigState,
}

/// A node's Migration Manager: MST, MQ and the concurrency books.
#[derive(Clone, Debug, Default)]
pub struct Manager {
    rows: Vec<Row>,
    queue: VecDeque<(JobId, u32)>,
    /// Migrations from the MQ in progress (bounded by CM).
    active: u32,
    /// Fast-lane migrations in progress (not bounded by CM).
    fast_active: u32,
}

impl Manager {
    /// The MST row of `(job, task)`, if the node holds one.
    pub fn state(&self, job: JobId, task: u32) -> Option<MigState> {
        self.rows.iter().find(|r| r.job == job && r.task == task).map(|r| r.state)
    }

    /// Tasks of `job` whose input is in this node's memory.
    pub fn migrated(&self, job: JobId) -> impl Iterator<Item = u32> + '_ {
        self.rows.iter().filter(move |r| r.job == job && r.state == MigState::Migrated).map(|r| r.task)
    }

    /// Migrations in progress from the MQ (never above CM).
    pub fn active(&self) -> u32 {
        self.active
    }

    /// Fast-lane migrations in progress.
    pub fn fast_active(&self) -> u32 {
        self.fast_active
    }

    /// Requests waiting in the MQ.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }

    /// Queues a migration request (a probe's random pick, §III-B2). False when the node
    /// already holds a row for the task.
    pub fn request(&mut self, job: JobId, task: u32) -> bool {
        if self.state(job, task).is_some() {
            return false;
        }
        self.rows.push(Row { job, task, state: MigState::Queued });
        self.queue.push_back((job, task));
        true
    }

    /// Starts queued migrations while fewer than `cm` run, skipping requests for which
    /// `wanted` says no (the task started meanwhile, or its job is gone); those rows are
    /// dropped. Returns the `(job, task)` pairs started.
    pub fn start_queued(
        &mut self,
        cm: u32,
        mut wanted: impl FnMut(JobId, u32) -> bool,
        started: &mut Vec<(JobId, u32)>,
    ) {
        while self.active < cm {
            let Some((job, task)) = self.queue.pop_front() else { break };
            let Some(i) = self.rows.iter().position(|r| r.job == job && r.task == task && r.state == MigState::Queued)
            else {
                continue; // upgraded to the fast lane, or evicted
            };
            if !wanted(job, task) {
                self.rows.swap_remove(i);
                continue;
            }
            self.rows[i].state = MigState::Migrating { fast: false };
            self.active += 1;
            started.push((job, task));
        }
    }

    /// The fast lane: migrate `(job, task)` now, whatever CM says. A queued request
    /// for it is promoted. False when it is already migrating or migrated.
    pub fn fast(&mut self, job: JobId, task: u32) -> bool {
        match self.rows.iter().position(|r| r.job == job && r.task == task) {
            Some(i) if self.rows[i].state == MigState::Queued => {
                self.rows[i].state = MigState::Migrating { fast: true };
            }
            Some(_) => return false,
            None => self.rows.push(Row { job, task, state: MigState::Migrating { fast: true } }),
        }
        self.fast_active += 1;
        true
    }

    /// A migration ended; `keep` says whether its job still wants the data.
    pub fn done(&mut self, job: JobId, task: u32, keep: bool) {
        let Some(i) = self.rows.iter().position(|r| r.job == job && r.task == task) else { return };
        if let MigState::Migrating { fast } = self.rows[i].state {
            if fast {
                self.fast_active -= 1;
            } else {
                self.active -= 1;
            }
        }
        if keep {
            self.rows[i].state = MigState::Migrated;
        } else {
            self.rows.swap_remove(i);
        }
    }

    /// Evicts a finished job's data and queued requests (migrations in progress finish
    /// and are dropped then).
    pub fn evict(&mut self, job: JobId) {
        self.rows.retain(|r| r.job != job || matches!(r.state, MigState::Migrating { .. }));
        self.queue.retain(|&(j, _)| j != job);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const J: JobId = JobId(3);

    #[test]
    fn the_queue_never_runs_more_than_cm_at_once() {
        let mut m = Manager::default();
        for t in 0..25 {
            assert!(m.request(J, t));
        }
        let mut started = vec![];
        m.start_queued(10, |_, _| true, &mut started);
        assert_eq!(started.len(), 10);
        assert_eq!((m.active(), m.queued()), (10, 15));
        // Asking again while full starts nothing.
        m.start_queued(10, |_, _| true, &mut started);
        assert_eq!(started.len(), 10);
        // One ends: exactly one more starts, in request order.
        m.done(J, 0, true);
        m.start_queued(10, |_, _| true, &mut started);
        assert_eq!(started.len(), 11);
        assert_eq!(started[10], (J, 10));
        assert_eq!(m.active(), 10);
        assert_eq!(m.state(J, 0), Some(MigState::Migrated));
        assert_eq!(m.state(J, 10), Some(MigState::Migrating { fast: false }));
        assert_eq!(m.state(J, 11), Some(MigState::Queued));
    }

    #[test]
    fn a_request_is_made_once_per_task() {
        let mut m = Manager::default();
        assert!(m.request(J, 1));
        assert!(!m.request(J, 1));
        assert_eq!(m.queued(), 1);
    }

    #[test]
    fn requests_for_started_tasks_are_skipped_without_using_bandwidth() {
        let mut m = Manager::default();
        for t in 0..4 {
            m.request(J, t);
        }
        let mut started = vec![];
        m.start_queued(2, |_, t| t % 2 == 1, &mut started);
        assert_eq!(started, vec![(J, 1), (J, 3)]);
        assert_eq!(m.state(J, 0), None);
        assert_eq!(m.state(J, 2), None);
    }

    #[test]
    fn the_fast_lane_starts_at_once_even_when_cm_is_reached() {
        let mut m = Manager::default();
        for t in 0..3 {
            m.request(J, t);
        }
        let mut started = vec![];
        m.start_queued(2, |_, _| true, &mut started);
        assert_eq!(m.active(), 2);
        // Task 2 waits in the MQ; the fast lane promotes it past the bound.
        assert!(m.fast(J, 2));
        assert_eq!(m.state(J, 2), Some(MigState::Migrating { fast: true }));
        assert_eq!((m.active(), m.fast_active()), (2, 1));
        // A task with no row gets one.
        assert!(m.fast(J, 7));
        assert_eq!(m.fast_active(), 2);
        // Already migrating: nothing to do.
        assert!(!m.fast(J, 7));
        // Its queue entry is stale now: a freed MQ slot does not start it twice.
        m.done(J, 0, true);
        m.start_queued(2, |_, _| true, &mut started);
        assert_eq!(started, vec![(J, 0), (J, 1)]);
        assert_eq!(m.active(), 1);
        m.done(J, 2, true);
        assert_eq!((m.active(), m.fast_active()), (1, 1));
        assert_eq!(m.migrated(J).collect::<Vec<_>>(), vec![0, 2]);
    }

    #[test]
    fn eviction_drops_rows_and_requests_of_the_job_only() {
        let mut m = Manager::default();
        let other = JobId(4);
        m.request(J, 0);
        m.request(J, 1);
        m.request(other, 0);
        let mut started = vec![];
        m.start_queued(1, |_, _| true, &mut started);
        m.evict(J);
        // The migrating row stays until it ends; then it is dropped.
        assert_eq!(m.state(J, 0), Some(MigState::Migrating { fast: false }));
        assert_eq!(m.state(J, 1), None);
        assert_eq!(m.queued(), 1);
        m.done(J, 0, false);
        assert_eq!(m.state(J, 0), None);
        assert_eq!(m.active(), 0);
        m.start_queued(1, |_, _| true, &mut started);
        assert_eq!(started.last(), Some(&(other, 0)));
    }
}
