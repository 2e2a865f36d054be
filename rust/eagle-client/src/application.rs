//! One Spark application's scheduler in the driver: the engine ([`Driver`]), LoTES's
//! executor placement under `placement=lotes` ([`lotes`]), and cluster mode's
//! [`ClusterSide`] once started ([`cluster`]), kept in step: each of Spark's events reaches
//! every part that follows it, and an offer round's plan comes from the engine, or in
//! cluster mode from the daemons' grants.
//!
//! It also carries the plugin's test hooks (`debug.failAfterCalls`, `debug.holdCallMs`).
//!
//! Invariants: LoTES follows the engine's executors and task sets (it never plans, it only
//! excludes); in cluster mode the engine classifies and learns, and every launch comes from
//! a grant (`grants`). Nothing here knows the JVM: the bridge (`eagle-jni`) decodes
//! Spark's arguments into these calls and encodes their answers.

use crate::error::ApplicationError;
use crate::grants::ClusterSide;
use eagle_core::hetero::lotes::{ExecutorPlacement, LotesParams};
use eagle_core::settings::EngineSettings;
use eagle_core::{Class, Driver, JobId, NodeId, Time};
use std::sync::atomic::{AtomicU64, Ordering};

pub mod cluster;
pub mod lotes;

/// Value of [`Application::canary`] while the state is alive; its `Drop` clears it.
const ALIVE: u64 = 0x4541_474c_455f_4f4b;

/// A task set as Spark submits it.
#[derive(Clone, Debug, PartialEq)]
pub struct TaskSet {
    /// Engine slots it asks for: `width` per task.
    pub tasks: u32,
    /// Spark's class hint, if any.
    pub class: Option<Class>,
    /// Spark's estimate of a task's duration (seconds), if any.
    pub estimate: Option<f64>,
    /// The stage signature the history keys estimates by.
    pub signature: u64,
    /// The Spark job or SQL execution it belongs to (query-aware SRPT), if any.
    pub group: Option<u64>,
    /// Engine slots one task takes (a wider resource profile).
    pub width: u32,
    /// Cores one task takes (cluster mode: slots of its host's node).
    pub cpus: u32,
    /// A barrier stage: cluster mode gathers a grant for each of its tasks before any launches.
    pub barrier: bool,
    /// The executors holding its tasks' input, `width` entries a task per executor.
    pub input: Vec<NodeId>,
}

/// Everything one application's scheduler owns (one JNI handle).
pub struct Application {
    pub driver: Driver,
    /// `placement=lotes` only (see [`lotes`]).
    pub placement: Option<ExecutorPlacement>,
    /// Reused by [`Application::offer`] so a decision allocates nothing.
    pub plan: Vec<JobId>,
    /// Cluster mode (`spark.scheduler.eagle.cluster.central`): the daemons grant the slots
    /// (see [`cluster`]).
    pub cluster: Option<ClusterSide>,
    /// The `seed` parameter (cluster mode's probe sampling uses it too).
    pub seed: u64,
    /// The configuration the state was created from (`enableDelay` reads its DDS part).
    pub settings: EngineSettings,
    calls: u64,
    fail_after_calls: Option<u64>,
    hold_call_ms: u64,
    /// [`ALIVE`] until dropped: lets the `debugHoldCallMs` hook detect a state freed under a
    /// call. Atomic so that the check after the hold really reads memory again.
    canary: AtomicU64,
}

impl Drop for Application {
    fn drop(&mut self) {
        self.canary.store(0, Ordering::SeqCst);
    }
}

impl Application {
    /// An application's scheduler from its configuration.
    pub fn new(p: EngineSettings) -> Result<Application, ApplicationError> {
        let mut driver = Driver::new(p.driver.clone(), p.seed)?;
        driver.set_history_max_entries(p.history_max_entries);
        let placement = if p.lotes { Some(ExecutorPlacement::new(LotesParams::default(), p.seed)?) } else { None };
        Ok(Application {
            driver,
            placement,
            plan: Vec::new(),
            cluster: None,
            seed: p.seed,
            calls: 0,
            fail_after_calls: p.fail_after_calls,
            hold_call_ms: p.hold_call_ms,
            canary: AtomicU64::new(ALIVE),
            settings: p,
        })
    }

    /// The `debugHoldCallMs` test hook: holds the call (and the engine) open for that long,
    /// so that `stop()` races with a call in flight, then checks that the state was not
    /// freed meanwhile (a use-after-free turns into a clean error instead of silent
    /// corruption).
    pub fn hold(&self) -> Result<(), ApplicationError> {
        if self.hold_call_ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(self.hold_call_ms));
            if self.canary.load(Ordering::SeqCst) != ALIVE {
                return Err(ApplicationError::FreedInFlight);
            }
        }
        Ok(())
    }

    /// Counts a bridge call; the `failAfterCalls` test hook panics past its limit,
    /// so the plugin's fallback path can be exercised end to end.
    pub fn tick(&mut self) {
        self.calls += 1;
        if let Some(n) = self.fail_after_calls {
            if self.calls > n {
                panic!("eagle-jni: forced failure after {n} calls (spark.scheduler.eagle.debug.failAfterCalls)");
            }
        }
    }

    /// The calls counted by [`Application::tick`].
    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// Executor `node` is gone.
    pub fn remove_node(&mut self, now: Time, node: NodeId) {
        self.driver.remove_node(now, node);
        lotes::node_removed(self, node);
        cluster::node_removed(self, node);
    }

    /// A task set arrives; returns the engine's job id.
    pub fn submit(&mut self, now: Time, t: &TaskSet) -> JobId {
        let job = self.driver.submit_in(now, t.tasks, t.class, t.estimate, t.signature, t.group);
        if !t.input.is_empty() {
            self.driver.set_input_nodes(job, &t.input);
        }
        cluster::submitted(self, job, t.tasks, t.width, t.cpus, t.barrier, &t.input);
        job
    }

    /// Spark's count of the job's tasks waiting to launch, and of its running tasks waiting
    /// for a speculative copy.
    pub fn set_pending(&mut self, now: Time, job: JobId, pending: u32, speculatable: u32) {
        self.driver.set_pending_tasks(now, job, pending, speculatable);
        lotes::pending(self, job, pending);
        cluster::pending(self, job, pending.saturating_add(speculatable));
    }

    /// Spark lets `job` run only on `usable`, or anywhere (`None`).
    pub fn restrict(&mut self, now: Time, job: JobId, usable: Option<&[NodeId]>) {
        self.driver.restrict(now, job, usable);
        cluster::restrict(self, job, usable);
    }

    /// The plan for `free` slots of `node`: one job id per launch, in order; never a job of
    /// `exclude`. From the engine, or in cluster mode from the grants held for `node`'s host
    /// (a short grant the warm-executors rule says no to goes back:
    /// [`eagle_core::Driver::worth_grant`]).
    pub fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId]) -> &[JobId] {
        self.plan.clear();
        match self.cluster.as_mut() {
            Some(c) => {
                let d = &self.driver;
                c.offer(
                    node,
                    free,
                    exclude,
                    |job, waiting, running| d.worth_grant(now, job, node, waiting, running),
                    &mut self.plan,
                )
            }
            None => self.driver.offer_into(now, node, free, exclude, &mut self.plan),
        }
        &self.plan
    }

    /// A planned launch did not happen.
    pub fn decline(&mut self, now: Time, node: NodeId, job: JobId) {
        match self.cluster.as_mut() {
            Some(c) => c.decline(node, job),
            None => self.driver.decline(now, node, job),
        }
    }

    /// A task of `job` on `node` ended: `duration` seconds, or `None` if it failed.
    pub fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, duration: Option<f64>) {
        if self.cluster.is_some() {
            // The lease ends by task id (`taskEnded`); the engine only learns.
            self.driver.task_observed(now, node, job, duration);
        } else {
            self.driver.task_finished(now, node, job, duration);
        }
    }

    /// The task set is gone.
    pub fn remove_job(&mut self, now: Time, job: JobId) {
        self.driver.remove_job(now, job);
        lotes::job_removed(self, job);
        if let Some(c) = self.cluster.as_mut() {
            c.remove_job(job);
        }
    }
}

#[cfg(test)]
pub(crate) mod tests;
