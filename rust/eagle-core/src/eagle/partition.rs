//! Partitions of the cluster (Eagle §3.1, "the short partition").
//!
//! A fixed fraction of nodes forms the *short-only partition*: only short work
//! runs there, so short jobs always have somewhere to go when long jobs fill the
//! rest. Long tasks run only in the *general* (big) partition. Short probes may
//! target every node of the *small* partition (all nodes in the paper's setups).
//!
//! Simulator mode follows the reference simulator's formulas exactly:
//! small = ids `[0, floor(S·N/100) − 1]`, big = `[floor((100 − B)·N/100), N − 1]`,
//! short-only = `[0, first big id)`.
//!
//! Driver mode (Spark) recomputes the partition as executors come and go: the
//! short-only partition is the lowest-id live executors, `round(f·n)` of them, at
//! least one when there are two or more executors and never all of them.

use crate::types::NodeId;

#[derive(Clone, Debug, Default)]
pub struct Partitions {
    /// Nodes where short probes may go.
    pub small: Vec<NodeId>,
    /// Nodes where long tasks may go (the general partition).
    pub big: Vec<NodeId>,
    /// Nodes reserved for short work (the fallback target of SSS).
    pub short_only: Vec<NodeId>,
}

impl Partitions {
    /// The reference simulator's static partitions over nodes `0..n`.
    pub fn static_layout(n: usize, small_pct: f64, big_pct: f64) -> Partitions {
        let last_small = ((small_pct * n as f64) / 100.0).floor() as usize; // exclusive end
        let first_big = (((100.0 - big_pct) * n as f64) / 100.0).floor() as usize;
        let first_big = first_big.min(n);
        Partitions {
            small: (0..last_small.min(n)).map(|i| NodeId(i as u32)).collect(),
            big: (first_big..n).map(|i| NodeId(i as u32)).collect(),
            short_only: (0..first_big).map(|i| NodeId(i as u32)).collect(),
        }
    }

    /// Driver-mode partitions over the live nodes (sorted by id).
    pub fn dynamic_layout(live: &[NodeId], short_fraction: f64) -> Partitions {
        Partitions::with_short_only(live, short_only_count(live.len(), short_fraction))
    }

    /// The live nodes (sorted by id) with the lowest `k` short-only (`k` ≤ their number).
    pub fn with_short_only(live: &[NodeId], k: usize) -> Partitions {
        let k = k.min(live.len());
        Partitions { small: live.to_vec(), big: live[k..].to_vec(), short_only: live[..k].to_vec() }
    }
}

/// How many executors the short-only partition gets out of `n`.
pub fn short_only_count(n: usize, fraction: f64) -> usize {
    if n < 2 || fraction <= 0.0 {
        return 0;
    }
    ((fraction * n as f64).round() as usize).clamp(1, n - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_layout_yahoo_4000() {
        let p = Partitions::static_layout(4000, 100.0, 98.0);
        assert_eq!(p.small.len(), 4000);
        assert_eq!(p.short_only.len(), 80);
        assert_eq!(p.short_only.last(), Some(&NodeId(79)));
        assert_eq!(p.big.first(), Some(&NodeId(80)));
        assert_eq!(p.big.len(), 3920);
    }

    #[test]
    fn reference_layout_google_5000() {
        let p = Partitions::static_layout(5000, 100.0, 83.0);
        assert_eq!(p.short_only.len(), 850);
        assert_eq!(p.big.len(), 4150);
    }

    #[test]
    fn dynamic_keeps_one_short_and_one_general() {
        assert_eq!(short_only_count(0, 0.1), 0);
        assert_eq!(short_only_count(1, 0.1), 0);
        assert_eq!(short_only_count(2, 0.1), 1);
        assert_eq!(short_only_count(2, 0.9), 1);
        assert_eq!(short_only_count(20, 0.1), 2);
        assert_eq!(short_only_count(20, 0.0), 0);
        let live: Vec<NodeId> = [3, 5, 9].iter().map(|&i| NodeId(i)).collect();
        let p = Partitions::dynamic_layout(&live, 0.2);
        assert_eq!(p.short_only, vec![NodeId(3)]);
        assert_eq!(p.big, vec![NodeId(5), NodeId(9)]);
    }
}
