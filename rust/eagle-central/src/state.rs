//! The central scheduler's state machine (Eagle §3.1-3.2): least-work-left placement
//! of every application's long tasks over the general partition, and the Succinct
//! State Sharing bitvector of the hosts that hold long work, piggybacked on every
//! placement it sends to a node.
//!
//! Pure like the node's ([`CentralState::handle`]: one event in, actions out). The
//! policy is eagle-core's: [`eagle_core::eagle::lwl::water_fill`] spreads a job's tasks,
//! [`eagle_core::eagle::sss::LongMap`] keeps the per-host long-task counts and the
//! bitvector, and the connected hosts split into the short-only and general partitions
//! by a fixed share or by the drivers' short demand ([`crate::short_partition`]);
//! under `--short-partition slots` the demand is kept as slots on every host instead,
//! each node told its count (`ShortSlots`) when it changes.
//!
//! Hosts may differ in size and tasks in width (LoTES): the central asks every node
//! for its `Status` when its link comes up and keeps the node's slot count; where each
//! task goes is [`crate::placement`] (fit, capacity-aware LWL, and LoTES under
//! `--placement lotes`).
//!
//! The work map stays exact: a node reports `LongDone` when each long task it was
//! given ends (or its reservation is dropped), and a host whose link drops loses its
//! work and its bit (its reservations died with the daemon).

use crate::headroom;
use crate::placement::{Candidate, HostPlacement, Placement};
use crate::short_partition::{
    cover_len, cover_order, long_bound, share_of_demand, short_only_hosts, short_slots_per_host, Measure, ShortDemand,
    ShortPartition,
};
use eagle_core::eagle::partition::{short_only_count, Partitions};
use eagle_core::eagle::sss::LongMap;
use eagle_core::types::NodeId;
use eagle_wire::{Bitvector, CentralStatus, FromCentral, FromNode, NodeHealth, Role, ToCentral, ToNode};
use std::collections::{BTreeMap, BTreeSet};

pub use crate::ids::{ConnId, HostId};

/// How long a driver that reported short work keeps counting as having some once its
/// reports say none (its short-only host is held for its next short job; the driver
/// engine observes short work over the same 60 s). Then its host may take long work.
pub const SHORT_IDLE_S: f64 = 60.0;

/// A [`CentralState::reservation_order`] of the live hosts, and how many of its first hosts
/// cover every driver with short work.
type Cover = (Vec<NodeId>, usize);

/// Everything the machine reacts to: the daemons' shared events (its peers are drivers,
/// and nodes announcing themselves), and [`HostEvent`].
pub type Event = eagle_wire::net::Event<ToCentral, HostEvent>;

/// What the central's link to a host reports.
#[derive(Clone, Debug, PartialEq)]
pub enum HostEvent {
    /// The central's link to a host came up / went down.
    NodeUp {
        host: HostId,
    },
    NodeDown {
        host: HostId,
    },
    FromNode {
        host: HostId,
        msg: FromNode,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    ToPeer {
        conn: ConnId,
        msg: FromCentral,
    },
    ToNode {
        host: HostId,
        msg: ToNode,
    },
    /// Start connecting to a new host.
    Dial {
        host: HostId,
        addr: String,
    },
}

#[derive(Clone, Debug)]
struct Host {
    name: String,
    up: bool,
    /// Estimated work (slot-ms: a task's estimate times its slots) of the long tasks
    /// placed here and not over.
    work_ms: f64,
    /// The node's slots, from its `Status` (unknown until it answers).
    slots: Option<u32>,
    /// `--short-partition slots`: the slots it keeps for short work now, and the count
    /// its node was last told (`None`: not told since its link came up).
    kept: u32,
    told: Option<u32>,
}

pub struct CentralState {
    hosts: Vec<Host>,
    placement: HostPlacement,
    long: LongMap,
    stamp: u64,
    short_fraction: f64,
    mode: ShortPartition,
    /// `--short-partition adaptive` or `slots`: the drivers' short demand (else the
    /// fixed share).
    demand: Option<ShortDemand>,
    /// Short-only hosts (`slots`: kept slots) at the last layout (logged when it changes).
    short_only: usize,
    /// The short slots the last layout was sized for: the demand, under `share` capped by
    /// the short class's part ([`share_of_demand`]); what `Status` reports (0 under `fixed`).
    short_want: u32,
    /// Seconds on the caller's clock ([`CentralState::set_now`]).
    now: f64,
    /// Drivers by connection, with their application id.
    drivers: BTreeMap<ConnId, String>,
    /// The hosts each driver last said it has executors on (`Executors`); a driver that
    /// has not said may be placed on any host.
    executors: BTreeMap<ConnId, BTreeSet<String>>,
    /// Drivers that have reported short work (`ShortLoad` with a task running or waiting):
    /// `None` while their last report had some, else when it said none. A driver idle of
    /// short work for [`SHORT_IDLE_S`] no longer counts.
    short_drivers: BTreeMap<ConnId, Option<f64>>,
    /// Drivers that have asked to place long work (`SubmitLong`), with when they last did;
    /// they count while long tasks of theirs are placed and not over, and for
    /// [`SHORT_IDLE_S`] after their last ask. An adaptive partition grows only as far as
    /// leaves each of them half its hosts as general hosts ([`long_bound`]).
    long_drivers: BTreeMap<ConnId, f64>,
    /// [`CentralState::reservation_order`] of the live hosts it was computed for, and how
    /// many of its first hosts cover every driver with short work; cleared when a driver's
    /// hosts change or a driver first reports short work.
    order: Option<(Vec<NodeId>, Cover)>,
    peers: BTreeMap<ConnId, Role>,
    /// The connected hosts outside the general partition at the last event's end: a host
    /// that joins them is asked to hand back its queued long work ([`Self::hand_back_long`]),
    /// and every driver is told the set whenever it changes (`ShortOnly`).
    closed: BTreeSet<u32>,
    /// `--long-headroom`: the share of the general hosts no one long job's tasks go to (0: off).
    headroom: f64,
}

impl CentralState {
    /// `hosts`: the `--nodes` list, `(name, addr)`; `short_fraction`: the share of
    /// connected hosts kept for short work only (§3.1). Places by LWL.
    pub fn new(hosts: &[(String, String)], short_fraction: f64) -> (CentralState, Vec<Action>) {
        Self::with_placement(hosts, short_fraction, Placement::Lwl, 0).expect("LWL needs no planner")
    }

    /// [`CentralState::new`] with the given placement (`--placement`); `seed` seeds
    /// LoTES's k-means.
    pub fn with_placement(
        hosts: &[(String, String)],
        short_fraction: f64,
        placement: Placement,
        seed: u64,
    ) -> Result<(CentralState, Vec<Action>), eagle_core::PlacementError> {
        let mut s = CentralState {
            placement: HostPlacement::new(placement, seed)?,
            hosts: Vec::new(),
            long: LongMap::default(),
            stamp: 0,
            short_fraction,
            mode: ShortPartition::Fixed,
            demand: None,
            short_only: 0,
            short_want: 0,
            now: 0.0,
            drivers: BTreeMap::new(),
            executors: BTreeMap::new(),
            short_drivers: BTreeMap::new(),
            long_drivers: BTreeMap::new(),
            order: None,
            peers: BTreeMap::new(),
            closed: BTreeSet::new(),
            headroom: 0.0,
        };
        let mut out = Vec::new();
        for (name, addr) in hosts {
            s.add_host(name, addr, &mut out);
        }
        Ok((s, out))
    }

    /// Sizes the short-only partition by `mode` (the default is [`ShortPartition::Fixed`]);
    /// `short_fraction` stays its floor.
    pub fn with_short_partition(mut self, mode: ShortPartition) -> CentralState {
        self.mode = mode;
        self.demand = match mode {
            ShortPartition::Fixed => None,
            ShortPartition::Adaptive | ShortPartition::Share => Some(ShortDemand::new(self.now, Measure::Queue)),
            ShortPartition::Slots => Some(ShortDemand::new(self.now, Measure::Held)),
        };
        self
    }

    /// Leaves `fraction` of the general hosts (rounded up) free of any one long job
    /// (`--long-headroom`, [`crate::headroom`]); 0, the default, is the paper's placement.
    pub fn with_long_headroom(mut self, fraction: f64) -> CentralState {
        self.headroom = fraction;
        self
    }

    /// The time of the events that follow, in seconds (monotonic; the adaptive short
    /// partition's window runs on it).
    pub fn set_now(&mut self, now: f64) {
        self.now = self.now.max(now);
    }

    fn add_host(&mut self, name: &str, addr: &str, out: &mut Vec<Action>) -> HostId {
        let host = self.hosts.len() as HostId;
        self.hosts.push(Host { name: name.to_string(), up: false, work_ms: 0.0, slots: None, kept: 0, told: None });
        self.long.grow(self.hosts.len());
        out.push(Action::Dial { host, addr: addr.to_string() });
        host
    }

    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        let mut out = Vec::new();
        match event {
            Event::Connected { conn, peer } => {
                self.peers.insert(conn, peer.role);
                if peer.role == Role::Driver {
                    self.drivers.insert(conn, peer.app);
                    out.push(Action::ToPeer { conn, msg: self.hosts_msg() });
                    out.push(Action::ToPeer { conn, msg: self.short_only_msg() });
                }
            }
            Event::Disconnected { conn } => {
                self.peers.remove(&conn);
                self.drivers.remove(&conn);
                self.long_drivers.remove(&conn);
                if self.executors.remove(&conn).is_some() | self.short_drivers.remove(&conn).is_some() {
                    self.order = None;
                }
                if let Some(d) = &mut self.demand {
                    d.gone(self.now, conn);
                }
            }
            Event::Message { conn, msg } => self.message(conn, msg, &mut out),
            Event::Own(HostEvent::NodeUp { host }) => {
                let h = &mut self.hosts[host as usize];
                h.up = true;
                h.told = None;
                // Its size: the answer comes back as `FromNode::Status`.
                out.push(Action::ToNode { host, msg: ToNode::Status });
            }
            Event::Own(HostEvent::NodeDown { host }) => {
                let h = &mut self.hosts[host as usize];
                h.up = false;
                h.work_ms = 0.0;
                h.told = None;
                self.long.clear(host as usize);
                self.placement.host_lost(host);
            }
            Event::Own(HostEvent::FromNode { host, msg }) => match msg {
                FromNode::LongDone { app, job, est_ms, cpus } => self.long_over(host, &app, job, est_ms, cpus),
                FromNode::Status(st) => {
                    let h = &mut self.hosts[host as usize];
                    if h.slots != Some(st.slots) {
                        log::info!("node {} has {} slots", h.name, st.slots);
                        h.slots = Some(st.slots);
                        self.placement.host_sized(host, st.slots);
                    }
                }
                FromNode::PlaceRefused { app, job, est_ms, cpus } => {
                    self.long_over(host, &app, job, est_ms, cpus);
                    if let Some((&conn, _)) = self.drivers.iter().find(|(_, a)| **a == app) {
                        out.push(Action::ToPeer {
                            conn,
                            msg: FromCentral::Unplaced { job, tasks: 1, host: Some(host) },
                        });
                    }
                }
                FromNode::Error { what } => log::warn!("node {} reports: {what}", self.hosts[host as usize].name),
                _ => {}
            },
            Event::Tick => {
                for (i, h) in self.hosts.iter().enumerate() {
                    if h.up {
                        out.push(Action::ToNode { host: i as HostId, msg: ToNode::Ping });
                    }
                }
            }
        }
        self.tell_short_slots(&mut out);
        self.hand_back_long(&mut out);
        out
    }

    /// The short-only hosts of the last event's end, for a driver (`ShortOnly`).
    fn short_only_msg(&self) -> FromCentral {
        FromCentral::ShortOnly { hosts: self.closed.iter().copied().collect() }
    }

    /// A connected host that has left the general partition since the last event (the short
    /// partition moved: a driver reported short work, hosts came or went, the demand grew)
    /// and holds long work is asked for the long tasks still queued there
    /// (`DropReservations`): they come back as `PlaceRefused` and are placed again on the
    /// general hosts, instead of keeping short work off the host until they have all run
    /// there. The ones running there end as usual.
    fn hand_back_long(&mut self, out: &mut Vec<Action>) {
        let p = self.layout();
        let general: BTreeSet<u32> = p.big.iter().map(|n| n.0).collect();
        let closed: BTreeSet<u32> = p.small.iter().map(|n| n.0).filter(|n| !general.contains(n)).collect();
        for &h in closed.difference(&self.closed) {
            if self.long.count(h as usize) > 0 {
                out.push(Action::ToNode { host: h, msg: ToNode::DropReservations });
            }
        }
        if closed != self.closed {
            self.closed = closed;
            // Every driver learns the short-only hosts (`ShortOnly`): no long task of its goes
            // there, so none waits for its input there.
            let msg = self.short_only_msg();
            for &conn in self.drivers.keys() {
                out.push(Action::ToPeer { conn, msg: msg.clone() });
            }
        }
    }

    /// `--short-partition slots`: tells each connected node whose kept slots changed (the
    /// demand moves with the drivers' reports and with time) its new count.
    fn tell_short_slots(&mut self, out: &mut Vec<Action>) {
        if self.mode != ShortPartition::Slots {
            return;
        }
        self.layout();
        for (i, h) in self.hosts.iter_mut().enumerate() {
            if h.up && h.slots.is_some() && h.told != Some(h.kept) {
                h.told = Some(h.kept);
                out.push(Action::ToNode { host: i as HostId, msg: ToNode::ShortSlots { slots: h.kept } });
            }
        }
    }

    /// The bitvector now: the hosts holding long work (§3.1), less those that keep short
    /// slots (`--short-partition slots`), which queue short probes whatever long work
    /// they hold.
    fn bitvector(&mut self) -> Bitvector {
        let mut words = self.long.snapshot().to_vec();
        for (i, h) in self.hosts.iter().enumerate() {
            if h.kept > 0 {
                if let Some(w) = words.get_mut(i / 64) {
                    *w &= !(1u64 << (i % 64));
                }
            }
        }
        Bitvector { stamp: self.stamp, words }
    }

    fn message(&mut self, conn: ConnId, msg: ToCentral, out: &mut Vec<Action>) {
        let role = self.peers.get(&conn).copied();
        let reply = |out: &mut Vec<Action>, msg: FromCentral| out.push(Action::ToPeer { conn, msg });
        match msg {
            ToCentral::SubmitLong { job, tasks, est_ms, cpus, hosts, avoid, input } => {
                let Some(app) = self.drivers.get(&conn).cloned() else {
                    return reply(out, FromCentral::Error { what: "SubmitLong is a driver message".into() });
                };
                if !(est_ms.is_finite() && est_ms >= 0.0) {
                    return reply(
                        out,
                        FromCentral::Error {
                            what: format!("SubmitLong of job {job}: est_ms must be a finite number >= 0, got {est_ms}"),
                        },
                    );
                }
                if cpus == 0 {
                    return reply(
                        out,
                        FromCentral::Error { what: format!("SubmitLong of job {job}: cpus must be >= 1, got 0") },
                    );
                }
                self.long_drivers.insert(conn, self.now);
                let only: Option<BTreeSet<String>> = hosts.map(|h| h.into_iter().collect());
                let avoid: BTreeSet<String> = avoid.into_iter().collect();
                // Tasks reading input on each host, at most `tasks` (a name given twice adds).
                let mut near: BTreeMap<String, u32> = BTreeMap::new();
                for (host, n) in input {
                    let e = near.entry(host).or_default();
                    *e = e.saturating_add(n).min(tasks);
                }
                let placed = self.place(conn, &app, job, tasks, est_ms, cpus, only.as_ref(), &avoid, &near);
                if placed.is_empty() && tasks > 0 {
                    return reply(out, FromCentral::Unplaced { job, tasks, host: None });
                }
                self.stamp += 1;
                let bitvector = self.bitvector();
                for &host in &placed {
                    let msg = ToNode::Place { app: app.clone(), job, est_ms, bitvector: bitvector.clone(), cpus };
                    out.push(Action::ToNode { host, msg });
                }
                reply(out, FromCentral::Placed { job, hosts: placed });
            }
            ToCentral::Register { name, addr } => {
                if role != Some(Role::Node) {
                    return reply(out, FromCentral::Error { what: "Register is a node message".into() });
                }
                if self.hosts.iter().any(|h| h.name == name) {
                    log::info!("node '{name}' registered again");
                    return;
                }
                log::info!("node '{name}' registered at {addr}");
                self.add_host(&name, &addr, out);
                let hosts = self.hosts_msg();
                for &conn in self.drivers.keys() {
                    out.push(Action::ToPeer { conn, msg: hosts.clone() });
                }
            }
            ToCentral::Ping => reply(out, FromCentral::Pong),
            ToCentral::Status => reply(out, FromCentral::Status(self.status())),
            ToCentral::Executors { hosts } => {
                if !self.drivers.contains_key(&conn) {
                    return reply(out, FromCentral::Error { what: "Executors is a driver message".into() });
                }
                let hosts: BTreeSet<String> = hosts.into_iter().collect();
                if !hosts.is_empty() && !self.hosts.iter().any(|h| hosts.contains(&h.name)) {
                    // Names the central does not use (e.g. IP addresses against host names):
                    // it cannot tell where the executors are, so it places as if not told.
                    log::warn!(
                        "driver '{}' has executors on {hosts:?}, none of them a host name of this central ({}); \
                         its long tasks may go to any host, and nodes without it refuse them. Give the nodes \
                         (--name / --nodes) the names Spark's executors report",
                        self.drivers[&conn],
                        self.hosts.iter().map(|h| h.name.as_str()).collect::<Vec<_>>().join(", ")
                    );
                }
                self.executors.insert(conn, hosts);
                self.order = None;
            }
            ToCentral::ShortLoad { running, waiting } => {
                if !self.drivers.contains_key(&conn) {
                    return reply(out, FromCentral::Error { what: "ShortLoad is a driver message".into() });
                }
                if running + waiting > 0 {
                    if self.short_drivers.insert(conn, None).is_none() {
                        self.order = None;
                    }
                } else if let Some(idle @ None) = self.short_drivers.get_mut(&conn) {
                    *idle = Some(self.now);
                }
                if let Some(d) = &mut self.demand {
                    d.report(self.now, conn, running, waiting);
                }
            }
        }
    }

    /// LWL (or LoTES) over the general partition of the connected hosts: one host per task,
    /// by estimated work left (§3.2), on hosts the task fits ([`crate::placement`]), where
    /// the driver of `conn` has executors (`Executors`, when it said) and, when `only` is
    /// given, that Spark lets the job use (`SubmitLong.hosts`); the hosts of `avoid` only
    /// when there is no other. Under `--long-headroom`, over at most [`headroom::spread`] of
    /// those hosts: the ones holding tasks of the job, then the least loaded others. `input`:
    /// how many of the tasks read their input on each host (`SubmitLong.input`), which
    /// bends LWL toward it within one task estimate ([`crate::placement`]). Updates the
    /// work map and bitvector.
    #[allow(clippy::too_many_arguments)]
    fn place(
        &mut self,
        conn: ConnId,
        app: &str,
        job: u64,
        tasks: u32,
        est_ms: f64,
        cpus: u32,
        only: Option<&BTreeSet<String>>,
        avoid: &BTreeSet<String>,
        input: &BTreeMap<String, u32>,
    ) -> Vec<HostId> {
        let general = self.layout().big;
        let on = self.executors_of(conn);
        let may = |name: &String| on.is_none_or(|on| on.contains(name)) && only.is_none_or(|o| o.contains(name));
        let mut candidates: Vec<Candidate> = general
            .iter()
            .filter(|n| may(&self.hosts[n.0 as usize].name))
            .map(|n| {
                let h = &self.hosts[n.0 as usize];
                // The slots long work may hold there: all but the ones kept for short work.
                let input = input.get(&h.name).copied().unwrap_or(0);
                Candidate { host: n.0, work_ms: h.work_ms, slots: h.slots.map(|s| s - h.kept), input }
            })
            .collect();
        let mut big = false;
        if let Some(most) = headroom::spread(candidates.len(), self.headroom) {
            // A big job: more than the slots of the hosts no big job holds could start at once.
            let held = self.placement.big_hosts();
            let free: u32 = candidates.iter().filter(|c| !held.contains(&c.host)).map(|c| c.size()).sum();
            big = tasks.saturating_mul(cpus.max(1)) > free;
            let kept = if big {
                candidates.iter().map(|c| c.host).filter(|h| !held.contains(h)).collect()
            } else {
                BTreeSet::new()
            };
            let spread = self.spread_of(app, job, most, &kept, &candidates);
            // A job whose grants went back on every host of its spread (a speculative copy
            // beside its original, say) may go elsewhere rather than there again.
            if spread.iter().any(|c| !avoid.contains(&self.hosts[c.host as usize].name)) {
                candidates = spread;
            }
        }
        if candidates.iter().any(|c| !avoid.contains(&self.hosts[c.host as usize].name)) {
            candidates.retain(|c| !avoid.contains(&self.hosts[c.host as usize].name));
        }
        let chosen = self.placement.choose(app, job, tasks, est_ms, cpus, &candidates);
        if big {
            self.placement.mark_big(app, job);
        }
        for &h in &chosen {
            self.hosts[h as usize].work_ms += est_ms * cpus as f64;
            self.long.add(h as usize);
        }
        chosen
    }

    /// `--long-headroom`: the `most` of `candidates` that `app`'s `job` may be placed on:
    /// the ones holding its tasks, then the ones holding its tasks' input (most tasks
    /// first), then the others by least work left (lower host first), the hosts of `kept`
    /// last. A big job (more tasks than the hosts no other big job holds could start at
    /// once) keeps those hosts: it queues anyway, and queueing behind the big jobs already
    /// placed it leaves free the host they left, where two big jobs that each left a
    /// different host would together cover every host (docs/results.md). Small long
    /// jobs still go there first.
    fn spread_of(
        &self,
        app: &str,
        job: u64,
        most: usize,
        kept: &BTreeSet<HostId>,
        candidates: &[Candidate],
    ) -> Vec<Candidate> {
        let holds = self.placement.hosts_of(app, job);
        let (mut spread, mut others): (Vec<Candidate>, Vec<Candidate>) =
            candidates.iter().copied().partition(|c| holds.contains(&c.host));
        let kept_free = |c: &Candidate| kept.contains(&c.host);
        others.sort_by(|a, b| {
            let per_slot = |c: &Candidate| c.work_ms / c.size() as f64;
            b.input
                .cmp(&a.input)
                .then(kept_free(a).cmp(&kept_free(b)))
                .then(per_slot(a).total_cmp(&per_slot(b)))
                .then(a.host.cmp(&b.host))
        });
        spread.truncate(most);
        let room = most - spread.len();
        spread.extend(others.into_iter().take(room));
        spread
    }

    fn long_over(&mut self, host: HostId, app: &str, job: u64, est_ms: f64, cpus: u32) {
        self.placement.over(host, app, job);
        let h = &mut self.hosts[host as usize];
        h.work_ms = (h.work_ms - est_ms * cpus as f64).max(0.0);
        if self.long.count(host as usize) > 0 {
            self.long.remove(host as usize);
        }
    }

    fn hosts_msg(&self) -> FromCentral {
        FromCentral::Hosts { names: self.hosts.iter().map(|h| h.name.clone()).collect() }
    }

    /// The connected hosts' partitions now: the first `k` of [`Self::reservation_order`]
    /// are short-only (`slots`: keep slots, dealt in that order), `k` by the fixed share or,
    /// adaptive, by the short demand ([`crate::short_partition`]).
    fn layout(&mut self) -> Partitions {
        let live: Vec<NodeId> = (0..self.hosts.len()).filter(|&i| self.hosts[i].up).map(|i| NodeId(i as u32)).collect();
        let (now, before) = (self.now, self.short_drivers.len());
        self.short_drivers.retain(|_, idle| idle.is_none_or(|t| now - t < SHORT_IDLE_S));
        if self.short_drivers.len() != before {
            self.order = None;
        }
        let (live, cover) = match &self.order {
            Some((of, order)) if *of == live => order.clone(),
            _ => {
                let order = self.reservation_order(&live);
                self.order = Some((live, order.clone()));
                order
            }
        };
        // The share's floor covers every application with short work, up to half the hosts.
        let cover = if self.short_fraction > 0.0 { cover.min(live.len() / 2) } else { 0 };
        let per_slot = self.mode == ShortPartition::Slots;
        let k = match &mut self.demand {
            None => {
                let k = short_only_count(live.len(), self.short_fraction).max(cover);
                if k != self.short_only {
                    log::info!("short partition: {k} of {} hosts (the hosts of every application with short work take {cover})", live.len());
                    self.short_only = k;
                }
                return Partitions::with_short_only(&live, k);
            }
            Some(d) => {
                // A node whose size is not known yet counts as one slot (`slots`: keeps none).
                let unknown = if per_slot { 0 } else { 1 };
                let slots: Vec<u32> = live.iter().map(|n| self.hosts[n.0 as usize].slots.unwrap_or(unknown)).collect();
                let total: u64 = slots.iter().map(|&s| s as u64).sum();
                let want = d.slots(self.now, total);
                let want = if self.mode == ShortPartition::Share {
                    let long: u64 = live.iter().map(|n| self.long.count(n.0 as usize) as u64).sum();
                    share_of_demand(total, want, long)
                } else {
                    want
                };
                self.short_want = want;
                if per_slot {
                    return self.keep_slots(&live, &slots, want.max(cover as u32));
                }
                let fixed = short_only_count(live.len(), self.short_fraction).max(cover);
                let grown = short_only_hosts(&slots, self.short_fraction, want).max(cover);
                // Growth past the fixed layout leaves each driver with long work a general host.
                let k = grown.min(self.long_bound(&live).max(fixed)).min(live.len().saturating_sub(1));
                if k != self.short_only {
                    log::info!("short partition: {k} of {} hosts (short demand {want} slots)", live.len());
                }
                k
            }
        };
        self.short_only = k;
        Partitions::with_short_only(&live, k)
    }

    /// The hosts where the driver of `conn` said it has executors, when it said and named
    /// none (it has none) or some host of this central; `None`: any host.
    fn executors_of(&self, conn: ConnId) -> Option<&BTreeSet<String>> {
        self.executors.get(&conn).filter(|on| on.is_empty() || self.hosts.iter().any(|h| on.contains(&h.name)))
    }

    /// [`cover_order`] of the `live` hosts by the executor hosts (`Executors`) of the
    /// drivers with short work (of every driver until one has some), and [`cover_len`]: how
    /// many of its first hosts hold an executor of every driver with short work.
    fn reservation_order(&self, live: &[NodeId]) -> Cover {
        let named: Vec<(NodeId, &str)> = live.iter().map(|&n| (n, self.hosts[n.0 as usize].name.as_str())).collect();
        let short: Vec<&BTreeSet<String>> =
            self.executors.iter().filter(|(c, _)| self.short_drivers.contains_key(c)).map(|(_, on)| on).collect();
        let drivers: Vec<&BTreeSet<String>> =
            if short.is_empty() { self.executors.values().collect() } else { short.clone() };
        let order = cover_order(&named, &drivers);
        let names: Vec<&str> = order.iter().map(|n| self.hosts[n.0 as usize].name.as_str()).collect();
        let cover = cover_len(&names, &short);
        (order, cover)
    }

    /// [`long_bound`] over the `live` hosts in reservation order, of the drivers with long
    /// tasks placed and not over, or that asked to place some in the last [`SHORT_IDLE_S`].
    /// A long stage outlasts that minute: its queued tasks must keep a general host too.
    fn long_bound(&mut self, live: &[NodeId]) -> usize {
        let (now, drivers, placement) = (self.now, &self.drivers, &self.placement);
        self.long_drivers
            .retain(|c, t| now - *t < SHORT_IDLE_S || drivers.get(c).is_some_and(|app| placement.has_live(app)));
        let names: Vec<&str> = live.iter().map(|n| self.hosts[n.0 as usize].name.as_str()).collect();
        let on: Vec<&BTreeSet<String>> = self.long_drivers.keys().filter_map(|c| self.executors.get(c)).collect();
        long_bound(&names, &on)
    }

    /// `--short-partition slots`: keeps `want` slots for short work over the `live` hosts
    /// (of these `slots`); the general partition is every host with a slot left for long
    /// work.
    fn keep_slots(&mut self, live: &[NodeId], slots: &[u32], want: u32) -> Partitions {
        let kept = short_slots_per_host(slots, self.short_fraction, want);
        for h in self.hosts.iter_mut() {
            h.kept = 0;
        }
        for (n, &k) in live.iter().zip(&kept) {
            self.hosts[n.0 as usize].kept = k;
        }
        let sum: u32 = kept.iter().sum();
        if sum as usize != self.short_only {
            log::info!(
                "short slots: {sum} of {} (short demand {want} slots), per host {kept:?}",
                slots.iter().sum::<u32>()
            );
        }
        self.short_only = sum as usize;
        let mut p = Partitions { small: live.to_vec(), ..Partitions::default() };
        for (i, &n) in live.iter().enumerate() {
            if slots[i] > 0 && kept[i] >= slots[i] {
                p.short_only.push(n);
            } else {
                p.big.push(n);
            }
        }
        p
    }

    pub fn status(&mut self) -> CentralStatus {
        let general = self.layout().big;
        CentralStatus {
            nodes: self
                .hosts
                .iter()
                .enumerate()
                .map(|(i, h)| NodeHealth {
                    name: h.name.clone(),
                    connected: h.up,
                    general: general.contains(&NodeId(i as u32)),
                    long_tasks: self.long.count(i),
                    work_ms: h.work_ms,
                    short_slots: h.kept,
                })
                .collect(),
            bitvector: self.bitvector(),
            short_slots: self.short_want,
        }
    }
}

#[cfg(test)]
mod tests;
