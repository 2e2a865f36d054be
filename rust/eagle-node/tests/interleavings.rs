//! Property test: random interleavings of probe / place / grant / launch / return /
//! finish / disconnect / expiry never leak a slot nor grant one twice, with tasks of one,
//! two and three slots (leases of several slots, and work wider than the node).
//!
//! proptest rather than a hand-rolled random loop: it shrinks a failing sequence to
//! a minimal one, which is what makes a state-machine counterexample readable.

use eagle_node::{Action, ConnId, Event, NodeState, Policy, Settings, StealDone};
use eagle_wire::{Bitvector, FromNode, Peer, Role, ToNode};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

const CENTRAL: ConnId = 100;
const LEASE: u64 = 50;
const PEER: ConnId = 200;

#[derive(Clone, Debug)]
enum Op {
    Probe {
        drv: u8,
        job: u8,
        tasks: u8,
        est: u8,
    },
    Place {
        drv: u8,
        job: u8,
    },
    Remaining {
        drv: u8,
        job: u8,
        tasks: u8,
    },
    /// Answer the `nth` outstanding grant of `drv`.
    Launch {
        drv: u8,
        nth: u8,
    },
    NoTask {
        drv: u8,
        nth: u8,
    },
    Finish {
        drv: u8,
        nth: u8,
    },
    /// End a lease id that may not exist (or belong to someone else).
    Bogus {
        drv: u8,
        lease: u8,
    },
    Disconnect {
        drv: u8,
    },
    CentralDrops,
    Advance {
        ms: u8,
    },
    Ping {
        drv: u8,
    },
    /// Hawk: a peer asks for the blocked probes of the drivers in `mask`.
    StealReq {
        mask: u8,
    },
    /// Hawk: the answer to an outstanding steal brings a probe of `drv`'s job.
    StealDone {
        drv: u8,
        job: u8,
        tasks: u8,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..3u8, 0..4u8, 0..5u8, 0..20u8).prop_map(|(drv, job, tasks, est)| Op::Probe { drv, job, tasks, est }),
        2 => (0..3u8, 4..6u8).prop_map(|(drv, job)| Op::Place { drv, job }),
        1 => (0..3u8, 0..4u8, 0..3u8).prop_map(|(drv, job, tasks)| Op::Remaining { drv, job, tasks }),
        4 => (0..3u8, 0..4u8).prop_map(|(drv, nth)| Op::Launch { drv, nth }),
        2 => (0..3u8, 0..4u8).prop_map(|(drv, nth)| Op::NoTask { drv, nth }),
        4 => (0..3u8, 0..4u8).prop_map(|(drv, nth)| Op::Finish { drv, nth }),
        1 => (0..3u8, 0..20u8).prop_map(|(drv, lease)| Op::Bogus { drv, lease }),
        1 => (0..3u8).prop_map(|drv| Op::Disconnect { drv }),
        1 => Just(Op::CentralDrops),
        2 => (0..40u8).prop_map(|ms| Op::Advance { ms }),
        2 => (0..3u8).prop_map(|drv| Op::Ping { drv }),
        1 => (0..8u8).prop_map(|mask| Op::StealReq { mask }),
        1 => (0..3u8, 0..4u8, 0..3u8).prop_map(|(drv, job, tasks)| Op::StealDone { drv, job, tasks }),
    ]
}

/// The driver-side view: which leases each connection holds, from the actions alone.
struct World {
    s: NodeState,
    now: u64,
    /// Driver slot → its current connection id (a reconnect gets a new one).
    conn: [ConnId; 3],
    next_conn: ConnId,
    held: BTreeMap<u64, ConnId>,
    ever_granted: BTreeSet<u64>,
    central: bool,
    steal_pending: bool,
}

impl World {
    fn new(policy: Policy, slots: u32) -> World {
        let mut w = World {
            s: NodeState::new(Settings { policy, slots, lease_ms: LEASE }),
            now: 0,
            conn: [1, 2, 3],
            next_conn: 4,
            held: BTreeMap::new(),
            ever_granted: BTreeSet::new(),
            central: false,
            steal_pending: false,
        };
        for d in 0..3 {
            w.step(Event::Connected { conn: w.conn[d], peer: Peer { role: Role::Driver, app: format!("app{d}") } });
        }
        w.connect_central();
        w.step(Event::Connected { conn: PEER, peer: Peer { role: Role::Node, app: "peer".into() } });
        w
    }

    fn connect_central(&mut self) {
        self.step(Event::Connected { conn: CENTRAL, peer: Peer { role: Role::Central, app: "central".into() } });
        self.central = true;
    }

    fn step(&mut self, e: Event) {
        if let Event::Disconnected { conn } = e {
            self.held.retain(|_, c| *c != conn);
        }
        let out = self.s.handle(self.now, e);
        // Reconnections wait until this step's actions are all accounted for.
        let mut reconnect = Vec::new();
        let mut peer_back = false;
        for a in out {
            match a {
                Action::Send { conn, msg: FromNode::Grant { lease, .. } } => {
                    assert!(self.ever_granted.insert(lease), "lease {lease} granted twice");
                    self.held.insert(lease, conn);
                }
                Action::Send { msg: FromNode::Revoked { lease, .. }, .. } => {
                    self.held.remove(&lease);
                }
                Action::Steal { .. } => {
                    assert!(!self.steal_pending, "a second steal while one is in flight");
                    self.steal_pending = true;
                }
                Action::Close { conn, .. } => {
                    self.held.retain(|_, c| *c != conn);
                    if conn == CENTRAL {
                        self.central = false;
                    }
                    peer_back |= conn == PEER;
                    if let Some(d) = self.conn.iter().position(|&c| c == conn) {
                        reconnect.push(d);
                    }
                }
                _ => {}
            }
        }
        self.s.check().unwrap();
        assert!(self.s.leased() <= self.s.settings().slots, "more leased slots than slots");
        assert_eq!(
            self.s.leases() as usize,
            self.held.len(),
            "node and drivers disagree on the leases: {:?}",
            self.held
        );
        for d in reconnect {
            self.reconnect(d);
        }
        if peer_back {
            self.step(Event::Connected { conn: PEER, peer: Peer { role: Role::Node, app: "peer".into() } });
        }
    }

    fn reconnect(&mut self, d: usize) {
        self.conn[d] = self.next_conn;
        self.next_conn += 1;
        let (conn, app) = (self.conn[d], format!("app{d}"));
        self.step(Event::Connected { conn, peer: Peer { role: Role::Driver, app } });
    }

    fn nth_lease(&self, d: usize, nth: u8) -> Option<u64> {
        let conn = self.conn[d];
        let mine: Vec<u64> = self.held.iter().filter(|(_, c)| **c == conn).map(|(l, _)| *l).collect();
        (!mine.is_empty()).then(|| mine[nth as usize % mine.len()])
    }

    fn msg(&mut self, d: usize, msg: ToNode) {
        let conn = self.conn[d];
        let ends = match msg {
            ToNode::NoTask { lease } | ToNode::TaskEnd { lease } => {
                self.held.get(&lease).filter(|c| **c == conn).map(|_| lease)
            }
            _ => None,
        };
        if let Some(lease) = ends {
            self.held.remove(&lease);
        }
        self.step(Event::Message { conn, msg });
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Probe { drv, job, tasks, est } => {
                // Jobs of 1, 2 and 3 slots a task (a 3-slot task is wider than a 2-slot node).
                self.msg(
                    drv as usize,
                    ToNode::Probe {
                        job: job as u64,
                        tasks: tasks as u32,
                        est_ms: est as f64,
                        cpus: 1 + job as u32 % 3,
                    },
                )
            }
            Op::Place { drv, job } => {
                if !self.central {
                    self.connect_central();
                }
                let msg = ToNode::Place {
                    app: format!("app{drv}"),
                    job: job as u64,
                    est_ms: 30.0,
                    bitvector: Bitvector::default(),
                    cpus: 1 + job as u32 % 2,
                };
                self.step(Event::Message { conn: CENTRAL, msg });
            }
            Op::Remaining { drv, job, tasks } => {
                self.msg(drv as usize, ToNode::Remaining { job: job as u64, tasks: tasks as u32 })
            }
            Op::Launch { drv, nth } => {
                if let Some(lease) = self.nth_lease(drv as usize, nth) {
                    self.msg(drv as usize, ToNode::Launched { lease });
                }
            }
            Op::NoTask { drv, nth } => {
                if let Some(lease) = self.nth_lease(drv as usize, nth) {
                    self.msg(drv as usize, ToNode::NoTask { lease });
                }
            }
            Op::Finish { drv, nth } => {
                if let Some(lease) = self.nth_lease(drv as usize, nth) {
                    self.msg(drv as usize, ToNode::TaskEnd { lease });
                }
            }
            Op::Bogus { drv, lease } => {
                let lease = lease as u64;
                // Only a lease this driver does not hold: ending it must change nothing.
                if self.held.get(&lease) != Some(&self.conn[drv as usize]) {
                    let before = self.s.leased();
                    self.msg(drv as usize, ToNode::TaskEnd { lease });
                    assert_eq!(self.s.leased(), before);
                }
            }
            Op::Disconnect { drv } => {
                let conn = self.conn[drv as usize];
                self.step(Event::Disconnected { conn });
                assert!(self.held.values().all(|c| *c != conn));
                self.reconnect(drv as usize);
            }
            Op::CentralDrops => {
                self.step(Event::Disconnected { conn: CENTRAL });
                self.central = false;
            }
            Op::Advance { ms } => {
                self.now += ms as u64;
                self.step(Event::Tick);
            }
            Op::Ping { drv } => self.msg(drv as usize, ToNode::Ping),
            Op::StealReq { mask } => {
                let apps = (0..3).filter(|d| mask & (1 << d) != 0).map(|d| format!("app{d}")).collect();
                self.step(Event::Message { conn: PEER, msg: ToNode::Steal { limit: 3, apps } });
            }
            Op::StealDone { drv, job, tasks } => {
                if self.steal_pending {
                    self.steal_pending = false;
                    let p = eagle_wire::StolenProbe {
                        app: format!("app{drv}"),
                        job: job as u64,
                        tasks: tasks as u32,
                        est_ms: 3.0,
                        cpus: 1 + job as u32 % 3,
                    };
                    self.step(Event::Own(StealDone { probes: vec![p] }));
                }
            }
        }
    }
}

fn policy() -> impl Strategy<Value = Policy> {
    prop_oneof![Just(Policy::Eagle), Just(Policy::EagleAdaptive), Just(Policy::Hawk), Just(Policy::Sparrow)]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_interleaving_leaks_or_double_grants_a_slot(policy in policy(), slots in 1..4u32, ops in prop::collection::vec(op(), 1..120)) {
        let mut w = World::new(policy, slots);
        for op in ops {
            w.apply(op);
        }
        // Every driver leaves: nothing may stay leased or queued.
        for d in 0..3 {
            let conn = w.conn[d];
            w.step(Event::Disconnected { conn });
        }
        prop_assert_eq!(w.s.leased(), 0);
        prop_assert!(w.s.status().apps.is_empty(), "entries left: {:?}", w.s.status().apps);
        prop_assert!(!w.s.status().holds_long);
    }
}
