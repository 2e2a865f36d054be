//! # eagle-jni
//!
//! The JNI bridge between the Spark plugin (`org.apache.spark.scheduler.eagle.Native`)
//! and the engine's [`eagle_core::Driver`] façade. It holds no policy: it decodes
//! primitive arguments, converts milliseconds to the engine's seconds, calls the
//! driver and encodes its answer back into primitives.
//!
//! Layout (the datafusion-comet split):
//! - [`handle`]: safe Rust. The registry that JNI handles are keys of: calls racing
//!   with `destroy` get a clean "engine closed" error, never freed memory.
//! - [`state`]: safe Rust. The per-application [`state::State`] (driver + test hook),
//!   its configuration (decoded by [`eagle_core::settings`]), the fixed layouts of the
//!   counter arrays, and the history JSON file.
//!   Unit-tested without a JVM.
//! - [`placement`]: safe Rust. `placement=lotes`: executor and task-set descriptions
//!   for LoTES, kept in step with the driver's events.
//! - [`cluster`]: safe Rust. Cluster mode's driver side: the grants of the hosts'
//!   `eagle-node` daemons become the offer rounds' plans (issue 13).
//! - `jni_api`, `jni_cluster` and `jni_extensions` (private): the only modules with `unsafe` and the only ones that
//!   know about the JVM. Every entry point runs inside `catch_unwind`
//!   (through `jni::EnvUnowned::with_env`) and turns an error or a panic into a
//!   Java `org.apache.spark.scheduler.eagle.EagleNativeException`; nothing ever
//!   unwinds into the JVM, and native code never calls back into Java.
//!
//! Ownership across the boundary is described in `docs/design/ffi.md`.
#![deny(unsafe_code)]

pub mod cluster;
pub mod cluster_bridge;
pub mod eirene;
pub mod error;
pub mod handle;
pub mod history_file;
pub mod placement;
pub mod state;

#[allow(unsafe_code)]
mod jni_api;
#[allow(unsafe_code)]
mod jni_cluster;
#[allow(unsafe_code)]
mod jni_extensions;

pub use error::Error;
pub use state::{State, COUNTER_NAMES};
