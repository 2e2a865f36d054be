//! The node daemon's errors: [`BrokenInvariant`] for a state that breaks the invariants
//! [`crate::NodeState::check`] verifies (a `--policy` it does not run is the engine's
//! [`eagle_core::ConfigError`], see [`crate::policy::parse`]).

use eagle_core::JobId;
use std::fmt;

/// The first invariant of the node state found broken (see `state`'s module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BrokenInvariant {
    /// Leased plus free slots differ from the node's slots.
    Slots { leased: u32, free: u32, slots: u32 },
    /// A lease id at or past the next one to grant.
    LeaseIdReused,
    /// The queue's long-entry count disagrees with its entries.
    QueuedLong { counted: u32, entries: u32 },
    /// The running-long count disagrees with the long leases.
    RunningLong { counted: u32, leases: u32 },
    /// A job's queued/lease counts disagree with what the node holds for it.
    JobCounts { job: u64, queued: u32, leases: u32, held_entries: u32, held_leases: u32 },
    /// A job whose connection is gone.
    JobOutlivedConnection { job: u64 },
    /// A job holding nothing that was not freed.
    JobNotFreed { job: u64 },
    /// A queue entry of a freed job.
    FreedJobQueued { job: JobId },
}

impl fmt::Display for BrokenInvariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BrokenInvariant::Slots { leased, free, slots } => {
                write!(f, "{leased} leased + {free} free slots != {slots} slots")
            }
            BrokenInvariant::LeaseIdReused => f.write_str("a lease id was granted twice"),
            BrokenInvariant::QueuedLong { counted, entries } => {
                write!(f, "queued_long {counted} but {entries} long entries")
            }
            BrokenInvariant::RunningLong { counted, leases } => {
                write!(f, "running_long {counted} but {leases} long leases")
            }
            BrokenInvariant::JobCounts { job, queued, leases, held_entries, held_leases } => {
                write!(f, "job {job} counts {queued}/{leases} but holds {held_entries} entries/{held_leases} leases")
            }
            BrokenInvariant::JobOutlivedConnection { job } => write!(f, "job {job} outlived its connection"),
            BrokenInvariant::JobNotFreed { job } => write!(f, "job {job} has nothing and was not freed"),
            BrokenInvariant::FreedJobQueued { job } => write!(f, "a queue entry names a freed job {job:?}"),
        }
    }
}

impl std::error::Error for BrokenInvariant {}
