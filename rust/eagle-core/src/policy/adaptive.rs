//! eagle-adaptive: Eagle's guarantees without its static parameters (rules and measurements:
//! docs/policies/adaptive.md).
//!
//! Inside one Spark driver the scheduler sees the whole cluster exactly (the paper's
//! IdealEagle point, §6.4), so probes, bitvectors and per-node queues are not needed.
//! What remains of Eagle, and the invariants this policy keeps:
//!
//! - **Short work never queues behind long work** (§3.1): a floating number `R` of slots
//!   ([`crate::adaptive::reservation`]) is kept from long work; a long task starts only while fewer
//!   than `total − R` long tasks run. `R` is zero when no short work is around.
//! - **SRPT with a starvation bound** (§3.3, Algorithm 1): a free slot goes to the job whose
//!   group (Spark job or SQL execution, unsubmitted stages included, see
//!   [`QueryGroups::set_group_future`]) has the least remaining work; ties go to the older job.
//!   A job waiting `max(deadline_factor × fair time, min_wait)` is overdue; overdue jobs go
//!   first, earliest deadline first, at full width until none of their tasks wait, and the
//!   deadline stays put until then. Fair time is `max(estimate, waiting work × sharing /
//!   slots)`, so sustained overload does not turn SRPT into round robin.
//! - **Or the Fair Sojourn Protocol** (`order` fsp, [`crate::adaptive::fsp`]): the key is the unit's
//!   finish tag under processor sharing; age is in the key, so no deadline is consulted.
//! - **Long work keeps a share**: while long work waits and short work has held at least
//!   `cap = max(R, floor((1 − long_share) × slots))` slots over the window, short work
//!   starts tasks only below `cap`, while short units keep arriving ([`crate::adaptive::arrivals`])
//!   or the backlog would bypass more than `starvation_factor` times the long work left
//!   ([`Adaptive::share_pays`]). Executors keep to one class ([`crate::adaptive::affinity`]).
//! - **Warm executors** (driver mode, [`crate::adaptive::warmup`]): a slot goes to the first job in
//!   that order for which a cold start is worth its measured warm-up
//!   ([`crate::adaptive::warmup::worth_cold_start`], [`crate::adaptive::warmup::worth_warming_slot`]); else it
//!   stays free until the next task end re-offers it.
//! - **Late binding**: tasks are bound to slots only when a slot is free.
//!
//! With Eirene on ([`crate::eirene`]), CCDM's fast lane and SATC clones run on the slots
//! this order leaves. The host pulls decisions through [`Policy::offer`] in driver mode; in
//! the simulator the policy launches on its own, one network round trip after deciding.

use super::{Cloning, Policy, QueryGroups, ShortReservation, Tenancy, WarmExecutors};
use crate::adaptive::arrivals::ShortArrivals;
use crate::adaptive::fsp::{FairClock, Order, Unit};
use crate::adaptive::hold::Hold;
use crate::adaptive::preempt::Preemption;
use crate::adaptive::reservation::Reservation;
use crate::cluster::{Cluster, Counters, Job, JobSpec};
use crate::config::Config;
use crate::eagle::node_queue::Running;
use crate::eirene::Eirene;
use crate::tenant::Tenants;
use crate::types::*;
use std::collections::{BTreeSet, HashMap};

mod held;
mod long_share;
mod pick;
mod preempt;
mod tenants;
mod warm;

/// An ordered key over a non-negative `f64` (its bits sort like the number).
fn bits(x: f64) -> u64 {
    x.max(0.0).to_bits()
}

/// A deadline that fell due stays put unless the job's estimate grows past this multiple
/// of the estimate it fell due with: then its fair time was computed from a guess (a
/// default or typical task far below its own) and is computed again. Each revision needs
/// the estimate to double, so a deadline moves a bounded number of times.
const DUE_REVISION: f64 = 2.0;

/// The adaptive policy's view of one job.
#[derive(Clone, Debug, Default)]
struct Meta {
    /// `(key bits, job)` as inserted in `ready`, and in which class set. The key is the
    /// group's remaining work (SRPT) or its finish tag (FSP).
    key: Option<(u64, u32, bool)>,
    /// `(deadline bits, job)` as inserted in `deadlines`.
    deadline: Option<u64>,
    /// Short tasks this job contributes to `short_waiting`.
    waiting_short: u32,
    /// Since when the job's waiting tasks wait: its submission, or the moment its
    /// waiting count grew from zero (retries, resubmissions).
    ready_since: f64,
    /// Seen overdue by a free slot: the deadline stays where it fell due until none of the
    /// job's tasks wait, however the jobs sharing the cluster change meanwhile, unless the
    /// job's estimate grows past [`DUE_REVISION`] times the one it fell due with.
    due: bool,
    /// The job's task estimate when it fell due.
    due_est: f64,
    group: Option<u64>,
    /// The tenant (session, user or pool) the job runs for ([`crate::tenant`]).
    tenant: Option<u64>,
    /// Its estimate is a guess: no hint, no history, no task ended ([`Tenancy::set_guessed`]).
    guessed: bool,
    /// Nodes where a task of the job has ended (sorted): warm for it.
    warm: Vec<u32>,
    /// Nodes where the job has tasks running but none has ended yet, with when the first
    /// started (sorted): warming. A task started there now pays the warm-up too.
    warming: Vec<(u32, f64)>,
    /// Nodes holding input of the job's tasks not launched there yet, with how many
    /// (sorted): a slot there is worth the job ([`crate::adaptive::warmup`], "Data locality").
    input: Vec<(u32, u32)>,
}

#[derive(Clone, Debug, Default)]
struct Group {
    members: Vec<u32>,
    /// Estimated work of the group's stages not submitted yet, seconds.
    future: f64,
}

pub struct Adaptive {
    cfg: Config,
    c: Cluster,
    meta: Vec<Meta>,
    groups: HashMap<u64, Group>,
    /// Jobs with waiting tasks, by (key, id): short and long apart.
    ready_short: BTreeSet<(u64, u32)>,
    ready_long: BTreeSet<(u64, u32)>,
    /// Jobs with waiting tasks, by starvation deadline.
    deadlines: BTreeSet<(u64, u32)>,
    short_waiting: u64,
    short_running: u64,
    long_running: u64,
    /// Sum of the estimates of the running long tasks.
    long_est_sum: f64,
    reservation: Reservation,
    /// Slots kept free for the next short arrival after short work drains.
    hold: Hold,
    /// Bounded waiting by preemption (off by default).
    preemption: Preemption,
    /// Simulator: nodes with a free slot.
    free_nodes: BTreeSet<u32>,
    /// Simulator: a `Tick` is pending.
    tick_at: Option<Time>,
    /// Eirene's CCDM and SATC, when either is on.
    eirene: Option<Eirene>,
    /// Measured warm-up of a job on a new node (seconds; driver mode).
    warmup: f64,
    /// Live jobs, and how many of them belong to a group: the units a user waits for
    /// are the groups plus the jobs outside any.
    live_jobs: usize,
    grouped: usize,
    /// Arrivals of short units (queries, jobs): whether the short stream goes on.
    arrivals: ShortArrivals,
    /// Processor sharing's virtual clock and the units' finish tags (`order` fsp).
    fair: FairClock,
    /// The tenants of live jobs: weights, minimum shares, running tasks.
    tenants: Tenants,
    /// Live jobs classed long (all tenants, and jobs outside any).
    long_live: u32,
    /// When a long job last arrived (a hold opens with nothing waiting only while it is recent).
    long_arrived: Option<Time>,
    /// Live jobs whose estimate is a guess.
    guessed: u32,
}

impl Adaptive {
    pub fn new(config: Config, seed: u64) -> Adaptive {
        Adaptive {
            eirene: config.eirene.on().then(|| Eirene::new(config.eirene.clone(), seed)),
            c: Cluster::new(config.driver),
            reservation: {
                // Nothing runs yet: the time before the first task is no one's.
                let mut r = Reservation::new(config.adaptive.clone(), 0.0);
                r.cluster_in_use(0.0, false);
                r
            },
            hold: Hold::new(config.adaptive.hold_max, config.adaptive.hold_fraction, config.adaptive.window),
            preemption: Preemption::new(
                config.adaptive.preempt_after,
                config.adaptive.preempt_fraction,
                config.adaptive.window,
            ),
            cfg: config,
            meta: Vec::new(),
            groups: HashMap::new(),
            ready_short: BTreeSet::new(),
            ready_long: BTreeSet::new(),
            deadlines: BTreeSet::new(),
            short_waiting: 0,
            short_running: 0,
            long_running: 0,
            long_est_sum: 0.0,
            free_nodes: BTreeSet::new(),
            tick_at: None,
            warmup: 0.0,
            live_jobs: 0,
            grouped: 0,
            arrivals: ShortArrivals::default(),
            fair: FairClock::default(),
            tenants: Tenants::default(),
            long_live: 0,
            long_arrived: None,
            guessed: 0,
        }
    }

    /// The policy's books.
    pub fn cluster(&self) -> &Cluster {
        &self.c
    }

    fn fsp(&self) -> bool {
        self.cfg.adaptive.order == Order::Fsp
    }

    /// The unit a job belongs to: its group, or itself.
    fn unit(&self, job: u32) -> Unit {
        match self.meta[job as usize].group {
            Some(g) => Unit::Group(g),
            None => Unit::Job(job),
        }
    }

    fn group_remaining(&self, job: u32) -> f64 {
        let own = |j: u32| {
            let jb = &self.c.jobs[j as usize];
            if jb.live {
                jb.unlaunched as f64 * jb.est
            } else {
                0.0
            }
        };
        match self.meta[job as usize].group.and_then(|g| self.groups.get(&g)) {
            Some(g) => g.future + g.members.iter().map(|&m| own(m)).sum::<f64>(),
            None => own(job),
        }
    }

    /// Re-files a job after any change of its tasks, estimate, class or group.
    fn refresh(&mut self, job: u32) {
        let m = &mut self.meta[job as usize];
        if let Some((k, id, long)) = m.key.take() {
            if long {
                self.ready_long.remove(&(k, id));
            } else {
                self.ready_short.remove(&(k, id));
            }
        }
        let old_deadline = m.deadline.take();
        if let Some(d) = old_deadline {
            self.deadlines.remove(&(d, job));
        }
        self.short_waiting -= m.waiting_short as u64;
        m.waiting_short = 0;
        let j = &self.c.jobs[job as usize];
        if !j.live || j.unlaunched == 0 {
            m.due = false;
            return;
        }
        let long = j.class.is_long();
        // The job's time under fair sharing with the jobs waiting now (itself included), or
        // under FAIR pools while tenants are live if that is less: under sustained overload
        // every job waits longer than a multiple of its time alone, and a bound that ignored
        // the load would make every job overdue and serve them earliest-ready first (round
        // robin), losing SRPT exactly when it matters.
        let waiting = (self.ready_short.len() + self.ready_long.len() + 1) as f64;
        let sharing = self.pool_sharing(job).map_or(waiting, |p| p.min(waiting));
        let ideal = j.est.max(j.unlaunched as f64 * j.est * sharing / self.c.total.max(1) as f64);
        let wait = (self.cfg.adaptive.deadline_factor * ideal).max(self.cfg.adaptive.min_wait);
        let unlaunched = j.unlaunched;
        let remaining = self.group_remaining(job) / self.weight_of(job);
        let key = if self.fsp() { bits(self.fair.file(self.unit(job), remaining)) } else { bits(remaining) };
        let m = &mut self.meta[job as usize];
        let deadline = match old_deadline {
            Some(d) if m.due && j.est <= DUE_REVISION * m.due_est => d,
            _ => {
                m.due = false;
                bits(m.ready_since + wait)
            }
        };
        m.key = Some((key, job, long));
        m.deadline = Some(deadline);
        if long {
            self.ready_long.insert((key, job));
        } else {
            m.waiting_short = unlaunched;
            self.short_waiting += unlaunched as u64;
            self.ready_short.insert((key, job));
        }
        self.deadlines.insert((deadline, job));
    }

    /// Re-files every member of the job's group (their shared remaining work changed).
    fn refresh_group_of(&mut self, job: u32) {
        match self.meta[job as usize].group.and_then(|g| self.groups.get(&g)).map(|g| g.members.clone()) {
            Some(members) => members.into_iter().for_each(|m| self.refresh(m)),
            None => self.refresh(job),
        }
    }

    fn leave_group(&mut self, job: u32) {
        if let Some(g) = self.meta[job as usize].group.take() {
            if let Some(gr) = self.groups.get_mut(&g) {
                gr.members.retain(|&m| m != job);
                self.grouped -= 1;
                let members = gr.members.clone();
                if members.is_empty() {
                    let future = gr.future;
                    self.groups.remove(&g);
                    if self.fsp() {
                        self.fair.leave(Unit::Group(g), future);
                    }
                }
                members.into_iter().for_each(|m| self.refresh(m));
            }
        }
    }

    /// What the user waits for: the live groups (SQL queries) plus the live jobs in none.
    fn live_units(&self) -> usize {
        self.live_jobs.saturating_sub(self.grouped) + self.groups.len()
    }

    /// Takes a slot of `ni` for the next task of `job`.
    fn launch(&mut self, now: Time, ni: usize, job: u32, out: &mut Vec<Output>) {
        let nd2 = 2.0 * self.cfg.network_delay;
        let chosen = match self.eirene.as_mut() {
            Some(e) => e.hand_out(now, NodeId(ni as u32), JobId(job), &mut self.c.counters, out),
            None => None,
        };
        let m = &mut self.meta[job as usize];
        if let Ok(i) = m.input.binary_search_by_key(&(ni as u32), |e| e.0) {
            m.input[i].1 -= 1;
            if m.input[i].1 == 0 {
                m.input.remove(i);
            }
        }
        if m.warm.binary_search(&(ni as u32)).is_err() {
            if let Err(i) = m.warming.binary_search_by_key(&(ni as u32), |w| w.0) {
                m.warming.insert(i, (ni as u32, now));
            }
        }
        let j = &mut self.c.jobs[job as usize];
        let long = j.class.is_long();
        j.unlaunched -= 1;
        let task = chosen.unwrap_or(j.launched);
        j.launched += 1;
        let est = j.est;
        if self.fsp() {
            self.fair.served(self.unit(job), est);
            self.fair.deliver(est);
        }
        self.take_slot(now, ni, JobId(job), long, est);
        let unlaunched = self.c.jobs[job as usize].unlaunched;
        self.c.remaining[job as usize] = if unlaunched == 0 { -1.0 } else { unlaunched as f64 * est };
        self.refresh_group_of(job);
        out.push(Output::Launch { node: NodeId(ni as u32), job: JobId(job), task, start: now + nd2 });
    }

    /// Books a slot of `ni` for a task (or a clone) of `job` in its class: the node's
    /// free slots, the class counts the reservation and the long share read, and the
    /// running list that [`Adaptive::release`] undoes.
    fn take_slot(&mut self, now: Time, ni: usize, job: JobId, long: bool, est: f64) {
        self.c.jobs[job.0 as usize].running += 1;
        self.tenant_running(job.0, 1);
        let n = &mut self.c.nodes[ni];
        n.free -= 1;
        if n.free == 0 {
            self.free_nodes.remove(&(ni as u32));
        }
        if long {
            n.running_long += 1;
            self.long_running += 1;
            self.long_est_sum += est;
        } else {
            self.short_running += 1;
            self.reservation.short_running(now, 1);
        }
        n.running.push(Running { job, long, reservation: false, marks_long: false, est });
        self.c.busy += 1;
        self.reservation.cluster_in_use(now, true);
        self.c.counters.decisions += 1;
    }

    /// Eirene SATC: an idle slot of `ni` runs a clone of the oldest short job whose
    /// tasks have all started. False when there is nothing to clone.
    fn launch_clone(&mut self, now: Time, ni: usize, out: &mut Vec<Output>) -> bool {
        let Some(e) = self.eirene.as_mut() else { return false };
        let Some(job) = e.next_clone_job() else { return false };
        let Some(task) = e.clone_for(now, NodeId(ni as u32), job, &mut self.c.counters, out) else { return false };
        let est = self.c.jobs[job.0 as usize].est;
        self.take_slot(now, ni, job, false, est);
        out.push(Output::Clone { node: NodeId(ni as u32), job, task, start: now + 2.0 * self.cfg.network_delay });
        true
    }

    /// Undoes the slot books of a task that ended or was declined.
    fn release(&mut self, now: Time, ni: usize, job: JobId) -> Option<Running> {
        let r = self.c.release_slot(ni, job)?;
        if r.long {
            self.long_running -= 1;
            self.long_est_sum = if self.long_running == 0 { 0.0 } else { (self.long_est_sum - r.est).max(0.0) };
        } else {
            self.short_running -= 1;
            self.reservation.short_running(now, -1);
        }
        self.free_nodes.insert(ni as u32);
        self.reservation.cluster_in_use(now, self.c.busy > 0);
        if let Some(j) = self.c.jobs.get_mut(job.0 as usize) {
            j.running = j.running.saturating_sub(1);
        }
        self.tenant_running(job.0, -1);
        Some(r)
    }

    /// Simulator: fills free slots while a job is eligible; schedules a `Tick` when long
    /// work waits only for the reservation to shrink.
    fn fill(&mut self, now: Time, out: &mut Vec<Output>) {
        if self.cfg.driver {
            return;
        }
        while let Some(&ni) = self.free_nodes.first() {
            match self.pick(now, None, &[]) {
                Some(j) => self.launch(now, ni as usize, j, out),
                None if self.launch_clone(now, ni as usize, out) => {}
                None => break,
            }
        }
        let held = self.hold.until().is_some() && !self.ready_short.is_empty();
        if !self.free_nodes.is_empty() && (held || !self.ready_long.is_empty()) && self.tick_at.is_none() {
            let p = self.reservation.params();
            let at = now + p.window / p.buckets as f64;
            let at = self.hold.until().map_or(at, |u| at.min(u));
            self.tick_at = Some(at);
            out.push(Output::Timer { at, msg: Msg::Tick });
        }
    }

    /// A reclassified job's running tasks move to their new class in the slot books, so
    /// the reservation and the long share count what runs now, not what was launched.
    fn reclass_running(&mut self, now: Time, job: JobId, long: bool) {
        for n in self.c.nodes.iter_mut().filter(|n| n.live) {
            for r in n.running.iter_mut().filter(|r| r.job == job && r.long != long) {
                r.long = long;
                if long {
                    n.running_long += 1;
                    self.long_running += 1;
                    self.long_est_sum += r.est;
                    self.short_running -= 1;
                    self.reservation.short_running(now, -1);
                } else {
                    n.running_long -= 1;
                    self.long_running -= 1;
                    self.long_est_sum = if self.long_running == 0 { 0.0 } else { (self.long_est_sum - r.est).max(0.0) };
                    self.short_running += 1;
                    self.reservation.short_running(now, 1);
                }
            }
        }
    }

    /// The job's waiting tasks are now `pending`; growth counts as a short arrival when
    /// `arrival` (retries, speculation), not when a launch was only undone.
    fn set_unlaunched(&mut self, now: Time, job: JobId, pending: u32, arrival: bool) {
        let j = &mut self.c.jobs[job.0 as usize];
        let grew = arrival && pending > j.unlaunched;
        let from_zero = arrival && j.unlaunched == 0 && pending > 0;
        j.unlaunched = pending;
        self.c.remaining[job.0 as usize] = if pending == 0 { -1.0 } else { pending as f64 * j.est };
        if grew && !j.class.is_long() {
            self.reservation.short_arrived(now);
        }
        if from_zero {
            self.meta[job.0 as usize].ready_since = now;
            self.meta[job.0 as usize].due = false;
        }
        self.refresh_group_of(job.0);
    }
}

impl Policy for Adaptive {
    fn add_node(&mut self, _now: Time, slots: u32, _out: &mut Vec<Output>) -> NodeId {
        let id = self.c.add_node(slots);
        if let Some(e) = self.eirene.as_mut() {
            e.add_node();
        }
        if slots > 0 {
            self.free_nodes.insert(id.0);
        }
        id
    }

    fn remove_node(&mut self, now: Time, node: NodeId, out: &mut Vec<Output>) {
        let Some(n) = self.c.nodes.get_mut(node.0 as usize) else { return };
        if !n.live {
            return;
        }
        n.live = false;
        let running = std::mem::take(&mut n.running);
        self.c.total -= n.slots as u64;
        self.c.busy -= (n.slots - n.free) as u64;
        n.free = 0;
        n.running_long = 0;
        self.free_nodes.remove(&node.0);
        for r in running {
            if r.long {
                self.long_running -= 1;
                self.long_est_sum = if self.long_running == 0 { 0.0 } else { (self.long_est_sum - r.est).max(0.0) };
            } else {
                self.short_running -= 1;
                self.reservation.short_running(now, -1);
            }
            if let Some(j) = self.c.jobs.get_mut(r.job.0 as usize) {
                j.running = j.running.saturating_sub(1);
            }
            self.c.maybe_free_job(r.job);
        }
        self.fill(now, out);
    }

    fn submit_job(&mut self, now: Time, spec: JobSpec, out: &mut Vec<Output>) -> JobId {
        let class = spec.class.unwrap_or_else(|| Class::from_estimate(spec.estimate, self.cfg.cutoff));
        let id = self.c.insert_job(Job::new(class, class.is_long(), spec.estimate, spec.tasks));
        if let Some(e) = self.eirene.as_mut() {
            e.submit(id, spec.tasks, !class.is_long());
        }
        let i = id.0 as usize;
        if self.meta.len() <= i {
            self.meta.resize_with(i + 1, Meta::default);
        }
        self.meta[i] = Meta { ready_since: now, ..Meta::default() };
        self.live_jobs += 1;
        self.long_live += class.is_long() as u32;
        let short = !class.is_long() && spec.tasks > 0;
        // A long job is no next small arrival: an open hold keeps its slots from it.
        if spec.tasks > 0 && class.is_long() {
            self.long_arrived = Some(now);
            self.hold.larger_arrived(now);
        } else if spec.tasks > 0 {
            self.hold.arrived(now);
        }
        self.arrivals.submitted(id.0, now, short);
        if short {
            self.reservation.short_arrived(now);
        }
        self.refresh(id.0);
        self.fill(now, out);
        id
    }

    fn task_finished(&mut self, now: Time, node: NodeId, job: JobId, out: &mut Vec<Output>) {
        let ni = node.0 as usize;
        if !self.c.live_node(node) {
            return;
        }
        if self.release(now, ni, job).is_none() {
            return;
        }
        self.maybe_small_ended(now, job.0);
        // Warm executors: a task of the job has ended here.
        let m = &mut self.meta[job.0 as usize];
        if let Ok(i) = m.warming.binary_search_by_key(&node.0, |w| w.0) {
            m.warming.remove(i);
        }
        if let Err(i) = m.warm.binary_search(&node.0) {
            m.warm.insert(i, node.0);
        }
        self.c.maybe_free_job(job);
        self.fill(now, out);
    }

    fn deliver(&mut self, now: Time, msg: Msg, out: &mut Vec<Output>) {
        if let Msg::MigrationDone { node, job, task } = msg {
            if let Some(e) = self.eirene.as_mut() {
                e.migration_done(now, node, job, task, &mut self.c.counters, out);
            }
            return;
        }
        if msg == Msg::Tick {
            self.tick_at = None;
            self.fill(now, out);
        }
    }

    fn offer(&mut self, now: Time, node: NodeId, free: u32, exclude: &[JobId], out: &mut Vec<Output>) {
        let ni = node.0 as usize;
        if !self.c.live_node(node) {
            return;
        }
        let mut budget = free.min(self.c.nodes[ni].free);
        while budget > 0 {
            let Some(j) = self.pick(now, Some(ni), exclude) else { break };
            self.launch(now, ni, j, out);
            budget -= 1;
        }
    }

    fn decline(&mut self, now: Time, node: NodeId, job: JobId) {
        let ni = node.0 as usize;
        if ni >= self.c.nodes.len() || self.release(now, ni, job).is_none() {
            return;
        }
        self.c.counters.declines += 1;
        self.c.counters.decisions = self.c.counters.decisions.saturating_sub(1);
        // Warm executors: a declined launch started nothing; with no other task of the job
        // running there, the executor is cold for it again, not warming.
        if !self.c.nodes[ni].running.iter().any(|r| r.job == job) {
            let m = &mut self.meta[job.0 as usize];
            if let Ok(i) = m.warming.binary_search_by_key(&node.0, |w| w.0) {
                m.warming.remove(i);
            }
        }
        if self.fsp() {
            self.fair.served(self.unit(job.0), -self.c.jobs[job.0 as usize].est);
        }
        let j = &mut self.c.jobs[job.0 as usize];
        j.launched = j.launched.saturating_sub(1);
        let pending = j.unlaunched + 1;
        if j.live {
            self.set_unlaunched(now, job, pending, false);
        }
        self.c.maybe_free_job(job);
    }

    fn set_pending(&mut self, now: Time, job: JobId, pending: u32, out: &mut Vec<Output>) {
        let Some(j) = self.c.jobs.get(job.0 as usize) else { return };
        if !j.live || j.unlaunched == pending {
            return;
        }
        self.set_unlaunched(now, job, pending, true);
        self.fill(now, out);
    }

    fn set_estimate(&mut self, now: Time, job: JobId, estimate: f64, class: Option<Class>, out: &mut Vec<Output>) {
        let class = class.unwrap_or_else(|| Class::from_estimate(estimate, self.cfg.cutoff));
        match self.c.set_estimate(job, estimate, class, false) {
            None => return,
            Some(true) => {
                self.reclass_running(now, job, class.is_long());
                self.long_class_changed(job.0, class.is_long());
            }
            Some(false) => {}
        }
        self.refresh_group_of(job.0);
        self.fill(now, out);
    }

    fn remove_job(&mut self, now: Time, job: JobId) {
        if !self.c.retire_job(job) {
            return;
        }
        self.live_jobs -= 1;
        self.long_live -= self.c.jobs[job.0 as usize].class.is_long() as u32;
        self.refresh(job.0);
        match self.meta[job.0 as usize].group {
            Some(g) => self.arrivals.left(g, now, self.reservation.params().window),
            None if self.fsp() => self.fair.leave(Unit::Job(job.0), 0.0),
            None => {}
        }
        self.leave_group(job.0);
        self.leave_tenant(job.0);
        self.set_guessed(job, false);
        self.meta[job.0 as usize].warm = Vec::new();
        self.meta[job.0 as usize].warming = Vec::new();
        self.meta[job.0 as usize].input = Vec::new();
        self.c.maybe_free_job(job);
    }
}

impl Cloning for Adaptive {
    fn eirene(&mut self) -> Option<(&mut Eirene, &mut Counters)> {
        self.eirene.as_mut().map(|e| (e, &mut self.c.counters))
    }
}

impl QueryGroups for Adaptive {
    fn set_group(&mut self, job: JobId, group: u64) {
        let i = job.0;
        if self.c.jobs.get(i as usize).is_none_or(|j| !j.live) {
            return;
        }
        // A task set of a group seen lately (a query's next stage) is no new arrival.
        let live = self.groups.contains_key(&group);
        if self.arrivals.grouped(i, group, live, self.reservation.params().window) {
            self.hold.not_a_new_unit();
        }
        self.leave_group(i);
        if self.fsp() {
            self.fair.merge(Unit::Job(i), Unit::Group(group));
        }
        self.groups.entry(group).or_default().members.push(i);
        self.grouped += 1;
        self.meta[i as usize].group = Some(group);
        self.refresh_group_of(i);
    }

    fn set_group_future(&mut self, group: u64, work: f64) {
        let work = if work.is_finite() { work.max(0.0) } else { 0.0 };
        let Some(g) = self.groups.get_mut(&group) else { return };
        g.future = work;
        let members = g.members.clone();
        members.into_iter().for_each(|m| self.refresh(m));
    }
}

impl Tenancy for Adaptive {
    fn set_tenant(&mut self, job: JobId, tenant: u64, share: crate::tenant::Share) {
        self.join_tenant(job, tenant, share);
    }

    fn set_guessed(&mut self, job: JobId, guessed: bool) {
        let Some(m) = self.meta.get_mut(job.0 as usize) else { return };
        if m.guessed != guessed && (!guessed || self.c.jobs[job.0 as usize].live) {
            m.guessed = guessed;
            self.guessed = if guessed { self.guessed + 1 } else { self.guessed - 1 };
        }
    }
}

impl WarmExecutors for Adaptive {
    fn set_warmup(&mut self, seconds: f64) {
        self.warmup = if seconds.is_finite() { seconds.max(0.0) } else { 0.0 };
    }

    fn set_input_nodes(&mut self, job: JobId, nodes: &[NodeId]) {
        let Some(m) = self.meta.get_mut(job.0 as usize) else { return };
        if !self.c.jobs.get(job.0 as usize).is_some_and(|j| j.live) {
            return;
        }
        let mut ns: Vec<u32> = nodes.iter().map(|n| n.0).collect();
        ns.sort_unstable();
        m.input.clear();
        for n in ns {
            match m.input.last_mut() {
                Some(e) if e.0 == n => e.1 += 1,
                _ => m.input.push((n, 1)),
            }
        }
    }

    fn holds_input(&self, job: JobId, node: NodeId) -> bool {
        self.meta.get(job.0 as usize).is_some_and(|m| m.input.binary_search_by_key(&node.0, |e| e.0).is_ok())
    }
}

impl ShortReservation for Adaptive {
    fn reservation(&self) -> u32 {
        self.reservation.current().max(self.hold_current())
    }

    fn classes_changed(&mut self, now: Time) {
        self.reservation.reset(now);
    }
}
