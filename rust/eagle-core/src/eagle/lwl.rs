//! Least-work-left placement of long tasks (Eagle §3.2, Hawk's centralized scheduler).
//!
//! The centralized scheduler keeps, per node, the estimated work of the long
//! tasks it placed there and that have not finished. A job's tasks are spread by
//! *water-filling*: repeatedly give a task to the node with the least work,
//! adding the task's estimate to it, ties to the lower node id.
//!
//! The reference simulator refines the score of a node running a long task:
//! `queue − min(elapsed, estimate of the running task) + 2·ND`. Empty nodes
//! come first: if there are enough, the lowest-id empty nodes take the tasks;
//! otherwise each empty node takes one task and the rest are water-filled, with
//! the empty nodes competing at score `estimate`.
//!
//! DLWL (Yaq-D) uses the same water-filling over queue lengths that nodes
//! publish every heartbeat (stale), floored at zero, plus a random integer
//! jitter in `[0, heartbeat]` so that schedulers sharing a stale view do not all
//! pick the same node.

use crate::types::NodeId;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// A (score, node) pair ordered so that `BinaryHeap` pops the smallest score,
/// ties to the lowest node id.
#[derive(Copy, Clone, Debug, PartialEq)]
struct Slot(f64, u32);

impl Eq for Slot {}
impl Ord for Slot {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then_with(|| other.1.cmp(&self.1))
    }
}
impl PartialOrd for Slot {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Water-fills `needed` tasks of estimated duration `est` over `scored` nodes
/// (`(score, node)`), appending the chosen node of each task to `out`, in the
/// reference's order: the currently least-loaded node takes tasks until its
/// score passes the next node's.
pub fn water_fill(scored: impl IntoIterator<Item = (f64, NodeId)>, needed: usize, est: f64, out: &mut Vec<NodeId>) {
    if needed == 0 {
        return;
    }
    let mut heap: BinaryHeap<Slot> = scored.into_iter().map(|(s, n)| Slot(s, n.0)).collect();
    let Some(Slot(mut q, mut w)) = heap.pop() else { return };
    let mut chosen = 0;
    while chosen < needed {
        let next = heap.pop();
        let nq = next.map_or(f64::INFINITY, |s| s.0);
        while q <= nq && chosen < needed {
            out.push(NodeId(w));
            chosen += 1;
            // A zero estimate would never pass the next node; still spread the tasks.
            q += if est > 0.0 { est } else { f64::MIN_POSITIVE.max(1e-9) };
        }
        match next {
            Some(Slot(s, n)) => {
                heap.push(Slot(q, w));
                q = s;
                w = n;
            }
            None => continue,
        }
    }
}

/// A host for [`near_input`]: its long work left (slot-ms), its slots (at least 1), and how
/// many of the job's tasks read their input there.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Host {
    pub work_ms: f64,
    pub slots: u32,
    pub input: u32,
}

/// LWL over hosts of any size, bent toward the tasks' input (ours; cluster mode's central
/// and the driver's fallback). Each of `tasks` tasks of `est_ms`, each holding `cpus` slots,
/// goes to the host with the least work left per slot counting the task,
/// `(work + est·cpus) / slots`, ties to the lower index; but to a host holding input of a
/// task not yet placed there whenever the task ends there, by the estimates, at most one
/// task estimate later than on that host. So no task is held more than one task's time for
/// its data, and without input this is least work left. Returns one index into `hosts`
/// per task (none when `hosts` is empty).
pub fn near_input(hosts: &[Host], tasks: usize, est_ms: f64, cpus: u32) -> Vec<usize> {
    if hosts.is_empty() {
        return Vec::new();
    }
    let mut work: Vec<f64> = hosts.iter().map(|h| h.work_ms).collect();
    let mut input: Vec<u32> = hosts.iter().map(|h| h.input).collect();
    let est = est_ms.max(0.0);
    let add = est * cpus as f64;
    let mut out = Vec::with_capacity(tasks);
    for _ in 0..tasks {
        let score = |i: usize| (work[i] + add) / hosts[i].slots.max(1) as f64;
        let least = |among: &mut dyn Iterator<Item = usize>| {
            among.min_by(|&a, &b| score(a).total_cmp(&score(b)).then(a.cmp(&b)))
        };
        let best = least(&mut (0..hosts.len())).expect("hosts is not empty");
        let pick = match least(&mut (0..hosts.len()).filter(|&i| input[i] > 0)) {
            Some(near) if score(near) <= score(best) + est => near,
            _ => best,
        };
        input[pick] = input[pick].saturating_sub(1);
        work[pick] += add;
        out.push(pick);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(work_ms: f64, slots: u32, input: u32) -> Host {
        Host { work_ms, slots, input }
    }

    fn per_host(picks: &[usize], n: usize) -> Vec<usize> {
        (0..n).map(|i| picks.iter().filter(|&&p| p == i).count()).collect()
    }

    #[test]
    fn near_input_holds_a_task_at_most_one_estimate_for_its_data() {
        // Three idle hosts of 2 slots, 6 tasks of 1 s all reading on host 0: LWL gives 2 : 2 : 2
        // (each ends at 1 s); near the input a task may end one task later, so host 0 takes 4.
        let hosts = [host(0.0, 2, 6), host(0.0, 2, 0), host(0.0, 2, 0)];
        assert_eq!(per_host(&near_input(&hosts, 6, 1000.0, 1), 3), vec![4, 1, 1]);
        // Without input: least work left per slot.
        let plain = [host(0.0, 2, 0), host(0.0, 2, 0), host(0.0, 2, 0)];
        assert_eq!(per_host(&near_input(&plain, 6, 1000.0, 1), 3), vec![2, 2, 2]);
        // Input counts are used up: two tasks read there, the rest go by least work left.
        let two = [host(0.0, 2, 2), host(0.0, 2, 0), host(0.0, 2, 0)];
        assert_eq!(per_host(&near_input(&two, 6, 1000.0, 1), 3), vec![2, 2, 2]);
        // A host far more loaded than one estimate is passed over despite its input.
        let busy = [host(10_000.0, 1, 3), host(0.0, 1, 0)];
        assert_eq!(near_input(&busy, 3, 1000.0, 1), vec![1, 1, 1]);
        assert!(near_input(&[], 3, 1000.0, 1).is_empty());
    }

    #[test]
    fn near_input_weighs_work_per_slot() {
        // A 4-slot host with 2 s of work ends a 1 s task at 0.75 s per slot; a 1-slot idle host at 1 s.
        let hosts = [host(1000.0, 1, 0), host(2000.0, 4, 0)];
        assert_eq!(near_input(&hosts, 1, 1000.0, 1), vec![1]);
    }

    fn ids(v: &[NodeId]) -> Vec<u32> {
        v.iter().map(|n| n.0).collect()
    }

    #[test]
    fn fills_lowest_first_and_levels() {
        // Node 0 has 10 s of work, node 1 has 0 s (scored by est = 4), node 2 has 5 s.
        let mut out = vec![];
        water_fill([(10.0, NodeId(0)), (4.0, NodeId(1)), (5.0, NodeId(2))], 4, 4.0, &mut out);
        // 1 (4→8), 2 (5→9), 1 (8→12), 2 (9→13)... node 0 (10) comes before 1 at 12.
        assert_eq!(ids(&out), vec![1, 2, 1, 2]);
        let mut out = vec![];
        water_fill([(10.0, NodeId(0)), (4.0, NodeId(1)), (5.0, NodeId(2))], 5, 4.0, &mut out);
        assert_eq!(ids(&out), vec![1, 2, 1, 2, 0]);
    }

    #[test]
    fn ties_go_to_lower_id() {
        let mut out = vec![];
        water_fill([(1.0, NodeId(7)), (1.0, NodeId(3)), (1.0, NodeId(5))], 3, 10.0, &mut out);
        assert_eq!(ids(&out), vec![3, 5, 7]);
    }

    #[test]
    fn single_node_takes_everything() {
        let mut out = vec![];
        water_fill([(0.0, NodeId(2))], 5, 1.0, &mut out);
        assert_eq!(ids(&out), vec![2; 5]);
    }

    #[test]
    fn total_work_is_levelled() {
        let scores: Vec<(f64, NodeId)> = (0..10).map(|i| (i as f64 * 3.0, NodeId(i))).collect();
        let mut out = vec![];
        water_fill(scores.clone(), 100, 2.0, &mut out);
        assert_eq!(out.len(), 100);
        let mut load: Vec<f64> = scores.iter().map(|s| s.0).collect();
        for n in &out {
            load[n.0 as usize] += 2.0;
        }
        let max = load.iter().cloned().fold(f64::MIN, f64::max);
        let min = load.iter().cloned().fold(f64::MAX, f64::min);
        assert!(max - min <= 2.0 + 1e-9, "water-filling leaves at most one task of difference: {load:?}");
    }
}
