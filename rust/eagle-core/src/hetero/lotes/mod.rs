//! LoTES, Long Term Evaluation Scheduling (Tran et al., "Multi-Stage Resource-Aware
//! Scheduling for Data Centers with Heterogeneous Servers", §4).
//!
//! ```text
//!  samples ──k-means──► classes (r_k, α_k, μ_k)                         classes.rs  §5.1
//!     │
//!     ▼  stage 1, offline: allocation LP over pooled configurations     fluid.rs    §4.1
//!  x_jk (K^j = classes pool j serves)
//!     │
//!     ▼  stage 2, offline: non-dominated bins of each configuration     bins.rs     §4.2
//!     │                    machine-assignment LP, rounded               discrete.rs §4.2
//!  each machine emulates one bin (N_ik tasks of class k)
//!     │
//!     ▼  stage 3, online: roulette wheel over configurations, then the  dispatch.rs §4.3
//!        machine furthest below its bin; per-class queues otherwise
//! ```
//!
//! The plan ([`Plan`]) is a pure function of the configurations, the classes and
//! the seed. The dispatcher ([`Lotes`]) re-plans when the configuration mix
//! changes ([`Lotes::add_machines`]) or when the class mix of recent arrivals
//! drifts from the plan's (§6 suggests re-solving periodically; see
//! [`LotesParams::drift`]).

pub mod bins;
pub mod classes;
pub mod discrete;
pub mod dispatch;
pub mod executors;
pub mod fluid;
pub mod lp;

pub use classes::{Class, Classes, Sample};
pub use dispatch::{Lotes, LotesParams};
pub use executors::ExecutorPlacement;

use crate::error::PlacementError;
use crate::hetero::MachineConfig;
use discrete::Assignment;
use fluid::Fluid;

/// The offline stages' result for one cluster and one set of classes.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub classes: Classes,
    pub fluid: Fluid,
    /// `bins[j][i][k]`: tasks of class `k` in bin `i` of configuration `j`.
    pub bins: Vec<Vec<Vec<u32>>>,
    pub assignment: Assignment,
    /// `share[k][j]`: ρ_jk, the fraction of class `k`'s arrivals the roulette wheel
    /// sends to configuration `j` (§4.3.1).
    pub share: Vec<Vec<f64>>,
    /// `serves[j][k]`: Δ_jk > 0 in the rounded plan.
    pub serves: Vec<Vec<bool>>,
}

impl Plan {
    /// Runs stages 1 and 2.
    pub fn build(configs: &[MachineConfig], classes: Classes) -> Result<Plan, PlacementError> {
        let cls = &classes.classes;
        let fluid = Fluid::solve(configs, cls)?;
        let demands: Vec<_> = cls.iter().map(|c| c.demand.clone()).collect();
        let mut bins = Vec::with_capacity(configs.len());
        for (j, c) in configs.iter().enumerate() {
            let mut b = bins::non_dominated(&c.capacity, &demands, &fluid.classes_of(j))?;
            if b.is_empty() {
                // The pool serves no class by plan: its machines emulate the empty bin.
                b.push(vec![0; cls.len()]);
            }
            bins.push(b);
        }
        let counts: Vec<u32> = configs.iter().map(|c| c.count).collect();
        let assignment = Assignment::solve(&bins, &counts, cls)?;
        // Δ_jk ∝ Σ_i N_ijk m_ij (tasks of class k that pool j holds by plan); the
        // roulette shares are Δ_jk μ_jk / Σ_m Δ_mk μ_mk, the paper's ρ_jk when μ does
        // not depend on the machine.
        let delta: Vec<Vec<f64>> = bins
            .iter()
            .zip(&assignment.machines)
            .map(|(bj, mj)| {
                (0..cls.len()).map(|k| bj.iter().zip(mj).map(|(b, &m)| b[k] as f64 * m as f64).sum()).collect()
            })
            .collect();
        let share: Vec<Vec<f64>> = (0..cls.len())
            .map(|k| {
                let total: f64 = delta.iter().map(|d| d[k]).sum();
                delta.iter().map(|d| if total > 0.0 { d[k] / total } else { 0.0 }).collect()
            })
            .collect();
        let serves = delta.iter().map(|d| d.iter().map(|&v| v > 0.0).collect()).collect();
        Ok(Plan { classes, fluid, bins, assignment, share, serves })
    }

    /// Total bins enumerated over all configurations.
    pub fn bin_count(&self) -> usize {
        self.bins.iter().map(|b| b.len()).sum()
    }

    /// The bin each machine of configuration `j` emulates, machine by machine:
    /// the first `m_0j` machines bin 0, the next `m_1j` bin 1, …
    pub fn machine_bins(&self, j: usize) -> Vec<u32> {
        let mut v = Vec::new();
        for (i, &m) in self.assignment.machines[j].iter().enumerate() {
            v.extend(std::iter::repeat_n(i as u32, m as usize));
        }
        v
    }
}

#[cfg(test)]
mod tests;
