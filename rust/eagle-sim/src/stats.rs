//! Summary statistics of job running times.
//!
//! Percentiles interpolate linearly between closest ranks, like numpy's default
//! (`method="linear"`): for `p` in [0, 100] over `n` sorted values the rank is
//! `p/100 · (n−1)`, and the result lies on the segment between the two values
//! around it.

use serde::Serialize;

/// The `p`-th percentile of `sorted` (ascending), or `None` when it is empty.
pub fn percentile(sorted: &[f64], p: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (p / 100.0).clamp(0.0, 1.0) * (sorted.len() - 1) as f64;
    let lo = rank.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    let frac = rank - lo as f64;
    let (a, b) = (sorted[lo], sorted[hi]);
    // numpy's lerp: exact at both ends.
    Some(if frac >= 0.5 { b - (b - a) * (1.0 - frac) } else { a + (b - a) * frac })
}

/// Count, p50/p90/p99 and mean of a sample; the statistics are `None` when empty.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub count: usize,
    pub p50: Option<f64>,
    pub p90: Option<f64>,
    pub p99: Option<f64>,
    pub mean: Option<f64>,
}

impl Summary {
    /// Summarizes `values` (sorted in place).
    pub fn of(values: &mut [f64]) -> Summary {
        values.sort_by(f64::total_cmp);
        let mean = if values.is_empty() { None } else { Some(values.iter().sum::<f64>() / values.len() as f64) };
        Summary {
            count: values.len(),
            p50: percentile(values, 50.0),
            p90: percentile(values, 90.0),
            p99: percentile(values, 99.0),
            mean,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_like_numpy() {
        // numpy.percentile([1,2,3,4], [50, 90, 99]) == [2.5, 3.7, 3.97]
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 50.0), Some(2.5));
        assert!((percentile(&v, 90.0).unwrap() - 3.7).abs() < 1e-12);
        assert!((percentile(&v, 99.0).unwrap() - 3.97).abs() < 1e-12);
        assert_eq!(percentile(&v, 0.0), Some(1.0));
        assert_eq!(percentile(&v, 100.0), Some(4.0));
        assert_eq!(percentile(&[], 50.0), None);
        assert_eq!(percentile(&[7.0], 99.0), Some(7.0));
    }

    #[test]
    fn summary_sorts_and_averages() {
        // numpy.percentile([10, 0, 5, 20, 15, 30, 25, 40, 35, 45, 50], 90) == 45.0; p99 == 49.5
        let mut v = vec![10.0, 0.0, 5.0, 20.0, 15.0, 30.0, 25.0, 40.0, 35.0, 45.0, 50.0];
        let s = Summary::of(&mut v);
        assert_eq!(s.count, 11);
        assert_eq!(s.p50, Some(25.0));
        assert_eq!(s.p90, Some(45.0));
        assert!((s.p99.unwrap() - 49.5).abs() < 1e-12);
        assert!((s.mean.unwrap() - 25.0).abs() < 1e-12);
        assert_eq!(Summary::of(&mut []).p50, None);
    }
}
