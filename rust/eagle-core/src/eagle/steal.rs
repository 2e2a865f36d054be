//! Hawk's randomized work stealing (Hawk, ATC'15 §4.3; Eagle §6 baseline).
//!
//! A node whose queue runs empty contacts up to `steal_attempts` random nodes of
//! the general partition. From the first victim that has some, it takes up to
//! `steal_limit` consecutive short probes that sit behind the victim's first
//! block of long entries (if the victim runs a long task, short probes at the
//! head count as blocked too). Those are exactly the probes suffering
//! head-of-line blocking.

use crate::eagle::node_queue::Entry;
use std::collections::VecDeque;

/// Removes and returns the probes a thief may steal from `victim` (reference "ATC" strategy).
/// `is_long_by_class(entry)` tells whether the entry's job is long by the comparison class.
pub fn take_blocked_shorts(
    victim: &mut VecDeque<Entry>,
    victim_runs_long: bool,
    limit: usize,
    is_long_by_class: impl Fn(&Entry) -> bool,
) -> Vec<Entry> {
    let mut i = 0;
    if !victim_runs_long {
        while i < victim.len() && !is_long_by_class(&victim[i]) {
            i += 1;
        }
    }
    while i < victim.len() && is_long_by_class(&victim[i]) {
        i += 1;
    }
    let mut end = i;
    while end < victim.len() && !victim[end].long && end - i < limit {
        end += 1;
    }
    victim.drain(i..end).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::JobId;

    fn e(job: u32, long: bool) -> Entry {
        Entry {
            job: JobId(job),
            long,
            reservation: long,
            marks_long: long,
            est: 1.0,
            behind_long: false,
            acc_delay: 0.0,
            sticky: false,
        }
    }

    #[test]
    fn steals_the_shorts_behind_the_first_long_block() {
        let mut q: VecDeque<Entry> =
            [e(1, false), e(2, true), e(3, true), e(4, false), e(5, false), e(6, true), e(7, false)].into();
        let got = take_blocked_shorts(&mut q, false, 100, |x| x.long);
        assert_eq!(got.iter().map(|x| x.job.0).collect::<Vec<_>>(), vec![4, 5]);
        assert_eq!(q.iter().map(|x| x.job.0).collect::<Vec<_>>(), vec![1, 2, 3, 6, 7]);
    }

    #[test]
    fn running_long_blocks_the_head() {
        let mut q: VecDeque<Entry> = [e(1, false), e(2, false), e(3, true)].into();
        let got = take_blocked_shorts(&mut q, true, 1, |x| x.long);
        assert_eq!(got.iter().map(|x| x.job.0).collect::<Vec<_>>(), vec![1], "limit respected");
        assert_eq!(q.len(), 2);
    }

    #[test]
    fn nothing_blocked_nothing_stolen() {
        let mut q: VecDeque<Entry> = [e(1, false), e(2, false)].into();
        assert!(take_blocked_shorts(&mut q, false, 10, |x| x.long).is_empty());
        assert_eq!(q.len(), 2);
    }
}
