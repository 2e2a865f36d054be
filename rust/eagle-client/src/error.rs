//! The client's error type: [`Refused`], a daemon that refused this driver's handshake.

use std::fmt;

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
