//! # eagle-node
//!
//! The per-host Eagle daemon of cluster mode (Eagle SoCC'16 §5: "an Eagle daemon in
//! each worker node to manage their queue"). It owns the host's slots, queues short
//! probes from every application's distributed scheduler and long reservations from
//! the central scheduler, and leases each freed slot to the driver whose job Sticky
//! Batch Probing + SRPT picks.
//!
//! [`state`] is the pure state machine (events in, actions out, virtual clock);
//! [`server`] runs it behind TCP with the [`eagle_wire`] protocol.

pub mod error;
pub mod policy;
pub mod server;
pub mod state;

pub use error::BrokenInvariant;
pub use server::{spawn, NodeHandle, Options};
pub use state::{Action, ConnId, Event, Ms, NodeState, Policy, Settings, StealDone, STEAL_WAIT_MS};
