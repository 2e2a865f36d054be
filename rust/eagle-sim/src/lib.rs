//! # eagle-sim
//!
//! A trace-driven discrete-event simulator that drives [`eagle_core::Engine`].
//!
//! The simulator is a second *driver* of the engine, never a second
//! implementation of its policies: every placement, queueing, SRPT, probing and
//! stealing decision is taken inside `eagle-core`. What lives here is what a
//! real cluster would provide around the scheduler:
//!
//! - [`trace`]: reading Hawk/Eagle-format traces (`submit ntasks mean d1 … dn`),
//!   with the reference simulator's quirks (integer truncation, +0.01 s shift of
//!   duplicate submission times);
//! - [`events`]: the timer heap, ordered deterministically by
//!   (time, event-type rank, insertion sequence);
//! - [`sim`]: the replay loop: job arrivals, task durations (the engine says
//!   *which* task of a job starts *where* and *when*; the trace says for how
//!   long), engine timers, utilization sampling;
//! - [`stats`]: percentiles (linear interpolation between ranks, like numpy);
//! - [`report`]: the JSON object and the human-readable table;
//! - [`gen`]: synthetic traces resampled from a real one at a target load;
//! - [`eirene`]: Eirene's task copies, migrated input and clone runtimes;
//! - [`hetero`]: heterogeneous machines and resource demands (LoTES, Greedy, Tetris);
//! - [`progress`]: progress of long commands on stderr (bar or plain lines);
//! - [`cli`]: the `eagle-sim` command line (clap).

pub mod cli;
pub mod eirene;
pub mod error;
pub mod events;
pub mod fbgen;
pub mod gen;
pub mod hetero;
pub mod progress;
pub mod report;
pub mod sim;
pub mod stats;
pub mod trace;
