//! The simulator's error types: [`ValueError`] for a command-line value, [`EngineFault`]
//! for an engine decision that breaks the simulator's contract, and [`SimError`] for
//! everything a run can fail on (bad flags, unreadable inputs, an engine fault).
//!
//! `eagle-sim` prints the `Display` text after `eagle-sim: error:` (or clap's usage error).

use crate::trace::TraceError;
use eagle_core::{ConfigError, JobId, NodeId, PlacementError, System};
use std::fmt;

/// A flag's value clap's parser rejects (clap names the flag and the value before it).
#[derive(Clone, Debug, PartialEq)]
pub enum ValueError {
    /// A count of 0 where at least 1 is needed.
    Zero,
    /// Not an integer (the parser's message).
    NotAnInteger(String),
    /// Not a number (the parser's message).
    NotANumber(String),
    NotFinite,
    Negative,
    NotPositive,
    /// Not a finite number > 0.
    NotFinitePositive,
    /// Not a finite number >= 0.
    NotFiniteNonNegative,
    /// Not a number in (0, 1].
    NotAFraction,
    /// `--congestion` is not three numbers.
    CongestionFormat,
    /// `--congestion`'s END is before START, or its FACTOR negative.
    CongestionRange,
}

impl fmt::Display for ValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ValueError::Zero => f.write_str("must be at least 1"),
            ValueError::NotAnInteger(e) => write!(f, "{e} (expected an integer >= 1)"),
            ValueError::NotANumber(e) => f.write_str(e),
            ValueError::NotFinite => f.write_str("must be a finite number"),
            ValueError::Negative => f.write_str("must be >= 0"),
            ValueError::NotPositive => f.write_str("must be > 0"),
            ValueError::NotFinitePositive => f.write_str("must be a finite number > 0"),
            ValueError::NotFiniteNonNegative => f.write_str("must be a finite number >= 0"),
            ValueError::NotAFraction => f.write_str("must be a number in (0, 1]"),
            ValueError::CongestionFormat => f.write_str("expected START:END:FACTOR (numbers)"),
            ValueError::CongestionRange => f.write_str("expected START:END:FACTOR with END >= START and FACTOR >= 0"),
        }
    }
}

impl std::error::Error for ValueError {}

/// An engine decision the simulator cannot carry out: an engine bug, never an input error.
#[derive(Clone, Debug, PartialEq)]
pub enum EngineFault {
    /// A job id other than the next trace position.
    SparseId {
        id: JobId,
        position: usize,
    },
    UnknownJob(JobId),
    /// A task index past the job's tasks.
    NoSuchTask {
        job: JobId,
        task: u32,
        tasks: u32,
    },
    LaunchedInPast {
        job: JobId,
        task: u32,
        start: f64,
        now: f64,
    },
    ClonedInPast {
        job: JobId,
        task: u32,
        start: f64,
        now: f64,
    },
    TimerInPast {
        at: f64,
        now: f64,
        msg: String,
    },
    /// An Eirene decision (`what`: "engine cloned a task", ...) while Eirene is off.
    WithoutEirene(&'static str),
    CompletedTwice {
        job: JobId,
        task: u32,
    },
    CopyOfCompleted {
        job: JobId,
        task: u32,
    },
    TwoCopies {
        job: JobId,
        task: u32,
        node: NodeId,
    },
    CancelledNothing {
        job: JobId,
        task: u32,
        node: NodeId,
    },
}

impl fmt::Display for EngineFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineFault::SparseId { id, position } => write!(
                f,
                "engine assigned {id:?} to the job on trace position {position}; the simulator needs dense ids in submission order"
            ),
            EngineFault::UnknownJob(job) => write!(f, "engine launched a task of unknown {job:?}"),
            EngineFault::NoSuchTask { job, task, tasks } => {
                write!(f, "engine launched task {task} of {job:?}, which has only {tasks} tasks")
            }
            EngineFault::LaunchedInPast { job, task, start, now } => {
                write!(f, "engine launched {job:?} task {task} at {start}, before now ({now})")
            }
            EngineFault::ClonedInPast { job, task, start, now } => {
                write!(f, "engine cloned {job:?} task {task} at {start}, before now ({now})")
            }
            EngineFault::TimerInPast { at, now, msg } => write!(f, "engine set a timer for {at}, before now ({now}): {msg}"),
            EngineFault::WithoutEirene(what) => write!(f, "{what} without Eirene"),
            EngineFault::CompletedTwice { job, task } => {
                write!(f, "task {task} of {job:?} completed twice (no cancel for its second copy)")
            }
            EngineFault::CopyOfCompleted { job, task } => {
                write!(f, "engine launched a copy of task {task} of {job:?}, which already completed")
            }
            EngineFault::TwoCopies { job, task, node } => {
                write!(f, "engine ran two copies of task {task} of {job:?} on {node:?}")
            }
            EngineFault::CancelledNothing { job, task, node } => {
                write!(f, "engine cancelled task {task} of {job:?} on {node:?}, where no copy runs")
            }
        }
    }
}

impl std::error::Error for EngineFault {}

/// Why a simulation could not be configured or run.
#[derive(Clone, Debug, PartialEq)]
pub enum SimError {
    BadEstimate(String),
    BadLocality(String),
    /// A resource-aware system's name where an engine system is needed.
    NeedsMachines(&'static str),
    OrderNotAdaptive(System),
    /// `--satc` / `--ccdm` with a system other than eagle and eagle-adaptive.
    EireneSystem(System),
    NoConcurrentMigrations,
    BadDmt(f64),
    /// The assembled engine configuration is invalid.
    BadConfiguration(ConfigError),
    NoNodes,
    NoSlots,
    /// The engine rejected its configuration.
    Config(ConfigError),
    Engine(EngineFault),
    /// Jobs left, nothing left to do (`missing`: up to five of them).
    Stalled {
        now: f64,
        left: usize,
        jobs: usize,
        missing: Vec<usize>,
    },
    /// A placer's run ended with jobs left and tasks queued.
    PlacerStalled {
        left: usize,
        jobs: usize,
        queued: usize,
    },
    Trace(TraceError),
    File(FileError),
    /// The demands file next to the trace does not exist.
    NoDemands(String),
    DemandCount {
        path: String,
        lines: usize,
        jobs: usize,
        trace: String,
    },
    /// The machines file has no `cores` column to count slots from.
    NoCores(String),
    LotesPlan(PlacementError),
    /// A placer rejected trace job `job`.
    Placement {
        job: usize,
        cause: PlacementError,
    },
    Placer(PlacementError),
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::BadEstimate(s) => {
                write!(f, "bad estimate '{s}' (expected mean, under:X with 0<=X<=1, or over:X with X>=1)")
            }
            SimError::BadLocality(s) => {
                write!(f, "bad --locality '{s}' (expected fixed:SECONDS or dynamic[:INITIAL:MIN:MAX[:WINDOW]])")
            }
            SimError::NeedsMachines(system) => write!(f, "--system {system} needs --machines FILE"),
            SimError::OrderNotAdaptive(system) => write!(f, "--order applies to eagle-adaptive, not {system:?}"),
            SimError::EireneSystem(system) => {
                write!(f, "--satc and --ccdm run on eagle and eagle-adaptive, not on {system}")
            }
            SimError::NoConcurrentMigrations => f.write_str("--cm must be at least 1"),
            SimError::BadDmt(v) => write!(f, "--dmt must be a finite number of seconds >= 0, got {v}"),
            SimError::BadConfiguration(e) => write!(f, "bad configuration: {e}"),
            SimError::NoNodes => f.write_str("--nodes must be at least 1"),
            SimError::NoSlots => f.write_str("slots per node must be at least 1"),
            SimError::Config(e) => write!(f, "{e}"),
            SimError::Engine(e) => write!(f, "{e}"),
            SimError::Stalled { now, left, jobs, missing } => write!(
                f,
                "simulation stalled at t={now}: {left} of {jobs} jobs never completed (e.g. trace jobs {missing:?}), \
                 but the engine has nothing left to do"
            ),
            SimError::PlacerStalled { left, jobs, queued } => {
                write!(f, "simulation stalled: {left} of {jobs} jobs never completed, {queued} tasks still queued")
            }
            SimError::Trace(e) => write!(f, "{e}"),
            SimError::File(e) => write!(f, "{e}"),
            SimError::NoDemands(path) => write!(
                f,
                "{path}: not found; write demands with `eagle-sim gen ... --classes FILE` or pass --demands FILE"
            ),
            SimError::DemandCount { path, lines, jobs, trace } => {
                write!(f, "{path}: {lines} demand lines for the {jobs} jobs of {trace}")
            }
            SimError::NoCores(path) => {
                write!(f, "{path}: resource-blind systems count slots from a 'cores' column, and there is none")
            }
            SimError::LotesPlan(e) => write!(f, "LoTES plan: {e}"),
            SimError::Placement { job, cause } => write!(f, "trace job {job} (line {}): {cause}", job + 1),
            SimError::Placer(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for SimError {}

/// `?` on the errors a run passes on as they are.
macro_rules! from_cause {
    ($($cause:ty => $variant:ident),*) => {$(
        impl From<$cause> for SimError {
            fn from(e: $cause) -> Self {
                SimError::$variant(e)
            }
        }
    )*};
}

from_cause!(EngineFault => Engine, ConfigError => Config, TraceError => Trace, FileError => File, PlacementError => Placer);

/// A bad input file, naming the file and (when it applies) the 1-based line.
#[derive(Clone, Debug, PartialEq)]
pub struct FileError {
    pub file: String,
    pub line: Option<usize>,
    pub message: String,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{}: {}", self.file, l, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}
