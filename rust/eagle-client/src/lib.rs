//! # eagle-client
//!
//! The driver side of the scheduler, behind the JNI bridge: one Spark application's
//! scheduler state, the history file of its stage estimates, and cluster mode's client
//! (Eagle SoCC'16 §5: "a scheduler client as a plug-in for Spark"). It does the I/O and runs
//! the threads; the policy stays in the pure `eagle-core`. Module map:
//!
//! * [`application`]: one application's scheduler ([`Application`]): the engine
//!   ([`eagle_core::Driver`]), LoTES's executor placement, and cluster mode's side once
//!   started, kept in step with Spark's events; the plugin's test hooks.
//! * [`history`]: the history file (`history.path`): its format, loading and atomic saving.
//! * [`grants`]: cluster mode in the driver ([`ClusterSide`]): the grants of the hosts'
//!   `eagle-node` daemons become the offer rounds' plans; gangs, hand-backs, reach.
//! * [`client`]: the application's *distributed scheduler* ([`Client`]): short task sets
//!   send Sticky Batch Probes to `max(K, 2t)` distinct hosts (§3.2;
//!   [`eagle_core::eagle::probe::probe_count`]), long ones go to `eagle-central` (LWL, §3.2); the
//!   slots arrive as [`Grant`]s (leases), each launched under ([`Client::launched`]) or
//!   returned at once ([`Client::no_task`], late binding), every task end reported
//!   ([`Client::task_end`]).
//! * [`placement`]: the client's pure placement decisions (probe targets, application
//!   affinity, the fallback while the central is unreachable).
//!
//! Threads: one link thread per node and one for the central (connect, handshake, read
//! frames), and one client thread that owns the client's state and every write half; they
//! talk over `crossbeam-channel`s. In cluster mode one more thread moves the client's
//! [`Event`]s into the [`grants::Inbox`]. Every other call runs on the caller's thread,
//! under the application's lock (the JNI handle's).

pub mod application;
mod books;
pub mod client;
pub mod error;
pub mod grants;
pub mod history;
mod link;
pub mod placement;

pub use application::{Application, TaskSet};
pub use client::{Client, ClientConfig, Event, Grant, HostView};
pub use error::{ApplicationError, ClusterError, Refused};
pub use grants::{ClusterParams, ClusterSide, Shape};
pub use history::HistoryError;

/// How often a link that is down is tried again.
pub const RETRY: std::time::Duration = std::time::Duration::from_millis(300);
