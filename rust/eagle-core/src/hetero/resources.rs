//! Multi-resource amounts: a machine's capacity or a task's demand (LoTES §2).
//!
//! A machine of configuration `j` has `c_jl` of each resource `l ∈ R` (cores,
//! memory, any custom resource); a task asks for `r_kl`. Every task runs on one
//! machine, and the tasks running on a machine may not exceed its capacity in any
//! resource. The units are the caller's: the paper normalizes each resource to the
//! largest machine's, Spark counts cores, MiB and custom amounts. The engine only
//! compares, adds and subtracts amounts of the same resource.

/// Relative slack when deciding whether a demand fits: sums of floating-point
/// demands that exactly fill a machine must still fit.
pub const FIT_EPS: f64 = 1e-9;

/// An amount of each resource, in a fixed order shared by a whole cluster.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Resources(Vec<f64>);

impl Resources {
    /// Amounts in the cluster's resource order.
    pub fn new(amounts: Vec<f64>) -> Resources {
        Resources(amounts)
    }
    /// Zero of each of `dims` resources.
    pub fn zero(dims: usize) -> Resources {
        Resources(vec![0.0; dims])
    }
    pub fn dims(&self) -> usize {
        self.0.len()
    }
    pub fn amounts(&self) -> &[f64] {
        &self.0
    }
    pub fn get(&self, l: usize) -> f64 {
        self.0[l]
    }
    /// Whether `self` (a demand) fits within `free`, resource by resource.
    pub fn fits_in(&self, free: &Resources) -> bool {
        self.0.iter().zip(&free.0).all(|(&d, &f)| d <= f + FIT_EPS * f.abs().max(1.0))
    }
    pub fn add(&mut self, other: &Resources) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a += b;
        }
    }
    pub fn sub(&mut self, other: &Resources) {
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a -= b;
        }
    }
    /// `self + k · other`.
    pub fn plus_scaled(&self, other: &Resources, k: f64) -> Resources {
        Resources(self.0.iter().zip(&other.0).map(|(a, b)| a + k * b).collect())
    }
    /// Dot product (Tetris's alignment score, §5.2).
    pub fn dot(&self, other: &Resources) -> f64 {
        self.0.iter().zip(&other.0).map(|(a, b)| a * b).sum()
    }
    /// Sum over resources (`r · 1`).
    pub fn total(&self) -> f64 {
        self.0.iter().sum()
    }
    /// Every amount finite and non-negative.
    pub fn is_valid(&self) -> bool {
        self.0.iter().all(|v| v.is_finite() && *v >= 0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_per_resource_with_float_slack() {
        let free = Resources::new(vec![0.3, 1.0]);
        assert!(Resources::new(vec![0.1 + 0.2, 1.0]).fits_in(&free));
        assert!(!Resources::new(vec![0.31, 0.5]).fits_in(&free));
        assert!(!Resources::new(vec![0.1, 1.01]).fits_in(&free));
        let mut used = Resources::zero(2);
        used.add(&Resources::new(vec![0.1, 0.5]));
        used.sub(&Resources::new(vec![0.05, 0.5]));
        assert!((used.get(0) - 0.05).abs() < 1e-12 && used.get(1) == 0.0);
        assert_eq!(Resources::new(vec![1.0, 2.0]).dot(&Resources::new(vec![3.0, 4.0])), 11.0);
    }
}
