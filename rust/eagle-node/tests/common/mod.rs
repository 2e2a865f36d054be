//! Helpers shared by the node state machine's tests (`state_machine.rs`, `slots.rs`, ...): a node
//! on a virtual clock, peers joining, messages sent (each followed by the state's own
//! invariant check), and the grants an answer carries.
#![allow(dead_code)] // each test file uses its own subset

use eagle_node::{Action, ConnId, Event, NodeState, Policy, Settings, StealDone};
use eagle_wire::{FromNode, Peer, Role, ToNode};

pub const LEASE: u64 = 1000;

pub fn node(policy: Policy, slots: u32) -> NodeState {
    NodeState::new(Settings { policy, slots, lease_ms: LEASE })
}

pub fn join(s: &mut NodeState, conn: ConnId, role: Role, app: &str) {
    let out = s.handle(0, Event::Connected { conn, peer: Peer { role, app: app.into() } });
    assert!(out.is_empty(), "{out:?}");
}

pub fn send(s: &mut NodeState, now: u64, conn: ConnId, msg: ToNode) -> Vec<Action> {
    let out = s.handle(now, Event::Message { conn, msg });
    s.check().unwrap();
    out
}

/// `(conn, lease, job, long)` of every grant in `out`.
pub fn grants(out: &[Action]) -> Vec<(ConnId, u64, u64, bool)> {
    out.iter()
        .filter_map(|a| match a {
            Action::Send { conn, msg: FromNode::Grant { lease, job, long, .. } } => Some((*conn, *lease, *job, *long)),
            _ => None,
        })
        .collect()
}

pub fn one_grant(out: &[Action]) -> (ConnId, u64, u64, bool) {
    let g = grants(out);
    assert_eq!(g.len(), 1, "expected one grant in {out:?}");
    g[0]
}

/// Launches and ends the task of `lease`; returns the actions of the end (the next grant).
/// A steal the end asks for (eagle-adaptive, before long work) is answered at once, as by
/// peers with no short work waiting (`partition_steal.rs` answers its own: [`run_raw`]).
pub fn run(s: &mut NodeState, now: u64, conn: ConnId, lease: u64) -> Vec<Action> {
    let mut out = run_raw(s, now, conn, lease);
    if out.iter().any(|a| matches!(a, Action::Steal { each_once: true, .. })) {
        out.extend(s.handle(now, Event::Own(StealDone { probes: Vec::new() })));
        s.check().unwrap();
    }
    out
}

/// Launches and ends the task of `lease`; returns the actions of the end.
pub fn run_raw(s: &mut NodeState, now: u64, conn: ConnId, lease: u64) -> Vec<Action> {
    assert!(send(s, now, conn, ToNode::Launched { lease }).is_empty());
    send(s, now, conn, ToNode::TaskEnd { lease })
}

/// Serves one slot until nothing is granted; returns the job of each grant in order.
pub fn drain(s: &mut NodeState, conn: ConnId, mut out: Vec<Action>) -> Vec<u64> {
    let mut order = Vec::new();
    while let Some(&(c, lease, job, _)) = grants(&out).first() {
        assert_eq!(c, conn);
        order.push(job);
        out = run(s, 1, conn, lease);
    }
    order
}

/// `kept` of every grant in `out`.
pub fn kept(out: &[Action]) -> Vec<bool> {
    out.iter()
        .filter_map(|a| match a {
            Action::Send { msg: FromNode::Grant { kept, .. }, .. } => Some(*kept),
            _ => None,
        })
        .collect()
}
