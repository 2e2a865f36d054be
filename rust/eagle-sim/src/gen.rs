//! Synthetic traces "like" a real one, at a chosen load.
//!
//! Each synthetic job is a real job of the source trace drawn uniformly with
//! replacement: its task count, mean and durations are copied, so the job-size,
//! duration and long/short mix follow the source's empirical distribution.
//! Arrivals are a Poisson process whose rate gives the target load:
//!
//! ```text
//! load = offered task-seconds per second / nodes
//! rate = load · nodes / E[task-seconds per job]      (jobs per second)
//! ```
//!
//! The output is written as it is generated (one reused line buffer), so a
//! 500,000-job trace costs the memory of the source trace only.

use crate::trace::Trace;
use eagle_core::rng::Rng;
use std::io::{self, Write};

/// What to synthesize.
#[derive(Clone, Debug, PartialEq)]
pub struct GenConfig {
    pub jobs: u64,
    pub nodes: u32,
    /// Target offered load, offered task-seconds per second per node (e.g. 0.8).
    pub load: f64,
    pub seed: u64,
}

/// What was written.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GenSummary {
    pub jobs: u64,
    pub tasks: u64,
    /// Task-seconds written.
    pub work: f64,
    /// Submission time of the last job (the first is after one inter-arrival gap from 0).
    pub last_submit: f64,
    /// Jobs per second of the arrival process.
    pub rate: f64,
}

impl GenSummary {
    /// The load actually offered: work / (span · nodes).
    pub fn offered_load(&self, nodes: u32) -> f64 {
        if self.last_submit > 0.0 {
            self.work / (self.last_submit * nodes as f64)
        } else {
            0.0
        }
    }
}

/// Writes `cfg.jobs` jobs resampled from `source` to `w`.
pub fn generate<W: Write>(source: &Trace, cfg: &GenConfig, w: W) -> io::Result<GenSummary> {
    generate_with(source, cfg, w, |_| {})
}

/// As [`generate`], calling `written(n)` after the n-th job (progress).
pub fn generate_with<W: Write>(
    source: &Trace,
    cfg: &GenConfig,
    mut w: W,
    mut written: impl FnMut(u64),
) -> io::Result<GenSummary> {
    if source.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: the source trace has no jobs", source.name),
        ));
    }
    if !(cfg.load > 0.0 && cfg.load.is_finite()) || cfg.nodes == 0 {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "--load must be > 0 and --nodes >= 1"));
    }
    let mean_work =
        source.jobs().map(|j| j.durations.iter().map(|&d| d as f64).sum::<f64>()).sum::<f64>() / source.len() as f64;
    if mean_work <= 0.0 {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{}: every task lasts 0 s; no load to scale", source.name),
        ));
    }
    let rate = cfg.load * cfg.nodes as f64 / mean_work;
    let mut rng = Rng::new(cfg.seed);
    let mut t = 0.0f64;
    let mut line: Vec<u8> = Vec::with_capacity(1 << 16);
    let mut sum = GenSummary { rate, ..GenSummary::default() };
    for _ in 0..cfg.jobs {
        t += -(1.0 - rng.unit()).ln() / rate;
        let job = source.job(rng.below(source.len()));
        line.clear();
        write!(line, "{t:.6} {} {}", job.durations.len(), job.mean)?;
        for &d in job.durations {
            line.push(b' ');
            push_u32(&mut line, d);
            sum.work += d as f64;
        }
        line.push(b'\n');
        w.write_all(&line)?;
        sum.jobs += 1;
        sum.tasks += job.durations.len() as u64;
        sum.last_submit = t;
        written(sum.jobs);
    }
    w.flush()?;
    Ok(sum)
}

/// Appends the decimal digits of `v`.
fn push_u32(buf: &mut Vec<u8>, mut v: u32) {
    let mut tmp = [0u8; 10];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.extend_from_slice(&tmp[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_integers() {
        let mut b = Vec::new();
        for v in [0, 7, 10, 4_294_967_295] {
            b.clear();
            push_u32(&mut b, v);
            assert_eq!(String::from_utf8(b.clone()).unwrap(), v.to_string());
        }
    }

    #[test]
    fn resamples_at_the_target_load() {
        let src = Trace::parse("src.tr", "0 2 10.5 10 11\n1 1 100 100\n2 3 1 1 1 1\n".as_bytes()).unwrap();
        let cfg = GenConfig { jobs: 20_000, nodes: 10, load: 0.5, seed: 9 };
        let mut buf = Vec::new();
        let s = generate(&src, &cfg, &mut buf).unwrap();
        let back = Trace::parse("gen.tr", buf.as_slice()).unwrap();
        assert_eq!(back.len(), 20_000);
        assert_eq!(back.tasks() as u64, s.tasks);
        // Every job is one of the source's.
        for j in back.jobs() {
            assert!(src.jobs().any(|s| s.durations == j.durations && s.mean == j.mean));
        }
        assert!((s.offered_load(10) - 0.5).abs() < 0.05, "{}", s.offered_load(10));
        // Same seed, same bytes.
        let mut again = Vec::new();
        generate(&src, &cfg, &mut again).unwrap();
        assert_eq!(buf, again);
    }
}
