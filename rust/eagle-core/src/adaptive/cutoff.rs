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
//! - the cluster means are at least `min_ratio` apart (×4 by default),
//! - the split explains at least half of the variance, and
//! - it lies in a valley: the samples within `±VALLEY_BIN/2` (in ln) of the boundary
//!   are at most half as many as around a typical (median) sample of either side. A broad class
//!   (short tasks spread over 3–90 ms, say) splits into two halves with almost as much
//!   variance explained as the split between the classes; without the valley test the
//!   best split jumps between the two as samples arrive.
//!
//! The best split that passes is kept, and the cutoff is the geometric midpoint between
//! the longest short sample and the shortest long one. With one cluster only there is no
//! split: every task set is short and SRPT alone orders them. The published cutoff stays
//! while the split at it still passes and explains at least `KEEP` (90 %) of what the
//! best split explains, and otherwise moves only by more than `hysteresis` (25 %), so
//! classes do not flap as samples arrive.

use std::collections::VecDeque;

/// Width of the density window of the valley test, in ln units (a factor of e^0.5 ≈ 1.65).
const VALLEY_BIN: f64 = 0.5;
/// The published split stays while it explains this share of the best split's variance.
const KEEP: f64 = 0.9;

/// Prefix sums of `v` and of its squares.
fn prefix_sums(v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let mut pre = vec![0.0; v.len() + 1];
    let mut pre2 = vec![0.0; v.len() + 1];
    for (i, x) in v.iter().enumerate() {
        pre[i + 1] = pre[i] + x;
        pre2[i + 1] = pre2[i] + x * x;
    }
    (pre, pre2)
}

/// One candidate split of the sorted samples: the first long index and its SSE.
#[derive(Clone, Copy, Debug)]
struct Split {
    at: usize,
    sse: f64,
}

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
        let mut v: Vec<f64> = self.samples.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let Some((best, total)) = self.best_split(&v) else { return false };
        let new = ((v[best.at - 1] + v[best.at]) / 2.0).exp();
        // The published cutoff stays while the split at it still passes and explains
        // nearly as much as the best one.
        let moved = self.cutoff.is_none_or(|old| {
            let at = v.partition_point(|&x| x < old.ln());
            let (pre, pre2) = prefix_sums(&v);
            let kept = self.evaluate(&v, &pre, &pre2, at).is_some_and(|k| total - k.sse >= KEEP * (total - best.sse));
            !kept && (new / old - 1.0).abs() > self.hysteresis
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

    /// The split of the sorted samples `v` before index `at`, if it passes every test of
    /// the module rule. `pre`/`pre2` are prefix sums of `v` and of its squares.
    fn evaluate(&self, v: &[f64], pre: &[f64], pre2: &[f64], at: usize) -> Option<Split> {
        let n = v.len();
        if at < 2 || at + 2 > n || v[at] == v[at - 1] {
            return None;
        }
        let sse = |a: usize, b: usize| {
            let s = pre[b] - pre[a];
            (pre2[b] - pre2[a]) - s * s / (b - a) as f64
        };
        let total = sse(0, n);
        let split = sse(0, at) + sse(at, n);
        let lo = pre[at] / at as f64;
        let hi = (pre[n] - pre[at]) / (n - at) as f64;
        if hi - lo < self.min_ratio.ln() || split > 0.5 * total {
            return None;
        }
        self.in_valley(v, at).then_some(Split { at, sse: split })
    }

    /// The valley test: samples within ±VALLEY_BIN/2 of the boundary are none, or at most
    /// half as many as around a typical (median) sample of either side, when that side is
    /// dense enough (≥ 6) for the comparison to mean something.
    fn in_valley(&self, v: &[f64], at: usize) -> bool {
        let around = |x: f64| {
            v.partition_point(|&y| y <= x + VALLEY_BIN / 2.0) - v.partition_point(|&y| y < x - VALLEY_BIN / 2.0)
        };
        let boundary = around((v[at - 1] + v[at]) / 2.0);
        if boundary == 0 {
            return true;
        }
        let typical = |a: &[f64]| {
            let mut d: Vec<usize> = a.iter().map(|&x| around(x)).collect();
            let mid = d.len() / 2;
            *d.select_nth_unstable(mid).1
        };
        let t = typical(&v[..at]).min(typical(&v[at..]));
        t >= 6 && 2 * boundary <= t
    }

    /// The best split that passes (least SSE), and the samples' total SSE. Candidates are
    /// tried in SSE order, so the valley test runs only until one passes.
    fn best_split(&self, v: &[f64]) -> Option<(Split, f64)> {
        let n = v.len();
        if n < 4 {
            return None;
        }
        let (pre, pre2) = prefix_sums(v);
        let total = (pre2[n] - pre2[0]) - pre[n] * pre[n] / n as f64;
        if total <= 1e-12 {
            return None;
        }
        let sse = |k: usize| {
            let part = |a: usize, b: usize| {
                let s = pre[b] - pre[a];
                (pre2[b] - pre2[a]) - s * s / (b - a) as f64
            };
            part(0, k) + part(k, n)
        };
        let mut order: Vec<(f64, usize)> = (2..n - 1).map(|k| (sse(k), k)).collect();
        order.sort_by(|a, b| a.0.total_cmp(&b.0));
        let best = order.into_iter().find_map(|(_, k)| self.evaluate(v, &pre, &pre2, k))?;
        Some((best, total))
    }

    /// The best split of the current samples, if any: the cutoff, and the largest short
    /// and smallest long log-duration.
    #[cfg(test)]
    fn split(&self) -> Option<(f64, f64, f64)> {
        let mut v: Vec<f64> = self.samples.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let (b, _) = self.best_split(&v)?;
        Some((((v[b.at - 1] + v[b.at]) / 2.0).exp(), v[b.at - 1], v[b.at]))
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

    /// Durations as in the Yahoo replay: most task sets short, spread over a 30× range
    /// (3–90 ms), a few long (0.3–3 s). The split between the short ones explains almost
    /// as much variance as the one between the classes, so the best split alone jumps
    /// between them as samples arrive; the published cutoff must not.
    #[test]
    fn a_broad_short_class_does_not_make_the_cutoff_wander() {
        let mut rng = crate::rng::Rng::new(7);
        let mut l = CutoffLearner::default();
        let mut published = Vec::new();
        for i in 0..3000 {
            let x = if rng.below(100) < 8 {
                (0.3f64.ln() + rng.unit() * (3.0f64.ln() - 0.3f64.ln())).exp()
            } else {
                (0.003f64.ln() + rng.unit() * (0.09f64.ln() - 0.003f64.ln())).exp()
            };
            if l.observe(x) {
                published.push((i, l.cutoff().unwrap()));
            }
        }
        // A few moves while the first samples arrive; none once 200 have been seen.
        assert!(published.len() <= 8, "the cutoff changed {} times: {published:?}", published.len());
        assert!(published.iter().all(|&(i, _)| i < 200), "moves after warm-up: {published:?}");
        let c = l.cutoff().expect("a split");
        assert!(c > 0.05 && c < 0.3, "cutoff {c} should lie near the gap between the classes");
    }
}
