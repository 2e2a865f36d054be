//! The central daemon's errors: [`FlagError`] for a command-line value it cannot use.
//!
//! Each `Display` renders the line the daemon prints before exiting (clap shows it after
//! the flag's name).

use std::fmt;

/// A command-line value the central rejects; each names the flag and the value given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FlagError {
    /// `--placement` is neither `lwl` nor `lotes`.
    UnknownPlacement(String),
    /// `--long-headroom` is not a number in [0, 1).
    BadHeadroom(String),
    /// `--short-partition` is none of fixed, adaptive, slots, share.
    UnknownShortPartition(String),
    /// A `--nodes` entry is not `name=host:port`.
    BadNodesEntry(String),
    /// Two `--nodes` entries share a name.
    DuplicateNode { entry: String, name: String },
}

impl fmt::Display for FlagError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FlagError::UnknownPlacement(s) => write!(f, "unknown placement '{s}' (expected lwl or lotes)"),
            FlagError::BadHeadroom(s) => write!(f, "--long-headroom must be a number in [0, 1), got '{s}'"),
            FlagError::UnknownShortPartition(s) => {
                write!(f, "--short-partition must be fixed, adaptive, slots or share, got '{s}'")
            }
            FlagError::BadNodesEntry(item) => write!(f, "bad --nodes entry '{item}': expected name=host:port"),
            FlagError::DuplicateNode { entry, name } => {
                write!(f, "bad --nodes entry '{entry}': name '{name}' given twice")
            }
        }
    }
}

impl std::error::Error for FlagError {}
