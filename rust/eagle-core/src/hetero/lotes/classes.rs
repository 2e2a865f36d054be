//! Task classes from k-means over demands (LoTES §5.1).
//!
//! The paper clusters the first day's jobs with Lloyd's algorithm (after Mishra et
//! al.) and keeps the classes for the month. Each class `k` has:
//!
//! - `r_kl`, its expected demand of each resource: the centroid;
//! - `α_k`, the probability that an arrival is of class `k`: its share of the sample;
//! - `μ_k`, its processing rate: 1 / the mean duration of its members (the paper
//!   assumes durations do not depend on the machine, so `μ_jk = μ_k`).
//!
//! Distances are Euclidean over demands divided by the largest capacity of each
//! resource, so that no resource dominates by its unit (the paper's data is
//! already normalized this way). Seeding is k-means++ with the engine's seeded
//! [`Rng`]; the clustering is deterministic given the seed and the sample order.

use crate::error::PlacementError;
use crate::hetero::resources::Resources;
use crate::rng::Rng;

/// One sampled task: its demand and its duration (seconds).
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    pub demand: Resources,
    pub duration: f64,
}

/// A task class.
#[derive(Clone, Debug, PartialEq)]
pub struct Class {
    /// Expected demand `r_k` (the centroid, in the caller's units).
    pub demand: Resources,
    /// Arrival share `α_k`.
    pub share: f64,
    /// Mean duration `1/μ_k`, seconds (> 0).
    pub mean_duration: f64,
}

/// The classes and the scale their distances use.
#[derive(Clone, Debug, PartialEq)]
pub struct Classes {
    pub classes: Vec<Class>,
    /// Per resource: the divisor applied before measuring distances.
    scale: Vec<f64>,
}

/// Lloyd iterations at most (it stops earlier when no point changes class).
const MAX_ITERS: usize = 100;

impl Classes {
    /// Clusters `samples` into at most `k` classes (fewer when there are fewer
    /// distinct demands). `scale[l]` is the largest capacity of resource `l`.
    pub fn fit(samples: &[Sample], k: usize, scale: &[f64], rng: &mut Rng) -> Result<Classes, PlacementError> {
        if samples.is_empty() || k == 0 {
            return Err(PlacementError::NothingToCluster);
        }
        let dims = scale.len();
        let scale: Vec<f64> = scale.iter().map(|&s| if s > 0.0 { s } else { 1.0 }).collect();
        let pts: Vec<Vec<f64>> =
            samples.iter().map(|s| s.demand.amounts().iter().zip(&scale).map(|(d, c)| d / c).collect()).collect();
        if pts.iter().any(|p| p.len() != dims) {
            return Err(PlacementError::SampleDims { dims });
        }
        let mut centers = seed_plus_plus(&pts, k, rng);
        let mut assign = vec![usize::MAX; pts.len()];
        for _ in 0..MAX_ITERS {
            let mut changed = false;
            for (i, p) in pts.iter().enumerate() {
                let c = nearest(&centers, p);
                if assign[i] != c {
                    assign[i] = c;
                    changed = true;
                }
            }
            let mut sums = vec![vec![0.0; dims]; centers.len()];
            let mut counts = vec![0usize; centers.len()];
            for (p, &c) in pts.iter().zip(&assign) {
                counts[c] += 1;
                for (s, x) in sums[c].iter_mut().zip(p) {
                    *s += x;
                }
            }
            for (c, center) in centers.iter_mut().enumerate() {
                if counts[c] > 0 {
                    *center = sums[c].iter().map(|s| s / counts[c] as f64).collect();
                }
            }
            if !changed {
                break;
            }
        }
        // Drop empty clusters, then describe each class in the caller's units.
        let mut classes = Vec::new();
        for (c, center) in centers.iter().enumerate() {
            let members: Vec<usize> = (0..pts.len()).filter(|&i| assign[i] == c).collect();
            if members.is_empty() {
                continue;
            }
            let mean_duration = members.iter().map(|&i| samples[i].duration).sum::<f64>() / members.len() as f64;
            classes.push(Class {
                demand: Resources::new(center.iter().zip(&scale).map(|(x, s)| x * s).collect()),
                share: members.len() as f64 / pts.len() as f64,
                mean_duration: mean_duration.max(1e-9),
            });
        }
        Ok(Classes { classes, scale })
    }

    /// Classes given directly (tests, or a host that knows them).
    pub fn given(classes: Vec<Class>, scale: &[f64]) -> Classes {
        Classes { classes, scale: scale.iter().map(|&s| if s > 0.0 { s } else { 1.0 }).collect() }
    }

    pub fn len(&self) -> usize {
        self.classes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.classes.is_empty()
    }

    /// The class of a demand: the nearest centroid.
    pub fn classify(&self, demand: &Resources) -> usize {
        let p: Vec<f64> = demand.amounts().iter().zip(&self.scale).map(|(d, s)| d / s).collect();
        let centers: Vec<Vec<f64>> = self
            .classes
            .iter()
            .map(|c| c.demand.amounts().iter().zip(&self.scale).map(|(d, s)| d / s).collect())
            .collect();
        nearest(&centers, &p)
    }
}

fn dist2(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum()
}

/// Index of the nearest center (ties: the lowest index).
fn nearest(centers: &[Vec<f64>], p: &[f64]) -> usize {
    let mut best = (f64::INFINITY, 0);
    for (c, center) in centers.iter().enumerate() {
        let d = dist2(center, p);
        if d < best.0 {
            best = (d, c);
        }
    }
    best.1
}

/// k-means++ seeding: the first center uniformly, each next one with probability
/// proportional to the squared distance to the nearest chosen center. Stops early
/// when every point coincides with a center.
fn seed_plus_plus(pts: &[Vec<f64>], k: usize, rng: &mut Rng) -> Vec<Vec<f64>> {
    let mut centers = vec![pts[rng.below(pts.len())].clone()];
    let mut d2: Vec<f64> = pts.iter().map(|p| dist2(p, &centers[0])).collect();
    while centers.len() < k {
        let total: f64 = d2.iter().sum();
        if total <= 0.0 {
            break;
        }
        let mut u = rng.unit() * total;
        let mut pick = pts.len() - 1;
        for (i, &d) in d2.iter().enumerate() {
            if u < d {
                pick = i;
                break;
            }
            u -= d;
        }
        centers.push(pts[pick].clone());
        for (i, p) in pts.iter().enumerate() {
            d2[i] = d2[i].min(dist2(p, &centers[centers.len() - 1]));
        }
    }
    centers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_well_separated_classes() {
        let mut rng = Rng::new(3);
        let mut samples = Vec::new();
        for i in 0..300 {
            let j = (i % 10) as f64 * 0.001;
            let (d, t) = match i % 3 {
                0 => (vec![0.02 + j, 0.01], 100.0),
                1 => (vec![0.02, 0.30 + j], 200.0),
                _ => (vec![0.40 + j, 0.05], 300.0),
            };
            samples.push(Sample { demand: Resources::new(d), duration: t });
        }
        let c = Classes::fit(&samples, 3, &[1.0, 1.0], &mut rng).unwrap();
        assert_eq!(c.len(), 3);
        let mut got: Vec<(i64, i64, i64)> = c
            .classes
            .iter()
            .map(|k| ((k.demand.get(0) * 100.0).round() as i64, (k.share * 3.0).round() as i64, k.mean_duration as i64))
            .collect();
        got.sort();
        assert_eq!(got, vec![(2, 1, 100), (2, 1, 200), (40, 1, 300)]);
        let heavy = c.classify(&Resources::new(vec![0.5, 0.0]));
        assert_eq!(c.classes[heavy].mean_duration as i64, 300);
        // Same seed, same classes.
        assert_eq!(Classes::fit(&samples, 3, &[1.0, 1.0], &mut Rng::new(3)).unwrap(), c);
    }

    #[test]
    fn fewer_distinct_points_than_classes() {
        let s = vec![Sample { demand: Resources::new(vec![0.1]), duration: 5.0 }; 4];
        let c = Classes::fit(&s, 4, &[1.0], &mut Rng::new(1)).unwrap();
        assert_eq!(c.len(), 1);
        assert_eq!(c.classes[0].share, 1.0);
    }
}
