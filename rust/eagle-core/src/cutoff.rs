//! The learned short/long split (eagle-adaptive; our extension of Eagle §3.1, whose
//! cutoff is one absolute number fixed per trace).
//!
//! Without an explicit `cutoffMs`, the application's own task durations decide. Every
//! task set contributes one sample, `ln(mean task duration)`: its estimate when it is
//! submitted with a hint or a history entry, and its observed mean when it ends. Over
//! the last `capacity` samples, the optimal two-cluster split of the sorted log
//! durations (1-D 2-means, exact by prefix sums) is accepted when
//!
//! - each side holds at least two task sets,
//! - the cluster means are at least `min_ratio` apart (×4 by default), and
//! - the split explains at least half of the variance,
//!
//! and the cutoff is the geometric midpoint between the longest short sample and the
//! shortest long one. With one cluster only there is no split: every task set is short
//! and SRPT alone orders them. The published cutoff stays while it still lies between
//! the two clusters found, and otherwise moves only by more than `hysteresis` (25 %), so
//! classes do not flap as samples arrive.

use std::collections::VecDeque;

#[derive(Clone, Debug)]
pub struct CutoffLearner {
    samples: VecDeque<f64>,
    capacity: usize,
    min_ratio: f64,
    hysteresis: f64,
    cutoff: Option<f64>,
    /// `(samples seen, cutoff)` each time the published cutoff changed.
    changes: Vec<(u64, f64)>,
    seen: u64,
}

impl Default for CutoffLearner {
    fn default() -> Self {
        CutoffLearner::new(256)
    }
}

impl CutoffLearner {
    pub fn new(capacity: usize) -> CutoffLearner {
        CutoffLearner {
            samples: VecDeque::with_capacity(capacity),
            capacity: capacity.max(2),
            min_ratio: 4.0,
            hysteresis: 0.25,
            cutoff: None,
            changes: Vec::new(),
            seen: 0,
        }
    }

    /// The split learned so far (seconds), if the samples show two classes.
    pub fn cutoff(&self) -> Option<f64> {
        self.cutoff
    }

    /// Adds a task set's mean task duration (seconds); returns true when the published
    /// cutoff changed.
    pub fn observe(&mut self, seconds: f64) -> bool {
        if !(seconds.is_finite() && seconds > 0.0) {
            return false;
        }
        if self.samples.len() == self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(seconds.ln());
        self.seen += 1;
        let Some((new, lo_max, hi_min)) = self.split() else { return false };
        // The published cutoff stays while it still separates the two clusters found.
        let moved = self.cutoff.is_none_or(|old| {
            let inside = old.ln() > lo_max && old.ln() < hi_min;
            !inside && (new / old - 1.0).abs() > self.hysteresis
        });
        if moved {
            self.cutoff = Some(new);
            if self.changes.len() >= 1024 {
                self.changes.remove(0);
            }
            self.changes.push((self.seen, new));
        }
        moved
    }

    /// The optimal 2-means split of the samples, if it is a real one: the cutoff, and
    /// the largest short and smallest long log-duration.
    fn split(&self) -> Option<(f64, f64, f64)> {
        let mut v: Vec<f64> = self.samples.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n < 2 {
            return None;
        }
        let mut pre = vec![0.0; n + 1];
        let mut pre2 = vec![0.0; n + 1];
        for (i, x) in v.iter().enumerate() {
            pre[i + 1] = pre[i] + x;
            pre2[i + 1] = pre2[i] + x * x;
        }
        let sse = |a: usize, b: usize| {
            let k = (b - a) as f64;
            let s = pre[b] - pre[a];
            (pre2[b] - pre2[a]) - s * s / k
        };
        let total = sse(0, n);
        if total <= 1e-12 {
            return None;
        }
        // At least two task sets on each side: one outlier (a slow first stage, a single
        // hint) is not a class.
        let (mut best, mut at) = (f64::INFINITY, 0);
        for k in 2..n.saturating_sub(1) {
            if v[k] == v[k - 1] {
                continue;
            }
            let e = sse(0, k) + sse(k, n);
            if e < best {
                best = e;
                at = k;
            }
        }
        if at == 0 {
            return None;
        }
        let lo = (pre[at]) / at as f64;
        let hi = (pre[n] - pre[at]) / (n - at) as f64;
        if hi - lo < self.min_ratio.ln() || best > 0.5 * total {
            return None;
        }
        Some((((v[at - 1] + v[at]) / 2.0).exp(), v[at - 1], v[at]))
    }

    /// `(samples seen, cutoff seconds)` each time the cutoff changed (the last 1024).
    pub fn changes(&self) -> &[(u64, f64)] {
        &self.changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_cluster_has_no_split() {
        let mut l = CutoffLearner::default();
        for x in [2.0, 2.5, 3.0, 2.2, 2.8] {
            l.observe(x);
        }
        assert_eq!(l.cutoff(), None);
    }

    #[test]
    fn two_clusters_split_between_them() {
        let mut l = CutoffLearner::default();
        for x in [0.1, 0.2, 0.15, 3.0, 0.12, 2.5] {
            l.observe(x);
        }
        let c = l.cutoff().expect("a split");
        assert!(c > 0.2 && c < 2.5, "cutoff {c} lies between the clusters");
    }

    #[test]
    fn hysteresis_keeps_the_cutoff_steady() {
        let mut l = CutoffLearner::default();
        for x in [0.1, 3.0, 0.1, 3.0] {
            l.observe(x);
        }
        let c0 = l.cutoff().unwrap();
        let mut changes = 0;
        for i in 0..100 {
            let x = if i % 2 == 0 { 0.1 + 0.01 * (i % 5) as f64 } else { 3.0 + 0.1 * (i % 3) as f64 };
            changes += l.observe(x) as u32;
        }
        assert_eq!(changes, 0, "samples from the same two clusters do not move it");
        assert_eq!(l.cutoff(), Some(c0));
    }

    #[test]
    fn one_sample_is_not_a_class() {
        let mut l = CutoffLearner::default();
        for x in [15.0, 2.0, 0.1] {
            l.observe(x);
        }
        assert_eq!(l.cutoff(), None, "a slow first stage alone does not split 15 s from 2 s");
        l.observe(0.1);
        let c = l.cutoff().unwrap();
        assert!(c > 0.1 && c < 2.0, "{c}");
    }

    #[test]
    fn bad_samples_are_ignored() {
        let mut l = CutoffLearner::default();
        assert!(!l.observe(f64::NAN));
        assert!(!l.observe(-1.0));
        assert!(!l.observe(0.0));
        assert_eq!(l.cutoff(), None);
    }

    #[test]
    fn the_window_forgets_old_samples() {
        let mut l = CutoffLearner::new(8);
        for _ in 0..4 {
            l.observe(0.1);
            l.observe(10.0);
        }
        assert!(l.cutoff().is_some());
        for _ in 0..8 {
            l.observe(1.0);
        }
        // Only 1.0 s samples left: no split is found, the last published one stays.
        assert!(l.cutoff().is_some());
        assert!(l.split().is_none());
    }
}
