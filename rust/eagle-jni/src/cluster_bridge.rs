//! The bridge's calls into cluster mode, on the engine's state: each a no-op outside
//! cluster mode unless it needs it (`clusterStart`, `executorHost`). The JNI entry points
//! (`jni_api`, `jni_cluster`) call these; the driver side itself is [`crate::cluster::ClusterSide`].

use crate::cluster::{ClusterParams, ClusterSide, Shape};
use crate::error::{ClusterError, Error};
use crate::state::State;
use eagle_core::{Class, JobId, NodeId};

/// Names of the `clusterStatus(handle): Array[Long]` slots, in order (empty outside cluster
/// mode).
pub const CLUSTER_STATUS_NAMES: [&str; 19] = [
    "centralUp",
    "hostsUp",
    "heldGrants",
    "runningLeases",
    "grants",
    "launched",
    "returned",
    "revoked",
    "taskEnds",
    "hostDowns",
    "centralDowns",
    "surplusReturned",
    "coldReturned",
    "unplacedLong",
    "placedLocally",
    "warmFirst",
    "spreadLate",
    "gangReturned",
    "probedAgain",
];

fn side(st: &mut State) -> Result<&mut ClusterSide, ClusterError> {
    st.cluster.as_mut().ok_or(ClusterError::Off)
}

/// `clusterStart`: from now on the daemons grant the slots, with `p` from [`params`]. Before
/// any executor or task set.
pub fn start(st: &mut State, p: ClusterParams) -> Result<(), ClusterError> {
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
    st: &State,
    central: String,
    node_port: i32,
    secret: Vec<u8>,
    app: String,
    ping_ms: i64,
    warm_grants: bool,
    affinity: bool,
) -> Result<ClusterParams, ClusterError> {
    let node_port = u16::try_from(node_port).map_err(|_| ClusterError::BadNodePort(node_port.into()))?;
    let ping_ms = u64::try_from(ping_ms).ok().filter(|&p| p > 0).ok_or(ClusterError::BadPingPeriod(ping_ms))?;
    let p = ClusterParams {
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
    };
    Ok(p)
}

/// `executorHost`: executor `node` (from `addNode`) runs on `host`.
pub fn executor_host(st: &mut State, node: NodeId, host: &str) -> Result<(), ClusterError> {
    if host.trim().is_empty() {
        return Err(ClusterError::EmptyHost(node));
    }
    side(st)?.executor_added(node, host.trim());
    Ok(())
}

/// Mirrors `removeNode`.
pub fn node_removed(st: &mut State, node: NodeId) {
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
pub fn submitted(st: &mut State, job: JobId, units: u32, width: u32, cpus: u32, barrier: bool, input: &[NodeId]) {
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
pub fn pending(st: &mut State, job: JobId, launchable: u32) {
    if let Some(c) = st.cluster.as_mut() {
        c.set_pending(job, launchable);
    }
}

/// Mirrors `restrict` (`usable`: the executors Spark lets the job run on; `None`: all).
pub fn restrict(st: &mut State, job: JobId, usable: Option<&[NodeId]>) {
    if let Some(c) = st.cluster.as_mut() {
        c.restrict(job, usable);
    }
}

/// `roundEnd`: the launches of the round that just ended at `now` (seconds), as parallel
/// arrays.
pub fn round_end(st: &mut State, now: f64, tids: &[i64], nodes: &[i32], jobs: &[i32]) -> Result<(), Error> {
    if tids.len() != nodes.len() || tids.len() != jobs.len() {
        return Err(Error::RoundEndLengths { tids: tids.len(), nodes: nodes.len(), jobs: jobs.len() });
    }
    let Some(c) = st.cluster.as_mut() else {
        return Ok(());
    };
    let mut launched = Vec::with_capacity(tids.len());
    for i in 0..tids.len() {
        launched.push((tids[i], crate::state::node_id(nodes[i])?, crate::state::job_id(jobs[i])?));
    }
    c.round_end(&launched);
    for &(_, node, job) in &launched {
        st.driver.cluster_launched(now, job, node);
    }
    Ok(())
}

/// `clusterOutOfReach`: the executors where `job` cannot get a slot (`cluster/reach.rs`);
/// empty outside cluster mode.
pub fn out_of_reach(st: &mut State, job: JobId) -> Vec<i32> {
    st.cluster.as_mut().map_or_else(Vec::new, |c| c.out_of_reach(job).into_iter().map(|n| n.0 as i32).collect())
}

/// `taskEnded`: Spark task `tid` reached a final state.
pub fn task_ended(st: &mut State, tid: i64) {
    if let Some(c) = st.cluster.as_mut() {
        c.drain();
        c.task_ended(tid);
    }
}

/// The [`CLUSTER_STATUS_NAMES`] layout (empty outside cluster mode).
pub fn status(st: &mut State) -> Vec<i64> {
    let Some(c) = st.cluster.as_mut() else {
        return Vec::new();
    };
    c.drain();
    let k = &c.counters;
    let v = [
        c.central_up() as u64,
        c.hosts_up() as u64,
        c.held_grants() as u64,
        c.running() as u64,
        k.grants,
        k.launched,
        k.returned,
        k.revoked,
        k.task_ends,
        k.host_downs,
        k.central_downs,
        c.client().surplus_returned(),
        k.cold_returned,
        c.client().unplaced_long(),
        c.client().placed_locally(),
        c.client().warm_first(),
        c.client().spread_late(),
        k.gang_returned,
        k.probed_again,
    ];
    v.iter().map(|&x| x.min(i64::MAX as u64) as i64).collect()
}

#[cfg(test)]
mod tests;
