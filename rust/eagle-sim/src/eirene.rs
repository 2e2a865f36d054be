//! Eirene in the simulator: the host side of CCDM and SATC (see `eagle_core::eirene`).
//!
//! What the engine decides (which task, which clone, which copy to cancel, when a
//! migration ends) stays in the engine. What a cluster would provide is modelled
//! here, as the paper's simulator does (§IV-A, Table V):
//!
//! - **Migrated input.** A task (or clone) the engine flags with
//!   `Output::InputMigrated` reads its input from memory and runs `max(d − DMT, 0)`
//!   seconds instead of its trace duration `d`.
//! - **Migrations take time and bandwidth.** Each migration takes DMT seconds (the
//!   engine's timer); CM bounds how many run per node at once, i.e. the node's
//!   migration bandwidth is CM × 64 MiB / DMT (99.6 MiB/s with Table V's values). The
//!   fast lane adds at most one stream per slot. Migrations do not slow running tasks.
//! - **Clones (PRT = random).** The traces give no runtime for a second copy, so a
//!   clone runs for the trace duration of a task of the same job drawn at random.
//!   Stragglers are whatever the trace holds: a task is a straggler when it runs above
//!   1.5× its job's median (Mantri's definition, §II-D); [`straggler_tasks`] counts them.
//! - **Cancellation.** When the engine cancels a copy (`Output::Cancel`), it ends at
//!   once; its pending end event becomes stale and is skipped.
//!
//! Every launch carries its copy number in [`crate::events::Kind::CopyEnd`], so the
//! run loop knows which task a copy ran and whether it counts for its job: each task
//! completes exactly once, with its first copy.

use crate::error::{EngineFault, SimError};
use crate::trace::Trace;
use clap::Args;
use eagle_core::eirene::EireneParams;
use eagle_core::rng::Rng;
use eagle_core::{JobId, NodeId, System};
use std::collections::HashMap;

/// `run`'s Eirene flags.
#[derive(Args, Debug, Clone, Default)]
pub struct EireneArgs {
    /// Eirene: Scheduler-Aware Task Cloning (eagle, eagle-adaptive)
    #[arg(long)]
    pub satc: bool,
    /// Eirene: Coordinated Cold Data Migration (eagle, eagle-adaptive)
    #[arg(long)]
    pub ccdm: bool,
    /// CCDM: concurrent migrations per node [default: 10]
    #[arg(long, value_name = "N", requires = "ccdm")]
    pub cm: Option<u32>,
    /// CCDM: migration requests per probe [default: 2]
    #[arg(long, value_name = "N", requires = "ccdm")]
    pub mpp: Option<u32>,
    /// CCDM: seconds a migration takes and a migrated task saves [default: 6.42]
    #[arg(long, value_name = "S", requires = "ccdm")]
    pub dmt: Option<f64>,
}

impl EireneArgs {
    /// The engine parameters; an error names a bad flag.
    pub fn params(&self, system: System) -> Result<EireneParams, SimError> {
        let d = EireneParams::default();
        let p = EireneParams {
            satc: self.satc,
            ccdm: self.ccdm,
            cm: self.cm.unwrap_or(d.cm),
            mpp: self.mpp.unwrap_or(d.mpp),
            dmt: self.dmt.unwrap_or(d.dmt),
        };
        if p.on() && !matches!(system, System::Eagle | System::EagleAdaptive) {
            return Err(SimError::EireneSystem(system));
        }
        if p.cm == 0 {
            return Err(SimError::NoConcurrentMigrations);
        }
        if !(p.dmt >= 0.0 && p.dmt.is_finite()) {
            return Err(SimError::BadDmt(p.dmt));
        }
        Ok(p)
    }
}

/// Where a copy is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    Running,
    /// Cancelled: an end event at the cancel time is queued.
    Killed,
    /// Ended (its other end event, if any, is stale).
    Ended,
}

#[derive(Copy, Clone, Debug)]
struct Copy {
    node: NodeId,
    job: JobId,
    task: u32,
    state: State,
}

/// What a copy's end event means.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum End {
    /// The copy ran to its end; `first` when it completes its task for the job.
    Natural { task: u32, first: bool },
    /// A cancelled copy ends (it never counts for its job).
    Killed { task: u32 },
    /// The other event of a copy that already ended: skip it.
    Stale,
}

/// The copies of a run.
pub struct Copies {
    dmt: f64,
    rng: Rng,
    copies: Vec<Copy>,
    /// Running copies by (node, job, task), to find the one a cancel names.
    running: HashMap<(u32, u32, u32), u32>,
    /// Per job, which tasks completed (allocated at the job's first launch).
    done: Vec<Vec<bool>>,
    /// The next launch reads migrated input (set by `Output::InputMigrated`).
    migrated_next: Option<(NodeId, JobId, u32)>,
}

impl Copies {
    pub fn new(params: &EireneParams, jobs: usize, seed: u64) -> Copies {
        Copies {
            dmt: params.dmt,
            rng: Rng::new(seed ^ 0xC10E_5EED_0000_0007),
            copies: Vec::new(),
            running: HashMap::new(),
            done: vec![Vec::new(); jobs],
            migrated_next: None,
        }
    }

    /// The engine flagged the next launch of `task` on `node` as reading migrated input.
    pub fn input_migrated(&mut self, node: NodeId, job: JobId, task: u32) {
        self.migrated_next = Some((node, job, task));
    }

    /// A copy starts: returns its number and its runtime (`d`, less DMT when its input
    /// was migrated). A clone's `d` is a random task's of the same job (PRT = random).
    pub fn launch(
        &mut self,
        trace: &Trace,
        node: NodeId,
        job: JobId,
        task: u32,
        clone: bool,
    ) -> Result<(u32, f64), EngineFault> {
        let j = job.0 as usize;
        let n = trace.job(j).tasks();
        if task >= n {
            return Err(EngineFault::NoSuchTask { job, task, tasks: n });
        }
        let k = if clone { self.rng.below(n as usize) } else { task as usize };
        let mut d = trace.duration(j, k).expect("task in range") as f64;
        if self.migrated_next.take() == Some((node, job, task)) {
            d = (d - self.dmt).max(0.0);
        }
        if self.done[j].is_empty() {
            self.done[j] = vec![false; n as usize];
        }
        if self.done[j][task as usize] {
            return Err(EngineFault::CopyOfCompleted { job, task });
        }
        let serial = self.copies.len() as u32;
        self.copies.push(Copy { node, job, task, state: State::Running });
        if self.running.insert((node.0, job.0, task), serial).is_some() {
            return Err(EngineFault::TwoCopies { job, task, node });
        }
        Ok((serial, d))
    }

    /// The engine cancelled the copy of `task` on `node`: it ends now. Returns its number
    /// (the caller queues its end at the current time).
    pub fn cancel(&mut self, node: NodeId, job: JobId, task: u32) -> Result<u32, EngineFault> {
        let serial =
            self.running.remove(&(node.0, job.0, task)).ok_or(EngineFault::CancelledNothing { job, task, node })?;
        self.copies[serial as usize].state = State::Killed;
        Ok(serial)
    }

    /// A copy's end event.
    pub fn end(&mut self, serial: u32) -> End {
        let c = &mut self.copies[serial as usize];
        match c.state {
            State::Ended => End::Stale,
            State::Killed => {
                c.state = State::Ended;
                End::Killed { task: c.task }
            }
            State::Running => {
                c.state = State::Ended;
                self.running.remove(&(c.node.0, c.job.0, c.task));
                let done = &mut self.done[c.job.0 as usize][c.task as usize];
                let first = !*done;
                *done = true;
                End::Natural { task: c.task, first }
            }
        }
    }
}

/// Tasks of short jobs (by `is_short`) that run above 1.5× their job's median duration.
pub fn straggler_tasks(trace: &Trace, is_short: impl Fn(usize) -> bool) -> u64 {
    let mut count = 0;
    let mut d: Vec<u32> = Vec::new();
    for j in (0..trace.len()).filter(|&j| is_short(j)) {
        d.clear();
        d.extend((0..trace.job(j).tasks() as usize).filter_map(|k| trace.duration(j, k)));
        if d.is_empty() {
            continue;
        }
        d.sort_unstable();
        let n = d.len();
        let median = if n % 2 == 1 { d[n / 2] as f64 } else { (d[n / 2 - 1] as f64 + d[n / 2] as f64) / 2.0 };
        count += d.iter().filter(|&&x| x as f64 > 1.5 * median).count() as u64;
    }
    count
}
