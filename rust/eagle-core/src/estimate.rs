//! Job classification and task-duration estimates (Eagle §3.1; docs/policies/adaptive.md).
//!
//! In Spark the estimate of a task set's mean task duration comes, in order of
//! precedence, from:
//! 1. the user's hint (local property `spark.scheduler.eagle.job.estimatedTaskMs`,
//!    and `spark.scheduler.eagle.job.class` which forces the class);
//! 2. the history of past runs of the same stage signature;
//! 3. the running mean of the task set's finished tasks;
//! 4. a configured default.
//!
//! Only sources 3 and 4 are revised as tasks finish; a hinted class is never
//! revised, and a class hint alone leaves the estimate to sources 2-4.

use crate::types::Class;
use std::collections::{BTreeMap, HashMap};

/// Default bound on the number of stage signatures a [`History`] keeps.
pub const DEFAULT_HISTORY_ENTRIES: usize = 10_000;
/// Largest bound a host may configure (`history.maxEntries`).
pub const MAX_HISTORY_ENTRIES: usize = 1_000_000;
/// Largest mean task duration a history entry may hold, seconds (30 days): anything above
/// is a corrupt file, and bounded means keep the weighted mean finite.
pub const MAX_HISTORY_MEAN: f64 = 30.0 * 86_400.0;
/// Weights (sample counts) saturate here, so the weighted mean cannot overflow and recent
/// runs keep some influence.
pub const MAX_HISTORY_SAMPLES: u64 = 1_000_000_000;

/// Where an estimate came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EstimateSource {
    Hint,
    History,
    RunningMean,
    Default,
}

/// Mean task duration of past runs per stage signature, at most `max_entries` of them:
/// the least recently used signature (looked up or recorded) is evicted first.
#[derive(Clone, Debug)]
pub struct History {
    /// signature → (mean seconds, samples, last use).
    entries: HashMap<u64, (f64, u64, u64)>,
    /// last use → signature: the eviction order.
    lru: BTreeMap<u64, u64>,
    tick: u64,
    max_entries: usize,
}

impl Default for History {
    fn default() -> Self {
        History { entries: HashMap::new(), lru: BTreeMap::new(), tick: 0, max_entries: DEFAULT_HISTORY_ENTRIES }
    }
}

/// Whether `(mean seconds, samples)` may enter a history: finite, in [0, [`MAX_HISTORY_MEAN`]],
/// at least one sample.
pub fn valid_history_sample(mean: f64, samples: u64) -> bool {
    samples > 0 && mean.is_finite() && (0.0..=MAX_HISTORY_MEAN).contains(&mean)
}

impl History {
    /// The mean of `signature`, without refreshing its recency.
    pub fn get(&self, signature: u64) -> Option<f64> {
        self.entries.get(&signature).map(|e| e.0)
    }

    /// The mean of `signature`; a hit counts as a use for the eviction order.
    pub fn lookup(&mut self, signature: u64) -> Option<f64> {
        let tick = self.next_tick();
        let e = self.entries.get_mut(&signature)?;
        self.lru.remove(&e.2);
        e.2 = tick;
        self.lru.insert(tick, signature);
        Some(e.0)
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Folds `samples` observations with mean `mean` into the signature's mean. Invalid
    /// samples (see [`valid_history_sample`]) are ignored; weights saturate at
    /// [`MAX_HISTORY_SAMPLES`].
    pub fn record(&mut self, signature: u64, mean: f64, samples: u64) {
        if !valid_history_sample(mean, samples) {
            return;
        }
        let tick = self.next_tick();
        let e = self.entries.entry(signature).or_insert((0.0, 0, 0));
        if e.1 > 0 {
            self.lru.remove(&e.2);
        }
        let old = e.1.min(MAX_HISTORY_SAMPLES) as f64;
        let new = samples.min(MAX_HISTORY_SAMPLES) as f64;
        e.0 = (e.0 * old + mean * new) / (old + new);
        e.1 = e.1.saturating_add(samples).min(MAX_HISTORY_SAMPLES);
        e.2 = tick;
        self.lru.insert(tick, signature);
        self.evict();
    }

    /// Bounds the history to `n` (>= 1) signatures, evicting the least recently used.
    pub fn set_max_entries(&mut self, n: usize) {
        self.max_entries = n.max(1);
        self.evict();
    }

    pub fn max_entries(&self) -> usize {
        self.max_entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn evict(&mut self) {
        while self.entries.len() > self.max_entries {
            let Some((_, sig)) = self.lru.pop_first() else { break };
            self.entries.remove(&sig);
        }
    }

    /// `(signature, mean seconds, samples)`, least recently used first (so that loading
    /// them back in order restores the eviction order).
    pub fn entries(&self) -> Vec<(u64, f64, u64)> {
        self.lru
            .values()
            .map(|sig| {
                let (m, n, _) = self.entries[sig];
                (*sig, m, n)
            })
            .collect()
    }

    pub fn load(&mut self, entries: &[(u64, f64, u64)]) {
        for &(sig, mean, n) in entries {
            self.record(sig, mean, n);
        }
    }
}

/// The first estimate of a job, and whether its class is forced.
pub fn initial(
    hint_class: Option<Class>,
    hint_estimate: Option<f64>,
    history: Option<f64>,
    default_class: Class,
    default_estimate: f64,
    cutoff: f64,
) -> (Class, f64, EstimateSource, bool) {
    let (est, source) = match (hint_estimate, history) {
        (Some(e), _) => (e, EstimateSource::Hint),
        (None, Some(h)) => (h, EstimateSource::History),
        (None, None) => (default_estimate, EstimateSource::Default),
    };
    match hint_class {
        // A class hint forces the class only: the estimate keeps its own source, so a
        // default one is still revised by the running mean.
        Some(c) => (c, est, source, true),
        None if source == EstimateSource::Default => (default_class, est, source, false),
        None => (Class::from_estimate(est, cutoff), est, source, false),
    }
}

/// The application's typical task (adaptive policy): the median warm mean task duration of
/// the last [`TYPICAL_TASK_SETS`] task sets of the default class that ended with a warm
/// task measured (a task that started on an executor where one of its task set's tasks
/// had already ended; see [`crate::adaptive::warmup`]).
///
/// A task set with no hint and no history is estimated at it until its own tasks end:
/// `defaultEstimateMs` stands only while nothing is known. Such a task set gets the default
/// class, so the typical task is of that class only: on TPC-H under a sort, a median over
/// every task set was the sort's (3.8-5 s) for the first queries' stages, whose tasks run
/// 0.2-1.6 s. The median, so that a few long stages do not set every new stage's estimate.
#[derive(Clone, Debug)]
pub struct TypicalTask {
    means: WindowedMedian,
}

impl Default for TypicalTask {
    fn default() -> Self {
        TypicalTask { means: WindowedMedian::new(TYPICAL_TASK_SETS) }
    }
}

/// How many ended task sets [`TypicalTask`] keeps.
pub const TYPICAL_TASK_SETS: usize = 256;

impl TypicalTask {
    /// A task set ended with this mean task duration (seconds).
    pub fn ended(&mut self, mean: f64) {
        if !(mean.is_finite() && mean > 0.0) {
            return;
        }
        self.means.push(mean);
    }

    /// The median, once a task set has ended.
    pub fn median(&self) -> Option<f64> {
        self.means.median()
    }
}

/// The median of the last `cap` values pushed: a robust running estimate, where a few
/// outliers (long stages among short ones) should not move it.
#[derive(Clone, Debug)]
pub struct WindowedMedian {
    values: std::collections::VecDeque<f64>,
    cap: usize,
    median: Option<f64>,
}

impl WindowedMedian {
    pub fn new(cap: usize) -> Self {
        WindowedMedian { values: std::collections::VecDeque::with_capacity(cap.max(1)), cap: cap.max(1), median: None }
    }

    /// Adds a value, dropping the oldest beyond `cap`.
    pub fn push(&mut self, v: f64) {
        if self.values.len() == self.cap {
            self.values.pop_front();
        }
        self.values.push_back(v);
        let mut sorted: Vec<f64> = self.values.iter().copied().collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        self.median = Some(if n % 2 == 1 { sorted[n / 2] } else { (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0 });
    }

    /// The median, once a value has been pushed.
    pub fn median(&self) -> Option<f64> {
        self.median
    }
}

/// Running mean of finished tasks.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct RunningMean {
    pub sum: f64,
    pub count: u64,
}

impl RunningMean {
    pub fn add(&mut self, x: f64) {
        self.sum += x;
        self.count += 1;
    }
    pub fn mean(&self) -> Option<f64> {
        (self.count > 0).then(|| self.sum / self.count as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_hint_history_default() {
        let (c, e, s, forced) = initial(None, Some(2.0), Some(50.0), Class::Short, 1.0, 10.0);
        assert_eq!((c, e, s, forced), (Class::Short, 2.0, EstimateSource::Hint, false));
        let (c, e, s, _) = initial(None, None, Some(50.0), Class::Short, 1.0, 10.0);
        assert_eq!((c, e, s), (Class::Long, 50.0, EstimateSource::History));
        let (c, e, s, forced) = initial(None, None, None, Class::Long, 1.0, 10.0);
        assert_eq!((c, e, s, forced), (Class::Long, 1.0, EstimateSource::Default, false));
        let (c, _, _, forced) = initial(Some(Class::Short), None, Some(50.0), Class::Long, 1.0, 10.0);
        assert_eq!((c, forced), (Class::Short, true), "a class hint wins over history");
    }

    #[test]
    fn history_is_a_weighted_mean() {
        let mut h = History::default();
        h.record(7, 2.0, 2);
        h.record(7, 5.0, 1);
        assert_eq!(h.get(7), Some(3.0));
        h.record(7, f64::NAN, 3);
        assert_eq!(h.get(7), Some(3.0));
        assert_eq!(h.entries(), vec![(7, 3.0, 3)]);
        let mut g = History::default();
        g.load(&h.entries());
        assert_eq!(g.get(7), Some(3.0));
    }

    #[test]
    fn history_rejects_absurd_samples_and_stays_finite() {
        let mut h = History::default();
        h.record(1, f64::INFINITY, 1);
        h.record(1, -1.0, 1);
        h.record(1, MAX_HISTORY_MEAN * 2.0, 1);
        h.record(1, 1.0, 0);
        assert_eq!(h.get(1), None);
        h.record(2, MAX_HISTORY_MEAN, u64::MAX);
        h.record(2, MAX_HISTORY_MEAN, u64::MAX);
        h.record(2, 1.0, u64::MAX);
        let m = h.get(2).unwrap();
        assert!(m.is_finite() && m > 0.0 && m <= MAX_HISTORY_MEAN, "{m}");
        assert_eq!(h.entries()[0].2, MAX_HISTORY_SAMPLES);
    }

    #[test]
    fn history_is_bounded_and_evicts_the_least_recently_used() {
        let mut h = History::default();
        h.set_max_entries(3);
        for sig in 0..3 {
            h.record(sig, 1.0, 1);
        }
        assert_eq!(h.lookup(0), Some(1.0)); // 0 is now the most recent; 1 the least
        h.record(3, 1.0, 1);
        assert_eq!(h.len(), 3);
        assert_eq!(h.get(1), None, "the least recently used entry is evicted");
        assert!(h.get(0).is_some() && h.get(2).is_some() && h.get(3).is_some());
        assert_eq!(h.entries().iter().map(|e| e.0).collect::<Vec<_>>(), vec![2, 0, 3]);
        for sig in 100..10_000 {
            h.record(sig, 1.0, 1);
        }
        assert_eq!(h.len(), 3);
        h.set_max_entries(1);
        assert_eq!(h.entries().iter().map(|e| e.0).collect::<Vec<_>>(), vec![9_999]);
    }
}
