//! The bridge's error type: [`Error`], what a bridge call rejects (an argument from the
//! plugin, an engine error, a history file, cluster mode's start), and the pieces it
//! carries ([`Expect`], [`HistoryError`], [`ClusterError`]).
//!
//! The JNI entry points throw `EagleNativeException` with the `Display` text as its
//! message, after the method name.

use eagle_core::{ConfigError, NodeId, PlacementError};
use std::fmt;
use std::io;
use std::path::PathBuf;

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
    /// A LoTES call while `placement=slots`.
    LotesOff,
    /// The `debugHoldCallMs` hook found the state freed under the call.
    FreedInFlight,
    /// The engine rejected a setting.
    Config(ConfigError),
    /// LoTES rejected an executor, a task set or an offer.
    Placement(PlacementError),
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
            Error::LotesOff => {
                f.write_str("placement is 'slots': the LoTES calls need spark.scheduler.eagle.placement=lotes")
            }
            Error::FreedInFlight => f.write_str("engine state was freed while a call was in flight (use-after-free)"),
            Error::Config(e) => write!(f, "{e}"),
            Error::Placement(e) => write!(f, "{e}"),
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
            Error::Placement(e) => Some(e),
            Error::History(e) => Some(e),
            Error::Cluster(e) => Some(e),
            _ => None,
        }
    }
}

/// Why the history file could not be loaded or saved; each names the path.
#[derive(Debug)]
pub enum HistoryError {
    Read { path: PathBuf, cause: io::Error },
    Format { path: PathBuf, cause: crate::history_file::HistoryFormatError },
    CreateDir { dir: PathBuf, cause: io::Error },
    Write { path: PathBuf, cause: io::Error },
    Rename { path: PathBuf, cause: io::Error },
}

impl fmt::Display for HistoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HistoryError::Read { path, cause } => write!(f, "cannot read history {}: {cause}", path.display()),
            HistoryError::Format { path, cause } => write!(f, "history {}: {cause}", path.display()),
            HistoryError::CreateDir { dir, cause } => write!(f, "cannot create {}: {cause}", dir.display()),
            HistoryError::Write { path, cause } => write!(f, "cannot write {}: {cause}", path.display()),
            HistoryError::Rename { path, cause } => write!(f, "cannot rename to {}: {cause}", path.display()),
        }
    }
}

impl std::error::Error for HistoryError {}

/// Why cluster mode could not start, or a cluster call was refused.
#[derive(Debug)]
pub enum ClusterError {
    /// `spark.scheduler.eagle.cluster.central` is not `host:port`.
    BadCentral(String),
    /// `spark.scheduler.eagle.cluster.nodePort` outside [1, 65535].
    BadNodePort(i64),
    /// No shared secret configured.
    NoSecret,
    NoApp,
    /// The ping period is not a positive number of milliseconds.
    BadPingPeriod(i64),
    /// The central refused this driver: another build, or another secret.
    Refused {
        central: String,
        cause: eagle_client::Refused,
    },
    /// The thread that pumps the client's events could not start.
    Thread(io::Error),
    AlreadyStarted,
    /// A cluster call while cluster mode is off.
    Off,
    EmptyHost(NodeId),
}

impl fmt::Display for ClusterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClusterError::BadCentral(c) => {
                write!(f, "spark.scheduler.eagle.cluster.central must be host:port, got '{c}'")
            }
            ClusterError::BadNodePort(p) => {
                write!(f, "spark.scheduler.eagle.cluster.nodePort must be in [1, 65535], got {p}")
            }
            ClusterError::NoSecret => f.write_str(
                "cluster mode needs a shared secret: spark.scheduler.eagle.cluster.secretFile, \
                 spark.scheduler.eagle.cluster.secret or spark.authenticate.secret",
            ),
            ClusterError::NoApp => f.write_str("cluster mode needs an application id"),
            ClusterError::BadPingPeriod(ms) => write!(f, "ping period must be > 0 ms, got {ms}"),
            ClusterError::Refused { central, cause } => write!(
                f,
                "cluster mode: spark.scheduler.eagle.cluster.central={central}: {cause}. The plugin jar and the \
                 eagle-central / eagle-node daemons must come from the same eagle-spark build and \
                 share the secret of spark.scheduler.eagle.cluster.secretFile"
            ),
            ClusterError::Thread(e) => write!(f, "cannot start the cluster-mode thread: {e}"),
            ClusterError::AlreadyStarted => f.write_str("cluster mode is already started"),
            ClusterError::Off => {
                f.write_str("cluster mode is off: this call needs spark.scheduler.eagle.cluster.central")
            }
            ClusterError::EmptyHost(node) => write!(f, "executor {} has an empty host name", node.0),
        }
    }
}

impl std::error::Error for ClusterError {}

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

from_cause!(ConfigError => Config, PlacementError => Placement, HistoryError => History, ClusterError => Cluster);
