//! # eagle-testkit
//!
//! The daemons of cluster mode as the workspace's tests and benchmarks start them:
//! [`Node`] and [`Central`] describe an in-process `eagle-node` or `eagle-central`
//! (their own threads, in this process) on an ephemeral loopback port, with the
//! settings the tests share as defaults; [`wait`] polls a condition (a central that
//! has linked its nodes, a node with no lease left) under one bound; [`config`] is the
//! engine configuration the bridge's and the driver side's tests start from.
//!
//! Invariants:
//! - a dev-dependency only (`publish = false`): no product crate depends on it, so it
//!   never reaches the plugin's jar or the daemons' binaries;
//! - a daemon is listening when `start`/`spawn` returns (the port is bound first), so a
//!   test may connect at once; it runs until the test process ends (the daemons have no
//!   stop), and dropping its handle only detaches it;
//! - every start routes the daemons' log to the test's captured output (`RUST_LOG`).
//!
//! The process-level fault tests start the daemons' binaries instead
//! (`eagle-central/tests/support`): what they test is a process dying.

pub mod config;
pub mod daemons;
pub mod wait;

pub use config::{engine_config_with, ENGINE_CONFIG};
pub use daemons::{Central, Node, LOOPBACK};
pub use wait::{central_linked, eventually, leased, PATIENCE};
