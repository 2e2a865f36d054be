//! Stage 2a: the non-dominated bins of one configuration (LoTES §4.2, Algorithm 1).
//!
//! A *bin* is a multiset of tasks, given as a count per class, whose expected
//! demands together fit one machine. It is *non-dominated* when no further task of
//! any class in `K^j` fits beside it. Only the classes the allocation LP gives the
//! configuration (`K^j`) are considered, which is what keeps the enumeration small.
//!
//! Algorithm 1 fills a bin greedily class by class, then backtracks by removing the
//! most recent task and trying the next classes. The depth-first search below
//! visits the same tree: for each class in turn, every count from the most that
//! fits down to zero; the last class always takes the most that fits (fewer would
//! leave room for one more of it). Each leaf is kept if nothing else fits.

use crate::error::PlacementError;
use crate::hetero::resources::Resources;

/// Guard against a combinatorial blow-up (tiny demands on a big machine).
pub const MAX_BINS: usize = 200_000;

/// Every non-dominated bin of a machine with capacity `cap` over the classes
/// `members` (indices into `demands`). Each bin is a count per class (length
/// `demands.len()`, zero outside `members`). Deterministic order.
pub fn non_dominated(
    cap: &Resources,
    demands: &[Resources],
    members: &[usize],
) -> Result<Vec<Vec<u32>>, PlacementError> {
    let mut out = Vec::new();
    let members: Vec<usize> = members.iter().copied().filter(|&k| demands[k].fits_in(cap)).collect();
    if members.is_empty() {
        return Ok(out);
    }
    for &k in &members {
        if demands[k].amounts().iter().all(|&d| d <= 0.0) {
            return Err(PlacementError::EmptyClass { class: k });
        }
    }
    let mut counts = vec![0u32; demands.len()];
    dfs(cap.clone(), demands, &members, 0, &mut counts, &mut out)?;
    Ok(out)
}

/// How many more tasks of `d` fit in `free`.
fn max_fit(free: &Resources, d: &Resources) -> u32 {
    let mut n = u32::MAX;
    for l in 0..d.dims() {
        if d.get(l) > 0.0 {
            // The slack of `fits_in` also applies here: 3 × 1/3 fits in 1.
            let f = free.get(l).max(0.0);
            let q = ((f + crate::hetero::resources::FIT_EPS * f.max(1.0)) / d.get(l)).floor();
            n = n.min(q.min(u32::MAX as f64) as u32);
        }
    }
    n
}

fn dfs(
    free: Resources,
    demands: &[Resources],
    members: &[usize],
    i: usize,
    counts: &mut [u32],
    out: &mut Vec<Vec<u32>>,
) -> Result<(), PlacementError> {
    let k = members[i];
    let most = max_fit(&free, &demands[k]);
    if i + 1 == members.len() {
        counts[k] = most;
        let left = free.plus_scaled(&demands[k], -(most as f64));
        if members.iter().all(|&c| !demands[c].fits_in(&left)) {
            if out.len() >= MAX_BINS {
                return Err(PlacementError::TooManyBins { max: MAX_BINS });
            }
            out.push(counts.to_vec());
        }
        counts[k] = 0;
        return Ok(());
    }
    for n in (0..=most).rev() {
        counts[k] = n;
        dfs(free.plus_scaled(&demands[k], -(n as f64)), demands, members, i + 1, counts, out)?;
    }
    counts[k] = 0;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every feasible count vector over `members`, by brute force, and the subset
    /// to which no task of any member class can be added.
    fn brute(cap: &Resources, demands: &[Resources], members: &[usize]) -> BTreeSet<Vec<u32>> {
        let bound: Vec<u32> = demands.iter().map(|d| max_fit(cap, d)).collect();
        let mut all = vec![vec![0u32; demands.len()]];
        for &k in members {
            all = all
                .into_iter()
                .flat_map(|v| {
                    (0..=bound[k]).map(move |n| {
                        let mut w = v.clone();
                        w[k] = n;
                        w
                    })
                })
                .collect();
        }
        let used = |v: &Vec<u32>| {
            (0..demands.len()).fold(Resources::zero(cap.dims()), |acc, k| acc.plus_scaled(&demands[k], v[k] as f64))
        };
        let feasible: Vec<Vec<u32>> = all.into_iter().filter(|v| used(v).fits_in(cap)).collect();
        feasible
            .iter()
            .filter(|v| {
                members.iter().all(|&k| {
                    let mut w = (*v).clone();
                    w[k] += 1;
                    !used(&w).fits_in(cap)
                })
            })
            .cloned()
            .collect()
    }

    #[test]
    fn paper_figure_5() {
        // One resource, capacity 7, classes of 2 and 3 cores: (3,0), (2,1), (0,2)
        // are the non-dominated bins; (1,1) and (0,1) are feasible but dominated.
        let bins =
            non_dominated(&Resources::new(vec![7.0]), &[Resources::new(vec![2.0]), Resources::new(vec![3.0])], &[0, 1])
                .unwrap();
        assert_eq!(bins, vec![vec![3, 0], vec![2, 1], vec![0, 2]]);
    }

    #[test]
    fn keeps_exactly_the_non_dominated_bins() {
        let demands = vec![
            Resources::new(vec![0.20, 0.06]),
            Resources::new(vec![0.07, 0.03]),
            Resources::new(vec![0.02, 0.10]),
            Resources::new(vec![0.30, 0.30]), // not a member
        ];
        for cap in [vec![0.5, 0.5], vec![1.0, 0.25], vec![0.5, 0.12], vec![0.25, 0.25]] {
            let cap = Resources::new(cap);
            let got = non_dominated(&cap, &demands, &[0, 1, 2]).unwrap();
            let set: BTreeSet<Vec<u32>> = got.iter().cloned().collect();
            assert_eq!(set.len(), got.len(), "no duplicates");
            assert!(got.iter().all(|b| b[3] == 0));
            assert_eq!(set, brute(&cap, &demands, &[0, 1, 2]), "capacity {cap:?}");
        }
    }

    #[test]
    fn classes_that_never_fit_are_ignored() {
        let bins =
            non_dominated(&Resources::new(vec![1.0]), &[Resources::new(vec![2.0]), Resources::new(vec![0.5])], &[0, 1])
                .unwrap();
        assert_eq!(bins, vec![vec![0, 2]]);
        assert!(non_dominated(&Resources::new(vec![1.0]), &[Resources::new(vec![2.0])], &[0]).unwrap().is_empty());
    }
}
