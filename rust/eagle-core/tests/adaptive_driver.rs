//! eagle-adaptive through the Spark façade ([`Driver`]): the learned split, settled
//! classes, the reservation and query-aware SRPT, on a virtual clock.
mod common;

use common::{small_jobs_after_each_other, Spark};
use eagle_core::{Class, Driver, DriverConfig, JobId, NodeId, System};

fn driver() -> Driver {
    Driver::new(DriverConfig::default(), 1).unwrap()
}

#[test]
fn a_split_is_learned_from_hints_and_the_big_job_becomes_long() {
    let mut d = driver();
    let n = d.add_node(0.0, 4);
    // A warm-up stage without hints: short by default, its mean is learned at its end.
    let w = d.submit(0.0, 4, None, None, 1);
    let plan = d.offer(0.0, n, 4, &[]);
    assert_eq!(plan, vec![w; 4]);
    for _ in 0..4 {
        d.task_finished(5.0, n, w, Some(5.0));
    }
    d.remove_job(5.0, w);
    assert_eq!(d.cutoff(), None, "one class so far");
    let big = d.submit(6.0, 16, None, Some(2.0), 2);
    assert_eq!(d.offer(6.0, n, 4, &[]), vec![big; 4]);
    assert_eq!(d.job_class(big), Some(Class::Short), "no split known yet");
    let small = d.submit(7.0, 2, None, Some(0.1), 3);
    assert_eq!(d.cutoff(), None, "one small task set is not a class yet");
    let small2 = d.submit(7.0, 2, None, Some(0.1), 3);
    let c = d.cutoff().expect("two of each make two classes");
    let _ = small2;
    assert!(c > 0.1 && c < 2.0, "{c}");
    assert_eq!(d.job_class(small), Some(Class::Short));
    d.task_finished(8.0, n, big, Some(2.0));
    assert_eq!(d.job_class(big), Some(Class::Long), "reclassified once a cutoff is known");
    // The freed slot goes to the small job (least remaining work).
    assert_eq!(d.offer(8.0, n, 1, &[]), vec![small]);
}

#[test]
fn paper_policy_keeps_its_fixed_cutoff() {
    let cfg = DriverConfig { policy: System::Eagle, ..DriverConfig::default() };
    let d = Driver::new(cfg, 1).unwrap();
    assert_eq!(d.cutoff(), Some(10.0));
    assert_eq!(d.reservation(), None);
}

#[test]
fn query_aware_srpt_ranks_by_the_groups_remaining_work() {
    let mut d = driver();
    let n = d.add_node(0.0, 1);
    // Two stages of equal size now; query A has a big stage still to come.
    let a = d.submit_in(0.0, 4, None, Some(1.0), 10, Some(100));
    let b = d.submit_in(0.0, 4, None, Some(1.0), 11, Some(200));
    d.set_group_future(100, &[(12, 50)]);
    assert_eq!(d.offer(0.0, n, 1, &[]), vec![b], "query B has less work left in total");
    let _ = (a, JobId(0), NodeId(0));
}

#[test]
fn the_split_is_learned_once_the_second_class_has_two_task_sets() {
    let mut d = driver();
    let a = d.add_node(0.0, 2);
    let b = d.add_node(0.0, 2);
    let w = d.submit_in(17.0, 4, None, None, 1, Some(0));
    d.offer(17.0, a, 2, &[]);
    d.offer(17.0, b, 2, &[]);
    for n in [a, a, b, b] {
        d.task_finished(20.5, n, w, Some(3.5));
    }
    d.remove_job(20.6, w);
    let big = d.submit_in(20.7, 16, None, Some(2.0), 2, Some(2));
    d.set_group_future(2, &[]);
    d.offer(20.7, a, 2, &[]);
    d.offer(20.7, b, 2, &[]);
    let _small = d.submit_in(21.7, 2, None, Some(0.1), 3, Some(4));
    let _small2 = d.submit_in(22.7, 2, None, Some(0.1), 3, Some(6));
    assert!(d.cutoff().is_some(), "learned at the second small job's submission");
    let _ = big;
}

/// One job of `mid_tasks` 50 ms tasks at 0 s in a stream of one-task jobs that keeps every
/// one of 4 slots busy (four 10 ms-estimate jobs every 50 ms), under `deadline_factor`.
/// Returns when the last of the job's tasks launched, or panics with how many had by 10 s.
fn mid_job_in_a_saturating_stream(mid_tasks: u32, deadline_factor: f64) -> f64 {
    let mut cfg = DriverConfig { cutoff: Some(10.0), ..DriverConfig::default() };
    cfg.adaptive.deadline_factor = deadline_factor;
    let mut d = Driver::new(cfg, 1).unwrap();
    let n = d.add_node(0.0, 4);
    let mid = d.submit(0.0, mid_tasks, None, Some(0.05), 1);
    let mut running: Vec<JobId> = Vec::new();
    let mut mid_launched = 0;
    let mut t = 0.0;
    for step in 0..200u64 {
        t = step as f64 * 0.05;
        for j in running.drain(..) {
            d.task_finished(t, n, j, Some(0.05));
        }
        for k in 0..4 {
            d.submit(t, 1, None, Some(0.01), 100 + step * 4 + k);
        }
        let plan = d.offer(t, n, 4, &[]);
        mid_launched += plan.iter().filter(|&&j| j == mid).count() as u32;
        running.extend(plan);
        if mid_launched == mid_tasks {
            return t;
        }
    }
    panic!("only {mid_launched} of {mid_tasks} tasks launched by {t} s")
}

/// A short job of a dozen tasks in a stream of one-task jobs that keeps every slot busy:
/// SRPT always prefers the one-task jobs, so only the starvation bound serves it. The
/// bound is per job, not per task: once the job is overdue its waiting tasks go first at
/// full width, instead of one task per bound (a dozen seconds for a dozen tasks).
#[test]
fn an_overdue_job_is_served_at_full_width_not_one_task_per_bound() {
    let at = mid_job_in_a_saturating_stream(12, 5.0);
    // Its bound, filed when it waited alone: 5 × 12 × 50 ms / 4 slots = 0.75 s, floored
    // at 1 s. One task per bound would take ~12 s.
    assert!(at <= 3.0, "the overdue job's tasks all launched by {at} s (bound 1 s plus a few 50 ms rounds)");
    assert!(at >= 0.9, "before its bound SRPT prefers the one-task jobs (all launched at {at} s)");
}

/// Once overdue, a job stays overdue until none of its tasks wait. Each launch re-files
/// the job, and its fair time counts the jobs waiting beside it *then*: with the stream's
/// jobs queued, the deadline moved from 2.5 s to ~12 s after its first overdue task, so
/// a 40-task job got one task per deadline (before the fix: 1 of 40 launched by 10 s;
/// replay ratio 1.2 seed 2, a 27-task job got 1-3 tasks at a time for 5 s).
#[test]
fn an_overdue_job_keeps_its_deadline_until_none_of_its_tasks_wait() {
    let at = mid_job_in_a_saturating_stream(40, 5.0);
    // Filed alone: 5 × 40 × 50 ms / 4 slots = 2.5 s.
    assert!(at <= 5.0, "the 40-task job's tasks all launched by {at} s (deadline 2.5 s)");
    assert!(at >= 2.0, "before its deadline SRPT prefers the one-task jobs (all launched at {at} s)");
}

/// `deadline_factor` moves the deadline: at 1 the job goes first once fair sharing would
/// have served it (here the 1 s floor), at 5 later.
#[test]
fn a_lower_deadline_factor_serves_a_bypassed_job_sooner() {
    let (at1, at5) = (mid_job_in_a_saturating_stream(40, 1.0), mid_job_in_a_saturating_stream(40, 5.0));
    assert!(at1 + 1.0 <= at5, "factor 1: all launched at {at1} s; factor 5: at {at5} s");
    assert!(at1 >= 0.9, "the 1 s floor holds (all launched at {at1} s)");
}

/// Sustained overload (TPC-H under a sort, `scripts/bench sort`): every job waits longer
/// than `starvation_factor ×` its own ideal time, so a bound that ignores the load makes
/// every job overdue and the policy serves them earliest-ready first, i.e. round robin:
/// SRPT is lost exactly when it matters. The bound must scale with the jobs sharing the
/// cluster (what fair sharing would give the job), so small jobs keep going first.
#[test]
fn under_sustained_overload_small_jobs_keep_srpt_order() {
    let cfg = DriverConfig { cutoff: Some(10.0), ..DriverConfig::default() };
    let mut d = Driver::new(cfg, 1).unwrap();
    let n = d.add_node(0.0, 4);
    // Each second: a big job (8 one-second tasks) and a small one (1 task). Arrivals bring
    // 9 task-seconds per second to 4 slots for 30 s: the backlog grows to ~150 s.
    // Job ids are recycled after remove_job, so jobs are tracked by submission index.
    let mut running: Vec<(f64, JobId)> = Vec::new();
    let mut submitted: Vec<(f64, bool)> = Vec::new(); // at, small
    let mut done: Vec<Option<f64>> = Vec::new();
    let mut live: std::collections::HashMap<JobId, (usize, u32)> = Default::default();
    for step in 0..4000u32 {
        let t = step as f64 * 0.05;
        let (ended, still): (Vec<_>, Vec<_>) = running.drain(..).partition(|&(end, _)| end <= t + 1e-9);
        running = still;
        for (_, j) in ended {
            d.task_finished(t, n, j, Some(1.0));
            let e = live.get_mut(&j).unwrap();
            e.1 -= 1;
            if e.1 == 0 {
                done[e.0] = Some(t);
                live.remove(&j);
                d.remove_job(t, j);
            }
        }
        if step % 20 == 0 && t < 30.0 {
            for (tasks, small) in [(8, false), (1, true)] {
                let j = d.submit(t, tasks, None, Some(1.0), 1000 + step as u64 * 2 + small as u64);
                live.insert(j, (submitted.len(), tasks));
                submitted.push((t, small));
                done.push(None);
            }
        }
        let free = 4 - running.len() as u32;
        if free > 0 {
            for j in d.offer(t, n, free, &[]) {
                running.push((t + 1.0, j));
            }
        }
    }
    assert!(
        done.iter().all(|d| d.is_some()),
        "every job completes: {} of {}",
        done.iter().flatten().count(),
        done.len()
    );
    let lat = |small: bool| {
        let v: Vec<f64> =
            submitted.iter().zip(&done).filter(|(s, _)| s.1 == small).map(|(s, d)| d.unwrap() - s.0).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    let (small, big) = (lat(true), lat(false));
    assert!(
        small <= 5.0,
        "small jobs' mean latency {small:.1} s (SRPT serves them within a few seconds; big jobs' mean {big:.1} s)"
    );
    assert!(big > 4.0 * small, "big jobs wait for the small ones: big {big:.1} s, small {small:.1} s");
}

/// The other side of a load-scaled starvation bound: a long job behind a short stream that
/// alone fills the cluster (a sort under a TPC-H stream) never turns overdue, because its
/// fair time grows with the queue. While long work waits, short work holds at most
/// `1 − long_share` of the slots, so the long job keeps its share and ends in bounded time.
#[test]
fn a_long_job_keeps_its_share_under_a_short_stream_that_fills_the_cluster() {
    let cfg = DriverConfig { cutoff: Some(5.0), ..DriverConfig::default() };
    let mut d = Driver::new(cfg, 1).unwrap();
    let n = d.add_node(0.0, 8);
    let long = d.submit(0.0, 32, Some(Class::Long), Some(10.0), 1);
    let mut running: Vec<(f64, JobId)> = Vec::new();
    let (mut long_done, mut long_end, mut short_launches, mut long_launched) = (0, None, 0, 0);
    let mut max_short_running_while_long_waits = 0;
    for step in 0..8000u32 {
        let t = step as f64 * 0.05;
        let (ended, still): (Vec<_>, Vec<_>) = running.drain(..).partition(|&(end, _)| end <= t + 1e-9);
        running = still;
        for (_, j) in ended {
            d.task_finished(t, n, j, Some(if j == long { 10.0 } else { 0.5 }));
            if j == long {
                long_done += 1;
                if long_done == 32 {
                    long_end = Some(t);
                }
            }
        }
        // One-task jobs of 0.5 s every 0.25 s: two at a time (4 slots' worth) before 20 s,
        // then four at a time (all 8 slots' worth) until 200 s.
        let per_step = match step % 5 {
            0 if (20.0..200.0).contains(&t) => 4,
            0 => 2,
            _ => 0,
        };
        for k in 0..per_step {
            d.submit(t, 1, Some(Class::Short), Some(0.5), 10_000 + step as u64 * 8 + k as u64);
        }
        let free = 8 - running.len() as u32;
        if free > 0 {
            for j in d.offer(t, n, free, &[]) {
                if j != long {
                    short_launches += 1;
                } else {
                    long_launched += 1;
                }
                running.push((t + if j == long { 10.0 } else { 0.5 }, j));
            }
        }
        if long_launched < 32 && t > 25.0 {
            let short_running = running.iter().filter(|r| r.1 != long).count();
            max_short_running_while_long_waits = max_short_running_while_long_waits.max(short_running);
        }
    }
    let end = long_end.unwrap_or_else(|| panic!("the long job finished {long_done} of 32 tasks by 400 s"));
    // Alone: 4 waves of 10 s on 8 slots = 40 s. With half the slots: ~80 s plus the start.
    assert!(end <= 120.0, "the long job ended at {end} s (half of 8 slots: ~80 s)");
    assert!(
        max_short_running_while_long_waits <= 4,
        "short work held {max_short_running_while_long_waits} of 8 slots while long work waited"
    );
    assert!(short_launches > 2000, "the short stream still ran: {short_launches} launches");
}

/// The long share holds against a *sustained* short stream only: a burst of short work
/// (one wide short job now and then, the replay's 410-task jobs) still takes every slot
/// while long work waits, as Eagle's short jobs do, because short work has not held
/// `1 − long_share` of the slots on average over the window.
#[test]
fn a_short_burst_still_takes_every_slot_while_long_work_waits() {
    let cfg = DriverConfig { cutoff: Some(5.0), ..DriverConfig::default() };
    let mut d = Driver::new(cfg, 1).unwrap();
    let n = d.add_node(0.0, 8);
    let long = d.submit(0.0, 400, Some(Class::Long), Some(10.0), 1);
    let mut running: Vec<(f64, JobId)> = Vec::new();
    let mut burst = None;
    let mut burst_max_width = 0;
    for step in 0..2000u32 {
        let t = step as f64 * 0.05;
        running.retain(|&(end, j)| {
            if end <= t + 1e-9 {
                d.task_finished(t, n, j, Some(if j == long { 10.0 } else { 0.5 }));
                false
            } else {
                true
            }
        });
        // A few one-task short jobs (1 slot's worth on average), and at 40 s a burst of 64.
        if step % 10 == 0 {
            d.submit(t, 1, Some(Class::Short), Some(0.5), 10_000 + step as u64);
        }
        if step == 800 {
            burst = Some(d.submit(t, 64, Some(Class::Short), Some(0.5), 2));
        }
        let free = 8 - running.len() as u32;
        if free > 0 {
            for j in d.offer(t, n, free, &[]) {
                running.push((t + if j == long { 10.0 } else { 0.5 }, j));
            }
        }
        if let Some(b) = burst {
            burst_max_width = burst_max_width.max(running.iter().filter(|r| r.1 == b).count());
        }
    }
    assert!(burst_max_width >= 7, "the burst ran at most {burst_max_width} wide on 8 slots while long work waited");
}

/// A `job.class` hint names the class, not the duration: with no estimate hint and no
/// history, the estimate still follows the task set's running mean (docs/guide/hints.md:
/// hint, history, running mean, default), so SRPT ranks hinted task sets by their
/// real work. It used to freeze at `defaultEstimateMs`, ranking them by task count alone.
#[test]
fn a_class_hint_alone_leaves_the_estimate_to_the_running_mean() {
    let mut d = driver();
    let n = d.add_node(0.0, 2);
    // Both hinted short, no estimates: `a` has more tasks, but they are 50x shorter.
    let a = d.submit(0.0, 8, Some(Class::Short), None, 1);
    let b = d.submit(0.0, 3, Some(Class::Short), None, 2);
    assert_eq!(d.offer(0.0, n, 1, &[]), vec![b], "fewer tasks at the same default estimate");
    assert_eq!(d.offer(0.0, n, 1, &[b]), vec![a]);
    d.set_pending(0.0, a, 7);
    d.set_pending(0.0, b, 2);
    d.task_finished(0.1, n, a, Some(0.1));
    d.task_finished(5.0, n, b, Some(5.0));
    let (est_a, src_a) = d.job_estimate(a).unwrap();
    assert_eq!(src_a, eagle_core::EstimateSource::RunningMean);
    assert!((est_a - 0.1).abs() < 1e-9, "{est_a}");
    // b's one completion is cold: it raises the estimate only part of the way (the 1 s
    // default counts as two tasks against it, in log space). A warm one sets it.
    let est_b = d.job_estimate(b).unwrap().0;
    assert!((est_b - 5f64.powf(1.0 / 3.0)).abs() < 1e-9, "{est_b}");
    assert_eq!(d.offer(5.0, n, 1, &[a]), vec![b]);
    d.set_pending(5.0, b, 1);
    d.task_finished(10.0, n, b, Some(5.0));
    assert_eq!(d.job_estimate(b).unwrap().0, 5.0);
    assert_eq!(d.job_class(b), Some(Class::Short), "the hinted class stays");
    // Remaining work: a 7 x 0.1 s = 0.7 s, b 1 x 5 s = 5 s.
    assert_eq!(d.offer(10.0, n, 1, &[]), vec![a], "the least remaining work, not the fewest tasks");
}

/// Class affinity ([`eagle_core::adaptive::affinity`]): TPC-H under a sort ran one
/// query task next to one sort task on most executors for the whole stream, so every
/// query stage spread over twice the executors (each first task cold) and the sort's
/// tasks shared their heaps with the queries' churn. With a batch job filling 8
/// two-slot executors and a short stream that wants more than its share, the split
/// stays 8/8 (one slot lent at most) and the executors end up running one class each.
#[test]
fn a_short_stream_beside_a_batch_job_ends_on_executors_of_its_own() {
    let mut d = driver();
    let nodes: Vec<NodeId> = (0..8).map(|_| d.add_node(0.0, 2)).collect();
    let batch = d.submit(0.0, 2000, Some(Class::Long), Some(6.0), 1);
    let mut running: Vec<(f64, NodeId, JobId)> = Vec::new();
    let (mut launched, mut next_id) = (0u64, 100u64);
    let (mut samples, mut mixed, mut short_slots, mut long_slots) = (0u32, 0u32, 0u32, 0u32);
    for step in 0..2400u32 {
        let t = step as f64 * 0.05;
        // As Spark does: a task end offers its executor's free slot at once; new work is
        // offered every executor's free slots, in a turning order.
        let mut offer = |d: &mut Driver, running: &mut Vec<(f64, NodeId, JobId)>, n: NodeId| {
            let free = 2 - running.iter().filter(|r| r.1 == n).count() as u32;
            for j in d.offer(t, n, free, &[]) {
                // The batch's tasks run 5-9 s, so their ends are spread out.
                let len = if j == batch {
                    launched += 1;
                    5.0 + (launched % 5) as f64
                } else {
                    0.5
                };
                running.push((t + len, n, j));
            }
        };
        running.sort_by(|a, b| a.0.total_cmp(&b.0));
        while running.first().is_some_and(|r| r.0 <= t + 1e-9) {
            let (_, n, j) = running.remove(0);
            d.task_finished(t, n, j, Some(if j == batch { 6.0 } else { 0.5 }));
            offer(&mut d, &mut running, n);
        }
        // From 3 s on, one-task queries of 0.5 s, six every 0.25 s: 12 slots' worth.
        if step >= 60 && step % 5 == 0 {
            for _ in 0..6 {
                next_id += 1;
                d.submit_in(t, 1, Some(Class::Short), Some(0.5), next_id, Some(next_id));
            }
        }
        for k in 0..nodes.len() {
            offer(&mut d, &mut running, nodes[(k + step as usize) % nodes.len()]);
        }
        if t >= 40.0 {
            samples += 1;
            for &n in &nodes {
                let here: Vec<bool> = running.iter().filter(|r| r.1 == n).map(|r| r.2 == batch).collect();
                mixed += (here.contains(&true) && here.contains(&false)) as u32;
            }
            long_slots += running.iter().filter(|r| r.2 == batch).count() as u32;
            short_slots += running.iter().filter(|r| r.2 != batch).count() as u32;
        }
    }
    let per = |x: u32| x as f64 / samples as f64;
    assert!(per(long_slots) >= 7.0 && per(long_slots) <= 8.5, "the batch kept its share: {:.2} slots", per(long_slots));
    assert!(per(short_slots) >= 7.0, "the stream kept its share: {:.2} slots", per(short_slots));
    assert!(per(mixed) <= 1.5, "{:.2} of 8 executors ran both classes on average", per(mixed));
}

/// The first small job waits for a long task (there is no preemption). Without the hold,
/// the next ones, submitted right after the previous one ended, found every slot taken by
/// long tasks that started the moment the previous small job freed its slots, and waited
/// for a long task again (4.8 s on 4 slots). The hold costs the long job a bounded share.
#[test]
fn a_small_job_right_after_another_does_not_wait_for_a_long_task() {
    for (executors, slots) in [(2, 2), (3, 2), (4, 4)] {
        for think in [0.0, 0.064, 0.3] {
            let (waits, long) = small_jobs_after_each_other(executors, slots, think, DriverConfig::default());
            let at = format!("{executors}x{slots}, think {think}: {waits:?}");
            assert!(waits[0] > 1.0, "the first waits for the first long wave: {at}");
            for (k, w) in waits.iter().enumerate().skip(1) {
                assert!(*w < 0.5, "small job {k} waited {w:.2} s, {at}");
            }
            let mut off = DriverConfig::default();
            off.adaptive.hold_max = 0.0;
            let (waits_off, long_off) = small_jobs_after_each_other(executors, slots, think, off);
            assert!(
                waits_off[1..].iter().any(|w| *w > 3.0),
                "without the hold one waits for a long task: {waits_off:?}"
            );
            assert!(
                long <= 1.3 * long_off,
                "{at}: the long job ended at {long:.1} s, {long_off:.1} s without the hold"
            );
        }
    }
}

/// A starvation deadline set from a guessed estimate moves once the job turns out larger.
/// A batch job of 32 tasks arrives with no hint and no history, estimated at a typical
/// task far below its own (a stream's micro-batch stages). Its fair time from that guess
/// is under a second, so the first free slot after a second sees it overdue; had its
/// deadline stayed there, it would go first at full width until its last task launched,
/// as under FIFO, and a micro-batch arriving meanwhile would wait for all of it
/// (`tests/test_streaming.py`, one run in three). Once its first tasks end, its estimate
/// is several times the guess, its fair time with it, and the micro-batch goes first.
#[test]
fn a_deadline_set_from_a_guessed_estimate_moves_when_the_job_turns_out_larger() {
    let cfg = DriverConfig { default_estimate: 0.03, ..DriverConfig::default() };
    let mut d = Driver::new(cfg, 1).unwrap();
    let (a, b) = (d.add_node(0.0, 2), d.add_node(0.0, 2));
    let early = d.submit(0.0, 1, None, None, 1);
    assert_eq!(d.offer(0.0, b, 1, &[]), vec![early]);
    let big = d.submit(0.0, 32, None, None, 2);
    assert_eq!(d.offer(0.0, a, 2, &[]), vec![big, big]);
    assert_eq!(d.offer(0.0, b, 1, &[]), vec![big]);
    // A slot frees after the guessed deadline (about 1.1 s). The hold keeps it for a next
    // small job for its window; then the batch job, alone waiting, takes it, and the slot
    // sees it overdue.
    d.task_finished(1.2, b, early, Some(1.2));
    d.remove_job(1.2, early);
    assert_eq!(d.offer(1.2, b, 1, &[]), vec![], "held for a next small job");
    assert_eq!(d.offer(3.3, b, 1, &[]), vec![big]);
    let micro = d.submit(3.5, 2, None, None, 3);
    // The first wave ends: 5 s tasks, not 0.03 s.
    d.task_finished(5.0, a, big, Some(5.0));
    d.task_finished(5.0, a, big, Some(5.0));
    let est = d.job_estimate(big).unwrap().0;
    assert!(est > 5.0 * 0.03, "the estimate follows the first completions: {est}");
    assert_eq!(d.offer(5.0, a, 2, &[]), vec![micro, micro], "the micro-batch goes first");
}

/// With long work known, the hold keeps slots from long work only. A stream of small jobs of
/// 12 ms tasks beside long work (the replay's): one ends while a slightly larger one waits.
/// Holding the slots idle for the next arrival kept the waiting small job for the whole window
/// (the 16-slot replay's short p99 went from 0.3x to 0.7x FAIR's).
#[test]
fn held_slots_go_to_waiting_short_work() {
    let cfg = DriverConfig { cutoff: Some(1.0), ..DriverConfig::default() };
    let run = |small_waits: bool| {
        let mut d = Driver::new(cfg.clone(), 1).unwrap();
        let n = d.add_node(0.0, 4);
        let a = d.submit(0.0, 2, None, Some(0.012), 1);
        let b = small_waits.then(|| d.submit(0.0, 4, None, Some(0.012), 2));
        let long = d.submit(0.0, 8, None, Some(5.0), 3);
        // Long work keeps half the slots while it waits (`longShare`).
        assert_eq!(d.offer(0.0, n, 4, &[]), vec![a, a, long, long]);
        d.task_finished(0.012, n, a, Some(0.012));
        d.task_finished(0.012, n, a, Some(0.012));
        d.remove_job(0.012, a);
        (d.offer(0.012, n, 2, &[]), b)
    };
    let (got, b) = run(true);
    assert_eq!(got, vec![b.unwrap(); 2], "the waiting small job takes the held slots");
    // Only long work waits: the hold keeps both slots for the next small job.
    let (got, _) = run(false);
    assert_eq!(got, vec![], "both slots held");
}

/// A stream of one-task small jobs (0.1 s every 0.25 s: a short task runs 40 % of the time)
/// that starts after the application sat idle for 20 s, with two one-task long jobs in it
/// (the split is learned), then a long job of 44 tasks of 1.2 s. On 8 slots the base slot
/// is kept while short work runs at least 20 % of the time; the idle start, when nothing ran
/// at all, is no evidence that a kept slot would idle. Returns the wait of the small job
/// submitted 0.1 s after the long job.
fn small_job_wait_after_a_long_job_joins_the_stream(executors: usize, slots: u32, cfg: DriverConfig) -> f64 {
    let mut s = Spark::with(executors, slots, cfg);
    s.run(20.0, None);
    let mut t = 20.0;
    for k in 0..16 {
        if k == 0 || k == 6 {
            s.submit(1, 1.2, 1);
        }
        s.submit(1, 0.1, 2);
        t += 0.25;
        s.run(t, None);
    }
    let big = s.submit(44, 1.2, 3);
    assert_eq!(s.d.job_class(big), Some(Class::Long));
    s.run(t + 0.1, None);
    let small = s.submit(1, 0.1, 2);
    s.run(t + 5.0, None);
    s.first[&small.0] - (t + 0.1)
}

#[test]
fn a_small_job_in_a_busy_stream_does_not_wait_for_a_long_job_that_arrives_after_an_idle_start() {
    // The base slot alone (the hold off).
    let mut cfg = DriverConfig::default();
    cfg.adaptive.hold_max = 0.0;
    let wait = small_job_wait_after_a_long_job_joins_the_stream(4, 2, cfg);
    assert!(wait < 0.5, "waited {wait:.2} s for a long task of 1.2 s on 8 slots");
}

/// On 4 slots, one-task small jobs of 0.1 s, each submitted 0.15-0.35 s after the last one
/// ended, with two one-task long jobs among them (the split is learned); then a long job of
/// 16 tasks of 1.2 s arrives 0.1 s after a small job ended, with nothing waiting, and the
/// next small job 0.25 s after that end. Returns its wait and the long job's end.
fn small_job_after_a_long_arrival_in_a_think_gap(cfg: DriverConfig) -> (f64, f64) {
    let mut s = Spark::with(2, 2, cfg);
    let mut end = 1.0;
    for k in 0..16 {
        if k == 2 || k == 8 {
            s.submit(1, 1.2, 1);
        }
        s.run(end + [0.15, 0.35, 0.2, 0.3][k % 4], None);
        let j = s.submit(1, 0.1, 2);
        end = s.run(s.now + 10.0, Some(j));
    }
    s.run(end + 0.1, None);
    let long = s.submit(16, 1.2, 3);
    assert_eq!(s.d.job_class(long), Some(Class::Long));
    s.run(end + 0.25, None);
    let small = s.submit(1, 0.1, 2);
    let at = s.now;
    s.run(at + 10.0, Some(small));
    let wait = s.first[&small.0] - at;
    s.run(100.0, None);
    (wait, s.last[&long.0])
}

#[test]
fn a_long_job_arriving_in_a_users_think_gap_leaves_the_small_jobs_slot_held() {
    let (wait, long_end) = small_job_after_a_long_arrival_in_a_think_gap(DriverConfig::default());
    assert!(wait < 0.2, "the small job waited {wait:.2} s for a long task of 1.2 s");
    // The long job lost one slot for at most two windows (0.35 s each) and the small task.
    let mut off = DriverConfig::default();
    off.adaptive.hold_max = 0.0;
    let (wait_off, long_end_off) = small_job_after_a_long_arrival_in_a_think_gap(off);
    assert!(wait_off > 0.5, "without the hold it waits for a long task: {wait_off:.2} s");
    assert!(long_end <= long_end_off + 1.0, "the long job ended at {long_end:.2} s against {long_end_off:.2} s");
}
