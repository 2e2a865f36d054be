//! Safe half of the bridge: the state behind a JNI handle, the configuration it is created
//! from, the fixed array layouts shared with `Native.scala`, and loading and saving the
//! history file ([`crate::history_file`]).
//!
//! Nothing here touches the JVM, so it is unit-tested with plain `cargo test`.

use crate::error::{Error, HistoryError};
pub use crate::history_file::{
    parse_history, render_history, HistoryEntry, HistoryFile, HISTORY_FORMAT, MAX_FILE_SAMPLES,
};
use eagle_core::hetero::lotes::{ExecutorPlacement, LotesParams};
use eagle_core::locality::delay::{Level, Sample};
use eagle_core::settings::EngineSettings;
use eagle_core::{Class, Counters, Driver, EstimateSource, JobId, NodeId};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Names of the `counters(handle): Array[Long]` slots, in order. The first twelve
/// are the engine's [`Counters`]; the last is the number of bridge calls made on
/// the handle (the `failAfterCalls` test hook counts the same calls).
pub const COUNTER_NAMES: [&str; 13] = [
    "decisions",
    "probesPlaced",
    "probesRejectedSss",
    "probesBehindLong",
    "shortTasksAfterHol",
    "rescheduledProbes",
    "fallbackProbes",
    "stolenProbes",
    "srptBypasses",
    "emptyFetches",
    "backfills",
    "declines",
    "nativeCalls",
];

/// Names of the `status(handle): Array[Long]` slots that follow the [`COUNTER_NAMES`]
/// ones (the array is the counters, then these). Times in whole milliseconds; -1 for
/// "none" (no reservation under `policy=paper`, no cutoff while no split is known, no
/// interval without delay scheduling or without a live task set). The `dds*Wait*` slots
/// are the mean and the largest current interval over the live task sets, per level; the
/// `ddsLearned*` ones the application's learned intervals.
pub const STATUS_NAMES: [&str; 16] = [
    "reservedSlots",
    "cutoffMs",
    "busySlots",
    "totalSlots",
    "shortTaskSets",
    "longTaskSets",
    "ddsProcessWaitMeanMs",
    "ddsProcessWaitMaxMs",
    "ddsNodeWaitMeanMs",
    "ddsNodeWaitMaxMs",
    "ddsRackWaitMeanMs",
    "ddsRackWaitMaxMs",
    "ddsLearnedProcessWaitMs",
    "ddsLearnedNodeWaitMs",
    "ddsLearnedRackWaitMs",
    "warmupMs",
];

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

/// Value of [`State::canary`] while the state is alive; its `Drop` clears it.
const ALIVE: u64 = 0x4541_474c_455f_4f4b;

/// Everything one JNI handle owns.
pub struct State {
    pub driver: Driver,
    /// `placement=lotes` only (see `crate::placement`).
    pub placement: Option<ExecutorPlacement>,
    /// Reused by `offer` so a decision allocates nothing on the Rust side.
    pub plan: Vec<JobId>,
    /// Cluster mode (`spark.scheduler.eagle.cluster.central`): the daemons grant the slots
    /// (see `crate::cluster`).
    pub cluster: Option<crate::cluster::ClusterSide>,
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

impl Drop for State {
    fn drop(&mut self) {
        self.canary.store(0, Ordering::SeqCst);
    }
}

impl State {
    /// A state from `create`'s configuration (see [`decode_settings`]).
    pub fn new(config: &str) -> Result<State, Error> {
        State::with(decode_settings(config)?)
    }

    pub fn with(p: EngineSettings) -> Result<State, Error> {
        let mut driver = Driver::new(p.driver.clone(), p.seed)?;
        driver.set_history_max_entries(p.history_max_entries);
        let placement = if p.lotes { Some(ExecutorPlacement::new(LotesParams::default(), p.seed)?) } else { None };
        Ok(State {
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
    pub fn hold(&self) -> Result<(), Error> {
        if self.hold_call_ms > 0 {
            std::thread::sleep(std::time::Duration::from_millis(self.hold_call_ms));
            if self.canary.load(Ordering::SeqCst) != ALIVE {
                return Err(Error::FreedInFlight);
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

    pub fn calls(&self) -> u64 {
        self.calls
    }

    /// The [`COUNTER_NAMES`] layout.
    pub fn counters(&self) -> Vec<i64> {
        let c: &Counters = self.driver.counters();
        let v = [
            c.decisions,
            c.probes_placed,
            c.probes_rejected_sss,
            c.probes_behind_long,
            c.short_tasks_after_hol,
            c.rescheduled_probes,
            c.fallback_probes,
            c.stolen_probes,
            c.srpt_bypasses,
            c.empty_fetches,
            c.backfills,
            c.declines,
            self.calls,
        ];
        v.iter().map(|&x| x.min(i64::MAX as u64) as i64).collect()
    }
}

impl State {
    /// The `status(handle)` layout: [`COUNTER_NAMES`] then [`STATUS_NAMES`]. Read-only.
    pub fn status(&self) -> Vec<i64> {
        let st = self.driver.status();
        let ms = |v: Option<f64>| v.map_or(-1, s_to_ms);
        let big = |v: u64| v.min(i64::MAX as u64) as i64;
        let mut v = self.counters();
        v.extend([
            st.reservation.map_or(-1, i64::from),
            ms(st.cutoff),
            big(st.busy_slots),
            big(st.total_slots),
            i64::from(st.short_jobs),
            i64::from(st.long_jobs),
        ]);
        for i in 0..3 {
            v.extend([ms(st.delay_mean[i]), ms(st.delay_max[i])]);
        }
        for i in 0..3 {
            v.push(ms(st.delay_learned.map(|l| l[i])));
        }
        v.push(s_to_ms(st.warmup));
        v
    }
}

/// Loads the history at `path` into the driver. Returns the number of entries,
/// or -1 when the file does not exist (a first run).
pub fn load_history(driver: &mut Driver, path: &Path) -> Result<i32, HistoryError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(-1),
        Err(cause) => return Err(HistoryError::Read { path: path.to_path_buf(), cause }),
    };
    let entries = parse_history(&text).map_err(|cause| HistoryError::Format { path: path.to_path_buf(), cause })?;
    driver.load_history(&entries);
    Ok(entries.len() as i32)
}

/// A temporary file next to `path`, unique to this process and call: two applications (or
/// two engines of one JVM) saving the same history never write into one file.
fn temp_path(path: &Path) -> std::path::PathBuf {
    static SAVES: AtomicU64 = AtomicU64::new(0);
    let n = SAVES.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().map(|f| f.to_os_string()).unwrap_or_default();
    name.push(format!(".{}.{n}.tmp", std::process::id()));
    path.with_file_name(name)
}

/// Writes the driver's history to `path` atomically (unique temporary file + rename): the
/// last writer wins, and a reader never sees a partial file.
pub fn save_history(driver: &Driver, path: &Path) -> Result<i32, HistoryError> {
    let entries = driver.history();
    let text = render_history(&entries);
    if let Some(dir) = path.parent() {
        if !dir.as_os_str().is_empty() {
            std::fs::create_dir_all(dir).map_err(|cause| HistoryError::CreateDir { dir: dir.to_path_buf(), cause })?;
        }
    }
    let tmp = temp_path(path);
    std::fs::write(&tmp, text).map_err(|cause| HistoryError::Write { path: tmp.clone(), cause })?;
    std::fs::rename(&tmp, path).map_err(|cause| {
        let _ = std::fs::remove_file(&tmp);
        HistoryError::Rename { path: path.to_path_buf(), cause }
    })?;
    Ok(entries.len() as i32)
}

#[cfg(test)]
pub(crate) mod tests;
