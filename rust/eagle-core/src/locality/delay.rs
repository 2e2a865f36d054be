//! Dynamic Delay Scheduling (the DDS paper, §IV and Algorithm 1; docs/policies/dds.md),
//! per stage and per locality level.
//!
//! Spark waits a fixed `spark.locality.wait` (3 s) at each locality level before
//! it relaxes to the next one. Dynamic Delay Scheduling adapts that wait to the
//! network overhead that finished tasks report:
//!
//! 1. Each stage keeps one *interval* per level (process, node, rack), starting
//!    at Spark's configured wait for that level.
//! 2. When a task ends it reports `t_netOH`, the time it lost because it did not
//!    run at its preferred level (0 when it did). Every level from its preferred
//!    one up to (not including) the level it ran at is updated with
//!    `interval ← interval + (t_netOH − interval) / window`; with `window = 2`
//!    this is the paper's `(interval + t_netOH) / 2`. Intervals stay within
//!    `[min, max]`.
//! 3. On a free slot, a task that is local at the current level launches at once.
//!    Otherwise the stage relaxes one level each time `now − wait_begin` reaches the
//!    current level's interval (Spark's `getAllowedLocalityLevel`, with adaptive
//!    waits), and `wait_begin` resets whenever the stage launches a task.
//! 4. Whatever the intervals, a stage that has launched nothing for `max` seconds
//!    may launch anywhere: no task waits longer than `max` plus one scheduling round.
//!
//! 5. With `inherit` (the plugin's default), a new stage starts from the
//!    application's learned intervals ([`LearnedIntervals`]) rather than from Spark's
//!    static wait: Algorithm 1 keeps one `delay_interval` initialised once and averaged
//!    with every finished task, and a stage without evidence of its own is better served
//!    by the freshest estimate of the network than by the 3 s default.
//!
//! This composes with Eagle: SRPT and SBP choose the task set; the delay chooses
//! how local its next task must be.
//!
//! ```text
//!   PROCESS ──interval[P] elapsed──► NODE ──interval[N]──► (NO_PREF) ──► RACK ──interval[R]──► ANY
//!      ▲                                                                                        │
//!      └──────────── a launch at level L resets wait_begin and moves back to L ◄───────────────┘
//! ```

use crate::error::{Bound, ConfigError};
use crate::types::Time;
use serde::{Deserialize, Serialize};

/// Spark's locality levels, most local first (the order of `TaskLocality`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Level {
    ProcessLocal = 0,
    NodeLocal = 1,
    NoPref = 2,
    RackLocal = 3,
    Any = 4,
}

impl Level {
    pub const ALL: [Level; 5] = [Level::ProcessLocal, Level::NodeLocal, Level::NoPref, Level::RackLocal, Level::Any];

    pub fn from_index(i: u32) -> Option<Level> {
        Level::ALL.get(i as usize).copied()
    }

    /// Levels whose wait adapts (the others never wait, as in Spark).
    pub fn adapts(self) -> bool {
        matches!(self, Level::ProcessLocal | Level::NodeLocal | Level::RackLocal)
    }
}

/// Parameters of the adaptive waits (plugin keys `spark.scheduler.eagle.dds.*`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DelayParams {
    /// Starting interval per level, seconds (Spark's `spark.locality.wait.{process,node,rack}`).
    pub initial: [f64; 5],
    /// Bounds of every interval, seconds.
    pub min: f64,
    pub max: f64,
    /// Averaging window of the update rule (2 = the paper's rule).
    pub window: f64,
    /// A new stage starts from the application's learned intervals instead of `initial`
    /// (see [`LearnedIntervals`]).
    #[serde(default)]
    pub inherit: bool,
}

impl DelayParams {
    /// Spark's default: 3 s at every waiting level, bounds [0, 10 s], the paper's window.
    pub fn spark_default() -> DelayParams {
        DelayParams::uniform(3.0, 0.0, 10.0, 2.0)
    }

    pub fn uniform(initial: f64, min: f64, max: f64, window: f64) -> DelayParams {
        let mut init = [0.0; 5];
        for l in Level::ALL {
            if l.adapts() {
                init[l as usize] = initial.clamp(min, max);
            }
        }
        DelayParams { initial: init, min, max, window, inherit: false }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(self.min >= 0.0 && self.min.is_finite()) {
            return Err(ConfigError::out_of_range("min wait", self.min, Bound::NonNegative));
        }
        if !(self.max >= self.min && self.max.is_finite()) {
            return Err(ConfigError::MaxWaitBelowMin { min: self.min, max: self.max });
        }
        if !(self.window >= 1.0 && self.window.is_finite()) {
            return Err(ConfigError::out_of_range("window", self.window, Bound::AtLeast(1.0)));
        }
        Ok(())
    }
}

/// One change of an interval, for the summary's time series.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    pub at: Time,
    pub level: Level,
    pub interval: f64,
}

/// Most samples a stage's interval history keeps. Past it the history is decimated: every
/// other recorded update is dropped and from then on only every 2nd (then 4th, ...) update
/// is recorded, so the series spans the whole stage at a bounded cost (a stage of a
/// million tasks would otherwise keep a million samples).
pub const MAX_HISTORY_SAMPLES: usize = 256;

/// The adaptive delay state of one stage (one Spark TaskSet).
#[derive(Clone, Debug)]
pub struct StageDelay {
    interval: [f64; 5],
    /// Index into the stage's valid levels (Spark's `currentLocalityIndex`).
    current: usize,
    /// When the stage began waiting at the current level.
    wait_begin: Time,
    /// When the stage last launched a task (bounds the total wait by `max`).
    last_launch: Time,
    history: Vec<Sample>,
    /// Samples at the head of `history` that decimation keeps (the initial intervals).
    initial_samples: usize,
    /// Only every `stride`-th interval update is recorded (doubles at each decimation).
    stride: u64,
    updates: u64,
}

/// Records one update into a bounded history (see [`MAX_HISTORY_SAMPLES`]).
fn record_sample(history: &mut Vec<Sample>, keep: usize, stride: &mut u64, updates: &mut u64, s: Sample) {
    *updates += 1;
    if !updates.is_multiple_of(*stride) {
        return;
    }
    if history.len() >= MAX_HISTORY_SAMPLES {
        let mut i = 0usize;
        history.retain(|_| {
            i += 1;
            i <= keep || (i - keep).is_multiple_of(2)
        });
        *stride *= 2;
    }
    history.push(s);
}

impl StageDelay {
    /// A stage that starts at `params.initial` (Spark's configured waits).
    pub fn new(now: Time, params: &DelayParams) -> StageDelay {
        StageDelay::starting_at(now, params, &params.initial)
    }

    /// A stage that starts at the given intervals (e.g. [`LearnedIntervals::current`]).
    pub fn starting_at(now: Time, params: &DelayParams, start: &[f64; 5]) -> StageDelay {
        let mut interval = [0.0; 5];
        for l in Level::ALL {
            if l.adapts() {
                interval[l as usize] = start[l as usize].clamp(params.min, params.max);
            }
        }
        let history: Vec<Sample> = Level::ALL
            .iter()
            .filter(|l| l.adapts())
            .map(|&l| Sample { at: now, level: l, interval: interval[l as usize] })
            .collect();
        let initial_samples = history.len();
        StageDelay {
            interval,
            current: 0,
            wait_begin: now,
            last_launch: now,
            history,
            initial_samples,
            stride: 1,
            updates: 0,
        }
    }

    pub fn interval(&self, level: Level) -> f64 {
        self.interval[level as usize]
    }

    /// The interval changes so far, oldest first (starts with the initial values); at most
    /// [`MAX_HISTORY_SAMPLES`], decimated evenly beyond that.
    pub fn history(&self) -> &[Sample] {
        &self.history
    }

    /// The least local level the stage may launch at now. `valid` lists the levels the
    /// stage has tasks for, most local first (Spark's `myLocalityLevels`);
    /// `has_pending(level)` tells whether tasks still wait at that level.
    pub fn allowed(
        &mut self,
        now: Time,
        params: &DelayParams,
        valid: &[Level],
        has_pending: impl Fn(Level) -> bool,
    ) -> Level {
        let Some(&last) = valid.last() else { return Level::Any };
        if self.current >= valid.len() {
            self.current = valid.len() - 1;
        }
        if now - self.last_launch >= params.max {
            // Hard bound: nothing launched for `max` seconds, so relax fully.
            self.current = valid.len() - 1;
            return last;
        }
        while self.current + 1 < valid.len() {
            let level = valid[self.current];
            if !has_pending(level) {
                self.current += 1;
                self.wait_begin = now;
                continue;
            }
            let wait = self.interval[level as usize];
            // `>=` as in Spark's getAllowedLocalityLevel, so a zero wait relaxes at once.
            if now - self.wait_begin >= wait {
                self.wait_begin += wait;
                self.current += 1;
            } else {
                break;
            }
        }
        valid[self.current]
    }

    /// When the stage will next be allowed to relax a level (`now` if it already may).
    pub fn next_relax(&self, params: &DelayParams, valid: &[Level]) -> Time {
        if self.current + 1 >= valid.len() {
            return self.wait_begin;
        }
        let level = valid[self.current.min(valid.len() - 1)];
        (self.wait_begin + self.interval[level as usize]).min(self.last_launch + params.max)
    }

    /// The stage launched a task at `level`: the timer resets and the stage returns
    /// to that level.
    pub fn launched(&mut self, now: Time, level: Level, valid: &[Level]) {
        if let Some(i) = valid.iter().position(|l| *l == level) {
            self.current = i;
        }
        self.wait_begin = now;
        self.last_launch = now;
    }

    /// A task of this stage ended: it preferred `preferred`, ran at `actual`, and lost
    /// `net_oh` seconds to non-locality (0 when it ran at its preferred level).
    pub fn task_ended(&mut self, now: Time, params: &DelayParams, preferred: Level, actual: Level, net_oh: f64) {
        let (history, keep, stride, updates) =
            (&mut self.history, self.initial_samples, &mut self.stride, &mut self.updates);
        update_rule(&mut self.interval, params, preferred, actual, net_oh, |l, iv| {
            record_sample(history, keep, stride, updates, Sample { at: now, level: l, interval: iv });
        });
    }
}

/// The update rule (point 2 above) on one set of intervals: every level from `preferred`
/// up to (not including) `actual` takes `t_netOH`; a local run updates `preferred` only.
/// Calls `changed(level, new interval)` for each level it updates.
fn update_rule(
    interval: &mut [f64; 5],
    params: &DelayParams,
    preferred: Level,
    actual: Level,
    net_oh: f64,
    mut changed: impl FnMut(Level, f64),
) {
    let oh = if net_oh.is_finite() { net_oh.max(0.0) } else { return };
    let hi = if actual > preferred { actual } else { Level::ALL[(preferred as usize + 1).min(4)] };
    for l in Level::ALL {
        if l >= preferred && l < hi && l.adapts() {
            let iv = &mut interval[l as usize];
            *iv = (*iv + (oh - *iv) / params.window).clamp(params.min, params.max);
            changed(l, *iv);
        }
    }
}

/// The application's learned intervals: Algorithm 1's single `delay_interval`, one per
/// level, initialised once at Spark's waits and updated with every finished task of every
/// stage by the same rule as a stage's own. With [`DelayParams::inherit`] a new stage starts
/// here: `t_netOH` is a property of the cluster's network at that moment rather than of a
/// stage, and a stage with no evidence of its own would otherwise pay Spark's static wait
/// (3 s per level) before its first relaxation however fast the network is — most of a
/// short stage's life (a TPC-H stage over cached data runs one or two waves).
#[derive(Clone, Debug)]
pub struct LearnedIntervals {
    interval: [f64; 5],
}

impl LearnedIntervals {
    pub fn new(params: &DelayParams) -> LearnedIntervals {
        let mut interval = [0.0; 5];
        for l in Level::ALL {
            if l.adapts() {
                interval[l as usize] = params.initial[l as usize].clamp(params.min, params.max);
            }
        }
        LearnedIntervals { interval }
    }

    pub fn current(&self) -> &[f64; 5] {
        &self.interval
    }

    /// A task of any stage ended (same arguments as [`StageDelay::task_ended`]).
    pub fn task_ended(&mut self, params: &DelayParams, preferred: Level, actual: Level, net_oh: f64) {
        update_rule(&mut self.interval, params, preferred, actual, net_oh, |_, _| {});
    }

    /// Where a new stage starts: the learned intervals with `inherit`, else Spark's waits.
    pub fn start_for_new_stage<'a>(&'a self, params: &'a DelayParams) -> &'a [f64; 5] {
        if params.inherit {
            &self.interval
        } else {
            &params.initial
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    fn params() -> DelayParams {
        DelayParams::uniform(3.0, 0.0, 10.0, 2.0)
    }

    const LEVELS: [Level; 3] = [Level::ProcessLocal, Level::NodeLocal, Level::Any];

    #[test]
    fn update_rule_is_the_papers_average_and_is_bounded() {
        let p = params();
        let mut s = StageDelay::new(0.0, &p);
        s.task_ended(1.0, &p, Level::NodeLocal, Level::Any, 1.0);
        assert_eq!(s.interval(Level::NodeLocal), 2.0, "(3 + 1) / 2");
        s.task_ended(2.0, &p, Level::NodeLocal, Level::Any, 1.0);
        assert_eq!(s.interval(Level::NodeLocal), 1.5);
        s.task_ended(3.0, &p, Level::NodeLocal, Level::Any, 100.0);
        assert_eq!(s.interval(Level::NodeLocal), 10.0, "capped at max");
        assert_eq!(s.interval(Level::ProcessLocal), 3.0, "other levels untouched");
        let mut w = DelayParams::uniform(3.0, 0.5, 10.0, 4.0);
        w.window = 4.0;
        let mut s = StageDelay::new(0.0, &w);
        s.task_ended(1.0, &w, Level::ProcessLocal, Level::ProcessLocal, 0.0);
        assert_eq!(s.interval(Level::ProcessLocal), 2.25, "window 4: 3 + (0 - 3) / 4");
        for _ in 0..50 {
            s.task_ended(1.0, &w, Level::ProcessLocal, Level::ProcessLocal, 0.0);
        }
        assert_eq!(s.interval(Level::ProcessLocal), 0.5, "floored at min");
    }

    #[test]
    fn local_tasks_shrink_the_wait_and_remote_overhead_grows_it() {
        let p = params();
        let mut s = StageDelay::new(0.0, &p);
        s.task_ended(1.0, &p, Level::ProcessLocal, Level::ProcessLocal, 0.0);
        assert_eq!(s.interval(Level::ProcessLocal), 1.5);
        s.task_ended(2.0, &p, Level::ProcessLocal, Level::Any, 6.0);
        assert_eq!(s.interval(Level::ProcessLocal), 3.75);
        assert_eq!(s.interval(Level::NodeLocal), 4.5, "every skipped level learns the overhead");
        assert_eq!(s.interval(Level::RackLocal), 4.5);
        assert!(s.history().len() >= 3 + 4);
    }

    #[test]
    fn per_level_timers_relax_one_level_per_interval() {
        let p = params();
        let mut s = StageDelay::new(0.0, &p);
        let all = |_| true;
        assert_eq!(s.allowed(0.0, &p, &LEVELS, all), Level::ProcessLocal);
        assert_eq!(s.allowed(2.9, &p, &LEVELS, all), Level::ProcessLocal);
        assert_eq!(s.allowed(3.1, &p, &LEVELS, all), Level::NodeLocal);
        assert_eq!(s.allowed(5.9, &p, &LEVELS, all), Level::NodeLocal, "node wait runs from 3.0");
        assert_eq!(s.allowed(6.2, &p, &LEVELS, all), Level::Any);
    }

    #[test]
    fn launch_resets_the_timer_and_level() {
        let p = params();
        let mut s = StageDelay::new(0.0, &p);
        assert_eq!(s.allowed(7.0, &p, &LEVELS, |_| true), Level::Any);
        s.launched(7.0, Level::ProcessLocal, &LEVELS);
        assert_eq!(s.allowed(8.0, &p, &LEVELS, |_| true), Level::ProcessLocal, "back to the launched level");
        assert_eq!(s.allowed(10.5, &p, &LEVELS, |_| true), Level::NodeLocal);
    }

    #[test]
    fn levels_without_pending_tasks_are_skipped() {
        let p = params();
        let mut s = StageDelay::new(0.0, &p);
        assert_eq!(s.allowed(0.0, &p, &LEVELS, |l| l != Level::ProcessLocal), Level::NodeLocal);
    }

    #[test]
    fn adaptive_zero_wait_relaxes_at_once() {
        let p = params();
        let mut s = StageDelay::new(0.0, &p);
        for _ in 0..60 {
            s.task_ended(0.0, &p, Level::ProcessLocal, Level::Any, 0.0);
        }
        assert!(s.interval(Level::ProcessLocal) < 1e-9);
        assert_eq!(s.allowed(0.001, &p, &LEVELS, |_| true), Level::Any);
    }

    #[test]
    fn a_new_stage_inherits_the_learned_intervals_only_with_inherit() {
        let mut p = params();
        let mut learned = LearnedIntervals::new(&p);
        assert_eq!(learned.current()[Level::ProcessLocal as usize], 3.0, "starts at Spark's wait");
        // Stage A's tasks run local (t_netOH = 0) and one remote task lost 1 s.
        learned.task_ended(&p, Level::ProcessLocal, Level::ProcessLocal, 0.0);
        learned.task_ended(&p, Level::ProcessLocal, Level::ProcessLocal, 0.0);
        learned.task_ended(&p, Level::ProcessLocal, Level::Any, 1.0);
        let pl = learned.current()[Level::ProcessLocal as usize];
        assert_eq!(pl, (0.75 + 1.0) / 2.0, "3 -> 1.5 -> 0.75 -> 0.875");
        assert_eq!(learned.current()[Level::NodeLocal as usize], 2.0, "(3 + 1) / 2");
        let b = StageDelay::starting_at(10.0, &p, learned.start_for_new_stage(&p));
        assert_eq!(b.interval(Level::ProcessLocal), 3.0, "without inherit: Spark's wait");
        p.inherit = true;
        let b = StageDelay::starting_at(10.0, &p, learned.start_for_new_stage(&p));
        assert_eq!(b.interval(Level::ProcessLocal), 0.875, "with inherit: the learned value");
        assert_eq!(b.interval(Level::NodeLocal), 2.0);
        assert_eq!(b.history()[0].interval, 0.875, "the series starts at the inherited value");
        // so it relaxes after 0.875 s, not 3 s
        let mut b = b;
        assert_eq!(b.allowed(10.9, &p, &LEVELS, |_| true), Level::NodeLocal);
    }

    /// Property: whatever the overheads reported and whenever slots free, a waiting
    /// stage launches within `max` plus one scheduling round.
    #[test]
    fn no_task_waits_longer_than_max_plus_one_round() {
        let mut rng = Rng::new(11);
        for case in 0..300 {
            let max = 1.0 + rng.unit() * 9.0;
            let p = DelayParams::uniform(rng.unit() * 12.0, 0.0, max, 1.0 + rng.unit() * 5.0);
            let mut s = StageDelay::new(0.0, &p);
            let round = 0.05 + rng.unit();
            let mut now = 0.0;
            let mut waiting_since = 0.0;
            for _ in 0..400 {
                now += rng.unit() * round;
                if rng.unit() < 0.3 {
                    let oh = rng.unit() * 20.0;
                    s.task_ended(now, &p, Level::ProcessLocal, Level::Any, oh);
                }
                // Offers are never local: only relaxing to ANY launches anything.
                let level = s.allowed(now, &p, &LEVELS, |_| true);
                if level == Level::Any {
                    assert!(
                        now - waiting_since <= max + round + 1e-9,
                        "case {case}: waited {} > max {max} + round {round}",
                        now - waiting_since
                    );
                    s.launched(now, Level::Any, &LEVELS);
                    waiting_since = now;
                }
            }
        }
    }

    #[test]
    fn interval_history_is_bounded_and_spans_the_stage() {
        let p = params();
        let mut s = StageDelay::new(0.0, &p);
        for i in 0..1_000_000u32 {
            let t = i as f64 * 0.001;
            s.task_ended(t, &p, Level::ProcessLocal, Level::NodeLocal, (i % 7) as f64 * 0.1);
        }
        let h = s.history();
        assert!(h.len() <= MAX_HISTORY_SAMPLES, "{} samples", h.len());
        assert!(h.len() >= MAX_HISTORY_SAMPLES / 2, "{} samples", h.len());
        assert_eq!(h[0].at, 0.0, "the initial intervals stay");
        assert!(h.last().unwrap().at > 900.0, "the series reaches the end of the stage: {:?}", h.last());
        assert!(h.windows(2).all(|w| w[0].at <= w[1].at), "in time order");
    }
}
