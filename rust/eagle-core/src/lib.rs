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
//! Modules are named after the concepts of the Eagle paper (SoCC'16):
//! [`partition`] (§3.1 short partition), [`sss`] (§3.1 Succinct State Sharing),
//! [`lwl`] (§3.2 least-work-left placement), [`probe`] (§3.2 probing, max(K, 2t)),
//! [`node_queue`] (per-node queues), [`srpt`] (§3.3 SRPT with starvation cap,
//! Algorithm 1, and Sticky Batch Probing), [`steal`] (Hawk work stealing), and
//! [`estimate`] (job classification and duration estimates); [`delay`] is Dynamic
//! Delay Scheduling (adaptive locality waits per stage and level); [`eirene`] adds
//! Eirene's cold data migration and task cloning to the short-job path; [`warmup`]
//! measures what a task set's first task on an executor costs (the adaptive policy keeps
//! task sets on executors they already warmed when that pays).
//!
//! Resource-aware placement on heterogeneous machines (the LoTES paper) lives in
//! [`resources`] (multi-resource amounts), [`hetero`] (machines, the [`hetero::Placer`]
//! interface, the Greedy and Tetris baselines) and [`lotes`] (the three LoTES stages).

pub mod affinity;
pub mod arrivals;
pub mod cluster;
pub mod config;
pub mod counters;
pub mod cutoff;
pub mod delay;
pub mod driver;
pub mod eirene;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod fsp;
pub mod hetero;
pub mod hold;
pub mod locality;
pub mod lotes;
pub mod lwl;
pub mod node_queue;
pub mod partition;
pub mod policy;
pub mod probe;
pub mod reservation;
pub mod resources;
pub mod rng;
pub mod settings;
pub mod srpt;
pub mod sss;
pub mod steal;
pub mod system;
pub mod tenant;
pub mod types;
pub mod warmup;

pub use config::{Config, System};
pub use driver::{AdaptivePoint, Driver, DriverConfig, DriverStatus};
pub use engine::{Counters, Engine, JobSpec, JobView, NodeView};
pub use error::{Bound, ConfigError, PlacementError};
pub use estimate::EstimateSource;
pub use types::{Class, JobId, Msg, NodeId, Output, Time};
