//! The Spark-facing façade: Eagle in driver mode (exact state, no network delay),
//! plus job classification and duration estimates (hint → history → running mean
//! → default, see [`crate::estimate`]; how the driver keeps them current is in
//! [`estimates`]). The JNI bridge wraps this 1:1.
//!
//! Inside one Spark driver the engine sees the whole cluster, so the long-work
//! bitvector, the queues and the remaining work are exact: this is the paper's
//! IdealEagle point (§6.4). A probe is a reservation of a task set in an
//! executor's queue; Sticky Batch Probing serves that task set on the executor
//! for as long as SRPT picks it and it has tasks left.
use crate::adaptive::cutoff::CutoffLearner;
use crate::config::{Config, System};
use crate::engine::{Counters, Engine, JobSpec};
use crate::error::{Bound, ConfigError};
pub use crate::estimate::EstimateSource;
use crate::estimate::{self, History, RunningMean, TypicalTask};
use crate::locality::delay::{DelayParams, LearnedIntervals, Level, Sample, StageDelay};

mod estimates;
mod grants;
mod sessions;
use crate::adaptive::preempt::Attempt;
use crate::adaptive::reservation::AdaptiveParams;
use crate::adaptive::warmup::WarmupCost;
use crate::types::*;
use estimates::Meta;
use std::collections::{HashMap, VecDeque};

/// The cutoff the paper policy uses when none is configured (seconds).
pub const PAPER_DEFAULT_CUTOFF: f64 = 10.0;

/// One point of the adaptive state over time (summary JSON, bench report).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct AdaptivePoint {
    pub at: Time,
    /// Slots reserved for short work.
    pub reservation: u32,
    /// The short/long cutoff in force (seconds); `None` while no split is known.
    pub cutoff: Option<f64>,
}

/// What the driver is doing now (metrics, the Spark UI tab): read-only, O(live jobs).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DriverStatus {
    /// Slots reserved for short work (adaptive; `None` under the paper policy or before the
    /// first decision).
    pub reservation: Option<u32>,
    /// The short/long cutoff in force (seconds); `None` while no split is known.
    pub cutoff: Option<f64>,
    /// Slots taken (planned or running) and all slots, across live nodes.
    pub busy_slots: u64,
    pub total_slots: u64,
    /// Live jobs (submitted, not removed) by the class they are scheduled as now.
    pub short_jobs: u32,
    pub long_jobs: u32,
    /// Dynamic Delay Scheduling, per adapting level (process, node, rack): the mean and the
    /// largest current interval (seconds) over the live jobs; `None` without delay
    /// scheduling or without a live job.
    pub delay_mean: [Option<f64>; 3],
    pub delay_max: [Option<f64>; 3],
    /// The application's learned intervals per adapting level (seconds; where a new stage
    /// starts with `inherit`); `None` without delay scheduling.
    pub delay_learned: Option<[f64; 3]>,
    /// Measured cost of a task set's first task on an executor (seconds; see
    /// [`crate::adaptive::warmup`]); 0 until measured.
    pub warmup: f64,
}

/// The levels whose wait adapts, in the order of [`DriverStatus`]'s delay arrays.
pub const STATUS_LEVELS: [Level; 3] = [Level::ProcessLocal, Level::NodeLocal, Level::RackLocal];

/// How many [`AdaptivePoint`]s the driver keeps (the oldest are dropped).
pub const ADAPTIVE_HISTORY_CAP: usize = 2048;

/// Upper bound of [`DriverConfig::min_probes`]: probes are allocated per task set, so an
/// unbounded K is an unbounded allocation (the plugin's `minProbes`).
pub const MAX_MIN_PROBES: u32 = 10_000;
/// Upper bound of [`DriverConfig::probe_ratio`] (the plugin's `probeRatio`).
pub const MAX_PROBE_RATIO: u32 = 100;

/// How the driver was configured (from `spark.scheduler.eagle.*`).
#[derive(Clone, Debug, PartialEq)]
pub struct DriverConfig {
    /// Which policy the driver runs (`spark.scheduler.eagle.policy`): one of
    /// [`System::DRIVER`], eagle-adaptive by default.
    pub policy: System,
    /// Tasks whose estimated duration exceeds this (seconds) are long. `None`: learned
    /// from the application's task durations (adaptive; the paper policy uses
    /// [`PAPER_DEFAULT_CUTOFF`]).
    pub cutoff: Option<f64>,
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
    /// eagle-adaptive: reservation and starvation knobs.
    pub adaptive: AdaptiveParams,
}

impl Default for DriverConfig {
    fn default() -> Self {
        DriverConfig {
            policy: System::EagleAdaptive,
            cutoff: None,
            short_partition: 0.1,
            min_probes: 20,
            probe_ratio: 2,
            starvation_factor: 5.0,
            default_class: Class::Short,
            default_estimate: 1.0,
            adaptive: AdaptiveParams { window: 60.0, idle: 30.0, ..AdaptiveParams::default() },
        }
    }
}

impl DriverConfig {
    /// Rejects out-of-range values, naming the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = ConfigError::out_of_range;
        self.policy.require("the Spark driver", &System::DRIVER)?;
        if let Some(c) = self.cutoff {
            if !(c > 0.0 && c.is_finite()) {
                return Err(bad("cutoff", c, Bound::PositiveSeconds));
            }
        }
        self.adaptive.validate()?;
        if !(0.0..1.0).contains(&self.short_partition) {
            return Err(bad("short_partition", self.short_partition, Bound::WithinHalfOpen(0.0, 1.0)));
        }
        if !(1..=MAX_MIN_PROBES).contains(&self.min_probes) {
            return Err(bad("min_probes", self.min_probes.into(), Bound::Within(1.0, MAX_MIN_PROBES.into())));
        }
        if !(1..=MAX_PROBE_RATIO).contains(&self.probe_ratio) {
            return Err(bad("probe_ratio", self.probe_ratio.into(), Bound::Within(1.0, MAX_PROBE_RATIO.into())));
        }
        if !(self.starvation_factor >= 0.0 && self.starvation_factor.is_finite()) {
            return Err(bad("starvation_factor", self.starvation_factor, Bound::NonNegative));
        }
        if !(self.default_estimate >= 0.0 && self.default_estimate.is_finite()) {
            return Err(bad("default_estimate", self.default_estimate, Bound::NonNegative));
        }
        Ok(())
    }
}

pub struct Driver {
    cfg: DriverConfig,
    engine: Engine,
    history: History,
    meta: HashMap<u32, Meta>,
    out: Vec<Output>,
    delay: Option<DelayParams>,
    /// The application's learned intervals (Algorithm 1's global interval).
    learned: Option<LearnedIntervals>,
    /// eagle-adaptive without an explicit cutoff: the learned split.
    split: CutoffLearner,
    points: VecDeque<AdaptivePoint>,
    /// Warm executors: the measured warm-up (adaptive).
    warmup: WarmupCost,
    /// The typical ended task set's mean (adaptive): the estimate of a task set nothing is
    /// known about.
    typical: TypicalTask,
    /// The typical ended *long* task set's warm mean (adaptive): the estimate of a task set
    /// hinted long that nothing else is known about, when the default class is short.
    typical_long: TypicalTask,
    /// Each tenant's last measured task sets (adaptive): a long session's guess.
    sessions: sessions::Sessions,
    /// Eirene SATC for the host (see [`crate::eirene::clone_gate`]); `None` while off.
    satc: Option<crate::eirene::clone_gate::CloneGate>,
    /// Eirene CCDM for the host (see [`crate::eirene::prefetch`]); `None` while off.
    ccdm: Option<crate::eirene::prefetch::Prefetch>,
    seed: u64,
}

impl Driver {
    pub fn new(cfg: DriverConfig, seed: u64) -> Result<Driver, ConfigError> {
        cfg.validate()?;
        let mut ec = match cfg.policy {
            // (validated: System::DRIVER only, the paper's Eagle otherwise)
            System::EagleAdaptive => {
                let mut c = Config::for_system(System::EagleAdaptive);
                // The driver classifies every job itself (explicit or learned cutoff).
                c.cutoff = cfg.cutoff.unwrap_or(f64::INFINITY);
                c.network_delay = 0.0;
                c.driver = true;
                c.adaptive = cfg.adaptive.clone();
                c
            }
            _ => Config::driver(cfg.cutoff.unwrap_or(PAPER_DEFAULT_CUTOFF), cfg.short_partition),
        };
        ec.min_probes = cfg.min_probes;
        ec.probe_ratio = cfg.probe_ratio;
        ec.starvation_factor = cfg.starvation_factor;
        let engine = Engine::new(ec, seed)?;
        Ok(Driver {
            cfg,
            engine,
            history: History::default(),
            meta: HashMap::new(),
            out: Vec::new(),
            delay: None,
            learned: None,
            split: CutoffLearner::default(),
            points: VecDeque::new(),
            warmup: WarmupCost::default(),
            typical: TypicalTask::default(),
            typical_long: TypicalTask::default(),
            sessions: sessions::Sessions::default(),
            satc: None,
            ccdm: None,
            seed,
        })
    }

    /// How the driver was configured.
    pub fn config(&self) -> &DriverConfig {
        &self.cfg
    }

    /// The cutoff in force (seconds): the configured one, the paper default, or the
    /// learned split (`None` while the application shows one class only).
    pub fn cutoff(&self) -> Option<f64> {
        match (self.cfg.cutoff, self.cfg.policy) {
            (Some(c), _) => Some(c),
            (None, System::EagleAdaptive) => self.split.cutoff(),
            (None, _) => Some(PAPER_DEFAULT_CUTOFF),
        }
    }

    /// Slots reserved for short work (adaptive), as of the last decision.
    pub fn reservation(&self) -> Option<u32> {
        self.engine.reservation()
    }

    /// The adaptive state over time: a point whenever the reservation or the cutoff
    /// changed (at most one per second, the last [`ADAPTIVE_HISTORY_CAP`]).
    pub fn adaptive_history(&self) -> Vec<AdaptivePoint> {
        self.points.iter().copied().collect()
    }

    fn record_point(&mut self, now: Time) {
        let Some(reservation) = self.engine.reservation() else { return };
        let p = AdaptivePoint { at: now, reservation, cutoff: self.cutoff() };
        if let Some(last) = self.points.back() {
            if last.reservation == p.reservation && last.cutoff == p.cutoff {
                return;
            }
            if now - last.at < 1.0 && last.cutoff == p.cutoff {
                let _ = self.points.pop_back();
            }
        }
        if self.points.len() == ADAPTIVE_HISTORY_CAP {
            self.points.pop_front();
        }
        self.points.push_back(p);
    }

    /// Turns on Dynamic Delay Scheduling (see [`crate::locality::delay`]) for task sets submitted
    /// from now on; the plugin then asks [`Driver::allowed_locality`] instead of using
    /// Spark's fixed `spark.locality.wait*`.
    pub fn enable_delay(&mut self, params: DelayParams) -> Result<(), ConfigError> {
        params.validate()?;
        self.learned = Some(LearnedIntervals::new(&params));
        self.delay = Some(params);
        Ok(())
    }

    /// Turns on Eirene's Scheduler-Aware Task Cloning (§III-C) for the host: see
    /// Turns on Eirene's Coordinated Cold Data Migration for the host: `cm` migrations per
    /// executor at once, `mpp` per probe (see [`crate::eirene::prefetch`]).
    pub fn enable_ccdm(&mut self, cm: u32, mpp: u32) -> Result<(), ConfigError> {
        if self.ccdm.is_none() {
            self.ccdm = Some(crate::eirene::prefetch::Prefetch::new(cm, mpp, self.seed ^ 0xCCD4)?);
        }
        Ok(())
    }

    /// The CCDM planner while on. A task set takes part only while the engine holds it
    /// short (Eirene targets short-job latency, §III-A): see [`Driver::ccdm_register`].
    pub fn ccdm(&mut self) -> Option<&mut crate::eirene::prefetch::Prefetch> {
        self.ccdm.as_mut()
    }

    /// Registers `job`'s tasks with an input to migrate (each with the node holding it, if
    /// known), if CCDM is on and the job is short. Returns whether it was registered.
    pub fn ccdm_register(&mut self, job: JobId, cold: &[(u32, Option<NodeId>)]) -> bool {
        let short = self.job_class(job) == Some(Class::Short);
        match self.ccdm.as_mut() {
            Some(p) if short && !cold.is_empty() => {
                p.register(job, cold);
                true
            }
            _ => false,
        }
    }

    /// [`Driver::satc_clone`].
    pub fn enable_satc(&mut self) {
        self.satc.get_or_insert_with(Default::default);
    }

    /// SATC: the task of `job` the host should clone now through its speculative-copy
    /// path, if any (`waiting` tasks with no copy, `idle` slots nothing waits for, `running`
    /// the single-copy tasks, earliest started first). `None` while SATC is off.
    pub fn satc_clone(&mut self, job: JobId, waiting: u32, idle: u32, running: &[u32]) -> Option<u32> {
        let class = self.engine.job(job).map(|j| j.class);
        self.satc.as_mut()?.pick(job, class, waiting, idle, running)
    }

    /// Preemption (`preempt.afterMs`, off by default): [`Engine::preempt`].
    pub fn preempt(&mut self, now: Time, attempts: &[Attempt], killing: u32) -> Option<usize> {
        self.engine.preempt(now, attempts, killing)
    }

    /// Clones SATC decided so far (0 while off).
    pub fn satc_decided(&self) -> u64 {
        self.satc.as_ref().map_or(0, |g| g.decided)
    }

    /// The least local level `job` may launch at now. `valid` are the task set's locality
    /// levels, most local first; `pending[i]` whether tasks still wait at `valid[i]`.
    /// Without delay scheduling enabled, every level is allowed.
    pub fn allowed_locality(&mut self, now: Time, job: JobId, valid: &[Level], pending: &[bool]) -> Level {
        let (Some(params), Some(m)) = (self.delay.as_ref(), self.meta.get_mut(&job.0)) else { return Level::Any };
        let Some(d) = m.delay.as_mut() else { return Level::Any };
        d.allowed(now, params, valid, |l| {
            valid.iter().position(|v| *v == l).is_none_or(|i| pending.get(i).copied().unwrap_or(true))
        })
    }

    /// `job` launched a task at `level`: its locality timer resets.
    pub fn launched_at(&mut self, now: Time, job: JobId, level: Level, valid: &[Level]) {
        if let Some(d) = self.meta.get_mut(&job.0).and_then(|m| m.delay.as_mut()) {
            d.launched(now, level, valid);
        }
    }

    /// A task of `job` preferred `preferred`, ran at `actual` and lost `net_oh` seconds
    /// to non-locality.
    pub fn locality_feedback(&mut self, now: Time, job: JobId, preferred: Level, actual: Level, net_oh: f64) {
        let Some(params) = self.delay.as_ref() else { return };
        if let Some(d) = self.meta.get_mut(&job.0).and_then(|m| m.delay.as_mut()) {
            d.task_ended(now, params, preferred, actual, net_oh);
        }
        if let Some(l) = self.learned.as_mut() {
            l.task_ended(params, preferred, actual, net_oh);
        }
    }

    /// The job's interval time series (empty without delay scheduling).
    pub fn delay_history(&self, job: JobId) -> Vec<Sample> {
        self.meta.get(&job.0).and_then(|m| m.delay.as_ref()).map(|d| d.history().to_vec()).unwrap_or_default()
    }

    /// A new executor with `slots` task slots (cores / spark.task.cpus).
    pub fn add_node(&mut self, now: Time, slots: u32) -> NodeId {
        self.out.clear();
        self.engine.add_node(now, slots, &mut self.out)
    }

    pub fn remove_node(&mut self, now: Time, node: NodeId) {
        self.out.clear();
        self.engine.remove_node(now, node, &mut self.out);
        self.warmup.node_removed(node.0);
        if let Some(p) = self.ccdm.as_mut() {
            p.remove_node(node);
        }
    }

    /// A task set was submitted. `hint_class`/`hint_estimate` come from the local
    /// properties `spark.scheduler.eagle.job.class` / `...estimatedTaskMs`; `signature`
    /// is a stable hash of the stage (used for the history). Returns the job id.
    ///
    /// Job ids are recycled once a removed job has no task running and no entry queued,
    /// so a host must not use an id after [`Driver::remove_job`] plus the end of its tasks
    /// (the plugin keys its own state by task set, not by id).
    pub fn submit(
        &mut self,
        now: Time,
        tasks: u32,
        hint_class: Option<Class>,
        hint_estimate: Option<f64>,
        signature: u64,
    ) -> JobId {
        self.submit_in(now, tasks, hint_class, hint_estimate, signature, None)
    }

    /// Like [`Driver::submit`], for a task set of `group` (the Spark job, or the SQL
    /// execution it belongs to): SRPT then ranks it by the group's remaining work.
    pub fn submit_in(
        &mut self,
        now: Time,
        tasks: u32,
        hint_class: Option<Class>,
        hint_estimate: Option<f64>,
        signature: u64,
        group: Option<u64>,
    ) -> JobId {
        let history = self.history.lookup(signature);
        if let Some(e) = hint_estimate.or(history) {
            self.learn(now, e);
        }
        let cutoff = self.cutoff();
        let (class, est, source, forced) = estimate::initial(
            hint_class,
            hint_estimate,
            history,
            self.cfg.default_class,
            self.default_estimate_for(hint_class),
            cutoff.unwrap_or(f64::INFINITY),
        );
        let unsettled = !forced && (cutoff.is_none() || source == EstimateSource::Default);
        self.out.clear();
        let id = self.engine.submit_job(now, JobSpec { tasks, estimate: est, class: Some(class) }, &mut self.out);
        if let Some(g) = group {
            self.engine.set_group(id, g);
        }
        if source == EstimateSource::Default {
            self.engine.set_guessed(id, true);
        }
        let delay = match (self.delay.as_ref(), self.learned.as_ref()) {
            (Some(p), Some(l)) => Some(StageDelay::starting_at(now, p, l.start_for_new_stage(p))),
            (Some(p), None) => Some(StageDelay::new(now, p)),
            _ => None,
        };
        self.meta.insert(
            id.0,
            Meta {
                signature,
                source,
                class_forced: forced,
                observed: RunningMean::default(),
                delay,
                unsettled,
                cold_class: false,
                demoted: false,
                submitted: est,
                hint_class,
                started_cold: Vec::new(),
                tenant: None,
                at: now,
            },
        );
        id
    }

    /// Query-aware SRPT: the group's stages not submitted yet, as `(signature, tasks)`;
    /// their work is estimated from the history (else the default estimate).
    pub fn set_group_future(&mut self, group: u64, stages: &[(u64, u32)]) {
        let work: f64 = stages
            .iter()
            .map(|&(sig, tasks)| tasks as f64 * self.history.get(sig).unwrap_or(self.default_estimate()))
            .sum();
        self.engine.set_group_future(group, work);
    }

    /// The task set runs for `tenant` (a Connect session, or a `spark.scheduler.pool`), given
    /// `share` (see [`crate::tenant`]). Call right after the submission: a task set of
    /// unknown size then takes its session's guess ([`Driver::session_guess`]).
    pub fn set_tenant(&mut self, job: JobId, tenant: u64, share: crate::tenant::Share) {
        self.engine.set_tenant(job, tenant, share);
        if let Some(m) = self.meta.get_mut(&job.0) {
            m.tenant = Some(tenant);
        }
        self.session_guess(job);
    }

    /// Spark's truth about how many tasks of the job wait to launch.
    pub fn set_pending(&mut self, now: Time, job: JobId, pending: u32) {
        self.out.clear();
        self.engine.set_pending(now, job, pending, &mut self.out);
    }

    /// Spark's truth about the job's launchable work: `waiting` tasks with no running copy,
    /// plus `speculatable` running tasks Spark wants a speculative copy of. Both are
    /// launches a plan may give a slot to, so the engine's pending count is their sum (a
    /// copy is planned like any task of its job; Spark picks the task and refuses the
    /// host of the running attempt, which the host reports with [`Driver::decline`]).
    pub fn set_pending_tasks(&mut self, now: Time, job: JobId, waiting: u32, speculatable: u32) {
        self.set_pending(now, job, waiting.saturating_add(speculatable));
    }

    /// Spark lets `job` run only on `usable` nodes (executors excluded for it, or of an
    /// incompatible resource profile, are left out); `None`: on every node. Eagle never
    /// plans a long job on the short-only partition, so a long job whose usable nodes are
    /// all short-only would wait forever: it is scheduled as short (it can run nowhere
    /// else) until a general node is usable again, then gets its class back. The host still
    /// passes the nodes a job cannot use in each offer's `exclude`.
    pub fn restrict(&mut self, now: Time, job: JobId, usable: Option<&[NodeId]>) {
        let stranded = usable.is_some_and(|u| {
            !u.is_empty() && u.iter().all(|&n| self.engine.node(n).is_some_and(|v| !v.live || v.short_only))
        });
        let Some(m) = self.meta.get_mut(&job.0) else { return };
        let Some(j) = self.engine.job(job) else { return };
        let class = if stranded && j.class.is_long() {
            m.demoted = true;
            Class::Short
        } else if !stranded && m.demoted {
            m.demoted = false;
            if m.class_forced {
                Class::Long
            } else {
                Class::from_estimate(j.estimate, self.cutoff().unwrap_or(f64::INFINITY))
            }
        } else {
            return;
        };
        self.out.clear();
        self.engine.set_estimate(now, job, j.estimate, Some(class), &mut self.out);
    }

    /// Slots the engine counts taken (planned or running) across live nodes.
    pub fn busy_slots(&self) -> u64 {
        self.engine.busy_slots()
    }

    /// `free` slots are free on `node`: which jobs get them, in order (one entry per launch).
    pub fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId]) -> Vec<JobId> {
        let mut jobs = Vec::new();
        self.offer_into(now, node, free, exclude, &mut jobs);
        jobs
    }

    /// Like [`Driver::offer`], appending to a caller-owned buffer (no allocation).
    pub fn offer_into(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId], jobs: &mut Vec<JobId>) {
        self.out.clear();
        self.engine.offer(now, node, free, exclude, &mut self.out);
        self.record_point(now);
        let start = jobs.len();
        jobs.extend(self.out.iter().filter_map(|o| match o {
            Output::Launch { job, .. } => Some(*job),
            _ => None,
        }));
        for &job in &jobs[start..] {
            if self.tracks_warmup(job) {
                self.warmup.task_launched(job.0, node.0);
            }
        }
    }

    /// Spark could not launch the task of `job` planned for `node`.
    pub fn decline(&mut self, now: Time, node: NodeId, job: JobId) {
        self.engine.decline(now, node, job);
        if self.tracks_warmup(job) {
            self.warmup.launch_declined(job.0, node.0);
        }
    }

    /// `job`'s tasks read input held by `nodes`, one entry per task (cached blocks on an
    /// executor, or a host's executors for a host-level preference). Under the adaptive
    /// policy a free slot of such a node is worth the job whatever its warm-up (see
    /// [`crate::adaptive::warmup`], "Data locality"), for as many launches there as entries.
    pub fn set_input_nodes(&mut self, job: JobId, nodes: &[NodeId]) {
        if self.meta.contains_key(&job.0) {
            self.engine.set_input_nodes(job, nodes);
        }
    }

    /// Warm executors: the adaptive policy measures the warm-up from the tasks of the task
    /// sets it knows.
    fn tracks_warmup(&self, job: JobId) -> bool {
        self.cfg.policy == System::EagleAdaptive && self.meta.contains_key(&job.0)
    }

    /// A task ended on `node`; `duration` is Some(seconds) when it succeeded.
    pub fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, duration: Option<f64>) {
        self.out.clear();
        self.engine.task_finished(now, node, job, &mut self.out);
        if self.tracks_warmup(job) {
            self.warmup.task_ended(job.0, node.0, duration);
        }
        self.learn_from_task(now, job, duration);
    }

    /// Cluster mode: a task of `job` ended on executor `node`, in a slot that the
    /// hosts' `eagle-node` daemons own, so the engine placed nothing and frees nothing. Only
    /// what the task teaches is kept: the job's running mean and class, the learned cutoff,
    /// the history, and the warm-up ([`Driver::worth_grant`]).
    pub fn task_observed(&mut self, now: Time, node: NodeId, job: JobId, duration: Option<f64>) {
        self.out.clear();
        if self.tracks_warmup(job) {
            self.warmup.task_ended(job.0, node.0, duration);
        }
        self.learn_from_task(now, job, duration);
    }

    /// The task set is gone; its mean (adaptive: the warm mean) goes into the history under its signature.
    pub fn remove_job(&mut self, now: Time, job: JobId) {
        let warm = self.warmup.warm_mean(job.0);
        self.typical_ended(now, job);
        self.engine.remove_job(now, job);
        if self.warmup.job_removed(job.0) {
            self.engine.set_warmup(self.warmup.cost());
        }
        if let Some(g) = self.satc.as_mut() {
            g.forget(job);
        }
        // The host evicts through `ccdm().forget` first; this only keeps a recycled id clean.
        if let Some(p) = self.ccdm.as_mut() {
            p.forget(job);
        }
        if let Some(m) = self.meta.remove(&job.0) {
            if let Some(mean) = warm.or(m.observed.mean()) {
                self.history.record(m.signature, mean, m.observed.count);
                // A task set with a hint or history already voted at submission.
                if matches!(m.source, EstimateSource::Default | EstimateSource::RunningMean) {
                    self.learn(now, mean);
                }
            }
        }
    }

    pub fn job_class(&self, job: JobId) -> Option<Class> {
        self.engine.job(job).map(|j| j.class)
    }

    pub fn job_estimate(&self, job: JobId) -> Option<(f64, EstimateSource)> {
        let j = self.engine.job(job)?;
        Some((j.estimate, self.meta.get(&job.0)?.source))
    }

    pub fn counters(&self) -> &Counters {
        self.engine.counters()
    }

    /// The measured cost of a task set's first task on an executor (seconds; 0 until a
    /// task set has ended with first and later tasks on some executor).
    pub fn warmup_cost(&self) -> f64 {
        self.warmup.cost()
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// History of past stage runs: `(signature, mean seconds, samples)`.
    pub fn history(&self) -> Vec<(u64, f64, u64)> {
        self.history.entries()
    }

    /// Folds `entries` into the history; invalid ones (non-finite, negative or above
    /// [`estimate::MAX_HISTORY_MEAN`], no samples) are skipped.
    pub fn load_history(&mut self, entries: &[(u64, f64, u64)]) {
        self.history.load(entries);
        for &(_, mean, _) in entries {
            self.learn(0.0, mean);
        }
    }

    /// What the driver is doing now (see [`DriverStatus`]). Read-only.
    pub fn status(&self) -> DriverStatus {
        let mut st = DriverStatus {
            reservation: self.engine.reservation(),
            cutoff: self.cutoff(),
            busy_slots: self.engine.busy_slots(),
            total_slots: self.engine.total_slots(),
            warmup: self.warmup.cost(),
            ..DriverStatus::default()
        };
        let mut sum = [0.0f64; 3];
        let mut max = [f64::NEG_INFINITY; 3];
        let mut with_delay = 0u32;
        for (&id, m) in &self.meta {
            match self.engine.job(JobId(id)).map(|j| j.class) {
                Some(Class::Long) => st.long_jobs += 1,
                Some(Class::Short) => st.short_jobs += 1,
                None => {}
            }
            if let Some(d) = m.delay.as_ref() {
                with_delay += 1;
                for (i, &l) in STATUS_LEVELS.iter().enumerate() {
                    sum[i] += d.interval(l);
                    max[i] = max[i].max(d.interval(l));
                }
            }
        }
        if with_delay > 0 {
            for i in 0..3 {
                st.delay_mean[i] = Some(sum[i] / with_delay as f64);
                st.delay_max[i] = Some(max[i]);
            }
        }
        st.delay_learned = self.learned.as_ref().map(|l| STATUS_LEVELS.map(|lv| l.current()[lv as usize]));
        st
    }

    /// Bounds the history to `n` signatures (least recently used evicted first).
    pub fn set_history_max_entries(&mut self, n: usize) {
        self.history.set_max_entries(n);
    }
}
