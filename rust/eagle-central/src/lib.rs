//! # eagle-central
//!
//! Eagle's centralized scheduler for cluster mode (SoCC'16 §3.1-3.2 and §5): it
//! places the long task sets of every application with least-work-left over the
//! general partition, sending each node daemon a reservation per task with the
//! Succinct State Sharing bitvector piggybacked. [`state`] is the pure state
//! machine, [`server`] its TCP daemon.

pub mod error;
pub mod headroom;
pub mod ids;
pub mod placement;
pub mod server;
pub mod short_partition;
pub mod state;

pub use error::FlagError;
pub use server::{parse_nodes, spawn, CentralHandle, Options};
pub use state::{Action, CentralState, Event, HostEvent};
