//! Conversions between the JVM's primitives (and `create`'s JSON) and the engine's types:
//! ids, counts and codes checked on the way in, seconds to and from milliseconds, time
//! series flattened on the way out. Decoding is checked: an argument the engine's type
//! cannot hold is an [`Error`] naming it, never a wrapped or truncated value.
//!
//! Nothing here touches the JVM, so it is unit-tested with plain `cargo test`.

use crate::error::{Error, Expect};
use eagle_client::ClusterError;
use eagle_core::adaptive::preempt::Attempt;
use eagle_core::locality::delay::{Level, Sample};
use eagle_core::settings::EngineSettings;
use eagle_core::{Class, EstimateSource, JobId, NodeId};
use std::collections::BTreeMap;

/// Decodes `create`'s configuration: a JSON object of `spark.scheduler.eagle.*`-relative
/// keys to their values as set (strings), decoded and validated by
/// [`EngineSettings::from_pairs`] (an unknown or bad key is an error naming it).
pub fn decode_settings(json: &str) -> Result<EngineSettings, Error> {
    let m: BTreeMap<String, String> = serde_json::from_str(json).map_err(Error::ConfigJson)?;
    Ok(EngineSettings::from_pairs(m.iter().map(|(k, v)| (k.as_str(), v.as_str())))?)
}

/// A locality level code on the JNI surface: Spark's `TaskLocality` id (0 PROCESS_LOCAL,
/// 1 NODE_LOCAL, 2 NO_PREF, 3 RACK_LOCAL, 4 ANY).
pub fn level(code: i32) -> Result<Level, Error> {
    u32::try_from(code).ok().and_then(Level::from_index).ok_or(Error::BadLevel(code))
}

/// Decodes a task set's valid levels (most local first, strictly increasing).
pub fn levels(codes: &[i32]) -> Result<Vec<Level>, Error> {
    let v = codes.iter().map(|&c| level(c)).collect::<Result<Vec<_>, _>>()?;
    if v.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Error::LevelsNotIncreasing(codes.to_vec()));
    }
    Ok(v)
}

/// Decodes the per-level pending flags (0/1), one per valid level.
pub fn pending_flags(flags: &[i32], valid: usize) -> Result<Vec<bool>, Error> {
    if flags.len() != valid {
        return Err(Error::PendingFlagCount { expected: valid, got: flags.len() });
    }
    flags
        .iter()
        .map(|&f| match f {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(Error::BadPendingFlag(other)),
        })
        .collect()
}

/// Flattens an interval history into `(atMs, level, intervalMs)` triples.
pub fn flatten_history(h: &[Sample]) -> Vec<f64> {
    h.iter().flat_map(|s| [s.at * 1000.0, s.level as u32 as f64, s.interval * 1000.0]).collect()
}

/// Flattens the adaptive state over time into `(atMs, reservedSlots, cutoffMs)` triples
/// (cutoffMs −1 while no split is known).
pub fn flatten_adaptive(h: &[eagle_core::AdaptivePoint]) -> Vec<f64> {
    h.iter().flat_map(|p| [p.at * 1000.0, p.reservation as f64, p.cutoff.map_or(-1.0, |c| c * 1000.0)]).collect()
}

/// Milliseconds since the plugin's start (JVM side) to engine seconds.
pub fn ms_to_s(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

/// Engine seconds to whole milliseconds.
pub fn s_to_ms(s: f64) -> i64 {
    (s * 1000.0).round() as i64
}

/// Class code on the JNI surface: 0 short, 1 long, -1 none/unknown.
pub fn class_code(c: Option<Class>) -> i32 {
    match c {
        Some(Class::Short) => 0,
        Some(Class::Long) => 1,
        None => -1,
    }
}

/// Decodes a class hint code (-1 none, 0 short, 1 long).
pub fn class_from_code(code: i32) -> Result<Option<Class>, Error> {
    match code {
        -1 => Ok(None),
        0 => Ok(Some(Class::Short)),
        1 => Ok(Some(Class::Long)),
        other => Err(Error::BadClassCode(other)),
    }
}

/// Estimate source code on the JNI surface: 0 hint, 1 history, 2 running mean, 3 default.
pub fn source_code(s: EstimateSource) -> i64 {
    match s {
        EstimateSource::Hint => 0,
        EstimateSource::History => 1,
        EstimateSource::RunningMean => 2,
        EstimateSource::Default => 3,
    }
}

pub fn job_id(v: i32) -> Result<JobId, Error> {
    count("job id", v).map(JobId)
}

pub fn node_id(v: i32) -> Result<NodeId, Error> {
    count("node id", v).map(NodeId)
}

/// `v` as a count, id or index; `what` names it in the error.
pub fn count(what: &'static str, v: i32) -> Result<u32, Error> {
    u32::try_from(v).map_err(|_| Error::Negative { what, value: v.into() })
}

/// `clusterStart`'s node port: a TCP port.
pub fn node_port(v: i32) -> Result<u16, Error> {
    u16::try_from(v).map_err(|_| ClusterError::BadNodePort(v.into()).into())
}

/// `clusterStart`'s keep-alive period: a positive number of milliseconds.
pub fn ping_ms(v: i64) -> Result<u64, Error> {
    u64::try_from(v).ok().filter(|&p| p > 0).ok_or(ClusterError::BadPingPeriod(v).into())
}

/// Node ids on the JNI surface (engine ids as `Int`s).
pub fn node_codes(nodes: &[NodeId]) -> Vec<i32> {
    nodes.iter().map(|n| n.0 as i32).collect()
}

/// Checks that `roundEnd`'s parallel arrays (task ids, executors, jobs) are as long as
/// each other.
pub fn round_lengths(tids: &[i64], nodes: &[i32], jobs: &[i32]) -> Result<(), Error> {
    if tids.len() != nodes.len() || tids.len() != jobs.len() {
        return Err(Error::RoundEndLengths { tids: tids.len(), nodes: nodes.len(), jobs: jobs.len() });
    }
    Ok(())
}

/// `roundEnd`'s parallel arrays (of [`round_lengths`]) as launches: (Spark task id,
/// executor, job).
pub fn launches(tids: &[i64], nodes: &[i32], jobs: &[i32]) -> Result<Vec<(i64, NodeId, JobId)>, Error> {
    let mut launched = Vec::with_capacity(tids.len());
    for i in 0..tids.len() {
        launched.push((tids[i], node_id(nodes[i])?, job_id(jobs[i])?));
    }
    Ok(launched)
}

/// `preempt`'s parallel arrays as the running attempts: each one's job, its start (engine
/// ms) and whether its task was preempted before (0 or 1).
pub fn attempts(jobs: &[i32], started_ms: &[i64], preempted: &[i32]) -> Result<Vec<Attempt>, Error> {
    if jobs.len() != started_ms.len() || jobs.len() != preempted.len() {
        return Err(Error::PreemptLengths { jobs: jobs.len(), started: started_ms.len(), preempted: preempted.len() });
    }
    let mut out = Vec::with_capacity(jobs.len());
    for i in 0..jobs.len() {
        let before = match preempted[i] {
            0 => false,
            1 => true,
            v => return Err(Error::Arg { name: "preempted flag", expected: Expect::Flag, value: v.into() }),
        };
        out.push(Attempt { job: job_id(jobs[i])?, started: ms_to_s(started_ms[i]), preempted_before: before });
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests;
