//! Class affinity: short and long work on executors of their own (adaptive policy,
//! driver mode).
//!
//! Eagle splits the cluster into a short-only partition and a general one of whole
//! nodes (§3.1), so a node runs either class but rarely both. The adaptive policy keeps
//! its guarantees with counts of *slots* instead ([`crate::adaptive::reservation`], the long
//! share), which leaves open *where* each class runs. Left to chance, the split of a
//! 2-slot-executor cluster between a short stream and a batch job ends with one task of
//! each class on every executor: the short stream took the slots of whichever long
//! tasks ended first. That costs both classes in a Spark executor:
//!
//! - a short stage's tasks spread over twice the executors, and a task set's first
//!   tasks on an executor are cold ([`crate::adaptive::warmup`]);
//! - the long tasks share a JVM heap, and its collections, with the short tasks' churn.
//!
//! The rule moves executors toward one class without changing the counts beyond one
//! slot: where the long share holds short work to its cap, short work may still take a
//! slot of an executor that runs only short tasks, one slot over the cap, while another
//! executor runs short next to long work. The loan is repaid when a short task ends
//! there: short work is over its cap, so long work takes the slot, and that executor
//! is then long-only. A long task waits at most for one short task to end for the
//! lent slot, and short work never waits behind long work for it.

use crate::eagle::node_queue::Node;

/// Short tasks running on `n` (its running tasks that are not long).
fn short_on(n: &Node) -> usize {
    n.running.iter().filter(|r| !r.long).count()
}

/// Whether a free slot of node `ni` may go to short work one slot over the long share's
/// cap: `ni` runs short tasks and no long one, and another live node runs both classes
/// (where the loan is repaid when its short task ends).
pub fn lend_to_short(nodes: &[Node], ni: usize) -> bool {
    let Some(n) = nodes.get(ni) else { return false };
    if !n.live || n.running_long > 0 || short_on(n) == 0 {
        return false;
    }
    nodes.iter().enumerate().any(|(i, m)| i != ni && m.live && m.running_long > 0 && short_on(m) > 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eagle::node_queue::Running;
    use crate::types::JobId;

    fn node(short: u32, long: u32) -> Node {
        let mut n = Node::new(2);
        for (k, is_long) in [(short, false), (long, true)] {
            for _ in 0..k {
                n.running.push(Running {
                    job: JobId(u32::from(is_long)),
                    long: is_long,
                    reservation: false,
                    marks_long: false,
                    est: 1.0,
                });
            }
        }
        n.running_long = long;
        n.free = 2 - short - long;
        n
    }

    #[test]
    fn a_short_only_executor_borrows_while_another_is_mixed() {
        let nodes = [node(1, 0), node(1, 1), node(0, 2)];
        assert!(lend_to_short(&nodes, 0));
    }

    #[test]
    fn no_loan_without_a_mixed_executor_to_repay_it() {
        let nodes = [node(1, 0), node(2, 0), node(0, 2)];
        assert!(!lend_to_short(&nodes, 0), "no executor runs both classes");
    }

    #[test]
    fn no_loan_on_an_executor_that_runs_long_work_or_nothing() {
        let nodes = [node(0, 1), node(0, 0), node(1, 1)];
        assert!(!lend_to_short(&nodes, 0), "long work runs there");
        assert!(!lend_to_short(&nodes, 1), "nothing runs there: no class to keep");
        assert!(!lend_to_short(&nodes, 2), "the mixed executor itself");
        assert!(!lend_to_short(&nodes, 7), "no such node");
    }

    #[test]
    fn a_dead_executor_neither_borrows_nor_repays() {
        let mut mixed = node(1, 1);
        mixed.live = false;
        assert!(!lend_to_short(&[node(1, 0), mixed], 0));
    }
}
