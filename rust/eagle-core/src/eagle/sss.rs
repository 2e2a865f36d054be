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
//! Invariant: a short probe is never sent to a node that holds long work.
//! Acceptance is decided when the probe is sent (as in the reference simulator),
//! against the exact count of long tasks placed on the node (in flight, queued or
//! running), so a long reservation that is still on the wire also makes the node
//! reject. A long reservation placed *after* the probe was sent can still reach the
//! node first: round 1 flies one network delay, round 2 and the fallback two, a
//! reservation one. Such a probe queues behind long work without breaking the
//! rule; the engine counts it as `probes_overtaken_by_long`, not as
//! `probes_behind_long` (which stays 0), by comparing the long map's version
//! stamped on the probe ([`LongMap::version`]) with the placement that started the
//! node's long work ([`LongMap::placed_after`]).
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
    /// Long placements so far, wrapping (a logical clock: exact order, no time ties).
    version: u32,
    /// Per node, the `version` at which its count last went from 0 to 1.
    since: Vec<u32>,
}

impl LongMap {
    pub fn grow(&mut self, nodes: usize) {
        self.count.resize(nodes, 0);
        self.since.resize(nodes, 0);
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
        self.version = self.version.wrapping_add(1);
        self.count[node] += 1;
        if self.count[node] == 1 {
            self.since[node] = self.version;
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

    /// The number of long placements so far; a message stamped with it was sent
    /// before every later placement.
    #[inline]
    pub fn version(&self) -> u32 {
        self.version
    }

    /// True when the long work `node` holds now was all placed after `version`:
    /// the node has held long work without a break only since a later placement.
    #[inline]
    pub fn placed_after(&self, node: usize, version: u32) -> bool {
        // Serial-number order (RFC 1982): exact while fewer than 2^31 long placements
        // separate the two versions; a u32 keeps the simulator's event payload (`Kind`)
        // at 16 bytes, as before the stamp (a u64 made it 24).
        self.count[node] > 0 && (self.since[node].wrapping_sub(version) as i32) > 0
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
    fn placed_after_orders_placements() {
        let mut m = LongMap::default();
        m.grow(4);
        m.add(1);
        let v = m.version(); // a probe sent now
        assert!(!m.placed_after(1, v), "node 1 already held long work");
        assert!(!m.placed_after(2, v), "node 2 holds none");
        m.add(2);
        m.add(1);
        assert!(m.placed_after(2, v), "node 2's long work came after the probe left");
        assert!(!m.placed_after(1, v), "node 1's episode began before");
        m.remove(1);
        m.remove(1);
        m.add(1);
        assert!(m.placed_after(1, v), "a new episode after the probe left");
    }

    #[test]
    fn placed_after_survives_wrapping() {
        let mut m = LongMap::default();
        m.grow(2);
        m.version = u32::MAX - 1;
        m.add(0);
        let v = m.version(); // u32::MAX
        m.add(1); // version wraps to 0
        assert_eq!(m.version(), 0);
        assert!(m.placed_after(1, v));
        assert!(!m.placed_after(0, v));
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
