//! The driver's placement decisions, pure (no I/O; the random source is passed in).
//!
//! * [`distinct`]: Eagle's probing of a short job (§3.2): its `max(K, r·t)` probes
//!   ([`eagle_core::eagle::probe::probe_count`], r = `probeRatio`) each go to a different host,
//!   drawn uniformly from the hosts that are up. A node keeps one sticky probe per job, so a
//!   second probe to the same host would add nothing.
//! * [`warm_first`], [`affinity_wait`]: application affinity (ours, policy `adaptive`): a
//!   short job's first probes go to the hosts where the application has run the most short
//!   tasks, and to the others after what a task costs more there.
//! * [`rescheduling_targets`]: Succinct State Sharing's re-scheduling (§3.1): a job whose
//!   probe was rejected probes again only hosts that the freshest bitvector shows free of
//!   long work.
//! * [`local_lwl`]: the fallback while the central scheduler is unreachable: the
//!   job's long tasks water-filled over the driver's own hosts by the long work it
//!   has there ([`eagle_core::eagle::lwl::water_fill`]), and near their input when the driver
//!   knows it ([`eagle_core::eagle::lwl::near_input`]), as the central does over all hosts.

use eagle_core::eagle::lwl::{self, water_fill};
use eagle_core::rng::Rng;
use eagle_core::types::NodeId;
use std::time::Duration;

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

/// Application affinity: of `hosts` (each with the short tasks the application has run
/// there), at most `n` that ran any, most first; ties keep `hosts`' order. A JVM that has
/// run an application's tasks the most has loaded, compiled and cached the most of its code.
pub fn warm_first(hosts: &[(u64, u64)], n: usize) -> Vec<u64> {
    let mut warm: Vec<(u64, u64)> = hosts.iter().copied().filter(|&(_, runs)| runs > 0).collect();
    warm.sort_by_key(|&(_, runs)| std::cmp::Reverse(runs));
    warm.into_iter().take(n).map(|(h, _)| h).collect()
}

/// The most application affinity holds a job's probes back on its warm hosts for what the
/// other hosts' tasks cost more (the driver's measured warm-up may ask for longer).
pub const MAX_AFFINITY_WAIT: Duration = Duration::from_secs(1);

/// How long a job's first probes wait on its warm hosts before it probes the others: what
/// one of the application's short tasks costs more on those others than on the warm hosts
/// (the mean of `cold`'s slot holds minus the mean of `warm`'s, in ms, each a host's moving
/// average; hosts without one are left out; at most [`MAX_AFFINITY_WAIT`]), and at least
/// `base`, the driver's measured warm-up of a stage on an executor. Waiting for the warm
/// host at most what the cold one would cost is the ski-rental rule: whichever comes first,
/// the job pays at most twice what the better choice in hindsight would have cost it.
pub fn affinity_wait(base: Duration, warm: &[f64], cold: &[f64]) -> Duration {
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    let extra = match (mean(warm), mean(cold)) {
        (Some(w), Some(c)) if c > w => Duration::try_from_secs_f64((c - w) / 1000.0).unwrap_or(MAX_AFFINITY_WAIT),
        _ => Duration::ZERO,
    };
    extra.min(MAX_AFFINITY_WAIT).max(base)
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
/// work is `work[i]`, `input[i]` of them reading their input there: the number of tasks
/// per host (same order as `work`). Without input, the paper's water-filling; with it, the
/// central's rule ([`eagle_core::eagle::lwl::near_input`]): a task goes to its input's host while
/// it ends there at most one task estimate later.
pub fn local_lwl(work: &[f64], input: &[u32], tasks: u32, est_ms: f64) -> Vec<u32> {
    let mut per = vec![0u32; work.len()];
    if input.iter().all(|&n| n == 0) {
        let mut chosen = Vec::new();
        water_fill(work.iter().enumerate().map(|(i, &w)| (w, NodeId(i as u32))), tasks as usize, est_ms, &mut chosen);
        for n in chosen {
            per[n.0 as usize] += 1;
        }
    } else {
        let hosts: Vec<lwl::Host> = work
            .iter()
            .enumerate()
            .map(|(i, &work_ms)| lwl::Host { work_ms, slots: 1, input: input.get(i).copied().unwrap_or(0) })
            .collect();
        for i in lwl::near_input(&hosts, tasks as usize, est_ms, 1) {
            per[i] += 1;
        }
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
    fn warm_first_ranks_the_hosts_that_ran_the_most_and_skips_cold_ones() {
        let hosts = [(1, 0), (2, 5), (3, 9), (4, 5), (5, 1)];
        assert_eq!(warm_first(&hosts, 2), vec![3, 2], "most first; a tie keeps the order");
        assert_eq!(warm_first(&hosts, 10), vec![3, 2, 4, 5], "a host that ran nothing is not warm");
        assert!(warm_first(&hosts, 0).is_empty());
        assert!(warm_first(&[(1, 0), (2, 0)], 2).is_empty(), "no warm host");
    }

    #[test]
    fn the_affinity_wait_is_what_a_task_costs_more_off_the_warm_hosts() {
        let ms = Duration::from_millis;
        assert_eq!(affinity_wait(ms(20), &[40.0, 60.0], &[150.0, 170.0]), ms(110), "160 - 50");
        assert_eq!(affinity_wait(ms(20), &[40.0], &[50.0]), ms(20), "at least the measured warm-up");
        assert_eq!(affinity_wait(ms(20), &[90.0], &[50.0]), ms(20), "the others are not slower");
        assert_eq!(affinity_wait(ms(20), &[], &[500.0]), ms(20), "nothing measured on the warm hosts");
        assert_eq!(affinity_wait(ms(20), &[40.0], &[]), ms(20), "nor on the others");
        assert_eq!(affinity_wait(ms(20), &[10.0], &[60_000.0]), MAX_AFFINITY_WAIT);
        assert_eq!(affinity_wait(ms(5_000), &[10.0], &[60_000.0]), ms(5_000), "the measured warm-up is not capped");
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
        assert_eq!(local_lwl(&[0.0, 0.0, 0.0], &[], 3, 10.0), vec![1, 1, 1]);
        // Host 1 carries 30 ms of long work: the others take tasks until they catch up.
        assert_eq!(local_lwl(&[0.0, 30.0, 0.0], &[0, 0, 0], 4, 10.0), vec![2, 0, 2]);
        assert_eq!(local_lwl(&[], &[], 4, 10.0), Vec::<u32>::new());
        assert_eq!(local_lwl(&[5.0], &[], 0, 10.0), vec![0]);
    }

    #[test]
    fn local_lwl_leans_toward_the_input_by_at_most_one_task() {
        // Three idle hosts, 4 tasks of 10 ms all reading on host 2: a task goes there while it
        // ends at most one task later than on the least loaded host.
        assert_eq!(local_lwl(&[0.0, 0.0, 0.0], &[0, 0, 4], 4, 10.0), vec![1, 1, 2]);
        // Host 2 is loaded far past one task: the input does not draw them.
        assert_eq!(local_lwl(&[0.0, 0.0, 100.0], &[0, 0, 4], 4, 10.0), vec![2, 2, 0]);
    }
}
