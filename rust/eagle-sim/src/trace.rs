//! Hawk/Eagle-format traces: one job per line,
//! `submit_time ntasks mean_task_duration d1 … dn` (seconds, whitespace-separated).
//!
//! Semantics follow the reference simulator (`eagle_simulation.py`, class `Job`):
//!
//! - task durations and the mean are truncated to integers, like `int(float(x))`;
//! - a job whose submission time equals an earlier job's is shifted by +0.01 s per
//!   repeat (the reference's `job_start_tstamps`): the 2nd job at `t` starts at
//!   `t+0.01`, the 3rd at `t+0.01+0.01`, …;
//! - the k-th task a job launches gets `d(k+1)`: the reference `appendleft`s the
//!   durations into a deque and `pop`s from the right, i.e. it consumes them in
//!   file order.
//!
//! Choices where the reference has none (it crashes or misbehaves instead):
//!
//! - blank (whitespace-only) lines are skipped anywhere, including a trailing one;
//! - submission times must never decrease; every number must be finite and
//!   non-negative; `ntasks` must be a positive integer and match the number of
//!   durations. Violations are errors naming the file and the line;
//! - if the +0.01 s shift pushes a job past the next job's submission time (the
//!   reference would then assert on time going backwards), the next job is
//!   submitted at the shifted time instead, so arrivals never go back in time.
//!
//! `.xz` files are decompressed by spawning `xz -dc`, streaming.
//!
//! The whole trace is held compactly: one `Vec<u32>` of every duration plus one
//! offset per job (a 500,000-job Google-like trace is about 60 MB).

use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

/// A trace that could not be read, naming the file and, when it applies, the line.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceError {
    pub file: String,
    /// 1-based line number.
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for TraceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TraceError {}

/// The trace families of the Eagle paper whose parameters we know, detected
/// from the file name.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Family {
    Yahoo,
    Google,
}

impl Family {
    /// Google when the file name contains "GOOG" (any case), Yahoo otherwise.
    pub fn detect(path: &str) -> Family {
        let name = Path::new(path).file_name().map(|n| n.to_string_lossy().to_ascii_uppercase()).unwrap_or_default();
        if name.contains("GOOG") {
            Family::Google
        } else {
            Family::Yahoo
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Family::Yahoo => "yahoo",
            Family::Google => "google",
        }
    }
    /// Short/long cutoff in seconds (epfl-labos/eagle `simulation/README.md`).
    pub fn cutoff(self) -> f64 {
        match self {
            Family::Yahoo => 90.5811,
            Family::Google => 1129.532,
        }
    }
    /// Percent of nodes where short tasks may run, counted from node 0.
    pub fn small_partition_pct(self) -> f64 {
        100.0
    }
    /// Percent of nodes where long tasks may run, counted from the highest id.
    pub fn big_partition_pct(self) -> f64 {
        match self {
            Family::Yahoo => 98.0,
            Family::Google => 83.0,
        }
    }
    /// DLWL heartbeat period in seconds (Yahoo: the README's 8 s; Google: the paper's 3 s).
    pub fn heartbeat(self) -> f64 {
        match self {
            Family::Yahoo => 8.0,
            Family::Google => 3.0,
        }
    }
}

/// One job of a trace, borrowed.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Job<'a> {
    /// Submission time after the duplicate shift.
    pub submit: f64,
    /// The mean field as written (not truncated).
    pub mean: f64,
    /// Task durations, truncated, in file order.
    pub durations: &'a [u32],
}

impl Job<'_> {
    /// `int(mean)`: the estimate and the class are computed from this.
    pub fn int_mean(&self) -> f64 {
        self.mean.trunc()
    }
    pub fn tasks(&self) -> u32 {
        self.durations.len() as u32
    }
}

/// A parsed trace, stored compactly.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    /// Where it came from (for messages).
    pub name: String,
    submit: Vec<f64>,
    mean: Vec<f64>,
    /// `offsets[i]..offsets[i+1]` indexes `durations` for job `i`.
    offsets: Vec<usize>,
    durations: Vec<u32>,
}

impl Trace {
    /// Reads a trace file; `.xz` files are decompressed with `xz -dc`.
    pub fn load(path: &str) -> Result<Trace, TraceError> {
        let err = |message: String| TraceError { file: path.to_string(), line: None, message };
        if path.ends_with(".xz") {
            let mut child = Command::new("xz")
                .arg("-dc")
                .arg(path)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .map_err(|e| err(format!("cannot run `xz -dc` to decompress: {e}")))?;
            let stdout = child.stdout.take().expect("piped stdout");
            let parsed = Trace::parse(path, BufReader::with_capacity(1 << 20, stdout));
            let mut stderr = String::new();
            if let Some(mut s) = child.stderr.take() {
                let _ = s.read_to_string(&mut stderr);
            }
            let status = child.wait().map_err(|e| err(format!("waiting for xz: {e}")))?;
            if !status.success() {
                return Err(err(format!("xz -dc failed ({status}): {}", stderr.trim())));
            }
            parsed
        } else {
            let file = File::open(path).map_err(|e| err(format!("cannot open: {e}")))?;
            Trace::parse(path, BufReader::with_capacity(1 << 20, file))
        }
    }

    /// Parses a trace from a reader; `name` is used in error messages.
    pub fn parse<R: BufRead>(name: &str, mut reader: R) -> Result<Trace, TraceError> {
        let mut t = Trace { name: name.to_string(), offsets: vec![0], ..Trace::default() };
        let mut line = Vec::with_capacity(1 << 16);
        let mut lineno = 0usize;
        let mut last_raw = f64::NEG_INFINITY;
        let mut last_shifted = f64::NEG_INFINITY;
        let mut last_effective = f64::NEG_INFINITY;
        loop {
            line.clear();
            let n = reader.read_until(b'\n', &mut line).map_err(|e| TraceError {
                file: name.to_string(),
                line: Some(lineno + 1),
                message: format!("read error: {e}"),
            })?;
            if n == 0 {
                break;
            }
            lineno += 1;
            let err = |message: String| TraceError { file: name.to_string(), line: Some(lineno), message };
            let mut toks = line.split(|b| b.is_ascii_whitespace()).filter(|t| !t.is_empty());
            let Some(tok_submit) = toks.next() else { continue }; // blank line
            let raw = parse_number(tok_submit).map_err(|m| err(format!("submission time: {m}")))?;
            let tok_n = toks.next().ok_or_else(|| err("missing task count".into()))?;
            let ntasks = parse_count(tok_n).map_err(|m| err(format!("task count: {m}")))?;
            let tok_mean = toks.next().ok_or_else(|| err("missing mean task duration".into()))?;
            let mean = parse_number(tok_mean).map_err(|m| err(format!("mean task duration: {m}")))?;
            let before = t.durations.len();
            for tok in toks {
                let k = t.durations.len() - before + 1;
                let d = parse_truncated(tok).map_err(|m| err(format!("task duration {k}: {m}")))?;
                t.durations.push(d);
            }
            let found = t.durations.len() - before;
            if found != ntasks as usize {
                return Err(err(format!("task count says {ntasks} but the line has {found} durations")));
            }
            if raw < last_raw {
                return Err(err(format!("submission time {raw} is earlier than the previous job's {last_raw}")));
            }
            let shifted = if raw == last_raw { last_shifted + 0.01 } else { raw };
            last_raw = raw;
            last_shifted = shifted;
            let effective = shifted.max(last_effective);
            last_effective = effective;
            t.submit.push(effective);
            t.mean.push(mean);
            t.offsets.push(t.durations.len());
        }
        Ok(t)
    }

    /// Number of jobs.
    pub fn len(&self) -> usize {
        self.submit.len()
    }
    pub fn is_empty(&self) -> bool {
        self.submit.is_empty()
    }
    /// Total number of tasks.
    pub fn tasks(&self) -> usize {
        self.durations.len()
    }
    /// Job `i` (0-based, file order).
    pub fn job(&self, i: usize) -> Job<'_> {
        Job {
            submit: self.submit[i],
            mean: self.mean[i],
            durations: &self.durations[self.offsets[i]..self.offsets[i + 1]],
        }
    }
    /// Submission time of job `i` (after the duplicate shift).
    pub fn submit(&self, i: usize) -> f64 {
        self.submit[i]
    }
    /// Duration of the `k`-th task (file order) of job `i`.
    #[inline]
    pub fn duration(&self, i: usize, k: usize) -> Option<u32> {
        let (a, b) = (self.offsets[i], self.offsets[i + 1]);
        if k < b - a {
            Some(self.durations[a + k])
        } else {
            None
        }
    }
    pub fn jobs(&self) -> impl Iterator<Item = Job<'_>> + '_ {
        (0..self.len()).map(move |i| self.job(i))
    }
}

/// Why a trace line's token is not the number it should be.
#[derive(Debug, PartialEq)]
enum TokenError {
    NotUtf8,
    NotANumber(String),
    NotFinite(String),
    Negative(String),
    NotAnInteger(String),
    /// Too large for a count (the number, quoted when it is the token as written).
    TooLarge(String),
    /// A task count of zero.
    NoTasks,
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TokenError::NotUtf8 => f.write_str("not valid UTF-8"),
            TokenError::NotANumber(s) => write!(f, "'{s}' is not a number"),
            TokenError::NotFinite(s) => write!(f, "'{s}' is not finite"),
            TokenError::Negative(s) => write!(f, "'{s}' is negative"),
            TokenError::NotAnInteger(s) => write!(f, "'{s}' is not a non-negative integer"),
            TokenError::TooLarge(n) => write!(f, "{n} is too large"),
            TokenError::NoTasks => f.write_str("a job needs at least one task"),
        }
    }
}

/// A finite, non-negative number (any syntax Rust's `f64` parser accepts).
fn parse_number(tok: &[u8]) -> Result<f64, TokenError> {
    let s = std::str::from_utf8(tok).map_err(|_| TokenError::NotUtf8)?;
    let v: f64 = s.parse().map_err(|_| TokenError::NotANumber(s.to_string()))?;
    if !v.is_finite() {
        return Err(TokenError::NotFinite(s.to_string()));
    }
    if v < 0.0 {
        return Err(TokenError::Negative(s.to_string()));
    }
    Ok(v)
}

/// A positive integer task count.
fn parse_count(tok: &[u8]) -> Result<u32, TokenError> {
    let s = String::from_utf8_lossy(tok);
    if tok.is_empty() || !tok.iter().all(u8::is_ascii_digit) {
        return Err(TokenError::NotAnInteger(s.into_owned()));
    }
    let v: u32 = s.parse().map_err(|_| TokenError::TooLarge(format!("'{s}'")))?;
    if v == 0 {
        return Err(TokenError::NoTasks);
    }
    Ok(v)
}

/// `int(float(tok))` for a non-negative number, as `u32`.
///
/// Fast path for plain decimals (`123` or `123.45`) with at most 15 significant
/// digits: those convert to `f64` without crossing an integer, so truncating the
/// text equals truncating the float. Anything else goes through `f64`.
#[inline]
fn parse_truncated(tok: &[u8]) -> Result<u32, TokenError> {
    let mut i = 0;
    let mut int: u64 = 0;
    let mut digits = 0;
    while i < tok.len() && tok[i].is_ascii_digit() {
        int = int.wrapping_mul(10).wrapping_add((tok[i] - b'0') as u64);
        digits += 1;
        i += 1;
    }
    let mut plain = digits > 0;
    if plain && i < tok.len() {
        if tok[i] == b'.' {
            i += 1;
            while i < tok.len() && tok[i].is_ascii_digit() {
                digits += 1;
                i += 1;
            }
            plain = i == tok.len();
        } else {
            plain = false;
        }
    }
    if plain && digits <= 15 {
        return u32::try_from(int).map_err(|_| TokenError::TooLarge(int.to_string()));
    }
    let v = parse_number(tok)?.trunc();
    if v > u32::MAX as f64 {
        return Err(TokenError::TooLarge(v.to_string()));
    }
    Ok(v as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Trace, TraceError> {
        Trace::parse("t.tr", s.as_bytes())
    }

    #[test]
    fn truncation_matches_int_float() {
        for (s, v) in
            [("15", 15), ("15.9", 15), ("0.5", 0), ("7.", 7), (".5", 0), ("1e3", 1000), ("2.5e1", 25), ("-0", 0)]
        {
            assert_eq!(parse_truncated(s.as_bytes()), Ok(v), "{s}");
        }
        // 17 significant digits: the float rounds up to 3.0, int() gives 3.
        assert_eq!(parse_truncated(b"2.9999999999999999"), Ok(3));
        assert!(parse_truncated(b"-1").is_err());
        assert!(parse_truncated(b"abc").is_err());
        assert!(parse_truncated(b"inf").is_err());
        assert!(parse_truncated(b"5000000000").is_err());
    }

    #[test]
    fn durations_in_file_order() {
        let t = parse("1.5 3 10.7 5 20.9 7\n").unwrap();
        let j = t.job(0);
        assert_eq!(j.durations, &[5, 20, 7]);
        assert_eq!(j.int_mean(), 10.0);
        assert_eq!(t.duration(0, 1), Some(20));
        assert_eq!(t.duration(0, 3), None);
    }

    #[test]
    fn blank_lines_and_no_final_newline() {
        let t = parse("1 1 2 2\n\n2 1 3 3\n   \n").unwrap();
        assert_eq!(t.len(), 2);
        let t = parse("1 1 2 2\r\n2 1 3 3").unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t.job(1).durations, &[3]);
    }
}
