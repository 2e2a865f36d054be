//! Probing (Sparrow batch sampling; Eagle §3.2 with the minimum K).
//!
//! A short job of `t` tasks sends `max(ratio·t, K)` probes (reservations for the
//! whole job, late binding) to nodes drawn uniformly *with replacement*, as the
//! reference simulator does. Eagle uses K = 20 so that even a one-task job gets
//! enough samples to find an idle node; Sparrow and Hawk use K = 2.

use crate::rng::Rng;
use crate::types::NodeId;

/// Number of probes for a job of `tasks` tasks.
pub fn probe_count(tasks: u32, ratio: u32, min_probes: u32) -> usize {
    (tasks as usize * ratio as usize).max(min_probes as usize)
}

/// `count` nodes drawn uniformly with replacement from `from`, appended to `out`.
pub fn sample_with_replacement(rng: &mut Rng, from: &[NodeId], count: usize, out: &mut Vec<NodeId>) {
    if from.is_empty() {
        return;
    }
    out.extend((0..count).map(|_| from[rng.below(from.len())]));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_k_2t() {
        assert_eq!(probe_count(1, 2, 20), 20);
        assert_eq!(probe_count(10, 2, 20), 20);
        assert_eq!(probe_count(11, 2, 20), 22);
        assert_eq!(probe_count(100, 2, 2), 200);
    }

    #[test]
    fn samples_cover_the_set_uniformly() {
        let nodes: Vec<NodeId> = (0..4).map(NodeId).collect();
        let mut rng = Rng::new(1);
        let mut out = vec![];
        sample_with_replacement(&mut rng, &nodes, 4000, &mut out);
        assert_eq!(out.len(), 4000);
        for n in &nodes {
            let c = out.iter().filter(|x| *x == n).count();
            assert!((800..1200).contains(&c), "node {n:?} drawn {c} times");
        }
    }
}
