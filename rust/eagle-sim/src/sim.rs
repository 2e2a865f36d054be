//! The replay loop: feeds a trace to the engine and carries out its decisions.
//!
//! ```text
//!  trace ──arrival──► Engine::submit_job ─┐
//!  heap ──task end──► Engine::task_finished ├──► Vec<Output> ──► Launch: task end at start + duration
//!  heap ──timer─────► Engine::deliver ─────┘                 └─► Timer:  push (at, msg)
//! ```
//!
//! The engine decides which task of which job starts where and when; the trace
//! decides how long it runs: the k-th task a job launches (`Output::Launch::task`)
//! runs for the job's k-th duration in file order. Everything happens on one
//! thread in (time, rank, sequence) order (see [`crate::events`]), so a seed
//! fixes the run.
//!
//! The run starts at the first submission (`Engine::start` is called then, so
//! DLWL heartbeats start with the trace) and stops as soon as every job has
//! completed: periodic heartbeats would otherwise run forever. If nothing but
//! heartbeats is left while jobs are unfinished, the engine lost work and the run
//! fails with a message.

use crate::eirene::{Copies, End};
use crate::error::{EngineFault, SimError};
use crate::events::{EventQueue, Kind, RANK_ARRIVAL, RANK_SAMPLE};
use crate::stats::Summary;
use crate::trace::{Family, Trace};
use eagle_core::eirene::EireneParams;
use eagle_core::locality::delay::DelayParams;
use eagle_core::rng::Rng;
use eagle_core::{Config, Counters, Engine, JobId, JobSpec, NodeId, Output, System, Time};
use std::fmt;
use std::str::FromStr;
use std::time::Instant;

/// How the simulator estimates a job's mean task duration for the engine.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Estimate {
    /// `int(mean)`: exact (the reference's `MEAN`).
    Mean,
    /// `int(uniform(x·mean, mean))`, 0 ≤ x ≤ 1: underestimates.
    Under(f64),
    /// `int(uniform(mean, x·mean))`, x ≥ 1: overestimates.
    Over(f64),
}

impl FromStr for Estimate {
    type Err = SimError;
    fn from_str(s: &str) -> Result<Estimate, SimError> {
        let bad = || SimError::BadEstimate(s.to_string());
        if s == "mean" {
            return Ok(Estimate::Mean);
        }
        let (kind, x) = s.split_once(':').ok_or_else(bad)?;
        let x: f64 = x.parse().map_err(|_| bad())?;
        match kind {
            "under" if (0.0..=1.0).contains(&x) => Ok(Estimate::Under(x)),
            "over" if x >= 1.0 && x.is_finite() => Ok(Estimate::Over(x)),
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for Estimate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Estimate::Mean => write!(f, "mean"),
            Estimate::Under(x) => write!(f, "under:{x}"),
            Estimate::Over(x) => write!(f, "over:{x}"),
        }
    }
}

impl Estimate {
    /// The estimate for a job whose truncated mean is `mean`, like the reference's
    /// `int(random.uniform(bottom, top))`.
    pub fn draw(self, mean: f64, rng: &mut Rng) -> f64 {
        let uniform = |lo: f64, hi: f64, rng: &mut Rng| lo + (hi - lo) * rng.unit();
        match self {
            Estimate::Mean => mean,
            Estimate::Under(x) => uniform(x * mean, mean, rng).trunc(),
            Estimate::Over(x) => uniform(mean, x * mean, rng).trunc(),
        }
    }
}

/// Locality mode (Dynamic Delay Scheduling experiments): every task reads one
/// input block held by `replication` random nodes; a task that runs elsewhere
/// pays `penalty` seconds (× `factor` inside the congestion phase), and its stage
/// waits for node-local slots according to `delay`.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalitySpec {
    pub delay: DelayMode,
    pub replication: u32,
    /// Remote-read penalty, seconds.
    pub penalty: f64,
    /// Congestion phase `(start, end, factor)`, seconds after the first submission.
    pub congestion: Option<(f64, f64, f64)>,
}

/// How long a stage waits for a node-local slot.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum DelayMode {
    /// A fixed wait, seconds (Spark's `spark.locality.wait`).
    Fixed(f64),
    /// Dynamic Delay Scheduling: starts at `initial`, adapts within `[min, max]`.
    Dynamic { initial: f64, min: f64, max: f64, window: f64 },
}

impl FromStr for DelayMode {
    type Err = SimError;
    /// `fixed:SECONDS` or `dynamic[:INITIAL:MIN:MAX[:WINDOW]]`.
    fn from_str(s: &str) -> Result<DelayMode, SimError> {
        let bad = || SimError::BadLocality(s.to_string());
        let mut parts = s.split(':');
        let num = |x: Option<&str>| -> Result<Option<f64>, SimError> {
            match x {
                None => Ok(None),
                Some(v) => v.parse::<f64>().ok().filter(|f| f.is_finite() && *f >= 0.0).map(Some).ok_or_else(bad),
            }
        };
        match parts.next() {
            Some("fixed") => {
                let w = num(parts.next())?.ok_or_else(bad)?;
                if parts.next().is_some() {
                    return Err(bad());
                }
                Ok(DelayMode::Fixed(w))
            }
            Some("dynamic") => {
                let initial = num(parts.next())?.unwrap_or(3.0);
                let min = num(parts.next())?.unwrap_or(0.0);
                let max = num(parts.next())?.unwrap_or(10.0);
                let window = num(parts.next())?.unwrap_or(2.0);
                if parts.next().is_some() || max < min || window < 1.0 {
                    return Err(bad());
                }
                Ok(DelayMode::Dynamic { initial, min, max, window })
            }
            _ => Err(bad()),
        }
    }
}

impl fmt::Display for DelayMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DelayMode::Fixed(w) => write!(f, "fixed:{w}"),
            DelayMode::Dynamic { initial, min, max, window } => write!(f, "dynamic:{initial}:{min}:{max}:{window}"),
        }
    }
}

impl DelayMode {
    pub fn params(self) -> DelayParams {
        match self {
            DelayMode::Fixed(w) => DelayParams::uniform(w, w, w, 2.0),
            DelayMode::Dynamic { initial, min, max, window } => DelayParams::uniform(initial, min, max, window),
        }
    }
}

impl LocalitySpec {
    /// The penalty a remote task launched at `t` pays (`t0`: first submission).
    pub fn penalty_at(&self, t: f64, t0: f64) -> f64 {
        match self.congestion {
            Some((a, b, f)) if t - t0 >= a && t - t0 < b => self.penalty * f,
            _ => self.penalty,
        }
    }
}

/// Everything a run needs besides the trace.
#[derive(Clone, Debug, PartialEq)]
pub struct SimConfig {
    pub system: System,
    pub nodes: u32,
    /// Task slots per node (the reference's `SLOTS_PER_WORKER`, 1 in every experiment).
    pub slots: u32,
    /// Short/long cutoff, seconds: both for scheduling (engine) and for reporting
    /// (a job is long when `int(mean) > cutoff`, whatever the engine decided).
    pub cutoff: f64,
    pub small_partition_pct: f64,
    pub big_partition_pct: f64,
    pub heartbeat: f64,
    pub seed: u64,
    pub estimate: Estimate,
    /// Utilization sampling period, seconds (the reference's `MONITOR_INTERVAL`, 5).
    pub util_interval: f64,
    /// Locality mode, off by default.
    pub locality: Option<LocalitySpec>,
    /// Eirene's CCDM and SATC (see [`crate::eirene`]), off by default.
    pub eirene: EireneParams,
    /// Slots of each node when they differ (heterogeneous mode, resource-blind:
    /// one slot per core); empty: `slots` everywhere.
    pub node_slots: Vec<u32>,
    /// eagle-adaptive's job order (`--order`), SRPT by default.
    pub order: eagle_core::adaptive::fsp::Order,
}

impl SimConfig {
    /// The reference parameters for `system` on a trace `family`.
    ///
    /// Sparrow keeps a 100% big partition (no short-only nodes), as in the
    /// reference parameter line.
    pub fn for_family(system: System, nodes: u32, family: Family) -> SimConfig {
        SimConfig {
            system,
            nodes,
            slots: 1,
            cutoff: family.cutoff(),
            small_partition_pct: family.small_partition_pct(),
            big_partition_pct: if system == System::Sparrow { 100.0 } else { family.big_partition_pct() },
            heartbeat: family.heartbeat(),
            seed: 1,
            estimate: Estimate::Mean,
            util_interval: 5.0,
            locality: None,
            eirene: EireneParams::default(),
            node_slots: Vec::new(),
            order: eagle_core::adaptive::fsp::Order::default(),
        }
    }

    /// The engine configuration: `Config::for_system` with our overrides.
    pub fn engine_config(&self) -> Config {
        let mut c = Config::for_system(self.system);
        c.cutoff = self.cutoff;
        c.small_partition_pct = self.small_partition_pct;
        c.big_partition_pct = self.big_partition_pct;
        c.heartbeat = self.heartbeat;
        c.locality = self.locality.as_ref().map(|l| l.delay.params());
        c.eirene = self.eirene.clone();
        if self.system == System::EagleAdaptive {
            // The cutoff sets a workload's time scale: observe short demand over ten.
            c.adaptive.window = 10.0 * self.cutoff;
            c.adaptive.idle = 5.0 * self.cutoff;
            c.adaptive.order = self.order;
        }
        c
    }

    /// Whether a job counts as long in the report: `int(mean) > cutoff`.
    pub fn is_long(&self, int_mean: f64) -> bool {
        int_mean > self.cutoff
    }
}

/// Hooks to watch a run (tests check invariants through them). Each is called
/// right after the engine call that produced the output returned, so `engine`
/// shows the state at that moment.
pub trait Observer {
    /// The engine launched task `task` (0-based launch count) of `job` on `node`.
    fn on_launch(&mut self, _engine: &Engine, _now: Time, _node: NodeId, _job: JobId, _task: u32, _start: Time) {}
    /// A task of `job` on `node` ended and the engine was told.
    fn on_task_end(&mut self, _engine: &Engine, _now: Time, _node: NodeId, _job: JobId) {}
    /// The last task of a job ended: `completed` of the trace's jobs are done
    /// (the command line's progress).
    fn on_job_done(&mut self, _now: Time, _completed: usize) {}
    /// Eirene: the engine launched a clone of `task` of `job` on `node`.
    fn on_clone(&mut self, _engine: &Engine, _now: Time, _node: NodeId, _job: JobId, _task: u32) {}
    /// Eirene: a copy of `task` ended (`counted`: it completed the task for its job;
    /// otherwise it was cancelled). Called after [`Observer::on_task_end`].
    fn on_copy_end(&mut self, _engine: &Engine, _now: Time, _node: NodeId, _job: JobId, _task: u32, _counted: bool) {}
}

/// Watches nothing.
pub struct NoObserver;
impl Observer for NoObserver {}

/// What a run produced.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Running time (last task end − submission) of every job, in trace order.
    pub running_times: Vec<f64>,
    /// Jobs the report counts as short / long (by the cutoff).
    pub short: Summary,
    pub long: Summary,
    /// Mean of busy/total slots, sampled every `util_interval` between the first
    /// and the last submission.
    pub utilization: f64,
    pub counters: Counters,
    /// Events processed: arrivals, task ends and engine timers.
    pub events: u64,
    /// Tasks launched.
    pub launches: u64,
    /// Largest number of pending events at once.
    pub peak_queue: usize,
    /// Simulated time of the last task end.
    pub makespan_end: f64,
    /// Wall-clock time of the replay loop alone (no parsing).
    pub sim_seconds: f64,
    /// Locality mode only.
    pub locality: Option<LocalityOutcome>,
    /// Time of the first submission.
    pub first_submit: f64,
    /// Eirene: tasks of short jobs above 1.5× their job's median duration.
    pub straggler_tasks: Option<u64>,
}

/// What locality mode measured.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LocalityOutcome {
    pub local_tasks: u64,
    pub remote_tasks: u64,
    /// Seconds lost to remote reads, summed over tasks.
    pub remote_seconds: f64,
    /// `(time, node-local wait)` of each job when its last task ended: how the
    /// (fixed or adaptive) interval evolved over the run.
    pub intervals: Vec<(f64, f64)>,
}

/// Per-run locality state: every task's block locations.
struct LocalityState<'a> {
    spec: &'a LocalitySpec,
    t0: f64,
    rng: Rng,
    nodes: u32,
    /// `prefs[job][task]`.
    prefs: Vec<Vec<Vec<NodeId>>>,
    out: LocalityOutcome,
}

impl LocalityState<'_> {
    /// Draws `replication` distinct nodes for each task of a new job.
    fn place_blocks(&mut self, tasks: u32) -> Vec<Vec<NodeId>> {
        let r = self.spec.replication.clamp(1, self.nodes) as usize;
        (0..tasks)
            .map(|_| {
                let mut v: Vec<NodeId> = Vec::with_capacity(r);
                while v.len() < r {
                    let n = NodeId(self.rng.below(self.nodes as usize) as u32);
                    if !v.contains(&n) {
                        v.push(n);
                    }
                }
                v
            })
            .collect()
    }
}

/// Replays `trace` under `cfg`.
pub fn run(trace: &Trace, cfg: &SimConfig) -> Result<Outcome, SimError> {
    run_observed(trace, cfg, &mut NoObserver)
}

/// Per-job progress, indexed by trace order (= engine `JobId`).
struct Progress {
    launched: Vec<u32>,
    finished: Vec<u32>,
    running_time: Vec<f64>,
    completed: usize,
}

/// Replays `trace` under `cfg`, reporting launches and task ends to `obs`.
pub fn run_observed<O: Observer>(trace: &Trace, cfg: &SimConfig, obs: &mut O) -> Result<Outcome, SimError> {
    run_with(trace, cfg, cfg.engine_config(), obs)
}

/// Replays `trace` with an explicit engine configuration (experiments with
/// engine knobs the command line does not expose); `cfg` still gives the
/// cluster, seed, estimates and the report cutoff.
pub fn run_with<O: Observer>(
    trace: &Trace,
    cfg: &SimConfig,
    engine_config: Config,
    obs: &mut O,
) -> Result<Outcome, SimError> {
    let started = Instant::now();
    if cfg.nodes == 0 {
        return Err(SimError::NoNodes);
    }
    if cfg.slots == 0 {
        return Err(SimError::NoSlots);
    }
    let n = trace.len();
    let mut book = engine_config.eirene.on().then(|| Copies::new(&engine_config.eirene, n, cfg.seed));
    let mut engine = Engine::new(engine_config, cfg.seed)?;
    let mut est_rng = Rng::new(cfg.seed ^ 0x5EED_E571_A7E5_0001);
    let mut p = Progress { launched: vec![0; n], finished: vec![0; n], running_time: vec![f64::NAN; n], completed: 0 };
    let mut queue = EventQueue::with_capacity(1024);
    let mut out: Vec<Output> = Vec::with_capacity(1024);
    let mut loc = cfg.locality.as_ref().map(|spec| LocalityState {
        spec,
        t0: if n == 0 { 0.0 } else { trace.submit(0) },
        rng: Rng::new(cfg.seed ^ 0x10CA_117E_0000_0003),
        nodes: cfg.nodes,
        prefs: Vec::with_capacity(n),
        out: LocalityOutcome::default(),
    });
    let mut events = 0u64;
    let mut launches = 0u64;
    let mut makespan_end = 0.0f64;

    let (t0, last_submit) = if n == 0 { (0.0, 0.0) } else { (trace.submit(0), trace.submit(n - 1)) };
    for i in 0..cfg.nodes as usize {
        engine.add_node(t0, cfg.node_slots.get(i).copied().unwrap_or(cfg.slots), &mut out);
    }
    engine.start(t0, &mut out);
    let total_slots = engine.total_slots().max(1) as f64;
    let mut util_sum = 0.0;
    let mut util_samples = 0u64;
    let mut next_sample_k = 0u64;
    let sample_at = |k: u64| t0 + k as f64 * cfg.util_interval;
    // Samples at t0, t0 + Δ, … up to the last submission.
    let n_samples = if n == 0 || cfg.util_interval.is_nan() || cfg.util_interval <= 0.0 {
        0
    } else {
        let mut k = ((last_submit - t0) / cfg.util_interval).floor() as u64 + 1;
        while k > 0 && sample_at(k - 1) > last_submit {
            k -= 1;
        }
        while sample_at(k) <= last_submit {
            k += 1;
        }
        k
    };

    let mut next_arrival = 0usize;
    let mut now = t0;
    apply(&mut out, &engine, now, trace, &mut queue, &mut p, &mut launches, next_arrival, obs, &mut loc, &mut book)?;

    while p.completed < n {
        let arrival = next_arrival < n && queue.peek().is_none_or(|e| trace.submit(next_arrival) <= e.at());
        let rank;
        (now, rank) = if arrival {
            (trace.submit(next_arrival), RANK_ARRIVAL)
        } else if let Some(e) = queue.peek() {
            if next_arrival == n && queue.pending_work() == 0 {
                return Err(stalled(n, &p, now));
            }
            (e.at(), e.rank())
        } else {
            return Err(stalled(n, &p, now));
        };
        // A sample at T sees the events before T, and those at T that rank before it.
        while next_sample_k < n_samples && {
            let ts = sample_at(next_sample_k);
            ts < now || (ts == now && rank > RANK_SAMPLE)
        } {
            util_sum += engine.busy_slots() as f64 / total_slots;
            util_samples += 1;
            next_sample_k += 1;
        }
        events += 1;
        if arrival {
            let job = trace.job(next_arrival);
            let mean = job.int_mean();
            let spec = JobSpec { tasks: job.tasks(), estimate: cfg.estimate.draw(mean, &mut est_rng), class: None };
            let id = match loc.as_mut() {
                Some(l) => {
                    let prefs = l.place_blocks(spec.tasks);
                    let id = engine.submit_job_with_locality(now, spec, &prefs, &mut out);
                    l.prefs.push(prefs);
                    id
                }
                None => engine.submit_job(now, spec, &mut out),
            };
            if id.0 as usize != next_arrival {
                return Err(EngineFault::SparseId { id, position: next_arrival }.into());
            }
            next_arrival += 1;
        } else {
            let ev = queue.pop().expect("peeked");
            match ev.kind {
                Kind::TaskEnd { node, job, oh } => {
                    if oh >= 0.0 {
                        // Dynamic Delay Scheduling: the task reports its network overhead.
                        engine.locality_feedback(now, job, oh == 0.0, oh as f64);
                    }
                    engine.task_finished(now, node, job, &mut out);
                    let j = job.0 as usize;
                    p.finished[j] += 1;
                    makespan_end = makespan_end.max(now);
                    let job_done = p.finished[j] == trace.job(j).tasks();
                    if job_done {
                        p.running_time[j] = now - trace.submit(j);
                        p.completed += 1;
                        if let Some(l) = loc.as_mut() {
                            let wait = engine
                                .delay_history(job)
                                .iter()
                                .rev()
                                .find(|s| s.level == eagle_core::locality::delay::Level::NodeLocal)
                                .map_or(0.0, |s| s.interval);
                            l.out.intervals.push((now, wait));
                        }
                    }
                    obs.on_task_end(&engine, now, node, job);
                    if job_done {
                        obs.on_job_done(now, p.completed);
                    }
                }
                Kind::Timer(msg) => engine.deliver(now, msg, &mut out),
                Kind::CopyEnd { node, job, serial } => {
                    let b = book.as_mut().ok_or(EngineFault::WithoutEirene("a copy ended"))?;
                    let (task, counted) = match b.end(serial) {
                        End::Stale => continue, // its copy was cancelled and already ended
                        End::Killed { task } => (task, false),
                        End::Natural { task, first: true } => (task, true),
                        End::Natural { task, first: false } => {
                            return Err(EngineFault::CompletedTwice { job, task }.into());
                        }
                    };
                    engine.copy_finished(now, node, job, task, &mut out);
                    let j = job.0 as usize;
                    let job_done = counted && {
                        p.finished[j] += 1;
                        makespan_end = makespan_end.max(now);
                        p.finished[j] == trace.job(j).tasks()
                    };
                    if job_done {
                        p.running_time[j] = now - trace.submit(j);
                        p.completed += 1;
                    }
                    obs.on_task_end(&engine, now, node, job);
                    obs.on_copy_end(&engine, now, node, job, task, counted);
                    if job_done {
                        obs.on_job_done(now, p.completed);
                    }
                }
            }
        }
        apply(
            &mut out,
            &engine,
            now,
            trace,
            &mut queue,
            &mut p,
            &mut launches,
            next_arrival,
            obs,
            &mut loc,
            &mut book,
        )?;
    }
    while next_sample_k < n_samples {
        util_sum += engine.busy_slots() as f64 / total_slots;
        util_samples += 1;
        next_sample_k += 1;
    }

    let (mut short, mut long) = (Vec::new(), Vec::new());
    for (i, &rt) in p.running_times().iter().enumerate() {
        if cfg.is_long(trace.job(i).int_mean()) {
            long.push(rt);
        } else {
            short.push(rt);
        }
    }
    Ok(Outcome {
        short: Summary::of(&mut short),
        long: Summary::of(&mut long),
        running_times: p.running_time,
        utilization: if util_samples == 0 { 0.0 } else { util_sum / util_samples as f64 },
        counters: engine.counters().clone(),
        events,
        launches,
        peak_queue: queue.peak_len(),
        makespan_end,
        sim_seconds: started.elapsed().as_secs_f64(),
        locality: loc.map(|l| l.out),
        first_submit: t0,
        straggler_tasks: book
            .as_ref()
            .map(|_| crate::eirene::straggler_tasks(trace, |j| !cfg.is_long(trace.job(j).int_mean()))),
    })
}

impl Progress {
    fn running_times(&self) -> &[f64] {
        &self.running_time
    }
}

fn stalled(n: usize, p: &Progress, now: Time) -> SimError {
    let missing: Vec<usize> = (0..n).filter(|&j| p.running_time[j].is_nan()).take(5).collect();
    SimError::Stalled { now, left: n - p.completed, jobs: n, missing }
}

/// Carries out the engine's decisions in order: a launch schedules the task's
/// end, a timer is queued.
#[allow(clippy::too_many_arguments)]
#[inline]
fn apply<O: Observer>(
    out: &mut Vec<Output>,
    engine: &Engine,
    now: Time,
    trace: &Trace,
    queue: &mut EventQueue,
    p: &mut Progress,
    launches: &mut u64,
    submitted: usize,
    obs: &mut O,
    loc: &mut Option<LocalityState>,
    book: &mut Option<Copies>,
) -> Result<(), EngineFault> {
    for o in out.drain(..) {
        match o {
            Output::Launch { node, job, task, start } if book.is_some() => {
                let j = job.0 as usize;
                if j >= submitted {
                    return Err(EngineFault::UnknownJob(job));
                }
                if start.is_nan() || start < now {
                    return Err(EngineFault::LaunchedInPast { job, task, start, now });
                }
                let (serial, d) = book.as_mut().expect("guarded").launch(trace, node, job, task, false)?;
                p.launched[j] += 1;
                *launches += 1;
                queue.push(start + d, Kind::CopyEnd { node, job, serial });
                obs.on_launch(engine, now, node, job, task, start);
            }
            Output::Clone { node, job, task, start } => {
                let b = book.as_mut().ok_or(EngineFault::WithoutEirene("engine cloned a task"))?;
                if start.is_nan() || start < now {
                    return Err(EngineFault::ClonedInPast { job, task, start, now });
                }
                let (serial, d) = b.launch(trace, node, job, task, true)?;
                queue.push(start + d, Kind::CopyEnd { node, job, serial });
                obs.on_clone(engine, now, node, job, task);
            }
            Output::Cancel { node, job, task } => {
                let b = book.as_mut().ok_or(EngineFault::WithoutEirene("engine cancelled a task"))?;
                let serial = b.cancel(node, job, task)?;
                queue.push(now, Kind::CopyEnd { node, job, serial });
            }
            Output::InputMigrated { node, job, task } => {
                book.as_mut()
                    .ok_or(EngineFault::WithoutEirene("engine reported migrated input"))?
                    .input_migrated(node, job, task);
            }
            Output::Launch { node, job, task, start } => {
                let j = job.0 as usize;
                if j >= submitted {
                    return Err(EngineFault::UnknownJob(job));
                }
                let d = trace.duration(j, task as usize).ok_or_else(|| EngineFault::NoSuchTask {
                    job,
                    task,
                    tasks: trace.job(j).tasks(),
                })?;
                p.launched[j] += 1;
                if start.is_nan() || start < now {
                    return Err(EngineFault::LaunchedInPast { job, task, start, now });
                }
                *launches += 1;
                // Locality mode: a task away from its block pays the remote-read penalty.
                let oh = match loc.as_mut() {
                    Some(l) => {
                        let local = l.prefs[j].get(task as usize).is_some_and(|v| v.contains(&node));
                        let oh = if local { 0.0 } else { l.spec.penalty_at(start, l.t0) };
                        if local {
                            l.out.local_tasks += 1;
                        } else {
                            l.out.remote_tasks += 1;
                            l.out.remote_seconds += oh;
                        }
                        oh
                    }
                    None => -1.0,
                };
                queue.push(start + d as f64 + oh.max(0.0), Kind::TaskEnd { node, job, oh: oh as f32 });
                obs.on_launch(engine, now, node, job, task, start);
            }
            Output::Timer { at, msg } => {
                if at.is_nan() || at < now {
                    return Err(EngineFault::TimerInPast { at, now, msg: format!("{msg:?}") });
                }
                queue.push(at, Kind::Timer(msg));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates() {
        assert_eq!("mean".parse::<Estimate>(), Ok(Estimate::Mean));
        assert_eq!("under:0.3".parse::<Estimate>(), Ok(Estimate::Under(0.3)));
        assert_eq!("over:1.3".parse::<Estimate>(), Ok(Estimate::Over(1.3)));
        assert!("under:1.3".parse::<Estimate>().is_err());
        assert!("over:0.5".parse::<Estimate>().is_err());
        assert!("median".parse::<Estimate>().is_err());
        let mut rng = Rng::new(3);
        for _ in 0..1000 {
            let u = Estimate::Under(0.3).draw(100.0, &mut rng);
            assert!((30.0..=100.0).contains(&u) && u == u.trunc());
            let o = Estimate::Over(1.3).draw(100.0, &mut rng);
            assert!((100.0..=130.0).contains(&o) && o == o.trunc());
        }
        assert_eq!(Estimate::Mean.draw(42.0, &mut rng), 42.0);
    }

    #[test]
    fn family_defaults() {
        let c = SimConfig::for_family(System::Sparrow, 10, Family::Google);
        assert_eq!((c.cutoff, c.small_partition_pct, c.big_partition_pct, c.heartbeat), (1129.532, 100.0, 100.0, 3.0));
        let c = SimConfig::for_family(System::Eagle, 10, Family::Yahoo);
        assert_eq!((c.cutoff, c.big_partition_pct, c.heartbeat), (90.5811, 98.0, 8.0));
        assert!(c.is_long(91.0) && !c.is_long(90.0));
    }
}
