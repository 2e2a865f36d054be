//! Warm executors: the cost of a task set's first task on an executor, and when paying
//! it is worth a slot (rules and measurements: docs/policies/adaptive.md).
//!
//! A Spark task set's first task on an executor fetches and deserialises the task binary
//! and the stage's broadcasts, and compiles the generated code; later tasks of the same
//! task set there find all of it in place. Eagle's Sticky Batch Probing (§3.3) keeps a
//! node serving the job it already serves to save a probe round trip; inside a driver the
//! probe costs nothing, but the warm-up is real.
//!
//! [`WarmupCost`] measures the cost from the application's own tasks: per task set, the
//! tasks that started on an executor before any of its tasks had ended there (cold: each
//! pays the warm-up, so two started together are both cold) and the ones started before a
//! second had ended there (the JVM still compiles the stage's code while the second runs),
//! against the settled ones started after. A sample is what its tasks on an executor cost
//! over its settled tasks until two had ended there, per cold start (without a settled
//! task, the cold mean less the warm one). [`worth_cold_start`] is the rule the adaptive
//! policy applies to a free slot of an executor where the task set SRPT picks has not run.
//!
//! An executor's own start (class loading, PySpark's worker daemon) costs far more than a
//! stage's warm-up and no later task set pays it again, so a task set that started a task
//! on an executor where no task of the application had ended yet gives no sample.
//!
//! Data locality: the rule weighs a warm-up against slot time only, so the adaptive policy
//! counts an executor that holds the cached input of a task not launched there yet as
//! worth the task set, whatever the warm-up, once per such task (the host reports the
//! nodes: [`crate::Driver::set_input_nodes`]).

use crate::estimate::WindowedMedian;
use std::collections::{HashMap, HashSet};

/// The largest warm-up taken from a measurement (seconds): beyond it a sample says more
/// about a stalled executor than about warm-up.
pub const MAX_WARMUP: f64 = 60.0;

/// The warm-up is the median of the last this many task sets' samples.
pub const WINDOW: usize = 31;

/// A cold completion less the measured warm-up counts for at least this share of itself:
/// the warm-up is an average over task sets, and this task set's may be smaller.
const MIN_WARM_SHARE: f64 = 0.1;

/// How far a task set's warm-up on an executor had gone when one of its tasks started
/// there: how many of its tasks had ended there, up to [`SETTLED`].
const SETTLED: usize = 2;

#[derive(Clone, Debug, Default)]
struct Sides {
    /// Per executor: how many tasks of the task set have ended there (sorted by executor).
    ends: Vec<(u32, u32)>,
    /// Per executor, the tasks started there while fewer than [`SETTLED`] had ended and not
    /// ended yet, by how many had (sorted by executor).
    running: Vec<(u32, [u32; SETTLED])>,
    /// Completions (sum of seconds, count) by how many tasks had ended on their executor
    /// when they started: 0 (cold), 1, [`SETTLED`] or more (settled).
    done: [(f64, u32); SETTLED + 1],
    /// A task of it started on an executor where no task of the application had ended:
    /// its cold tasks there paid the executor's start too, so it gives no sample (a launch
    /// there that Spark declined counts too: it costs only this sample).
    fresh: bool,
}

impl Sides {
    fn ended_on(&self, node: u32) -> u32 {
        self.ends.binary_search_by_key(&node, |e| e.0).map_or(0, |i| self.ends[i].1)
    }

    fn running_on(&mut self, node: u32) -> Option<&mut [u32; SETTLED]> {
        let i = self.running.binary_search_by_key(&node, |e| e.0).ok()?;
        Some(&mut self.running[i].1)
    }

    fn mean(&self, tier: usize) -> Option<f64> {
        let (sum, n) = self.done[tier];
        (n > 0).then(|| sum / n as f64)
    }

    /// Warm completions: every one but the cold.
    fn warm(&self) -> (f64, u32) {
        self.done[1..].iter().fold((0.0, 0), |a, d| (a.0 + d.0, a.1 + d.1))
    }

    /// The warm-up of this task set per cold start (seconds), once it has both a cold and
    /// a warm completion: what its tasks on an executor cost over the settled ones, until
    /// [`SETTLED`] had ended there, over its cold starts. Without a settled completion, the
    /// cold mean less the warm one.
    fn sample(&self) -> Option<f64> {
        let cold = self.done[0];
        if cold.1 == 0 || self.fresh {
            return None;
        }
        let sample = match self.mean(SETTLED) {
            Some(floor) => self.done[..SETTLED].iter().map(|d| d.0 - d.1 as f64 * floor).sum::<f64>() / cold.1 as f64,
            None => {
                let warm = self.warm();
                if warm.1 == 0 {
                    return None;
                }
                cold.0 / cold.1 as f64 - warm.0 / warm.1 as f64
            }
        };
        Some(sample.clamp(0.0, MAX_WARMUP))
    }
}

/// How far a task set has warmed an executor ([`WarmupCost::warmth`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Warmth {
    /// No task of the task set has started there (or every one that did was declined).
    Cold,
    /// Tasks of it run there and none has ended: the next one there is cold too.
    Warming,
    /// A task of it has ended there.
    Warm,
}

/// Running estimate of the warm-up cost per cold start, in seconds (0 until a task set
/// has ended with both a cold and a warm completion): the median of the last [`WINDOW`] task sets'
/// samples, so that the typical task set's warm-up counts, not a few long stages' (whose
/// cold tasks differ from their warm ones by seconds of contention as much as warm-up).
#[derive(Clone, Debug)]
pub struct WarmupCost {
    live: HashMap<u32, Sides>,
    samples: WindowedMedian,
    /// Live executors where a task of the application has ended (past their own start).
    started: HashSet<u32>,
}

impl Default for WarmupCost {
    fn default() -> Self {
        WarmupCost { live: HashMap::new(), samples: WindowedMedian::new(WINDOW), started: HashSet::new() }
    }
}

impl WarmupCost {
    /// A task of `job` starts on `node`: cold if no task of `job` has ended there yet.
    pub fn task_launched(&mut self, job: u32, node: u32) {
        let s = self.live.entry(job).or_default();
        s.fresh |= !self.started.contains(&node);
        let tier = s.ended_on(node) as usize;
        if tier >= SETTLED {
            return;
        }
        match s.running.binary_search_by_key(&node, |e| e.0) {
            Ok(i) => s.running[i].1[tier] += 1,
            Err(i) => {
                let mut counts = [0; SETTLED];
                counts[tier] = 1;
                s.running.insert(i, (node, counts));
            }
        }
    }

    /// A launch of `job` on `node` reported by [`WarmupCost::task_launched`] did not happen
    /// (the latest launch there, so the furthest warmed).
    pub fn launch_declined(&mut self, job: u32, node: u32) {
        let Some(s) = self.live.get_mut(&job) else { return };
        let tier = s.ended_on(node) as usize;
        if tier >= SETTLED {
            return;
        }
        if let Some(n) = s.running_on(node).and_then(|c| c[..=tier].iter_mut().rev().find(|n| **n > 0)) {
            *n -= 1;
        }
    }

    /// A task of `job` ended on `node`, having run `seconds` if it succeeded. It is cold if
    /// it started before any task of `job` had ended there, and counts as started after
    /// one had if it started before a second had; a task whose start was not reported is
    /// taken as started when the one that ended before it there ended (so the first to end
    /// on an executor is cold). The earliest started end first.
    pub fn task_ended(&mut self, job: u32, node: u32, seconds: Option<f64>) {
        self.started.insert(node);
        let s = self.live.entry(job).or_default();
        let ended = s.ended_on(node);
        let tier = match s.running_on(node).and_then(|c| c.iter_mut().enumerate().find(|(_, n)| **n > 0)) {
            Some((tier, n)) => {
                *n -= 1;
                tier
            }
            None => (ended as usize).min(SETTLED),
        };
        match s.ends.binary_search_by_key(&node, |e| e.0) {
            Ok(i) => s.ends[i].1 = s.ends[i].1.saturating_add(1),
            Err(i) => s.ends.insert(i, (node, 1)),
        }
        if ended as usize + 1 >= SETTLED {
            // Nothing starts below the settled tier there any more: drop empty counters.
            if let Ok(i) = s.running.binary_search_by_key(&node, |e| e.0) {
                if s.running[i].1.iter().all(|n| *n == 0) {
                    s.running.remove(i);
                }
            }
        }
        let Some(seconds) = seconds.filter(|d| d.is_finite() && *d >= 0.0) else { return };
        s.done[tier].0 += seconds;
        s.done[tier].1 += 1;
    }

    /// The task set's mean *warm* task duration, the estimate of its remaining tasks: the
    /// mean of its warm completions if any has ended, else its cold completions less the
    /// measured warm-up (the warm-executors rule charges the warm-up of a new executor by
    /// itself). `None` before any completion.
    pub fn warm_mean(&self, job: u32) -> Option<f64> {
        if let Some(w) = self.measured_warm_mean(job) {
            return Some(w);
        }
        let cold = self.live.get(&job)?.mean(0)?;
        Some((cold - self.cost()).max(MIN_WARM_SHARE * cold))
    }

    /// How warm `job` is on `node`: a task of it has ended there (warm), or one runs there
    /// and none has ended (warming), or neither (cold).
    pub fn warmth(&self, job: u32, node: u32) -> Warmth {
        let Some(s) = self.live.get(&job) else { return Warmth::Cold };
        if s.ended_on(node) > 0 {
            return Warmth::Warm;
        }
        match s.running.binary_search_by_key(&node, |e| e.0) {
            Ok(i) if s.running[i].1.iter().any(|n| *n > 0) => Warmth::Warming,
            _ => Warmth::Cold,
        }
    }

    /// How many of the task set's tasks have ended cold, successfully.
    pub fn cold_completions(&self, job: u32) -> u32 {
        self.live.get(&job).map_or(0, |s| s.done[0].1)
    }

    /// The mean of the task set's warm completions, if any has ended: its warm task
    /// duration as measured, with no warm-up taken out.
    pub fn measured_warm_mean(&self, job: u32) -> Option<f64> {
        let warm = self.live.get(&job)?.warm();
        (warm.1 > 0).then(|| warm.0 / warm.1 as f64)
    }

    /// The task set is gone: its warm-up per cold start becomes a sample. True when the
    /// estimate changed.
    pub fn job_removed(&mut self, job: u32) -> bool {
        let Some(sample) = self.live.remove(&job).and_then(|s| s.sample()) else { return false };
        self.samples.push(sample);
        true
    }

    /// Executor `node` is gone (its id may come back as a new executor, not started yet).
    pub fn node_removed(&mut self, node: u32) {
        self.started.remove(&node);
    }

    /// The warm-up cost now (seconds).
    pub fn cost(&self) -> f64 {
        self.samples.median().unwrap_or(0.0)
    }
}

/// Whether a task set should start a task on an executor where it has not run yet.
///
/// The task set has `waiting` tasks of `est` seconds and `running` tasks on executors it
/// already warmed. The alternative to this slot is not only the task set's own running
/// slots: a freed slot of an executor where it is warm goes to it (the warm executors
/// rule serves a job there before any cold one), so without this slot it drains on the
/// `warm_slots` of the executors where it is warm or warming that no long task holds
/// (at least its `running`). That drains in `waiting·est / s`; one more, cold, slot makes
/// it `(waiting·est + warmup) / (s + 1)`, a gain of `(waiting·est − s·warmup) / (s·(s + 1))`.
/// The warm-up is slot time lost on the cluster's `slots`: each of the `others` (the
/// adaptive policy counts every other live query or job, not only those waiting now)
/// ends about `warmup / slots` later. The cold start is worth it when the gain exceeds
/// that delay. A task set with nothing running always is (it must start somewhere), and
/// so is every cold start while no warm-up has been measured.
///
/// Counting only the running slots would make a stage with one task running always gain
/// from a second executor, widening query stages far more often than FAIR, whose freed
/// slots go back to the stage that freed them.
pub fn worth_cold_start(
    waiting: u32,
    running: u32,
    warm_slots: u32,
    est: f64,
    warmup: f64,
    others: usize,
    slots: u64,
) -> bool {
    if running == 0 || warmup <= 0.0 {
        return true;
    }
    let (w, r) = (waiting as f64, warm_slots.max(running) as f64);
    let gain = (w * est - r * warmup) / (r * (r + 1.0));
    gain > others as f64 * warmup / slots.max(1) as f64
}

/// A number of warm slots from which [`worth_cold_start`] says no whatever the running
/// tasks: past `waiting·est / warmup` the waiting work is under a warm-up a slot, and past
/// `√(waiting·est / delay) ` the gain is under the delay to the others. So the policy
/// stops counting a task set's warm slots there (a hot path: every free slot asks).
pub fn enough_warm_slots(waiting: u32, est: f64, warmup: f64, others: usize, slots: u64) -> u32 {
    let work = waiting as f64 * est;
    let mut bound = work / warmup;
    let delay = others as f64 * warmup / slots.max(1) as f64;
    if delay > 0.0 {
        bound = bound.min((work / delay).sqrt());
    }
    if bound.is_finite() {
        bound.max(0.0).ceil() as u32 + 1
    } else {
        u32::MAX
    }
}

/// Whether a task set should start another task on an executor where it is warming: it
/// has tasks running there, started `since` seconds ago at the earliest, and none has
/// ended. A task started there now is cold too (measured on TPC-H under a sort: the second
/// of two tasks started together took 2.1x the warm mean, the first 2.4x).
///
/// [`worth_cold_start`] weighs a slot against draining on the `running` slots alone; here
/// the alternative is the same slot, warm, once the first task there ends, in about
/// `δ = est + warmup − since`. Taking it now drains the task set in `(w·est + warmup) /
/// (r + 1)`; taking it warm at `δ`, in about `(w·est + δ) / (r + 1)`; so the gain is
/// `(δ − warmup) / (r + 1)`, a task's `est / (r + 1)` when both start together. The cost to
/// the `others` is the same warm-up as for any cold start. So a stage of long tasks still
/// fills an executor at once, and one of short tasks leaves the second slot to a task set
/// warm there (TPC-H under a sort: 87-90% of such second cold tasks had one).
///
/// A task still running past `est + warmup` shows the estimate to be low, by how much
/// nobody knows yet. With no other unit live (or none that may take the slot: the
/// policy's fallback passes `others` = 0), it is expected to run as long again as it has
/// overrun, so `δ` is the overrun: taking `δ` as 0 there left a slot beside the sort's
/// reduce task idle for about 25 s with nothing else on the cluster (estimated at 4.6 s,
/// its tasks ran 27-40 s). With others live the slot has a use elsewhere, and under load a
/// task overruns as much from sharing the cores as from a low estimate: counting the
/// overrun there widened TPC-H's stages under the sort (`scripts/bench sort`), so `δ`
/// stays 0.
pub fn worth_warming_slot(since: f64, running: u32, est: f64, warmup: f64, others: usize, slots: u64) -> bool {
    if warmup <= 0.0 {
        return true;
    }
    let due = est + warmup - since;
    let until_warm = if others == 0 { due.abs() } else { due.max(0.0) };
    let gain = (until_warm - warmup) / (running as f64 + 1.0);
    gain > others as f64 * warmup / slots.max(1) as f64
}

/// Whether a task of a task set, started `since` seconds ago on an executor where none of
/// its tasks had ended, has run past `est + warmup` by more than a warm-up: the estimate is
/// low, and the task, expected to run as long again as it has overrun, will not leave its
/// slot warm before a cold start elsewhere would have paid for itself. This is
/// [`worth_warming_slot`]'s test with no other unit live, put to a cold executor: with no
/// other unit live (and only then, for the reasons given there) a cold start is worth it
/// whatever [`worth_cold_start`] says from the estimate. Without it, a stage of 3 s tasks
/// that came in at an application's typical task of 35 ms ran two at a time on one
/// executor for its whole first wave, the other executor idle (`tests/test_streaming.py`).
pub fn overran(since: f64, est: f64, warmup: f64) -> bool {
    warmup > 0.0 && since - est - warmup > warmup
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_first_task_overruns_once_past_estimate_and_warm_up_by_a_warm_up() {
        assert!(!overran(1.5, 0.035, 0.8), "within the estimate and two warm-ups");
        assert!(overran(1.7, 0.035, 0.8));
        assert!(!overran(100.0, 0.035, 0.0), "no warm-up measured: nothing to weigh");
    }

    #[test]
    fn an_executor_is_cold_until_a_task_starts_warming_until_one_ends_then_warm() {
        let mut w = WarmupCost::default();
        assert_eq!(w.warmth(7, 1), Warmth::Cold, "unknown task set");
        w.task_launched(7, 1);
        assert_eq!(w.warmth(7, 1), Warmth::Warming);
        assert_eq!(w.warmth(7, 2), Warmth::Cold);
        w.launch_declined(7, 1);
        assert_eq!(w.warmth(7, 1), Warmth::Cold, "the launch did not happen");
        w.task_launched(7, 1);
        w.task_ended(7, 1, Some(1.0));
        assert_eq!(w.warmth(7, 1), Warmth::Warm);
        assert_eq!(w.warmth(8, 1), Warmth::Cold, "another task set");
    }

    #[test]
    fn the_first_completion_on_each_executor_is_the_cold_side() {
        let mut w = WarmupCost::default();
        for (node, secs) in [(1, 2.0), (1, 1.0), (2, 2.0), (2, 1.0), (1, 1.0)] {
            w.task_ended(7, node, Some(secs));
        }
        assert_eq!(w.cost(), 0.0, "not folded in before the task set ends");
        assert!(w.job_removed(7));
        assert!((w.cost() - 1.0).abs() < 1e-9, "{}", w.cost());
        // A task set that ran one task per executor has no warm side: no sample.
        w.task_ended(8, 1, Some(5.0));
        assert!(!w.job_removed(8));
        assert!(!w.job_removed(99), "unknown task set");
        // Later samples move the estimate gradually; bad durations are ignored.
        w.task_ended(9, 1, Some(1.0));
        w.task_ended(9, 1, Some(1.0));
        w.task_ended(9, 1, Some(f64::NAN));
        w.task_ended(9, 1, Some(-1.0));
        assert!(w.job_removed(9));
        assert!((w.cost() - 0.5).abs() < 1e-9, "the median of 1.0 and 0.0: {}", w.cost());
    }

    /// A cost whose executors `nodes` have each ended a task of the application (started).
    fn started(nodes: &[u32]) -> WarmupCost {
        let mut w = WarmupCost::default();
        for &n in nodes {
            w.task_launched(1000, n);
            w.task_ended(1000, n, Some(1.0));
        }
        assert!(!w.job_removed(1000), "one task per executor: no sample");
        w
    }

    /// The first stage of an application on the two-host test cluster: its
    /// first task on each executor ran 2.2-2.4 s, the rest 0.14-0.23 s; the next stage's
    /// cold tasks paid 37-70 ms. The first stage's sample priced every cold start after it
    /// at 2 s.
    #[test]
    fn an_executors_own_start_gives_no_sample() {
        let mut w = WarmupCost::default();
        for node in [1, 2] {
            w.task_launched(7, node);
        }
        for node in [1, 2] {
            w.task_ended(7, node, Some(2.3));
            w.task_launched(7, node);
            w.task_ended(7, node, Some(0.15));
        }
        assert!(!w.job_removed(7), "a task set that started both executors");
        assert_eq!(w.cost(), 0.0);
        // The next stage samples its own warm-up.
        for node in [1, 2] {
            w.task_launched(8, node);
            w.task_ended(8, node, Some(0.2));
            w.task_launched(8, node);
            w.task_ended(8, node, Some(0.15));
        }
        assert!(w.job_removed(8));
        assert!((w.cost() - 0.05).abs() < 1e-9, "{}", w.cost());
        // A new executor (or one whose id came back after its removal) starts again: a
        // task set that is first to use it gives no sample either.
        w.node_removed(2);
        for (node, secs) in [(1, 0.2), (1, 0.15), (2, 2.3), (2, 0.15)] {
            w.task_launched(9, node);
            w.task_ended(9, node, Some(secs));
        }
        assert!(!w.job_removed(9));
        assert!((w.cost() - 0.05).abs() < 1e-9, "{}", w.cost());
    }

    /// The second task on an executor still pays part of the warm-up (the JIT is still
    /// compiling the stage's code): TPC-H under a sort, +0.49 s over the median task for
    /// the second, +0.02 s for the third. Counting it warm put the warm-up at 1.77 s per
    /// cold start where a new executor cost a stage about 2.6 s.
    #[test]
    fn the_warm_up_counts_until_two_tasks_ended_on_the_executor() {
        let mut w = started(&[1, 2]);
        for secs in [2.0, 1.2, 0.5, 0.5] {
            w.task_launched(7, 1);
            w.task_ended(7, 1, Some(secs));
        }
        assert!((w.measured_warm_mean(7).unwrap() - 2.2 / 3.0).abs() < 1e-9, "the warm mean is every warm task's");
        assert!(w.job_removed(7));
        assert!((w.cost() - 2.2).abs() < 1e-9, "1.5 s over the settled tasks, then 0.7 s: {}", w.cost());
        // Two cold starts on two executors, each with a second and settled tasks: per cold start.
        for node in [1, 2] {
            w.task_launched(8, node);
        }
        w.task_ended(8, 1, Some(3.0));
        w.task_ended(8, 2, Some(2.0));
        for node in [1, 2] {
            w.task_launched(8, node);
            w.task_ended(8, node, Some(1.5));
            w.task_launched(8, node);
            w.task_launched(8, node);
            w.launch_declined(8, node);
            w.task_ended(8, node, Some(1.0));
        }
        let mut s = w.live[&8].clone();
        assert_eq!(s.done.map(|d| d.1), [2, 2, 2]);
        assert!((s.sample().unwrap() - 2.0).abs() < 1e-9, "(2 + 1) + 2 × 0.5 over 2 cold starts: {:?}", s.sample());
        // A task set that never settles anywhere keeps the cold-against-warm sample.
        s.done[SETTLED] = (0.0, 0);
        assert!((s.sample().unwrap() - 1.0).abs() < 1e-9, "2.5 against 1.5: {:?}", s.sample());
    }

    /// Ends a task set with one cold and one warm task on executor 1.
    fn sample(w: &mut WarmupCost, job: u32, cold: f64, warm: f64) {
        w.task_ended(job, 1, Some(cold));
        w.task_ended(job, 1, Some(warm));
        assert!(w.job_removed(job));
    }

    /// The warm-up is the typical task set's: the median of recent samples. TPC-H under a
    /// sort: the per-task-set samples' median was 0.59-0.72 s, but a few long
    /// stages (the sort's, Q1's lineitem scan: cold tasks 5-12 s slower than warm ones,
    /// from contention more than warm-up) held a running mean at 1.5-3.4 s, which made a
    /// cold start look four times dearer than it was for every query stage.
    #[test]
    fn a_few_long_task_sets_do_not_set_the_warm_up() {
        let mut w = WarmupCost::default();
        for job in 0..10 {
            sample(&mut w, job, 1.2 + 0.01 * job as f64, 0.5);
        }
        sample(&mut w, 10, 30.0, 20.0);
        sample(&mut w, 11, 12.0, 3.0);
        assert!((w.cost() - 0.73).abs() < 0.03, "{}", w.cost());
        // The window is the last WINDOW samples: a lasting change does move it.
        for job in 12..12 + WINDOW as u32 {
            sample(&mut w, job, 3.0, 1.0);
        }
        assert!((w.cost() - 2.0).abs() < 1e-9, "{}", w.cost());
    }

    #[test]
    fn every_task_started_before_the_first_end_on_its_executor_is_cold() {
        let mut w = started(&[1, 2]);
        // Two start together on executor 1, a third is declined; one ends, then a fourth
        // starts: cold, cold, warm.
        for _ in 0..3 {
            w.task_launched(7, 1);
        }
        w.launch_declined(7, 1);
        w.task_ended(7, 1, Some(2.0));
        w.task_launched(7, 1);
        w.task_ended(7, 1, Some(2.2));
        w.task_ended(7, 1, Some(1.0));
        assert_eq!(w.measured_warm_mean(7), Some(1.0));
        // A failed cold task ends its cold start: the next start there is warm.
        w.task_launched(7, 2);
        w.task_launched(7, 2);
        w.task_ended(7, 2, None);
        w.task_ended(7, 2, Some(2.0));
        w.task_launched(7, 2);
        w.task_ended(7, 2, Some(1.0));
        assert!(w.job_removed(7));
        assert!((w.cost() - 3.2 / 3.0).abs() < 1e-9, "cold 2.07 s against warm 1.0 s: {}", w.cost());
    }

    #[test]
    fn a_warming_executor_takes_a_second_task_only_when_its_tasks_are_long() {
        // 0.55 s tasks, a 1 s warm-up, 10 other live queries on 16 slots: the second slot
        // gains 0.55 / 2 s against 0.63 s; 6.7 s tasks gain 3.35 s.
        assert!(!worth_warming_slot(0.0, 1, 0.55, 1.0, 10, 16));
        assert!(worth_warming_slot(0.0, 1, 6.7, 1.0, 10, 16));
        // With no one else waiting, any gain will do, until the first task is about to end.
        assert!(worth_warming_slot(0.0, 1, 0.55, 1.0, 0, 16));
        assert!(!worth_warming_slot(0.6, 1, 0.55, 1.0, 0, 16));
        // No measured warm-up: always.
        assert!(worth_warming_slot(0.0, 1, 0.1, 0.0, 100, 4));
    }

    #[test]
    fn a_task_past_its_estimate_is_expected_to_run_as_long_again() {
        // The sort's reduce stage alone on the cluster: estimated at the
        // typical long task, about 5 s, with a 4 s warm-up, its tasks ran 27-40 s. A slot
        // that freed beside a task running there for 14 s stayed idle until that task
        // ended, since by the estimate it was to end 5 s before.
        assert!(worth_warming_slot(14.0, 1, 5.0, 4.0, 0, 16));
        // Overrun by less than a warm-up, the expected wait is still under one.
        assert!(!worth_warming_slot(12.0, 1, 5.0, 4.0, 0, 16));
        // With other units live the slot has a use elsewhere: an overrun does not count.
        assert!(!worth_warming_slot(16.0, 1, 5.0, 4.0, 16, 16));
        assert!(!worth_warming_slot(60.0, 1, 5.0, 4.0, 1, 16));
    }

    #[test]
    fn a_cold_start_pays_when_the_task_set_would_drain_slowly_on_its_own() {
        // Nothing running: always, even with warm slots to wait for.
        assert!(worth_cold_start(1, 0, 4, 0.1, 5.0, 100, 4));
        // No measured warm-up: always.
        assert!(worth_cold_start(1, 9, 9, 0.1, 0.0, 100, 4));
        // 38 × 2 s on 2 slots against a 0.8 s warm-up: yes.
        assert!(worth_cold_start(38, 2, 2, 2.0, 0.8, 1, 6));
        // 4 × 0.5 s on 2 slots, three task sets waiting for 6 slots: no.
        assert!(!worth_cold_start(4, 2, 2, 0.5, 0.8, 3, 6));
        // The same alone on the cluster: the gain (0.07 s) beats a zero delay to others.
        assert!(worth_cold_start(4, 2, 2, 0.5, 0.8, 0, 6));
        // More waiting task sets raise the bar.
        assert!(worth_cold_start(14, 2, 2, 0.7, 0.6, 3, 16));
        assert!(!worth_cold_start(14, 2, 2, 0.7, 0.6, 40, 16));
        // Fewer warm slots than running tasks: the running tasks count.
        assert!(worth_cold_start(14, 2, 0, 0.7, 0.6, 3, 16));
    }

    #[test]
    fn a_cold_start_weighs_the_warm_slots_the_task_set_would_get_instead() {
        // 5 × 0.5 s with one task running, a 0.8 s warm-up, 2 other live queries on 8
        // slots (a 0.2 s delay to them): on its one running slot the gain is 0.85 s.
        assert!(worth_cold_start(5, 1, 1, 0.5, 0.8, 2, 8));
        // Its executor has a second slot, which it takes warm when that slot frees: the
        // gain from a cold third is (2.5 − 1.6) / 6 = 0.15 s.
        assert!(!worth_cold_start(5, 1, 2, 0.5, 0.8, 2, 8));
        // A wide task set still spreads: 40 × 2 s warm on 4 slots gains 3.8 s.
        assert!(worth_cold_start(40, 4, 4, 2.0, 0.8, 2, 8));
    }

    #[test]
    fn counting_warm_slots_may_stop_where_no_cold_start_could_pass() {
        for w in [1, 3, 5, 25, 40, 1000] {
            for est in [0.04, 0.5, 2.0, 30.0] {
                for (warmup, others, slots) in
                    [(0.8, 2, 8), (0.012, 20, 16), (0.5, 0, 16), (0.7, 0, 2000), (0.7, 300, 2000)]
                {
                    let n = enough_warm_slots(w, est, warmup, others, slots);
                    for s in [n, n + 1, 2 * n + 5] {
                        assert!(
                            !worth_cold_start(w, 1, s, est, warmup, others, slots),
                            "{w} x {est} s on {s} warm slots ({n})"
                        );
                    }
                }
            }
        }
        // The count stops early: 5 × 0.5 s against a 0.8 s warm-up passes on 1 slot only.
        assert!(enough_warm_slots(5, 0.5, 0.8, 2, 8) <= 5);
    }
}
