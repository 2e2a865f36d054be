//! Property tests over random small traces, for every system, driving the real
//! engine through the simulator:
//!
//! - every task of every job launches exactly once (launch indices 0..ntasks,
//!   none twice) and ends exactly once;
//! - every job completes, no earlier than its submission plus its longest task;
//! - under Eagle, on single-slot nodes, no short task starts on a node running a
//!   long task, and the engine counts no short probe queued behind long work
//!   (`probes_behind_long == 0`, `short_tasks_after_hol == 0`).
//!
//!   "No *queued* long task either" (`NodeView::queued_long == 0` at a short
//!   launch) is NOT a property of Eagle and is not checked: LWL places long tasks
//!   on nodes regardless of the short probes they hold, appending them behind;
//!   with Sticky Batch Probing the short probe ahead keeps launching its job's
//!   tasks while the long entry waits behind it. The reference does the same
//!   (`find_workers_long_job_prio` ignores probes; `add_probe` appends; SBP keeps
//!   the probe at its position). The real invariant is checked on the queue order
//!   (`Engine::queue`): when a cluster has a short-only partition, no short task
//!   launches from a probe that has long work ahead of it;
//! - under Eagle, queues never hold probes of a job that has completed;
//! - a seed fixes the outcome.
//!
//! The random traces come from a tiny generator on `eagle_core::rng` (no
//! property-testing crate): a failing case prints its seed and its trace.

use eagle_core::rng::Rng;
use eagle_core::{Class, Engine, JobId, NodeId, System, Time};
use eagle_sim::sim::{self, Estimate, Observer, SimConfig};
use eagle_sim::trace::{Family, Trace};

/// A random trace: bursts of simultaneous submissions, a mix of short and long
/// jobs (cutoff 90.5811), jobs wider than the cluster, zero-length tasks.
fn random_trace(rng: &mut Rng) -> String {
    let jobs = 1 + rng.below(40);
    let mut t = rng.below(100) as f64;
    let mut s = String::new();
    for _ in 0..jobs {
        if rng.below(3) > 0 {
            t += (rng.below(2000) as f64) / 10.0;
        }
        let tasks = 1 + if rng.below(5) == 0 { rng.below(40) } else { rng.below(6) };
        let long = rng.below(4) == 0;
        let durs: Vec<u32> = (0..tasks)
            .map(|_| {
                if long {
                    60 + rng.below(400) as u32
                } else if rng.below(10) == 0 {
                    0
                } else {
                    rng.below(80) as u32
                }
            })
            .collect();
        let mean = durs.iter().map(|&d| d as f64).sum::<f64>() / tasks as f64;
        s.push_str(&format!("{t} {tasks} {mean}"));
        for d in durs {
            s.push_str(&format!(" {d}"));
        }
        s.push('\n');
    }
    s
}

/// Checks the invariants as the run goes.
struct Checker {
    system: System,
    /// Whether the cluster has a short-only partition (SSS can always place).
    short_partition: bool,
    tasks: Vec<u32>,
    launched: Vec<Vec<bool>>,
    ended: Vec<u32>,
    violations: Vec<String>,
}

impl Observer for Checker {
    fn on_launch(&mut self, engine: &Engine, now: Time, node: NodeId, job: JobId, task: u32, start: Time) {
        let j = job.0 as usize;
        let seen = &mut self.launched[j];
        if task as usize >= seen.len() || seen[task as usize] {
            self.violations.push(format!("t={now}: job {j} task {task} launched twice or out of range"));
            return;
        }
        seen[task as usize] = true;
        if start < now {
            self.violations.push(format!("t={now}: job {j} task {task} starts in the past ({start})"));
        }
        if self.system == System::Eagle {
            let class = engine.job(job).map(|v| v.class);
            let v = engine.node(node).expect("launch on a known node");
            if class == Some(Class::Short) && v.slots == 1 && v.running_long > 0 {
                self.violations.push(format!(
                    "t={now}: short job {j} task {task} launched on node {} running a long task ({v:?})",
                    node.0
                ));
            }
            if class == Some(Class::Short) && self.short_partition {
                let ahead: Vec<(JobId, bool)> = engine.queue(node).take_while(|(q, _)| *q != job).collect();
                if ahead.iter().any(|(_, long)| *long) {
                    self.violations.push(format!(
                        "t={now}: short job {j} task {task} launched on node {} from a probe behind long work {ahead:?}",
                        node.0
                    ));
                }
            }
        }
        if self.system == System::EagleAdaptive && engine.job(job).map(|v| v.class) == Some(Class::Long) {
            // The adaptive guarantee: long work never takes the reserved slots.
            let total = engine.total_slots();
            let long: u64 =
                (0..total as u32).filter_map(|i| engine.node(NodeId(i))).map(|v| v.running_long as u64).sum();
            let r = engine.reservation().expect("adaptive sizes a reservation") as u64;
            if long + r > total {
                self.violations
                    .push(format!("t={now}: long launch with {long} long running and {r} reserved of {total}"));
            }
        }
    }
    fn on_task_end(&mut self, engine: &Engine, now: Time, _node: NodeId, job: JobId) {
        let j = job.0 as usize;
        self.ended[j] += 1;
        if self.ended[j] > self.tasks[j] {
            self.violations.push(format!("t={now}: job {j} has more task ends than tasks"));
        }
        if self.system == System::Eagle && self.ended[j] == self.tasks[j] {
            for n in 0..engine.total_slots() as u32 {
                if engine.queue(NodeId(n)).any(|(q, _)| q == job) {
                    self.violations.push(format!("t={now}: node {n} still queues a probe of completed job {j}"));
                }
            }
        }
    }
}

fn config(system: System, rng: &mut Rng, seed: u64) -> SimConfig {
    let mut cfg = SimConfig::for_family(system, 1 + rng.below(30) as u32, Family::Yahoo);
    cfg.seed = seed;
    cfg.slots = [1, 1, 1, 2, 3][rng.below(5)];
    if rng.below(3) == 0 && system != System::Sparrow {
        cfg.big_partition_pct = [80.0, 90.0, 100.0][rng.below(3)];
    }
    if system == System::Eagle && rng.below(4) > 0 {
        // Mostly clusters with a short-only partition (Eagle's premise).
        cfg.nodes = 10 + rng.below(30) as u32;
        cfg.big_partition_pct = [80.0, 90.0][rng.below(2)];
    }
    cfg.estimate = match rng.below(4) {
        0 => Estimate::Under(0.5),
        1 => Estimate::Over(1.5),
        _ => Estimate::Mean,
    };
    cfg.heartbeat = [8.0, 1.0, 0.5][rng.below(3)];
    cfg
}

fn check_system(system: System, cases: u64) {
    for case in 0..cases {
        let seed = 1000 * (system as u64 + 1) + case;
        let mut rng = Rng::new(seed);
        let text = random_trace(&mut rng);
        let trace = Trace::parse("random.tr", text.as_bytes()).unwrap();
        let cfg = config(system, &mut rng, seed);
        let mut chk = Checker {
            system,
            short_partition: cfg.big_partition_pct < 100.0
                && ((100.0 - cfg.big_partition_pct) * cfg.nodes as f64 / 100.0).floor() >= 1.0,
            tasks: trace.jobs().map(|j| j.tasks()).collect(),
            launched: trace.jobs().map(|j| vec![false; j.tasks() as usize]).collect(),
            ended: vec![0; trace.len()],
            violations: Vec::new(),
        };
        let ctx = || format!("system {system}, case seed {seed}, {cfg:?}\ntrace:\n{text}");
        let out = match sim::run_observed(&trace, &cfg, &mut chk) {
            Ok(o) => o,
            Err(e) => panic!("run failed: {e}\n{}", ctx()),
        };
        assert!(chk.violations.is_empty(), "{}\n{}", chk.violations[..chk.violations.len().min(10)].join("\n"), ctx());
        for (j, job) in trace.jobs().enumerate() {
            assert!(chk.launched[j].iter().all(|&b| b), "job {j}: not every task launched\n{}", ctx());
            assert_eq!(chk.ended[j], job.tasks(), "job {j}: task ends\n{}", ctx());
            let longest = *job.durations.iter().max().unwrap() as f64;
            let rt = out.running_times[j];
            assert!(rt >= longest, "job {j}: running time {rt} < longest task {longest}\n{}", ctx());
        }
        assert_eq!(out.short.count + out.long.count, trace.len());
        assert_eq!(out.launches as usize, trace.tasks());
        // Without a short-only partition, probes that SSS rejected everywhere have
        // nowhere clean to fall back to: then they may queue behind long work.
        let short_only = ((100.0 - cfg.big_partition_pct) * cfg.nodes as f64 / 100.0).floor();
        if system == System::Eagle && short_only >= 1.0 {
            assert_eq!(out.counters.probes_behind_long, 0, "{}", ctx());
            assert_eq!(out.counters.short_tasks_after_hol, 0, "{}", ctx());
        }
        // Same seed, same outcome.
        let again = sim::run(&trace, &cfg).unwrap();
        assert_eq!(
            (out.running_times.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), &out.counters, out.events),
            (again.running_times.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), &again.counters, again.events),
            "nondeterministic\n{}",
            ctx()
        );
    }
}

#[test]
fn sparrow_properties() {
    check_system(System::Sparrow, 150);
}
#[test]
fn hawk_properties() {
    check_system(System::Hawk, 150);
}
#[test]
fn eagle_properties() {
    check_system(System::Eagle, 150);
}
#[test]
fn dlwl_properties() {
    check_system(System::Dlwl, 150);
}
#[test]
fn eagle_adaptive_properties() {
    check_system(System::EagleAdaptive, 150);
}
#[test]
fn clwl_properties() {
    check_system(System::Clwl, 150);
}
