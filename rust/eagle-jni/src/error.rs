//! The bridge's error type: [`Error`], what a bridge call rejects (an argument from the
//! plugin, and, passed on as they are, the errors of the engine, of the application's
//! scheduler, of the history file and of cluster mode), and how a numeric argument must
//! be ([`Expect`]).
//!
//! The JNI entry points throw `EagleNativeException` with the `Display` text as its
//! message, after the method name.

use eagle_client::{ApplicationError, ClusterError, HistoryError};
use eagle_core::ConfigError;
use std::fmt;

/// What a numeric argument must be, worded as the message says it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Expect {
    /// `a finite number > 0`
    Positive,
    /// `a finite number >= 0`
    NonNegative,
    /// `in [0, 1]`
    Fraction,
    /// `in [0, 1)`
    FractionBelowOne,
    /// `an integer in [min, max]`
    Integer { min: f64, max: f64 },
    /// `0 or 1`
    Flag,
}

impl fmt::Display for Expect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expect::Positive => f.write_str("a finite number > 0"),
            Expect::NonNegative => f.write_str("a finite number >= 0"),
            Expect::Fraction => f.write_str("in [0, 1]"),
            Expect::FractionBelowOne => f.write_str("in [0, 1)"),
            Expect::Integer { min, max } => write!(f, "an integer in [{min}, {max}]"),
            Expect::Flag => f.write_str("0 or 1"),
        }
    }
}

/// Why a bridge call failed.
#[derive(Debug)]
pub enum Error {
    /// The configuration `create` or `configCheck` got is not a JSON object of strings.
    ConfigJson(serde_json::Error),
    /// Argument `name` of a call is `value`, not what it must be.
    Arg {
        name: &'static str,
        expected: Expect,
        value: f64,
    },
    /// An id, count or index (`what`) below zero.
    Negative {
        what: &'static str,
        value: i64,
    },
    /// A locality level code outside [0, 4].
    BadLevel(i32),
    /// A task set's valid levels not strictly increasing.
    LevelsNotIncreasing(Vec<i32>),
    /// Not one pending flag per valid level.
    PendingFlagCount {
        expected: usize,
        got: usize,
    },
    /// A pending flag other than 0 or 1.
    BadPendingFlag(i32),
    /// A class code other than -1, 0 or 1.
    BadClassCode(i32),
    /// `groupFuture`'s parallel arrays differ in length.
    GroupFutureLengths {
        tasks: usize,
        signatures: usize,
    },
    /// `roundEnd`'s parallel arrays differ in length.
    RoundEndLengths {
        tids: usize,
        nodes: usize,
        jobs: usize,
    },
    /// `preempt`'s parallel arrays differ in length.
    PreemptLengths {
        jobs: usize,
        started: usize,
        preempted: usize,
    },
    /// A byte array argument (`what`) that is not UTF-8.
    NotUtf8(&'static str),
    /// A CCDM call without its argument `index` (`name`).
    CcdmMissingArg {
        index: usize,
        name: &'static str,
    },
    /// CCDM `register` with an odd number of values after the job.
    CcdmOddPairs(usize),
    /// A CCDM call before `enable`.
    CcdmOff,
    /// A CCDM operation code that is none of [`crate::eirene::op`].
    CcdmUnknownOp(i32),
    /// The engine rejected a setting.
    Config(ConfigError),
    /// The application's scheduler rejected a call (LoTES, the test hooks).
    Application(ApplicationError),
    History(HistoryError),
    Cluster(ClusterError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::ConfigJson(e) => write!(f, "configuration: not a JSON object of strings: {e}"),
            Error::Arg { name, expected, value } => write!(f, "{name} must be {expected}, got {value}"),
            Error::Negative { what, value } => write!(f, "{what} must be >= 0, got {value}"),
            Error::BadLevel(code) => write!(f, "locality level must be in [0, 4], got {code}"),
            Error::LevelsNotIncreasing(codes) => {
                write!(f, "valid locality levels must be strictly increasing, got {codes:?}")
            }
            Error::PendingFlagCount { expected, got } => {
                write!(f, "expected {expected} pending flags (one per valid level), got {got}")
            }
            Error::BadPendingFlag(v) => write!(f, "pending flag must be 0 or 1, got {v}"),
            Error::BadClassCode(v) => write!(f, "class code must be -1, 0 or 1, got {v}"),
            Error::GroupFutureLengths { tasks, signatures } => {
                write!(f, "expected as many task counts as signatures, got {tasks} and {signatures}")
            }
            Error::PreemptLengths { jobs, started, preempted } => write!(
                f,
                "expected as many start times and preempted flags as jobs, got {jobs} jobs, {started} \
                 start times and {preempted} flags"
            ),
            Error::RoundEndLengths { tids, nodes, jobs } => {
                write!(f, "roundEnd: {tids} task ids, {nodes} executors, {jobs} jobs")
            }
            Error::NotUtf8(what) => write!(f, "{what} is not UTF-8"),
            Error::CcdmMissingArg { index, name } => write!(f, "ccdm: missing argument {index} ({name})"),
            Error::CcdmOddPairs(n) => {
                write!(f, "ccdm: register takes (task, holder) pairs after the job, got {n} values")
            }
            Error::CcdmOff => f.write_str("ccdm: not enabled"),
            Error::CcdmUnknownOp(op) => write!(f, "ccdm: unknown operation {op}"),
            Error::Config(e) => write!(f, "{e}"),
            Error::Application(e) => write!(f, "{e}"),
            Error::History(e) => write!(f, "{e}"),
            Error::Cluster(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Config(e) => Some(e),
            Error::ConfigJson(e) => Some(e),
            Error::Application(e) => Some(e),
            Error::History(e) => Some(e),
            Error::Cluster(e) => Some(e),
            _ => None,
        }
    }
}

/// `?` on the errors of the layers below, passed on as they are.
macro_rules! from_cause {
    ($($cause:ty => $variant:ident),*) => {$(
        impl From<$cause> for Error {
            fn from(e: $cause) -> Self {
                Error::$variant(e)
            }
        }
    )*};
}

from_cause!(ConfigError => Config, ApplicationError => Application, HistoryError => History, ClusterError => Cluster);
