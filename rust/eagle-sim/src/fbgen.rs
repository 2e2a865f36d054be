//! A Facebook-like trace synthesized from the statistics the Eirene paper publishes
//! (`eagle-sim gen --like fb`), since the real FB.tr is not available here.
//!
//! What the paper gives (Table I, Table IV) and how each figure is used:
//!
//! | statistic (paper)                                   | value        | used as |
//! |-----------------------------------------------------|--------------|---------|
//! | cutoff task runtime (Table IV)                      | 76.6 s       | short jobs' mean task duration stays below it; long jobs' above 90.6 s, so Yahoo's default cutoff classifies them alike |
//! | short jobs (Table IV)                               | 98.0%        | P(short job) |
//! | task-seconds of short jobs (Table IV)               | 2%           | long jobs' size is scaled so that short work is 2% of all work |
//! | short tasks / short jobs (Table I: 11,724,548 / 1,145,663) | 10.2  | mean tasks per short job (log-normal, σ = 1) |
//! | short jobs with a straggler (Table I)               | 34.3%        | P(a short job of ≥ 2 tasks has stragglers), raised so that 34.3% of *all* short jobs do |
//! | straggler short tasks (Table I)                     | 8.2%         | share of the tasks of a straggling job that straggle, so that 8.2% of short tasks do |
//!
//! A short job draws a base duration `b` (log-normal, median 12 s, within 5-40 s);
//! its tasks run `b × U(0.8, 1.2)`, and a straggler runs `b × U(1.9, 8)` (`U(3.7, 8)`
//! with two tasks), so above 1.5× the job's median (Mantri's definition) and up to 8×
//! as Dolly reports (§II-D). At
//! most half of a job's tasks straggle, so the median stays a normal task. Long jobs
//! (2%) have log-normal task counts around 1,000 and task durations `U(100, 700)` s.
//! Arrivals are Poisson at the rate that offers `load` task-seconds per second per
//! node on `nodes` nodes, as `gen` does for resampled traces. The paper does not
//! publish the trace's arrival pattern or the long jobs' shapes: those are ours.

use crate::gen::{GenConfig, GenSummary};
use eagle_core::rng::Rng;
use std::io::{self, Write};

/// Table IV: Facebook's cutoff task runtime, seconds.
pub const FB_CUTOFF: f64 = 76.6;
const SHORT_JOBS: f64 = 0.98;
const SHORT_WORK: f64 = 0.02;
const SHORT_TASKS_PER_JOB: f64 = 11_724_548.0 / 1_145_663.0;
const STRAGGLER_JOBS: f64 = 0.343;
const STRAGGLER_TASKS: f64 = 0.082;

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut Rng) -> f64 {
    let u1 = 1.0 - rng.unit();
    let u2 = rng.unit();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// A log-normal draw with the given mean and σ of the underlying normal.
fn lognormal_mean(rng: &mut Rng, mean: f64, sigma: f64) -> f64 {
    (mean.ln() - sigma * sigma / 2.0 + sigma * normal(rng)).exp()
}

fn uniform(rng: &mut Rng, lo: f64, hi: f64) -> f64 {
    lo + (hi - lo) * rng.unit()
}

/// One short job's task durations.
fn short_job(rng: &mut Rng, p_straggling: f64, share: f64) -> Vec<u32> {
    let n = (lognormal_mean(rng, SHORT_TASKS_PER_JOB, 1.0).round() as usize).clamp(1, 2000);
    let b = (12.0 * (0.9 * normal(rng)).exp()).clamp(5.0, 40.0);
    let mut d: Vec<f64> = (0..n).map(|_| b * uniform(rng, 0.8, 1.2)).collect();
    if n >= 2 && rng.unit() < p_straggling {
        let k = ((share * n as f64).round() as usize).clamp(1, n / 2);
        // Above 1.5× any median of normal tasks (≤ 1.2 b); with two tasks the median is
        // their mean, so a straggler must run above 3× the other (≤ 3.6 b).
        let lo = if n == 2 { 3.7 } else { 1.9 };
        for _ in 0..k {
            let i = rng.below(n);
            d[i] = b * uniform(rng, lo, 8.0);
        }
    }
    // Keep the job short: its mean task duration below the cutoff.
    let mean = d.iter().sum::<f64>() / n as f64;
    let scale = if mean >= FB_CUTOFF - 1.0 { (FB_CUTOFF - 1.0) / mean } else { 1.0 };
    d.iter().map(|&x| (x * scale).round().max(1.0) as u32).collect()
}

/// One long job's task durations, `tasks_mean` tasks on average.
fn long_job(rng: &mut Rng, tasks_mean: f64) -> Vec<u32> {
    let n = (lognormal_mean(rng, tasks_mean, 1.0).round() as usize).clamp(1, 50_000);
    (0..n).map(|_| uniform(rng, 100.0, 700.0).round() as u32).collect()
}

/// Writes `cfg.jobs` Facebook-like jobs to `w` (the format `trace` reads).
pub fn generate<W: Write>(cfg: &GenConfig, mut w: W) -> io::Result<GenSummary> {
    if !(cfg.load > 0.0 && cfg.load.is_finite()) || cfg.nodes == 0 {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "--load must be > 0 and --nodes >= 1"));
    }
    // Single-task short jobs cannot straggle; a multi-task job straggles with the
    // probability that makes 34.3% of all short jobs straggle.
    let mut rng = Rng::new(cfg.seed);
    let p_multi = {
        let mut probe = Rng::new(cfg.seed ^ 0xFB);
        let m = 20_000;
        (0..m).filter(|_| lognormal_mean(&mut probe, SHORT_TASKS_PER_JOB, 1.0).round() >= 2.0).count() as f64 / m as f64
    };
    let p_straggling = (STRAGGLER_JOBS / p_multi).min(1.0);
    let share = (STRAGGLER_TASKS / STRAGGLER_JOBS).min(0.5);
    // Short jobs first; then long jobs sized so that short work is SHORT_WORK of the total
    // (a long task lasts 400 s on average).
    let short: Vec<bool> = (0..cfg.jobs).map(|_| rng.unit() < SHORT_JOBS).collect();
    let mut jobs: Vec<Vec<u32>> =
        short.iter().map(|&s| if s { short_job(&mut rng, p_straggling, share) } else { Vec::new() }).collect();
    let short_work: f64 = jobs.iter().flatten().map(|&d| d as f64).sum();
    let n_long = short.iter().filter(|&&s| !s).count().max(1);
    let long_tasks_mean = (short_work * (1.0 - SHORT_WORK) / SHORT_WORK / n_long as f64 / 400.0).max(1.0);
    for (d, _) in jobs.iter_mut().zip(&short).filter(|(_, s)| !**s) {
        *d = long_job(&mut rng, long_tasks_mean);
    }
    let work: f64 = jobs.iter().flatten().map(|&d| d as f64).sum();
    let rate = cfg.load * cfg.nodes as f64 / (work / jobs.len().max(1) as f64);
    let mut sum = GenSummary { rate, ..GenSummary::default() };
    let mut t = 0.0f64;
    let mut line = String::with_capacity(1 << 16);
    for d in &jobs {
        t += -(1.0 - rng.unit()).ln() / rate;
        let mean = d.iter().map(|&x| x as f64).sum::<f64>() / d.len() as f64;
        line.clear();
        use std::fmt::Write as _;
        let _ = write!(line, "{t:.6} {} {mean:.4}", d.len());
        for &x in d {
            let _ = write!(line, " {x}");
            sum.work += x as f64;
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
        sum.jobs += 1;
        sum.tasks += d.len() as u64;
        sum.last_submit = t;
    }
    w.flush()?;
    Ok(sum)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::Trace;

    #[test]
    fn follows_the_papers_statistics() {
        let cfg = GenConfig { jobs: 20_000, nodes: 1000, load: 0.8, seed: 3 };
        let mut buf = Vec::new();
        let s = generate(&cfg, &mut buf).unwrap();
        let t = Trace::parse("fb-like.tr", buf.as_slice()).unwrap();
        assert_eq!(t.len(), 20_000);
        let (mut short_jobs, mut short_tasks, mut short_work, mut work) = (0usize, 0usize, 0.0, 0.0);
        let (mut straggling_jobs, mut straggler_tasks) = (0usize, 0usize);
        for j in t.jobs() {
            let w: f64 = j.durations.iter().map(|&d| d as f64).sum();
            work += w;
            if j.int_mean() <= FB_CUTOFF {
                short_jobs += 1;
                short_tasks += j.durations.len();
                short_work += w;
                let mut d = j.durations.to_vec();
                d.sort_unstable();
                let n = d.len();
                let median = if n % 2 == 1 { d[n / 2] as f64 } else { (d[n / 2 - 1] + d[n / 2]) as f64 / 2.0 };
                let s = d.iter().filter(|&&x| x as f64 > 1.5 * median).count();
                straggler_tasks += s;
                straggling_jobs += (s > 0) as usize;
            } else {
                assert!(j.int_mean() > 90.6, "long jobs are long under either cutoff");
            }
        }
        let frac = |a: f64, b: f64| a / b;
        assert!((frac(short_jobs as f64, 20_000.0) - 0.98).abs() < 0.01);
        assert!((frac(short_tasks as f64, short_jobs as f64) - 10.2).abs() < 1.5);
        assert!((frac(short_work, work) - 0.02).abs() < 0.01, "short work {}", short_work / work);
        assert!((frac(straggling_jobs as f64, short_jobs as f64) - 0.343).abs() < 0.05, "{straggling_jobs}");
        assert!((frac(straggler_tasks as f64, short_tasks as f64) - 0.082).abs() < 0.03, "{straggler_tasks}");
        assert!((s.offered_load(1000) - 0.8).abs() < 0.1);
        // Same seed, same bytes.
        let mut again = Vec::new();
        generate(&cfg, &mut again).unwrap();
        assert_eq!(buf, again);
    }
}
