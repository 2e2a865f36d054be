//! Eirene (CCDM + SATC) driven through the simulator, on random small traces, under
//! `eagle` and `eagle-adaptive`:
//!
//! - every task completes exactly once from its job's point of view (one counted copy
//!   end per task; every other copy is cancelled), and every job completes;
//! - no clone is launched while some task of its job has not started;
//! - at most one clone per task, and only of a task that is running;
//! - every clone is either won or wasted once the run is over;
//! - a seed fixes the outcome.
//!
//! And two small directed cases: SATC cuts a straggler's job short in an idle
//! cluster; CCDM shortens queued work in an overloaded one.

use eagle_core::eirene::EireneParams;
use eagle_core::rng::Rng;
use eagle_core::{Engine, JobId, NodeId, System, Time};
use eagle_sim::sim::{self, Observer, SimConfig};
use eagle_sim::trace::{Family, Trace};

/// Bursty arrivals of short jobs with stragglers, and some long jobs.
fn random_trace(rng: &mut Rng) -> String {
    let jobs = 1 + rng.below(30);
    let mut t = rng.below(50) as f64;
    let mut s = String::new();
    for _ in 0..jobs {
        if rng.below(3) > 0 {
            t += (rng.below(400) as f64) / 10.0;
        }
        let tasks = 1 + if rng.below(5) == 0 { rng.below(30) } else { rng.below(6) };
        let long = rng.below(6) == 0;
        let base = 1 + rng.below(30) as u32;
        let durs: Vec<u32> = (0..tasks)
            .map(|_| match (long, rng.below(8)) {
                (true, _) => 100 + rng.below(300) as u32,
                (false, 0) => base * (2 + rng.below(3) as u32), // a straggler
                (false, 1) => 0,
                _ => base,
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

#[derive(Default)]
struct Checker {
    tasks: Vec<u32>,
    launched: Vec<Vec<bool>>,
    completed: Vec<Vec<u32>>,
    clones: Vec<Vec<u32>>,
    copy_ends: u64,
    clone_launches: u64,
    violations: Vec<String>,
}

impl Observer for Checker {
    fn on_launch(&mut self, _e: &Engine, now: Time, _node: NodeId, job: JobId, task: u32, _start: Time) {
        let seen = &mut self.launched[job.0 as usize];
        if seen[task as usize] {
            self.violations.push(format!("t={now}: job {} task {task} launched twice", job.0));
        }
        seen[task as usize] = true;
    }
    fn on_clone(&mut self, e: &Engine, now: Time, _node: NodeId, job: JobId, task: u32) {
        let j = job.0 as usize;
        self.clone_launches += 1;
        if !self.launched[j].iter().all(|&b| b) || e.job(job).is_some_and(|v| v.unlaunched > 0) {
            self.violations
                .push(format!("t={now}: clone of job {j} task {task} while a task of the job has not started"));
        }
        if !self.launched[j][task as usize] || self.completed[j][task as usize] > 0 {
            self.violations.push(format!("t={now}: clone of job {j} task {task}, which is not running"));
        }
        self.clones[j][task as usize] += 1;
        if self.clones[j][task as usize] > 1 {
            self.violations.push(format!("t={now}: job {j} task {task} cloned twice"));
        }
    }
    fn on_copy_end(&mut self, _e: &Engine, now: Time, _node: NodeId, job: JobId, task: u32, counted: bool) {
        self.copy_ends += 1;
        if counted {
            let c = &mut self.completed[job.0 as usize][task as usize];
            *c += 1;
            if *c > 1 {
                self.violations.push(format!("t={now}: job {} task {task} completed twice", job.0));
            }
        }
    }
}

fn check(system: System, cases: u64) {
    let mut total_clones = 0;
    let mut total_helped = 0;
    for case in 0..cases {
        let seed = 7000 + 100 * (system as u64) + case;
        let mut rng = Rng::new(seed);
        let text = random_trace(&mut rng);
        let trace = Trace::parse("random.tr", text.as_bytes()).unwrap();
        let mut cfg = SimConfig::for_family(system, 2 + rng.below(40) as u32, Family::Yahoo);
        cfg.seed = seed;
        cfg.slots = [1, 1, 1, 2][rng.below(4)];
        cfg.eirene = EireneParams {
            satc: rng.below(4) > 0,
            ccdm: rng.below(4) > 0,
            cm: 1 + rng.below(4) as u32,
            mpp: rng.below(4) as u32,
            dmt: [0.0, 2.0, 6.42][rng.below(3)],
        };
        if !cfg.eirene.on() {
            cfg.eirene.satc = true;
        }
        let mut chk = Checker {
            tasks: trace.jobs().map(|j| j.tasks()).collect(),
            launched: trace.jobs().map(|j| vec![false; j.tasks() as usize]).collect(),
            completed: trace.jobs().map(|j| vec![0; j.tasks() as usize]).collect(),
            clones: trace.jobs().map(|j| vec![0; j.tasks() as usize]).collect(),
            ..Checker::default()
        };
        let ctx = || format!("system {system}, case seed {seed}, {cfg:?}\ntrace:\n{text}");
        let out = sim::run_observed(&trace, &cfg, &mut chk).unwrap_or_else(|e| panic!("run failed: {e}\n{}", ctx()));
        assert!(chk.violations.is_empty(), "{}\n{}", chk.violations[..chk.violations.len().min(10)].join("\n"), ctx());
        for j in 0..trace.len() {
            assert!(chk.launched[j].iter().all(|&b| b), "job {j}: not every task launched\n{}", ctx());
            assert!(chk.completed[j].iter().all(|&c| c == 1), "job {j}: completions {:?}\n{}", chk.completed[j], ctx());
            assert!(!out.running_times[j].is_nan(), "job {j} never completed\n{}", ctx());
            assert_eq!(chk.completed[j].len() as u32, chk.tasks[j]);
        }
        let e = out.counters.eirene.clone().unwrap_or_default();
        assert_eq!(e.clones_launched, chk.clone_launches, "{}", ctx());
        assert_eq!(e.clones_launched, e.clones_won + e.clones_wasted, "every clone won or was wasted\n{}", ctx());
        // Every copy ends once, except cancelled ones whose end falls after the run's last
        // completion (the run stops there).
        let copies = trace.tasks() as u64 + chk.clone_launches;
        assert!(chk.copy_ends <= copies, "a copy ended twice\n{}", ctx());
        assert!(copies - chk.copy_ends <= chk.clone_launches, "a primary never ended\n{}", ctx());
        if !cfg.eirene.satc {
            assert_eq!(e.clones_launched, 0);
        }
        if !cfg.eirene.ccdm {
            assert_eq!((e.ccdm_helped, e.migrations), (0, 0));
        }
        total_clones += e.clones_launched;
        total_helped += e.ccdm_helped;
        let again = sim::run(&trace, &cfg).unwrap();
        assert_eq!(
            (out.running_times.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), &out.counters, out.events),
            (again.running_times.iter().map(|x| x.to_bits()).collect::<Vec<_>>(), &again.counters, again.events),
            "nondeterministic\n{}",
            ctx()
        );
    }
    // The random cases exercise both schemes, not only their bookkeeping.
    assert!(total_clones > 0 && total_helped > 0, "clones {total_clones}, helped {total_helped}");
}

#[test]
fn eagle_with_eirene_properties() {
    check(System::Eagle, 150);
}

#[test]
fn eagle_adaptive_with_eirene_properties() {
    check(System::EagleAdaptive, 150);
}

fn run(system: System, text: &str, nodes: u32, seed: u64, eirene: EireneParams) -> sim::Outcome {
    let trace = Trace::parse("t.tr", text.as_bytes()).unwrap();
    let mut cfg = SimConfig::for_family(system, nodes, Family::Yahoo);
    cfg.seed = seed;
    cfg.eirene = eirene;
    sim::run(&trace, &cfg).unwrap()
}

#[test]
fn satc_cuts_a_stragglers_job_in_an_idle_cluster() {
    // Nine 10 s tasks and one 200 s straggler on 100 idle nodes: the straggler's clone
    // runs as a random task of the job, most often 10 s.
    let text = "0 10 29 10 10 10 10 10 10 10 10 10 200\n";
    let satc = EireneParams { satc: true, ..EireneParams::default() };
    for system in [System::Eagle, System::EagleAdaptive] {
        let mut better = 0;
        for seed in 1..=10 {
            let base = run(system, text, 100, seed, EireneParams::default());
            let with = run(system, text, 100, seed, satc.clone());
            assert!(base.running_times[0] >= 200.0);
            assert!(with.running_times[0] <= base.running_times[0], "{system} seed {seed}: a clone never delays");
            let e = with.counters.eirene.unwrap();
            assert!(e.clones_launched >= 1, "{system}: every task is cloned in an idle cluster");
            if with.running_times[0] < 100.0 {
                better += 1;
                assert!(e.clones_won >= 1);
            }
        }
        assert!(better >= 6, "{system}: the clone won in {better} of 10 seeds");
    }
}

#[test]
fn ccdm_shortens_queued_work_under_overload() {
    // Forty 4-task short jobs of 20 s tasks at once on 4 nodes: probes wait long enough
    // for their inputs to migrate, so later tasks run DMT shorter.
    let mut text = String::new();
    for i in 0..40 {
        text.push_str(&format!("{} 4 20 20 20 20 20\n", i as f64 * 0.1));
    }
    let ccdm = EireneParams { ccdm: true, ..EireneParams::default() };
    let base = run(System::Eagle, &text, 4, 1, EireneParams::default());
    let with = run(System::Eagle, &text, 4, 1, ccdm);
    let e = with.counters.eirene.unwrap();
    assert!(e.ccdm_helped > 40, "helped {}", e.ccdm_helped);
    assert!(with.makespan_end < base.makespan_end - 100.0, "{} vs {}", with.makespan_end, base.makespan_end);
    assert!(with.short.p50.unwrap() < base.short.p50.unwrap());
}
