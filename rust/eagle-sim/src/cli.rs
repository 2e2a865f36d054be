//! The `eagle-sim` command line ([`clap`], derive API).
//!
//! ```text
//! eagle-sim [--quiet] run --trace PATH --system {sparrow,hawk,eagle,dlwl,clwl,eagle-adaptive} --nodes N
//!               [--cutoff SECONDS] [--small-partition PCT] [--big-partition PCT]
//!               [--seed S] [--heartbeat S] [--estimate mean|under:X|over:X]
//!               [--slots K] [--jobs-out PATH] [--json]
//!               [--locality fixed:S|dynamic[:INIT:MIN:MAX[:WINDOW]]
//!                [--replication R] [--penalty S] [--congestion START:END:FACTOR]]
//!               [--machines FILE [--demands FILE] [--machine-scale F] [--slots-per-core X]
//!                [--lotes-classes K] [--lotes-train F] [--lotes-window N] [--lotes-drift D]]
//!               (--system lotes|greedy|tetris need --machines)
//! eagle-sim [--quiet] gen --like TRACE --jobs N --nodes N --load L [--seed S] --out PATH [--classes FILE]
//! eagle-sim help [run|gen]      (or run --help, gen --help)
//! ```
//!
//! Defaults come from the trace family, detected from the file name ("GOOG" →
//! Google, else Yahoo; see [`crate::trace::Family`]); each flag overrides one value.
//! Both commands show their progress on stderr ([`crate::progress`]) unless `--quiet`.
//! Exit status: 0 on success, 1 when the run fails (bad trace, engine error),
//! 2 on a bad command line (clap's error, naming the flag).

use crate::error::{SimError, ValueError};
use crate::gen::{self, GenConfig};
use crate::hetero::{self, HeteroArgs, SimSystem};
use crate::progress::{Mode, Progress};
use crate::report::Report;
use crate::sim::{self, DelayMode, Estimate, LocalitySpec, Observer, SimConfig};
use crate::trace::{Family, Trace};
use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use eagle_core::Time;
use std::io::{BufWriter, Write};
use std::time::Instant;

/// Trace-driven simulator of the Eagle/Hawk/Sparrow schedulers (drives eagle-core).
#[derive(Parser, Debug)]
#[command(name = "eagle-sim", version, subcommand_required = true, arg_required_else_help = false)]
pub struct Cli {
    /// No progress output on stderr
    ///
    /// Without it, a command that runs for more than a second shows its progress on
    /// stderr: a bar when stderr is a terminal, else a plain line every 10 % (and at
    /// least every 30 s). Errors and `gen`'s summary line are printed either way.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
#[allow(clippy::large_enum_variant)] // parsed once per process
pub enum Command {
    /// Replays a Hawk/Eagle trace under one scheduler; prints a table, or JSON with --json.
    Run(RunArgs),
    /// Writes a synthetic trace: jobs resampled from a real one, Poisson arrivals at a load.
    Gen(GenArgs),
}

/// `run`'s flags. `None` keeps the trace family's default.
#[derive(Args, Debug)]
#[command(
    allow_negative_numbers = true,
    after_help = "\
Defaults follow the trace family detected from the file name: GOOG* -> cutoff 1129.532,
partitions 100/83, heartbeat 3; otherwise Yahoo: cutoff 90.5811, partitions 100/98,
heartbeat 8. Sparrow's big partition is 100 unless --big-partition is given.

Locality mode (Dynamic Delay Scheduling experiments): --locality turns it on. Each task's
input block sits on R random nodes (--replication); short jobs probe one replica per task;
a task that runs elsewhere pays --penalty seconds, times FACTOR between START and END
seconds after the first submission (--congestion). Stages wait for a node-local slot for a
fixed time (fixed:S) or adaptively (dynamic, defaults 3:0:10:2).

Exit status: 0 on success, 1 when the run fails (bad trace, engine error), 2 on a bad
command line."
)]
pub struct RunArgs {
    /// Trace file, plain or .xz (`submit ntasks mean d1 ... dn` per line)
    #[arg(long, value_name = "PATH")]
    pub trace: String,
    /// Scheduler to simulate (lotes, greedy, tetris: heterogeneous mode, with --machines)
    #[arg(long, value_name = "SYSTEM", ignore_case = true, value_parser = SimSystem::parser())]
    pub system: SimSystem,
    /// Worker nodes (>= 1)
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub nodes: u32,
    /// Short/long cutoff, seconds (scheduling and report) [default: by trace family]
    #[arg(long, value_name = "SECONDS", value_parser = finite)]
    pub cutoff: Option<f64>,
    /// Percent of nodes where short tasks may run [default: by trace family]
    #[arg(long, value_name = "PCT", value_parser = finite)]
    pub small_partition: Option<f64>,
    /// Percent of nodes where long tasks may run [default: by trace family]
    #[arg(long, value_name = "PCT", value_parser = finite)]
    pub big_partition: Option<f64>,
    /// Seed of every random choice [default: 1]
    #[arg(long, value_name = "S")]
    pub seed: Option<u64>,
    /// DLWL/CLWL heartbeat period, seconds [default: by trace family]
    #[arg(long, value_name = "S", value_parser = finite)]
    pub heartbeat: Option<f64>,
    /// Task-duration estimates: mean, under:X (0<=X<=1) or over:X (X>=1) [default: mean]
    #[arg(long, value_name = "MODE")]
    pub estimate: Option<Estimate>,
    /// Task slots per node [default: 1]
    #[arg(long, value_name = "K", value_parser = at_least_one)]
    pub slots: Option<u32>,
    /// Also write one line per job: trace line (1-based), submission time, short|long
    /// (report cutoff), running time
    #[arg(long, value_name = "PATH")]
    pub jobs_out: Option<String>,
    /// Print one JSON object instead of the table
    #[arg(long)]
    pub json: bool,
    /// Locality mode: fixed:SECONDS or dynamic[:INITIAL:MIN:MAX[:WINDOW]]
    #[arg(long, value_name = "MODE")]
    pub locality: Option<DelayMode>,
    /// Locality mode: replicas of each task's input block [default: 3]
    #[arg(long, value_name = "R", requires = "locality", value_parser = at_least_one)]
    pub replication: Option<u32>,
    /// Locality mode: seconds a task pays when it runs away from its block [default: 2]
    #[arg(long, value_name = "S", requires = "locality", value_parser = non_negative)]
    pub penalty: Option<f64>,
    /// Locality mode: the penalty is multiplied by FACTOR from START to END seconds after
    /// the first submission
    #[arg(long, value_name = "START:END:FACTOR", requires = "locality", value_parser = congestion)]
    pub congestion: Option<Congestion>,
    /// eagle-adaptive: job order, srpt (least remaining work, starvation deadline) or fsp
    /// (earliest finish under processor sharing) [default: srpt]
    #[arg(long, value_name = "ORDER", value_parser = eagle_core::adaptive::fsp::Order::parse)]
    pub order: Option<eagle_core::adaptive::fsp::Order>,
    #[command(flatten)]
    pub eirene: crate::eirene::EireneArgs,
    #[command(flatten)]
    pub hetero: HeteroArgs,
}

/// `gen`'s flags.
#[derive(Args, Debug)]
#[command(
    allow_negative_numbers = true,
    after_help = "\
The jobs are drawn uniformly from TRACE; arrivals are Poisson at the rate that offers L
task-seconds per second per node on N nodes. A summary line goes to stderr."
)]
pub struct GenArgs {
    /// Source trace (plain or .xz) whose jobs are resampled, or `fb`: a Facebook-like
    /// trace synthesized from the Eirene paper's statistics
    #[arg(long, value_name = "TRACE")]
    pub like: String,
    /// Jobs to write
    #[arg(long, value_name = "N")]
    pub jobs: u64,
    /// Nodes the load is computed for (>= 1)
    #[arg(long, value_name = "N", value_parser = at_least_one)]
    pub nodes: u32,
    /// Offered load (task-seconds per second per node, > 0)
    #[arg(long, value_name = "L", value_parser = positive)]
    pub load: f64,
    /// Seed of the resampling and the arrivals
    #[arg(long, value_name = "S", default_value_t = 1)]
    pub seed: u64,
    /// Output trace file
    #[arg(long, value_name = "PATH")]
    pub out: String,
    /// Also write per-job resource demands to PATH.demands, drawn from this classes
    /// file (see rust/eagle-sim/data/lotes-table2.classes)
    #[arg(long, value_name = "FILE")]
    pub classes: Option<String>,
}

/// `--congestion START:END:FACTOR`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Congestion(pub f64, pub f64, pub f64);

fn at_least_one(s: &str) -> Result<u32, ValueError> {
    match s.parse::<u32>() {
        Ok(0) => Err(ValueError::Zero),
        Ok(v) => Ok(v),
        Err(e) => Err(ValueError::NotAnInteger(e.to_string())),
    }
}

fn finite(s: &str) -> Result<f64, ValueError> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(ValueError::NotFinite),
        Err(e) => Err(ValueError::NotANumber(e.to_string())),
    }
}

fn non_negative(s: &str) -> Result<f64, ValueError> {
    finite(s).and_then(|v| if v >= 0.0 { Ok(v) } else { Err(ValueError::Negative) })
}

fn positive(s: &str) -> Result<f64, ValueError> {
    finite(s).and_then(|v| if v > 0.0 { Ok(v) } else { Err(ValueError::NotPositive) })
}

fn congestion(s: &str) -> Result<Congestion, ValueError> {
    let parts: Vec<f64> =
        s.split(':').map(|x| x.parse::<f64>()).collect::<Result<_, _>>().map_err(|_| ValueError::CongestionFormat)?;
    match parts[..] {
        [a, b, k] if a.is_finite() && b.is_finite() && b >= a && k.is_finite() && k >= 0.0 => Ok(Congestion(a, b, k)),
        _ => Err(ValueError::CongestionRange),
    }
}

/// A bad command line found after parsing (a combination clap does not check), as a
/// clap error of `sub` (exit status 2, with its usage line).
fn usage_error(sub: &str, msg: impl std::fmt::Display) -> clap::Error {
    let mut cmd = Cli::command();
    cmd.build();
    cmd.find_subcommand_mut(sub).expect("known subcommand").error(ErrorKind::ValueValidation, msg)
}

/// How a command failed.
enum Failure {
    /// Bad command line (exit 2).
    Usage(clap::Error),
    /// The run failed (exit 1).
    Run(String),
}

/// Runs the command line `args` (without the program name); returns the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let cli = match Cli::try_parse_from(std::iter::once("eagle-sim".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(e) => {
            // --help / --version print to stdout and exit 0; errors to stderr, exit 2.
            let _ = e.print();
            return e.exit_code();
        }
    };
    let mode = Mode::detect(cli.quiet);
    let result = match cli.command {
        Command::Run(a) => cmd_run(a, mode),
        Command::Gen(a) => cmd_gen(a, mode),
    };
    match result {
        Ok(()) => 0,
        Err(Failure::Run(msg)) => {
            eprintln!("eagle-sim: error: {msg}");
            1
        }
        Err(Failure::Usage(e)) => {
            let _ = e.print();
            e.exit_code()
        }
    }
}

/// The `run` command's progress: jobs completed.
struct JobProgress(Progress);

impl Observer for JobProgress {
    #[inline]
    fn on_job_done(&mut self, _now: Time, completed: usize) {
        self.0.set(completed as u64);
    }
}

/// `run`'s simulation configuration from its flags (`None` flags keep the family's value).
pub fn sim_config(a: &RunArgs) -> Result<SimConfig, SimError> {
    let system = a.system.engine().ok_or_else(|| SimError::NeedsMachines(a.system.name()))?;
    let mut cfg = SimConfig::for_family(system, a.nodes, Family::detect(&a.trace));
    if let Some(v) = a.cutoff {
        cfg.cutoff = v;
    }
    if let Some(v) = a.small_partition {
        cfg.small_partition_pct = v;
    }
    if let Some(v) = a.big_partition {
        cfg.big_partition_pct = v;
    }
    if let Some(v) = a.heartbeat {
        cfg.heartbeat = v;
    }
    if let Some(v) = a.seed {
        cfg.seed = v;
    }
    if let Some(v) = a.estimate {
        cfg.estimate = v;
    }
    if let Some(v) = a.slots {
        cfg.slots = v;
    }
    if let Some(delay) = a.locality {
        cfg.locality = Some(LocalitySpec {
            delay,
            replication: a.replication.unwrap_or(3),
            penalty: a.penalty.unwrap_or(2.0),
            congestion: a.congestion.map(|Congestion(s, e, k)| (s, e, k)),
        });
    }
    cfg.eirene = a.eirene.params(system)?;
    if let Some(o) = a.order {
        if system != eagle_core::System::EagleAdaptive {
            return Err(SimError::OrderNotAdaptive(system));
        }
        cfg.order = o;
    }
    cfg.engine_config().validate().map_err(SimError::BadConfiguration)?;
    Ok(cfg)
}

fn cmd_run(a: RunArgs, mode: Mode) -> Result<(), Failure> {
    if a.hetero.machines.is_some() {
        let base = match a.system.engine() {
            Some(_) => Some(sim_config(&a).map_err(|e| Failure::Usage(usage_error("run", e)))?),
            None => None,
        };
        let text = hetero::cmd_run(a.system, &a.trace, &a.hetero, base, a.json, mode)
            .map_err(|e| Failure::Run(e.to_string()))?;
        return std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| Failure::Run(format!("writing stdout: {e}")));
    }
    let started = Instant::now();
    let cfg = sim_config(&a).map_err(|e| Failure::Usage(usage_error("run", e)))?;
    let path = &a.trace;

    let t = Instant::now();
    let trace = Trace::load(path).map_err(|e| Failure::Run(e.to_string()))?;
    let parse_seconds = t.elapsed().as_secs_f64();
    let mut progress =
        JobProgress(Progress::new(mode, format!("eagle-sim run {}", cfg.system), "jobs", trace.len() as u64));
    let outcome = sim::run_observed(&trace, &cfg, &mut progress);
    progress.0.finish(outcome.as_ref().map_or(0, |_| trace.len() as u64));
    let outcome = outcome.map_err(|e| Failure::Run(e.to_string()))?;
    if let Some(jobs_out) = &a.jobs_out {
        write_jobs(jobs_out, &trace, &cfg, &outcome.running_times)
            .map_err(|e| Failure::Run(format!("{jobs_out}: {e}")))?;
    }
    let report =
        Report::new(&cfg, path, trace.len(), trace.tasks(), &outcome, parse_seconds, started.elapsed().as_secs_f64());
    let text = if a.json { report.to_json() + "\n" } else { report.to_table() };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).map_err(|e| Failure::Run(format!("writing stdout: {e}")))?;
    Ok(())
}

/// One line per job: `index submit class running_time`.
fn write_jobs(path: &str, trace: &Trace, cfg: &SimConfig, running_times: &[f64]) -> std::io::Result<()> {
    let mut w = BufWriter::new(std::fs::File::create(path)?);
    for (i, rt) in running_times.iter().enumerate() {
        let job = trace.job(i);
        let class = if cfg.is_long(job.int_mean()) { "long" } else { "short" };
        writeln!(w, "{} {} {class} {rt}", i + 1, job.submit)?;
    }
    w.flush()
}

fn cmd_gen(a: GenArgs, mode: Mode) -> Result<(), Failure> {
    let cfg = GenConfig { jobs: a.jobs, nodes: a.nodes, load: a.load, seed: a.seed };
    let out = &a.out;
    let fb = a.like.eq_ignore_ascii_case("fb");
    let source = if fb { None } else { Some(Trace::load(&a.like).map_err(|e| Failure::Run(e.to_string()))?) };
    let file = std::fs::File::create(out).map_err(|e| Failure::Run(format!("{out}: cannot create: {e}")))?;
    // A bad classes file fails before anything is written.
    let classes = a
        .classes
        .as_ref()
        .map(|p| hetero::files::ClassFile::load(p).map(|c| (p, c)))
        .transpose()
        .map_err(|e| Failure::Run(e.to_string()))?;
    let mut progress = Progress::new(mode, "eagle-sim gen", "jobs", cfg.jobs);
    let w = BufWriter::with_capacity(1 << 20, file);
    let s = match &source {
        Some(source) => gen::generate_with(source, &cfg, w, |n| progress.set(n)),
        None => crate::fbgen::generate(&cfg, w), // Facebook-like, from the Eirene paper's statistics
    };
    progress.finish(s.as_ref().map_or(0, |s| s.jobs));
    let s = s.map_err(|e| Failure::Run(format!("{out}: {e}")))?;
    if let Some((classes, c)) = classes {
        let dpath = hetero::demands::path_for(out);
        let f = std::fs::File::create(&dpath).map_err(|e| Failure::Run(format!("{dpath}: cannot create: {e}")))?;
        hetero::demands::write(&c, s.jobs, a.seed, BufWriter::new(f))
            .map_err(|e| Failure::Run(format!("{dpath}: {e}")))?;
        eprintln!(
            "eagle-sim gen: wrote {} job demands ({} classes from {classes}) to {dpath}",
            s.jobs,
            c.classes.len()
        );
    }
    eprintln!(
        "eagle-sim gen: wrote {} jobs, {} tasks to {out}; arrivals {:.4} jobs/s until t={:.0} s; offered load {:.3} on {} nodes",
        s.jobs,
        s.tasks,
        s.rate,
        s.last_submit,
        s.offered_load(cfg.nodes),
        cfg.nodes
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use eagle_core::System;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("eagle-sim").chain(args.iter().copied()))
    }

    #[test]
    fn the_derive_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn flags_keep_their_values_and_defaults() {
        let Cli { quiet, command: Command::Run(a) } = parse(&[
            "run",
            "--trace",
            "x/GOOG_s.tr",
            "--system",
            "Eagle",
            "--nodes=20",
            "--seed",
            "7",
            "--json",
            "--estimate",
            "over:1.5",
            "-q",
        ])
        .unwrap() else {
            panic!("run")
        };
        assert!(quiet && a.json);
        let cfg = sim_config(&a).unwrap();
        let mut want = SimConfig::for_family(System::Eagle, 20, Family::Google);
        want.seed = 7;
        want.estimate = "over:1.5".parse().unwrap();
        assert_eq!(cfg, want);
        // No flag: the Yahoo family's values, seed 1, one slot, no locality.
        let Cli { command: Command::Run(a), .. } =
            parse(&["run", "--trace", "t.tr", "--system", "sparrow", "--nodes", "5"]).unwrap()
        else {
            panic!("run")
        };
        assert_eq!(sim_config(&a).unwrap(), SimConfig::for_family(System::Sparrow, 5, Family::Yahoo));
        let Cli { command: Command::Gen(g), .. } =
            parse(&["gen", "--like", "a", "--jobs", "9", "--nodes", "3", "--load", "0.5", "--out", "b"]).unwrap()
        else {
            panic!("gen")
        };
        assert_eq!((g.jobs, g.nodes, g.load, g.seed), (9, 3, 0.5, 1));
    }

    #[test]
    fn locality_flags_fill_the_spec() {
        let Cli { command: Command::Run(a), .. } = parse(&[
            "run",
            "--trace",
            "t.tr",
            "--system",
            "eagle",
            "--nodes",
            "5",
            "--locality",
            "dynamic",
            "--penalty",
            "0.5",
            "--congestion",
            "10:20:4",
        ])
        .unwrap() else {
            panic!("run")
        };
        let l = sim_config(&a).unwrap().locality.unwrap();
        assert_eq!((l.replication, l.penalty, l.congestion), (3, 0.5, Some((10.0, 20.0, 4.0))));
    }
}
