//! Succinct State Sharing (Eagle §3.1).
//!
//! The centralized scheduler knows which nodes hold long work (queued or
//! running). It keeps that as a bitvector and ships a copy, stamped with the
//! time, with every long placement; nodes keep the copy they last received.
//!
//! Protocol for a short job (distributed Eagle, the simulator):
//! 1. Round 1 samples probe targets uniformly at random: a stale bitvector is
//!    worse than sampling, so the first round ignores it.
//! 2. A node that holds long work rejects the probe and answers with its copy.
//! 3. Each later round re-sends the rejected probes to random nodes that the
//!    *freshest* copy among the contacted nodes marks free of long work (plus
//!    the short-only partition), for up to `sss_rounds` rounds.
//! 4. Whatever is still rejected goes to random short-only nodes, which never
//!    hold long work.
//!
//! Invariant: a short probe never queues behind a long task. Acceptance is
//! decided against the exact count of long tasks placed on the node (in flight,
//! queued or running), so a long reservation that is still on the wire also
//! makes the node reject.
//!
//! In driver mode (the Spark plugin) the scheduler holds the exact state, which
//! is the paper's IdealEagle point (§6.4): the bitvector used for retries is the
//! live one.

use std::sync::Arc;

/// A frozen copy of the long-work bitvector.
pub type Snapshot = Arc<[u64]>;

/// The long-work map: per node, how many long tasks are placed and not finished.
#[derive(Clone, Debug, Default)]
pub struct LongMap {
    count: Vec<u32>,
    words: Vec<u64>,
    snapshot: Option<Snapshot>,
}

impl LongMap {
    pub fn grow(&mut self, nodes: usize) {
        self.count.resize(nodes, 0);
        self.words.resize(nodes.div_ceil(64), 0);
        self.snapshot = None;
    }

    /// True when the node holds long work (the node rejects short probes).
    #[inline]
    pub fn holds_long(&self, node: usize) -> bool {
        self.count[node] > 0
    }

    #[inline]
    pub fn count(&self, node: usize) -> u32 {
        self.count[node]
    }

    pub fn add(&mut self, node: usize) {
        self.count[node] += 1;
        if self.count[node] == 1 {
            self.words[node / 64] |= 1 << (node % 64);
            self.snapshot = None;
        }
    }

    pub fn remove(&mut self, node: usize) {
        debug_assert!(self.count[node] > 0, "long count underflow on node {node}");
        self.count[node] = self.count[node].saturating_sub(1);
        if self.count[node] == 0 {
            self.words[node / 64] &= !(1 << (node % 64));
            self.snapshot = None;
        }
    }

    /// Drops every long task of `node` (node removed).
    pub fn clear(&mut self, node: usize) {
        if self.count[node] > 0 {
            self.count[node] = 0;
            self.words[node / 64] &= !(1 << (node % 64));
            self.snapshot = None;
        }
    }

    /// The current bitvector, frozen. Shared until the next change.
    pub fn snapshot(&mut self) -> Snapshot {
        if self.snapshot.is_none() {
            self.snapshot = Some(Arc::from(self.words.as_slice()));
        }
        self.snapshot.clone().unwrap()
    }
}

/// Reads bit `node` of a snapshot.
#[inline]
pub fn bit(s: &[u64], node: usize) -> bool {
    s.get(node / 64).is_some_and(|w| w & (1 << (node % 64)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_bits_follow_placements() {
        let mut m = LongMap::default();
        m.grow(130);
        m.add(129);
        m.add(129);
        let s1 = m.snapshot();
        assert!(bit(&s1, 129) && m.holds_long(129));
        m.remove(129);
        assert!(m.holds_long(129), "one long task still placed");
        m.remove(129);
        assert!(!m.holds_long(129));
        let s2 = m.snapshot();
        assert!(bit(&s1, 129), "old copies are frozen");
        assert!(!bit(&s2, 129));
    }

    #[test]
    fn snapshot_shared_until_change() {
        let mut m = LongMap::default();
        m.grow(10);
        let a = m.snapshot();
        let b = m.snapshot();
        assert!(Arc::ptr_eq(&a, &b));
        m.add(3);
        let c = m.snapshot();
        assert!(!Arc::ptr_eq(&a, &c));
    }
}
