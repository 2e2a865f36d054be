//! Cluster mode in the application: its start from the driver's own settings, and the
//! application's events passed on to its [`ClusterSide`] with what the engine knows (a task
//! set's class and estimate, the measured warm-up, the launches it learns from). Each call
//! is a no-op outside cluster mode unless it needs it (`clusterStart`, `executorHost`).

use super::Application;
use crate::error::ClusterError;
use crate::grants::{ClusterParams, ClusterSide, Shape};
use eagle_core::{Class, JobId, NodeId, Time};

fn side(st: &mut Application) -> Result<&mut ClusterSide, ClusterError> {
    st.cluster.as_mut().ok_or(ClusterError::Off)
}

/// `clusterStart`: from now on the daemons grant the slots, with `p` from [`params`]. Before
/// any executor or task set.
pub fn start(st: &mut Application, p: ClusterParams) -> Result<(), ClusterError> {
    if st.cluster.is_some() {
        return Err(ClusterError::AlreadyStarted);
    }
    st.cluster = Some(ClusterSide::start(p)?);
    Ok(())
}

/// The client's settings from `clusterStart`'s arguments and the driver's own: K, the
/// probe ratio and the seed, and the retry of rejections and application affinity, on
/// unless the driver runs the paper's policy.
#[allow(clippy::too_many_arguments)] // `clusterStart`'s arguments, as the plugin passes them
pub fn params(
    st: &Application,
    central: String,
    node_port: u16,
    secret: Vec<u8>,
    app: String,
    ping_ms: u64,
    warm_grants: bool,
    affinity: bool,
) -> ClusterParams {
    ClusterParams {
        central,
        node_port,
        secret,
        app,
        min_probes: st.driver.config().min_probes,
        probe_ratio: st.driver.config().probe_ratio,
        ping_ms,
        seed: st.seed,
        retry_rejected: st.driver.config().policy != eagle_core::System::Eagle,
        warm_grants,
        affinity: affinity && st.driver.config().policy != eagle_core::System::Eagle,
    }
}

/// `executorHost`: executor `node` (from `addNode`) runs on `host`.
pub fn executor_host(st: &mut Application, node: NodeId, host: &str) -> Result<(), ClusterError> {
    if host.trim().is_empty() {
        return Err(ClusterError::EmptyHost(node));
    }
    side(st)?.executor_added(node, host.trim());
    Ok(())
}

/// Mirrors `removeNode`.
pub fn node_removed(st: &mut Application, node: NodeId) {
    if let Some(c) = st.cluster.as_mut() {
        c.executor_removed(node);
    }
}

/// Mirrors `submit`: the task set goes to the daemons with the engine's class and estimate.
/// `units` engine slots, `width` per task; a task takes `cpus` slots of its node.
///
/// A barrier stage (`barrier`) is a gang ([`ClusterSide::set_gang`]) and probes as short
/// work whatever its class: a gang gives back grants it cannot use together, and a probe's
/// grant given back is probed for again, where a central placement's is spent.
///
/// `input`: the executors holding the tasks' input, as given to the engine
/// (`set_input_nodes`); a long task set's placements go near it.
pub fn submitted(st: &mut Application, job: JobId, units: u32, width: u32, cpus: u32, barrier: bool, input: &[NodeId]) {
    let Some(c) = st.cluster.as_mut() else { return };
    let long = !barrier && st.driver.job_class(job) == Some(Class::Long);
    let est = st.driver.job_estimate(job).map_or(0.0, |(e, _)| e);
    c.warmup(st.driver.warmup_cost());
    c.submit_near(job, units, est, long, Shape { width, cpus }, input);
    if barrier {
        c.set_gang(job);
    }
}

/// Mirrors `setPending` (launchable = waiting + speculatable).
pub fn pending(st: &mut Application, job: JobId, launchable: u32) {
    if let Some(c) = st.cluster.as_mut() {
        c.set_pending(job, launchable);
    }
}

/// Mirrors `restrict` (`usable`: the executors Spark lets the job run on; `None`: all).
pub fn restrict(st: &mut Application, job: JobId, usable: Option<&[NodeId]>) {
    if let Some(c) = st.cluster.as_mut() {
        c.restrict(job, usable);
    }
}

/// `roundEnd`: the launches of the round that just ended at `now`, as (Spark task id,
/// executor, job).
pub fn round_end(st: &mut Application, now: Time, launched: &[(i64, NodeId, JobId)]) {
    let Some(c) = st.cluster.as_mut() else { return };
    c.round_end(launched);
    for &(_, node, job) in launched {
        st.driver.cluster_launched(now, job, node);
    }
}

/// `clusterOutOfReach`: the executors where `job` cannot get a slot (`grants/reach.rs`);
/// empty outside cluster mode.
pub fn out_of_reach(st: &mut Application, job: JobId) -> Vec<NodeId> {
    st.cluster.as_mut().map_or_else(Vec::new, |c| c.out_of_reach(job))
}

/// `taskEnded`: Spark task `tid` reached a final state.
pub fn task_ended(st: &mut Application, tid: i64) {
    if let Some(c) = st.cluster.as_mut() {
        c.drain();
        c.task_ended(tid);
    }
}

#[cfg(test)]
mod tests;
