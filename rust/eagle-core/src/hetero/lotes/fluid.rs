//! Stage 1: the allocation LP over pooled configurations (LoTES §4.1, (1)–(5)).
//!
//! The paper's variables are `δ_jkl`, the fraction of resource `l` of pool `j`
//! devoted to class `k`. Constraint (3) forces `δ_jkl c_jl / r_kl` to be the same
//! for every `l`: it is the number of class-`k` tasks pool `j` runs at once,
//!
//! ```text
//! x_jk = δ_jkl · n_j · c_jl / r_kl        (any l with r_kl > 0)
//! ```
//!
//! Substituting `x_jk` gives the same LP with |M|·|K| + 1 variables instead of
//! |M|·|K|·|R| + 1 and no equality rows:
//!
//! ```text
//! max λ
//! s.t. Σ_j μ_jk · x_jk ≥ λ · α_k                 k ∈ K        (2)
//!      Σ_k r_kl · x_jk ≤ n_j · c_jl              j ∈ M, l ∈ R (4)
//!      x_jk ≥ 0                                                 (5)
//! ```
//!
//! and `δ_jkl = x_jk · r_kl / (n_j c_jl)` back. A class whose single task does not
//! fit one machine of `j` gets `x_jk = 0` (the paper's `μ_jk = 0` for pairs that
//! cannot run together).

use super::classes::Class;
use super::lp::{Cmp, Lp};
use crate::error::PlacementError;
use crate::hetero::MachineConfig;

/// The allocation LP's answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Fluid {
    /// Maximum stable arrival rate λ* (tasks per second), an upper bound.
    pub lambda: f64,
    /// `x[j][k]`: class-`k` tasks pool `j` runs at once.
    pub x: Vec<Vec<f64>>,
}

impl Fluid {
    /// Solves the allocation LP. Errors when no class fits any machine.
    pub fn solve(configs: &[MachineConfig], classes: &[Class]) -> Result<Fluid, PlacementError> {
        let mut lp = Lp::default();
        let lambda = lp.var(1.0, f64::INFINITY);
        let mut x = vec![vec![0usize; classes.len()]; configs.len()];
        for (j, c) in configs.iter().enumerate() {
            for (k, cl) in classes.iter().enumerate() {
                let fits = c.count > 0 && cl.demand.fits_in(&c.capacity);
                x[j][k] = lp.var(0.0, if fits { f64::INFINITY } else { 0.0 });
            }
        }
        for (k, cl) in classes.iter().enumerate() {
            let mu = 1.0 / cl.mean_duration;
            let mut terms: Vec<(usize, f64)> = (0..configs.len()).map(|j| (x[j][k], mu)).collect();
            terms.push((lambda, -cl.share));
            lp.row(terms, Cmp::Ge, 0.0);
        }
        for (j, c) in configs.iter().enumerate() {
            for l in 0..c.capacity.dims() {
                let terms: Vec<(usize, f64)> = classes
                    .iter()
                    .enumerate()
                    .filter(|(_, cl)| cl.demand.get(l) > 0.0)
                    .map(|(k, cl)| (x[j][k], cl.demand.get(l)))
                    .collect();
                if !terms.is_empty() {
                    lp.row(terms, Cmp::Le, c.count as f64 * c.capacity.get(l));
                }
            }
        }
        let (v, obj) = lp.maximize()?;
        if obj <= 0.0 {
            return Err(PlacementError::NoThroughput);
        }
        Ok(Fluid { lambda: obj, x: x.iter().map(|row| row.iter().map(|&i| v[i].max(0.0)).collect()).collect() })
    }

    /// `K^j`: the classes pool `j` serves (`δ_jk > 0`), in class order.
    pub fn classes_of(&self, j: usize) -> Vec<usize> {
        let top = self.x.iter().flatten().fold(0.0f64, |a, &b| a.max(b));
        (0..self.x[j].len()).filter(|&k| self.x[j][k] > 1e-9 * top.max(1.0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hetero::resources::Resources;

    /// Two classes, two configurations, solved by hand.
    ///
    /// Pool A: 10 machines of (cores 1, mem 1); pool B: 10 of (cores 1, mem 4).
    /// Class 1: (0.5 cores, 0.5 mem), class 2: (0.5 cores, 2 mem); both last 1 s,
    /// half the arrivals each.
    ///
    /// Class 2 does not fit A's memory (2 > 1). Cores bind everywhere: A runs at
    /// most 20 tasks at once (of class 1), B at most 20 in total. With x_A1 = 20 on
    /// A and B split (x_B1, x_B2): λ/2 ≤ 20 + x_B1 and λ/2 ≤ x_B2, x_B1 + x_B2 ≤ 20
    /// (B's memory, 0.5 x_B1 + 2 x_B2 ≤ 40, does not bind then). So x_B2 = 20,
    /// x_B1 = 0, λ* = 40.
    #[test]
    fn hand_solved_two_by_two() {
        let cfgs = vec![
            MachineConfig { count: 10, capacity: Resources::new(vec![1.0, 1.0]) },
            MachineConfig { count: 10, capacity: Resources::new(vec![1.0, 4.0]) },
        ];
        let classes = vec![
            Class { demand: Resources::new(vec![0.5, 0.5]), share: 0.5, mean_duration: 1.0 },
            Class { demand: Resources::new(vec![0.5, 2.0]), share: 0.5, mean_duration: 1.0 },
        ];
        let f = Fluid::solve(&cfgs, &classes).unwrap();
        assert!((f.lambda - 40.0).abs() < 1e-6, "{f:?}");
        assert!((f.x[0][0] - 20.0).abs() < 1e-6 && f.x[0][1] == 0.0);
        assert!((f.x[1][1] - 20.0).abs() < 1e-6 && f.x[1][0].abs() < 1e-6);
        assert_eq!((f.classes_of(0), f.classes_of(1)), (vec![0], vec![1]));
    }
}
