//! Data locality: how long a task set waits for a local slot, and which of its tasks is
//! local where (the DDS paper, §II–IV; docs/policies/dds.md).
//!
//! - [`delay`]: Dynamic Delay Scheduling, the adaptive wait per stage and locality level,
//!   used by the driver ([`crate::Driver::allowed_locality`]) and the simulator alike.
//! - This module: late binding to input blocks in the simulator's locality mode. Each
//!   task of a job reads one input block, replicated on a few nodes. When a node asks the
//!   job for a task (Eagle's late binding), the job hands out a task whose block is on
//!   that node if it has one (NODE_LOCAL). Otherwise it may hand out any unlaunched task
//!   (ANY), but only once its [`StageDelay`] allows it; until then the node skips the
//!   job, as Algorithm 1 does.
//!
//! Invariant: no task waits for locality longer than the delay's `max` plus one
//! scheduling round.

pub mod delay;

use crate::types::{NodeId, Time};
use delay::{DelayParams, Level, StageDelay};
use std::collections::HashMap;

/// The levels a simulated stage has: node-local, or anywhere.
pub const SIM_LEVELS: [Level; 2] = [Level::NodeLocal, Level::Any];

/// Which unlaunched tasks of a job are local to which node.
#[derive(Clone, Debug)]
pub struct JobLocality {
    /// Node → task indices whose block it holds (popped lazily).
    by_node: HashMap<u32, Vec<u32>>,
    prefs: Vec<Vec<NodeId>>,
    launched: Vec<bool>,
    /// Lowest index that may still be unlaunched.
    cursor: usize,
    left: usize,
    pub delay: StageDelay,
}

/// What a node gets when it asks a job for a task.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fetch {
    /// A task whose block is on the node.
    Local(u32),
    /// A task whose block is elsewhere (the delay allowed it).
    Remote(u32),
    /// The job has tasks, but none local here and it must keep waiting for locality.
    Wait,
    /// Nothing left to launch.
    Empty,
}

impl JobLocality {
    /// `prefs[i]` are the nodes holding task i's block.
    pub fn new(now: Time, prefs: &[Vec<NodeId>], params: &DelayParams) -> JobLocality {
        let mut by_node: HashMap<u32, Vec<u32>> = HashMap::new();
        for (i, nodes) in prefs.iter().enumerate().rev() {
            for n in nodes {
                by_node.entry(n.0).or_default().push(i as u32);
            }
        }
        JobLocality {
            by_node,
            prefs: prefs.to_vec(),
            launched: vec![false; prefs.len()],
            cursor: 0,
            left: prefs.len(),
            delay: StageDelay::new(now, params),
        }
    }

    pub fn left(&self) -> usize {
        self.left
    }

    /// Probe targets that can serve tasks locally (Sparrow-style constrained
    /// placement): one replica, chosen by `pick`, for each of up to `count`
    /// unlaunched tasks.
    pub fn probe_hints(&self, count: usize, mut pick: impl FnMut(usize) -> usize, out: &mut Vec<NodeId>) {
        for (i, nodes) in self.prefs.iter().enumerate() {
            if out.len() >= count {
                break;
            }
            if !self.launched[i] && !nodes.is_empty() {
                out.push(nodes[pick(nodes.len())]);
            }
        }
    }

    fn has_local(&mut self, node: NodeId) -> Option<u32> {
        let v = self.by_node.get_mut(&node.0)?;
        while let Some(&t) = v.last() {
            if self.launched[t as usize] {
                v.pop();
            } else {
                return Some(t);
            }
        }
        None
    }

    /// Chooses a task for `node` (and marks it launched), honouring the delay.
    pub fn fetch(&mut self, now: Time, params: &DelayParams, node: NodeId) -> Fetch {
        if self.left == 0 {
            return Fetch::Empty;
        }
        if let Some(t) = self.has_local(node) {
            self.take(t);
            self.delay.launched(now, Level::NodeLocal, &SIM_LEVELS);
            return Fetch::Local(t);
        }
        if self.delay.allowed(now, params, &SIM_LEVELS, |_| true) == Level::Any {
            while self.launched[self.cursor] {
                self.cursor += 1;
            }
            let t = self.cursor as u32;
            self.take(t);
            self.delay.launched(now, Level::Any, &SIM_LEVELS);
            return Fetch::Remote(t);
        }
        Fetch::Wait
    }

    /// When a job that had to wait may next launch remotely.
    pub fn next_relax(&self, params: &DelayParams) -> Time {
        self.delay.next_relax(params, &SIM_LEVELS)
    }

    fn take(&mut self, t: u32) {
        debug_assert!(!self.launched[t as usize]);
        self.launched[t as usize] = true;
        self.left -= 1;
    }

    /// A task was lost (e.g. its node went away) and waits again.
    pub fn requeue(&mut self, t: u32) {
        if self.launched[t as usize] {
            self.launched[t as usize] = false;
            self.left += 1;
            self.cursor = self.cursor.min(t as usize);
            for n in &self.prefs[t as usize] {
                self.by_node.entry(n.0).or_default().push(t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prefs() -> Vec<Vec<NodeId>> {
        vec![vec![NodeId(0), NodeId(1)], vec![NodeId(1), NodeId(2)], vec![NodeId(2), NodeId(0)]]
    }

    #[test]
    fn local_first_then_wait_then_remote() {
        let p = DelayParams::uniform(3.0, 0.0, 10.0, 2.0);
        let mut l = JobLocality::new(0.0, &prefs(), &p);
        assert_eq!(l.fetch(0.0, &p, NodeId(1)), Fetch::Local(0));
        assert_eq!(l.fetch(0.0, &p, NodeId(1)), Fetch::Local(1));
        assert_eq!(l.fetch(0.5, &p, NodeId(1)), Fetch::Wait, "task 2 is on nodes 2 and 0");
        assert_eq!(l.fetch(3.6, &p, NodeId(1)), Fetch::Remote(2), "the wait ran out");
        assert_eq!(l.fetch(4.0, &p, NodeId(0)), Fetch::Empty);
    }

    #[test]
    fn zero_wait_never_waits() {
        let p = DelayParams::uniform(0.0, 0.0, 0.0, 2.0);
        let mut l = JobLocality::new(0.0, &prefs(), &p);
        assert_eq!(l.fetch(0.0, &p, NodeId(7)), Fetch::Remote(0));
        let mut seen = vec![];
        for n in [0, 5, 6] {
            match l.fetch(0.0, &p, NodeId(n)) {
                Fetch::Local(t) | Fetch::Remote(t) => seen.push(t),
                Fetch::Empty => seen.push(100),
                Fetch::Wait => panic!("a zero wait never waits"),
            }
        }
        seen.sort();
        assert_eq!(seen, vec![1, 2, 100], "each task exactly once, then empty");
    }

    #[test]
    fn requeued_task_is_handed_out_again() {
        let p = DelayParams::uniform(0.0, 0.0, 0.0, 2.0);
        let mut l = JobLocality::new(0.0, &prefs(), &p);
        assert_eq!(l.fetch(0.0, &p, NodeId(0)), Fetch::Local(0));
        assert_eq!(l.fetch(0.0, &p, NodeId(0)), Fetch::Local(2));
        l.requeue(0);
        assert_eq!(l.fetch(0.0, &p, NodeId(0)), Fetch::Local(0), "back on its block's nodes");
        assert_eq!(l.fetch(0.0, &p, NodeId(0)), Fetch::Remote(1));
    }
}
