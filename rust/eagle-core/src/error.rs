//! The engine's error types: [`ConfigError`] for a setting the engine rejects, and
//! [`PlacementError`] for resource-aware placement ([`crate::hetero`], [`crate::hetero::lotes`]).
//!
//! Each `Display` renders one line naming what was wrong; hosts show it as is (the JNI
//! bridge makes it the Java exception's message).

use crate::types::{JobId, NodeId};
use std::fmt;

/// The prefix of the Spark keys [`ConfigError::UnknownKey`] and [`ConfigError::BadValue`] name
/// (see [`crate::settings`]).
pub const SPARK_PREFIX: &str = "spark.scheduler.eagle.";

/// The range a numeric setting must lie in, worded as the error message says it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Bound {
    /// `> 0`
    Positive,
    /// `>= 0`
    NonNegative,
    /// `>= x`
    AtLeast(f64),
    /// `within [lo, hi]`
    Within(f64, f64),
    /// `within [lo, hi)`
    WithinHalfOpen(f64, f64),
    /// a positive number of seconds
    PositiveSeconds,
    /// a finite number >= 0
    FiniteNonNegative,
}

impl fmt::Display for Bound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Bound::Positive => f.write_str("> 0"),
            Bound::NonNegative => f.write_str(">= 0"),
            Bound::AtLeast(x) => write!(f, ">= {x}"),
            Bound::Within(lo, hi) => write!(f, "within [{lo}, {hi}]"),
            Bound::WithinHalfOpen(lo, hi) => write!(f, "within [{lo}, {hi})"),
            Bound::PositiveSeconds => f.write_str("a positive number of seconds"),
            Bound::FiniteNonNegative => f.write_str("a finite number >= 0"),
        }
    }
}

/// A configuration the engine refuses to run with.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigError {
    /// Setting `key` is `value`, outside `bound`.
    OutOfRange { key: &'static str, value: f64, bound: Bound },
    /// Setting `key` is outside `bound` (the message leaves the value out).
    Invalid { key: &'static str, bound: Bound },
    /// Setting `key` is NaN.
    NotANumber { key: &'static str },
    /// The locality delay's largest wait is below its smallest.
    MaxWaitBelowMin { min: f64, max: f64 },
    /// A system name that is none of [`crate::System::ALL`].
    UnknownSystem(String),
    /// `component` does not run `policy`; it runs `allowed`.
    PolicyNotRun { component: &'static str, policy: &'static str, allowed: String },
    /// A `spark.scheduler.eagle.*` key the engine does not know (name after the prefix).
    UnknownKey(String),
    /// Key `key` (after the prefix) is `value`, not `expected`.
    BadValue { key: &'static str, value: String, expected: String },
    /// An order name that is neither `srpt` nor `fsp`.
    UnknownOrder(String),
    /// Eirene (SATC, CCDM) asked for with the driver or locality mode.
    EireneOutsideSimulator,
    /// CCDM with zero concurrent migrations per executor.
    NoConcurrentMigrations,
}

impl ConfigError {
    /// `key` is `value`, outside `bound`.
    pub fn out_of_range(key: &'static str, value: impl Into<f64>, bound: Bound) -> ConfigError {
        ConfigError::OutOfRange { key, value: value.into(), bound }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::OutOfRange { key, value, bound } => write!(f, "{key} must be {bound}, got {value}"),
            ConfigError::Invalid { key, bound } => write!(f, "{key} must be {bound}"),
            ConfigError::NotANumber { key } => write!(f, "{key} must be a number"),
            ConfigError::MaxWaitBelowMin { min, max } => write!(f, "max wait must be >= min wait ({min}), got {max}"),
            ConfigError::UnknownSystem(s) => {
                write!(f, "unknown system '{s}' (expected one of sparrow, hawk, eagle, dlwl, clwl, eagle-adaptive, or the aliases adaptive, paper)")
            }
            ConfigError::PolicyNotRun { component, policy, allowed } => {
                write!(f, "{component} does not run policy '{policy}' (it runs {allowed})")
            }
            ConfigError::UnknownKey(k) => {
                write!(f, "unknown Eagle configuration key {SPARK_PREFIX}{k}")
            }
            ConfigError::BadValue { key, value, expected } => {
                write!(f, "{SPARK_PREFIX}{key} = '{value}': expected {expected}")
            }
            ConfigError::UnknownOrder(s) => write!(f, "order must be srpt or fsp, got {s:?}"),
            ConfigError::EireneOutsideSimulator => {
                f.write_str("eirene (satc, ccdm) runs in the simulator without locality mode only")
            }
            ConfigError::NoConcurrentMigrations => {
                f.write_str("ccdm: cm (concurrent migrations per executor) must be at least 1")
            }
        }
    }
}

impl std::error::Error for ConfigError {}

/// Whose resource amounts a [`PlacementError::BadAmount`] is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AmountOf {
    /// An executor's capacity.
    Executor(NodeId),
    /// A task set's per-task demand.
    TaskSet(JobId),
    /// What an executor's offer has free.
    Offer(NodeId),
}

impl fmt::Display for AmountOf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AmountOf::Executor(n) => write!(f, "executor {}", n.0),
            AmountOf::TaskSet(j) => write!(f, "task set {}", j.0),
            AmountOf::Offer(n) => write!(f, "offer of executor {}", n.0),
        }
    }
}

/// Why a resource-aware placer (or the LoTES planner) rejected its input or found no plan.
#[derive(Clone, Debug, PartialEq)]
pub enum PlacementError {
    /// The machine configurations hold no machine.
    NoMachines,
    /// Configuration `config` has `dims` resources where the first has `first`.
    ConfigDims { config: usize, dims: usize, first: usize },
    /// Configuration `config` has a negative or non-finite capacity.
    BadCapacity { config: usize },
    /// Task `key`'s demand is not `dims` finite non-negative amounts.
    BadDemand { key: u64, demand: Vec<f64>, dims: usize },
    /// Task `key`'s duration is negative or not finite.
    BadDuration { key: u64, duration: f64 },
    /// Task `key` arrived while it is running.
    AlreadyRunning { key: u64 },
    /// Task `key`'s demand fits no machine, even an empty one.
    FitsNowhere { key: u64, demand: Vec<f64> },
    /// Task `key` was reported finished on `machine` but runs on `runs_on`.
    WrongMachine { key: u64, machine: u32, runs_on: u32 },
    /// Task `key` was reported finished on `machine` but is not running.
    NotRunning { key: u64, machine: u32 },
    /// Tetris' work weight is negative or not finite.
    BadWorkWeight(f64),
    /// LoTES class `class` demands nothing of every resource.
    EmptyClass { class: usize },
    /// More than `max` non-dominated bins for one machine.
    TooManyBins { max: usize },
    /// k-means without samples or without classes.
    NothingToCluster,
    /// A k-means sample without `dims` resources.
    SampleDims { dims: usize },
    /// Configuration `config` has `machines` machines but no bin.
    NoBin { config: usize, machines: u32 },
    /// The LP solver failed (its message).
    Lp(String),
    /// The LP solver stopped early (its termination reason).
    LpInterrupted(String),
    /// The allocation LP's optimum is zero: no class can run on any machine.
    NoThroughput,
    /// LoTES with zero classes.
    NoClasses,
    /// LoTES' re-planning drift threshold is negative or not finite.
    BadDrift(f64),
    /// An amount of `of`'s resource `resource` is negative or not finite.
    BadAmount { of: AmountOf, resource: usize, value: f64 },
    /// Task set `job`'s mean duration is not a finite number > 0.
    BadTaskSetDuration { job: JobId, duration: f64 },
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlacementError::NoMachines => f.write_str("no machines"),
            PlacementError::ConfigDims { config, dims, first } => {
                write!(f, "configuration {config} has {dims} resources, the first has {first}")
            }
            PlacementError::BadCapacity { config } => {
                write!(f, "configuration {config} has a negative or non-finite capacity")
            }
            PlacementError::BadDemand { key, demand, dims } => {
                write!(f, "task {key}: demand {demand:?} is not {dims} finite non-negative amounts")
            }
            PlacementError::BadDuration { key, duration } => {
                write!(f, "task {key}: duration {duration} is not finite and >= 0")
            }
            PlacementError::AlreadyRunning { key } => write!(f, "task {key} is already running"),
            PlacementError::FitsNowhere { key, demand } => {
                write!(f, "task {key}: demand {demand:?} exceeds every machine's capacity")
            }
            PlacementError::WrongMachine { key, machine, runs_on } => {
                write!(f, "task {key} finished on machine {machine} but runs on {runs_on}")
            }
            PlacementError::NotRunning { key, machine } => {
                write!(f, "task {key} finished on machine {machine} but is not running")
            }
            PlacementError::BadWorkWeight(w) => write!(f, "Tetris work weight {w} is not a finite number >= 0"),
            PlacementError::EmptyClass { class } => {
                write!(f, "class {class} demands nothing: a machine would hold infinitely many")
            }
            PlacementError::TooManyBins { max } => {
                write!(f, "more than {max} non-dominated bins; the classes are too small for the machines")
            }
            PlacementError::NothingToCluster => f.write_str("k-means needs at least one sample and one class"),
            PlacementError::SampleDims { dims } => write!(f, "every sample must have {dims} resources"),
            PlacementError::NoBin { config, machines } => {
                write!(f, "configuration {config} has {machines} machines but no bin")
            }
            PlacementError::Lp(e) => write!(f, "LP: {e}"),
            PlacementError::LpInterrupted(reason) => write!(f, "LP interrupted: {reason}"),
            PlacementError::NoThroughput => f.write_str("allocation LP: no class can run on any machine (λ* = 0)"),
            PlacementError::NoClasses => f.write_str("LoTES needs at least one class"),
            PlacementError::BadDrift(d) => write!(f, "LoTES drift must be a finite number >= 0, got {d}"),
            PlacementError::BadAmount { of, resource, value } => {
                write!(f, "{of}: resource {resource} must be a finite amount >= 0, got {value}")
            }
            PlacementError::BadTaskSetDuration { job, duration } => {
                write!(f, "task set {}: duration must be a finite number > 0, got {duration}", job.0)
            }
        }
    }
}

impl std::error::Error for PlacementError {}
