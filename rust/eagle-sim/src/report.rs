//! What `eagle-sim run` prints: one JSON object (`--json`) or a table.
//!
//! The JSON keys `system, nodes, seed, short, long, utilization, counters
//! (probes_behind_long, short_tasks_after_hol, rescheduled_probes, stolen_probes,
//! …), events, wall_seconds` are an interface other tooling depends on; the rest
//! are extras. Apart from `wall_seconds` and the `perf` object, the report is a
//! pure function of the trace, the flags and the seed.

use crate::sim::{Outcome, SimConfig};
use crate::stats::Summary;
use eagle_core::Counters;
use serde::Serialize;
use std::fmt::Write as _;

/// The `--json` object.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub system: String,
    pub nodes: u32,
    pub seed: u64,
    pub short: Summary,
    pub long: Summary,
    pub utilization: f64,
    pub counters: Counters,
    pub events: u64,
    pub wall_seconds: f64,
    // Extras.
    pub trace: String,
    pub jobs: usize,
    pub tasks: usize,
    pub launches: u64,
    /// Largest number of pending events at once.
    pub peak_queue: usize,
    pub cutoff: f64,
    pub small_partition: f64,
    pub big_partition: f64,
    pub heartbeat: f64,
    pub estimate: String,
    /// Locality mode only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locality: Option<LocalityReport>,
    /// Eirene only: tasks of short jobs above 1.5× their job's median duration.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub straggler_tasks: Option<u64>,
    /// Measurements of this process (they vary run to run; everything else in
    /// the report is a function of the trace, the flags and the seed).
    pub perf: Perf,
}

/// What locality mode measured (Dynamic Delay Scheduling experiments).
#[derive(Clone, Debug, Serialize)]
pub struct LocalityReport {
    pub delay: String,
    pub replication: u32,
    pub penalty: f64,
    pub congestion: Option<(f64, f64, f64)>,
    pub local_tasks: u64,
    pub remote_tasks: u64,
    /// Fraction of tasks that ran node-local.
    pub local_fraction: f64,
    pub remote_seconds: f64,
    /// `[time since first submission, node-local wait]` per job, at its end.
    pub intervals: Vec<(f64, f64)>,
}

/// Timings and memory of the run.
#[derive(Clone, Debug, Serialize)]
pub struct Perf {
    /// Time to read and parse the trace (the benchmark's in-run baseline).
    pub parse_seconds: f64,
    /// Time of the replay loop alone.
    pub sim_seconds: f64,
    /// Events processed per second of `sim_seconds`.
    pub events_per_sec: f64,
    /// Peak resident set size of the process (VmHWM), when the OS tells.
    pub peak_rss_mb: Option<f64>,
}

impl Report {
    pub fn new(
        cfg: &SimConfig,
        trace_name: &str,
        jobs: usize,
        tasks: usize,
        o: &Outcome,
        parse_seconds: f64,
        wall_seconds: f64,
    ) -> Report {
        Report {
            system: cfg.system.name().to_string(),
            nodes: cfg.nodes,
            seed: cfg.seed,
            short: o.short.clone(),
            long: o.long.clone(),
            utilization: o.utilization,
            counters: o.counters.clone(),
            events: o.events,
            wall_seconds,
            trace: trace_name.to_string(),
            jobs,
            tasks,
            launches: o.launches,
            peak_queue: o.peak_queue,
            cutoff: cfg.cutoff,
            small_partition: cfg.small_partition_pct,
            big_partition: cfg.big_partition_pct,
            heartbeat: cfg.heartbeat,
            estimate: cfg.estimate.to_string(),
            locality: match (&cfg.locality, &o.locality) {
                (Some(spec), Some(l)) => {
                    let t0 = l.intervals.first().map_or(0.0, |_| o.first_submit);
                    Some(LocalityReport {
                        delay: spec.delay.to_string(),
                        replication: spec.replication,
                        penalty: spec.penalty,
                        congestion: spec.congestion,
                        local_tasks: l.local_tasks,
                        remote_tasks: l.remote_tasks,
                        local_fraction: l.local_tasks as f64 / (l.local_tasks + l.remote_tasks).max(1) as f64,
                        remote_seconds: l.remote_seconds,
                        intervals: l.intervals.iter().map(|&(t, w)| (t - t0, w)).collect(),
                    })
                }
                _ => None,
            },
            straggler_tasks: o.straggler_tasks,
            perf: Perf {
                parse_seconds,
                sim_seconds: o.sim_seconds,
                events_per_sec: if o.sim_seconds > 0.0 { o.events as f64 / o.sim_seconds } else { 0.0 },
                peak_rss_mb: peak_rss_mb(),
            },
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report serializes")
    }

    /// A human-readable table.
    pub fn to_table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{} on {} ({} jobs, {} tasks), {} nodes, seed {}, cutoff {}, partitions small {}% / big {}%, estimate {}",
            self.system,
            self.trace,
            self.jobs,
            self.tasks,
            self.nodes,
            self.seed,
            self.cutoff,
            self.small_partition,
            self.big_partition,
            self.estimate
        );
        let _ = writeln!(s, "{:<6} {:>7} {:>12} {:>12} {:>12} {:>12}", "jobs", "count", "p50", "p90", "p99", "mean");
        for (name, x) in [("short", &self.short), ("long", &self.long)] {
            let f = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.2}"));
            let _ = writeln!(
                s,
                "{:<6} {:>7} {:>12} {:>12} {:>12} {:>12}",
                name,
                x.count,
                f(x.p50),
                f(x.p90),
                f(x.p99),
                f(x.mean)
            );
        }
        let _ = writeln!(s, "utilization {:.1}%", 100.0 * self.utilization);
        let c = &self.counters;
        let _ = writeln!(
            s,
            "probes behind long {} (overtaken by long {}), short tasks after HOL {}, rescheduled probes {}, stolen probes {}, fallback probes {}, SRPT bypasses {}",
            c.probes_behind_long, c.probes_overtaken_by_long, c.short_tasks_after_hol, c.rescheduled_probes, c.stolen_probes, c.fallback_probes, c.srpt_bypasses
        );
        if let Some(e) = &c.eirene {
            let _ = writeln!(
                s,
                "eirene: CCDM helped {} tasks ({} migrations), clones launched {}, won {}, wasted {}; straggler tasks {}",
                e.ccdm_helped,
                e.migrations,
                e.clones_launched,
                e.clones_won,
                e.clones_wasted,
                self.straggler_tasks.unwrap_or(0)
            );
        }
        let _ = write!(
            s,
            "{} events in {:.3} s ({:.2} M events/s); parse {:.3} s; wall {:.3} s",
            self.events,
            self.perf.sim_seconds,
            self.perf.events_per_sec / 1e6,
            self.perf.parse_seconds,
            self.wall_seconds
        );
        if let Some(m) = self.perf.peak_rss_mb {
            let _ = write!(s, "; peak RSS {m:.0} MB");
        }
        s.push('\n');
        s
    }
}

/// Peak resident set size in MB, from `/proc/self/status` (Linux only).
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}
