//! The `eagle-sim` command line (std only, no argument-parsing crate).
//!
//! ```text
//! eagle-sim run --trace PATH --system {sparrow,hawk,eagle,dlwl,clwl,eagle-adaptive} --nodes N
//!               [--cutoff SECONDS] [--small-partition PCT] [--big-partition PCT]
//!               [--seed S] [--heartbeat S] [--estimate mean|under:X|over:X]
//!               [--slots K] [--jobs-out PATH] [--json]
//!               [--locality fixed:S|dynamic[:INIT:MIN:MAX[:WINDOW]]
//!                [--replication R] [--penalty S] [--congestion START:END:FACTOR]]
//! eagle-sim gen --like TRACE --jobs N --nodes N --load L [--seed S] --out PATH
//! ```
//!
//! Defaults come from the trace family, detected from the file name ("GOOG" →
//! Google, else Yahoo; see [`crate::trace::Family`]); each flag overrides one value.
//! Exit status: 0 on success, 1 when the run fails (bad trace, engine error),
//! 2 on a bad command line.

use crate::gen::{self, GenConfig};
use crate::report::Report;
use crate::sim::{self, DelayMode, Estimate, LocalitySpec, SimConfig};
use crate::trace::{Family, Trace};
use eagle_core::System;
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::str::FromStr;
use std::time::Instant;

pub const USAGE: &str = "\
usage:
  eagle-sim run --trace PATH --system {sparrow,hawk,eagle,dlwl,clwl,eagle-adaptive} --nodes N
                [--cutoff SECONDS] [--small-partition PCT] [--big-partition PCT]
                [--seed S] [--heartbeat S] [--estimate mean|under:X|over:X]
                [--slots K] [--jobs-out PATH] [--json]
      Replays a Hawk/Eagle trace (plain or .xz). Defaults follow the trace family
      detected from the file name: GOOG* -> cutoff 1129.532, partitions 100/83,
      heartbeat 3; otherwise Yahoo: cutoff 90.5811, partitions 100/98, heartbeat 8.
      Sparrow's big partition is 100 unless --big-partition is given. Seed 1.
      --jobs-out writes one line per job: trace line order (1-based), submission
      time, short|long (report cutoff), running time.
      Locality mode (Dynamic Delay Scheduling experiments): --locality turns it on.
      Each task's input block sits on R random nodes (--replication, default 3);
      short jobs probe one replica per task; a task that runs elsewhere pays
      --penalty seconds (default 2), times FACTOR between START and END seconds
      after the first submission (--congestion). Stages wait for a node-local
      slot for a fixed time (fixed:S) or adaptively (dynamic, defaults 3:0:10:2).
  eagle-sim gen --like TRACE --jobs N --nodes N --load L [--seed S] --out PATH
      Writes a synthetic trace: jobs resampled from TRACE, Poisson arrivals at
      load L (offered task-seconds per second per node).
";

/// A command-line mistake (exit status 2).
#[derive(Debug)]
struct Usage(String);

/// Runs the command line `args` (without the program name); returns the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let result = match args.first().map(String::as_str) {
        Some("run") => cmd_run(&args[1..]),
        Some("gen") => cmd_gen(&args[1..]),
        Some("-h" | "--help" | "help") => {
            print!("{USAGE}");
            return 0;
        }
        Some(other) => Err(Err(Usage(format!("unknown command '{other}'")))),
        None => Err(Err(Usage("missing command".into()))),
    };
    match result {
        Ok(()) => 0,
        Err(Ok(msg)) => {
            eprintln!("eagle-sim: error: {msg}");
            1
        }
        Err(Err(Usage(msg))) => {
            eprintln!("eagle-sim: {msg}\n{USAGE}");
            2
        }
    }
}

/// `Err(Ok(msg))`: the run failed; `Err(Err(usage))`: bad command line.
type CmdResult = Result<(), Result<String, Usage>>;

fn usage<T>(msg: String) -> Result<T, Result<String, Usage>> {
    Err(Err(Usage(msg)))
}

/// `--name value`, `--name=value` and bare `--switch` flags.
struct Flags {
    values: HashMap<String, String>,
    switches: Vec<String>,
}

impl Flags {
    fn parse(args: &[String], valued: &[&str], switches: &[&str]) -> Result<Flags, Usage> {
        let mut f = Flags { values: HashMap::new(), switches: Vec::new() };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let Some(name) = a.strip_prefix("--") else {
                return Err(Usage(format!("unexpected argument '{a}'")));
            };
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (name, None),
            };
            if switches.contains(&name) {
                if inline.is_some() {
                    return Err(Usage(format!("--{name} takes no value")));
                }
                f.switches.push(name.to_string());
            } else if valued.contains(&name) {
                let v = match inline {
                    Some(v) => v,
                    None => it.next().cloned().ok_or_else(|| Usage(format!("--{name} needs a value")))?,
                };
                if f.values.insert(name.to_string(), v).is_some() {
                    return Err(Usage(format!("--{name} given twice")));
                }
            } else {
                return Err(Usage(format!("unknown flag --{name}")));
            }
        }
        Ok(f)
    }
    fn has(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }
    fn get<T: FromStr>(&self, name: &str) -> Result<Option<T>, Usage>
    where
        T::Err: std::fmt::Display,
    {
        match self.values.get(name) {
            None => Ok(None),
            Some(v) => v.parse().map(Some).map_err(|e| Usage(format!("--{name} '{v}': {e}"))),
        }
    }
    fn required<T: FromStr>(&self, name: &str) -> Result<T, Usage>
    where
        T::Err: std::fmt::Display,
    {
        self.get(name)?.ok_or_else(|| Usage(format!("missing --{name}")))
    }
}

fn cmd_run(args: &[String]) -> CmdResult {
    let started = Instant::now();
    let f = Flags::parse(
        args,
        &["trace", "system", "nodes", "cutoff", "small-partition", "big-partition", "seed", "heartbeat", "estimate", "slots", "jobs-out", "locality", "replication", "penalty", "congestion"],
        &["json"],
    )
    .map_err(Err)?;
    let path: String = f.required("trace").map_err(Err)?;
    let system: System = f.required("system").map_err(Err)?;
    let nodes: u32 = f.required("nodes").map_err(Err)?;
    if nodes == 0 {
        return usage("--nodes must be at least 1".into());
    }
    let mut cfg = SimConfig::for_family(system, nodes, Family::detect(&path));
    let num = |name: &str| -> Result<Option<f64>, Result<String, Usage>> {
        match f.get::<f64>(name).map_err(Err)? {
            Some(v) if !v.is_finite() => usage(format!("--{name} must be a finite number")),
            v => Ok(v),
        }
    };
    if let Some(v) = num("cutoff")? {
        cfg.cutoff = v;
    }
    if let Some(v) = num("small-partition")? {
        cfg.small_partition_pct = v;
    }
    if let Some(v) = num("big-partition")? {
        cfg.big_partition_pct = v;
    }
    if let Some(v) = num("heartbeat")? {
        cfg.heartbeat = v;
    }
    if let Some(v) = f.get("seed").map_err(Err)? {
        cfg.seed = v;
    }
    if let Some(v) = f.get::<Estimate>("estimate").map_err(Err)? {
        cfg.estimate = v;
    }
    if let Some(v) = f.get::<u32>("slots").map_err(Err)? {
        if v == 0 {
            return usage("--slots must be at least 1".into());
        }
        cfg.slots = v;
    }
    match f.get::<DelayMode>("locality").map_err(Err)? {
        Some(delay) => {
            let replication = f.get::<u32>("replication").map_err(Err)?.unwrap_or(3);
            if replication == 0 {
                return usage("--replication must be at least 1".into());
            }
            let penalty = num("penalty")?.unwrap_or(2.0);
            if penalty < 0.0 {
                return usage("--penalty must be >= 0".into());
            }
            let congestion = match f.get::<String>("congestion").map_err(Err)? {
                None => None,
                Some(v) => {
                    let parts: Vec<f64> = v.split(':').filter_map(|x| x.parse().ok()).collect();
                    match parts[..] {
                        [a, b, k] if a.is_finite() && b >= a && k.is_finite() && k >= 0.0 => Some((a, b, k)),
                        _ => return usage(format!("--congestion '{v}': expected START:END:FACTOR with END >= START")),
                    }
                }
            };
            cfg.locality = Some(LocalitySpec { delay, replication, penalty, congestion });
        }
        None => {
            for flag in ["replication", "penalty", "congestion"] {
                if f.values.contains_key(flag) {
                    return usage(format!("--{flag} needs --locality"));
                }
            }
        }
    }
    cfg.engine_config().validate().map_err(|e| Err(Usage(format!("bad configuration: {e}"))))?;

    let t = Instant::now();
    let trace = Trace::load(&path).map_err(|e| Ok(e.to_string()))?;
    let parse_seconds = t.elapsed().as_secs_f64();
    let outcome = sim::run(&trace, &cfg).map_err(Ok)?;
    if let Some(jobs_out) = f.get::<String>("jobs-out").map_err(Err)? {
        write_jobs(&jobs_out, &trace, &cfg, &outcome.running_times).map_err(|e| Ok(format!("{jobs_out}: {e}")))?;
    }
    let report = Report::new(&cfg, &path, trace.len(), trace.tasks(), &outcome, parse_seconds, started.elapsed().as_secs_f64());
    let text = if f.has("json") { report.to_json() + "\n" } else { report.to_table() };
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_bytes()).map_err(|e| Ok(format!("writing stdout: {e}")))?;
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

fn cmd_gen(args: &[String]) -> CmdResult {
    let f = Flags::parse(args, &["like", "jobs", "nodes", "load", "seed", "out"], &[]).map_err(Err)?;
    let like: String = f.required("like").map_err(Err)?;
    let out: String = f.required("out").map_err(Err)?;
    let cfg = GenConfig {
        jobs: f.required("jobs").map_err(Err)?,
        nodes: f.required("nodes").map_err(Err)?,
        load: f.required("load").map_err(Err)?,
        seed: f.get("seed").map_err(Err)?.unwrap_or(1),
    };
    if cfg.nodes == 0 || !(cfg.load > 0.0 && cfg.load.is_finite()) {
        return usage("--nodes must be >= 1 and --load a number > 0".into());
    }
    let source = Trace::load(&like).map_err(|e| Ok(e.to_string()))?;
    let file = std::fs::File::create(&out).map_err(|e| Ok(format!("{out}: cannot create: {e}")))?;
    let s = gen::generate(&source, &cfg, BufWriter::with_capacity(1 << 20, file)).map_err(|e| Ok(format!("{out}: {e}")))?;
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
