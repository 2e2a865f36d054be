//! Scheduling policies behind one narrow seam.
//!
//! A policy keeps the [`crate::cluster::Cluster`] books and decides, for every event the
//! host reports, which task of which job starts where. Every policy answers the ten events
//! of [`Policy`]; what only some policies do is a capability trait of its own, one idea
//! each. [`crate::Engine`] holds the policy [`crate::Config::system`] selects, dispatches
//! the capabilities (a policy without one keeps the default the engine documents for it),
//! and reads the books through each policy's `cluster()` for its views: reading is not a
//! decision, so it is no part of the seam.
//!
//! | policy | capabilities |
//! |---|---|
//! | [`paper::Paper`] | [`Periodic`], [`Locality`], [`Cloning`], [`Partitioned`] |
//! | [`adaptive::Adaptive`] | [`Cloning`], [`QueryGroups`], [`WarmExecutors`], [`ShortReservation`], [`Tenancy`], [`Preempting`] |
//!
//! - [`paper`]: the published systems on one mechanism (Eagle as in SoCC'16 §3, and
//!   Sparrow, Hawk, DLWL and CLWL for comparison): probes, SSS, LWL reservations,
//!   Sticky Batch Probing with SRPT, a static short-only partition ([`crate::eagle`]).
//! - [`adaptive`]: eagle-adaptive, our default under the plugin: exact central SRPT
//!   over query remaining work, a floating slot-level reservation for short work sized
//!   from the load, and a starvation deadline ([`crate::adaptive`]).
//!
//! Adding a policy adds a module here, its `impl`s, and one variant of the engine's
//! policy enum; the compiler then names every capability the engine must decide for it.

pub mod adaptive;
pub mod paper;

use crate::cluster::{Counters, JobSpec};
use crate::eirene::Eirene;
use crate::locality::delay::Sample;
use crate::types::*;

/// The events every policy answers. Every call carries `now`; decisions are appended to `out`.
pub trait Policy {
    /// Adds a node with `slots` task slots; ids are dense and never reused.
    fn add_node(&mut self, now: Time, slots: u32, out: &mut Vec<Output>) -> NodeId;
    /// Removes a node: its queued probes and reservations are re-placed elsewhere;
    /// tasks that were running there are forgotten (the host re-reports them as pending).
    fn remove_node(&mut self, now: Time, node: NodeId, out: &mut Vec<Output>);
    /// Submits a job: the policy classifies it (unless `spec.class` forces a class) and
    /// places or launches its tasks.
    fn submit_job(&mut self, now: Time, spec: JobSpec, out: &mut Vec<Output>) -> JobId;
    /// A task of `job` that ran on `node` ended (success or failure): its slot frees.
    fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, out: &mut Vec<Output>);
    /// Delivers a message the policy scheduled with [`Output::Timer`].
    fn deliver(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>);
    /// Driver mode: `free` slots are free on `node`; launch up to that many tasks,
    /// skipping jobs in `exclude` (those the host could not launch there this round).
    fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId], out: &mut Vec<Output>);
    /// Driver mode: the host could not launch the task of `job` the policy chose for
    /// `node` (e.g. locality): undo that launch.
    fn decline(&mut self, now: Time, node: NodeId, job: JobId);
    /// Driver mode: the host's truth about how many tasks of `job` wait to launch
    /// (retries, lost executors and speculation change it).
    fn set_pending(&mut self, now: Time, job: JobId, pending: u32, out: &mut Vec<Output>);
    /// A new estimate of the job's mean task duration, with the class fixed by the caller
    /// (`Some`) or derived from the cutoff (`None`); may reclassify the job.
    fn set_estimate(&mut self, now: Time, job: JobId, estimate: f64, class: Option<Class>, out: &mut Vec<Output>);
    /// The job is gone (finished, aborted or zombie): drop its probes everywhere.
    fn remove_job(&mut self, now: Time, job: JobId);
}

/// Periodic timers (DLWL heartbeats), scheduled once before the first event.
pub trait Periodic {
    fn start(&mut self, now: Time, out: &mut Vec<Output>);
}

/// Data locality in the simulator (late binding to blocks, Dynamic Delay Scheduling).
pub trait Locality {
    /// Submits a job whose task `i` reads a block held by `prefs[i]` (one list per task).
    fn submit_job_with_locality(
        &mut self,
        now: Time,
        spec: JobSpec,
        prefs: &[Vec<NodeId>],
        out: &mut Vec<Output>,
    ) -> JobId;
    /// A task of `job` ended; it ran node-local or not and lost `net_oh` seconds to remote
    /// reads. Feeds the stage's adaptive delay.
    fn locality_feedback(&mut self, now: Time, job: JobId, local: bool, net_oh: f64);
    /// The job's node-local wait over time.
    fn delay_history(&self, job: JobId) -> Vec<Sample>;
}

/// Eirene (cold data migration and task cloning, [`crate::eirene`]): the policy runs
/// copies of a task. The engine ends a copy through this state, then frees its slot as
/// [`Policy::task_finished`] does for any task.
pub trait Cloning {
    /// The policy's Eirene state while Eirene is on, with the counters it reports to.
    fn eirene(&mut self) -> Option<(&mut Eirene, &mut Counters)>;
}

/// Query-aware SRPT: task sets of one group (a Spark job or SQL execution) are ranked by
/// the group's remaining work.
pub trait QueryGroups {
    /// `job` belongs to `group`.
    fn set_group(&mut self, job: JobId, group: u64);
    /// Estimated work (seconds) of the group's stages not submitted yet.
    fn set_group_future(&mut self, group: u64, work: f64);
}

/// Tenants (a pool or a Spark Connect session, [`crate::tenant`]): each job runs for one,
/// at the tenant's weight and minimum share.
pub trait Tenancy {
    /// `job` runs for `tenant`, given `share` from now on.
    fn set_tenant(&mut self, job: JobId, tenant: u64, share: crate::tenant::Share);
    /// `job`'s estimate is a guess (no hint, no history, no task of it ended), or no longer.
    /// While several tenants are live, such a job runs no wider than its tenant's share
    /// of the slots others want.
    fn set_guessed(&mut self, job: JobId, guessed: bool);
}

/// Warm executors and input awareness (driver mode, [`crate::adaptive::warmup`]).
pub trait WarmExecutors {
    /// The measured cost (seconds) of a task set's first task on an executor.
    fn set_warmup(&mut self, seconds: f64);
    /// `job`'s waiting tasks read input held by these nodes, one entry per task (a node
    /// repeated for each of its tasks).
    fn set_input_nodes(&mut self, job: JobId, nodes: &[NodeId]);
    /// A task of `job` not launched yet reads its input on `node`.
    fn holds_input(&self, job: JobId, node: NodeId) -> bool;
}

/// A reservation of slots for short work sized from the observed load
/// ([`crate::adaptive::reservation`]).
pub trait ShortReservation {
    /// Slots reserved for short work now.
    fn reservation(&self) -> u32;
    /// The short/long boundary moved (a learned cutoff): the class-based state restarts.
    fn classes_changed(&mut self, now: Time);
}

/// Bounded waiting by preemption (driver mode, [`crate::adaptive::preempt`]; off by
/// default): the running long attempt the host kills for a short job that waited past the
/// bound.
pub trait Preempting {
    /// The index in `attempts` (the attempts running now) to kill, if any; `killing` are
    /// kills decided before whose attempts have not ended yet.
    fn preempt(&mut self, now: Time, attempts: &[crate::adaptive::preempt::Attempt], killing: u32) -> Option<usize>;
}

/// Eagle's split of the nodes by class (§3.1): a short-only partition, and the central
/// map of the nodes holding long work (SSS).
pub trait Partitioned {
    /// The node is in the short-only partition.
    fn short_only(&self, node: NodeId) -> bool;
    /// The central long map says the node holds long work (placed, in flight, queued or
    /// running).
    fn holds_long_work(&self, node: NodeId) -> bool;
}
