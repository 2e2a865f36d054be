//! The Spark-facing façade: Eagle in driver mode (exact state, no network delay),
//! plus job classification and duration estimates (hint → history → running mean
//! → default, see [`crate::estimate`]). The JNI bridge wraps this 1:1.
use crate::engine::Counters;
use crate::types::*;

/// How the driver was configured (from `spark.scheduler.eagle.*`).
#[derive(Clone, Debug, PartialEq)]
pub struct DriverConfig {
    /// Tasks whose estimated duration exceeds this (seconds) are long.
    pub cutoff: f64,
    /// Fraction of executors reserved for short tasks (at least one when there are two or more).
    pub short_partition: f64,
    /// K: minimum probes per short job.
    pub min_probes: u32,
    /// Probes per task.
    pub probe_ratio: u32,
    /// SRPT starvation cap, as a multiple of the probe's own estimated task duration.
    pub starvation_factor: f64,
    /// Class when nothing is known (no hint, no history, no finished task yet).
    pub default_class: Class,
    /// Estimate (seconds) when nothing is known.
    pub default_estimate: f64,
}

/// Where a job's estimate came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EstimateSource {
    Hint,
    History,
    RunningMean,
    Default,
}

pub struct Driver {}

impl Driver {
    pub fn new(_cfg: DriverConfig, _seed: u64) -> Result<Driver, String> {
        todo!()
    }
    /// A new executor with `slots` task slots (cores / spark.task.cpus).
    pub fn add_node(&mut self, _now: Time, _slots: u32) -> NodeId {
        todo!()
    }
    pub fn remove_node(&mut self, _now: Time, _node: NodeId) {
        todo!()
    }
    /// A task set was submitted. `hint_class`/`hint_estimate` come from the local
    /// properties `spark.scheduler.eagle.job.class` / `...estimatedTaskMs`; `signature`
    /// is a stable hash of the stage (used for the history). Returns the job id.
    pub fn submit(
        &mut self,
        _now: Time,
        _tasks: u32,
        _hint_class: Option<Class>,
        _hint_estimate: Option<f64>,
        _signature: u64,
    ) -> JobId {
        todo!()
    }
    /// Spark's truth about how many tasks of the job wait to launch.
    pub fn set_pending(&mut self, _now: Time, _job: JobId, _pending: u32) {
        todo!()
    }
    /// `free` slots are free on `node`: which jobs get them, in order (one entry per launch).
    pub fn offer(&mut self, _now: Time, _node: NodeId, _free: u32, _exclude: &[JobId]) -> Vec<JobId> {
        todo!()
    }
    /// Spark could not launch the task of `job` planned for `node`.
    pub fn decline(&mut self, _now: Time, _node: NodeId, _job: JobId) {
        todo!()
    }
    /// A task ended on `node`; `duration` is Some(seconds) when it succeeded.
    pub fn task_finished(&mut self, _now: Time, _node: NodeId, _job: JobId, _duration: Option<f64>) {
        todo!()
    }
    /// The task set is gone; its observed mean goes into the history under its signature.
    pub fn remove_job(&mut self, _now: Time, _job: JobId) {
        todo!()
    }
    pub fn job_class(&self, _job: JobId) -> Option<Class> {
        todo!()
    }
    pub fn job_estimate(&self, _job: JobId) -> Option<(f64, EstimateSource)> {
        todo!()
    }
    pub fn counters(&self) -> &Counters {
        todo!()
    }
    /// History of past stage runs: `(signature, mean seconds, samples)`.
    pub fn history(&self) -> Vec<(u64, f64, u64)> {
        todo!()
    }
    pub fn load_history(&mut self, _entries: &[(u64, f64, u64)]) {
        todo!()
    }
}
