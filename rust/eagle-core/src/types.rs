//! Identifiers, time and the decisions the engine hands back to its host.
//!
//! The engine never reads a clock: every call carries `now`, in seconds, as an
//! `f64`. The simulator uses trace seconds; the Spark plugin passes wall-clock
//! milliseconds divided by 1000.

use serde::{Deserialize, Serialize};

/// Seconds since an arbitrary origin chosen by the host.
pub type Time = f64;

/// An Eagle job (a Spark TaskSet). Assigned densely by the engine on submission.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct JobId(pub u32);

/// A worker node (a Spark executor). Chosen densely by the host (`0..`), never reused.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct NodeId(pub u32);

/// Short or long, decided from the estimated mean task duration (Eagle §3.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Class {
    Short,
    Long,
}

impl Class {
    /// Long when the estimate exceeds the cutoff, short otherwise (reference: `int(mean) > cutoff`).
    pub fn from_estimate(estimate: f64, cutoff: f64) -> Class {
        if estimate > cutoff {
            Class::Long
        } else {
            Class::Short
        }
    }
    pub fn is_long(self) -> bool {
        self == Class::Long
    }
}

/// A message between a scheduler and a node that the host must hand back to
/// [`crate::policy::Policy::deliver`] at the time given in [`Output::Timer`].
///
/// With a network delay of zero (the Spark plugin), the engine delivers these
/// itself before returning and the host never sees them.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Msg {
    /// A probe (short job) or a reservation (centrally placed task) reaches a node's queue.
    /// `epoch` is the long map's version when the message was sent ([`crate::eagle::sss::LongMap::version`]):
    /// it tells a probe overtaken by a later long reservation from one sent to a long node.
    Enqueue { node: NodeId, job: JobId, epoch: u32 },
    /// A node's fetch of a task found the job empty: the slot frees after the round trip.
    SlotFree { node: NodeId },
    /// The scheduler's view of a job's remaining work drops by one task, one round
    /// trip after a launch (Eagle §3.3, SRPT uses this view).
    RemainingUpdate { job: JobId },
    /// DLWL: nodes publish their queue state (Yaq-D heartbeat).
    Heartbeat,
    /// Locality mode: a node whose queued jobs all wait for locality tries again.
    Revive { node: NodeId },
    /// eagle-adaptive (simulator): the short reservation may have shrunk; long work
    /// that waited for it tries the free slots again.
    Tick,
    /// Eirene CCDM: a migration of the task's input into the node's memory ended.
    MigrationDone { node: NodeId, job: JobId, task: u32 },
}

/// What the engine decided. The host acts on each, in order.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Output {
    /// Run the job's next task (the `task`-th launch of this job, counting from 0)
    /// on `node`. The task starts at `start` (now + one fetch round trip).
    Launch { node: NodeId, job: JobId, task: u32, start: Time },
    /// Deliver `msg` back to the engine at time `at`.
    Timer { at: Time, msg: Msg },
    /// Eirene CCDM: the next launch or clone (the output right after this one) of
    /// `task` on `node` reads input migrated into memory: it runs DMT seconds shorter.
    InputMigrated { node: NodeId, job: JobId, task: u32 },
    /// Eirene SATC: run a second copy of `task`, already running elsewhere, on `node`.
    /// The first copy to end completes the task.
    Clone { node: NodeId, job: JobId, task: u32, start: Time },
    /// Eirene SATC: the other copy of `task` ended first; kill the copy on `node`, then
    /// report its end like any other (its result is not the task's).
    Cancel { node: NodeId, job: JobId, task: u32 },
}
