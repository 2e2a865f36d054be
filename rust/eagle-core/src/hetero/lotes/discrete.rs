//! Stage 2b: the machine-assignment LP and its rounding (LoTES §4.2, (6)–(10)).
//!
//! `x_ij` machines of configuration `j` emulate bin `i`; bin `i` holds `N_ijk`
//! tasks of class `k`, so it devotes `ε_ijkl = N_ijk r_kl` of resource `l` to class
//! `k`. As in the allocation LP, `r_kl` appears on both sides of (7) and cancels:
//!
//! ```text
//! max λ
//! s.t. Σ_j μ_jk Σ_i N_ijk x_ij ≥ λ α_k        k ∈ K     (7) with (8) substituted
//!      Σ_i x_ij = n_j                          j ∈ M     (9)
//!      x_ij ≥ 0                                          (10)
//! ```
//!
//! The paper solves the LP relaxation and rounds: configuration `j` has
//! `q_j = Σ_i (x_ij − ⌊x_ij⌋)` machines left over; the `q_j` bins with the largest
//! fractional parts (ties: the lower bin index) get one more machine, all others
//! are rounded down. The rounded counts of each configuration sum to `n_j` exactly.

use super::classes::Class;
use super::lp::{Cmp, Lp};
use crate::error::PlacementError;

/// The machine assignment: how many machines of each configuration emulate each bin.
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// λ of the LP relaxation (an upper bound on the rounded plan's).
    pub lambda_lp: f64,
    /// λ that the rounded counts sustain.
    pub lambda_rounded: f64,
    /// `fractional[j][i]`: the LP's `x_ij`.
    pub fractional: Vec<Vec<f64>>,
    /// `machines[j][i]`: the rounded counts.
    pub machines: Vec<Vec<u32>>,
}

/// The largest λ that `counts[j][i]` machines on `bins[j][i]` sustain.
pub fn lambda_of(bins: &[Vec<Vec<u32>>], counts: &[Vec<f64>], classes: &[Class]) -> f64 {
    let mut lambda = f64::INFINITY;
    for (k, cl) in classes.iter().enumerate() {
        if cl.share <= 0.0 {
            continue;
        }
        let served: f64 =
            bins.iter().zip(counts).map(|(bj, cj)| bj.iter().zip(cj).map(|(b, &x)| b[k] as f64 * x).sum::<f64>()).sum();
        lambda = lambda.min(served / cl.mean_duration / cl.share);
    }
    if lambda.is_finite() {
        lambda
    } else {
        0.0
    }
}

/// Rounds one configuration's fractional counts so they sum to `n` (see the module doc).
pub fn round(x: &[f64], n: u32) -> Vec<u32> {
    if x.is_empty() {
        return Vec::new();
    }
    // Clean solver noise first: 2.9999999999 is 3, not 2 plus a large fraction.
    let x: Vec<f64> =
        x.iter().map(|&v| if (v - v.round()).abs() < 1e-7 { v.round().max(0.0) } else { v.max(0.0) }).collect();
    let mut out: Vec<u32> = x.iter().map(|v| v.floor() as u32).collect();
    let floor_sum: u64 = out.iter().map(|&v| v as u64).sum();
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&a, &b| (x[b] - x[b].floor()).total_cmp(&(x[a] - x[a].floor())).then(a.cmp(&b)));
    if floor_sum <= n as u64 {
        let q = (n as u64 - floor_sum) as usize;
        for &i in order.iter().cycle().take(q) {
            out[i] += 1;
        }
    } else {
        // Only from solver noise: take the excess from the smallest fractions, then the largest counts.
        let mut excess = floor_sum - n as u64;
        for &i in order.iter().rev().chain(order.iter()) {
            while excess > 0 && out[i] > 0 {
                out[i] -= 1;
                excess -= 1;
            }
        }
    }
    out
}

/// The machine-assignment LP (variable 0 is λ; `vars[j][i]` is `x_ij`).
pub fn model(
    bins: &[Vec<Vec<u32>>],
    counts: &[u32],
    classes: &[Class],
) -> Result<(Lp, Vec<Vec<usize>>), PlacementError> {
    let mut lp = Lp::default();
    let lambda = lp.var(1.0, f64::INFINITY);
    let vars: Vec<Vec<usize>> = bins.iter().map(|bj| bj.iter().map(|_| lp.var(0.0, f64::INFINITY)).collect()).collect();
    for (k, cl) in classes.iter().enumerate() {
        let mu = 1.0 / cl.mean_duration;
        let mut terms: Vec<(usize, f64)> = Vec::new();
        for (bj, vj) in bins.iter().zip(&vars) {
            for (b, &v) in bj.iter().zip(vj) {
                if b[k] > 0 {
                    terms.push((v, mu * b[k] as f64));
                }
            }
        }
        terms.push((lambda, -cl.share));
        lp.row(terms, Cmp::Ge, 0.0);
    }
    for (j, vj) in vars.iter().enumerate() {
        if vj.is_empty() {
            if counts[j] > 0 {
                return Err(PlacementError::NoBin { config: j, machines: counts[j] });
            }
            continue;
        }
        lp.row(vj.iter().map(|&v| (v, 1.0)).collect(), Cmp::Eq, counts[j] as f64);
    }
    Ok((lp, vars))
}

impl Assignment {
    /// Solves the machine-assignment LP for `bins[j]` (each a count per class) and
    /// configurations of `counts[j]` machines, then rounds it. A configuration
    /// without bins must have none of its machines planned (pass an empty-bin list
    /// `[vec![0; K]]` for it: its machines then serve no class by plan).
    pub fn solve(bins: &[Vec<Vec<u32>>], counts: &[u32], classes: &[Class]) -> Result<Assignment, PlacementError> {
        let (lp, vars) = model(bins, counts, classes)?;
        let (v, obj) = lp.maximize()?;
        let fractional: Vec<Vec<f64>> = vars.iter().map(|vj| vj.iter().map(|&i| v[i].max(0.0)).collect()).collect();
        let machines: Vec<Vec<u32>> = fractional.iter().zip(counts).map(|(x, &n)| round(x, n)).collect();
        let as_f64: Vec<Vec<f64>> = machines.iter().map(|m| m.iter().map(|&c| c as f64).collect()).collect();
        Ok(Assignment { lambda_lp: obj, lambda_rounded: lambda_of(bins, &as_f64, classes), fractional, machines })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hetero::resources::Resources;

    #[test]
    fn rounding_keeps_each_configuration_s_machine_count() {
        assert_eq!(round(&[2.5, 1.25, 1.25], 5), vec![3, 1, 1]);
        assert_eq!(round(&[0.4, 0.3, 0.3], 1), vec![1, 0, 0]);
        assert_eq!(round(&[0.5, 0.5], 1), vec![1, 0], "ties: the lower bin");
        assert_eq!(round(&[2.9999999999, 1.0000000001], 4), vec![3, 1], "solver noise is not a fraction");
        assert_eq!(round(&[3.0], 3), vec![3]);
        // Pseudo-random fractional vectors summing to n: the rounded sum is n, each
        // count is the floor or the ceiling of its x.
        let mut rng = crate::rng::Rng::new(5);
        for _ in 0..500 {
            let len = 1 + rng.below(8);
            let n = rng.below(50) as u32;
            let w: Vec<f64> = (0..len).map(|_| rng.unit() + 1e-3).collect();
            let s: f64 = w.iter().sum();
            let x: Vec<f64> = w.iter().map(|v| v / s * n as f64).collect();
            let r = round(&x, n);
            assert_eq!(r.iter().sum::<u32>(), n, "{x:?} -> {r:?}");
            for (a, b) in x.iter().zip(&r) {
                assert!((*b as f64 - a).abs() < 1.0 + 1e-6, "{x:?} -> {r:?}");
            }
        }
    }

    /// Two classes, two configurations, solved by hand.
    ///
    /// Config A: 3 machines whose bins are {2 × class 0} or {1 × class 0, 1 × class
    /// 1}; config B: 2 machines, one bin {3 × class 1}. Both classes last 1 s and are
    /// half the arrivals. With a machines of A on the mixed bin:
    /// class 0 runs 2(3 − a) + a = 6 − a, class 1 runs a + 6; λ/2 ≤ both, so the
    /// optimum is a = 0: λ* = 2 · 6 = 12 (class 0's 6 equals class 1's 6).
    #[test]
    fn hand_solved_two_by_two() {
        let classes = vec![
            Class { demand: Resources::new(vec![0.5]), share: 0.5, mean_duration: 1.0 },
            Class { demand: Resources::new(vec![0.3]), share: 0.5, mean_duration: 1.0 },
        ];
        let bins = vec![vec![vec![2, 0], vec![1, 1]], vec![vec![0, 3]]];
        let a = Assignment::solve(&bins, &[3, 2], &classes).unwrap();
        assert!((a.lambda_lp - 12.0).abs() < 1e-6, "{a:?}");
        assert_eq!(a.machines, vec![vec![3, 0], vec![2]]);
        assert!((a.lambda_rounded - 12.0).abs() < 1e-6);
    }

    #[test]
    fn rounding_can_lose_capacity_but_never_machines() {
        // One config of 1 machine, bins {1 × c0} and {1 × c1}, equal shares: the LP
        // splits the machine 0.5 / 0.5 (λ = 1); rounding gives it to one bin, and
        // the other class gets nothing (λ = 0).
        let classes = vec![
            Class { demand: Resources::new(vec![1.0]), share: 0.5, mean_duration: 1.0 },
            Class { demand: Resources::new(vec![1.0]), share: 0.5, mean_duration: 1.0 },
        ];
        let a = Assignment::solve(&[vec![vec![1, 0], vec![0, 1]]], &[1], &classes).unwrap();
        assert!((a.lambda_lp - 1.0).abs() < 1e-6);
        assert_eq!(a.machines[0].iter().sum::<u32>(), 1);
        assert_eq!(a.lambda_rounded, 0.0);
    }
}
