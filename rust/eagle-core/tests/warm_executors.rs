//! Warm executors (eagle-adaptive through the Spark façade): the first task of a task set
//! on an executor pays a warm-up (the task binary and broadcasts fetched and deserialised,
//! generated code compiled). TPC-H under a sort (`scripts/bench sort`): eagle ran 555
//! (stage, executor) pairs where FAIR ran 262; a cold task took 1.39 s against 0.77 s warm.
//! Under load a slot should not pay that cost for a task set that drains as fast on the
//! executors it already warmed.
use eagle_core::{Driver, DriverConfig, JobId, NodeId};

fn config() -> DriverConfig {
    DriverConfig { cutoff: Some(100.0), ..DriverConfig::default() }
}

fn driver() -> Driver {
    Driver::new(config(), 1).unwrap()
}

/// Runs a 12-task calibration stage on `nodes` (2 slots each): the first task on each
/// node takes `cold` seconds, the others `warm`. Returns the time after it. A task set of
/// one `warm` task per node runs first: an executor's first tasks of the application pay
/// its own start, and the task set that runs them gives no warm-up sample.
fn calibrate(d: &mut Driver, nodes: &[NodeId], cold: f64, warm: f64) -> f64 {
    let start = d.submit_in(0.0, nodes.len() as u32, None, Some(warm), 8, Some(8));
    for &n in nodes {
        assert_eq!(d.offer(0.0, n, 1, &[]), vec![start]);
    }
    for &n in nodes {
        d.task_finished(warm, n, start, Some(warm));
    }
    d.remove_job(warm, start);
    let mut t = warm;
    let w = d.submit_in(t, 12, None, Some(warm), 9, Some(9));
    for &n in nodes {
        assert_eq!(d.offer(t, n, 2, &[]), vec![w, w]);
    }
    // First wave: both tasks started together on a cold node, so both are cold; then
    // the rest warm.
    t += cold;
    for &n in nodes {
        d.task_finished(t, n, w, Some(cold));
        d.task_finished(t, n, w, Some(cold));
    }
    for &n in nodes {
        assert_eq!(d.offer(t, n, 2, &[]), vec![w, w]);
    }
    t += warm;
    for &n in nodes {
        d.task_finished(t, n, w, Some(warm));
        d.task_finished(t, n, w, Some(warm));
    }
    d.remove_job(t, w);
    t
}

/// A driver with `nodes` executors of 2 slots after [`calibrate`]; returns the time after it.
fn calibrated(nodes: u32, cold: f64, warm: f64) -> (Driver, Vec<NodeId>, f64) {
    calibrated_with(config(), nodes, cold, warm)
}

fn calibrated_with(cfg: DriverConfig, nodes: u32, cold: f64, warm: f64) -> (Driver, Vec<NodeId>, f64) {
    let mut d = Driver::new(cfg, 1).unwrap();
    let ns: Vec<NodeId> = (0..nodes).map(|_| d.add_node(0.0, 2)).collect();
    let t = calibrate(&mut d, &ns, cold, warm);
    (d, ns, t)
}

#[test]
fn the_warm_up_cost_is_measured_from_first_tasks_on_each_executor() {
    let mut d = driver();
    let nodes: Vec<NodeId> = (0..3).map(|_| d.add_node(0.0, 2)).collect();
    assert_eq!(d.warmup_cost(), 0.0, "nothing measured yet");
    calibrate(&mut d, &nodes, 1.5, 0.7);
    let s = d.warmup_cost();
    // Cold completions 1.5 s, warm ones 0.7 s: a warm-up near 0.8 s.
    assert!((s - 0.8).abs() < 0.05, "warm-up {s}");
}

#[test]
fn a_freed_slot_goes_to_a_task_set_warm_there_when_the_first_one_drains_on_its_own() {
    let (mut d, nodes, t) = calibrated(3, 1.5, 0.7);
    let (a, b, c) = (nodes[0], nodes[1], nodes[2]);
    // Four queries: `first` has least work left (6 tasks), the others 16 tasks each.
    let first = d.submit_in(t, 6, None, Some(0.5), 1, Some(1));
    let others: Vec<JobId> = (2..5).map(|g| d.submit_in(t, 16, None, Some(0.5), g, Some(g))).collect();
    assert_eq!(d.offer(t, a, 1, &[]), vec![first], "SRPT first, on a cold executor: nothing runs yet");
    let t = t + 1.3;
    d.task_finished(t, a, first, Some(1.3));
    assert_eq!(d.offer(t, a, 2, &[]), vec![first, first], "warm on a now");
    // `first` now runs 2 tasks on `a` with 3 waiting: 1.5 s of work drains in ~1 s there, a
    // cold start elsewhere costs ~0.8 s of a slot that three waiting queries want.
    let plan = d.offer(t, b, 2, &[]);
    assert!(!plan.contains(&first), "b went to {plan:?}: the first query drains on its warm executor");
    // The second slot of b would be a second cold start for others[0] (warming there):
    // its 0.5 s tasks gain 0.25 s from it now, against 0.4 s to the others.
    assert_eq!(plan, vec![others[0], others[1]], "the next queries by SRPT take b and warm it");
    // A slot of `a` frees: `first` is warm there and first by SRPT.
    d.task_finished(t + 0.5, a, first, Some(0.5));
    assert_eq!(d.offer(t + 0.5, a, 1, &[]), vec![first]);
    // A slot of `b` frees: `first` is still cold there, `others[0]` is warm.
    d.task_finished(t + 1.3, b, others[0], Some(1.3));
    assert_eq!(d.offer(t + 1.3, b, 1, &[]), vec![others[0]]);
    let _ = c;
}

#[test]
fn a_wide_task_set_still_spreads_when_its_own_slots_would_take_long() {
    let (mut d, nodes, t) = calibrated(3, 1.5, 0.7);
    // 40 tasks of 2 s: 80 s of work on 2 warm slots; a cold start costs 0.8 s.
    let wide = d.submit_in(t, 40, None, Some(2.0), 1, Some(1));
    let _other = d.submit_in(t, 40, None, Some(2.0), 2, Some(2));
    assert_eq!(d.offer(t, nodes[0], 2, &[]), vec![wide, wide]);
    assert_eq!(d.offer(t, nodes[1], 2, &[]), vec![wide, wide]);
    assert_eq!(d.offer(t, nodes[2], 2, &[]), vec![wide, wide]);
}

#[test]
fn without_a_measured_warm_up_srpt_order_stands() {
    let mut d = driver();
    let (a, b) = (d.add_node(0.0, 2), d.add_node(0.0, 2));
    let first = d.submit_in(0.0, 6, None, Some(0.5), 1, Some(1));
    let _second = d.submit_in(0.0, 16, None, Some(0.5), 2, Some(2));
    assert_eq!(d.offer(0.0, a, 2, &[]), vec![first, first]);
    assert_eq!(d.offer(0.0, b, 2, &[]), vec![first, first]);
}

#[test]
fn a_slot_no_task_set_should_warm_stays_free_and_is_taken_once_one_can() {
    let mut d = driver();
    let nodes: Vec<NodeId> = (0..2).map(|_| d.add_node(0.0, 2)).collect();
    let t = calibrate(&mut d, &nodes, 1.5, 0.7);
    let (a, b) = (nodes[0], nodes[1]);
    let x = d.submit_in(t, 3, None, Some(0.3), 1, Some(1));
    let y = d.submit_in(t, 3, None, Some(0.3), 2, Some(2));
    // The second slot of a would be x's second cold start there (0.3 s tasks gain 0.15 s
    // from it against 0.2 s to the other query): y, with nothing running, takes it.
    assert_eq!(d.offer(t, a, 2, &[]), vec![x, y]);
    assert_eq!(d.offer(t, a, 0, &[]), vec![]);
    // x and y (2 waiting, 1 running each) both drain faster on their own slots than a cold
    // start costs, and every waiting task set runs somewhere: b stays free rather than
    // paying the warm-up.
    assert_eq!(d.offer(t, b, 2, &[]), vec![]);
    // A new task set with nothing running takes one slot; the other would be its second
    // cold start there: it stays free.
    let z = d.submit_in(t, 2, None, Some(0.3), 3, Some(3));
    assert_eq!(d.offer(t, b, 2, &[]), vec![z]);
    // x's task ends on a: a is warm for x, and its freed slot goes to x.
    d.task_finished(t + 1.0, a, x, Some(1.0));
    assert_eq!(d.offer(t + 1.0, a, 1, &[]), vec![x]);
}

#[test]
fn a_cold_slot_goes_to_a_task_set_that_still_gains_once_no_other_waits() {
    let (mut d, nodes, t) = calibrated(3, 1.5, 0.7);
    let (a, b, c) = (nodes[0], nodes[1], nodes[2]);
    let e = d.add_node(t, 2);
    let x = d.submit_in(t, 6, None, Some(0.5), 1, Some(1));
    let y = d.submit_in(t, 7, None, Some(0.5), 2, Some(2));
    assert_eq!(d.offer(t, a, 2, &[]), vec![x, x]);
    assert_eq!(d.offer(t, b, 2, &[]), vec![y, y]);
    // On c both are cold (8 slots, warm-up 0.8 s: a cold start costs the other 0.1 s).
    // x: 4 waiting x 0.5 s on 2 slots gains (2 - 1.6) / 6 = 0.07 s: no. y: 5 waiting
    // gains (2.5 - 1.6) / 6 = 0.15 s: yes.
    assert_eq!(d.offer(t, c, 1, &[]), vec![y]);
    // On e: x still gains 0.07 s < 0.1 s, y (3 running) would lose: no one passes, and
    // with two task sets waiting, each drains on its warm slots: e stays free.
    assert_eq!(d.offer(t, e, 1, &[]), vec![]);
    // y's last waiting tasks go to its warm b as its tasks there end (x, first by SRPT
    // but cold on b, does not pass).
    for k in 1..=2 {
        let now = t + k as f64 * 0.5;
        d.task_finished(now, b, y, Some(0.5));
        d.task_finished(now, b, y, Some(0.5));
        assert_eq!(d.offer(now, b, 2, &[]), vec![y, y]);
    }
    // Now x waits alone: it still finishes sooner with e, and no one else wants it.
    assert_eq!(d.offer(t + 1.0, e, 1, &[]), vec![x]);
}

#[test]
fn a_cold_start_weighs_every_live_query_not_only_those_waiting() {
    // A warm-up is slot time lost on a busy cluster: every live query ends that much later,
    // including those whose tasks all run. TPC-H under a sort kept ~20 queries live, most
    // of them with nothing waiting at a given moment. The starvation deadlines are set far
    // off: this is about the warm-up alone (`big`, filed when it waited alone, would be
    // overdue after 1 s at `deadline_factor` 1).
    let mut cfg = config();
    cfg.adaptive.deadline_factor = 100.0;
    let (mut d, nodes, t) = calibrated_with(cfg, 3, 1.5, 0.7);
    let (a, b, c) = (nodes[0], nodes[1], nodes[2]);
    let e = d.add_node(t, 2);
    // Four queries each run their last task on c and e: live, nothing waiting.
    let running: Vec<JobId> = (10..14).map(|g| d.submit_in(t, 1, None, Some(0.5), g, Some(g))).collect();
    assert_eq!(d.offer(t, c, 2, &[]), vec![running[0], running[1]]);
    assert_eq!(d.offer(t, e, 2, &[]), vec![running[2], running[3]]);
    // `big` warms b, then `small` (less work left) takes a.
    let big = d.submit_in(t, 16, None, Some(0.5), 2, Some(2));
    assert_eq!(d.offer(t, b, 2, &[]), vec![big, big]);
    let small = d.submit_in(t, 10, None, Some(0.5), 1, Some(1));
    assert_eq!(d.offer(t, a, 1, &[]), vec![small]);
    d.task_finished(t + 1.3, a, small, Some(1.3));
    assert_eq!(d.offer(t + 1.3, a, 2, &[]), vec![small, small]);
    // A slot of b frees. `small` is first by SRPT but cold on b: 7 waiting x 0.5 s on its
    // 2 slots gains (3.5 - 1.6) / 6 = 0.32 s from a cold slot, while the warm-up (0.8 s of
    // one of 8 slots) delays each of the 5 other live queries by 0.1 s: 0.5 s. `big`,
    // warm on b, takes it.
    d.task_finished(t + 1.5, b, big, Some(1.5));
    assert_eq!(d.offer(t + 1.5, b, 1, &[]), vec![big]);
}

#[test]
fn an_overdue_task_set_takes_its_warm_slots_first_but_not_a_cold_start_that_is_not_worth_it() {
    // Overdue task sets went first on every free slot, cold or not: under the TPC-H
    // stream the starved queries then ran each stage on all 8 executors at once
    // (`scripts/bench sort` event log: 5-8 executors per 32-task stage), paying the
    // warm-up on each.
    let (mut d, nodes, t) = calibrated(3, 1.5, 0.7);
    let (a, b) = (nodes[0], nodes[1]);
    let late = d.submit_in(t, 6, None, Some(0.5), 1, Some(1));
    assert_eq!(d.offer(t, a, 2, &[]), vec![late, late]);
    let warm_b = d.submit_in(t, 40, None, Some(0.5), 2, Some(2));
    assert_eq!(d.offer(t, b, 2, &[]), vec![warm_b, warm_b]);
    // Long after its starvation bound, `late` still has 4 tasks waiting. A slot of b
    // frees: a cold start there gains `late` (2 - 1.6) / 6 = 0.07 s against the 0.13 s
    // it costs the other query: b goes to the query warm there.
    let now = t + 60.0;
    d.task_finished(now, b, warm_b, Some(0.5));
    assert_eq!(d.offer(now, b, 1, &[]), vec![warm_b]);
    // A slot of a frees: `late` is warm there and overdue: it goes first.
    d.task_finished(now, a, late, Some(0.5));
    assert_eq!(d.offer(now, a, 1, &[]), vec![late]);
}

/// A driver calibrated to a 2 s warm-up (cold 3 s, warm 1 s) on 3 executors, and a new
/// 8-task short stage submitted after it; returns the time after the calibration.
fn short_stage_after_a_two_second_warm_up() -> (Driver, Vec<NodeId>, f64, JobId) {
    let (mut d, nodes, t) = calibrated(3, 3.0, 1.0);
    let w = d.warmup_cost();
    assert!((w - 2.0).abs() < 0.05, "warm-up {w}");
    let x = d.submit(t, 8, Some(eagle_core::Class::Short), None, 7);
    (d, nodes, t, x)
}

/// A task set's running mean is its *warm* task duration: the first task on each executor
/// pays the measured warm-up, which the warm-executors rule already charges by itself.
/// TPC-H under a sort: a 32-task lineitem scan's first four tasks, all cold,
/// ran 4.6-6.2 s, so its estimate became 5.3 s against about 1 s warm; SRPT then ranked
/// its query behind every other and it waited 210 s for its 5th task.
#[test]
fn the_running_mean_leaves_the_warm_up_out() {
    let (mut d, nodes, t, x) = short_stage_after_a_two_second_warm_up();
    assert_eq!(d.offer(t, nodes[0], 1, &[]), vec![x]);
    d.set_pending(t, x, 7);
    // Only a cold completion so far: its duration less the measured warm-up (below the
    // 1 s it was submitted with; see `cold_completions_alone_never_raise_the_estimate`).
    d.task_finished(t + 2.6, nodes[0], x, Some(2.6));
    let (est, _) = d.job_estimate(x).unwrap();
    assert!((est - 0.6).abs() < 0.1, "cold 2.6 s less a 2 s warm-up, got {est}");
    // Warm completions: their mean.
    assert_eq!(d.offer(t + 2.6, nodes[0], 1, &[]), vec![x]);
    d.set_pending(t + 2.6, x, 6);
    d.task_finished(t + 3.8, nodes[0], x, Some(1.2));
    let (est, _) = d.job_estimate(x).unwrap();
    assert!((est - 1.2).abs() < 1e-9, "the warm mean, got {est}");
    // The history keeps the warm mean too.
    d.remove_job(t + 5.0, x);
    let h = d.history().into_iter().find(|e| e.0 == 7).unwrap();
    assert!((h.1 - 1.2).abs() < 1e-9, "{h:?}");
}

/// Tasks that start on an executor before any task of their task set has ended there are
/// all cold: each pays the warm-up, whichever ends first. TPC-H under a sort
/// (`scripts/bench sort`): where eagle started two tasks of a stage at once on an executor,
/// the second to end took a median 2.1x the stage's warm mean, the first 2.4x. Counting
/// only the first end per executor as cold took 320-371 of the 1,838 query tasks for warm,
/// and put the median warm mean of the query stages at 0.65-0.70 s against 0.53-0.54 s.
#[test]
fn tasks_started_together_on_a_cold_executor_are_all_cold() {
    let (mut d, nodes, t, x) = short_stage_after_a_two_second_warm_up();
    assert_eq!(d.offer(t, nodes[0], 2, &[]), vec![x, x]);
    d.set_pending(t, x, 6);
    d.task_finished(t + 2.4, nodes[0], x, Some(2.4));
    d.task_finished(t + 2.6, nodes[0], x, Some(2.6));
    // Both cold: their mean less the warm-up, not the second one's 2.6 s.
    let (est, _) = d.job_estimate(x).unwrap();
    assert!((est - 0.5).abs() < 1e-9, "two cold tasks (2.5 s) less a 2 s warm-up, got {est}");
    // A task started there after a task ended is warm.
    assert_eq!(d.offer(t + 2.6, nodes[0], 1, &[]), vec![x]);
    d.set_pending(t + 2.6, x, 5);
    d.task_finished(t + 4.2, nodes[0], x, Some(1.0));
    let (est, _) = d.job_estimate(x).unwrap();
    assert!((est - 1.0).abs() < 1e-9, "the warm task, got {est}");
    // A planned launch that Spark declined started nothing: after the one task that did
    // start on nodes[1] ends, the next one there is warm.
    assert_eq!(d.offer(t + 4.2, nodes[1], 2, &[]), vec![x, x]);
    d.decline(t + 4.2, nodes[1], x);
    d.set_pending(t + 4.2, x, 4);
    d.task_finished(t + 7.2, nodes[1], x, Some(3.0));
    assert_eq!(d.offer(t + 7.2, nodes[1], 1, &[]), vec![x]);
    d.task_finished(t + 8.2, nodes[1], x, Some(1.0));
    let (est, _) = d.job_estimate(x).unwrap();
    assert!((est - 1.0).abs() < 1e-9, "two warm tasks of 1 s, got {est}");
    // The task set's sample: cold 2.67 s against warm 1.0 s; with the calibration's 2 s,
    // a median of 1.83 s. Taking only the first end per executor as cold, it would be cold
    // 2.7 s against warm 1.53 s, and 1.58 s.
    d.remove_job(t + 9.0, x);
    let w2 = d.warmup_cost();
    assert!((w2 - 1.83).abs() < 0.02, "warm-up {w2}");
}

/// Until one of its warm tasks ends, a task set's cold completions raise its estimate only
/// gradually: in log space, the estimate it was submitted with counts as two tasks against
/// each cold completion (less the warm-up). Cold completions below it lower it at once.
///
/// Both ways of getting this wrong were measured on TPC-H under a sort:
/// - Taking the cold completions as they are: Q16's 16-task stage ran its first two tasks
///   in 8.8 s each on a saturated executor, took a 7.8 s estimate (its warm tasks later ran
///   0.3-2 s), and launched nothing more for 138 s. An overestimate does not correct itself:
///   SRPT ranks the task set last, it launches nothing, and no warm task ever ends.
/// - Never raising the estimate above the submitted one: the sort's reduce stage came in at
///   the typical task, 0.39 s, and its first wave ran 30 s tasks; held at 0.39 s, a cold
///   start never paid, and the sort ran on 3-4 slots for half a minute beside idle ones.
#[test]
fn cold_completions_alone_raise_the_estimate_only_gradually() {
    let (mut d, nodes, t) = calibrated(3, 1.2, 0.2);
    let x = d.submit(t, 16, None, None, 50);
    assert!((d.job_estimate(x).unwrap().0 - 0.2).abs() < 1e-9, "the typical task");
    assert_eq!(d.offer(t, nodes[0], 2, &[]), vec![x, x]);
    d.set_pending(t, x, 14);
    d.task_finished(t + 8.8, nodes[0], x, Some(8.8));
    d.task_finished(t + 8.8, nodes[0], x, Some(8.8));
    let (est, _) = d.job_estimate(x).unwrap();
    // Two cold tasks of 7.8 s (less the 1 s warm-up) against 0.2 s counted twice:
    // sqrt(0.2 x 7.8) = 1.25 s.
    assert!((est - (0.2f64 * 7.8).sqrt()).abs() < 1e-6, "two slow cold tasks: {est}");
    // The first warm completion is the estimate.
    assert_eq!(d.offer(t + 8.8, nodes[0], 1, &[]), vec![x]);
    d.set_pending(t + 8.8, x, 13);
    d.task_finished(t + 9.3, nodes[0], x, Some(0.5));
    let (est, _) = d.job_estimate(x).unwrap();
    assert!((est - 0.5).abs() < 1e-9, "the warm task, got {est}");
    // Cold completions below the estimate still lower it (less the warm-up, at least a
    // tenth of themselves).
    let y = d.submit(t + 9.3, 16, None, None, 51);
    assert_eq!(d.offer(t + 9.3, nodes[1], 1, &[x]), vec![y]);
    d.set_pending(t + 9.3, y, 15);
    d.task_finished(t + 9.4, nodes[1], y, Some(0.1));
    let (est, _) = d.job_estimate(y).unwrap();
    assert!((est - 0.01).abs() < 1e-9, "a 0.1 s cold task, got {est}");
}

/// A long stage's first wave is all cold: its tasks, many of them, move the estimate most of
/// the way (the sort's reduce stage, above).
#[test]
fn a_wave_of_cold_completions_moves_the_estimate_most_of_the_way() {
    let mut d = driver();
    let nodes: Vec<NodeId> = (0..8).map(|_| d.add_node(0.0, 2)).collect();
    let z = d.submit(0.0, 32, Some(eagle_core::Class::Long), None, 60);
    let (submitted, _) = d.job_estimate(z).unwrap();
    for &n in &nodes {
        assert_eq!(d.offer(0.0, n, 2, &[]), vec![z, z]);
    }
    d.set_pending(0.0, z, 16);
    for &n in &nodes {
        d.task_finished(30.0, n, z, Some(30.0));
        d.task_finished(30.0, n, z, Some(30.0));
    }
    let (est, _) = d.job_estimate(z).unwrap();
    // No warm-up measured: 16 cold tasks of 30 s against the submitted estimate counted
    // twice.
    let expect = ((2.0 * submitted.ln() + 16.0 * 30f64.ln()) / 18.0).exp();
    assert!(submitted < 2.0 && (est - expect).abs() < 1e-6 && est > 15.0, "{submitted} -> {est}");
}

/// A class set from cold completions alone is set once more when the first warm task ends:
/// cold tasks bound the warm ones from above only. `scripts/bench server` on 4 slots: 22 of
/// 111 query stages took the long class from their first (cold) tasks, 14 of them with a
/// final estimate under the cutoff, and their sessions shared the long slots with the ETL.
#[test]
fn a_class_taken_from_cold_tasks_alone_follows_the_first_warm_one() {
    let cfg = DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() };
    let (mut d, nodes, t) = calibrated_with(cfg, 2, 1.2, 0.2);
    let x = d.submit(t, 8, None, None, 50);
    assert_eq!(d.job_class(x), Some(eagle_core::Class::Short), "the typical task is short");
    assert_eq!(d.offer(t, nodes[0], 2, &[]), vec![x, x]);
    d.set_pending(t, x, 6);
    // Two cold tasks of 4 s on a loaded executor: 3 s less the 1 s warm-up, over the cutoff.
    d.task_finished(t + 4.0, nodes[0], x, Some(4.0));
    d.task_finished(t + 4.0, nodes[0], x, Some(4.0));
    assert_eq!(d.job_class(x), Some(eagle_core::Class::Long), "the cold evidence as it is");
    // Its first warm task runs 0.3 s: the class follows it.
    assert_eq!(d.offer(t + 4.0, nodes[1], 1, &[]), vec![x]);
    d.set_pending(t + 4.0, x, 5);
    d.task_finished(t + 5.0, nodes[1], x, Some(1.0));
    assert_eq!(d.job_class(x), Some(eagle_core::Class::Long), "a cold task again");
    assert_eq!(d.offer(t + 5.0, nodes[0], 1, &[]), vec![x]);
    d.set_pending(t + 5.0, x, 4);
    d.task_finished(t + 5.3, nodes[0], x, Some(0.3));
    assert_eq!(d.job_class(x), Some(eagle_core::Class::Short), "the warm task");
    // Then it is settled: a slower warm task moves the estimate over the cutoff, not the class.
    assert_eq!(d.offer(t + 5.3, nodes[0], 1, &[]), vec![x]);
    d.set_pending(t + 5.3, x, 3);
    d.task_finished(t + 8.3, nodes[0], x, Some(3.0));
    assert!(d.job_estimate(x).unwrap().0 > 1.0);
    assert_eq!(d.job_class(x), Some(eagle_core::Class::Short), "no flapping");
}

/// Runs the tasks of `job` one after the other on one slot of `node` from `t`, taking
/// `secs`, then removes it; returns the time after.
fn run_one_by_one(d: &mut Driver, node: NodeId, job: JobId, mut t: f64, secs: &[f64]) -> f64 {
    for &s in secs {
        assert_eq!(d.offer(t, node, 1, &[]), vec![job]);
        t += s;
        d.task_finished(t, node, job, Some(s));
    }
    d.remove_job(t, job);
    t
}

/// Before its first task ends, a task set with no hint or history is estimated at the
/// application's typical warm task (the median over recently ended task sets), not at
/// `defaultEstimateMs`, which only stands until anything is known. TPC-H under a sort:
/// 157 of eagle's 404 (stage, executor) pairs were warmed before the stage's
/// first task ended (FAIR: 11 of 269), since the 1 s default made 16-task stages of 0.2 s
/// tasks look worth three executors' warm-ups.
#[test]
fn a_new_task_set_is_estimated_at_the_applications_typical_warm_task() {
    let (mut d, nodes, mut t) = calibrated(3, 1.2, 0.2);
    // Long task sets do not count: a task set nothing is known about is short.
    let long = d.submit(t, 2, Some(eagle_core::Class::Long), None, 58);
    t = run_one_by_one(&mut d, nodes[1], long, t, &[60.0, 50.0]);
    let fresh = d.submit(t, 4, None, None, 50);
    assert!((d.job_estimate(fresh).unwrap().0 - 0.2).abs() < 1e-9, "the calibration stage's warm mean");
    d.remove_job(t, fresh);
    // A one-task stage has no warm task measured: it does not count.
    let one = d.submit(t, 1, None, Some(5.0), 59);
    t = run_one_by_one(&mut d, nodes[0], one, t, &[5.0]);
    // Three more ended task sets of 0.3 s warm tasks: the median moves to them.
    for sig in 60..63 {
        let j = d.submit(t, 2, None, Some(0.3), sig);
        t = run_one_by_one(&mut d, nodes[0], j, t, &[1.3, 0.3]);
    }
    let next = d.submit(t, 4, Some(eagle_core::Class::Short), None, 51);
    let (est, src) = d.job_estimate(next).unwrap();
    assert!((est - 0.3).abs() < 1e-9, "{est}");
    assert_eq!(src, eagle_core::EstimateSource::Default);
    // The paper's policy keeps `defaultEstimateMs` exactly.
    let mut p = Driver::new(DriverConfig { policy: eagle_core::System::Eagle, ..DriverConfig::default() }, 1).unwrap();
    let n = p.add_node(0.0, 1);
    let j = p.submit(0.0, 1, None, Some(0.2), 70);
    assert_eq!(p.offer(0.0, n, 1, &[]), vec![j]);
    p.task_finished(0.2, n, j, Some(0.2));
    p.remove_job(0.2, j);
    let k = p.submit(1.0, 2, None, None, 71);
    assert_eq!(p.job_estimate(k).unwrap().0, 1.0);
}

/// A planned launch that Spark declines (a locality wait, an excluded executor, a resource
/// profile that does not fit) started nothing there: the executor is neither warm nor
/// warming for the task set, and once the decline is over it is offered the slot like any
/// cold executor. Left "warming since" the declined launch, the task set looked as if its
/// first task there were about to end, so a cold start never paid, and with nothing else
/// waiting the executor stayed idle for good (`tests/test_dds.py`: no task on the idle
/// executor after `dds.maxWaitMs`; `tests/test_lotes_spark.py`: a profile never placed).
#[test]
fn a_declined_launch_leaves_the_executor_cold_not_warming() {
    let (mut d, nodes, t) = calibrated(2, 1.5, 0.7);
    let (a, b) = (nodes[0], nodes[1]);
    let x = d.submit_in(t, 12, None, Some(0.5), 1, Some(1));
    assert_eq!(d.offer(t, a, 2, &[]), vec![x, x]);
    d.set_pending(t, x, 10);
    // b: Spark holds the task set to its preferred executor, a, and declines.
    let plan = d.offer(t, b, 2, &[]);
    assert!(plan.contains(&x), "b went to {plan:?}");
    for _ in &plan {
        d.decline(t, b, x);
    }
    // Three seconds on (a's tasks still running, the locality wait over), b is offered again:
    // x, alone and with ten tasks waiting, still gains from a cold start there.
    let plan = d.offer(t + 3.0, b, 2, &[]);
    assert!(plan.contains(&x), "b stayed idle: {plan:?}");
}

/// A slot that no eligible task set wants stays free only when it would cost the others: a
/// short stream held to its share while long work waits cannot use it, so it goes to the
/// long work even when a cold start there is not worth it at its estimate. TPC-H under a
/// sort: from 90 to 120 s the queries held their 8 of 16
/// slots, the sort's reduce stage (estimated at 0.58 s, running 30 s tasks) held 3-5, and
/// 3-5 slots stayed idle.
#[test]
fn a_slot_the_short_stream_may_not_take_goes_to_waiting_long_work() {
    let (mut d, mut nodes, t0) = calibrated(3, 1.5, 0.7);
    nodes.extend((0..5).map(|_| d.add_node(t0, 2)));
    // The long stage's tasks take 10 s; it is estimated at 0.5 s (a hint here; in Spark the
    // typical task until its first end).
    let mut long = JobId(u32::MAX);
    let mut running: Vec<(f64, NodeId, JobId)> = Vec::new();
    let (mut long_launched, mut idle_while_long_waits, mut slot_steps) = (0u32, 0u32, 0u32);
    for step in 0..2400u32 {
        let t = t0 + step as f64 * 0.05;
        // The long stage arrives once the stream has held the cluster for 30 s.
        if step == 600 {
            long = d.submit(t, 32, Some(eagle_core::Class::Long), Some(0.5), 1);
        }
        let (ended, still): (Vec<_>, Vec<_>) = running.drain(..).partition(|&(end, _, _)| end <= t + 1e-9);
        running = still;
        for (_, n, j) in ended {
            d.task_finished(t, n, j, Some(if j == long { 10.0 } else { 0.5 }));
        }
        // One-task queries of 0.5 s, eight every 0.25 s: all 16 slots' worth.
        if step % 5 == 0 {
            for k in 0..8u64 {
                let id = 1000 + step as u64 * 4 + k;
                d.submit_in(t, 1, None, Some(0.5), id, Some(id));
            }
        }
        for &n in &nodes {
            let free = 2 - running.iter().filter(|r| r.1 == n).count() as u32;
            if free > 0 {
                for j in d.offer(t, n, free, &[]) {
                    if j == long {
                        long_launched += 1;
                    }
                    running.push((t + if j == long { 10.0 } else { 0.5 }, n, j));
                }
            }
        }
        if t > t0 + 31.0 && long_launched < 32 {
            slot_steps += 16;
            idle_while_long_waits += 16 - running.len() as u32;
        }
    }
    assert!(long_launched == 32, "the long stage launched {long_launched} of 32");
    assert!(
        idle_while_long_waits * 20 < slot_steps,
        "{idle_while_long_waits} of {slot_steps} slot-steps idle while the long stage waited"
    );
}

/// A long task set nothing is known about is estimated at the long class's typical warm
/// task, not at the application's typical (query) task. TPC-H under the sort:
/// the sort's reduce stage came in at 0.4 s, so its remaining work looked like 10 s until
/// its 30 s tasks had ended, and the long share's release waited for that.
#[test]
fn a_new_long_task_set_is_estimated_at_the_long_class_typical_task() {
    let (mut d, nodes, mut t) = calibrated(3, 1.2, 0.2);
    let long = d.submit(t, 2, Some(eagle_core::Class::Long), None, 58);
    t = run_one_by_one(&mut d, nodes[1], long, t, &[60.0, 50.0]);
    let next = d.submit(t, 4, Some(eagle_core::Class::Long), None, 80);
    let (est, src) = d.job_estimate(next).unwrap();
    assert!((est - 50.0).abs() < 1e-9, "the long task set's warm mean, not the query's 0.2 s: {est}");
    assert_eq!(src, eagle_core::EstimateSource::Default);
    let short = d.submit(t, 4, Some(eagle_core::Class::Short), None, 81);
    assert!((d.job_estimate(short).unwrap().0 - 0.2).abs() < 1e-9, "a short one keeps the typical task");
}

/// Runs `x`'s first task on `a` to its end while a second query holds `a`'s other slot,
/// then gives `x` its freed (now warm) slot: `x` runs one task on `a`, 4 of 6 wait.
fn one_running_beside_another(d: &mut Driver, a: NodeId, x: JobId, t: f64) -> f64 {
    assert_eq!(d.offer(t, a, 1, &[]), vec![x]);
    let other = d.offer(t, a, 1, &[]);
    assert!(other.len() == 1 && other[0] != x, "a's second slot: {other:?}");
    d.task_finished(t + 1.3, a, x, Some(1.3));
    assert_eq!(d.offer(t + 1.3, a, 1, &[]), vec![x], "warm on a, first by SRPT");
    t + 1.3
}

/// The alternative to a cold start is every slot of the executors the task set warmed, not
/// only its running ones: a slot freed there comes back to it. TPC-H under a sort:
/// eagle widened a query stage to a new executor 248 times against FAIR's 35,
/// 104 of them next to a single running task.
#[test]
fn a_stage_waits_for_the_warm_slot_beside_its_running_task_rather_than_widen() {
    let (mut d, nodes, t) = calibrated(3, 1.5, 0.7);
    let (a, e) = (nodes[0], d.add_node(t, 2));
    // x: 6 tasks of 0.5 s; three 16-task queries behind it (a 0.3 s delay to them per
    // cold start on 8 slots).
    let x = d.submit_in(t, 6, None, Some(0.5), 1, Some(1));
    let others: Vec<JobId> = (2..5).map(|g| d.submit_in(t, 16, None, Some(0.5), g, Some(g))).collect();
    let t = one_running_beside_another(&mut d, a, x, t);
    // On e, x's 4 waiting tasks on its 1 running slot would gain (2 - 0.8) / 2 = 0.6 s from a
    // cold slot; on a's 2 slots, (2 - 1.6) / 6 = 0.07 s: the next query takes e.
    let plan = d.offer(t, e, 1, &[]);
    assert!(!plan.contains(&x), "e went to {plan:?}");
    assert_eq!(plan, vec![others[0]]);
}

/// A slot another job's long task holds does not come back soon: it is not counted.
#[test]
fn a_warm_slot_held_by_a_long_task_does_not_count() {
    let (mut d, nodes, t) = calibrated(3, 1.5, 0.7);
    let (a, e) = (nodes[0], d.add_node(t, 2));
    let long = d.submit(t, 1, Some(eagle_core::Class::Long), Some(30.0), 50);
    let x = d.submit_in(t, 6, None, Some(0.5), 1, Some(1));
    let others: Vec<JobId> = (2..5).map(|g| d.submit_in(t, 16, None, Some(0.5), g, Some(g))).collect();
    assert_eq!(d.offer(t, a, 1, &[]), vec![x]);
    // a's second slot to the long task (the short ones declined there).
    let mut short = others.clone();
    short.push(x);
    assert_eq!(d.offer(t, a, 1, &short), vec![long]);
    d.task_finished(t + 1.3, a, x, Some(1.3));
    assert_eq!(d.offer(t + 1.3, a, 1, &[]), vec![x]);
    assert_eq!(d.offer(t + 1.3, e, 1, &[]), vec![x], "x drains on one slot of a: it widens");
}

/// Data locality (adaptive/warmup.rs), `scripts/bench sort`: with the typical task
/// estimated at 0.1 s, a 32-task stage over blocks cached on all 8 executors ran on 3 of
/// them (20 tasks read their block remotely) and 10 slots stood idle.
#[test]
fn an_idle_executor_holding_a_waiting_tasks_input_takes_it_despite_the_warm_up() {
    for with_input in [false, true] {
        let (mut d, nodes, t) = calibrated(2, 1.5, 0.7);
        let (a, b) = (nodes[0], nodes[1]);
        // 6 tasks of 0.1 s: after 2 start on a, the 0.4 s left are less than a cold start
        // costs two slots, so the rule alone leaves b free.
        let x = d.submit_in(t, 6, None, Some(0.1), 1, Some(1));
        if with_input {
            d.set_input_nodes(x, &[a, a, a, b, b, b]);
        }
        assert_eq!(d.offer(t, a, 2, &[]), vec![x, x]);
        let on_b = d.offer(t, b, 2, &[]);
        if with_input {
            assert_eq!(on_b, vec![x, x], "b holds the input of 3 waiting tasks");
        } else {
            assert_eq!(on_b, vec![], "without locality the warm-up rule keeps b free");
        }
    }
}

#[test]
fn an_executors_input_counts_once_per_task_and_only_for_its_task_set() {
    let (mut d, nodes, t) = calibrated(2, 1.5, 0.7);
    let (a, b) = (nodes[0], nodes[1]);
    let y = d.submit_in(t, 4, None, Some(0.1), 1, Some(1));
    let x = d.submit_in(t, 6, None, Some(0.1), 2, Some(2));
    d.set_input_nodes(x, &[a, a, a, a, a, b]);
    // y (less work: first by SRPT) takes a; x's first task goes to a too.
    assert_eq!(d.offer(t, a, 2, &[]), vec![y, x]);
    // On b, y is cold and not worth it; x holds one input there: one slot. The second
    // would be x's second cold start on b with y waiting: it stays free.
    assert_eq!(d.offer(t, b, 2, &[]), vec![x]);
    // y's input is nowhere: b's last slot is still not worth y.
    assert_eq!(d.offer(t, b, 1, &[]), vec![]);
}

/// A task set that waits with nothing known about it (no hint, no history, no task ended)
/// is estimated at the application's typical warm task as it is *now*, not as it was when
/// the task set came: SRPT compares such task sets by their task counts at one per-task
/// estimate. TPC-H under a sort (`scripts/bench sort`): the first seven
/// queries' stages came while the typical task was 1.11 s (the sort's setup stages) and
/// kept that while it fell to 0.42-0.59 s within ten seconds, so Q6's 32-task scan (37
/// task-seconds in all) looked like 35.5 s of work against 7.3 s for a later query's
/// 16-task stage, and Q6 took 70 s where FAIR took 36 s.
#[test]
fn a_waiting_task_set_nothing_is_known_about_follows_the_typical_task() {
    // SRPT alone decides here: no starvation deadline falls due.
    let adaptive = eagle_core::adaptive::reservation::AdaptiveParams { deadline_factor: 1e6, ..Default::default() };
    let (mut d, nodes, mut t) = calibrated_with(DriverConfig { adaptive, ..config() }, 2, 1.2, 1.0);
    // Submitted at a typical task of 1 s: 8 tasks look like 8 s of work.
    let a = d.submit(t, 8, None, None, 40);
    assert_eq!(d.job_estimate(a).unwrap(), (1.0, eagle_core::EstimateSource::Default));
    // Three task sets of 0.25 s warm tasks end meanwhile, on an executor a may not use.
    let ends_beside = |d: &mut Driver, mut t: f64, sig: u64, warm: f64, others: &[JobId]| {
        let j = d.submit(t, 2, None, Some(warm), sig);
        for s in [1.2, warm] {
            assert_eq!(d.offer(t, nodes[0], 1, others), vec![j]);
            t += s;
            d.task_finished(t, nodes[0], j, Some(s));
        }
        d.remove_job(t, j);
        t
    };
    for sig in 41..44 {
        t = ends_beside(&mut d, t, sig, 0.25, &[a]);
    }
    let (est, src) = d.job_estimate(a).unwrap();
    assert!((est - 0.25).abs() < 1e-9, "a follows the typical task: {est}");
    assert_eq!(src, eagle_core::EstimateSource::Default);
    // So a (8 x 0.25 = 2 s) goes before a task set of 16 tasks of 0.25 s (4 s), where at
    // its stale 1 s a would have looked like 8 s.
    let b = d.submit(t, 16, None, Some(0.25), 45);
    assert_eq!(d.offer(t, nodes[1], 1, &[]), vec![a]);
    // Once a task of its own ends, the running mean takes over as before.
    t += 0.6;
    d.task_finished(t, nodes[1], a, Some(0.6));
    let (_, src) = d.job_estimate(a).unwrap();
    assert_eq!(src, eagle_core::EstimateSource::RunningMean);
    for sig in 46..50 {
        t = ends_beside(&mut d, t, sig, 2.0, &[a, b]);
    }
    let (est, _) = d.job_estimate(a).unwrap();
    assert!(est < 1.0, "a's own evidence stands, not the typical: {est}");
    // b came with a hint: it keeps it.
    assert_eq!(d.job_estimate(b).unwrap(), (0.25, eagle_core::EstimateSource::Hint));
}

/// The sort alone on the testbed (`scripts/bench sort --sort-alone-only`): its
/// reduce stage came in at the typical long task, 4.6 s, and its tasks ran 27-40 s. A slot
/// that freed beside one of them (the short reservation shrank to zero) stayed idle until
/// that task ended 27 s later, with nothing else on the cluster: by the estimate the task
/// there was about to end and make the executor warm. A task past its estimate is expected
/// to run as long again as it has overrun.
#[test]
fn a_slot_beside_a_task_past_its_estimate_is_taken_when_nothing_else_waits() {
    let (mut d, nodes, t) = calibrated(1, 1.5, 0.7);
    let a = nodes[0];
    let x = d.submit_in(t, 4, None, Some(1.0), 1, Some(1));
    assert_eq!(d.offer(t, a, 1, &[]), vec![x]);
    // Within the estimate plus the warm-up the second slot waits for the first task to end.
    assert_eq!(d.offer(t + 1.2, a, 1, &[]), vec![]);
    // 5 s in, the task has overrun its 1.8 s (estimate and warm-up) by 3.2 s.
    assert_eq!(d.offer(t + 5.0, a, 1, &[]), vec![x]);
}

/// A stage whose estimate is far too low (no hint, no history: the typical task of an
/// application that ran small queries, tens of ms) started on one executor; the other
/// executor, cold for it, idles. By the estimate its tasks are about to end and leave their
/// warm slots to the two waiting, so a cold start is not worth the warm-up. Once they have
/// run past the estimate and the warm-up by more than a warm-up, with nothing else on the
/// cluster, the estimate is shown low and the cold executor is taken: before, it idled the
/// whole first wave (`tests/test_streaming.py`, after a continuous query stopped: 4 tasks of
/// 3 s ran 2 at a time on local-cluster[2,2,1024], 6 s where stock Spark takes 3 s).
#[test]
fn a_cold_executor_is_taken_once_the_running_tasks_overrun_a_low_estimate() {
    let (mut d, nodes, t) = calibrated(2, 1.5, 0.7);
    let (a, b) = (nodes[0], nodes[1]);
    let x = d.submit_in(t, 4, None, Some(0.035), 1, Some(1));
    assert_eq!(d.offer(t, a, 2, &[]), vec![x, x]);
    // Within the estimate and the warm-up, b waits: the warm slots are due to free.
    assert_eq!(d.offer(t + 0.5, b, 2, &[]), vec![]);
    // 3 s in, the tasks on a have overrun 0.835 s (estimate and warm-up) by 2.2 s.
    assert_eq!(d.offer(t + 3.0, b, 2, &[]), vec![x, x]);
}

/// With another query live the overrun does not count (under load tasks overrun from
/// sharing the cores, and the slot has a use elsewhere): the cold executor goes to it.
#[test]
fn an_overrun_does_not_widen_a_stage_while_another_query_can_use_the_slot() {
    let (mut d, nodes, t) = calibrated(2, 1.5, 0.7);
    let (a, b) = (nodes[0], nodes[1]);
    let x = d.submit_in(t, 4, None, Some(0.035), 1, Some(1));
    assert_eq!(d.offer(t, a, 2, &[]), vec![x, x]);
    let y = d.submit_in(t + 0.1, 8, None, Some(0.5), 2, Some(2));
    assert_eq!(d.offer(t + 3.0, b, 2, &[]), vec![y, y]);
}
