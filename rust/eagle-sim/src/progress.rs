//! Progress of a long command on stderr.
//!
//! - stderr is a terminal: an [`indicatif`] bar (position, percent, elapsed, ETA);
//! - stderr is a file or a pipe (CI logs, scripts that capture it): one plain line at
//!   every 10 % step, and at least one every [`LINE_EVERY`] while a step takes longer;
//! - `--quiet`: nothing.
//!
//! Nothing is shown during the first [`GRACE`] of a command (unless
//! `EAGLE_SIM_PROGRESS_AFTER_MS` says otherwise), so short runs stay silent. [`Progress::set`] is called once per unit of
//! work (a finished job): it only looks at the clock every `total / 1000` units, so it
//! costs nothing measurable in the simulation loop.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

/// Nothing is shown before a command has run this long.
pub const GRACE: Duration = Duration::from_secs(1);
/// Without a terminal, a line at least this often (besides the 10 % steps).
pub const LINE_EVERY: Duration = Duration::from_secs(30);

/// Where progress goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// An indicatif bar (stderr is a terminal).
    Bar,
    /// Plain lines (stderr is not a terminal).
    Lines,
    /// Nothing (`--quiet`).
    Off,
}

impl Mode {
    /// `Off` when `quiet`, else `Bar` on a terminal and `Lines` otherwise.
    pub fn detect(quiet: bool) -> Mode {
        if quiet {
            Mode::Off
        } else if std::io::stderr().is_terminal() {
            Mode::Bar
        } else {
            Mode::Lines
        }
    }
}

/// Progress of `total` units of work (`unit`: "jobs").
pub struct Progress {
    mode: Mode,
    label: String,
    unit: &'static str,
    total: u64,
    /// Look at the clock every `stride` units.
    stride: u64,
    next_check: u64,
    started: Instant,
    grace: Duration,
    bar: Option<ProgressBar>,
    /// Lines mode: the last 10 % step printed, and when.
    last_step: Option<u64>,
    last_line: Instant,
    /// Lines mode: where the lines go (stderr, or a buffer in tests).
    sink: Box<dyn Write + Send>,
}

impl Progress {
    /// Progress on stderr, shown after [`GRACE`] (or after `EAGLE_SIM_PROGRESS_AFTER_MS`
    /// milliseconds when that variable is set: tests use 0).
    pub fn new(mode: Mode, label: impl Into<String>, unit: &'static str, total: u64) -> Progress {
        let grace = std::env::var("EAGLE_SIM_PROGRESS_AFTER_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(GRACE, Duration::from_millis);
        Progress::with_sink(mode, label, unit, total, grace, Box::new(std::io::stderr()))
    }

    /// As [`Progress::new`], with the grace period and the lines' destination given.
    pub fn with_sink(
        mode: Mode,
        label: impl Into<String>,
        unit: &'static str,
        total: u64,
        grace: Duration,
        sink: Box<dyn Write + Send>,
    ) -> Progress {
        let now = Instant::now();
        Progress {
            mode,
            label: label.into(),
            unit,
            total,
            stride: (total / 1000).max(1),
            next_check: 0,
            started: now,
            grace,
            bar: None,
            last_step: None,
            last_line: now,
            sink,
        }
    }

    /// `done` units of `total` are finished.
    #[inline]
    pub fn set(&mut self, done: u64) {
        if self.mode == Mode::Off || done < self.next_check {
            return;
        }
        self.next_check = done + self.stride;
        self.update(done);
    }

    #[cold]
    fn update(&mut self, done: u64) {
        let elapsed = self.started.elapsed();
        match self.mode {
            Mode::Off => {}
            Mode::Bar => {
                // The bar exists (hidden) from the start, so that its elapsed time and its
                // rate, hence the ETA, cover the whole run.
                let bar = self.bar.get_or_insert_with(|| {
                    let b = ProgressBar::with_draw_target(Some(self.total), ProgressDrawTarget::hidden());
                    let style = ProgressStyle::with_template(&format!(
                        "{{prefix}} {{wide_bar}} {{pos}}/{{len}} {} ({{percent}}%) {{elapsed}}, ETA {{eta}}",
                        self.unit
                    ))
                    .expect("valid template")
                    .progress_chars("=> ");
                    b.set_style(style);
                    b.set_prefix(self.label.clone());
                    b
                });
                bar.set_position(done);
                if bar.is_hidden() && elapsed >= self.grace {
                    bar.set_draw_target(ProgressDrawTarget::stderr());
                }
            }
            Mode::Lines => {
                if elapsed < self.grace {
                    return;
                }
                let step = (done.min(self.total) * 10).checked_div(self.total).unwrap_or(10);
                let due = self.last_line.elapsed() >= LINE_EVERY;
                if self.last_step.is_none_or(|s| step > s) || due {
                    self.last_step = Some(step);
                    self.last_line = Instant::now();
                    let line = self.line(done, elapsed);
                    let _ = writeln!(self.sink, "{line}");
                    let _ = self.sink.flush();
                }
            }
        }
    }

    /// `LABEL: 40% (1,345/3,363 jobs), 12.3 s elapsed, ETA 18 s`.
    fn line(&self, done: u64, elapsed: Duration) -> String {
        let pct = if self.total == 0 { 100.0 } else { 100.0 * done as f64 / self.total as f64 };
        let secs = elapsed.as_secs_f64();
        let eta = if done == 0 || done >= self.total {
            String::new()
        } else {
            format!(", ETA {:.0} s", secs * (self.total - done) as f64 / done as f64)
        };
        format!("{}: {pct:.0}% ({done}/{} {}), {secs:.1} s elapsed{eta}", self.label, self.total, self.unit)
    }

    /// The work is over: clears the bar (the result follows on stdout); in lines
    /// mode, a last line if progress was shown and 100 % was not printed yet.
    pub fn finish(&mut self, done: u64) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
        if self.mode == Mode::Lines && self.last_step.is_some_and(|s| s < 10) {
            let line = self.line(done, self.started.elapsed());
            let _ = writeln!(self.sink, "{line}");
            let _ = self.sink.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    /// A `Write` whose bytes the test can read afterwards.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl Shared {
        fn lines(&self) -> Vec<String> {
            String::from_utf8(self.0.lock().unwrap().clone()).unwrap().lines().map(String::from).collect()
        }
    }

    #[test]
    fn lines_mode_prints_one_line_per_ten_percent() {
        let out = Shared::default();
        let mut p =
            Progress::with_sink(Mode::Lines, "eagle-sim run", "jobs", 10_000, Duration::ZERO, Box::new(out.clone()));
        for done in 1..=10_000 {
            p.set(done);
        }
        p.finish(10_000);
        let lines = out.lines();
        // The first check after the grace period (here: the first unit), then every
        // 10 % step; the last check falls short of 10,000, so `finish` prints 100 %.
        let pcts: Vec<&str> = lines.iter().map(|l| l.split(' ').nth(2).unwrap()).collect();
        assert_eq!(pcts, ["0%", "10%", "20%", "30%", "40%", "50%", "60%", "70%", "80%", "90%", "100%"], "{lines:?}");
        assert!(lines[5].starts_with("eagle-sim run: 50% (50") && lines[5].contains("/10000 jobs), "), "{lines:?}");
        assert!(lines[5].contains(" s elapsed, ETA "), "{lines:?}");
        assert!(
            lines[10].starts_with("eagle-sim run: 100% (10000/10000 jobs)") && !lines[10].contains("ETA"),
            "{lines:?}"
        );
    }

    #[test]
    fn nothing_during_the_grace_period_or_when_quiet() {
        let out = Shared::default();
        let mut p =
            Progress::with_sink(Mode::Lines, "x", "jobs", 100, Duration::from_secs(3600), Box::new(out.clone()));
        (1..=100).for_each(|d| p.set(d));
        p.finish(100);
        assert!(out.lines().is_empty());
        let mut q = Progress::with_sink(Mode::Off, "x", "jobs", 100, Duration::ZERO, Box::new(out.clone()));
        (1..=100).for_each(|d| q.set(d));
        q.finish(100);
        assert!(out.lines().is_empty());
    }

    #[test]
    fn finish_completes_an_interrupted_series() {
        let out = Shared::default();
        let mut p = Progress::with_sink(Mode::Lines, "x", "jobs", 100, Duration::ZERO, Box::new(out.clone()));
        (1..=35).for_each(|d| p.set(d));
        p.finish(100);
        let lines = out.lines();
        assert_eq!(lines.last().unwrap().split(' ').nth(1), Some("100%"), "{lines:?}");
        assert_eq!(lines.len(), 5, "{lines:?}"); // 1 %, 10 %, 20 %, 30 %, then 100 %
    }
}
