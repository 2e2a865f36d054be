//! eagle-adaptive's hold on a node (src/state/held.rs): a short job's slot waits for the
//! next short job for the window the node has learned, then goes to the long work queued;
//! the long work the host has run pays for it.

mod common;

use common::*;
use eagle_node::{Action, Event, NodeState, Policy};
use eagle_wire::{Bitvector, Role, ToNode};

const BATCH: u64 = 1;
const INTERACTIVE: u64 = 2;
const CENTRAL: u64 = 9;

/// A 2-slot node under `policy` with the batch and interactive drivers and the central.
fn joined(policy: Policy) -> NodeState {
    let mut s = node(policy, 2);
    join(&mut s, BATCH, Role::Driver, "batch");
    join(&mut s, INTERACTIVE, Role::Driver, "interactive");
    join(&mut s, CENTRAL, Role::Central, "central");
    s
}

/// The central places one 5 s task of the batch application's long job at `now`.
fn place(s: &mut NodeState, now: u64) -> Vec<Action> {
    let bitvector = Bitvector { stamp: 1, words: vec![0b1] };
    send(s, now, CENTRAL, ToNode::Place { app: "batch".into(), job: 5, est_ms: 5000.0, bitvector, cpus: 1 })
}

/// A 2-slot node: a short job of one 100 ms task granted at 0 on one slot, and three long
/// tasks of 5 s placed at 0 (one runs on the other slot, two queue). Returns the node and
/// the short job's lease.
fn short_beside_long(policy: Policy) -> (NodeState, u64) {
    let mut s = joined(policy);
    let (_, short, _, long) = one_grant(&send(&mut s, 0, INTERACTIVE, probe(1)));
    assert!(!long);
    let mut leases = Vec::new();
    for _ in 0..3 {
        leases.extend(grants(&place(&mut s, 0)));
    }
    assert_eq!(leases.len(), 1, "one long task runs, two queue: {leases:?}");
    assert!(send(&mut s, 0, BATCH, ToNode::Launched { lease: leases[0].1 }).is_empty());
    (s, short)
}

/// A tick at `now`, every connection heard from just before (the lease time is shorter than a
/// window with its slack): the actions of all of them.
fn tick(s: &mut NodeState, now: u64) -> Vec<Action> {
    let mut out = Vec::new();
    for conn in [BATCH, INTERACTIVE, CENTRAL] {
        out.extend(send(s, now, conn, ToNode::Ping));
    }
    out.extend(s.handle(now, Event::Tick));
    out
}

fn probe(job: u64) -> ToNode {
    ToNode::Probe { job, tasks: 1, est_ms: 100.0, cpus: 1 }
}

#[test]
fn a_short_jobs_slot_waits_for_the_next_short_job_not_for_a_long_task() {
    // The paper and Hawk give the slot to the long work at once: the next short job is
    // rejected (Eagle) or queued (Hawk) behind two 5 s tasks.
    for policy in [Policy::Eagle, Policy::Hawk] {
        let (mut s, short) = short_beside_long(policy);
        let (conn, _, _, long) = one_grant(&run(&mut s, 100, INTERACTIVE, short));
        assert!(conn == BATCH && long, "{policy:?}: the freed slot goes to the long work");
        assert!(grants(&send(&mut s, 400, INTERACTIVE, probe(2))).is_empty(), "{policy:?}");
    }

    // eagle-adaptive, on a host whose long work has run a minute (it pays for the hold).
    let (mut s, short) = beside_a_minute_of_long_work();
    let t = MINUTE;
    assert!(grants(&run(&mut s, t + 100, INTERACTIVE, short)).is_empty(), "the slot is held");
    // The user's next job, 300 ms later, starts at once on the held slot.
    let (conn, next, job, long) = one_grant(&send(&mut s, t + 400, INTERACTIVE, probe(2)));
    assert_eq!((conn, job, long), (INTERACTIVE, 2, false));
    assert_eq!(s.holds(), (1, 1), "one hold, used");
    // It ends too; no short job follows. The window is the one gap seen (300 ms) plus a 200 ms
    // round: the slot is held until 1000 ms, then the next tick gives it to the long work.
    assert!(grants(&run(&mut s, t + 500, INTERACTIVE, next)).is_empty());
    assert!(grants(&tick(&mut s, t + 950)).is_empty(), "still held at 950 ms");
    let (conn, _, _, long) = one_grant(&tick(&mut s, t + 1100));
    assert!(conn == BATCH && long, "the window has passed: the long work takes the slot");
    s.check().unwrap();
    assert_eq!(s.holds(), (2, 1));
}

/// A 2-slot node with one long task placed and running since 0, none queued.
fn one_long_running() -> NodeState {
    let mut s = joined(Policy::EagleAdaptive);
    let (_, running, _, _) = one_grant(&place(&mut s, 0));
    assert!(send(&mut s, 0, BATCH, ToNode::Launched { lease: running }).is_empty());
    s
}

/// A minute: one long task running that long pays for 3 slot-seconds of holds (5 %).
const MINUTE: u64 = 60_000;

/// A 2-slot node whose one long task has run since 0: at [`MINUTE`] a short job of one
/// 100 ms task takes the other slot and one more long task queues. Returns the node and the
/// short job's lease.
fn beside_a_minute_of_long_work() -> (NodeState, u64) {
    let mut s = one_long_running();
    let (_, short, _, long) = one_grant(&send(&mut s, MINUTE, INTERACTIVE, probe(1)));
    assert!(!long);
    assert!(grants(&place(&mut s, MINUTE)).is_empty(), "the long task queues");
    (s, short)
}

#[test]
fn a_short_jobs_slot_is_held_from_long_work_placed_after_it_ended_while_long_work_came_lately() {
    // One long task placed at 0 has run on one slot for a minute, and another ran on the other
    // slot from 1 s to 0.5 s before the minute; none queued. A user's short job then runs
    // there and ends 100 ms later. Nothing waits, but long work came lately: a long task placed
    // 150 ms after the start finds the slot held, and the user's next job at 400 ms starts at
    // once.
    let mut s = one_long_running();
    let t = MINUTE;
    let (_, lately, _, _) = one_grant(&place(&mut s, t - 1000));
    assert!(grants(&run(&mut s, t - 500, BATCH, lately)).is_empty());
    let (_, short, _, _) = one_grant(&send(&mut s, t, INTERACTIVE, probe(1)));
    assert!(grants(&run(&mut s, t + 100, INTERACTIVE, short)).is_empty());
    assert!(grants(&place(&mut s, t + 150)).is_empty(), "the long task placed after the end waits");
    let (conn, next, job, long) = one_grant(&send(&mut s, t + 400, INTERACTIVE, probe(2)));
    assert_eq!((conn, job, long), (INTERACTIVE, 2, false));
    assert_eq!(s.holds(), (1, 1), "one hold, used");
    // The next job's end finds long work queued: the usual hold, until its window (the one
    // gap seen, 300 ms, plus a 200 ms round) passes and a tick gives the slot to the long
    // task.
    assert!(grants(&run(&mut s, t + 500, INTERACTIVE, next)).is_empty());
    let (conn, _, _, long) = one_grant(&tick(&mut s, t + 1100));
    assert!(conn == BATCH && long);
    s.check().unwrap();

    // Long work placed longer ago than the reservation's idle (30 s): no hold.
    let mut s = one_long_running();
    let (_, short, _, _) = one_grant(&send(&mut s, 40_000, INTERACTIVE, probe(1)));
    assert!(grants(&run(&mut s, 40_100, INTERACTIVE, short)).is_empty());
    assert_eq!(grants(&place(&mut s, 40_150)).len(), 1, "the free slot goes to the long task");
    assert_eq!(s.holds(), (0, 0));
}

#[test]
fn nothing_is_held_when_no_long_work_waits_or_came_lately_or_for_a_job_still_running_here() {
    // No long work queued or placed: the slot is simply free, and a long placement takes it at
    // once.
    let mut s = joined(Policy::EagleAdaptive);
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, INTERACTIVE, probe(1)));
    assert!(grants(&run(&mut s, 100, INTERACTIVE, lease)).is_empty());
    for _ in 0..2 {
        assert_eq!(grants(&place(&mut s, 150)).len(), 1, "both slots go to long work");
    }
    assert_eq!(s.holds(), (0, 0));

    // A job with a second task still to run here holds its slot by its probe, not by a hold.
    let (mut s, short) = short_beside_long(Policy::EagleAdaptive);
    assert!(send(&mut s, 50, INTERACTIVE, ToNode::Probe { job: 1, tasks: 1, est_ms: 100.0, cpus: 1 }).is_empty());
    let (conn, _, job, long) = one_grant(&run(&mut s, 100, INTERACTIVE, short));
    assert_eq!((conn, job, long), (INTERACTIVE, 1, false), "its queued probe takes the slot");
    assert_eq!(s.holds(), (0, 0));
}

#[test]
fn a_hold_is_paid_for_by_the_long_work_the_host_has_run() {
    // Long work placed here just now has run 100 ms: 5 % of it pays for no hold, so the
    // short job's freed slot goes to the long task at once.
    let (mut s, short) = short_beside_long(Policy::EagleAdaptive);
    let (conn, _, _, long) = one_grant(&run(&mut s, 100, INTERACTIVE, short));
    assert!(conn == BATCH && long, "the long work queued here takes the slot");
    assert_eq!(s.holds(), (0, 0));

    // A long task has run here for a minute (3 slot-seconds of budget): the same end holds
    // the slot for the next short job.
    let (mut s, short) = beside_a_minute_of_long_work();
    assert!(grants(&run(&mut s, MINUTE + 100, INTERACTIVE, short)).is_empty(), "the slot is held");
    let (conn, _, job, long) = one_grant(&send(&mut s, MINUTE + 400, INTERACTIVE, probe(2)));
    assert_eq!((conn, job, long), (INTERACTIVE, 2, false));
    assert_eq!(s.holds(), (1, 1));
    s.check().unwrap();
}
