//! # eagle-client
//!
//! The driver side of cluster mode (issue 13; Eagle SoCC'16 §5: "a scheduler client
//! as a plug-in for Spark"). One [`Client`] per Spark application is its
//! *distributed scheduler*:
//!
//! * short task sets send Sticky Batch Probes to `max(K, 2t)` distinct hosts where the
//!   application has executors (§3.2; [`eagle_core::eagle::probe::probe_count`]);
//! * long task sets go to `eagle-central`, which places them with LWL (§3.2);
//! * the slots arrive as [`Grant`]s (leases) from the hosts' `eagle-node` daemons; the
//!   driver launches one task under a grant ([`Client::launched`]) or returns it at
//!   once ([`Client::no_task`], late binding), and reports every task end
//!   ([`Client::task_end`]).
//!
//! **Where the nodes are.** A node daemon runs on every worker host on one port
//! (`scripts/eagle-cluster.sh --node-port`), and the application must have an
//! executor on each host it uses; so the driver links to `executor host : node port`
//! for every host it has executors on ([`Client::add_host`]). It needs no host list
//! from the central (which may be down) and never links to hosts it cannot use.
//!
//! **Faults.** A node link that drops takes its host out of every new decision (and
//! its grants are void) until the link is back: the link thread reconnects every
//! [`RETRY`] and the host is used again. While the central is unreachable, long task
//! sets are spread over the driver's own hosts by least work left
//! ([`placement::local_lwl`]) and sent to those nodes as probes; once it is back,
//! long task sets go to it again. Tasks the central could not place (`Unplaced`) take
//! the same local path.
//!
//! Threads: one link thread per node and one for the central (connect, handshake,
//! read frames), and one client thread that owns all state and every write half;
//! they talk over `crossbeam-channel`s. The driver reads [`Event`]s from
//! [`Client::events`].

mod books;
pub mod client;
pub mod error;
mod link;
pub mod placement;

pub use client::{Client, ClientConfig, Event, Grant, HostView};
pub use error::Refused;

/// How often a link that is down is tried again.
pub const RETRY: std::time::Duration = std::time::Duration::from_millis(300);
