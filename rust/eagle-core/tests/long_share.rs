//! The adaptive policy's long share against a *finished* burst of short work: the share
//! holds while short units (queries, Spark jobs) keep arriving, or while the backlog
//! would bypass more than `starvation_factor` (5) times the long work left; otherwise the
//! backlog drains first.
use eagle_core::{Class, Driver, DriverConfig, JobId, NodeId};
use std::collections::HashMap;

/// One executor of `slots` slots on a virtual clock ticking 0.05 s.
struct Bench {
    d: Driver,
    n: NodeId,
    slots: u32,
    /// Task duration of each job, seconds.
    dur: HashMap<JobId, f64>,
    running: Vec<(f64, JobId)>,
    /// Per job: tasks still to end.
    left: HashMap<JobId, u32>,
}

impl Bench {
    fn new(slots: u32) -> Bench {
        let cfg = DriverConfig { cutoff: Some(5.0), ..DriverConfig::default() };
        let mut d = Driver::new(cfg, 1).unwrap();
        let n = d.add_node(0.0, slots);
        Bench { d, n, slots, dur: HashMap::new(), running: Vec::new(), left: HashMap::new() }
    }

    fn submit(&mut self, t: f64, tasks: u32, class: Class, secs: f64, sig: u64, group: Option<u64>) -> JobId {
        let j = self.d.submit_in(t, tasks, Some(class), Some(secs), sig, group);
        self.dur.insert(j, secs);
        self.left.insert(j, tasks);
        j
    }

    /// Ends the tasks due by `t` and fills the free slots; returns the jobs that ended.
    fn tick(&mut self, t: f64) -> Vec<JobId> {
        let (due, still): (Vec<_>, Vec<_>) = self.running.drain(..).partition(|&(end, _)| end <= t + 1e-9);
        self.running = still;
        let mut ended = Vec::new();
        for (_, j) in due {
            self.d.task_finished(t, self.n, j, Some(self.dur[&j]));
            let left = self.left.get_mut(&j).unwrap();
            *left -= 1;
            if *left == 0 {
                self.d.remove_job(t, j);
                ended.push(j);
            }
        }
        let free = self.slots - self.running.len() as u32;
        if free > 0 {
            for j in self.d.offer(t, self.n, free, &[]) {
                self.running.push((t + self.dur[&j], j));
            }
        }
        ended
    }

    fn running_of(&self, pred: impl Fn(JobId) -> bool) -> usize {
        self.running.iter().filter(|r| pred(r.1)).count()
    }
}

/// TPC-H under a sort (`scripts/bench sort`): 22 queries arrive in 33 s and
/// then none; the sort ends at the makespan whether it holds half the slots or none, so
/// the share only held the queries back (query p90 206 s with it, 152 s without). Ten
/// two-stage queries arrive in the first 10 s beside a long job bigger than all of them;
/// a window after the last arrival, the queries take every slot the long job frees.
#[test]
fn a_finished_burst_of_queries_drains_ahead_of_a_long_job_that_ends_after_it_anyway() {
    let mut b = Bench::new(8);
    let long = b.submit(0.0, 160, Class::Long, 10.0, 1, Some(1));
    let mut second_stage: HashMap<JobId, u64> = HashMap::new();
    let mut queries_done = Vec::new();
    let (mut long_end, mut short_after, mut ticks_after) = (None, 0usize, 0usize);
    for step in 0..12_000u32 {
        let t = step as f64 * 0.05;
        // Query q (group 100 + q) arrives at q s: a stage of 40 two-second tasks, then one
        // of 20 when it ends (the same group: not a new arrival).
        if step % 20 == 0 && (1..=10).contains(&(step / 20)) {
            let g = 100 + (step / 20) as u64;
            let j = b.submit(t, 40, Class::Short, 2.0, 10, Some(g));
            second_stage.insert(j, g);
        }
        for j in b.tick(t) {
            if j == long {
                long_end = Some(t);
            } else if let Some(g) = second_stage.remove(&j) {
                b.submit(t, 20, Class::Short, 2.0, 11, Some(g));
                b.tick(t);
            } else {
                queries_done.push(t);
            }
        }
        // A window (60 s) after the last arrival, plus one long task's length.
        if t >= 80.0 && queries_done.len() < 10 {
            short_after += b.running_of(|j| j != long);
            ticks_after += 1;
        }
    }
    assert_eq!(queries_done.len(), 10);
    let long_end = long_end.expect("the long job ended");
    // Long work alone could not end before the makespan: (1600 + 1200) / 8 = 350 s.
    assert!(long_end <= 350.0 + 40.0, "the long job ended at {long_end} s");
    let mean = short_after as f64 / ticks_after.max(1) as f64;
    assert!(mean >= 6.5, "the finished burst held {mean:.2} of 8 slots on average");
    let last = queries_done.iter().cloned().fold(0.0, f64::max);
    // Held to half the slots the queries would end near 10 + 1200 / 4 = 310 s.
    assert!(last <= 250.0, "the last query ended at {last} s");
}

/// The other half of the rule: a small long job behind a finished burst still gets its
/// share, because the backlog (800 slot-s when it arrives) is over five times its work.
#[test]
fn a_small_long_job_behind_a_finished_burst_keeps_its_share() {
    let mut b = Bench::new(8);
    let mut long = None;
    let mut long_end = None;
    for step in 0..12_000u32 {
        let t = step as f64 * 0.05;
        if step % 20 == 0 && (1..=10).contains(&(step / 20)) {
            b.submit(t, 80, Class::Short, 2.0, 10, Some(100 + (step / 20) as u64));
        }
        if step == 2000 {
            long = Some(b.submit(t, 8, Class::Long, 10.0, 1, Some(1)));
        }
        for j in b.tick(t) {
            if Some(j) == long {
                long_end = Some(t);
            }
        }
    }
    let end = long_end.expect("the long job ended");
    // Half the slots: two waves of 10 s after a short task frees its slot. Without the
    // share it would wait for the backlog (1600 slot-s, 200 s of the executor).
    assert!(end <= 100.0 + 40.0, "the long job (arrived at 100 s) ended at {end} s");
}
