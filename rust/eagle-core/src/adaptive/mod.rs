//! The mechanisms of eagle-adaptive (docs/policies/adaptive.md), which the adaptive policy
//! ([`crate::policy::adaptive`]) and the driver ([`crate::Driver`]) compose: Eagle's
//! guarantees without its static parameters. Each replaces a fixed setting of the paper
//! with one measured from the application.
//!
//! | module | what | replaces (Eagle SoCC'16) |
//! |---|---|---|
//! | [`reservation`] | slots kept from long work, sized from the observed short demand | the short partition, §3.1 |
//! | [`hold`] | slots a small job frees stay free briefly for the next arrival | the short partition, §3.1 |
//! | [`cutoff`] | the short/long split learned from task durations (1-D 2-means) | the fixed cutoff, §3.1 |
//! | [`fsp`] | the Fair Sojourn Protocol order, an alternative key to SRPT | SRPT's starvation cap, §3.3 |
//! | [`arrivals`] | whether short units (queries, jobs) keep arriving | — |
//! | [`affinity`] | executors keep to one class of work | whole-node partitions, §3.1 |
//! | [`warmup`] | a task set's first-task cost on an executor, and when a slot is worth it | Sticky Batch Probing, §3.3 |
//! | [`preempt`] | a short job that waited past a bound gets the youngest long attempt's slot (off by default) | — (Eagle never preempts) |
//! | [`windowed`] | a sum over a sliding window: the budgets of the hold, of preemption and of the nodes' steal | — |
//!
//! Invariants (docs/policies/adaptive.md has the rules and the measurements): short work
//! never queues behind long work while the reservation holds; the reservation and the
//! hold never exceed `max_fraction` of the slots; the hold's slot-seconds stay within
//! `hold_fraction` of the cluster's; a published cutoff moves only past its hysteresis.
//!
//! Driver mode sees the whole cluster exactly (IdealEagle, §6.4), so nothing here needs
//! probes, bitvectors or per-node queues.

pub mod affinity;
pub mod arrivals;
pub mod cutoff;
pub mod fsp;
pub mod hold;
pub mod preempt;
pub mod reservation;
pub mod warmup;
pub mod windowed;
