//! The published systems on one mechanism (the reference simulator's semantics):
//! Eagle (SoCC'16 §3: short partition, SSS, LWL for long jobs, probes with
//! max(K, 2t), Sticky Batch Probing with SRPT and the starvation cap), Sparrow, Hawk,
//! DLWL and CLWL, chosen by the feature switches of [`Config`]. In driver mode (the
//! Spark plugin's `policy=paper`) the same rules run on exact state.
//!
//! [`place`] puts probes and reservations into node queues; [`serve`] chooses what a
//! free slot runs.

mod place;
mod serve;

use super::{Cloning, Locality, Partitioned, Periodic, Policy};
use crate::cluster::{Cluster, Counters, Job, JobSpec};
use crate::config::Config;
use crate::eagle::node_queue::Entry;
use crate::eagle::partition::Partitions;
use crate::eagle::sss::LongMap;
use crate::eirene::Eirene;
use crate::locality::delay::{Level, Sample};
use crate::locality::JobLocality;
use crate::rng::Rng;
use crate::types::*;
use serve::Served;
use std::collections::VecDeque;

pub struct Paper {
    cfg: Config,
    c: Cluster,
    rng: Rng,
    parts: Partitions,
    parts_dirty: bool,
    longmap: LongMap,
    /// LWL central state: estimated work of reservations placed on each node.
    work: Vec<f64>,
    /// DLWL: the work map as of the last heartbeat.
    stale_work: Vec<f64>,
    /// Zero-delay messages, delivered before a call returns.
    immediate: VecDeque<Msg>,
    scratch: Vec<NodeId>,
    dead_scratch: Vec<Entry>,
    /// Eirene's CCDM and SATC, when either is on.
    eirene: Option<Eirene>,
}

impl Paper {
    /// A new policy; `config` was validated by [`crate::Engine::new`].
    pub fn new(config: Config, seed: u64) -> Paper {
        Paper {
            eirene: config.eirene.on().then(|| Eirene::new(config.eirene.clone(), seed)),
            c: Cluster::new(config.driver),
            cfg: config,
            rng: Rng::new(seed),
            parts: Partitions::default(),
            parts_dirty: true,
            longmap: LongMap::default(),
            work: Vec::new(),
            stale_work: Vec::new(),
            immediate: VecDeque::new(),
            scratch: Vec::new(),
            dead_scratch: Vec::new(),
        }
    }

    /// The policy's books.
    pub fn cluster(&self) -> &Cluster {
        &self.c
    }
}

impl Periodic for Paper {
    /// Schedules periodic timers (DLWL heartbeats). Call once before the first event.
    fn start(&mut self, now: Time, out: &mut Vec<Output>) {
        if self.is_dlwl() && self.cfg.heartbeat > 0.0 {
            self.stale_work = self.work.clone();
            // Heartbeats tick on multiples of the period, as the reference's clock from 0 does.
            let h = self.cfg.heartbeat;
            out.push(Output::Timer { at: (now / h).floor() * h + h, msg: Msg::Heartbeat });
        }
    }
}

impl Policy for Paper {
    /// Adds a node with `slots` task slots; ids are dense and never reused.
    fn add_node(&mut self, _now: Time, slots: u32, _out: &mut Vec<Output>) -> NodeId {
        let id = self.c.add_node(slots);
        self.longmap.grow(self.c.nodes.len());
        self.work.push(0.0);
        self.stale_work.push(0.0);
        self.parts_dirty = true;
        if let Some(e) = self.eirene.as_mut() {
            e.add_node();
        }
        id
    }

    /// Removes a node: its queued probes and reservations are re-placed elsewhere;
    /// tasks that were running there are forgotten (the host re-reports them as pending).
    fn remove_node(&mut self, now: Time, node: NodeId, out: &mut Vec<Output>) {
        let Some(n) = self.c.nodes.get_mut(node.0 as usize) else { return };
        if !n.live {
            return;
        }
        n.live = false;
        let queue = std::mem::take(&mut n.queue);
        let running = std::mem::take(&mut n.running);
        n.queued_long = 0;
        n.running_long = 0;
        n.long_started = None;
        self.c.total -= n.slots as u64;
        self.c.busy -= (n.slots - n.free) as u64;
        n.free = 0;
        self.longmap.clear(node.0 as usize);
        self.work[node.0 as usize] = 0.0;
        self.parts_dirty = true;
        for r in running {
            if let Some(j) = self.c.jobs.get_mut(r.job.0 as usize) {
                j.running = j.running.saturating_sub(1);
            }
            self.c.maybe_free_job(r.job);
        }
        let mut touched: Vec<JobId> = Vec::new();
        for e in queue {
            let j = &mut self.c.jobs[e.job.0 as usize];
            j.queued = j.queued.saturating_sub(1);
            if !touched.contains(&e.job) {
                touched.push(e.job);
            }
        }
        for job in touched {
            self.replace_missing(now, job, out);
            self.c.maybe_free_job(job);
        }
        self.flush(now, out);
    }

    /// Submits a job: classifies it, then probes (short) or places by LWL (long).
    fn submit_job(&mut self, now: Time, spec: JobSpec, out: &mut Vec<Output>) -> JobId {
        let class = spec.class.unwrap_or_else(|| Class::from_estimate(spec.estimate, self.cfg.cutoff));
        let job = Job::new(class, class.is_long() || self.cfg.lwl_all, spec.estimate, spec.tasks);
        let short = !(class.is_long() || self.cfg.lwl_all);
        let id = self.c.insert_job(job);
        if let Some(e) = self.eirene.as_mut() {
            e.submit(id, spec.tasks, short);
        }
        if spec.tasks > 0 {
            self.place(now, id, spec.tasks as usize, out);
        }
        self.flush(now, out);
        id
    }

    /// A task of `job` that ran on `node` ended (success or failure): its slot frees.
    fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, out: &mut Vec<Output>) {
        let ni = node.0 as usize;
        if !self.c.nodes.get(ni).is_some_and(|n| n.live) {
            return; // unknown, or forgotten with the node
        }
        let Some(r) = self.c.release_slot(ni, job) else { return };
        self.c.nodes[ni].long_started = None;
        if r.reservation {
            self.release_reservation(ni, r.marks_long, r.est);
        }
        if let Some(j) = self.c.jobs.get_mut(job.0 as usize) {
            j.running = j.running.saturating_sub(1);
            if j.running == 0 && j.unlaunched == 0 && !j.probe_nodes.is_empty() {
                // The job completed: its sticky probes would only ever be skipped, so drop
                // them now rather than at the next scan of each queue.
                let nodes = std::mem::take(&mut j.probe_nodes);
                self.purge(job, &nodes);
            }
        }
        self.c.maybe_free_job(job);
        if !self.cfg.driver {
            self.slot_freed(now, ni, out);
        }
        self.flush(now, out);
    }

    /// Delivers a message the engine scheduled with [`Output::Timer`].
    fn deliver(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>) {
        self.handle(now, msg, out);
        self.flush(now, out);
    }

    /// Driver mode: `free` slots are free on `node`; launch up to that many tasks,
    /// skipping jobs in `exclude` (those the host could not launch there this round).
    fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId], out: &mut Vec<Output>) {
        let ni = node.0 as usize;
        if ni >= self.c.nodes.len() || !self.c.nodes[ni].live {
            return;
        }
        self.refresh_partitions();
        let mut budget = free.min(self.c.nodes[ni].free);
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
    fn decline(&mut self, now: Time, node: NodeId, job: JobId) {
        let ni = node.0 as usize;
        if ni >= self.c.nodes.len() {
            return;
        }
        let Some(r) = self.c.release_slot(ni, job) else { return };
        let n = &mut self.c.nodes[ni];
        if r.long {
            n.long_started = None;
        }
        self.c.counters.declines += 1;
        self.c.counters.decisions = self.c.counters.decisions.saturating_sub(1);
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
            if let Some(j) = self.c.jobs.get_mut(job.0 as usize) {
                j.queued += 1;
            }
        }
        if let Some(j) = self.c.jobs.get_mut(job.0 as usize) {
            j.running = j.running.saturating_sub(1);
            j.launched = j.launched.saturating_sub(1);
            j.unlaunched += 1;
            self.c.remaining[job.0 as usize] = j.unlaunched as f64 * j.est;
        }
        let _ = now;
    }

    /// Driver mode: the host's truth about how many tasks of `job` wait to launch
    /// (retries, lost executors and speculation change it).
    fn set_pending(&mut self, now: Time, job: JobId, pending: u32, out: &mut Vec<Output>) {
        let Some(j) = self.c.jobs.get_mut(job.0 as usize) else { return };
        if !j.live || j.unlaunched == pending {
            return;
        }
        j.unlaunched = pending;
        self.c.remaining[job.0 as usize] = if pending == 0 { -1.0 } else { pending as f64 * j.est };
        if pending > 0 {
            self.replace_missing(now, job, out);
        }
        self.flush(now, out);
    }

    /// A new estimate, with the class fixed by the caller (`Some`) or derived from the
    /// cutoff (`None`).
    fn set_estimate(&mut self, now: Time, job: JobId, estimate: f64, class: Option<Class>, out: &mut Vec<Output>) {
        let class = class.unwrap_or_else(|| Class::from_estimate(estimate, self.cfg.cutoff));
        let Some(reclassified) = self.c.set_estimate(job, estimate, class, self.cfg.lwl_all) else { return };
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
    fn remove_job(&mut self, _now: Time, job: JobId) {
        if !self.c.retire_job(job) {
            return;
        }
        self.withdraw(job);
        self.c.maybe_free_job(job);
    }
}

impl Locality for Paper {
    /// Locality mode: submits a job whose task `i` reads a block held by `prefs[i]`
    /// (one list per task: [`crate::Engine::submit_job_with_locality`] checks it).
    fn submit_job_with_locality(
        &mut self,
        now: Time,
        spec: JobSpec,
        prefs: &[Vec<NodeId>],
        out: &mut Vec<Output>,
    ) -> JobId {
        match self.cfg.locality.clone() {
            Some(params) => {
                // Register the job without placing it, attach its locality, then place.
                let id = self.submit_job(now, JobSpec { tasks: 0, ..spec.clone() }, out);
                let j = &mut self.c.jobs[id.0 as usize];
                j.loc = Some(Box::new(JobLocality::new(now, prefs, &params)));
                j.unlaunched = spec.tasks;
                self.c.remaining[id.0 as usize] = spec.estimate * spec.tasks as f64;
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
    fn locality_feedback(&mut self, now: Time, job: JobId, local: bool, net_oh: f64) {
        let Some(params) = self.cfg.locality.as_ref() else { return };
        if let Some(loc) = self.c.jobs.get_mut(job.0 as usize).and_then(|j| j.loc.as_mut()) {
            let actual = if local { Level::NodeLocal } else { Level::Any };
            loc.delay.task_ended(now, params, Level::NodeLocal, actual, net_oh);
        }
    }

    /// Locality mode: the job's node-local wait over time.
    fn delay_history(&self, job: JobId) -> Vec<Sample> {
        self.c
            .jobs
            .get(job.0 as usize)
            .and_then(|j| j.loc.as_ref())
            .map(|l| l.delay.history().to_vec())
            .unwrap_or_default()
    }
}

impl Cloning for Paper {
    fn eirene(&mut self) -> Option<(&mut Eirene, &mut Counters)> {
        self.eirene.as_mut().map(|e| (e, &mut self.c.counters))
    }
}

impl Partitioned for Paper {
    fn short_only(&self, node: NodeId) -> bool {
        self.c.live_node(node) && !self.parts_dirty && self.parts.short_only.contains(&node)
    }

    /// True when the central long map says the node holds long work (placed, in flight, queued or running).
    fn holds_long_work(&self, node: NodeId) -> bool {
        (node.0 as usize) < self.c.nodes.len() && self.longmap.holds_long(node.0 as usize)
    }
}
