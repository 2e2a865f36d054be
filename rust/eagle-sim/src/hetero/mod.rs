//! Heterogeneous mode (the LoTES paper's setting): machine configurations with
//! several resources, jobs with resource demands, and resource-aware placers.
//!
//! - [`files`]: the machines, classes and demands files (errors name file:line);
//! - [`demands`]: `gen --classes`, per-job demands from class statistics;
//! - [`run`]: the replay under a placer (`lotes`, `greedy`, `tetris`, all in
//!   `eagle-core`) or under an engine system, resource-blind, one slot per core;
//! - this module: the `run --machines` flags, the command and its report.

pub mod demands;
pub mod files;
pub mod run;

use crate::error::{SimError, ValueError};
use crate::progress::{Mode, Progress};
use crate::sim::SimConfig;
use crate::stats::Summary;
use crate::trace::{Family, Trace};
use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use eagle_core::hetero::greedy::Greedy;
use eagle_core::hetero::lotes::{Lotes, LotesParams, Sample};
use eagle_core::hetero::tetris::Tetris;
use eagle_core::System;
use files::{Demands, Machines};
use serde::Serialize;
use std::fmt::Write as _;
use std::time::Instant;

/// `run --system`: an engine system, or a resource-aware placer (needs `--machines`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SimSystem {
    Engine(System),
    Lotes,
    Greedy,
    Tetris,
}

impl SimSystem {
    pub const PLACERS: [&'static str; 3] = ["lotes", "greedy", "tetris"];
    pub fn name(self) -> &'static str {
        match self {
            SimSystem::Engine(s) => s.name(),
            SimSystem::Lotes => "lotes",
            SimSystem::Greedy => "greedy",
            SimSystem::Tetris => "tetris",
        }
    }
    /// The engine system, if it is one.
    pub fn engine(self) -> Option<System> {
        match self {
            SimSystem::Engine(s) => Some(s),
            _ => None,
        }
    }
    /// clap's parser: every engine system name and the placers.
    pub fn parser() -> impl TypedValueParser<Value = SimSystem> {
        let names: Vec<&'static str> = System::ALL.iter().map(|s| s.name()).chain(SimSystem::PLACERS).collect();
        PossibleValuesParser::new(names).map(|s| match s.as_str() {
            "lotes" => SimSystem::Lotes,
            "greedy" => SimSystem::Greedy,
            "tetris" => SimSystem::Tetris,
            other => SimSystem::Engine(other.parse::<System>().expect("a possible value")),
        })
    }
}

/// `run`'s heterogeneous-mode flags.
#[derive(Args, Debug, Clone, PartialEq)]
pub struct HeteroArgs {
    /// Heterogeneous mode: machine configurations file (`count RESOURCE...` header;
    /// see rust/eagle-sim/data/lotes-table1.machines). --nodes is then ignored
    #[arg(long, value_name = "FILE")]
    pub machines: Option<String>,
    /// Per-job demands [default: TRACE.demands, written by gen --classes]
    #[arg(long, value_name = "FILE", requires = "machines")]
    pub demands: Option<String>,
    /// Multiply every configuration's machine count (rounded, at least 1) [default: 1]
    #[arg(long, value_name = "F", requires = "machines", value_parser = positive)]
    pub machine_scale: Option<f64>,
    /// Resource-blind engine systems: slots per unit of `cores` [default: 1]
    #[arg(long, value_name = "X", requires = "machines", value_parser = positive)]
    pub slots_per_core: Option<f64>,
    /// Tetris: weight of the remaining-work term in ω − w·γ (0 = packing only) [default: 1]
    #[arg(long, value_name = "W", requires = "machines", value_parser = non_negative)]
    pub tetris_work_weight: Option<f64>,
    /// LoTES: classes k-means looks for [default: 4]
    #[arg(long, value_name = "K", requires = "machines", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub lotes_classes: Option<u32>,
    /// LoTES: fraction of the jobs, from the start, whose tasks train the classes [default: 0.1]
    #[arg(long, value_name = "F", requires = "machines", value_parser = fraction)]
    pub lotes_train: Option<f64>,
    /// LoTES: arrivals per class-mix check, 0 = never re-plan [default: 20000]
    #[arg(long, value_name = "N", requires = "machines")]
    pub lotes_window: Option<usize>,
    /// LoTES: class-mix distance (total variation) that triggers a re-plan [default: 0.1]
    #[arg(long, value_name = "D", requires = "machines", value_parser = fraction)]
    pub lotes_drift: Option<f64>,
}

fn positive(s: &str) -> Result<f64, ValueError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(ValueError::NotFinitePositive),
    }
}

fn non_negative(s: &str) -> Result<f64, ValueError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(ValueError::NotFiniteNonNegative),
    }
}

fn fraction(s: &str) -> Result<f64, ValueError> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(ValueError::NotAFraction),
    }
}

/// LoTES's plan, as reported.
#[derive(Clone, Debug, Serialize)]
pub struct PlanReport {
    /// Wall time of k-means, both LPs and the bin enumeration (varies run to run).
    pub seconds: f64,
    pub training_tasks: usize,
    /// Per class: share, mean duration (s), mean demand.
    pub classes: Vec<(f64, f64, Vec<f64>)>,
    pub lambda_fluid: f64,
    pub lambda_lp: f64,
    pub lambda_rounded: f64,
    pub bins: usize,
    /// Per configuration: |K^j|.
    pub classes_per_config: Vec<usize>,
    pub replans: u32,
}

/// The `--json` object of a heterogeneous run.
#[derive(Clone, Debug, Serialize)]
pub struct HeteroReport {
    pub system: String,
    pub machines: String,
    pub machine_count: u64,
    pub configs: usize,
    pub trace: String,
    pub jobs: usize,
    pub tasks: usize,
    pub seed: u64,
    /// Wait until a job's first task starts, seconds.
    pub response: Summary,
    /// Completion (last task end − submission) of short and long jobs, by the cutoff.
    pub short: Summary,
    pub long: Summary,
    pub cutoff: f64,
    /// Per resource: offered demand (task-seconds × amount) / (span × total capacity).
    pub offered: Vec<(String, f64)>,
    pub peak_queued: usize,
    pub launches: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<PlanReport>,
    pub wall_seconds: f64,
}

impl HeteroReport {
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} on {} ({} jobs, {} tasks), {} machines in {} configurations ({}), seed {}",
            self.system, self.trace, self.jobs, self.tasks, self.machine_count, self.configs, self.machines, self.seed
        );
        let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
        let _ = writeln!(s, "{:<9} {:>7} {:>12} {:>12} {:>12} {:>12}", "seconds", "count", "p50", "p90", "p99", "mean");
        for (name, x) in [("response", &self.response), ("short", &self.short), ("long", &self.long)] {
            let _ = writeln!(
                s,
                "{:<9} {:>7} {:>12} {:>12} {:>12} {:>12}",
                name,
                x.count,
                f(x.p50),
                f(x.p90),
                f(x.p99),
                f(x.mean)
            );
        }
        let offered: Vec<String> = self.offered.iter().map(|(r, v)| format!("{r} {:.1}%", 100.0 * v)).collect();
        let _ = writeln!(s, "offered load: {}; peak queued tasks {}", offered.join(", "), self.peak_queued);
        if let Some(p) = &self.plan {
            let _ = writeln!(
                s,
                "plan: {} classes, λ fluid {:.4} / LP {:.4} / rounded {:.4} tasks/s, {} bins, |K^j| {:?}, {} re-plans, {:.3} s",
                p.classes.len(),
                p.lambda_fluid,
                p.lambda_lp,
                p.lambda_rounded,
                p.bins,
                p.classes_per_config,
                p.replans,
                p.seconds
            );
        }
        let _ = writeln!(s, "wall {:.3} s", self.wall_seconds);
        s
    }
}

/// `eagle-sim run --machines FILE ...`.
pub fn cmd_run(
    system: SimSystem,
    trace_path: &str,
    h: &HeteroArgs,
    base: Option<SimConfig>,
    json: bool,
    mode: Mode,
) -> Result<String, SimError> {
    let started = Instant::now();
    let mpath = h.machines.as_deref().expect("heterogeneous mode");
    let machines = Machines::load(mpath)?.scaled(h.machine_scale.unwrap_or(1.0));
    let trace = Trace::load(trace_path)?;
    let dpath = h.demands.clone().unwrap_or_else(|| demands::path_for(trace_path));
    let d = Demands::load(&dpath).map_err(|e| {
        if h.demands.is_none() && !std::path::Path::new(&dpath).exists() {
            SimError::NoDemands(dpath.clone())
        } else {
            e.into()
        }
    })?;
    files::same_resources(&dpath, &d.resources, &machines)?;
    if d.demand.len() != trace.len() {
        let (lines, jobs, trace) = (d.demand.len(), trace.len(), trace_path.to_string());
        return Err(SimError::DemandCount { path: dpath, lines, jobs, trace });
    }
    let seed = base.as_ref().map_or(1, |b| b.seed);
    let cutoff = base.as_ref().map_or_else(|| Family::detect(trace_path).cutoff(), |b| b.cutoff);
    let mut progress = Progress::new(mode, format!("eagle-sim run {}", system.name()), "jobs", trace.len() as u64);
    let set = |n: usize| progress.set(n as u64);
    let (outcome, plan) = match system {
        SimSystem::Engine(_) => {
            let cores = machines.cores().ok_or_else(|| SimError::NoCores(mpath.to_string()))?;
            let mut cfg = base.expect("engine systems have a SimConfig");
            cfg.node_slots = run::node_slots(&machines.configs, cores, h.slots_per_core.unwrap_or(1.0));
            cfg.nodes = cfg.node_slots.len() as u32;
            (run::run_blind(&trace, &cfg, set), None)
        }
        SimSystem::Greedy => {
            (run::run_placer(&trace, &d.demand, &mut Greedy::new(&machines.configs, seed)?, set), None)
        }
        SimSystem::Tetris => (
            run::run_placer(
                &trace,
                &d.demand,
                &mut Tetris::with_work_weight(&machines.configs, h.tetris_work_weight.unwrap_or(1.0))?,
                set,
            ),
            None,
        ),
        SimSystem::Lotes => {
            let t = Instant::now();
            let training = training(&trace, &d, h.lotes_train.unwrap_or(0.1));
            let params = LotesParams {
                classes: h.lotes_classes.unwrap_or(4) as usize,
                window: h.lotes_window.unwrap_or(LotesParams::default().window),
                drift: h.lotes_drift.unwrap_or(LotesParams::default().drift),
            };
            let mut l = Lotes::new(&machines.configs, &training, params, seed).map_err(SimError::LotesPlan)?;
            let seconds = t.elapsed().as_secs_f64();
            let o = run::run_placer(&trace, &d.demand, &mut l, set);
            (o, Some(plan_report(&l, seconds, training.len())))
        }
    };
    let outcome = outcome?;
    progress.finish(trace.len() as u64);
    let (mut short, mut long) = (Vec::new(), Vec::new());
    for (j, &rt) in outcome.running.iter().enumerate() {
        if trace.job(j).int_mean() > cutoff {
            long.push(rt);
        } else {
            short.push(rt);
        }
    }
    let report = HeteroReport {
        system: system.name().to_string(),
        machines: mpath.to_string(),
        machine_count: machines.machine_count(),
        configs: machines.configs.len(),
        trace: trace_path.to_string(),
        jobs: trace.len(),
        tasks: trace.tasks(),
        seed,
        response: run::response(&outcome),
        short: Summary::of(&mut short),
        long: Summary::of(&mut long),
        cutoff,
        offered: offered(&trace, &d, &machines),
        peak_queued: outcome.peak_queued,
        launches: outcome.launches,
        plan,
        wall_seconds: started.elapsed().as_secs_f64(),
    };
    Ok(if json { serde_json::to_string(&report).expect("a report serializes") + "\n" } else { report.to_table() })
}

fn plan_report(l: &Lotes, seconds: f64, training_tasks: usize) -> PlanReport {
    let p = l.plan();
    PlanReport {
        seconds,
        training_tasks,
        classes: p.classes.classes.iter().map(|c| (c.share, c.mean_duration, c.demand.amounts().to_vec())).collect(),
        lambda_fluid: p.fluid.lambda,
        lambda_lp: p.assignment.lambda_lp,
        lambda_rounded: p.assignment.lambda_rounded,
        bins: p.bin_count(),
        classes_per_config: (0..p.bins.len()).map(|j| p.fluid.classes_of(j).len()).collect(),
        replans: l.replans(),
    }
}

/// Most training points k-means gets (evenly strided over the training jobs' tasks).
const MAX_TRAINING: usize = 50_000;

/// The tasks of the first `fraction` of the jobs (the paper trains on the first
/// day of the month), at most [`MAX_TRAINING`] of them.
fn training(trace: &Trace, d: &Demands, fraction: f64) -> Vec<Sample> {
    let jobs = ((trace.len() as f64 * fraction).ceil() as usize).clamp(1.min(trace.len()), trace.len());
    let total: usize = (0..jobs).map(|j| trace.job(j).tasks() as usize).sum();
    let stride = total.div_ceil(MAX_TRAINING).max(1);
    let mut out = Vec::new();
    let mut i = 0usize;
    for j in 0..jobs {
        for &dur in trace.job(j).durations {
            if i.is_multiple_of(stride) {
                out.push(Sample { demand: d.demand[j].clone(), duration: dur as f64 });
            }
            i += 1;
        }
    }
    out
}

/// Per resource: Σ task-seconds × demand / ((last − first submission) × total capacity).
fn offered(trace: &Trace, d: &Demands, m: &Machines) -> Vec<(String, f64)> {
    let n = trace.len();
    let span = if n > 1 { trace.submit(n - 1) - trace.submit(0) } else { 0.0 };
    m.resources
        .iter()
        .enumerate()
        .map(|(l, name)| {
            let cap: f64 = m.configs.iter().map(|c| c.count as f64 * c.capacity.get(l)).sum();
            let work: f64 = (0..n)
                .map(|j| trace.job(j).durations.iter().map(|&x| x as f64).sum::<f64>() * d.demand[j].get(l))
                .sum();
            (name.clone(), if span > 0.0 && cap > 0.0 { work / (span * cap) } else { 0.0 })
        })
        .collect()
}
