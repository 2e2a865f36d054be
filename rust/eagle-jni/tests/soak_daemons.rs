//! The daemons' soak: `eagle-node`'s and `eagle-central`'s state machines serve
//! thousands of applications one after another, each leaving in one of the ways a
//! driver leaves a shared cluster (its jobs done; killed with tasks running; gone silent
//! with grants unanswered; replaced by a reconnection; its placements refused or handed
//! back; a host lost under its long work). A daemon runs for weeks beside many
//! applications, so nothing an application leaves may stay: the bytes live after each
//! application has gone are measured at 10/25/50/75/100 % of the run and must not grow
//! after warm-up. (The driver side's soak is `soak_memory.rs`.)

#[path = "common/counting.rs"]
mod counting;

use eagle_central::{Action as CAction, CentralState, Event as CEvent, HostEvent};
use eagle_node::{Action, ConnId, Event, Ms, NodeState, Policy, Settings, StealDone};
use eagle_wire::{Bitvector, FromCentral, FromNode, NodeStatus, Peer, Role, ToCentral, ToNode};
use std::collections::BTreeMap;

const APPS: u64 = 4_000;
const LEASE_MS: Ms = 1_000;

#[test]
fn thousands_of_applications_leave_nothing_behind_in_the_daemons() {
    // One after the other: the counter is process-wide.
    for policy in [Policy::EagleAdaptive, Policy::Hawk] {
        node_soak(policy);
    }
    central_soak();
}

/// How an application leaves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Leaves {
    /// Its jobs run to the end, then it disconnects.
    Done,
    /// Killed with tasks running and probes queued.
    Killed,
    /// Stops answering: its grants expire and the node drops it after the lease time.
    Silent,
    /// Answers "no task" to every short grant (late binding: nothing left), then goes.
    NoTask,
    /// Its application id reconnects on a new connection, which replaces the old one.
    Reconnects,
}

const WAYS: [Leaves; 5] = [Leaves::Done, Leaves::Killed, Leaves::Silent, Leaves::NoTask, Leaves::Reconnects];

/// A node state machine and the grants it has made, per connection.
struct NodePump {
    node: NodeState,
    now: Ms,
    grants: BTreeMap<ConnId, Vec<(u64, u64, bool)>>,
}

impl NodePump {
    fn ev(&mut self, e: Event) {
        let mut out = self.node.handle(self.now, e);
        while !out.is_empty() {
            let mut steal = false;
            for a in out {
                match a {
                    Action::Send { conn, msg: FromNode::Grant { lease, job, long, .. } } => {
                        self.grants.entry(conn).or_default().push((lease, job, long))
                    }
                    Action::Steal { .. } => steal = true,
                    _ => {}
                }
            }
            // No peer has probes to give: the steal comes back empty.
            out = if steal {
                self.node.handle(self.now, Event::Own(StealDone { probes: Vec::new() }))
            } else {
                Vec::new()
            };
        }
    }

    fn msg(&mut self, conn: ConnId, msg: ToNode) {
        self.ev(Event::Message { conn, msg })
    }

    fn connect(&mut self, conn: ConnId, role: Role, app: &str) {
        self.ev(Event::Connected { conn, peer: Peer { role, app: app.into() } })
    }

    fn status(&mut self) -> NodeStatus {
        let out = self.node.handle(self.now, Event::Message { conn: CENTRAL_CONN, msg: ToNode::Status });
        out.into_iter()
            .find_map(|a| match a {
                Action::Send { msg: FromNode::Status(s), .. } => Some(s),
                _ => None,
            })
            .expect("a status")
    }
}

const CENTRAL_CONN: ConnId = 1;

/// One node of 4 slots under `policy`; the applications come one after another, each with a
/// short job of 6 tasks probed here and 3 long tasks the central places here.
fn node_soak(policy: Policy) {
    let mut p = NodePump {
        node: NodeState::new(Settings { policy, slots: 4, lease_ms: LEASE_MS }),
        now: 0,
        grants: BTreeMap::new(),
    };
    p.connect(CENTRAL_CONN, Role::Central, "central");
    let mut live_at = Vec::new();
    for a in 0..APPS {
        let how = WAYS[(a % WAYS.len() as u64) as usize];
        let (conn, app) = (100 + 2 * a, format!("app-{a}"));
        let (short, long) = (a, 1_000_000 + a);
        p.connect(conn, Role::Driver, &app);
        p.msg(conn, ToNode::Probe { job: short, tasks: 6, est_ms: 5.0, cpus: 1 });
        for _ in 0..3 {
            let bitvector = Bitvector { stamp: a, words: vec![1] };
            p.msg(CENTRAL_CONN, ToNode::Place { app: app.clone(), job: long, est_ms: 50.0, bitvector, cpus: 1 });
        }
        let mut short_left = 6u32;
        // Answer grants until the node has nothing more for this application.
        let mut running = Vec::new();
        loop {
            p.now += 1;
            let Some(grants) = p.grants.remove(&conn).filter(|g| !g.is_empty()) else {
                // End one running task, which frees a slot and may bring more grants.
                match running.pop() {
                    Some(lease) if how != Leaves::Killed || running.len() > 2 => {
                        p.msg(conn, ToNode::TaskEnd { lease });
                        continue;
                    }
                    _ => break,
                }
            };
            if how == Leaves::Silent {
                break;
            }
            for (lease, job, is_long) in grants {
                if !is_long && (how == Leaves::NoTask || short_left == 0) {
                    p.msg(conn, ToNode::NoTask { lease });
                    continue;
                }
                p.msg(conn, ToNode::Launched { lease });
                running.push(lease);
                if !is_long {
                    short_left -= 1;
                    p.msg(conn, ToNode::Remaining { job, tasks: short_left });
                }
            }
        }
        match how {
            Leaves::Silent => {
                // The grants go unanswered: past the lease time the node revokes them and
                // drops the driver.
                p.now += LEASE_MS + 1;
                p.msg(CENTRAL_CONN, ToNode::Ping);
                p.ev(Event::Tick);
            }
            Leaves::Reconnects => {
                p.connect(conn + 1, Role::Driver, &app);
                p.ev(Event::Disconnected { conn: conn + 1 });
            }
            _ => p.ev(Event::Disconnected { conn }),
        }
        p.grants.clear();
        let st = p.status();
        assert!(
            st.leased == 0 && st.apps.is_empty() && !st.holds_long,
            "{policy:?}: application {a} ({how:?}) left a lease or an entry: {st:?}"
        );
        if [APPS / 10, APPS / 4, APPS / 2, APPS * 3 / 4, APPS].contains(&(a + 1)) {
            live_at.push(counting::live());
        }
    }
    counting::assert_flat(&format!("eagle-node under {policy:?}"), &live_at, 16 * 1024);
}

/// The central over 8 hosts with the adaptive short partition: each application says where
/// its executors are and its short load, places 4 long tasks (some restricted to a few
/// hosts), and leaves; every 50th a host is lost under its long work and comes back.
fn central_soak() {
    let hosts: Vec<(String, String)> = (0..8).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
    let (c, _) = CentralState::new(&hosts, 0.1);
    let mut c = c.with_short_partition(eagle_central::short_partition::ShortPartition::Adaptive);
    let up = |c: &mut CentralState, host: u32| {
        c.handle(CEvent::Own(HostEvent::NodeUp { host }));
        let status = NodeStatus::idle("eagle", 2);
        c.handle(CEvent::Own(HostEvent::FromNode { host, msg: FromNode::Status(status) }));
    };
    for h in 0..8 {
        up(&mut c, h);
    }
    let mut live_at = Vec::new();
    for a in 0..APPS {
        c.set_now(a as f64 * 0.5);
        c.handle(CEvent::Tick);
        let (conn, app) = (100 + a, format!("app-{a}"));
        c.handle(CEvent::Connected { conn, peer: Peer { role: Role::Driver, app: app.clone() } });
        let on: Vec<String> = (0..6).map(|i| format!("h{}", (a + i) % 8)).collect();
        let restricted = (a % 3 == 0).then(|| on[..2].to_vec());
        c.handle(CEvent::Message { conn, msg: ToCentral::Executors { hosts: on } });
        c.handle(CEvent::Message {
            conn,
            msg: ToCentral::ShortLoad { running: (a % 3) as u32, waiting: (a % 2) as u32 },
        });
        let out = c.handle(CEvent::Message {
            conn,
            msg: ToCentral::SubmitLong {
                job: a,
                tasks: 4,
                est_ms: 100.0,
                cpus: 1,
                hosts: restricted,
                avoid: Vec::new(),
                input: Vec::new(),
            },
        });
        let placed: Vec<(u32, u64, f64)> = out
            .iter()
            .filter_map(|x| match x {
                CAction::ToNode { host, msg: ToNode::Place { job, est_ms, .. } } => Some((*host, *job, *est_ms)),
                _ => None,
            })
            .collect();
        let unplaced = out.iter().any(|x| matches!(x, CAction::ToPeer { msg: FromCentral::Unplaced { .. }, .. }));
        assert!(!placed.is_empty() || unplaced, "application {a}: neither placed nor unplaced: {out:?}");
        let killed = a % 5 == 1;
        if killed {
            c.handle(CEvent::Disconnected { conn });
        }
        let lost = (a % 50 == 0).then(|| placed.first().map(|p| p.0)).flatten();
        if let Some(h) = lost {
            c.handle(CEvent::Own(HostEvent::NodeDown { host: h }));
        }
        for (i, &(host, job, est_ms)) in placed.iter().enumerate() {
            if Some(host) == lost {
                continue;
            }
            let msg = if i % 4 == 0 {
                FromNode::PlaceRefused { app: app.clone(), job, est_ms, cpus: 1 }
            } else {
                FromNode::LongDone { app: app.clone(), job, est_ms, cpus: 1 }
            };
            c.handle(CEvent::Own(HostEvent::FromNode { host, msg }));
        }
        if let Some(h) = lost {
            up(&mut c, h);
        }
        if !killed {
            c.handle(CEvent::Message { conn, msg: ToCentral::ShortLoad { running: 0, waiting: 0 } });
            c.handle(CEvent::Disconnected { conn });
        }
        let st = c.status();
        assert!(
            st.nodes.iter().all(|n| n.long_tasks == 0 && n.work_ms == 0.0),
            "application {a}: long work left on the hosts after it went: {:?}",
            st.nodes
        );
        if [APPS / 10, APPS / 4, APPS / 2, APPS * 3 / 4, APPS].contains(&(a + 1)) {
            live_at.push(counting::live());
        }
    }
    counting::assert_flat("eagle-central", &live_at, 16 * 1024);
}
