//! The Eagle mechanism (SoCC'16 §3), as pieces the paper policy ([`crate::policy::paper`])
//! composes and the node and central daemons reuse:
//!
//! | module | what | paper |
//! |---|---|---|
//! | [`partition`] | the short-only, small and big partitions of the nodes | §3.1 |
//! | [`sss`] | Succinct State Sharing: the long-work bitvector and its copies | §3.1 |
//! | [`lwl`] | least-work-left water-filling of long tasks (also DLWL's stale variant) | §3.2 |
//! | [`probe`] | how many probes a short job sends: `max(ratio·t, K)` | §3.2 |
//! | [`node_queue`] | a node's slots and its queue of probes and reservations | §3 |
//! | [`srpt`] | SRPT over a node's queue with the starvation cap; Sticky Batch Probing | §3.3, Alg. 1 |
//! | [`steal`] | Hawk's randomized work stealing (a baseline) | Hawk §4.3 |
//!
//! Invariants the pieces keep for the policy: a short probe is never sent to a node that
//! holds long work ([`sss`]); long tasks never run in the short-only partition
//! ([`partition`]); a short probe bypassed by SRPT waits at most `factor` times its own
//! task duration ([`srpt`]).
//!
//! The modules depend on [`crate::types`] and [`crate::rng`] only: no cluster books, no
//! policy state, so a daemon can run one rule on its own view.

pub mod lwl;
pub mod node_queue;
pub mod partition;
pub mod probe;
pub mod srpt;
pub mod sss;
pub mod steal;
