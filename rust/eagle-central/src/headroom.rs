//! Headroom among long jobs (`eagle-central --long-headroom F`).
//!
//! Eagle keeps a short-only partition so that a short task never waits behind long work
//! it cannot preempt (§3.1). Among long jobs the paper has nothing of the kind: the central
//! places every task of a long job at once with LWL (§3.2), so a job of many long tasks
//! queues on every general host, and a small long job that comes after it can start only
//! as those tasks end. Node SRPT (§3.3) puts the small job first in each queue, but a slot
//! frees only when a task of the big one ends, so the small jobs wait in waves
//! (docs/results.md). Stock Spark's static split avoids that only by leaving each
//! application its own cores.
//!
//! With a headroom `F > 0`, one long job's tasks go to at most the general hosts it may use
//! less `ceil(F × those hosts)` (it always keeps one): the hosts it already holds tasks on,
//! and, while it holds fewer, the ones with the least work left among the others. The
//! hosts left out hold none of its tasks, so a later small long job finds their slots free
//! (LWL sends it there, as they hold the least work), and while no long task is on them their
//! bit in the Succinct State Sharing bitvector is clear and short probes are taken there too.
//! Whole hosts, not slots: the same slots kept free one per host would leave every host with
//! long work on it and closed to short probes. Nothing is held back at the central; the big
//! job's other tasks queue on its hosts, and a job alone gives up at most that share of the
//! hosts. `F = 0` is the paper's placement.
//!
//! Two big jobs at once: the second one's least loaded hosts are the very ones the first
//! left, so each would leave a different host and together they would cover every host. A
//! *big* job (more tasks than the slots of the hosts no other big job holds tasks on) takes
//! those hosts last instead: it queues behind the big jobs already placed, as it would
//! queue anyway, and the host they left stays free. A small long job still goes there
//! first (it starts at once), and while it runs short probes are refused there.

/// The most of `hosts` general hosts one long job's tasks may go to, under headroom
/// `fraction`; `None`: no bound (headroom off, or no host to leave).
pub fn spread(hosts: usize, fraction: f64) -> Option<usize> {
    if fraction <= 0.0 || hosts < 2 {
        return None;
    }
    let left = ((fraction * hosts as f64).ceil() as usize).clamp(1, hosts - 1);
    Some(hosts - left)
}

/// Parses `--long-headroom`: a fraction in [0, 1).
pub fn parse(s: &str) -> Result<f64, crate::error::FlagError> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..1.0).contains(&f) => Ok(f),
        _ => Err(crate::error::FlagError::BadHeadroom(s.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_or_too_few_hosts_to_leave_one_means_no_bound() {
        assert_eq!(spread(7, 0.0), None);
        assert_eq!(spread(1, 0.5), None);
    }

    #[test]
    fn the_bound_leaves_the_fraction_rounded_up_and_the_job_at_least_one_host() {
        assert_eq!(spread(7, 0.1), Some(6), "ceil(0.7) = 1 host left");
        assert_eq!(spread(16, 0.1), Some(14));
        assert_eq!(spread(2, 0.1), Some(1));
        assert_eq!(spread(4, 0.9), Some(1), "never below one host");
    }

    #[test]
    fn parse_names_the_key_and_the_value() {
        assert_eq!(parse("0.1"), Ok(0.1));
        assert_eq!(parse("0"), Ok(0.0));
        for bad in ["1", "-0.1", "x", "NaN"] {
            let e = parse(bad).unwrap_err().to_string();
            assert!(e.contains("--long-headroom") && e.contains(bad), "{e}");
        }
    }
}
