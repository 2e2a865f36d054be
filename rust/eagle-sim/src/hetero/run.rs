//! The heterogeneous replay: a trace whose jobs carry resource demands, on machines
//! of several configurations, under a resource-aware placer (LoTES, Greedy or
//! Tetris, all in `eagle-core`) or, resource-blind, under an engine system.
//!
//! Every task of a job asks for the job's demand. The placer says where and when
//! each task starts; the trace says for how long it runs. At equal times a task end
//! is handled before an arrival (its resources are free for the newcomer), and task
//! ends in the order they were scheduled: the run is a pure function of its inputs.
//!
//! Metrics: the *response time* of a job is the wait from its submission until its
//! first task starts (the paper's metric, §2); the completion time is its last
//! task's end minus its submission, summarized for short and long jobs as in the
//! rest of the simulator.

use crate::error::SimError;
use crate::sim::{self, Observer, SimConfig};
use crate::stats::Summary;
use crate::trace::Trace;
use eagle_core::hetero::resources::Resources;
use eagle_core::hetero::{MachineConfig, Placer, Request, Start};
use eagle_core::{Engine, JobId, NodeId, Time};
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// What a heterogeneous run measured.
#[derive(Clone, Debug)]
pub struct HeteroOutcome {
    /// Per job: first task start − submission.
    pub response: Vec<f64>,
    /// Per job: last task end − submission.
    pub running: Vec<f64>,
    /// Most tasks waiting at once (placers only).
    pub peak_queued: usize,
    pub launches: u64,
}

/// A task end in the heap: (time, sequence) order.
#[derive(PartialEq)]
struct End(f64, u64, u32, u64);
impl Eq for End {}
impl PartialOrd for End {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for End {
    fn cmp(&self, o: &Self) -> Ordering {
        self.0.total_cmp(&o.0).then(self.1.cmp(&o.1))
    }
}

/// Task keys: dense over the trace, job by job.
pub struct Keys {
    first: Vec<u64>,
}

impl Keys {
    pub fn new(trace: &Trace) -> Keys {
        let mut first = Vec::with_capacity(trace.len() + 1);
        let mut k = 0u64;
        for j in 0..trace.len() {
            first.push(k);
            k += trace.job(j).tasks() as u64;
        }
        first.push(k);
        Keys { first }
    }
    pub fn key(&self, job: usize, task: u32) -> u64 {
        self.first[job] + task as u64
    }
    /// (job, task) of a key.
    pub fn split(&self, key: u64) -> (usize, u32) {
        let j = self.first.partition_point(|&f| f <= key) - 1;
        (j, (key - self.first[j]) as u32)
    }
}

/// Replays `trace` with `demands[j]` for every task of job `j` under `placer`.
pub fn run_placer(
    trace: &Trace,
    demands: &[Resources],
    placer: &mut dyn Placer,
    mut on_job_done: impl FnMut(usize),
) -> Result<HeteroOutcome, SimError> {
    let n = trace.len();
    let keys = Keys::new(trace);
    let mut o = HeteroOutcome { response: vec![f64::NAN; n], running: vec![f64::NAN; n], peak_queued: 0, launches: 0 };
    let mut left: Vec<u32> = (0..n).map(|j| trace.job(j).tasks()).collect();
    let mut ends: BinaryHeap<Reverse<End>> = BinaryHeap::new();
    let mut out: Vec<Start> = Vec::new();
    let mut seq = 0u64;
    let mut next = 0usize;
    let mut done = 0usize;
    while done < n {
        let end_first = match (ends.peek(), next < n) {
            (Some(Reverse(e)), true) => e.0 <= trace.submit(next),
            (Some(_), false) => true,
            (None, true) => false,
            (None, false) => {
                return Err(SimError::PlacerStalled { left: n - done, jobs: n, queued: placer.queued() });
            }
        };
        let now;
        if end_first {
            let Reverse(End(t, _, m, key)) = ends.pop().expect("peeked");
            now = t;
            placer.finished(now, m, key, &mut out)?;
            let (j, _) = keys.split(key);
            left[j] -= 1;
            if left[j] == 0 {
                o.running[j] = now - trace.submit(j);
                done += 1;
                on_job_done(done);
            }
        } else {
            now = trace.submit(next);
            let job = trace.job(next);
            for t in 0..job.tasks() {
                let r = Request {
                    key: keys.key(next, t),
                    demand: demands[next].clone(),
                    duration: job.durations[t as usize] as f64,
                };
                placer.arrive(now, r, &mut out).map_err(|cause| SimError::Placement { job: next, cause })?;
            }
            next += 1;
        }
        for s in out.drain(..) {
            let (j, t) = keys.split(s.key);
            if o.response[j].is_nan() {
                o.response[j] = now - trace.submit(j);
            }
            o.launches += 1;
            let d = trace.job(j).durations[t as usize] as f64;
            ends.push(Reverse(End(now + d, seq, s.machine, s.key)));
            seq += 1;
        }
        o.peak_queued = o.peak_queued.max(placer.queued());
    }
    Ok(o)
}

/// Records each job's first launch (response time) during an engine run.
struct FirstStart<'a, F: FnMut(usize)> {
    trace: &'a Trace,
    first: Vec<f64>,
    progress: F,
}

impl<F: FnMut(usize)> Observer for FirstStart<'_, F> {
    fn on_launch(&mut self, _e: &Engine, _now: Time, _node: NodeId, job: JobId, _task: u32, start: Time) {
        let j = job.0 as usize;
        if self.first[j].is_nan() {
            self.first[j] = start - self.trace.submit(j);
        }
    }
    fn on_job_done(&mut self, _now: Time, completed: usize) {
        (self.progress)(completed);
    }
}

/// Runs an engine system resource-blind: one node per machine, one slot per core.
pub fn run_blind(trace: &Trace, cfg: &SimConfig, on_job_done: impl FnMut(usize)) -> Result<HeteroOutcome, SimError> {
    let mut obs = FirstStart { trace, first: vec![f64::NAN; trace.len()], progress: on_job_done };
    let outcome = sim::run_observed(trace, cfg, &mut obs)?;
    Ok(HeteroOutcome {
        response: obs.first,
        running: outcome.running_times,
        peak_queued: 0,
        launches: outcome.launches,
    })
}

/// Slots of each machine for a resource-blind run: `cores × slots_per_core`, at least 1.
pub fn node_slots(configs: &[MachineConfig], cores: usize, slots_per_core: f64) -> Vec<u32> {
    configs
        .iter()
        .flat_map(|c| {
            std::iter::repeat_n(((c.capacity.get(cores) * slots_per_core).round() as u32).max(1), c.count as usize)
        })
        .collect()
}

/// Response-time summary of a run (seconds).
pub fn response(o: &HeteroOutcome) -> Summary {
    let mut v = o.response.clone();
    Summary::of(&mut v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use eagle_core::hetero::greedy::Greedy;

    #[test]
    fn keys_round_trip() {
        let t = Trace::parse("t", "0 2 1 1 1\n1 1 5 5\n2 3 1 1 1 1\n".as_bytes()).unwrap();
        let k = Keys::new(&t);
        for j in 0..3 {
            for task in 0..t.job(j).tasks() {
                assert_eq!(k.split(k.key(j, task)), (j, task));
            }
        }
    }

    #[test]
    fn response_is_the_wait_for_the_first_task() {
        // One machine of 1 core. Job 0: two 10 s tasks of 0.6 cores (serial); job 1
        // at t=1: one 4 s task of 0.5 cores, queued (FCFS) behind job 0's second task,
        // which starts at 10 and leaves too little room: job 1 starts at 20.
        let t = Trace::parse("t", "0 2 10 10 10\n1 1 4 4\n".as_bytes()).unwrap();
        let demands = vec![Resources::new(vec![0.6]), Resources::new(vec![0.5])];
        let mut g = Greedy::new(&[MachineConfig { count: 1, capacity: Resources::new(vec![1.0]) }], 1).unwrap();
        let o = run_placer(&t, &demands, &mut g, |_| {}).unwrap();
        assert_eq!(o.response, vec![0.0, 19.0]);
        assert_eq!(o.running, vec![20.0, 23.0]);
        assert_eq!(o.launches, 3);
    }
}
