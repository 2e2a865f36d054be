//! # eagle-core
//!
//! The one place where scheduling policy lives. Both the trace-driven simulator
//! (`eagle-sim`) and the Spark plugin (through `eagle-jni`) drive this engine;
//! no policy is written twice.
//!
//! The engine is pure and deterministic: no I/O, no threads, no wall clock.
//! The host passes `now` into every call and a seed at construction, and acts on
//! the [`Output`]s the engine appends to a caller-owned buffer:
//!
//! ```text
//!   host event ──► Engine::{submit_job, task_finished, deliver, offer, ...} ──► Vec<Output>
//!                                                                              │
//!        Launch { node, job, task, start } ◄───────────────────────────────────┤
//!        Timer  { at, msg }  ── host calls Engine::deliver(at, msg) ◄──────────┘
//! ```
//!
//! Modules by concept (papers: Eagle SoCC'16, DDS, Eirene, LoTES; docs/policies/):
//!
//! | module | concept | paper |
//! |---|---|---|
//! | [`engine`] | the selected policy, its capabilities, the read-only views | — |
//! | [`policy`] | the [`policy::Policy`] seam and its capability traits; the paper and adaptive policies | — |
//! | [`eagle`] | partitions, SSS, LWL, probes, node queues, SRPT and SBP, stealing | Eagle §3 |
//! | [`adaptive`] | reservation, hold, preemption, learned cutoff, FSP, arrivals, affinity, warm executors | ours, after Eagle §3.1, §3.3 |
//! | [`locality`] | Dynamic Delay Scheduling, late binding to input blocks | DDS §II–IV |
//! | [`eirene`] | cold data migration (CCDM) and task cloning (SATC) | Eirene §III |
//! | [`hetero`] | multi-resource placement: machines, Greedy, Tetris, LoTES | LoTES §2–5 |
//! | [`driver`] | the Spark-facing façade: estimates, cutoff, history, DDS, warm-up | IdealEagle, Eagle §6.4 |
//! | [`cluster`], [`counters`] | the books every policy keeps, and what hosts report | — |
//! | [`estimate`] | job classification and task-duration estimates | Eagle §3.1 |
//! | [`tenant`] | tenants (pools, Spark Connect sessions): weights and minimum shares | Spark's FAIR pools |
//! | [`config`], [`system`], [`settings`], [`error`] | engine configuration, policy names, Spark keys, errors | — |
//! | [`types`], [`rng`] | identifiers, time, outputs; the seedable PRNG | — |
//!
//! Dependencies run one way (`tools/module_cycles.py` checks there is no cycle): [`eagle`],
//! [`locality`], [`eirene`] and [`hetero`] know no policy and no [`cluster`] books;
//! [`adaptive`] reads [`eagle::node_queue`]; [`cluster`] keeps nodes and jobs over [`eagle`]
//! and [`locality`]; [`policy`] composes them all; [`engine`] and [`driver`] sit on top.

pub mod adaptive;
pub mod cluster;
pub mod config;
pub mod counters;
pub mod driver;
pub mod eagle;
pub mod eirene;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod hetero;
pub mod locality;
pub mod policy;
pub mod rng;
pub mod settings;
pub mod system;
pub mod tenant;
pub mod types;

pub use config::{Config, System};
pub use driver::{AdaptivePoint, Driver, DriverConfig, DriverStatus};
pub use engine::{Counters, Engine, JobSpec, JobView, NodeView};
pub use error::{Bound, ConfigError, PlacementError};
pub use estimate::EstimateSource;
pub use types::{Class, JobId, Msg, NodeId, Output, Time};
