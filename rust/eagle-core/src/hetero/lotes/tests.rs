//! LoTES end to end: the hand-solved dispatcher example, re-planning, and the
//! property that no placer ever starts a task where it does not fit.

use super::*;
use crate::hetero::greedy::Greedy;
use crate::hetero::resources::Resources;
use crate::hetero::tetris::Tetris;
use crate::hetero::{Placer, Request, Start};
use crate::rng::Rng;

fn res(v: &[f64]) -> Resources {
    Resources::new(v.to_vec())
}

fn req(key: u64, d: &[f64]) -> Request {
    Request { key, demand: res(d), duration: 1.0 }
}

/// A: 2 machines (1 core, 1 mem); B: 1 machine (1 core, 4 mem). Class 0 (0.5, 0.5)
/// and class 1 (0.5, 2), half the arrivals each, 1 s.
///
/// By hand: class 1 fits only B. Fluid: λ/2 ≤ x_A0 + x_B0, λ/2 ≤ x_B1, x_A0 ≤ 4,
/// x_B0 + x_B1 ≤ 2, 0.5 x_B0 + 2 x_B1 ≤ 4; optimum x_B1 = 2, x_B0 = 0, λ* = 4. So
/// K^A = {0}, K^B = {1}; the bins are {2 × class 0} on A and {2 × class 1} on B.
fn two_by_two() -> (Vec<MachineConfig>, Classes) {
    let cfgs = vec![
        MachineConfig { count: 2, capacity: res(&[1.0, 1.0]) },
        MachineConfig { count: 1, capacity: res(&[1.0, 4.0]) },
    ];
    let classes = Classes::given(
        vec![
            Class { demand: res(&[0.5, 0.5]), share: 0.5, mean_duration: 1.0 },
            Class { demand: res(&[0.5, 2.0]), share: 0.5, mean_duration: 1.0 },
        ],
        &[1.0, 4.0],
    );
    (cfgs, classes)
}

#[test]
fn hand_solved_plan() {
    let (cfgs, classes) = two_by_two();
    let l = Lotes::with_given_classes(&cfgs, classes, LotesParams::default(), 1).unwrap();
    let p = l.plan();
    assert!((p.fluid.lambda - 4.0).abs() < 1e-6, "{:?}", p.fluid);
    assert_eq!(p.bins, vec![vec![vec![2, 0]], vec![vec![0, 2]]]);
    assert_eq!(p.assignment.machines, vec![vec![2], vec![1]]);
    assert!((p.assignment.lambda_rounded - 4.0).abs() < 1e-6);
    assert_eq!(p.share, vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
    assert_eq!(p.serves, vec![vec![true, false], vec![false, true]]);
}

#[test]
fn dispatcher_follows_the_bins_then_falls_back_then_queues_by_class() {
    let (cfgs, classes) = two_by_two();
    let mut l = Lotes::with_given_classes(&cfgs, classes, LotesParams::default(), 1).unwrap();
    let mut out = vec![];
    let small = [0.5, 0.5];
    let big = [0.5, 2.0];
    l.arrive(0.0, req(1, &big), &mut out).unwrap(); // B (machine 2)
    for key in 2..=5 {
        l.arrive(0.0, req(key, &small), &mut out).unwrap(); // A, spread by score: 0, 1, 0, 1
    }
    let machines: Vec<u32> = out.iter().map(|s| s.machine).collect();
    assert_eq!(machines, vec![2, 0, 1, 0, 1]);
    out.clear();
    l.arrive(0.0, req(6, &small), &mut out).unwrap(); // A full: falls back to B
    assert_eq!(out, vec![Start { key: 6, machine: 2 }]);
    out.clear();
    l.arrive(0.0, req(7, &big), &mut out).unwrap(); // queued in class 1
    l.arrive(0.0, req(8, &small), &mut out).unwrap(); // queued in class 0
    assert!(out.is_empty());
    assert_eq!((l.queue_len(0), l.queue_len(1), l.queued()), (1, 1, 2));
    // B frees a class-0 slot: B serves only class 1 by plan, so the class-1 task starts.
    l.finished(1.0, 2, 6, &mut out).unwrap();
    assert_eq!(out, vec![Start { key: 7, machine: 2 }]);
    out.clear();
    l.finished(1.0, 0, 2, &mut out).unwrap();
    assert_eq!(out, vec![Start { key: 8, machine: 0 }]);
    assert_eq!(l.queued(), 0);
}

#[test]
fn a_planned_machine_keeps_its_room_for_the_planned_class() {
    let (cfgs, classes) = two_by_two();
    let mut l = Lotes::with_given_classes(&cfgs, classes, LotesParams::default(), 1).unwrap();
    let mut out = vec![];
    for key in 1..=4 {
        l.arrive(0.0, req(key, &[0.5, 0.5]), &mut out).unwrap(); // fills A
    }
    l.arrive(0.0, req(5, &[0.5, 2.0]), &mut out).unwrap(); // B
    l.arrive(0.0, req(6, &[0.5, 0.5]), &mut out).unwrap(); // B (fallback)
    l.arrive(0.0, req(7, &[0.5, 0.5]), &mut out).unwrap(); // queued, class 0
    out.clear();
    // B's class-1 task ends: B serves class 0 only when idle; it is not idle (task 6).
    l.finished(1.0, 2, 5, &mut out).unwrap();
    assert!(out.is_empty(), "B idles its room for class 1: {out:?}");
    // Task 6 ends too: B is idle, and an idle machine takes any task.
    l.finished(1.0, 2, 6, &mut out).unwrap();
    assert_eq!(out, vec![Start { key: 7, machine: 2 }]);
}

#[test]
fn replans_when_the_class_mix_drifts() {
    let (cfgs, _) = two_by_two();
    // Trained on 90 % small tasks; then only big ones arrive.
    let training: Vec<Sample> = (0..100)
        .map(|i| Sample { demand: if i % 10 == 0 { res(&[0.5, 2.0]) } else { res(&[0.5, 0.5]) }, duration: 1.0 })
        .collect();
    let params = LotesParams { classes: 2, window: 20, drift: 0.2 };
    let mut l = Lotes::new(&cfgs, &training, params, 3).unwrap();
    let before: Vec<f64> = l.plan().classes.classes.iter().map(|c| c.share).collect();
    assert!(before.iter().any(|&s| (s - 0.9).abs() < 1e-9));
    let mut out = vec![];
    for key in 0..19 {
        l.arrive(key as f64, req(key, &[0.5, 2.0]), &mut out).unwrap();
    }
    assert_eq!(l.replans(), 0, "not before the window is full");
    l.arrive(19.0, req(19, &[0.5, 2.0]), &mut out).unwrap();
    assert_eq!(l.replans(), 1);
    // The window had one class only: one class, all the arrivals.
    let after: Vec<f64> = l.plan().classes.classes.iter().map(|c| c.share).collect();
    assert_eq!(after, vec![1.0]);
    // Queued tasks were re-classified: every queue entry is in the one class's queue.
    assert_eq!(l.queue_len(0), l.queued());
    // A stable mix does not re-plan.
    for key in 20..40 {
        l.arrive(key as f64, req(key, &[0.5, 2.0]), &mut out).unwrap();
    }
    assert_eq!(l.replans(), 1);
}

#[test]
fn replans_when_machines_join() {
    let (cfgs, classes) = two_by_two();
    let mut l = Lotes::with_given_classes(&cfgs, classes, LotesParams::default(), 1).unwrap();
    let mut out = vec![];
    l.arrive(0.0, req(1, &[0.5, 0.5]), &mut out).unwrap();
    l.add_machines(MachineConfig { count: 3, capacity: res(&[1.0, 4.0]) }).unwrap();
    assert_eq!((l.replans(), l.pool().len()), (1, 6));
    assert_eq!(l.plan().serves.len(), 3);
    assert!(l.plan().fluid.lambda > 4.0 + 1e-6, "more machines, more capacity: {:?}", l.plan().fluid);
    // The running task is still accounted for on machine 0.
    l.finished(1.0, out[0].machine, 1, &mut out).unwrap();
    assert_eq!(l.pool().running(), 0);
}

/// Random clusters and random arrivals and completions: after every decision, each
/// machine's running demands fit its capacity (checked here independently of the
/// pool), and in the end every task has started exactly once.
#[test]
fn no_placer_starts_a_task_where_it_does_not_fit() {
    for seed in 0..60u64 {
        let mut rng = Rng::new(seed);
        let dims = 1 + rng.below(3);
        let cfgs: Vec<MachineConfig> = (0..1 + rng.below(4))
            .map(|_| MachineConfig {
                count: 1 + rng.below(4) as u32,
                capacity: Resources::new((0..dims).map(|_| 0.25 + 0.75 * rng.unit()).collect()),
            })
            .collect();
        let cap_min: Vec<f64> =
            (0..dims).map(|l| cfgs.iter().map(|c| c.capacity.get(l)).fold(f64::INFINITY, f64::min)).collect();
        let tasks: Vec<Request> = (0..300u64)
            .map(|key| Request {
                key,
                demand: Resources::new(
                    (0..dims).map(|l| cap_min[l] * (0.02 + 0.6 * rng.unit() * rng.unit())).collect(),
                ),
                duration: 1.0 + 100.0 * rng.unit(),
            })
            .collect();
        let training: Vec<Sample> =
            tasks[..60].iter().map(|r| Sample { demand: r.demand.clone(), duration: r.duration }).collect();
        let placers: Vec<(&str, Box<dyn Placer>)> = vec![
            (
                "lotes",
                Box::new(
                    Lotes::new(&cfgs, &training, LotesParams { classes: 3, window: 50, drift: 0.05 }, seed).unwrap(),
                ),
            ),
            ("greedy", Box::new(Greedy::new(&cfgs, seed).unwrap())),
            ("tetris", Box::new(Tetris::new(&cfgs).unwrap())),
        ];
        for (name, mut p) in placers {
            let mut used: Vec<Resources> = vec![Resources::zero(dims); p.pool().len()];
            let mut running: Vec<(u32, u64)> = Vec::new();
            let mut started = vec![0u32; tasks.len()];
            let mut out = vec![];
            let mut next = 0usize;
            let mut step = 0.0;
            while next < tasks.len() || !running.is_empty() {
                step += 1.0;
                if next < tasks.len() && (running.is_empty() || rng.below(3) > 0) {
                    p.arrive(step, tasks[next].clone(), &mut out).unwrap();
                    next += 1;
                } else {
                    let (m, key) = running.swap_remove(rng.below(running.len()));
                    used[m as usize].sub(&tasks[key as usize].demand);
                    p.finished(step, m, key, &mut out).unwrap();
                }
                for s in out.drain(..) {
                    let m = s.machine as usize;
                    used[m].add(&tasks[s.key as usize].demand);
                    assert!(
                        used[m].fits_in(&p.pool().machine(s.machine).capacity),
                        "{name} seed {seed}: machine {m} holds {:?} > {:?}",
                        used[m],
                        p.pool().machine(s.machine).capacity
                    );
                    started[s.key as usize] += 1;
                    running.push((s.machine, s.key));
                }
            }
            assert!(started.iter().all(|&n| n == 1), "{name} seed {seed}: starts {started:?}");
            assert_eq!(p.queued(), 0);
        }
    }
}
