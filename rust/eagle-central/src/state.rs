//! The central scheduler's state machine (Eagle §3.1-3.2): least-work-left placement
//! of every application's long tasks over the general partition, and the Succinct
//! State Sharing bitvector of the hosts that hold long work, piggybacked on every
//! placement it sends to a node.
//!
//! Pure like the node's ([`CentralState::handle`]: one event in, actions out). The
//! policy is eagle-core's: [`eagle_core::lwl::water_fill`] spreads a job's tasks,
//! [`eagle_core::sss::LongMap`] keeps the per-host long-task counts and the
//! bitvector, and the connected hosts split into the short-only and general partitions
//! by a fixed share or by the drivers' short demand ([`crate::short_partition`]);
//! under `--short-partition slots` the demand is kept as slots on every host instead,
//! each node told its count (`ShortSlots`) when it changes.
//!
//! Hosts may differ in size and tasks in width (issue 15): the central asks every node
//! for its `Status` when its link comes up and keeps the node's slot count; where each
//! task goes is [`crate::placement`] (fit, capacity-aware LWL, and LoTES under
//! `--placement lotes`).
//!
//! The work map stays exact: a node reports `LongDone` when each long task it was
//! given ends (or its reservation is dropped), and a host whose link drops loses its
//! work and its bit (its reservations died with the daemon).

use crate::placement::{Candidate, HostPlacement, Placement};
use crate::short_partition::{cover_order, short_only_hosts, short_slots_per_host, Measure, ShortDemand, ShortPartition};
use eagle_core::partition::Partitions;
use eagle_core::sss::LongMap;
use eagle_core::types::NodeId;
use eagle_wire::{Bitvector, CentralStatus, FromCentral, FromNode, NodeHealth, Peer, Role, ToCentral, ToNode};
use std::collections::{BTreeMap, BTreeSet};

pub type ConnId = u64;
/// A host's index in the host list (the bit of the bitvector).
pub type HostId = u32;

#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// A driver (or a node announcing itself) connected to the central.
    Connected { conn: ConnId, peer: Peer },
    Disconnected { conn: ConnId },
    Message { conn: ConnId, msg: ToCentral },
    /// The central's link to a host came up / went down.
    NodeUp { host: HostId },
    NodeDown { host: HostId },
    FromNode { host: HostId, msg: FromNode },
    /// Keep the links to the nodes alive.
    Tick,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    ToPeer { conn: ConnId, msg: FromCentral },
    ToNode { host: HostId, msg: ToNode },
    /// Start connecting to a new host.
    Dial { host: HostId, addr: String },
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
    /// Seconds on the caller's clock ([`CentralState::set_now`]).
    now: f64,
    /// Drivers by connection, with their application id.
    drivers: BTreeMap<ConnId, String>,
    /// The hosts each driver last said it has executors on (`Executors`); a driver that
    /// has not said may be placed on any host.
    executors: BTreeMap<ConnId, BTreeSet<String>>,
    /// [`CentralState::reservation_order`] of the live hosts it was computed for; cleared
    /// when a driver's hosts change.
    order: Option<(Vec<NodeId>, Vec<NodeId>)>,
    peers: BTreeMap<ConnId, Role>,
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
    ) -> Result<(CentralState, Vec<Action>), String> {
        let mut s = CentralState {
            placement: HostPlacement::new(placement, seed)?,
            hosts: Vec::new(),
            long: LongMap::default(),
            stamp: 0,
            short_fraction,
            mode: ShortPartition::Fixed,
            demand: None,
            short_only: 0,
            now: 0.0,
            drivers: BTreeMap::new(),
            executors: BTreeMap::new(),
            order: None,
            peers: BTreeMap::new(),
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
            ShortPartition::Adaptive => Some(ShortDemand::new(self.now, Measure::Queue)),
            ShortPartition::Slots => Some(ShortDemand::new(self.now, Measure::Held)),
        };
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
                }
            }
            Event::Disconnected { conn } => {
                self.peers.remove(&conn);
                self.drivers.remove(&conn);
                if self.executors.remove(&conn).is_some() {
                    self.order = None;
                }
                if let Some(d) = &mut self.demand {
                    d.gone(self.now, conn);
                }
            }
            Event::Message { conn, msg } => self.message(conn, msg, &mut out),
            Event::NodeUp { host } => {
                let h = &mut self.hosts[host as usize];
                h.up = true;
                h.told = None;
                // Its size: the answer comes back as `FromNode::Status`.
                out.push(Action::ToNode { host, msg: ToNode::Status });
            }
            Event::NodeDown { host } => {
                let h = &mut self.hosts[host as usize];
                h.up = false;
                h.work_ms = 0.0;
                h.told = None;
                self.long.clear(host as usize);
                self.placement.host_lost(host);
            }
            Event::FromNode { host, msg } => match msg {
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
                        out.push(Action::ToPeer { conn, msg: FromCentral::Unplaced { job, tasks: 1 } });
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
        out
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
            ToCentral::SubmitLong { job, tasks, est_ms, cpus } => {
                let Some(app) = self.drivers.get(&conn).cloned() else {
                    return reply(out, FromCentral::Error { what: "SubmitLong is a driver message".into() });
                };
                if !(est_ms.is_finite() && est_ms >= 0.0) {
                    return reply(out, FromCentral::Error { what: format!("SubmitLong of job {job}: est_ms must be a finite number >= 0, got {est_ms}") });
                }
                if cpus == 0 {
                    return reply(out, FromCentral::Error { what: format!("SubmitLong of job {job}: cpus must be >= 1, got 0") });
                }
                let placed = self.place(conn, &app, job, tasks, est_ms, cpus);
                if placed.is_empty() && tasks > 0 {
                    return reply(out, FromCentral::Unplaced { job, tasks });
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
                if let Some(d) = &mut self.demand {
                    d.report(self.now, conn, running, waiting);
                }
            }
        }
    }

    /// LWL over the general partition of the connected hosts: one host per task, by
    /// estimated work left (§3.2), on hosts the task fits ([`crate::placement`]) and
    /// where the driver of `conn` has executors (`Executors`, when it said).
    /// Updates the work map and bitvector.
    fn place(&mut self, conn: ConnId, app: &str, job: u64, tasks: u32, est_ms: f64, cpus: u32) -> Vec<HostId> {
        let general = self.layout().big;
        let on = self.executors_of(conn);
        let candidates: Vec<Candidate> = general
            .iter()
            .filter(|n| on.is_none_or(|on| on.contains(&self.hosts[n.0 as usize].name)))
            .map(|n| {
                let h = &self.hosts[n.0 as usize];
                // The slots long work may hold there: all but the ones kept for short work.
                Candidate { host: n.0, work_ms: h.work_ms, slots: h.slots.map(|s| s - h.kept) }
            })
            .collect();
        let chosen = self.placement.choose(app, job, tasks, est_ms, cpus, &candidates);
        for &h in &chosen {
            self.hosts[h as usize].work_ms += est_ms * cpus as f64;
            self.long.add(h as usize);
        }
        chosen
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
        let live = match &self.order {
            Some((of, order)) if *of == live => order.clone(),
            _ => {
                let order = self.reservation_order(&live);
                self.order = Some((live, order.clone()));
                order
            }
        };
        let per_slot = self.mode == ShortPartition::Slots;
        let k = match &mut self.demand {
            None => return Partitions::dynamic_layout(&live, self.short_fraction),
            Some(d) => {
                // A node whose size is not known yet counts as one slot (`slots`: keeps none).
                let unknown = if per_slot { 0 } else { 1 };
                let slots: Vec<u32> = live.iter().map(|n| self.hosts[n.0 as usize].slots.unwrap_or(unknown)).collect();
                let want = d.slots(self.now, slots.iter().map(|&s| s as u64).sum());
                if per_slot {
                    return self.keep_slots(&live, &slots, want);
                }
                let k = short_only_hosts(&slots, self.short_fraction, want);
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

    /// [`cover_order`] of the `live` hosts by the drivers' executor hosts (`Executors`).
    fn reservation_order(&self, live: &[NodeId]) -> Vec<NodeId> {
        let named: Vec<(NodeId, &str)> = live.iter().map(|&n| (n, self.hosts[n.0 as usize].name.as_str())).collect();
        let drivers: Vec<&BTreeSet<String>> = self.executors.values().collect();
        cover_order(&named, &drivers)
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
            log::info!("short slots: {sum} of {} (short demand {want} slots), per host {kept:?}", slots.iter().sum::<u32>());
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
            short_slots: self.demand.as_ref().map_or(0, |d| d.current()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eagle_wire::NodeStatus;
    use std::collections::BTreeSet;

    fn driver(s: &mut CentralState, conn: ConnId, app: &str) -> Vec<Action> {
        s.handle(Event::Connected { conn, peer: Peer { role: Role::Driver, app: app.into() } })
    }

    fn three_up(short_fraction: f64) -> CentralState {
        let hosts: Vec<(String, String)> = (0..3).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
        let (mut s, dials) = CentralState::new(&hosts, short_fraction);
        assert_eq!(dials.len(), 3, "one dial per --nodes entry");
        for h in 0..3 {
            s.handle(Event::NodeUp { host: h });
        }
        s
    }

    fn placements(out: &[Action]) -> Vec<(HostId, u64)> {
        out.iter()
            .filter_map(|a| match a {
                Action::ToNode { host, msg: ToNode::Place { bitvector, .. } } => Some((*host, bitvector.stamp)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn long_tasks_go_only_to_hosts_where_the_driver_has_executors() {
        let mut s = three_up(0.0);
        driver(&mut s, 9, "a");
        driver(&mut s, 10, "b");
        let say = |s: &mut CentralState, conn, hosts: &[&str]| {
            s.handle(Event::Message { conn, msg: ToCentral::Executors { hosts: hosts.iter().map(|h| h.to_string()).collect() } })
        };
        assert!(say(&mut s, 9, &["h2", "h0"]).is_empty());
        let out = s.handle(Event::Message { conn: 9, msg: ToCentral::SubmitLong { job: 1, tasks: 4, est_ms: 100.0, cpus: 1 } });
        let on: BTreeSet<HostId> = placements(&out).iter().map(|x| x.0).collect();
        assert_eq!(on, BTreeSet::from([0, 2]), "LWL over a's hosts only, though h1 holds the least work");
        // b has not said: every host is a candidate, and LWL fills the idle one first.
        let out = s.handle(Event::Message { conn: 10, msg: ToCentral::SubmitLong { job: 1, tasks: 1, est_ms: 100.0, cpus: 1 } });
        assert_eq!(placements(&out).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1]);
        // a's executors move: its next tasks follow them.
        say(&mut s, 9, &["h1"]);
        let out = s.handle(Event::Message { conn: 9, msg: ToCentral::SubmitLong { job: 2, tasks: 2, est_ms: 100.0, cpus: 1 } });
        assert_eq!(placements(&out).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 1]);
        // No executor left: nothing is placed, and the driver is told so (it places them itself).
        say(&mut s, 9, &[]);
        let out = s.handle(Event::Message { conn: 9, msg: ToCentral::SubmitLong { job: 3, tasks: 2, est_ms: 100.0, cpus: 1 } });
        assert!(placements(&out).is_empty());
        assert!(out.iter().any(|a| matches!(a, Action::ToPeer { conn: 9, msg: FromCentral::Unplaced { job: 3, tasks: 2 } })), "{out:?}");
        // Names the central does not know (IP addresses against host names, say): it cannot
        // tell where the executors are, and places as if it had not been told.
        say(&mut s, 9, &["10.0.0.1", "10.0.0.2"]);
        let out = s.handle(Event::Message { conn: 9, msg: ToCentral::SubmitLong { job: 5, tasks: 3, est_ms: 1.0, cpus: 1 } });
        assert_eq!(placements(&out).len(), 3, "{out:?}");
        // A reconnecting driver starts again from every host.
        s.handle(Event::Disconnected { conn: 9 });
        driver(&mut s, 9, "a");
        let out = s.handle(Event::Message { conn: 9, msg: ToCentral::SubmitLong { job: 4, tasks: 3, est_ms: 1.0, cpus: 1 } });
        assert_eq!(placements(&out).len(), 3);
        // Only drivers say where their executors are.
        let (node, _) = (77, s.handle(Event::Connected { conn: 77, peer: Peer { role: Role::Node, app: String::new() } }));
        let out = say(&mut s, node, &["h0"]);
        assert!(matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { what }, .. }] if what.contains("Executors")), "{out:?}");
    }

    #[test]
    fn lwl_over_the_general_partition_with_the_bitvector_piggybacked() {
        let mut s = three_up(0.34); // host 0 is short-only
        assert!(matches!(&driver(&mut s, 9, "a")[..], [Action::ToPeer { msg: FromCentral::Hosts { names }, .. }] if names.len() == 3));
        let out = s.handle(Event::Message { conn: 9, msg: ToCentral::SubmitLong { job: 1, tasks: 3, est_ms: 100.0, cpus: 1 } });
        let p = placements(&out);
        assert_eq!(p.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 2, 2], "water-filling over hosts 1 and 2 only");
        let Some(Action::ToNode { msg: ToNode::Place { bitvector, .. }, .. }) = out.first() else { panic!() };
        assert!(!bitvector.bit(0) && bitvector.bit(1) && bitvector.bit(2), "the copy reflects this job's placements");
        assert!(out.contains(&Action::ToPeer { conn: 9, msg: FromCentral::Placed { job: 1, hosts: vec![1, 2, 2] } }));
        // Host 2 finishes both its tasks: it has the least work now.
        for _ in 0..2 {
            s.handle(Event::FromNode { host: 2, msg: FromNode::LongDone { app: "a".into(), job: 1, est_ms: 100.0, cpus: 1 } });
        }
        let out = s.handle(Event::Message { conn: 9, msg: ToCentral::SubmitLong { job: 2, tasks: 1, est_ms: 10.0, cpus: 1 } });
        assert_eq!(placements(&out)[0], (2, 2), "least work left, and a fresher stamp");
        let st = s.status();
        assert_eq!(st.nodes.iter().map(|n| n.long_tasks).collect::<Vec<_>>(), vec![0, 1, 1]);
        assert!(!st.nodes[0].general && st.nodes[1].general);
    }

    #[test]
    fn an_adaptive_short_partition_grows_with_the_drivers_short_load_and_shrinks_when_it_is_gone() {
        let hosts: Vec<(String, String)> = (0..8).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
        let (s, _) = CentralState::new(&hosts, 0.1);
        let mut s = s.with_short_partition(ShortPartition::Adaptive);
        for h in 0..8 {
            s.handle(Event::NodeUp { host: h });
            sized(&mut s, h, 2);
        }
        driver(&mut s, 1, "interactive");
        driver(&mut s, 2, "batch");
        let long_hosts = |s: &mut CentralState, job: u64| -> BTreeSet<HostId> {
            let out = s.handle(Event::Message { conn: 2, msg: ToCentral::SubmitLong { job, tasks: 16, est_ms: 1000.0, cpus: 1 } });
            placements(&out).into_iter().map(|p| p.0).collect()
        };
        assert_eq!(long_hosts(&mut s, 1).first(), Some(&1), "no short load: the paper's one short-only host");
        // The interactive application runs 2 short tasks and has 3 more waiting: 3 hosts.
        s.set_now(1.0);
        s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 2, waiting: 3 } });
        s.set_now(4.0);
        assert_eq!(long_hosts(&mut s, 2).first(), Some(&3), "hosts 0-2 now take no long work");
        let st = s.status();
        // Second buckets of 0, 5, 5, 5 slots: mean 3.75 plus one deviation 2.17.
        assert_eq!(st.short_slots, 6);
        assert_eq!(st.nodes.iter().filter(|n| !n.general).count(), 3);
        // The interactive driver goes away; after the idle time the floor is back.
        s.handle(Event::Disconnected { conn: 1 });
        s.set_now(30.0);
        assert_eq!(long_hosts(&mut s, 3).first(), Some(&1));
        assert_eq!(s.status().short_slots, 0);
    }

    /// The `ShortSlots` counts told in `out`, by host.
    fn told(out: &[Action]) -> BTreeMap<HostId, u32> {
        out.iter()
            .filter_map(|a| match a {
                Action::ToNode { host, msg: ToNode::ShortSlots { slots } } => Some((*host, *slots)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn slots_keep_the_short_demand_on_every_host_and_each_node_is_told_its_count() {
        let hosts: Vec<(String, String)> = (0..8).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
        let (s, _) = CentralState::new(&hosts, 0.1);
        let mut s = s.with_short_partition(ShortPartition::Slots);
        let mut last = BTreeMap::new();
        for h in 0..8 {
            last.extend(told(&s.handle(Event::NodeUp { host: h })));
            let st = NodeStatus { policy: "eagle".into(), slots: 2, leased: 0, running: 0, holds_long: false, apps: Vec::new(), bitvector: None, short_slots: 0 };
            last.extend(told(&s.handle(Event::FromNode { host: h, msg: FromNode::Status(st) })));
        }
        // The paper's share (one host of eight), as slots: one on each of hosts 0 and 1.
        assert_eq!(last, (0..8).map(|h| (h, u32::from(h < 2))).collect(), "every node told, once sized");
        driver(&mut s, 1, "interactive");
        driver(&mut s, 2, "batch");
        // Long work goes to every host, hosts 0 and 1 counted with one slot each; the
        // bitvector leaves them out, since they queue short probes beside long work.
        let out = s.handle(Event::Message { conn: 2, msg: ToCentral::SubmitLong { job: 1, tasks: 14, est_ms: 1000.0, cpus: 1 } });
        let p = placements(&out);
        let on = |h: HostId| p.iter().filter(|x| x.0 == h).count();
        assert_eq!((on(0), on(1), on(2), on(7)), (1, 1, 2, 2), "{p:?}");
        let Some(Action::ToNode { msg: ToNode::Place { bitvector, .. }, .. }) = out.iter().find(|a| matches!(a, Action::ToNode { msg: ToNode::Place { .. }, .. })) else { panic!() };
        assert!(!bitvector.bit(0) && !bitvector.bit(1) && bitvector.bit(2) && bitvector.bit(7));
        assert!(told(&out).is_empty(), "nothing changed");
        // Five short tasks holding slots (the queue does not count here), a demand of 6
        // with its deviation: one slot on each of six hosts.
        s.set_now(1.0);
        s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 5, waiting: 30 } });
        s.set_now(4.0);
        let out = s.handle(Event::Tick);
        assert_eq!(told(&out), (2..6).map(|h| (h, 1)).collect(), "hosts 2-5 keep a slot now");
        let st = s.status();
        assert_eq!(st.short_slots, 6);
        assert_eq!(st.nodes.iter().map(|n| n.short_slots).collect::<Vec<_>>(), [1, 1, 1, 1, 1, 1, 0, 0]);
        assert!(st.nodes.iter().all(|n| n.general), "every host still takes long work");
        assert!(!st.bitvector.bit(2) && st.bitvector.bit(6));
        // A host lost: the next host keeps its slot; back, it is told its count again.
        assert_eq!(told(&s.handle(Event::NodeDown { host: 3 })), BTreeMap::from([(6, 1)]));
        assert_eq!(told(&s.handle(Event::NodeUp { host: 3 })), BTreeMap::from([(3, 1), (6, 0)]));
        // The demand goes: back to the floor after the idle time.
        s.handle(Event::Disconnected { conn: 1 });
        s.set_now(30.0);
        assert_eq!(told(&s.handle(Event::Tick)), (2..6).map(|h| (h, 0)).collect());
    }

    #[test]
    fn the_short_reservation_covers_the_hosts_of_every_application_on_some_hosts() {
        // Eight 2-slot hosts; two pairs of applications, each pair on four hosts: a and b
        // on h0-h3, c and d on h4-h7.
        let hosts: Vec<(String, String)> = (0..8).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
        let up = |s: &mut CentralState| {
            for h in 0..8 {
                s.handle(Event::NodeUp { host: h });
                sized(s, h, 2);
            }
        };
        let on = |s: &mut CentralState, conn: ConnId, hosts: &[u32]| {
            s.handle(Event::Message { conn, msg: ToCentral::Executors { hosts: hosts.iter().map(|h| format!("h{h}")).collect() } })
        };
        let apps = |s: &mut CentralState| {
            for (conn, app, hosts) in [(1, "a", [0, 1, 2, 3]), (2, "b", [0, 1, 2, 3]), (3, "c", [4, 5, 6, 7]), (4, "d", [4, 5, 6, 7])] {
                driver(s, conn, app);
                on(s, conn, &hosts);
            }
        };
        let kept = |s: &mut CentralState| -> Vec<u32> { s.status().nodes.iter().map(|n| n.short_slots).collect() };
        let short_only = |s: &mut CentralState| -> Vec<String> { s.status().nodes.into_iter().filter(|n| !n.general).map(|n| n.name).collect() };

        // `slots`: the floor of two slots, one on a host of each pair. Index order would put
        // both on h0 and h1, where c and d have no executor.
        let (s, _) = CentralState::new(&hosts, 0.1);
        let mut s = s.with_short_partition(ShortPartition::Slots);
        up(&mut s);
        apps(&mut s);
        s.handle(Event::Tick);
        assert_eq!(kept(&mut s), [1, 0, 0, 0, 1, 0, 0, 0]);
        // c and d move to h2 and h3: the kept slots follow, and each node is told. h2 holds
        // all four, then h3 again.
        let mut t = told(&on(&mut s, 3, &[2, 3]));
        t.extend(told(&on(&mut s, 4, &[2, 3])));
        assert_eq!(t, BTreeMap::from([(0, 0), (2, 1), (3, 1), (4, 0)]));
        // c and d on h6 and h7, a and b on h1 and h6: h6 covers them all, then h1 a and b,
        // h7 c and d.
        on(&mut s, 1, &[1, 6]);
        on(&mut s, 2, &[1, 6]);
        on(&mut s, 3, &[6, 7]);
        on(&mut s, 4, &[6, 7]);
        s.handle(Event::Tick);
        assert_eq!(kept(&mut s), [0, 1, 0, 0, 0, 0, 1, 0]);
        // Every driver on every host, or gone: index order, the paper's.
        for conn in 1..=2 {
            on(&mut s, conn, &(0..8).collect::<Vec<_>>());
        }
        s.handle(Event::Disconnected { conn: 3 });
        s.handle(Event::Disconnected { conn: 4 });
        s.handle(Event::Tick);
        assert_eq!(kept(&mut s), [1, 1, 0, 0, 0, 0, 0, 0]);

        // `fixed`: its one short-only host is on the hosts of two of the four, and moves to
        // the one host that all four share.
        let (mut s, _) = CentralState::new(&hosts, 0.1);
        up(&mut s);
        apps(&mut s);
        assert_eq!(short_only(&mut s), ["h0"]);
        on(&mut s, 1, &[1, 3, 5]);
        on(&mut s, 2, &[1, 3, 5]);
        on(&mut s, 3, &[5, 7]);
        on(&mut s, 4, &[5, 7]);
        assert_eq!(short_only(&mut s), ["h5"]);
        let out = s.handle(Event::Message { conn: 3, msg: ToCentral::SubmitLong { job: 1, tasks: 4, est_ms: 100.0, cpus: 1 } });
        assert!(placements(&out).iter().all(|x| x.0 == 7), "c's long work on its other host: {out:?}");
    }

    #[test]
    fn a_fixed_short_partition_ignores_short_load_and_only_drivers_may_report_it() {
        let mut s = three_up(0.34);
        driver(&mut s, 1, "a");
        s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 3, waiting: 30 } });
        s.set_now(5.0);
        let st = s.status();
        assert_eq!(st.nodes.iter().filter(|n| !n.general).count(), 1, "the paper's share only");
        assert_eq!(st.short_slots, 0);
        s.handle(Event::Connected { conn: 2, peer: Peer { role: Role::Node, app: "n".into() } });
        let out = s.handle(Event::Message { conn: 2, msg: ToCentral::ShortLoad { running: 1, waiting: 1 } });
        assert!(matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { what }, .. }] if what.contains("ShortLoad")));
    }

    #[test]
    fn a_lost_host_drops_its_work_and_bit_and_gets_no_placements() {
        let mut s = three_up(0.0);
        driver(&mut s, 1, "a");
        s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 1, tasks: 3, est_ms: 5.0, cpus: 1 } });
        s.handle(Event::NodeDown { host: 1 });
        let st = s.status();
        assert_eq!(st.nodes[1].long_tasks, 0);
        assert!(!st.bitvector.bit(1));
        let out = s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 2, tasks: 4, est_ms: 5.0, cpus: 1 } });
        assert!(placements(&out).iter().all(|p| p.0 != 1));
    }

    #[test]
    fn no_host_up_means_unplaced_and_refusals_are_forwarded() {
        let (mut s, _) = CentralState::new(&[("h0".into(), "x:1".into())], 0.0);
        driver(&mut s, 1, "a");
        let out = s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 4, tasks: 2, est_ms: 5.0, cpus: 1 } });
        assert_eq!(out, vec![Action::ToPeer { conn: 1, msg: FromCentral::Unplaced { job: 4, tasks: 2 } }]);
        s.handle(Event::NodeUp { host: 0 });
        s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 5, tasks: 1, est_ms: 5.0, cpus: 1 } });
        let out = s.handle(Event::FromNode { host: 0, msg: FromNode::PlaceRefused { app: "a".into(), job: 5, est_ms: 5.0, cpus: 1 } });
        assert_eq!(out, vec![Action::ToPeer { conn: 1, msg: FromCentral::Unplaced { job: 5, tasks: 1 } }]);
        assert_eq!(s.status().nodes[0].long_tasks, 0);
    }

    #[test]
    fn registration_adds_a_host_once_and_tells_the_drivers() {
        let (mut s, _) = CentralState::new(&[], 0.0);
        driver(&mut s, 1, "a");
        s.handle(Event::Connected { conn: 2, peer: Peer { role: Role::Node, app: "n1".into() } });
        let out = s.handle(Event::Message { conn: 2, msg: ToCentral::Register { name: "n1".into(), addr: "127.0.0.1:9".into() } });
        assert!(out.contains(&Action::Dial { host: 0, addr: "127.0.0.1:9".into() }));
        assert!(out.contains(&Action::ToPeer { conn: 1, msg: FromCentral::Hosts { names: vec!["n1".into()] } }));
        let out = s.handle(Event::Message { conn: 2, msg: ToCentral::Register { name: "n1".into(), addr: "127.0.0.1:9".into() } });
        assert!(out.is_empty(), "known host: no second dial");
        let out = s.handle(Event::Message { conn: 1, msg: ToCentral::Register { name: "n2".into(), addr: "y:1".into() } });
        assert!(matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { .. }, .. }]), "drivers cannot register hosts");
    }

    fn sized(s: &mut CentralState, host: HostId, slots: u32) {
        let st = NodeStatus { policy: "eagle".into(), slots, leased: 0, running: 0, holds_long: false, apps: Vec::new(), bitvector: None, short_slots: 0 };
        s.handle(Event::FromNode { host, msg: FromNode::Status(st) });
    }

    #[test]
    fn a_node_coming_up_is_asked_its_size_and_wide_tasks_go_only_where_they_fit() {
        let hosts: Vec<(String, String)> = (0..3).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
        let (mut s, _) = CentralState::new(&hosts, 0.0);
        let out = s.handle(Event::NodeUp { host: 0 });
        assert_eq!(out, vec![Action::ToNode { host: 0, msg: ToNode::Status }], "the size comes with the node's status");
        s.handle(Event::NodeUp { host: 1 });
        s.handle(Event::NodeUp { host: 2 });
        sized(&mut s, 0, 1);
        sized(&mut s, 1, 4);
        sized(&mut s, 2, 2);
        driver(&mut s, 1, "a");
        let out = s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 1, tasks: 3, est_ms: 10.0, cpus: 4 } });
        assert_eq!(placements(&out).iter().map(|p| p.0).collect::<Vec<_>>(), vec![1, 1, 1], "only h1 has 4 slots");
        assert!(out.iter().all(|a| !matches!(a, Action::ToNode { msg: ToNode::Place { cpus, .. }, .. } if *cpus != 4)), "placements carry the width");
        // The work map counts slot-ms: 3 tasks x 10 ms x 4 slots.
        assert_eq!(s.status().nodes[1].work_ms, 120.0);
        s.handle(Event::FromNode { host: 1, msg: FromNode::LongDone { app: "a".into(), job: 1, est_ms: 10.0, cpus: 4 } });
        assert_eq!(s.status().nodes[1].work_ms, 80.0);
        let out = s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 2, tasks: 1, est_ms: 10.0, cpus: 8 } });
        assert_eq!(out, vec![Action::ToPeer { conn: 1, msg: FromCentral::Unplaced { job: 2, tasks: 1 } }], "no host has 8 slots");
        let out = s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 3, tasks: 1, est_ms: 10.0, cpus: 0 } });
        assert!(matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { what }, .. }] if what.contains("cpus")), "{out:?}");
    }

    #[test]
    fn under_lotes_narrow_long_work_keeps_off_the_host_planned_for_wide_work() {
        let hosts: Vec<(String, String)> = (0..2).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
        let (mut s, _) = CentralState::with_placement(&hosts, 0.0, Placement::Lotes, 3).unwrap();
        for (h, slots) in [(0, 4), (1, 1)] {
            s.handle(Event::NodeUp { host: h });
            sized(&mut s, h, slots);
        }
        driver(&mut s, 1, "batch");
        driver(&mut s, 2, "etl");
        let wide = s.handle(Event::Message { conn: 1, msg: ToCentral::SubmitLong { job: 1, tasks: 2, est_ms: 60_000.0, cpus: 4 } });
        assert!(placements(&wide).iter().all(|p| p.0 == 0));
        let narrow = s.handle(Event::Message { conn: 2, msg: ToCentral::SubmitLong { job: 1, tasks: 4, est_ms: 60_000.0, cpus: 1 } });
        assert_eq!(placements(&narrow).iter().map(|p| p.0).collect::<Vec<_>>(), vec![1; 4], "LoTES keeps h0 for the wide class");
        // Plain LWL would have put narrow work on the big host (it has 4x the slots).
        let (mut l, _) = CentralState::new(&hosts, 0.0);
        for (h, slots) in [(0, 4), (1, 1)] {
            l.handle(Event::NodeUp { host: h });
            sized(&mut l, h, slots);
        }
        driver(&mut l, 2, "etl");
        let out = l.handle(Event::Message { conn: 2, msg: ToCentral::SubmitLong { job: 1, tasks: 4, est_ms: 60_000.0, cpus: 1 } });
        assert!(placements(&out).iter().any(|p| p.0 == 0));
    }
}
