//! # eagle-jni
//!
//! The JNI bridge between the Spark plugin (`org.apache.spark.scheduler.eagle.Native`)
//! and one application's scheduler in the driver ([`eagle_client::Application`], over the
//! engine [`eagle_core::Driver`]). It only converts: it decodes primitive arguments (and
//! `create`'s JSON configuration), converts milliseconds to the engine's seconds, passes
//! the call on, and encodes the answer back into primitives. It holds no policy and no
//! scheduling state of its own; the application's state, the history file and cluster
//! mode's driver side are eagle-client's.
//!
//! Layout (the datafusion-comet split):
//! - [`handle`]: safe Rust. The registry that JNI handles are keys of: calls racing
//!   with `destroy` get a clean "engine closed" error, never freed memory.
//! - [`convert`], [`layout`] and [`eirene`]: safe Rust, the conversions. Ids, counts,
//!   codes, times and `create`'s configuration in; the fixed layouts of the `Array[Long]`s
//!   the plugin reads out (shared with `Native.scala`); the Eirene calls' argument arrays.
//!   Unit-tested without a JVM.
//! - [`error`]: safe Rust. What a call rejects, with the errors of the crates below passed
//!   on as they are; its `Display` text becomes the Java exception's message.
//! - `jni_api`, `jni_cluster` and `jni_extensions` (private): the only modules with `unsafe` and the only ones that
//!   know about the JVM. Every entry point runs inside `catch_unwind`
//!   (through `jni::EnvUnowned::with_env`) and turns an error or a panic into a
//!   Java `org.apache.spark.scheduler.eagle.EagleNativeException`; nothing ever
//!   unwinds into the JVM, and native code never calls back into Java.
//!
//! Ownership across the boundary is described in `docs/design/ffi.md`.
#![deny(unsafe_code)]

pub mod convert;
pub mod eirene;
pub mod error;
pub mod handle;
pub mod layout;

#[allow(unsafe_code)]
mod jni_api;
#[allow(unsafe_code)]
mod jni_cluster;
#[allow(unsafe_code)]
mod jni_extensions;

pub use error::Error;
pub use layout::COUNTER_NAMES;
