//! Scheduling policies behind one seam.
//!
//! A policy owns the [`Cluster`] books and decides, for every event the host reports,
//! which task of which job starts where. The [`crate::Engine`] façade holds one
//! `Box<dyn Policy>` chosen by [`Config::system`]; adding a policy adds a module here
//! and one arm in [`build`].
//!
//! - [`paper`]: the published systems on one mechanism (Eagle as in SoCC'16 §3, and
//!   Sparrow, Hawk, DLWL and CLWL for comparison): probes, SSS, LWL reservations,
//!   Sticky Batch Probing with SRPT, a static short-only partition.
//! - [`adaptive`]: eagle-adaptive, our default under the plugin: exact central SRPT
//!   over query remaining work, a floating slot-level reservation for short work sized
//!   from the load ([`crate::adaptive::reservation`]), and a starvation deadline.

pub mod adaptive;
pub mod paper;

use crate::cluster::{Cluster, JobSpec};
use crate::config::{Config, System};
use crate::locality::delay::Sample;
use crate::types::*;

/// What every policy answers. Every call carries `now`; decisions are appended to `out`.
pub trait Policy: Send {
    fn cluster(&self) -> &Cluster;
    fn config(&self) -> &Config;
    /// Schedules periodic timers. Called once before the first event.
    fn start(&mut self, _now: Time, _out: &mut Vec<Output>) {}
    fn add_node(&mut self, now: Time, slots: u32, out: &mut Vec<Output>) -> NodeId;
    fn remove_node(&mut self, now: Time, node: NodeId, out: &mut Vec<Output>);
    fn submit_job(&mut self, now: Time, spec: JobSpec, out: &mut Vec<Output>) -> JobId;
    /// Locality mode: a job whose task `i` reads a block held by `prefs[i]`.
    fn submit_job_with_locality(
        &mut self,
        now: Time,
        spec: JobSpec,
        _prefs: &[Vec<NodeId>],
        out: &mut Vec<Output>,
    ) -> JobId {
        self.submit_job(now, spec, out)
    }
    fn locality_feedback(&mut self, _now: Time, _job: JobId, _local: bool, _net_oh: f64) {}
    fn delay_history(&self, _job: JobId) -> Vec<Sample> {
        Vec::new()
    }
    fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, out: &mut Vec<Output>);
    fn deliver(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>);
    /// Eirene: the copy of `task` of `job` on `node` ended (a clone or its primary).
    /// Policies without cloning treat it as [`Policy::task_finished`].
    fn copy_finished(&mut self, now: Time, node: NodeId, job: JobId, _task: u32, out: &mut Vec<Output>) {
        self.task_finished(now, node, job, out)
    }
    /// Driver mode: `free` slots are free on `node`.
    fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId], out: &mut Vec<Output>);
    fn decline(&mut self, now: Time, node: NodeId, job: JobId);
    fn set_pending(&mut self, now: Time, job: JobId, pending: u32, out: &mut Vec<Output>);
    fn set_estimate_with(&mut self, now: Time, job: JobId, estimate: f64, class: Option<Class>, out: &mut Vec<Output>);
    fn remove_job(&mut self, now: Time, job: JobId);
    /// The node is in a short-only partition.
    fn short_only(&self, _node: NodeId) -> bool {
        false
    }
    /// The policy's central state says the node holds long work.
    fn holds_long_work(&self, node: NodeId) -> bool;
    /// Query-aware SRPT: `job` belongs to `group` (a Spark job or SQL execution).
    fn set_group(&mut self, _job: JobId, _group: u64) {}
    /// Query-aware SRPT: work (seconds) of the group's stages not yet submitted.
    fn set_group_future(&mut self, _group: u64, _work: f64) {}
    /// The short/long boundary moved (a learned cutoff): class-based state restarts.
    fn classes_changed(&mut self, _now: Time) {}
    /// Driver mode: the measured cost (seconds) of a task set's first task on an
    /// executor (see [`crate::adaptive::warmup`]).
    fn set_warmup(&mut self, _seconds: f64) {}
    /// Driver mode: `job`'s waiting tasks read input held by these nodes, one entry per
    /// task (a node repeated for each of its tasks): see [`crate::adaptive::warmup`], "Data locality".
    fn set_input_nodes(&mut self, _job: JobId, _nodes: &[NodeId]) {}
    /// Driver mode: a task of `job` not launched yet reads its input on `node`.
    fn holds_input(&self, _job: JobId, _node: NodeId) -> bool {
        false
    }
    /// Slots currently reserved for short work (adaptive), if the policy sizes one.
    fn reservation(&self) -> Option<u32> {
        None
    }
}

/// The policy that runs `config.system`.
pub fn build(config: Config, seed: u64) -> Result<Box<dyn Policy>, crate::error::ConfigError> {
    config.validate()?;
    Ok(match config.system {
        System::EagleAdaptive => Box::new(adaptive::Adaptive::new(config, seed)),
        _ => Box::new(paper::Paper::new(config, seed)),
    })
}
