//! The driver's placement decisions, pure (no I/O; the random source is passed in).
//!
//! * [`distinct`]: Eagle's probing of a short job (§3.2): its `max(K, r·t)` probes
//!   ([`eagle_core::probe::probe_count`], r = `probeRatio`) each go to a different host,
//!   drawn uniformly from the hosts that are up. A node keeps one sticky probe per job, so a
//!   second probe to the same host would add nothing.
//! * [`rescheduling_targets`]: Succinct State Sharing's re-scheduling (§3.1): a job whose
//!   probe was rejected probes again only hosts that the freshest bitvector shows free of
//!   long work.
//! * [`local_lwl`]: the fallback while the central scheduler is unreachable: the
//!   job's long tasks water-filled over the driver's own hosts by the long work it
//!   has there ([`eagle_core::lwl::water_fill`]), as the central does over all hosts.

use eagle_core::lwl::water_fill;
use eagle_core::rng::Rng;
use eagle_core::types::NodeId;

/// The hosts a job probes again after a rejection (§3.1): of `fresh` (the hosts it may
/// still probe, in order), those not marked as holding long work in the freshest bitvector
/// (`flagged`). The paper then sends probes rejected again to the short partition, which the
/// driver does not know: when no fresh host is clear, every fresh host is a target (the
/// central keeps long work off the short partition, so those hosts are among them).
pub fn rescheduling_targets(fresh: &[u64], flagged: &std::collections::BTreeSet<u64>) -> Vec<u64> {
    let clear: Vec<u64> = fresh.iter().copied().filter(|h| !flagged.contains(h)).collect();
    if clear.is_empty() {
        fresh.to_vec()
    } else {
        clear
    }
}

/// `min(want, n)` distinct indexes below `n`, uniformly drawn.
pub fn distinct(rng: &mut Rng, n: usize, want: usize) -> Vec<usize> {
    let (up, want) = (n, want.min(n));
    // A partial Fisher-Yates shuffle: the first `want` entries are a uniform sample.
    let mut idx: Vec<usize> = (0..up).collect();
    for i in 0..want {
        let j = i + rng.below(up - i);
        idx.swap(i, j);
    }
    idx.truncate(want);
    idx
}

/// Spreads `tasks` long tasks of estimate `est_ms` over hosts whose current long
/// work is `work[i]`: the number of tasks per host (same order as `work`).
pub fn local_lwl(work: &[f64], tasks: u32, est_ms: f64) -> Vec<u32> {
    let mut chosen = Vec::new();
    water_fill(work.iter().enumerate().map(|(i, &w)| (w, NodeId(i as u32))), tasks as usize, est_ms, &mut chosen);
    let mut per = vec![0u32; work.len()];
    for n in chosen {
        per[n.0 as usize] += 1;
    }
    per
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn probes_go_to_distinct_hosts_capped_by_the_hosts_up() {
        let mut rng = Rng::new(7);
        let t = distinct(&mut rng, 50, 6);
        assert_eq!(t.len(), 6);
        assert_eq!(t.iter().collect::<BTreeSet<_>>().len(), 6, "distinct");
        let all = distinct(&mut rng, 3, 10);
        assert_eq!(all.iter().copied().collect::<BTreeSet<_>>(), (0..3).collect(), "every host when fewer than asked");
        assert!(distinct(&mut rng, 0, 10).is_empty());
    }

    #[test]
    fn probes_cover_the_hosts_uniformly() {
        let mut rng = Rng::new(3);
        let mut hits = [0u32; 5];
        for _ in 0..5000 {
            for h in distinct(&mut rng, 5, 2) {
                hits[h] += 1;
            }
        }
        assert!(hits.iter().all(|&h| (1700..2300).contains(&h)), "{hits:?}");
    }

    #[test]
    fn rescheduling_avoids_hosts_the_bitvector_marks_as_holding_long_work() {
        let flagged: BTreeSet<u64> = [2, 3].into_iter().collect();
        assert_eq!(rescheduling_targets(&[1, 2, 3, 4], &flagged), vec![1, 4]);
        assert_eq!(rescheduling_targets(&[2, 3], &flagged), vec![2, 3], "no clear host: every fresh one");
        assert_eq!(rescheduling_targets(&[], &flagged), Vec::<u64>::new());
        assert_eq!(rescheduling_targets(&[2, 5], &BTreeSet::new()), vec![2, 5]);
    }

    #[test]
    fn local_lwl_fills_the_least_loaded_hosts_first() {
        assert_eq!(local_lwl(&[0.0, 0.0, 0.0], 3, 10.0), vec![1, 1, 1]);
        // Host 1 carries 30 ms of long work: the others take tasks until they catch up.
        assert_eq!(local_lwl(&[0.0, 30.0, 0.0], 4, 10.0), vec![2, 0, 2]);
        assert_eq!(local_lwl(&[], 4, 10.0), Vec::<u32>::new());
        assert_eq!(local_lwl(&[5.0], 0, 10.0), vec![0]);
    }
}
