//! Spark on a virtual clock, shared by the driver tests: executors of `slots` each, tasks of
//! known durations. Every submission and task end offers every executor's free slots
//! (Spark's revive), and so does every 0.2 s (the plugin's reviver, which also asks the
//! engine whether to preempt). A kill lands `KILL_DELAY` after it is decided (the executor
//! reports it), and the killed task waits to run again, as Spark re-queues a killed task.
#![allow(dead_code)]

use eagle_core::adaptive::preempt::Attempt;
use eagle_core::{Driver, DriverConfig, JobId, NodeId};
use std::collections::HashMap;

/// From a kill's decision to the executor's report of it, seconds.
pub const KILL_DELAY: f64 = 0.3;

#[derive(Clone, Copy, Debug)]
struct Run {
    end: f64,
    node: usize,
    job: JobId,
    started: f64,
    /// Its task was preempted before.
    again: bool,
    /// Killed: `end` is when the kill lands.
    killed: bool,
}

pub struct Spark {
    pub d: Driver,
    nodes: Vec<(NodeId, u32)>,
    running: Vec<Run>,
    dur: HashMap<u32, f64>,
    /// Per job, tasks waiting to run again after a kill.
    requeued: HashMap<u32, u32>,
    /// (job, when its first task launched)
    pub first: HashMap<u32, f64>,
    /// (job, when its last task so far ended)
    pub last: HashMap<u32, f64>,
    /// Kills decided, and the run time they cost (seconds).
    pub kills: u32,
    pub killed_work: f64,
    pub now: f64,
}

impl Spark {
    pub fn with(executors: usize, slots: u32, cfg: DriverConfig) -> Spark {
        let mut d = Driver::new(cfg, 1).unwrap();
        let nodes = (0..executors).map(|_| (d.add_node(0.0, slots), slots)).collect();
        Spark {
            d,
            nodes,
            running: Vec::new(),
            dur: HashMap::new(),
            requeued: HashMap::new(),
            first: HashMap::new(),
            last: HashMap::new(),
            kills: 0,
            killed_work: 0.0,
            now: 0.0,
        }
    }

    pub fn submit(&mut self, tasks: u32, secs: f64, sig: u64) -> JobId {
        let j = self.d.submit(self.now, tasks, None, Some(secs), sig);
        self.dur.insert(j.0, secs);
        self.first.remove(&j.0); // ids are recycled
        self.requeued.remove(&j.0);
        self.offer();
        j
    }

    fn offer(&mut self) {
        for i in 0..self.nodes.len() {
            let (n, free) = self.nodes[i];
            if free == 0 {
                continue;
            }
            let plan = self.d.offer(self.now, n, free, &[]);
            for j in plan {
                self.nodes[i].1 -= 1;
                self.first.entry(j.0).or_insert(self.now);
                let again = match self.requeued.get_mut(&j.0) {
                    Some(k) if *k > 0 => {
                        *k -= 1;
                        true
                    }
                    _ => false,
                };
                let run =
                    Run { end: self.now + self.dur[&j.0], node: i, job: j, started: self.now, again, killed: false };
                self.running.push(run);
            }
        }
    }

    /// The reviver's tick: asks the engine whether to preempt, and kills what it names.
    fn tick(&mut self) {
        let live: Vec<usize> = (0..self.running.len()).filter(|&i| !self.running[i].killed).collect();
        let attempts: Vec<Attempt> = live
            .iter()
            .map(|&i| {
                let r = &self.running[i];
                Attempt { job: r.job, started: r.started, preempted_before: r.again }
            })
            .collect();
        let killing = self.running.iter().filter(|r| r.killed).count() as u32;
        if let Some(v) = self.d.preempt(self.now, &attempts, killing) {
            let r = &mut self.running[live[v]];
            r.killed = true;
            r.end = self.now + KILL_DELAY;
            self.kills += 1;
            self.killed_work += self.now - r.started;
        }
    }

    /// Runs to `until`, or until `job` has no task running (then returns its end).
    pub fn run(&mut self, until: f64, job: Option<JobId>) -> f64 {
        loop {
            let next_end = self.running.iter().map(|r| r.end).fold(f64::INFINITY, f64::min);
            let tick = ((self.now + 1e-9) / 0.2).floor() * 0.2 + 0.2;
            let t = next_end.min(tick);
            if t > until {
                self.now = until;
                return until;
            }
            self.now = t;
            let ended: Vec<Run> = self.running.iter().copied().filter(|r| r.end <= t).collect();
            self.running.retain(|r| r.end > t);
            for r in &ended {
                self.nodes[r.node].1 += 1;
                let n = self.nodes[r.node].0;
                if r.killed {
                    self.d.task_finished(t, n, r.job, None);
                    *self.requeued.entry(r.job.0).or_insert(0) += 1;
                    let waiting = self.d.engine().job(r.job).map_or(0, |v| v.unlaunched) + 1;
                    self.d.set_pending(t, r.job, waiting);
                } else {
                    self.last.insert(r.job.0, t);
                    self.d.task_finished(t, n, r.job, Some(self.dur[&r.job.0]));
                }
            }
            if ended.is_empty() {
                self.tick();
            }
            self.offer();
            if let Some(job) = job {
                let done = ended.iter().any(|e| e.job == job && !e.killed);
                if done && !self.running.iter().any(|r| r.job == job) && self.pending(job) == 0 {
                    self.d.remove_job(t, job);
                    return t;
                }
            }
        }
    }

    fn pending(&self, job: JobId) -> u32 {
        self.d.engine().job(job).map_or(0, |v| v.unlaunched)
    }
}

/// A long job of three waves of 5 s tasks on `executors` of `slots`; 1.5 s later one user
/// submits 6 small jobs of 2 × 0.1 s, each `think` seconds after the previous one returned.
/// Returns each small job's wait for its first slot, and when the long job ended.
pub fn small_jobs_after_each_other(executors: usize, slots: u32, think: f64, cfg: DriverConfig) -> (Vec<f64>, f64) {
    let (waits, long, _) = small_job_sequence(executors, slots, think, cfg);
    (waits, long)
}

/// [`small_jobs_after_each_other`], with the host at its end (kills, killed work).
pub fn small_job_sequence(executors: usize, slots: u32, think: f64, cfg: DriverConfig) -> (Vec<f64>, f64, Spark) {
    let mut s = Spark::with(executors, slots, cfg);
    let long = s.submit(3 * executors as u32 * slots, 5.0, 1);
    s.run(1.5, None);
    let mut waits = Vec::new();
    for k in 0..6 {
        let submitted = s.now;
        let j = s.submit(2, 0.1, 2);
        let end = s.run(submitted + 100.0, Some(j));
        assert!(end < submitted + 100.0, "small job {k} did not end");
        waits.push(s.first[&j.0] - submitted);
        s.run(end + think, None);
    }
    s.run(200.0, None);
    let end = s.last[&long.0];
    (waits, end, s)
}
