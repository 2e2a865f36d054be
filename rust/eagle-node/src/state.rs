//! The node daemon's state machine: one host's queue of short probes and long
//! reservations, and the leases of its slots (Eagle §3.1-3.3, prototype §5).
//!
//! The machine is pure: [`NodeState::handle`] takes the time (`now`, ms) and one [`Event`]
//! and returns the [`Action`]s to perform; [`crate::server`] and the tests feed it. The
//! policy pieces are eagle-core's: [`eagle_core::eagle::node_queue`], [`eagle_core::eagle::srpt::pick_sbp`]
//! (Sticky Batch Probing + SRPT with the starvation cap, Algorithm 1) and
//! [`eagle_core::Config::for_system`].
//!
//! ## A lease
//! ```text
//!            grant (a slot freed and the pick chose the entry)
//!   (slot free) ────────────► Granted{expires} ──Launched──► Running ──TaskEnd──► (slot free)
//!                                  │   │                        │
//!                  NoTask ─────────┘   └── expires: Revoked     └── driver silent or gone
//!                  (slot free at once)     (slot free)              (slot free)
//! ```
//! A lease takes its task's `cpus` slots at once; when the picked entry needs more slots
//! than are free, nothing else is granted until they are (a wide task is never starved by
//! narrow ones), and a probe or placement wider than the whole host is refused at once.
//!
//! Invariants (checked by [`NodeState::check`], asserted by the tests): the leases' slots
//! plus the free slots are the host's slots, every lease id is granted once, the queue's
//! long counters match its entries and long leases, and a driver's connection end removes
//! every entry and lease it had. Policies: [`crate::policy`] (eagle, eagle-adaptive, hawk,
//! sparrow).
//!
//! ## Short slots (`eagle-central --short-partition slots`)
//! The central may keep some of a host's slots for short work (`ShortSlots`): long leases
//! then hold at most the host's slots less those (a long entry past that cap waits, the
//! entries behind it are served), and a short probe is queued instead of rejected while the
//! host holds long work. Nothing running is preempted; the count resets to 0 when the
//! central's link drops. Kept slots are lent to long work when no short probe waits and
//! none has arrived or been served for [`LEND_AFTER_MS`] (the central's demand is a
//! whole-cluster figure); a short probe after a loan waits for the first slot to free.

pub use crate::policy::Policy;
use eagle_core::eagle::node_queue::{Entry, Node, View};
use eagle_core::eagle::srpt::{self, Pick};
use eagle_core::types::JobId;
use eagle_core::Config;
use eagle_wire::{Bitvector, FromNode, NodeStatus, Peer, QueuedByApp, Role, StolenProbe, ToNode};
use std::collections::{BTreeMap, HashMap};

mod admission;
mod held;
mod status;
mod steal;

/// Milliseconds since the daemon's origin.
pub type Ms = u64;
pub use eagle_wire::net::ConnId;

/// Everything the machine reacts to: the daemons' shared events, and [`StealDone`].
pub type Event = eagle_wire::net::Event<ToNode, StealDone>;

/// Hawk: the answer to [`Action::Steal`], gathered from the peers (possibly empty).
#[derive(Clone, Debug, PartialEq)]
pub struct StealDone {
    pub probes: Vec<StolenProbe>,
}

/// What the server must do, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    Send {
        conn: ConnId,
        msg: FromNode,
    },
    /// Close the connection; no `Disconnected` needs to follow (its state is gone already).
    Close {
        conn: ConnId,
        reason: String,
    },
    /// Ask up to `attempts` random peers, in turn, for up to `limit` short probes of
    /// `apps`, until one gives some; then report [`StealDone`]. Hawk asks for the probes
    /// blocked behind long work, peers drawn with replacement; eagle-adaptive for the short
    /// probes waiting anywhere, each peer at most once (`each_once`).
    Steal {
        apps: Vec<String>,
        limit: u32,
        attempts: u32,
        each_once: bool,
    },
}

/// The node's settings.
#[derive(Clone, Debug)]
pub struct Settings {
    pub policy: Policy,
    pub slots: u32,
    /// A granted lease must be answered, and every peer heard from, within this time.
    pub lease_ms: Ms,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum LeaseState {
    /// Granted; the driver must launch or return it before `expires`.
    Granted { expires: Ms },
    /// A task runs under it until the driver reports its end.
    Running,
}

#[derive(Clone, Debug)]
struct Lease {
    conn: ConnId,
    job: JobId,
    long: bool,
    est: f64,
    /// Slots the lease holds (the job's `cpus`).
    cpus: u32,
    /// When it was granted: the slot's time under it is what a task of the job costs here.
    granted: Ms,
    state: LeaseState,
}

/// A job as this node knows it: one task set of one connected driver.
#[derive(Clone, Debug)]
struct Job {
    conn: ConnId,
    /// The driver's id of the task set.
    id: u64,
    /// Unlaunched tasks as last reported, minus the grants made here since (SRPT view).
    tasks: u32,
    est: f64,
    /// Slots one task of the job holds.
    cpus: u32,
    /// Queue entries and leases that refer to this record.
    queued: u32,
    leases: u32,
    /// eagle-adaptive: when its short probe here started to wait: queued (the first of its
    /// probes waiting here), or last served (see [`NodeState::served`]). The floor of the
    /// starvation cap counts from here. For a long job: when the first of its entries now
    /// queued here was placed ([`NodeState::admits_soon`] protects it after the floor).
    since: Ms,
    /// The time its last task here held the slot, grant to end (ms; 0 before one ended).
    took: f64,
    /// The most slots its leases held here at once (the size of a hold when it ends).
    peak: u32,
    /// Its probes here were all stolen from peers (none came from its driver).
    stolen: bool,
}

#[derive(Clone, Debug)]
struct Conn {
    peer: Peer,
    last_heard: Ms,
}

/// The state of one node daemon. See the module documentation.
#[derive(Debug)]
pub struct NodeState {
    settings: Settings,
    srpt: bool,
    sbp: bool,
    sss: bool,
    /// eagle-adaptive: free-slot admission of short probes and SRPT over long work.
    adaptive: bool,
    stealing: bool,
    steal_limit: u32,
    steal_attempts: u32,
    /// A steal is in flight (at most one).
    steal_pending: bool,
    /// A slot freed (or a tick passed) while the queue was empty: try to steal.
    want_steal: bool,
    /// eagle-adaptive: a task ended in this event; if its slot would go to long work, the
    /// peers are asked for waiting short work first ([`steal`]).
    task_ended: bool,
    /// eagle-adaptive: when the steal in flight was asked for (long work waits for its
    /// answer at most [`STEAL_WAIT_MS`]).
    steal_sent: Option<Ms>,
    /// eagle-adaptive: slot-ms of stolen short work run here over the window, and its cap.
    stolen_work: eagle_core::adaptive::windowed::Windowed,
    steal_window_ms: f64,
    steal_budget_ms: f64,
    starvation_factor: f64,
    /// eagle-adaptive: the floor of a short entry's starvation cap, in ms of wall time since
    /// it was queued or last served (the driver engine's `adaptive.min_wait`).
    min_wait_ms: f64,
    node: Node,
    jobs: Vec<Option<Job>>,
    free_ids: Vec<u32>,
    by_key: HashMap<(ConnId, u64), u32>,
    leases: BTreeMap<u64, Lease>,
    next_lease: u64,
    conns: HashMap<ConnId, Conn>,
    /// Driver application id → its connection.
    apps: HashMap<String, ConnId>,
    central: Option<ConnId>,
    bitvector: Option<Bitvector>,
    /// Slots long work must leave to short work (the central's `ShortSlots`).
    short_slots: u32,
    /// When a short probe last arrived here or was granted a slot.
    last_short: Option<Ms>,
    /// eagle-adaptive: slots kept free for the next short job ([`held`]); `None` otherwise.
    hold: Option<eagle_core::adaptive::hold::Hold>,
    /// The most of the host's slots one hold takes (the driver reservation's `max_fraction`).
    hold_cap: u32,
    /// The short job whose end opened the hold, until the next short probe arrives.
    hold_ended: Option<(ConnId, u64)>,
    /// When long work was last placed here, and how lately that must be for a short job's
    /// end with no long work queued to open a hold (the reservation's `idle`, ms).
    last_long: Option<Ms>,
    idle_ms: f64,
    /// eagle-adaptive: since when short work has taken slots while long work waited here,
    /// without a long grant since ([`NodeState::long_due`]).
    long_passed: Option<Ms>,
    /// eagle-adaptive: the most slots short work holds while long work is due here,
    /// `floor((1 − long_share) × slots)` (the driver engine's `longShare`).
    short_cap: u32,
    /// The long leases' slot-seconds over the window: the holds' budget ([`held`]).
    long_work: held::LongWork,
}

/// Kept short slots are lent to long work once short work has been away from the host this
/// long (no probe queued, none arrived or served): the driver engine's floor of the
/// starvation cap (`adaptive.min_wait`, 1 s), the wait a short task is already allowed.
pub const LEND_AFTER_MS: Ms = 1000;

/// eagle-adaptive: the longest a freed slot stays free for the answer of a steal (a peer's
/// answer takes a round trip; a dead peer's, a dial timeout). Past it the slot goes to the
/// long work at the next event or tick.
pub const STEAL_WAIT_MS: Ms = 200;

impl NodeState {
    pub fn new(settings: Settings) -> NodeState {
        let cfg = Config::for_system(crate::policy::switches(settings.policy));
        let hold = held::hold_for(&settings, &cfg);
        let hold_cap = ((cfg.adaptive.max_fraction * settings.slots as f64).floor() as u32).max(1);
        let short_cap = ((1.0 - cfg.adaptive.long_share) * settings.slots as f64 + 1e-9).floor() as u32;
        NodeState {
            srpt: cfg.srpt,
            sbp: cfg.sbp,
            sss: cfg.sss,
            adaptive: settings.policy == Policy::EagleAdaptive,
            stealing: cfg.stealing,
            steal_limit: cfg.steal_limit,
            steal_attempts: cfg.steal_attempts,
            steal_pending: false,
            want_steal: false,
            task_ended: false,
            steal_sent: None,
            stolen_work: eagle_core::adaptive::windowed::Windowed::new(cfg.adaptive.window * 1000.0),
            steal_window_ms: cfg.adaptive.window * 1000.0,
            steal_budget_ms: cfg.adaptive.hold_fraction * settings.slots as f64 * cfg.adaptive.window * 1000.0,
            starvation_factor: cfg.starvation_factor,
            min_wait_ms: cfg.adaptive.min_wait * 1000.0,
            node: Node::new(settings.slots),
            settings,
            jobs: Vec::new(),
            free_ids: Vec::new(),
            by_key: HashMap::new(),
            leases: BTreeMap::new(),
            next_lease: 1,
            conns: HashMap::new(),
            apps: HashMap::new(),
            central: None,
            bitvector: None,
            short_slots: 0,
            last_short: None,
            hold,
            hold_cap,
            hold_ended: None,
            last_long: None,
            idle_ms: cfg.adaptive.idle * 1000.0,
            long_passed: None,
            short_cap,
            long_work: held::LongWork::new(&cfg),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The one entry point: reacts to `event` at time `now`.
    pub fn handle(&mut self, now: Ms, event: Event) -> Vec<Action> {
        let mut out = Vec::new();
        self.count_long_work(now);
        match event {
            Event::Connected { conn, peer } => self.connected(now, conn, peer, &mut out),
            Event::Disconnected { conn } => self.drop_conn(conn, &mut out),
            Event::Message { conn, msg } => {
                let Some(c) = self.conns.get_mut(&conn) else { return out };
                c.last_heard = now;
                let role = c.peer.role;
                self.message(now, conn, role, msg, &mut out);
            }
            Event::Tick => self.tick(now, &mut out),
            Event::Own(StealDone { probes }) => self.stolen(now, probes),
        }
        self.fill(now, &mut out);
        self.task_ended = false;
        self.maybe_steal(&mut out);
        out
    }

    fn connected(&mut self, now: Ms, conn: ConnId, peer: Peer, out: &mut Vec<Action>) {
        match peer.role {
            Role::Driver => {
                // A driver that reconnects (same application id) replaces its old connection.
                if let Some(old) = self.apps.insert(peer.app.clone(), conn) {
                    self.drop_conn(old, out);
                    out.push(Action::Close { conn: old, reason: format!("application '{}' reconnected", peer.app) });
                }
            }
            Role::Central => {
                if let Some(old) = self.central.replace(conn) {
                    self.conns.remove(&old);
                    out.push(Action::Close { conn: old, reason: "a new central scheduler connected".into() });
                }
            }
            Role::Node => {}
        }
        self.conns.insert(conn, Conn { peer, last_heard: now });
    }

    fn message(&mut self, now: Ms, conn: ConnId, role: Role, msg: ToNode, out: &mut Vec<Action>) {
        let err = |out: &mut Vec<Action>, what: String| out.push(Action::Send { conn, msg: FromNode::Error { what } });
        match msg {
            ToNode::Probe { job, tasks, est_ms, cpus } => {
                if role != Role::Driver {
                    return err(out, format!("Probe is a driver message, not a {role}'s"));
                }
                if !(est_ms.is_finite() && est_ms >= 0.0) {
                    return err(out, format!("Probe of job {job}: est_ms must be a finite number >= 0, got {est_ms}"));
                }
                if cpus == 0 {
                    return err(out, format!("Probe of job {job}: cpus must be >= 1, got 0"));
                }
                // Wider than the host (it could never run here), or SSS: the node holds long
                // work (eagle-adaptive: and the probe cannot start at once).
                // (Not where the central keeps short slots, or a hold keeps slots free: they
                // are short work's whatever long work the host holds.)
                let sss_rejects = self.sss
                    && self.node.holds_long()
                    && !self.admits_at_once(cpus)
                    && !self.admits_held(now, cpus)
                    && !self.admits_soon(now, cpus)
                    && self.short_slots < cpus;
                self.short_arrived(now, conn, job);
                if cpus > self.settings.slots || sss_rejects {
                    out.push(Action::Send { conn, msg: FromNode::Rejected { job, bitvector: self.bitvector.clone() } });
                    return;
                }
                if tasks > 0 {
                    self.enqueue_probe(now, conn, job, tasks, est_ms, cpus, false);
                }
            }
            ToNode::Remaining { job, tasks } => {
                if let Some(&id) = self.by_key.get(&(conn, job)) {
                    self.jobs[id as usize].as_mut().unwrap().tasks = tasks;
                    self.drop_dead(out);
                }
            }
            ToNode::Place { app, job, est_ms, bitvector, cpus } => {
                if role != Role::Central {
                    return err(out, format!("Place is a central scheduler message, not a {role}'s"));
                }
                if !(est_ms.is_finite() && est_ms >= 0.0) {
                    return err(out, format!("Place of job {job}: est_ms must be a finite number >= 0, got {est_ms}"));
                }
                if self.bitvector.as_ref().is_none_or(|b| b.stamp <= bitvector.stamp) {
                    self.bitvector = Some(bitvector);
                }
                let driver = self.apps.get(&app).copied();
                let Some(driver) = driver.filter(|_| (1..=self.settings.slots).contains(&cpus)) else {
                    if let Some(driver) = driver {
                        out.push(Action::Send { conn: driver, msg: FromNode::Unqueued { job, tasks: 1 } });
                    }
                    out.push(Action::Send { conn, msg: FromNode::PlaceRefused { app, job, est_ms, cpus } });
                    return;
                };
                let id = self.job_for(driver, job, est_ms, cpus);
                let j = self.jobs[id as usize].as_mut().unwrap();
                if j.queued == 0 {
                    j.since = now;
                }
                j.queued += 1;
                self.node.queued_long += 1;
                self.long_placed(now);
                self.node.queue.push_back(Entry {
                    job: JobId(id),
                    long: true,
                    reservation: true,
                    marks_long: true,
                    est: est_ms,
                    behind_long: false,
                    acc_delay: 0.0,
                    sticky: false,
                });
            }
            ToNode::Launched { lease } => match self.leases.get_mut(&lease) {
                Some(l) if l.conn == conn => l.state = LeaseState::Running,
                _ => out.push(Action::Send {
                    conn,
                    msg: FromNode::Revoked { lease, reason: "unknown or expired lease".into() },
                }),
            },
            ToNode::NoTask { lease } | ToNode::TaskEnd { lease } => {
                if self.leases.get(&lease).is_none_or(|l| l.conn != conn) {
                    return err(out, format!("lease {lease} is not held by this connection"));
                }
                let no_task = matches!(msg, ToNode::NoTask { .. });
                self.task_ended = !no_task;
                let l = self.end_lease(lease, out);
                if !no_task {
                    if let Some(j) = self.jobs[l.job.0 as usize].as_mut() {
                        j.took = now.saturating_sub(l.granted) as f64;
                        if j.stolen {
                            self.stolen_work.add(now as f64, l.cpus as f64 * j.took);
                        }
                    }
                }
                if no_task && !l.long {
                    // Late binding's "no task": the job has nothing left; its probes go.
                    if let Some(j) = self.jobs[l.job.0 as usize].as_mut() {
                        j.tasks = 0;
                    }
                    self.drop_dead(out);
                }
                if !l.long {
                    self.maybe_hold(now, l.job);
                }
                self.maybe_free_job(l.job);
            }
            ToNode::Steal { limit, apps } => {
                if role != Role::Node {
                    return err(out, format!("Steal is a node message, not a {role}'s"));
                }
                let probes =
                    if self.adaptive { self.give_waiting(limit, &apps) } else { self.give_blocked(limit, &apps) };
                out.push(Action::Send { conn, msg: FromNode::Stolen { probes } });
            }
            ToNode::ShortSlots { slots } => {
                if role != Role::Central {
                    return err(out, format!("ShortSlots is a central scheduler message, not a {role}'s"));
                }
                self.short_slots = slots.min(self.settings.slots);
            }
            ToNode::DropReservations => {
                if role != Role::Central {
                    return err(out, format!("DropReservations is a central scheduler message, not a {role}'s"));
                }
                self.drop_reservations(conn, out);
            }
            ToNode::Ping => out.push(Action::Send { conn, msg: FromNode::Pong }),
            ToNode::Status => out.push(Action::Send { conn, msg: FromNode::Status(self.status()) }),
        }
        let _ = now;
    }

    /// Queues a short probe of `conn`'s `job`, whose tasks hold `cpus` slots each (`stolen`:
    /// taken from a peer, not sent by the driver).
    #[allow(clippy::too_many_arguments)]
    fn enqueue_probe(&mut self, now: Ms, conn: ConnId, job: u64, tasks: u32, est_ms: f64, cpus: u32, stolen: bool) {
        let id = self.job_for(conn, job, est_ms, cpus);
        self.last_short = Some(now);
        let j = self.jobs[id as usize].as_mut().unwrap();
        j.stolen = if j.queued == 0 && j.leases == 0 { stolen } else { j.stolen && stolen };
        // A probe already waiting keeps its wait: another of the same job (a re-probe, or a
        // local long share asked again) must not restart the floor of its starvation cap.
        if j.queued == 0 {
            j.since = now;
        }
        j.tasks = tasks;
        j.est = est_ms;
        j.cpus = cpus;
        j.queued += 1;
        let behind_long = self.node.holds_long() && self.short_slots == 0;
        self.node.queue.push_back(Entry {
            job: JobId(id),
            long: false,
            reservation: false,
            marks_long: false,
            est: est_ms,
            behind_long,
            acc_delay: 0.0,
            sticky: false,
        });
    }

    /// The record of `(conn, job)`, created when new.
    fn job_for(&mut self, conn: ConnId, id: u64, est: f64, cpus: u32) -> u32 {
        if let Some(&i) = self.by_key.get(&(conn, id)) {
            return i;
        }
        let job =
            Job { conn, id, tasks: 0, est, cpus, queued: 0, leases: 0, since: 0, took: 0.0, peak: 0, stolen: false };
        let i = match self.free_ids.pop() {
            Some(i) => {
                self.jobs[i as usize] = Some(job);
                i
            }
            None => {
                self.jobs.push(Some(job));
                (self.jobs.len() - 1) as u32
            }
        };
        self.by_key.insert((conn, id), i);
        i
    }

    fn maybe_free_job(&mut self, job: JobId) {
        let i = job.0 as usize;
        if let Some(j) = &self.jobs[i] {
            if j.queued == 0 && j.leases == 0 {
                self.by_key.remove(&(j.conn, j.id));
                self.jobs[i] = None;
                self.free_ids.push(job.0);
            }
        }
    }

    fn is_dead(&self, e: &Entry) -> bool {
        !e.long && self.jobs[e.job.0 as usize].as_ref().is_none_or(|j| j.tasks == 0)
    }

    /// Drops the short probes of jobs with nothing left to launch (SBP, §3.3).
    fn drop_dead(&mut self, out: &mut Vec<Action>) {
        if !self.node.queue.iter().any(|e| self.is_dead(e)) {
            return;
        }
        let queue = std::mem::take(&mut self.node.queue);
        let (dead, live): (Vec<Entry>, Vec<Entry>) = queue.into_iter().partition(|e| self.is_dead(e));
        self.node.queue = live.into();
        for e in dead {
            self.unqueue(&e, out);
        }
    }

    /// Bookkeeping of an entry removed from the queue without a grant.
    fn unqueue(&mut self, e: &Entry, out: &mut Vec<Action>) {
        let (driver, job, cpus) = self.forget(e);
        if e.reservation {
            self.long_done(driver, job, e.est, cpus, out);
        }
        self.maybe_free_job(e.job);
    }

    /// The counts of an entry leaving the queue; returns its job's driver, id and cpus
    /// (the job itself is freed by the caller, after it has told whom it must).
    fn forget(&mut self, e: &Entry) -> (ConnId, u64, u32) {
        if e.long {
            self.node.queued_long -= 1;
        }
        let j = self.jobs[e.job.0 as usize].as_mut().unwrap();
        j.queued -= 1;
        (j.conn, j.id, j.cpus)
    }

    /// The application name `driver` registered with ("" once it is gone).
    fn app_of(&self, driver: ConnId) -> String {
        self.conns.get(&driver).map_or_else(String::new, |c| c.peer.app.clone())
    }

    /// The host left the general partition: every reservation queued here goes back to the
    /// `central` as a `PlaceRefused`, which places it again elsewhere (granted ones run on),
    /// and its driver is told (`Unqueued`), so that its books hold even if the central dies
    /// before it answers.
    fn drop_reservations(&mut self, central: ConnId, out: &mut Vec<Action>) {
        let queue = std::mem::take(&mut self.node.queue);
        let (gone, kept): (Vec<Entry>, Vec<Entry>) = queue.into_iter().partition(|e| e.reservation);
        self.node.queue = kept.into();
        for e in gone {
            let (driver, job, cpus) = self.forget(&e);
            let app = self.app_of(driver);
            out.push(Action::Send { conn: driver, msg: FromNode::Unqueued { job, tasks: 1 } });
            out.push(Action::Send { conn: central, msg: FromNode::PlaceRefused { app, job, est_ms: e.est, cpus } });
            self.maybe_free_job(e.job);
        }
    }

    /// Tells the central a long task it placed here is over.
    fn long_done(&mut self, driver: ConnId, job: u64, est_ms: f64, cpus: u32, out: &mut Vec<Action>) {
        let Some(central) = self.central else { return };
        let app = self.app_of(driver);
        out.push(Action::Send { conn: central, msg: FromNode::LongDone { app, job, est_ms, cpus } });
    }

    /// Ends a lease: its slots free. Returns it.
    fn end_lease(&mut self, lease: u64, out: &mut Vec<Action>) -> Lease {
        let l = self.leases.remove(&lease).expect("caller checked the lease");
        self.node.free += l.cpus;
        self.want_steal = true;
        if l.long {
            self.node.running_long -= 1;
        }
        let j = self.jobs[l.job.0 as usize].as_mut().unwrap();
        j.leases -= 1;
        if l.long {
            let (conn, id) = (j.conn, j.id);
            self.long_done(conn, id, l.est, l.cpus, out);
        }
        l
    }

    /// Removes everything of a connection: a driver's entries and leases (its slots
    /// come back at once), or the central's link.
    fn drop_conn(&mut self, conn: ConnId, out: &mut Vec<Action>) {
        let Some(c) = self.conns.get(&conn) else { return };
        if c.peer.role == Role::Driver && self.apps.get(&c.peer.app) == Some(&conn) {
            self.apps.remove(&c.peer.app);
        }
        if self.central == Some(conn) {
            self.central = None;
            self.short_slots = 0;
        }
        let mine: Vec<u64> = self.leases.iter().filter(|(_, l)| l.conn == conn).map(|(&id, _)| id).collect();
        for id in mine {
            let l = self.end_lease(id, out);
            self.maybe_free_job(l.job);
        }
        let queue = std::mem::take(&mut self.node.queue);
        let (gone, kept): (Vec<Entry>, Vec<Entry>) =
            queue.into_iter().partition(|e| self.jobs[e.job.0 as usize].as_ref().is_some_and(|j| j.conn == conn));
        self.node.queue = kept.into();
        for e in gone {
            self.unqueue(&e, out);
        }
        self.conns.remove(&conn);
    }

    fn tick(&mut self, now: Ms, out: &mut Vec<Action>) {
        let lease_ms = self.settings.lease_ms;
        self.want_steal = true;
        let silent: Vec<ConnId> =
            self.conns.iter().filter(|(_, c)| now.saturating_sub(c.last_heard) > lease_ms).map(|(&id, _)| id).collect();
        for conn in silent {
            self.drop_conn(conn, out);
            out.push(Action::Close { conn, reason: format!("not heard from for more than {lease_ms} ms") });
        }
        let expired: Vec<u64> = self
            .leases
            .iter()
            .filter(|(_, l)| matches!(l.state, LeaseState::Granted { expires } if expires <= now))
            .map(|(&id, _)| id)
            .collect();
        for lease in expired {
            let l = self.end_lease(lease, out);
            out.push(Action::Send {
                conn: l.conn,
                msg: FromNode::Revoked { lease, reason: format!("not answered within {lease_ms} ms") },
            });
            self.maybe_free_job(l.job);
        }
    }

    /// Grants free slots while the queue has something to serve.
    fn fill(&mut self, now: Ms, out: &mut Vec<Action>) {
        while self.node.free > 0 && !self.node.queue.is_empty() {
            self.drop_dead(out);
            let len = self.node.queue.len();
            let (held, due) = (self.held(now), self.long_due(now));
            // Due long work is not kept from a slot held for the next short job either.
            let held = if due { 0 } else { held };
            // Long entries wider than the room the short slots leave sit this pick out.
            let room = self.long_room(now, held);
            let (queue, jobs) = (&self.node.queue, &self.jobs);
            let cpus = move |i: usize| jobs[queue[i].job.0 as usize].as_ref().map_or(1, |j| j.cpus);
            let fits = move |i: usize| !queue[i].long || room.is_none_or(|r| cpus(i) <= r);
            // Long work is due: it takes the slot (short work keeps its share).
            let due_pick = if due { self.pick(now, (0..len).filter(move |&i| queue[i].long && fits(i))) } else { None };
            let pos = due_pick.or_else(|| self.pick(now, (0..len).filter(move |&i| fits(i))));
            match pos {
                // Too wide for the free slots: hold them until enough free (head of the line).
                Some(pos) if self.cpus_at(pos) > self.node.free => break,
                // eagle-adaptive: short work waiting elsewhere goes before this long task.
                Some(pos) if !due && self.steals_before_long(now, pos, out) => break,
                Some(pos) => self.grant(now, pos, out),
                None => break,
            }
        }
    }

    /// The queue position the policy serves next among the positions `among` (in queue
    /// order), if any.
    fn pick(&self, now: Ms, among: impl Iterator<Item = usize> + Clone) -> Option<usize> {
        if !(self.sbp && self.srpt) {
            return among.clone().next();
        }
        let (jobs, adaptive, floor, queue) = (&self.jobs, self.adaptive, self.min_wait_ms, &self.node.queue);
        let views = among.clone().map(|i| {
            let e = &queue[i];
            let j = jobs[e.job.0 as usize].as_ref().unwrap();
            // A long job's remaining work as this node sees it: its tasks placed here.
            let left = if e.long { j.queued } else { j.tasks };
            // eagle-adaptive: a short entry that has waited less than `min_wait` of
            // wall time since it was queued or last served is not protected yet: any
            // probe of less remaining work may pass it (infinite slack), however its
            // estimate compares with the entry's (5 × a 3 ms task is 15 ms).
            let fresh = adaptive && !e.long && (now.saturating_sub(j.since) as f64) < floor;
            let acc_delay = if fresh { f64::NEG_INFINITY } else { e.acc_delay };
            View { entry: e, remaining: left as f64 * j.est, est: e.est, acc_delay }
        });
        let pick = if self.adaptive {
            srpt::pick_short_first(views, self.starvation_factor)
        } else {
            srpt::pick_sbp(views, self.starvation_factor)
        };
        match pick {
            Pick::At(k) => among.clone().nth(k),
            Pick::Empty => None,
        }
    }

    /// eagle-adaptive: a grant to the short job `job` restarts the floor of its starvation
    /// cap (`min_wait`): smaller jobs may pass it for another second. Except at the end of
    /// a starved job: served under its cap (it had waited the floor), with no more work
    /// left here than one floor of the host's slots (unlaunched tasks × its task time, the
    /// estimate or what its last task here took if more), it stays protected until its
    /// probe leaves, so its last tasks go at full width. That delays the others once, by
    /// at most the floor, where restarting the floor at every grant served a starved nine-
    /// task job of 0.4 s tasks one launch a second, 12.6 s in all. A big job
    /// of many tiny tasks is still served once a second until its last second of work.
    fn served(&mut self, now: Ms, job: JobId) {
        let (floor, slots) = (self.min_wait_ms, self.settings.slots as f64);
        let j = self.jobs[job.0 as usize].as_mut().unwrap();
        let starved = now.saturating_sub(j.since) as f64 >= floor;
        let left = j.tasks.saturating_sub(1) as f64 * j.est.max(j.took);
        if !(starved && left <= floor * slots) {
            j.since = now;
        }
    }

    /// Slots one task of the entry at `pos` holds.
    fn cpus_at(&self, pos: usize) -> u32 {
        self.jobs[self.node.queue[pos].job.0 as usize].as_ref().map_or(1, |j| j.cpus)
    }

    /// Leases the job's slots to the job of the entry at `pos` (late binding: the driver
    /// picks the task).
    fn grant(&mut self, now: Ms, pos: usize, out: &mut Vec<Action>) {
        let e = self.node.queue[pos].clone();
        if self.adaptive && !e.long {
            self.served(now, e.job);
        }
        let lease = self.next_lease;
        self.next_lease += 1;
        let j = self.jobs[e.job.0 as usize].as_mut().unwrap();
        let cpus = j.cpus;
        self.node.free -= cpus;
        j.leases += 1;
        j.peak = j.peak.max(j.leases * cpus);
        let (conn, id) = (j.conn, j.id);
        let keep = if e.long {
            self.long_passed = None;
            self.node.queued_long -= 1;
            self.node.running_long += 1;
            false
        } else {
            self.last_short = Some(now);
            if self.node.queued_long > 0 {
                self.long_passed.get_or_insert(now);
            }
            j.tasks = j.tasks.saturating_sub(1);
            // eagle-adaptive admits a short probe beside long work only for one slot-turn, at
            // once or soon (where no short slot is kept for it).
            self.sbp && j.tasks > 0 && !(self.adaptive && self.node.holds_long() && self.short_slots == 0)
        };
        if keep {
            self.node.queue[pos].sticky = true;
        } else {
            self.node.queue.remove(pos);
            j.queued -= 1;
        }
        // Algorithm 1: every probe a short grant bypassed is charged its estimate
        // (eagle-adaptive: and every long entry a long grant bypassed).
        if self.srpt && (!e.long || self.adaptive) {
            for k in 0..pos {
                if !e.long || self.node.queue[k].long {
                    self.node.queue[k].acc_delay += e.est;
                }
            }
        }
        let expires = now + self.settings.lease_ms;
        self.leases.insert(
            lease,
            Lease {
                conn,
                job: e.job,
                long: e.long,
                est: e.est,
                cpus,
                granted: now,
                state: LeaseState::Granted { expires },
            },
        );
        out.push(Action::Send { conn, msg: FromNode::Grant { lease, job: id, long: e.long, kept: keep } });
    }
}
