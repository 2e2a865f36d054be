//! Job classification and task-duration estimates (Eagle §3.1; ALGORITHMS.md).
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
//! revised.

use crate::types::Class;
use std::collections::HashMap;

/// Where an estimate came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EstimateSource {
    Hint,
    History,
    RunningMean,
    Default,
}

/// Mean task duration of past runs per stage signature.
#[derive(Clone, Debug, Default)]
pub struct History {
    entries: HashMap<u64, (f64, u64)>,
}

impl History {
    pub fn get(&self, signature: u64) -> Option<f64> {
        self.entries.get(&signature).map(|e| e.0)
    }

    /// Folds `samples` observations with mean `mean` into the signature's mean.
    pub fn record(&mut self, signature: u64, mean: f64, samples: u64) {
        if samples == 0 || !mean.is_finite() || mean < 0.0 {
            return;
        }
        let e = self.entries.entry(signature).or_insert((0.0, 0));
        let total = e.1 + samples;
        e.0 = (e.0 * e.1 as f64 + mean * samples as f64) / total as f64;
        e.1 = total;
    }

    /// `(signature, mean seconds, samples)`, sorted by signature.
    pub fn entries(&self) -> Vec<(u64, f64, u64)> {
        let mut v: Vec<_> = self.entries.iter().map(|(k, (m, n))| (*k, *m, *n)).collect();
        v.sort_by_key(|e| e.0);
        v
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
        Some(c) => (c, est, if source == EstimateSource::Default { EstimateSource::Hint } else { source }, true),
        None if source == EstimateSource::Default => (default_class, est, source, false),
        None => (Class::from_estimate(est, cutoff), est, source, false),
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
}
