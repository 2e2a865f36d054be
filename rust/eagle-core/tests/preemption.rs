//! Bounded waiting by preemption (`preempt.afterMs`, off by default) through the Spark
//! façade, on the virtual Spark host of `common`: a small job behind a cluster full of long
//! tasks waits the bound and a kill, not a long task; the killed work stays within its budget.
mod common;

use common::{small_job_sequence, Spark, KILL_DELAY};
use eagle_core::{DriverConfig, System};

fn preempting(after: f64) -> DriverConfig {
    let mut cfg = DriverConfig::default();
    cfg.adaptive.preempt_after = after;
    cfg
}

/// The reviver's period: a kill is decided at the first tick past the bound.
const TICK: f64 = 0.2;

#[test]
fn every_small_job_waits_at_most_the_bound_and_a_kill() {
    for (executors, slots) in [(1, 4), (2, 2), (3, 2)] {
        for think in [0.0, 0.3, 1.0] {
            let at = format!("{executors}x{slots}, think {think}");
            let (waits, long, s) = small_job_sequence(executors, slots, think, preempting(1.0));
            let (waits_off, long_off, off) = small_job_sequence(executors, slots, think, DriverConfig::default());
            println!(
                "{at}: waits {waits:.2?} (off {waits_off:.2?}), long {long:.1} s (off {long_off:.1}), kills {}, killed {:.1} s",
                s.kills, s.killed_work
            );
            assert!(waits_off[0] > 3.0, "{at}: without preemption the first waits for a long task: {waits_off:?}");
            assert_eq!(off.kills, 0, "{at}: off by default");
            for (k, w) in waits.iter().enumerate() {
                assert!(*w <= 1.0 + TICK + KILL_DELAY + 0.05, "{at}: small job {k} waited {w:.2} s: {waits:?}");
            }
            assert!(s.kills >= 1, "{at}: the first small job needed a kill");
            // 5 % of the cluster's slot-seconds over the 60 s window.
            let budget = 0.05 * (executors as f64 * slots as f64) * 60.0;
            assert!(s.killed_work <= budget + 1e-9, "{at}: killed {:.1} s > {budget:.1}", s.killed_work);
            assert_eq!(s.d.counters().preemptions, s.kills as u64);
            let ms = (s.killed_work * 1000.0).round() as u64;
            assert!(s.d.counters().preempted_ms.abs_diff(ms) <= s.kills as u64, "{at}: counted as run");
            assert!(long <= 1.3 * long_off, "{at}: the long job ended at {long:.1} s, {long_off:.1} s without");
        }
    }
}

#[test]
fn a_kill_lands_before_the_next_one_and_spares_short_work() {
    // Four slots of long work; two small jobs at once: one kill serves both in turn.
    let mut s = Spark::with(1, 4, preempting(0.5));
    let long = s.submit(8, 5.0, 1);
    s.run(1.0, None);
    let a = s.submit(2, 0.1, 2);
    let b = s.submit(2, 0.1, 3);
    s.run(3.0, None);
    assert_eq!(s.kills, 1, "no second kill while short tasks run or a kill is in flight");
    assert!(s.first.contains_key(&a.0) && s.first.contains_key(&b.0), "both small jobs ran");
    s.run(60.0, None);
    assert_eq!(s.d.engine().job(long).map(|v| v.unlaunched), Some(0), "the killed task ran again");
}

#[test]
fn the_paper_policy_never_preempts() {
    let mut cfg = preempting(0.5);
    cfg.policy = System::Eagle;
    cfg.cutoff = Some(1.0);
    let (waits, _, s) = small_job_sequence(1, 4, 0.0, cfg);
    assert_eq!(s.kills, 0);
    assert!(waits[0] > 3.0, "{waits:?}");
}

/// While the budget has room, the reservation keeps no slot idle for short work that may
/// come: a kill serves the next one within the bound. Without preemption, after five small
/// jobs on four slots of 10 s tasks, the reservation kept a slot idle beside the long wave.
#[test]
fn with_preemption_the_reservation_keeps_no_slot_idle_for_short_work_that_may_come() {
    let busy_after_a_burst = |cfg: DriverConfig| {
        let mut s = Spark::with(1, 4, cfg);
        s.submit(12, 10.0, 1);
        s.run(1.0, None);
        for _ in 0..5 {
            let t = s.now;
            let j = s.submit(2, 0.1, 2);
            s.run(t + 100.0, Some(j));
        }
        s.run(10.5, None);
        s.d.busy_slots()
    };
    assert_eq!(busy_after_a_burst(preempting(0.5)), 4, "long work took every slot");
    assert!(busy_after_a_burst(DriverConfig::default()) < 4, "the reservation kept one");
}
