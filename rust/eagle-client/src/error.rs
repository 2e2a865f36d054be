//! The driver side's error types: [`Refused`], a daemon that refused this driver's
//! handshake; [`ClusterError`], why cluster mode could not start or a cluster call was
//! refused; [`ApplicationError`], what an application's scheduler rejects. The history
//! file's errors are [`crate::history`]'s.

use eagle_core::{ConfigError, NodeId, PlacementError};
use std::fmt;
use std::io;

/// A daemon refused this driver's handshake (another build's protocol version, a wrong
/// shared secret): a misconfiguration that no retry mends. `reason` is the handshake's
/// own error, as text (the result is kept and handed out again, so it is cloned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The daemon's address.
    pub addr: String,
    /// The application id the driver presented.
    pub app: String,
    pub reason: String,
}

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} refused the driver '{}': {}", self.addr, self.app, self.reason)
    }
}

impl std::error::Error for Refused {}

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
        cause: Refused,
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

/// What an application's scheduler ([`crate::application::Application`]) rejects.
#[derive(Debug)]
pub enum ApplicationError {
    /// The engine rejected a setting.
    Config(ConfigError),
    /// LoTES rejected an executor, a task set or an offer.
    Placement(PlacementError),
    /// A LoTES call while `placement=slots`.
    LotesOff,
    /// The `debugHoldCallMs` hook found the state freed under the call.
    FreedInFlight,
}

impl fmt::Display for ApplicationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ApplicationError::Config(e) => write!(f, "{e}"),
            ApplicationError::Placement(e) => write!(f, "{e}"),
            ApplicationError::LotesOff => {
                f.write_str("placement is 'slots': the LoTES calls need spark.scheduler.eagle.placement=lotes")
            }
            ApplicationError::FreedInFlight => {
                f.write_str("engine state was freed while a call was in flight (use-after-free)")
            }
        }
    }
}

impl std::error::Error for ApplicationError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ApplicationError::Config(e) => Some(e),
            ApplicationError::Placement(e) => Some(e),
            _ => None,
        }
    }
}

impl From<ConfigError> for ApplicationError {
    fn from(e: ConfigError) -> Self {
        ApplicationError::Config(e)
    }
}

impl From<PlacementError> for ApplicationError {
    fn from(e: PlacementError) -> Self {
        ApplicationError::Placement(e)
    }
}
