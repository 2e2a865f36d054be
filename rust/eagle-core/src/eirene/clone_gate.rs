//! SATC for a host that owns the tasks (the Spark plugin, driver mode): the engine decides
//! *when* a short job gets a clone and *which* task, the host launches it through its own
//! speculative-copy path (Eirene §III-C, "Scheduler-Aware Task Cloning").
//!
//! In driver mode Spark's TaskSetManager, not the engine, picks the task a slot runs, so
//! the engine's task table ([`super::satc::Table`]) cannot follow task indices. The host
//! instead reports, per decision, what the paper's scheduler reads from its TST: how many
//! tasks of the job have not started, and which run as a single copy (in start order).
//! The gate applies the paper's rules:
//!
//! - only a short job is cloned (§III-A: Eirene targets short-job latency);
//! - only once every primary copy has started (§III-C: a probe that finds no not-started
//!   task is answered with a clone instead of being discarded);
//! - only into an idle slot (the clone uses a probe's spare slot, never a waiting task's);
//! - at most one clone per task, ever (the "cloned task status" column): a task whose clone
//!   ended, or was killed, is not cloned again;
//! - the earliest-started running task first (it is the likeliest straggler).
//!
//! The first copy to finish wins and the host cancels the other (Spark kills it).

use crate::types::{Class, JobId};
use std::collections::{HashMap, HashSet};

/// Per live job, the tasks already cloned; plus how many clones were decided.
#[derive(Clone, Debug, Default)]
pub struct CloneGate {
    cloned: HashMap<u32, HashSet<u32>>,
    /// Clones decided since the start (the host launches each one).
    pub decided: u64,
}

impl CloneGate {
    /// The task of `job` to clone now, if any. `class` is the job's class in the engine,
    /// `waiting` its tasks with no copy started yet, `idle` the slots nothing else waits
    /// for, `running` its tasks running as one copy, earliest started first.
    pub fn pick(&mut self, job: JobId, class: Option<Class>, waiting: u32, idle: u32, running: &[u32]) -> Option<u32> {
        if idle == 0 || waiting > 0 || class != Some(Class::Short) {
            return None;
        }
        let done = self.cloned.entry(job.0).or_default();
        let task = running.iter().copied().find(|t| !done.contains(t))?;
        done.insert(task);
        self.decided += 1;
        Some(task)
    }

    /// Whether `task` of `job` was ever cloned.
    pub fn was_cloned(&self, job: JobId, task: u32) -> bool {
        self.cloned.get(&job.0).is_some_and(|s| s.contains(&task))
    }

    /// The job is gone (its id may be recycled): its clone column goes with it.
    pub fn forget(&mut self, job: JobId) {
        self.cloned.remove(&job.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const J: JobId = JobId(3);

    #[test]
    fn no_clone_while_a_task_waits_or_no_slot_is_idle() {
        let mut g = CloneGate::default();
        assert_eq!(g.pick(J, Some(Class::Short), 1, 4, &[0, 1]), None, "a task has not started");
        assert_eq!(g.pick(J, Some(Class::Short), 0, 0, &[0, 1]), None, "no idle slot");
        assert_eq!(g.pick(J, Some(Class::Short), 0, 1, &[]), None, "nothing runs");
        assert_eq!(g.decided, 0);
        assert_eq!(g.pick(J, Some(Class::Short), 0, 1, &[5, 2]), Some(5), "earliest started first");
        assert_eq!(g.decided, 1);
    }

    #[test]
    fn long_or_unknown_jobs_are_never_cloned() {
        let mut g = CloneGate::default();
        assert_eq!(g.pick(J, Some(Class::Long), 0, 8, &[0, 1, 2]), None);
        assert_eq!(g.pick(J, None, 0, 8, &[0]), None);
        assert_eq!(g.decided, 0);
    }

    #[test]
    fn at_most_one_clone_per_task_even_after_its_clone_ended() {
        let mut g = CloneGate::default();
        assert_eq!(g.pick(J, Some(Class::Short), 0, 3, &[0, 1]), Some(0));
        assert_eq!(g.pick(J, Some(Class::Short), 0, 3, &[0, 1]), Some(1));
        assert_eq!(g.pick(J, Some(Class::Short), 0, 3, &[0, 1]), None);
        // The clone of 0 was killed: 0 runs as one copy again, and stays uncloned.
        assert_eq!(g.pick(J, Some(Class::Short), 0, 3, &[0]), None);
        assert!(g.was_cloned(J, 0) && !g.was_cloned(J, 2));
        // Another job has its own column; a recycled id starts clean.
        assert_eq!(g.pick(JobId(4), Some(Class::Short), 0, 1, &[0]), Some(0));
        g.forget(J);
        assert_eq!(g.pick(J, Some(Class::Short), 0, 1, &[0]), Some(0));
        assert_eq!(g.decided, 4);
    }

    #[test]
    fn the_driver_clones_only_its_short_jobs_and_only_when_on() {
        use crate::driver::{Driver, DriverConfig};
        let mut d = Driver::new(DriverConfig { cutoff: Some(10.0), ..DriverConfig::default() }, 1).unwrap();
        d.add_node(0.0, 4);
        let short = d.submit(0.0, 2, Some(Class::Short), Some(1.0), 1);
        let long = d.submit(0.0, 2, Some(Class::Long), Some(60.0), 2);
        assert_eq!(d.satc_clone(short, 0, 2, &[0, 1]), None, "off by default");
        d.enable_satc();
        assert_eq!(d.satc_clone(long, 0, 2, &[0, 1]), None, "a long task set is never cloned");
        assert_eq!(d.satc_clone(short, 0, 2, &[1, 0]), Some(1));
        assert_eq!(d.satc_decided(), 1);
        d.remove_job(1.0, short);
        assert_eq!(d.satc_decided(), 1);
    }
}
