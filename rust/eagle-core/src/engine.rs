//! The engine: events in, decisions out.
//!
//! [`Engine`] holds the policy [`Config::system`] selects, as a variant of a closed enum
//! of this crate's policies. The ten events of [`Policy`] reach it directly: `Engine`
//! dereferences to `dyn Policy`, so `engine.submit_job(..)` is the policy's own. `Engine`
//! adds only what no policy should repeat:
//!
//! - **Capability dispatch.** Each method below the events asks the variant for one
//!   capability trait of [`crate::policy`]; a policy without it keeps the documented
//!   default (a no-op, `None`, or the nearest core event). The matches are exhaustive, so
//!   a new policy is a compile error here until each capability is decided for it.
//! - **Host contracts** the policies need not check: one locality list per task.
//! - **Views** over the policy's [`Cluster`] books for hosts and tests.
use crate::cluster::Cluster;
pub use crate::cluster::{Counters, JobSpec, JobView, NodeView};
use crate::config::{Config, System};
use crate::locality::delay::Sample;
use crate::policy::adaptive::Adaptive;
use crate::policy::paper::Paper;
use crate::policy::{
    Cloning, Locality, Partitioned, Periodic, Policy, Preempting, QueryGroups, ShortReservation, Tenancy, WarmExecutors,
};
use crate::types::*;
use std::ops::{Deref, DerefMut};

/// The policies of this crate; [`Engine`] holds the one the configuration selects (boxed,
/// as before: the policies are large and far apart in size).
enum Selected {
    Paper(Box<Paper>),
    Adaptive(Box<Adaptive>),
}

pub struct Engine {
    p: Selected,
}

impl Deref for Engine {
    type Target = dyn Policy;
    fn deref(&self) -> &(dyn Policy + 'static) {
        match &self.p {
            Selected::Paper(p) => p.as_ref(),
            Selected::Adaptive(a) => a.as_ref(),
        }
    }
}

impl DerefMut for Engine {
    fn deref_mut(&mut self) -> &mut (dyn Policy + 'static) {
        match &mut self.p {
            Selected::Paper(p) => p.as_mut(),
            Selected::Adaptive(a) => a.as_mut(),
        }
    }
}

impl Engine {
    /// A new engine; fails with a message naming the bad field.
    pub fn new(config: Config, seed: u64) -> Result<Engine, crate::error::ConfigError> {
        config.validate()?;
        let p = match config.system {
            System::EagleAdaptive => Selected::Adaptive(Box::new(Adaptive::new(config, seed))),
            _ => Selected::Paper(Box::new(Paper::new(config, seed))),
        };
        Ok(Engine { p })
    }

    /// [`Periodic`]: schedules periodic timers (DLWL heartbeats). Call once before the
    /// first event. Without it: nothing to schedule.
    pub fn start(&mut self, now: Time, out: &mut Vec<Output>) {
        match &mut self.p {
            Selected::Paper(p) => p.start(now, out),
            Selected::Adaptive(_) => {}
        }
    }

    /// [`Locality`]: submits a job whose task `i` reads a block held by `prefs[i]`. The one
    /// entry of locality submissions: it checks the list has one entry per task (in debug
    /// builds), so the policies need not. Without it: a plain [`Policy::submit_job`].
    pub fn submit_job_with_locality(
        &mut self,
        now: Time,
        spec: JobSpec,
        prefs: &[Vec<NodeId>],
        out: &mut Vec<Output>,
    ) -> JobId {
        debug_assert_eq!(prefs.len(), spec.tasks as usize);
        match &mut self.p {
            Selected::Paper(p) => p.submit_job_with_locality(now, spec, prefs, out),
            Selected::Adaptive(a) => a.submit_job(now, spec, out),
        }
    }

    /// [`Locality`]: a task of `job` ended, node-local or not, losing `net_oh` seconds to
    /// remote reads. Without it: ignored.
    pub fn locality_feedback(&mut self, now: Time, job: JobId, local: bool, net_oh: f64) {
        match &mut self.p {
            Selected::Paper(p) => p.locality_feedback(now, job, local, net_oh),
            Selected::Adaptive(_) => {}
        }
    }

    /// [`Locality`]: the job's node-local wait over time. Without it: empty.
    pub fn delay_history(&self, job: JobId) -> Vec<Sample> {
        match &self.p {
            Selected::Paper(p) => p.delay_history(job),
            Selected::Adaptive(_) => Vec::new(),
        }
    }

    /// [`Cloning`]: the copy of `task` (the number a [`Output::Launch`] or
    /// [`Output::Clone`] gave) of `job` on `node` ended. The first copy completes the task
    /// and the engine cancels the other ([`Output::Cancel`]); either way the slot frees as
    /// in [`Policy::task_finished`], which is all that happens without Eirene.
    pub fn copy_finished(&mut self, now: Time, node: NodeId, job: JobId, task: u32, out: &mut Vec<Output>) {
        let eirene = match &mut self.p {
            Selected::Paper(p) => p.eirene(),
            Selected::Adaptive(a) => a.eirene(),
        };
        if let Some((e, counters)) = eirene {
            e.copy_ended(now, node, job, task, counters, out);
        }
        self.task_finished(now, node, job, out);
    }

    /// [`QueryGroups`]: `job` belongs to `group` (a Spark job or SQL execution). Without
    /// it: ignored.
    pub fn set_group(&mut self, job: JobId, group: u64) {
        match &mut self.p {
            Selected::Paper(_) => {}
            Selected::Adaptive(a) => a.set_group(job, group),
        }
    }

    /// [`QueryGroups`]: estimated work (seconds) of the group's stages not yet submitted.
    /// Without it: ignored.
    pub fn set_group_future(&mut self, group: u64, work: f64) {
        match &mut self.p {
            Selected::Paper(_) => {}
            Selected::Adaptive(a) => a.set_group_future(group, work),
        }
    }

    /// [`Tenancy`]: `job` runs for `tenant` (a pool or a Spark Connect session), given
    /// `share`: its weight in SRPT and its minimum share. Without it (the paper systems):
    /// ignored.
    pub fn set_tenant(&mut self, job: JobId, tenant: u64, share: crate::tenant::Share) {
        match &mut self.p {
            Selected::Paper(_) => {}
            Selected::Adaptive(a) => a.set_tenant(job, tenant, share),
        }
    }

    /// [`Tenancy`]: `job`'s estimate is a guess, or no longer. Without it: ignored.
    pub fn set_guessed(&mut self, job: JobId, guessed: bool) {
        match &mut self.p {
            Selected::Paper(_) => {}
            Selected::Adaptive(a) => a.set_guessed(job, guessed),
        }
    }

    /// [`ShortReservation`]: the short/long boundary moved (a learned cutoff). Without it:
    /// ignored.
    pub fn classes_changed(&mut self, now: Time) {
        match &mut self.p {
            Selected::Paper(_) => {}
            Selected::Adaptive(a) => a.classes_changed(now),
        }
    }

    /// [`ShortReservation`]: slots reserved for short work now; `None` without it.
    pub fn reservation(&self) -> Option<u32> {
        match &self.p {
            Selected::Paper(_) => None,
            Selected::Adaptive(a) => Some(a.reservation()),
        }
    }

    /// [`Preempting`]: the index in `attempts` of the running attempt to kill now for a
    /// short job that waited past the bound. Without it: `None`.
    pub fn preempt(
        &mut self,
        now: Time,
        attempts: &[crate::adaptive::preempt::Attempt],
        killing: u32,
    ) -> Option<usize> {
        match &mut self.p {
            Selected::Paper(_) => None,
            Selected::Adaptive(a) => a.preempt(now, attempts, killing),
        }
    }

    /// [`WarmExecutors`]: the measured warm-up of a task set on a new executor (seconds).
    /// Without it: ignored.
    pub fn set_warmup(&mut self, seconds: f64) {
        match &mut self.p {
            Selected::Paper(_) => {}
            Selected::Adaptive(a) => a.set_warmup(seconds),
        }
    }

    /// [`WarmExecutors`]: the nodes holding input of `job`'s tasks, one entry per task.
    /// Without it: ignored.
    pub fn set_input_nodes(&mut self, job: JobId, nodes: &[NodeId]) {
        match &mut self.p {
            Selected::Paper(_) => {}
            Selected::Adaptive(a) => a.set_input_nodes(job, nodes),
        }
    }

    /// [`WarmExecutors`]: a task of `job` not launched yet reads its input on `node`.
    /// Without it: false.
    pub fn holds_input(&self, job: JobId, node: NodeId) -> bool {
        match &self.p {
            Selected::Paper(_) => false,
            Selected::Adaptive(a) => a.holds_input(job, node),
        }
    }

    /// [`Partitioned`]: the split of the nodes by class, if the policy keeps one.
    fn partitioned(&self) -> Option<&dyn Partitioned> {
        match &self.p {
            Selected::Paper(p) => Some(p.as_ref()),
            Selected::Adaptive(_) => None,
        }
    }

    /// The policy's books.
    fn cluster(&self) -> &Cluster {
        match &self.p {
            Selected::Paper(p) => p.cluster(),
            Selected::Adaptive(a) => a.cluster(),
        }
    }

    pub fn counters(&self) -> &Counters {
        &self.cluster().counters
    }
    pub fn job(&self, job: JobId) -> Option<JobView> {
        self.cluster().job_view(job)
    }
    pub fn node(&self, node: NodeId) -> Option<NodeView> {
        let short_only = self.partitioned().is_some_and(|p| p.short_only(node));
        self.cluster().node_view(node, short_only)
    }
    /// The node's queue, head first: `(job, scheduled as long)` per entry.
    pub fn queue(&self, node: NodeId) -> impl Iterator<Item = (JobId, bool)> + '_ {
        self.cluster().nodes.get(node.0 as usize).into_iter().flat_map(|n| n.queue.iter().map(|e| (e.job, e.long)))
    }
    /// True when the central state says the node holds long work: the [`Partitioned`]
    /// long map (placed, in flight, queued or running), else a long task running there.
    pub fn holds_long_work(&self, node: NodeId) -> bool {
        match self.partitioned() {
            Some(p) => p.holds_long_work(node),
            None => self.cluster().nodes.get(node.0 as usize).is_some_and(|n| n.running_long > 0),
        }
    }
    /// Slots taken (running, or fetching a task), across live nodes.
    pub fn busy_slots(&self) -> u64 {
        self.cluster().busy
    }
    pub fn total_slots(&self) -> u64 {
        self.cluster().total
    }
}
