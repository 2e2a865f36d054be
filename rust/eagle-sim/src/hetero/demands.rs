//! `eagle-sim gen --classes FILE`: per-job resource demands from class statistics.
//!
//! Our traces carry no demands. Each job of the generated trace gets one class,
//! drawn with the classes file's proportions (normalized to sum to 1), and one
//! demand that all its tasks share (like a Spark stage's resource profile): for
//! each resource, the class mean times a factor drawn uniformly in
//! `[1 − SPREAD, 1 + SPREAD]`, so the class mean is the expectation and jobs of a
//! class differ as in the paper (§2: "the job class profile is only an estimate of
//! a job's actual profile"). The demands go to `OUT.demands`, one line per job.

use super::files::ClassFile;
use eagle_core::rng::Rng;
use std::io::{self, Write};

/// Half-width of the uniform factor around a class's mean demand.
pub const SPREAD: f64 = 0.5;

/// The demands file that goes with trace `trace_path`.
pub fn path_for(trace_path: &str) -> String {
    format!("{trace_path}.demands")
}

/// Writes `jobs` demand lines drawn from `classes` with `seed`.
pub fn write<W: Write>(classes: &ClassFile, jobs: u64, seed: u64, mut w: W) -> io::Result<()> {
    let total: f64 = classes.classes.iter().map(|c| c.proportion).sum();
    let mut rng = Rng::new(seed ^ 0xDE3A_4D50_C1A5_5E50);
    writeln!(w, "# per-job demands: class, then one amount per resource (see eagle-sim gen --classes)")?;
    writeln!(w, "class {}", classes.resources.join(" "))?;
    let mut line = String::new();
    for _ in 0..jobs {
        let mut u = rng.unit() * total;
        let mut pick = classes.classes.len() - 1;
        for (i, c) in classes.classes.iter().enumerate() {
            if u < c.proportion {
                pick = i;
                break;
            }
            u -= c.proportion;
        }
        let c = &classes.classes[pick];
        line.clear();
        line.push_str(&c.name);
        for &mean in &c.demand {
            let f = 1.0 - SPREAD + 2.0 * SPREAD * rng.unit();
            line.push_str(&format!(" {:.6}", mean * f));
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::super::files::Demands;
    use super::*;

    #[test]
    fn draws_classes_and_demands_around_the_means() {
        let classes =
            ClassFile::parse("c", "class proportion cores memory\na 0.25 0.02 0.01\nb 0.75 0.20 0.06\n").unwrap();
        let mut buf = Vec::new();
        write(&classes, 20_000, 4, &mut buf).unwrap();
        let d = Demands::parse("d", std::str::from_utf8(&buf).unwrap()).unwrap();
        assert_eq!(d.demand.len(), 20_000);
        let share_a = d.class.iter().filter(|c| *c == "a").count() as f64 / 20_000.0;
        assert!((share_a - 0.25).abs() < 0.02, "{share_a}");
        let b: Vec<_> = d.class.iter().zip(&d.demand).filter(|(c, _)| *c == "b").map(|(_, r)| r.get(0)).collect();
        let mean = b.iter().sum::<f64>() / b.len() as f64;
        assert!((mean - 0.20).abs() < 0.005, "{mean}");
        assert!(b.iter().all(|&v| (0.1 - 1e-6..=0.3 + 1e-6).contains(&v)));
        let mut again = Vec::new();
        write(&classes, 20_000, 4, &mut again).unwrap();
        assert_eq!(buf, again, "same seed, same bytes");
    }
}
