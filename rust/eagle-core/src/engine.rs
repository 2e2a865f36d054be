//! The engine: events in, decisions out.
use crate::config::Config;
use crate::delay::{Level, Sample};
use crate::locality::{Fetch, JobLocality};
use crate::lwl;
use crate::node_queue::{Entry, Node, Running, View};
use crate::partition::Partitions;
use crate::probe;
use crate::rng::Rng;
use crate::srpt::{self, Pick};
use crate::sss::{self, LongMap, Snapshot};
use crate::steal;
use std::collections::VecDeque;
use crate::types::*;
use serde::Serialize;

/// What the host knows about a new job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobSpec {
    /// Number of tasks (unlaunched at submission).
    pub tasks: u32,
    /// Estimated mean task duration, seconds.
    pub estimate: f64,
    /// Force a class (user hint); `None` classifies from `estimate` and the cutoff.
    pub class: Option<Class>,
}

/// Counters every host can report (simulator JSON, plugin summary).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Launch decisions (task handed to a slot).
    pub decisions: u64,
    /// Probes and reservations enqueued on nodes.
    pub probes_placed: u64,
    /// Probes refused by SSS because the node held long work.
    pub probes_rejected_sss: u64,
    /// Short probes that arrived at a node holding long work (Eagle: always 0).
    pub probes_behind_long: u64,
    /// Short tasks launched from a probe that had queued behind long work.
    pub short_tasks_after_hol: u64,
    /// Probes re-sent in an SSS round after the first.
    pub rescheduled_probes: u64,
    /// Probes that fell back to the short-only partition.
    pub fallback_probes: u64,
    /// Probes moved by work stealing.
    pub stolen_probes: u64,
    /// SRPT picks that bypassed at least one probe ahead.
    pub srpt_bypasses: u64,
    /// Task fetches that found the job had nothing left.
    pub empty_fetches: u64,
    /// Driver mode: launches for a job that held no reservation on the node.
    pub backfills: u64,
    /// Driver mode: launches the host declined.
    pub declines: u64,
}

/// A read-only view of a job.
#[derive(Clone, Debug, PartialEq)]
pub struct JobView {
    pub class: Class,
    pub estimate: f64,
    pub unlaunched: u32,
    pub launched: u32,
    pub running: u32,
}

/// A read-only view of a node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub live: bool,
    pub slots: u32,
    pub free_slots: u32,
    pub queue_len: usize,
    pub short_only: bool,
    pub running_long: u32,
    pub queued_long: u32,
}

/// Per-job state.
#[derive(Clone, Debug)]
struct Job {
    live: bool,
    class: Class,
    /// Scheduled as long: placed centrally (long jobs, or every job under DLWL/CLWL).
    sched_long: bool,
    est: f64,
    unlaunched: u32,
    launched: u32,
    running: u32,
    /// Entries of this job in queues or on the wire.
    queued: u32,
    /// Locality mode: where each task's input block lives, and the stage's delay.
    loc: Option<Box<JobLocality>>,
    /// SBP: nodes that received a probe of this job, to purge them when it completes.
    probe_nodes: Vec<u32>,
}

/// What a node got when it asked a job for a task.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Served {
    Launched,
    /// The job had nothing left (the slot is lost for a round trip).
    NoTask,
    /// The job has tasks but must wait for a more local slot (the slot stays free).
    Wait,
}

pub struct Engine {
    cfg: Config,
    rng: Rng,
    nodes: Vec<Node>,
    jobs: Vec<Job>,
    /// SRPT's view of each job's remaining work (unlaunched × estimate, updated one
    /// round trip after each launch); −1 once nothing is left. Kept apart from `jobs`
    /// so that queue scans touch 8 bytes per entry.
    remaining: Vec<f64>,
    free_job_ids: Vec<u32>,
    parts: Partitions,
    parts_dirty: bool,
    longmap: LongMap,
    /// LWL central state: estimated work of reservations placed on each node.
    work: Vec<f64>,
    /// DLWL: the work map as of the last heartbeat.
    stale_work: Vec<f64>,
    counters: Counters,
    busy: u64,
    total: u64,
    /// Zero-delay messages, delivered before a call returns.
    immediate: VecDeque<Msg>,
    scratch: Vec<NodeId>,
    dead_scratch: Vec<Entry>,
}

impl Engine {
    /// A new engine; fails with a message naming the bad field.
    pub fn new(config: Config, seed: u64) -> Result<Engine, String> {
        config.validate()?;
        Ok(Engine {
            cfg: config,
            rng: Rng::new(seed),
            nodes: Vec::new(),
            jobs: Vec::new(),
            remaining: Vec::new(),
            free_job_ids: Vec::new(),
            parts: Partitions::default(),
            parts_dirty: true,
            longmap: LongMap::default(),
            work: Vec::new(),
            stale_work: Vec::new(),
            counters: Counters::default(),
            busy: 0,
            total: 0,
            immediate: VecDeque::new(),
            scratch: Vec::new(),
            dead_scratch: Vec::new(),
        })
    }

    /// Schedules periodic timers (DLWL heartbeats). Call once before the first event.
    pub fn start(&mut self, now: Time, out: &mut Vec<Output>) {
        if self.is_dlwl() && self.cfg.heartbeat > 0.0 {
            self.stale_work = self.work.clone();
            // Heartbeats tick on multiples of the period, as the reference's clock from 0 does.
            let h = self.cfg.heartbeat;
            out.push(Output::Timer { at: (now / h).floor() * h + h, msg: Msg::Heartbeat });
        }
    }

    /// Adds a node with `slots` task slots; ids are dense and never reused.
    pub fn add_node(&mut self, _now: Time, slots: u32, _out: &mut Vec<Output>) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        self.nodes.push(Node::new(slots));
        self.longmap.grow(self.nodes.len());
        self.work.push(0.0);
        self.stale_work.push(0.0);
        self.total += slots as u64;
        self.parts_dirty = true;
        id
    }

    /// Removes a node: its queued probes and reservations are re-placed elsewhere;
    /// tasks that were running there are forgotten (the host re-reports them as pending).
    pub fn remove_node(&mut self, now: Time, node: NodeId, out: &mut Vec<Output>) {
        let Some(n) = self.nodes.get_mut(node.0 as usize) else { return };
        if !n.live {
            return;
        }
        n.live = false;
        let queue = std::mem::take(&mut n.queue);
        let running = std::mem::take(&mut n.running);
        n.queued_long = 0;
        n.running_long = 0;
        n.long_started = None;
        self.total -= n.slots as u64;
        self.busy -= (n.slots - n.free) as u64;
        n.free = 0;
        self.longmap.clear(node.0 as usize);
        self.work[node.0 as usize] = 0.0;
        self.parts_dirty = true;
        for r in running {
            if let Some(j) = self.jobs.get_mut(r.job.0 as usize) {
                j.running = j.running.saturating_sub(1);
            }
            self.maybe_free_job(r.job);
        }
        let mut touched: Vec<JobId> = Vec::new();
        for e in queue {
            let j = &mut self.jobs[e.job.0 as usize];
            j.queued = j.queued.saturating_sub(1);
            if !touched.contains(&e.job) {
                touched.push(e.job);
            }
        }
        for job in touched {
            self.replace_missing(now, job, out);
            self.maybe_free_job(job);
        }
        self.flush(now, out);
    }

    /// Submits a job: classifies it, then probes (short) or places by LWL (long).
    pub fn submit_job(&mut self, now: Time, spec: JobSpec, out: &mut Vec<Output>) -> JobId {
        let class = spec.class.unwrap_or_else(|| Class::from_estimate(spec.estimate, self.cfg.cutoff));
        let job = Job {
            live: true,
            class,
            sched_long: class.is_long() || self.cfg.lwl_all,
            est: spec.estimate,
            unlaunched: spec.tasks,
            launched: 0,
            running: 0,
            queued: 0,
            loc: None,
            probe_nodes: Vec::new(),
        };
        let remaining = if spec.tasks == 0 { -1.0 } else { spec.estimate * spec.tasks as f64 };
        let id = match self.free_job_ids.pop() {
            Some(i) => {
                self.jobs[i as usize] = job;
                self.remaining[i as usize] = remaining;
                JobId(i)
            }
            None => {
                self.jobs.push(job);
                self.remaining.push(remaining);
                JobId(self.jobs.len() as u32 - 1)
            }
        };
        if spec.tasks > 0 {
            self.place(now, id, spec.tasks as usize, out);
        }
        self.flush(now, out);
        id
    }

    /// Locality mode: submits a job whose task `i` reads a block held by `prefs[i]`.
    pub fn submit_job_with_locality(&mut self, now: Time, spec: JobSpec, prefs: &[Vec<NodeId>], out: &mut Vec<Output>) -> JobId {
        debug_assert_eq!(prefs.len(), spec.tasks as usize);
        match self.cfg.locality.clone() {
            Some(params) => {
                // Register the job without placing it, attach its locality, then place.
                let id = self.submit_job(now, JobSpec { tasks: 0, ..spec.clone() }, out);
                let j = &mut self.jobs[id.0 as usize];
                j.loc = Some(Box::new(JobLocality::new(now, prefs, &params)));
                j.unlaunched = spec.tasks;
                self.remaining[id.0 as usize] = spec.estimate * spec.tasks as f64;
                if spec.tasks > 0 {
                    self.place(now, id, spec.tasks as usize, out);
                }
                self.flush(now, out);
                id
            }
            None => self.submit_job(now, spec, out),
        }
    }

    /// Locality mode: a task of `job` ended; it ran node-local or not and lost `net_oh`
    /// seconds to remote reads. Feeds the stage's adaptive delay.
    pub fn locality_feedback(&mut self, now: Time, job: JobId, local: bool, net_oh: f64) {
        let Some(params) = self.cfg.locality.as_ref() else { return };
        if let Some(loc) = self.jobs.get_mut(job.0 as usize).and_then(|j| j.loc.as_mut()) {
            let actual = if local { Level::NodeLocal } else { Level::Any };
            loc.delay.task_ended(now, params, Level::NodeLocal, actual, net_oh);
        }
    }

    /// Locality mode: the job's node-local wait over time.
    pub fn delay_history(&self, job: JobId) -> Vec<Sample> {
        self.jobs.get(job.0 as usize).and_then(|j| j.loc.as_ref()).map(|l| l.delay.history().to_vec()).unwrap_or_default()
    }

    /// A task of `job` that ran on `node` ended (success or failure): its slot frees.
    pub fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, out: &mut Vec<Output>) {
        let ni = node.0 as usize;
        if !self.nodes.get(ni).is_some_and(|n| n.live) {
            return; // unknown, or forgotten with the node
        }
        let Some(r) = self.release_slot(ni, job) else { return };
        self.nodes[ni].long_started = None;
        if r.reservation {
            self.release_reservation(ni, r.marks_long, r.est);
        }
        if let Some(j) = self.jobs.get_mut(job.0 as usize) {
            j.running = j.running.saturating_sub(1);
            if j.running == 0 && j.unlaunched == 0 && !j.probe_nodes.is_empty() {
                // The job completed: its sticky probes would only ever be skipped, so drop
                // them now rather than at the next scan of each queue.
                let nodes = std::mem::take(&mut j.probe_nodes);
                self.purge(job, &nodes);
            }
        }
        self.maybe_free_job(job);
        if !self.cfg.driver {
            self.slot_freed(now, ni, out);
        }
        self.flush(now, out);
    }

    /// Delivers a message the engine scheduled with [`Output::Timer`].
    pub fn deliver(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>) {
        self.handle(now, msg, out);
        self.flush(now, out);
    }

    /// Driver mode: `free` slots are free on `node`; launch up to that many tasks,
    /// skipping jobs in `exclude` (those the host could not launch there this round).
    pub fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId], out: &mut Vec<Output>) {
        let ni = node.0 as usize;
        if ni >= self.nodes.len() || !self.nodes[ni].live {
            return;
        }
        self.refresh_partitions();
        let mut budget = free.min(self.nodes[ni].free);
        while budget > 0 {
            let launched = match self.pick(ni, exclude) {
                Some(pos) => self.serve(now, ni, pos, out) == Served::Launched,
                None => self.backfill(now, ni, exclude, out),
            };
            if !launched {
                break;
            }
            budget -= 1;
        }
        self.flush(now, out);
    }

    /// Driver mode: the host could not launch the task of `job` the engine chose for
    /// `node` (e.g. locality): undo that launch.
    pub fn decline(&mut self, now: Time, node: NodeId, job: JobId) {
        let ni = node.0 as usize;
        if ni >= self.nodes.len() {
            return;
        }
        let Some(r) = self.release_slot(ni, job) else { return };
        let n = &mut self.nodes[ni];
        if r.long {
            n.long_started = None;
        }
        self.counters.declines += 1;
        self.counters.decisions = self.counters.decisions.saturating_sub(1);
        let est = r.est;
        if r.reservation {
            // Put the reservation back at the head: the node keeps its place for the job.
            n.queued_long += r.long as u32;
            n.queue.push_front(Entry {
                job,
                long: r.long,
                reservation: true,
                marks_long: r.marks_long,
                est,
                behind_long: false,
                acc_delay: 0.0,
                sticky: false,
            });
            if let Some(j) = self.jobs.get_mut(job.0 as usize) {
                j.queued += 1;
            }
        }
        if let Some(j) = self.jobs.get_mut(job.0 as usize) {
            j.running = j.running.saturating_sub(1);
            j.launched = j.launched.saturating_sub(1);
            j.unlaunched += 1;
            self.remaining[job.0 as usize] = j.unlaunched as f64 * j.est;
        }
        let _ = now;
    }

    /// Frees the slot of one running task of `job` on node `ni`, returning its record.
    fn release_slot(&mut self, ni: usize, job: JobId) -> Option<Running> {
        let n = &mut self.nodes[ni];
        let r = n.take_running(job)?;
        n.free += 1;
        self.busy -= 1;
        if r.long {
            n.running_long = n.running_long.saturating_sub(1);
        }
        Some(r)
    }

    /// Driver mode: the host's truth about how many tasks of `job` wait to launch
    /// (retries, lost executors and speculation change it).
    pub fn set_pending(&mut self, now: Time, job: JobId, pending: u32, out: &mut Vec<Output>) {
        let Some(j) = self.jobs.get_mut(job.0 as usize) else { return };
        if !j.live || j.unlaunched == pending {
            return;
        }
        j.unlaunched = pending;
        self.remaining[job.0 as usize] = if pending == 0 { -1.0 } else { pending as f64 * j.est };
        if pending > 0 {
            self.replace_missing(now, job, out);
        }
        self.flush(now, out);
    }

    /// A new estimate for the job's mean task duration (running mean); may reclassify it.
    pub fn set_estimate(&mut self, now: Time, job: JobId, estimate: f64, out: &mut Vec<Output>) {
        self.set_estimate_with(now, job, estimate, None, out)
    }

    /// Like [`Engine::set_estimate`], with the class fixed by the caller (`Some`) or
    /// derived from the cutoff (`None`).
    pub fn set_estimate_with(&mut self, now: Time, job: JobId, estimate: f64, class: Option<Class>, out: &mut Vec<Output>) {
        let Some(j) = self.jobs.get_mut(job.0 as usize) else { return };
        if !j.live {
            return;
        }
        let class = class.unwrap_or_else(|| Class::from_estimate(estimate, self.cfg.cutoff));
        j.est = estimate;
        let unlaunched = j.unlaunched;
        let reclassified = class != j.class;
        if reclassified {
            j.class = class;
            j.sched_long = class.is_long() || self.cfg.lwl_all;
        }
        if self.remaining[job.0 as usize] >= 0.0 {
            self.remaining[job.0 as usize] = unlaunched as f64 * estimate;
        }
        self.retime_entries(job, estimate);
        if !reclassified {
            return;
        }
        // Reclassified: withdraw every queued entry and place the rest anew.
        self.withdraw(job);
        self.replace_missing(now, job, out);
        self.flush(now, out);
    }

    /// The job is gone (finished, aborted or zombie): drop its probes everywhere.
    pub fn remove_job(&mut self, _now: Time, job: JobId) {
        let Some(j) = self.jobs.get_mut(job.0 as usize) else { return };
        if !j.live {
            return;
        }
        j.live = false;
        j.unlaunched = 0;
        self.remaining[job.0 as usize] = -1.0;
        self.withdraw(job);
        self.maybe_free_job(job);
    }

    pub fn counters(&self) -> &Counters {
        &self.counters
    }
    pub fn config(&self) -> &Config {
        &self.cfg
    }
    pub fn job(&self, job: JobId) -> Option<JobView> {
        self.jobs.get(job.0 as usize).filter(|j| j.live).map(|j| JobView {
            class: j.class,
            estimate: j.est,
            unlaunched: j.unlaunched,
            launched: j.launched,
            running: j.running,
        })
    }
    pub fn node(&self, node: NodeId) -> Option<NodeView> {
        let n = self.nodes.get(node.0 as usize)?;
        let short_only = n.live && !self.parts_dirty && self.parts.short_only.contains(&node);
        Some(NodeView {
            live: n.live,
            slots: n.slots,
            free_slots: n.free,
            queue_len: n.queue.len(),
            short_only,
            running_long: n.running_long,
            queued_long: n.queued_long,
        })
    }
    /// The node's queue, head first: `(job, scheduled as long)` per entry.
    pub fn queue(&self, node: NodeId) -> impl Iterator<Item = (JobId, bool)> + '_ {
        self.nodes.get(node.0 as usize).into_iter().flat_map(|n| n.queue.iter().map(|e| (e.job, e.long)))
    }
    /// True when the central long map says the node holds long work (placed, in flight, queued or running).
    pub fn holds_long_work(&self, node: NodeId) -> bool {
        (node.0 as usize) < self.nodes.len() && self.longmap.holds_long(node.0 as usize)
    }
    /// Slots taken (running, or fetching a task), across live nodes.
    pub fn busy_slots(&self) -> u64 {
        self.busy
    }
    pub fn total_slots(&self) -> u64 {
        self.total
    }

    // ---------------------------------------------------------------- internals

    fn refresh_partitions(&mut self) {
        if !self.parts_dirty {
            return;
        }
        self.parts = if self.cfg.driver {
            let live: Vec<NodeId> =
                (0..self.nodes.len()).filter(|&i| self.nodes[i].live).map(|i| NodeId(i as u32)).collect();
            Partitions::dynamic_layout(&live, (100.0 - self.cfg.big_partition_pct) / 100.0)
        } else {
            Partitions::static_layout(self.nodes.len(), self.cfg.small_partition_pct, self.cfg.big_partition_pct)
        };
        self.parts_dirty = false;
    }

    fn timer(&mut self, now: Time, delay: f64, msg: Msg, out: &mut Vec<Output>) {
        if delay <= 0.0 {
            self.immediate.push_back(msg);
        } else {
            out.push(Output::Timer { at: now + delay, msg });
        }
    }

    /// Delivers zero-delay messages.
    fn flush(&mut self, now: Time, out: &mut Vec<Output>) {
        while let Some(msg) = self.immediate.pop_front() {
            self.handle(now, msg, out);
        }
    }

    fn handle(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>) {
        match msg {
            Msg::Enqueue { node, job } => self.enqueue(now, node.0 as usize, job, false, out),
            Msg::SlotFree { node } => {
                let n = &mut self.nodes[node.0 as usize];
                if !n.live {
                    return;
                }
                n.free += 1;
                self.busy -= 1;
                if !self.cfg.driver {
                    self.slot_freed(now, node.0 as usize, out);
                }
            }
            Msg::RemainingUpdate { job } => {
                let j = &self.jobs[job.0 as usize];
                let r = &mut self.remaining[job.0 as usize];
                if *r >= 0.0 {
                    *r -= j.est;
                }
                if j.unlaunched == 0 {
                    *r = -1.0;
                }
            }
            Msg::Heartbeat => {
                self.stale_work.clone_from(&self.work);
                out.push(Output::Timer { at: now + self.cfg.heartbeat, msg: Msg::Heartbeat });
            }
            Msg::Revive { node } => {
                let n = &mut self.nodes[node.0 as usize];
                n.revive_at = None;
                if n.live && n.free > 0 {
                    self.slot_freed(now, node.0 as usize, out);
                }
            }
        }
    }

    /// Places `count` entries for a job: probes for short jobs, LWL reservations
    /// for centrally scheduled ones, random probes for Sparrow's long jobs.
    fn place(&mut self, now: Time, job: JobId, count: usize, out: &mut Vec<Output>) {
        self.refresh_partitions();
        let j = &self.jobs[job.0 as usize];
        let (sched_long, class, est) = (j.sched_long, j.class, j.est);
        let nd = self.cfg.network_delay;
        let mut targets = std::mem::take(&mut self.scratch);
        targets.clear();
        if self.cfg.lwl_all {
            let candidates = if class.is_long() { &self.parts.big } else { &self.parts.small };
            let candidates = candidates.clone();
            let stale = self.is_dlwl();
            self.lwl_targets(now, &candidates, count, est, stale, &mut targets);
            self.reserve(now, job, &targets, est, out);
        } else if sched_long && self.cfg.centralized_long {
            let big = std::mem::take(&mut self.parts.big);
            self.lwl_targets(now, &big, count, est, false, &mut targets);
            self.parts.big = big;
            self.reserve(now, job, &targets, est, out);
        } else {
            let tasks = count as u32;
            let n = probe::probe_count(tasks, self.cfg.probe_ratio, self.cfg.min_probes);
            // Locality mode: one probe per task on a node holding its block, the rest random.
            if let Some(loc) = self.jobs[job.0 as usize].loc.as_ref() {
                let rng = &mut self.rng;
                loc.probe_hints(count.min(n), |k| rng.below(k), &mut targets);
            }
            let from = if sched_long { &self.parts.big } else { &self.parts.small };
            let rest = n - targets.len().min(n);
            probe::sample_with_replacement(&mut self.rng, from, rest, &mut targets);
            if self.cfg.driver {
                targets.sort_unstable();
                targets.dedup();
                let nodes = &self.nodes;
                targets.retain(|t| nodes[t.0 as usize].position_of(job).is_none());
            }
            if self.cfg.sss && !sched_long {
                self.probe_with_sss(now, job, &mut targets, out);
            } else {
                for &t in &targets {
                    self.counters.probes_placed += 1;
                    self.jobs[job.0 as usize].queued += 1;
                    self.timer(now, nd, Msg::Enqueue { node: t, job }, out);
                }
            }
        }
        self.scratch = targets;
    }

    /// Sends one reservation per target (LWL), updating the central state at once.
    fn reserve(&mut self, now: Time, job: JobId, targets: &[NodeId], est: f64, out: &mut Vec<Output>) {
        let long = self.jobs[job.0 as usize].class.is_long();
        for &t in targets {
            self.work[t.0 as usize] += est;
            if long {
                self.longmap.add(t.0 as usize);
            }
            self.counters.probes_placed += 1;
            self.jobs[job.0 as usize].queued += 1;
            self.timer(now, self.cfg.network_delay, Msg::Enqueue { node: t, job }, out);
        }
    }

    /// Undoes the central accounting of one reservation.
    fn release_reservation(&mut self, node: usize, marks_long: bool, est: f64) {
        self.work[node] = (self.work[node] - est).max(0.0);
        if self.work[node] < 1e-9 {
            self.work[node] = 0.0;
        }
        if marks_long {
            self.longmap.remove(node);
        }
    }

    fn is_dlwl(&self) -> bool {
        self.cfg.system == crate::config::System::Dlwl
    }

    /// LWL targets for `count` tasks over `candidates` (see [`crate::lwl`]).
    fn lwl_targets(&mut self, now: Time, candidates: &[NodeId], count: usize, est: f64, stale: bool, out: &mut Vec<NodeId>) {
        let nd2 = 2.0 * self.cfg.network_delay;
        if candidates.is_empty() || count == 0 {
            return;
        }
        if stale {
            // DLWL: stale heartbeat view, floored, plus jitter in [0, H].
            let h = self.cfg.heartbeat.floor().max(0.0) as i64;
            let mut scored = Vec::with_capacity(candidates.len());
            for &c in candidates {
                let i = c.0 as usize;
                let mut s = self.stale_work[i];
                if let Some((t0, e)) = self.nodes[i].long_started {
                    s = (nd2 + s - (now - t0).min(e)).max(0.0);
                }
                s += self.rng.int_inclusive(0, h) as f64;
                scored.push((s, c));
            }
            lwl::water_fill(scored, count, est, out);
            return;
        }
        // Enough empty nodes: lowest ids first.
        let start = out.len();
        for &c in candidates {
            if self.work[c.0 as usize] == 0.0 && self.nodes[c.0 as usize].live {
                out.push(c);
                if out.len() - start == count {
                    return;
                }
            }
        }
        // Reference (`find_workers_long_job_prio`): every empty node takes one task, and
        // only the remaining tasks are water-filled, empty nodes competing with score `est`.
        let count = count - (out.len() - start);
        let nodes = &self.nodes;
        let work = &self.work;
        let scored = candidates.iter().filter(|c| nodes[c.0 as usize].live).map(|&c| {
            let i = c.0 as usize;
            let q = work[i];
            if q == 0.0 {
                (est, c)
            } else if let Some((t0, e)) = nodes[i].long_started {
                (nd2 + q - (now - t0).min(e), c)
            } else {
                (q, c)
            }
        });
        lwl::water_fill(scored, count, est, out);
    }

    /// Eagle's SSS probing rounds (see [`crate::sss`]).
    fn probe_with_sss(&mut self, now: Time, job: JobId, targets: &mut Vec<NodeId>, out: &mut Vec<Output>) {
        let nd = self.cfg.network_delay;
        let mut missing = targets.len();
        let mut freshest: Option<(Time, Snapshot)> = None;
        let mut list = std::mem::take(targets);
        for round in 1..=self.cfg.sss_rounds {
            let arrive = nd * ((round / 2 + 1) as f64);
            let mut ok = 0;
            for &w in &list {
                let wi = w.0 as usize;
                if !self.longmap.holds_long(wi) {
                    self.counters.probes_placed += 1;
                    self.jobs[job.0 as usize].queued += 1;
                    self.timer(now, arrive, Msg::Enqueue { node: w, job }, out);
                    ok += 1;
                } else {
                    self.counters.probes_rejected_sss += 1;
                }
                if let Some((stamp, snap)) = &self.nodes[wi].bitvector {
                    if freshest.as_ref().is_none_or(|f| *stamp > f.0) {
                        freshest = Some((*stamp, snap.clone()));
                    }
                }
            }
            missing -= ok;
            if missing == 0 || round == self.cfg.sss_rounds {
                break;
            }
            list.clear();
            if self.cfg.driver {
                let snap = self.longmap.snapshot();
                self.sample_free_of_long(&snap, missing, &mut list);
            } else if let Some((_, snap)) = &freshest {
                let snap = snap.clone();
                self.sample_free_of_long(&snap, missing, &mut list);
            } else {
                let small = std::mem::take(&mut self.parts.small);
                probe::sample_with_replacement(&mut self.rng, &small, missing, &mut list);
                self.parts.small = small;
            }
            self.counters.rescheduled_probes += missing as u64;
        }
        if missing > 0 {
            list.clear();
            let so = std::mem::take(&mut self.parts.short_only);
            if so.is_empty() {
                // No short-only partition: nowhere is guaranteed free of long work. Queue on
                // random nodes anyway so the job is never lost (it may wait behind long work).
                let small = std::mem::take(&mut self.parts.small);
                probe::sample_with_replacement(&mut self.rng, &small, missing, &mut list);
                self.parts.small = small;
            } else {
                probe::sample_with_replacement(&mut self.rng, &so, missing, &mut list);
            }
            self.parts.short_only = so;
            if self.cfg.driver {
                list.sort_unstable();
                list.dedup();
            }
            for &w in &list {
                self.counters.probes_placed += 1;
                self.counters.fallback_probes += 1;
                self.jobs[job.0 as usize].queued += 1;
                self.timer(now, 2.0 * nd, Msg::Enqueue { node: w, job }, out);
            }
        }
        *targets = list;
    }

    /// Samples with replacement from the short-only partition plus the general nodes
    /// whose bit is clear in `snap` (rejection sampling over that union).
    fn sample_free_of_long(&mut self, snap: &[u64], count: usize, out: &mut Vec<NodeId>) {
        let so = self.parts.short_only.len();
        let big = self.parts.big.len();
        let universe = so + big;
        if universe == 0 {
            return;
        }
        let mut drawn = 0;
        let mut tries = 0usize;
        while drawn < count {
            let k = self.rng.below(universe);
            let node = if k < so { self.parts.short_only[k] } else { self.parts.big[k - so] };
            tries += 1;
            if k < so || !sss::bit(snap, node.0 as usize) {
                out.push(node);
                drawn += 1;
            } else if tries > 64 * (count + 1) {
                // Almost every general node is marked: sample the explicit list instead.
                let list: Vec<NodeId> = self
                    .parts
                    .short_only
                    .iter()
                    .copied()
                    .chain(self.parts.big.iter().copied().filter(|n| !sss::bit(snap, n.0 as usize)))
                    .collect();
                probe::sample_with_replacement(&mut self.rng, &list, count - drawn, out);
                return;
            }
        }
    }

    /// A probe or reservation reaches a node's queue.
    fn enqueue(&mut self, now: Time, ni: usize, job: JobId, stolen: bool, out: &mut Vec<Output>) {
        let j = &self.jobs[job.0 as usize];
        let (long, reservation, est) = (j.sched_long, j.sched_long && self.uses_reservations(j.class), j.est);
        let marks_long = reservation && j.class.is_long();
        let (node_live, job_live) = (self.nodes[ni].live, j.live);
        if !node_live || !job_live {
            // The node (whose state was cleared) or the job went away while the message was on the wire.
            let j = &mut self.jobs[job.0 as usize];
            j.queued = j.queued.saturating_sub(1);
            if node_live && reservation {
                self.release_reservation(ni, marks_long, est);
            }
            if job_live {
                self.replace_missing(now, job, out);
            } else {
                self.maybe_free_job(job);
            }
            return;
        }
        if self.cfg.driver && !long && self.nodes[ni].position_of(job).is_some() {
            // One probe per node per job is enough with SBP.
            self.jobs[job.0 as usize].queued -= 1;
            return;
        }
        let n = &mut self.nodes[ni];
        let behind_long = n.holds_long();
        if !long && !stolen && behind_long {
            self.counters.probes_behind_long += 1;
        }
        if long {
            n.queued_long += 1;
            if !self.cfg.driver && self.cfg.sss {
                n.bitvector = Some((now, self.longmap.snapshot()));
            }
        }
        n.queue.push_back(Entry { job, long, reservation, marks_long, est, behind_long, acc_delay: 0.0, sticky: false });
        if self.cfg.sbp && !long && !self.cfg.driver {
            self.jobs[job.0 as usize].probe_nodes.push(ni as u32);
        }
        if !self.cfg.driver && self.nodes[ni].free > 0 {
            self.pull(now, ni, out);
        }
    }

    fn uses_reservations(&self, class: Class) -> bool {
        self.cfg.lwl_all || (class.is_long() && self.cfg.centralized_long)
    }

    /// A slot freed on a simulated node: serve the queue, or steal (Hawk).
    fn slot_freed(&mut self, now: Time, ni: usize, out: &mut Vec<Output>) {
        if !self.nodes[ni].queue.is_empty() {
            self.pull(now, ni, out);
        } else if self.cfg.stealing {
            self.steal(now, ni, out);
        }
    }

    /// Serves the queue of a node with a free slot (simulator: one slot at a time).
    fn pull(&mut self, now: Time, ni: usize, out: &mut Vec<Output>) {
        let mut waiting: Vec<JobId> = Vec::new();
        while self.nodes[ni].free > 0 && !self.nodes[ni].queue.is_empty() {
            match self.pick(ni, &waiting) {
                Some(pos) => {
                    let job = self.nodes[ni].queue[pos].job;
                    if self.serve(now, ni, pos, out) == Served::Wait {
                        // Algorithm 1: skip the job that waits for locality, try the next.
                        waiting.push(job);
                    }
                }
                None => break,
            }
        }
        if !waiting.is_empty() && self.nodes[ni].free > 0 {
            self.schedule_revive(now, ni, &waiting, out);
        }
    }

    /// Locality mode: wakes an idle node when the first of its waiting jobs may relax.
    fn schedule_revive(&mut self, now: Time, ni: usize, waiting: &[JobId], out: &mut Vec<Output>) {
        let Some(params) = self.cfg.locality.as_ref() else { return };
        let at = waiting
            .iter()
            .filter_map(|j| self.jobs[j.0 as usize].loc.as_ref())
            .map(|l| l.next_relax(params))
            .fold(f64::INFINITY, f64::min)
            .max(now + 1e-6);
        if !at.is_finite() || self.nodes[ni].revive_at.is_some_and(|t| t <= at) {
            return;
        }
        self.nodes[ni].revive_at = Some(at);
        out.push(Output::Timer { at, msg: Msg::Revive { node: NodeId(ni as u32) } });
    }

    /// Chooses the queue position to serve: SRPT + SBP (Eagle), plain SRPT (DLWL) or FIFO.
    /// Drops probes of jobs with nothing left on the way (SBP, and always in driver mode).
    ///
    /// One pass scans the queue and spots dead probes at the same time; the queue is
    /// then compacted once, so a scan stays linear however many probes died.
    fn pick(&mut self, ni: usize, exclude: &[JobId]) -> Option<usize> {
        // A job is dead once its remaining work is −1: in driver mode as soon as nothing
        // is pending, in the simulator one round trip after its last launch.
        let drop_dead = self.cfg.sbp || self.cfg.driver;
        let remaining = &self.remaining;
        let is_dead = |e: &Entry| drop_dead && remaining[e.job.0 as usize] < 0.0;
        let queue = &self.nodes[ni].queue;
        let dead = std::cell::Cell::new(0usize);
        let views = queue
            .iter()
            .filter(|e| {
                if is_dead(e) {
                    dead.set(dead.get() + 1);
                    false
                } else {
                    true
                }
            })
            .filter(|e| !exclude.contains(&e.job))
            .map(|e| View { entry: e, remaining: remaining[e.job.0 as usize].max(0.0), est: e.est });
        let pick = if self.cfg.sbp && self.cfg.srpt {
            srpt::pick_sbp(views, self.cfg.starvation_factor)
        } else if self.cfg.srpt {
            srpt::pick_plain(views, self.cfg.starvation_factor)
        } else {
            let mut views = views;
            if views.next().is_some() {
                Pick::At(0)
            } else {
                Pick::Empty
            }
        };
        // Dead probes past the point where the scan stopped (SBP stops at the first long
        // entry) are left for a later scan: they are never served, only skipped.
        if dead.get() > 0 {
            let mut gone = std::mem::take(&mut self.dead_scratch);
            let remaining = &self.remaining;
            self.nodes[ni].queue.retain(|e| {
                let d = remaining[e.job.0 as usize] < 0.0;
                if d {
                    gone.push(e.clone());
                }
                !d
            });
            for e in gone.drain(..) {
                self.drop_entry(ni, &e);
            }
            self.dead_scratch = gone;
        }
        let queue = &self.nodes[ni].queue;
        match pick {
            Pick::Empty => None,
            Pick::At(k) if exclude.is_empty() => Some(k),
            // Map the k-th non-excluded entry back to its queue position.
            Pick::At(k) => queue.iter().enumerate().filter(|(_, e)| !exclude.contains(&e.job)).nth(k).map(|(i, _)| i),
        }
    }

    /// Removes the bookkeeping of an entry dropped without launching.
    fn drop_entry(&mut self, ni: usize, e: &Entry) {
        let n = &mut self.nodes[ni];
        if e.long {
            n.queued_long = n.queued_long.saturating_sub(1);
        }
        if e.reservation {
            self.release_reservation(ni, e.marks_long, e.est);
        }
        let j = &mut self.jobs[e.job.0 as usize];
        j.queued = j.queued.saturating_sub(1);
        self.maybe_free_job(e.job);
    }

    /// Takes a slot for the entry at `pos` and asks its job for a task (late binding).
    fn serve(&mut self, now: Time, ni: usize, pos: usize, out: &mut Vec<Output>) -> Served {
        let nd2 = 2.0 * self.cfg.network_delay;
        let e = self.nodes[ni].queue[pos].clone();
        let job = e.job;
        let est_now = self.jobs[job.0 as usize].est;
        // Locality mode: the job picks a node-local task, or waits, before the slot is taken.
        let mut chosen: Option<u32> = None;
        let jm = &mut self.jobs[job.0 as usize];
        let has_tasks = jm.unlaunched > 0;
        if let (Some(params), Some(loc)) = (self.cfg.locality.as_ref(), jm.loc.as_mut()) {
            if has_tasks {
                match loc.fetch(now, params, NodeId(ni as u32)) {
                    Fetch::Local(t) | Fetch::Remote(t) => chosen = Some(t),
                    Fetch::Wait => return Served::Wait,
                    Fetch::Empty => {}
                }
            }
        }
        {
            let n = &mut self.nodes[ni];
            n.free -= 1;
            if e.long {
                n.queued_long = n.queued_long.saturating_sub(1);
            }
        }
        self.busy += 1;
        let j = &mut self.jobs[job.0 as usize];
        let success = j.unlaunched > 0 && j.live;
        if success {
            j.unlaunched -= 1;
            let task = chosen.unwrap_or(j.launched);
            j.launched += 1;
            j.running += 1;
            let class_long = j.class.is_long();
            self.counters.decisions += 1;
            let n = &mut self.nodes[ni];
            if e.long {
                n.running_long += 1;
                n.long_started = Some((now, e.est));
            } else {
                n.long_started = None;
            }
            n.running.push(Running { job, long: e.long, reservation: e.reservation, marks_long: e.marks_long, est: e.est });
            out.push(Output::Launch { node: NodeId(ni as u32), job, task, start: now + nd2 });
            if !e.long && e.behind_long {
                self.counters.short_tasks_after_hol += 1;
            }
            if self.cfg.sbp && self.cfg.srpt {
                if self.cfg.driver {
                    let j = &self.jobs[job.0 as usize];
                    self.remaining[job.0 as usize] = if j.unlaunched == 0 { -1.0 } else { j.unlaunched as f64 * j.est };
                } else {
                    self.timer(now, nd2, Msg::RemainingUpdate { job }, out);
                }
            }
            let keep = self.cfg.sbp && !e.long && !class_long;
            let n = &mut self.nodes[ni];
            if keep {
                n.queue[pos].sticky = true;
            } else {
                n.queue.remove(pos);
                let j = &mut self.jobs[job.0 as usize];
                j.queued = j.queued.saturating_sub(1);
            }
            if !self.cfg.sbp {
                // Without SBP the scheduler's view is live: unlaunched tasks × estimate.
                let j = &self.jobs[job.0 as usize];
                self.remaining[job.0 as usize] = j.unlaunched as f64 * j.est;
            }
            // Eagle charges bypassed probes only for short launches; plain SRPT (DLWL)
            // charges every entry it jumps.
            if self.cfg.srpt && pos > 0 && (!e.long || !self.cfg.sbp) {
                self.counters.srpt_bypasses += 1;
                let n = &mut self.nodes[ni];
                for k in 0..pos {
                    n.queue[k].acc_delay += est_now;
                }
            }
            Served::Launched
        } else {
            // The job has nothing left: the fetch round trip is lost, then the slot frees.
            self.counters.empty_fetches += 1;
            let n = &mut self.nodes[ni];
            n.queue.remove(pos);
            if !e.long {
                n.long_started = None;
            }
            if e.reservation {
                self.release_reservation(ni, e.marks_long, e.est);
            }
            let j = &mut self.jobs[job.0 as usize];
            j.queued = j.queued.saturating_sub(1);
            self.maybe_free_job(job);
            if self.cfg.driver {
                let n = &mut self.nodes[ni];
                n.free += 1;
                self.busy -= 1;
                return Served::NoTask;
            }
            self.timer(now, nd2, Msg::SlotFree { node: NodeId(ni as u32) }, out);
            Served::NoTask
        }
    }

    /// Driver mode: the queue had nothing launchable, so take a task from any eligible
    /// job (short jobs on nodes free of long work, long jobs on general nodes), least
    /// remaining work first. Keeps exact-state Eagle work-conserving.
    fn backfill(&mut self, now: Time, ni: usize, exclude: &[JobId], out: &mut Vec<Output>) -> bool {
        if !self.cfg.driver {
            return false;
        }
        let node = NodeId(ni as u32);
        let general = self.parts.big.contains(&node);
        let free_of_long = !self.longmap.holds_long(ni) && self.nodes[ni].running_long == 0;
        // Short jobs before long ones, then least remaining work, then oldest id.
        let mut best: Option<(bool, f64, u32)> = None;
        for (i, j) in self.jobs.iter().enumerate() {
            if !j.live || j.unlaunched == 0 || exclude.contains(&JobId(i as u32)) {
                continue;
            }
            let long = j.class.is_long();
            let eligible = if long { general } else { free_of_long || !general };
            if !eligible {
                continue;
            }
            let key = (long, j.unlaunched as f64 * j.est, i as u32);
            let better = best.is_none_or(|b| {
                key.0.cmp(&b.0).then(key.1.total_cmp(&b.1)).then(key.2.cmp(&b.2)) == std::cmp::Ordering::Less
            });
            if better {
                best = Some(key);
            }
        }
        let Some((long, _, id)) = best else { return false };
        let job = JobId(id);
        let est = self.jobs[id as usize].est;
        let reservation = long && self.uses_reservations(Class::Long);
        if reservation {
            // The job's task moves here: withdraw one of its reservations elsewhere.
            self.steal_one_reservation(job);
            self.work[ni] += est;
            self.longmap.add(ni);
        }
        self.counters.backfills += 1;
        self.jobs[id as usize].queued += 1;
        self.nodes[ni].queued_long += long as u32;
        self.nodes[ni].queue.push_front(Entry {
            job,
            long,
            reservation,
            marks_long: reservation,
            est,
            behind_long: false,
            acc_delay: 0.0,
            sticky: false,
        });
        self.serve(now, ni, 0, out) == Served::Launched
    }

    /// Removes one queued reservation of `job` from the node that holds the most work.
    fn steal_one_reservation(&mut self, job: JobId) {
        let mut best: Option<(f64, usize, usize)> = None;
        for (ni, n) in self.nodes.iter().enumerate() {
            if !n.live {
                continue;
            }
            if let Some(pos) = n.queue.iter().rposition(|e| e.job == job && e.reservation) {
                if best.is_none_or(|b| self.work[ni] > b.0) {
                    best = Some((self.work[ni], ni, pos));
                }
            }
        }
        if let Some((_, ni, pos)) = best {
            let e = self.nodes[ni].queue.remove(pos).unwrap();
            self.drop_entry(ni, &e);
        }
    }

    /// Hawk: an idle node steals blocked short probes from random general nodes.
    fn steal(&mut self, now: Time, ni: usize, out: &mut Vec<Output>) {
        self.refresh_partitions();
        if self.parts.big.is_empty() {
            return;
        }
        let mut stolen = Vec::new();
        for _ in 0..self.cfg.steal_attempts {
            let victim = self.parts.big[self.rng.below(self.parts.big.len())].0 as usize;
            let jobs = &self.jobs;
            let v = &mut self.nodes[victim];
            let runs_long = v.running_long > 0;
            stolen = steal::take_blocked_shorts(&mut v.queue, runs_long, self.cfg.steal_limit as usize, |e| {
                jobs[e.job.0 as usize].class.is_long()
            });
            if !stolen.is_empty() {
                break;
            }
        }
        self.counters.stolen_probes += stolen.len() as u64;
        for e in stolen {
            // Moved, not re-sent: the job's entry count is unchanged, and head-of-line
            // blocking is not counted again.
            self.enqueue_stolen(now, ni, e, out);
        }
    }

    fn enqueue_stolen(&mut self, now: Time, ni: usize, mut e: Entry, out: &mut Vec<Output>) {
        let n = &mut self.nodes[ni];
        e.behind_long = n.holds_long();
        e.acc_delay = 0.0;
        n.queue.push_back(e);
        if n.free > 0 {
            self.pull(now, ni, out);
        }
    }

    /// A job's estimate changed (driver mode): its queued entries carry the new one.
    fn retime_entries(&mut self, job: JobId, est: f64) {
        for n in &mut self.nodes {
            for e in n.queue.iter_mut().filter(|e| e.job == job && !e.reservation) {
                e.est = est;
            }
        }
    }

    /// Drops the entries of `job` from the queues of `nodes`.
    fn purge(&mut self, job: JobId, nodes: &[u32]) {
        let mut gone = std::mem::take(&mut self.dead_scratch);
        for &ni in nodes {
            let q = &mut self.nodes[ni as usize].queue;
            if q.iter().any(|e| e.job == job) {
                q.retain(|e| {
                    if e.job == job {
                        gone.push(e.clone());
                    }
                    e.job != job
                });
                for e in gone.drain(..) {
                    self.drop_entry(ni as usize, &e);
                }
            }
        }
        self.dead_scratch = gone;
    }

    /// Withdraws every queued entry of `job` (reclassification, removal).
    fn withdraw(&mut self, job: JobId) {
        for ni in 0..self.nodes.len() {
            if self.nodes[ni].queue.iter().all(|e| e.job != job) {
                continue;
            }
            let queue = std::mem::take(&mut self.nodes[ni].queue);
            let (gone, kept): (Vec<Entry>, Vec<Entry>) = queue.into_iter().partition(|e| e.job == job);
            self.nodes[ni].queue = kept.into();
            for e in &gone {
                self.drop_entry(ni, e);
            }
        }
    }

    /// Makes sure a job with unlaunched tasks has entries to serve them: short jobs need
    /// at least one probe, centrally placed jobs one reservation per unlaunched task.
    fn replace_missing(&mut self, now: Time, job: JobId, out: &mut Vec<Output>) {
        let j = &self.jobs[job.0 as usize];
        if !j.live || j.unlaunched == 0 {
            return;
        }
        let reservation = j.sched_long && self.uses_reservations(j.class);
        let missing = if reservation {
            j.unlaunched.saturating_sub(j.queued) as usize
        } else if j.queued == 0 {
            j.unlaunched as usize
        } else {
            0
        };
        if missing > 0 {
            self.place(now, job, missing, out);
        }
    }

    /// Recycles a job id once nothing refers to the job any more (driver mode).
    fn maybe_free_job(&mut self, job: JobId) {
        if !self.cfg.driver {
            return;
        }
        let j = &self.jobs[job.0 as usize];
        if !j.live && j.running == 0 && j.queued == 0 && !self.free_job_ids.contains(&job.0) {
            self.free_job_ids.push(job.0);
        }
    }
}
