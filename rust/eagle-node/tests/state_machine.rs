//! The node state machine on a virtual clock, no sockets: grant order (SBP + SRPT and
//! the starvation cap), SSS rejection, leases (expiry, return, driver loss), status.
//! Slot shapes and the short partition are in `slots.rs`.

mod common;

use common::*;
use eagle_node::{Action, Event, NodeState, Policy, StealDone};
use eagle_wire::{Bitvector, FromNode, Peer, Role, ToNode};
#[test]
fn eagle_grants_by_srpt_sticks_to_the_job_and_honours_the_starvation_cap() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 1, Role::Driver, "a");
    let (_, busy, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 100, tasks: 1, est_ms: 10.0, cpus: 1 }));
    // Queued behind the busy slot, in this order: remaining work 100, 20, 50.
    for (job, tasks) in [(1, 10), (2, 2), (3, 5)] {
        assert!(grants(&send(&mut s, 0, 1, ToNode::Probe { job, tasks, est_ms: 10.0, cpus: 1 })).is_empty());
    }
    let first = run(&mut s, 1, 1, busy);
    let order = drain(&mut s, 1, first);
    // Job 2 (least remaining) twice (sticky), then job 3 while job 1 can still be
    // bypassed: job 1's delay reaches 5 × its 10 ms after five bypasses, then it runs
    // to the end before job 3's last two tasks.
    let mut expect = vec![2, 2, 3, 3, 3];
    expect.extend([1; 10]);
    expect.extend([3, 3]);
    assert_eq!(order, expect);
    assert_eq!(s.leased(), 0);
    assert!(s.status().apps.is_empty(), "every probe left with its job's last task");
}

/// The big job of [`big_job_then_small_ones`] (the small ones are numbered from 1).
const BIG: u64 = 1_000_000;

/// A big short job holds the node's slot (sticky), and small short jobs arrive one after
/// another while it runs; returns the order of grants.
fn big_job_then_small_ones(policy: Policy, small_jobs: u64) -> Vec<u64> {
    let mut s = node(policy, 1);
    join(&mut s, 1, Role::Driver, "a");
    // Tasks of a few milliseconds, as a Spark job of tiny tasks reports them.
    let out = send(&mut s, 0, 1, ToNode::Probe { job: BIG, tasks: 400, est_ms: 3.0, cpus: 1 });
    let (_, mut lease, _, _) = one_grant(&out);
    let mut order = vec![BIG];
    let mut arrivals = 1..=small_jobs;
    let mut now = 0;
    loop {
        now += 30;
        // A small job of three 20 ms tasks arrives while the slot is busy (its estimate is
        // more than 5 × the big job's: the paper's test never lets it pass).
        if let Some(job) = arrivals.next() {
            assert!(grants(&send(&mut s, now, 1, ToNode::Probe { job, tasks: 3, est_ms: 20.0, cpus: 1 })).is_empty());
        }
        match grants(&run(&mut s, now, 1, lease)).first() {
            Some(&(_, next, job, _)) => {
                order.push(job);
                lease = next;
            }
            None => break,
        }
    }
    assert_eq!(s.leased(), 0);
    order
}

#[test]
fn eagle_adaptive_lets_small_short_jobs_pass_a_big_sticky_one_for_a_bounded_time() {
    // The paper's cap is 5 × the big job's 3 ms estimate: a small task of 20 ms never fits
    // in it, so every small job waits for all 400 tasks.
    let paper = big_job_then_small_ones(Policy::Eagle, 20);
    let first_small = paper.iter().position(|&j| j == 1).unwrap();
    assert!(first_small == 400, "the paper serves the small jobs only after the big one: {paper:?}");
    // eagle-adaptive counts the cap only after 1 s of wall time since the big job's probe
    // was last served (the driver engine's min_wait). The small jobs arrive every 30 ms and
    // bring 3 tasks each, so they queue up; the big job gets a slot once a second.
    let adaptive = big_job_then_small_ones(Policy::EagleAdaptive, 20);
    let big_before = |i: usize| adaptive[..i].iter().filter(|&&j| j == BIG).count();
    for job in 1..=20u64 {
        let arrived = job as usize; // the job's probe arrives before the grant at this index
        let last = adaptive.iter().rposition(|&j| j == job).unwrap();
        assert!(big_before(last) - big_before(arrived) <= 3, "job {job} waited for at most 3 big tasks: {adaptive:?}");
    }
    // The floor is still a bound: under a stream of small jobs that never ends before the big
    // one, the big job is served at least once per second (33 grants of 30 ms, plus one).
    let stream = big_job_then_small_ones(Policy::EagleAdaptive, 300);
    let big: Vec<usize> = stream.iter().enumerate().filter(|(_, &j)| j == BIG).map(|(i, _)| i).collect();
    assert_eq!(big.len(), 400);
    let gap = big.windows(2).map(|w| w[1] - w[0]).max().unwrap();
    assert!(gap <= 36, "the big job waited {gap} grants at most (30 ms each)");
    assert!(gap >= 30, "small jobs did pass it for about a second: {gap} grants");
}

#[test]
fn sparrow_serves_probes_fifo_one_task_each() {
    let mut s = node(Policy::Sparrow, 1);
    join(&mut s, 1, Role::Driver, "a");
    let (_, busy, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 100, tasks: 1, est_ms: 10.0, cpus: 1 }));
    for (job, tasks) in [(1, 10), (2, 2), (3, 5)] {
        send(&mut s, 0, 1, ToNode::Probe { job, tasks, est_ms: 10.0, cpus: 1 });
    }
    let first = run(&mut s, 1, 1, busy);
    assert_eq!(drain(&mut s, 1, first), vec![1, 2, 3], "one grant per probe, in arrival order");
}

#[test]
fn eagle_rejects_short_probes_while_long_work_is_here_and_answers_with_the_bitvector() {
    let mut s = node(Policy::Eagle, 2);
    join(&mut s, 1, Role::Driver, "batch");
    join(&mut s, 2, Role::Driver, "interactive");
    join(&mut s, 9, Role::Central, "central");
    let bv = Bitvector { stamp: 7, words: vec![0b10] };
    let out =
        send(&mut s, 0, 9, ToNode::Place { app: "batch".into(), job: 5, est_ms: 1e5, bitvector: bv.clone(), cpus: 1 });
    let (conn, lease, job, long) = one_grant(&out);
    assert_eq!((conn, job, long), (1, 5, true), "the reservation's slot goes to its application's driver");
    let out = send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 });
    assert_eq!(out, vec![Action::Send { conn: 2, msg: FromNode::Rejected { job: 1, bitvector: Some(bv) } }]);
    assert!(s.status().holds_long);
    // The long task ends: the central hears of it, and short probes are welcome again.
    let out = run(&mut s, 1, 1, lease);
    assert_eq!(
        out,
        vec![Action::Send { conn: 9, msg: FromNode::LongDone { app: "batch".into(), job: 5, est_ms: 1e5, cpus: 1 } }]
    );
    assert_eq!(one_grant(&send(&mut s, 2, 2, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 })).0, 2);
}

#[test]
fn eagle_adaptive_starts_a_short_probe_beside_long_work_only_on_a_free_slot() {
    for policy in [Policy::Eagle, Policy::EagleAdaptive] {
        let mut s = node(policy, 2);
        join(&mut s, 1, Role::Driver, "batch");
        join(&mut s, 2, Role::Driver, "interactive");
        join(&mut s, 9, Role::Central, "central");
        let bv = Bitvector { stamp: 3, words: vec![0b1] };
        let place = ToNode::Place { app: "batch".into(), job: 5, est_ms: 1e5, bitvector: bv.clone(), cpus: 1 };
        one_grant(&send(&mut s, 0, 9, place));
        let out = send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 3, est_ms: 5000.0, cpus: 1 });
        if policy == Policy::Eagle {
            assert_eq!(
                out,
                vec![Action::Send { conn: 2, msg: FromNode::Rejected { job: 1, bitvector: Some(bv) } }],
                "the paper leaves the slot idle"
            );
            continue;
        }
        assert_eq!(one_grant(&out).0, 2, "granted at once on the free slot");
        assert_eq!(kept(&out), vec![false], "not sticky beside long work: the next task may not wait behind it");
        assert!(s.status().apps.iter().all(|a| a.probes == 0), "nothing of the short job waits here");
        // Both slots busy now, neither due to free within a second: the next probe would wait
        // behind long work, so it is rejected.
        let out = send(&mut s, 0, 2, ToNode::Probe { job: 2, tasks: 1, est_ms: 5.0, cpus: 1 });
        assert_eq!(out, vec![Action::Send { conn: 2, msg: FromNode::Rejected { job: 2, bitvector: Some(bv) } }]);
    }
}

/// A node of 2 slots running two long tasks of 800 ms placed and launched at 0, a third
/// queued; the driver "interactive" is connection 2. Returns the node and the two leases.
fn busy_with_long_work(policy: Policy) -> (NodeState, [u64; 2]) {
    let mut s = node(policy, 2);
    join(&mut s, 1, Role::Driver, "batch");
    join(&mut s, 2, Role::Driver, "interactive");
    join(&mut s, 9, Role::Central, "central");
    let mut leases = Vec::new();
    for _ in 0..3 {
        let place = ToNode::Place { app: "batch".into(), job: 5, est_ms: 800.0, bitvector: long_bv(), cpus: 1 };
        leases.extend(grants(&send(&mut s, 0, 9, place)).into_iter().map(|g| g.1));
    }
    for &l in &leases {
        assert!(send(&mut s, 0, 1, ToNode::Launched { lease: l }).is_empty());
    }
    (s, leases.try_into().expect("two slots, two grants"))
}

fn long_bv() -> Bitvector {
    Bitvector { stamp: 3, words: vec![0b1] }
}

fn rejected(job: u64) -> Vec<Action> {
    vec![Action::Send { conn: 2, msg: FromNode::Rejected { job, bitvector: Some(long_bv()) } }]
}

fn short_probe(job: u64, tasks: u32) -> ToNode {
    ToNode::Probe { job, tasks, est_ms: 50.0, cpus: 1 }
}

#[test]
fn eagle_adaptive_queues_a_short_probe_beside_long_work_that_is_about_to_end() {
    let (mut s, _) = busy_with_long_work(Policy::Eagle);
    assert_eq!(send(&mut s, 100, 2, short_probe(1, 4)), rejected(1), "the paper rejects it whatever the estimates");

    let (mut s, leases) = busy_with_long_work(Policy::EagleAdaptive);
    let out = send(&mut s, 100, 2, short_probe(1, 4));
    assert!(out.is_empty(), "queued: a long task here ends in about 700 ms, within the 1 s floor: {out:?}");
    // A second probe goes after the first one: still the second slot within the floor.
    assert!(send(&mut s, 100, 2, short_probe(2, 1)).is_empty());
    // A third would need a third slot to free: none is due within the floor.
    assert_eq!(send(&mut s, 100, 2, short_probe(3, 1)), rejected(3));
    // The first long task ends: the short work goes before the queued long task (the smaller
    // job first, SRPT), one slot-turn each, not sticky (the job's next task may not wait
    // behind long work).
    let out = run(&mut s, 700, 1, leases[0]);
    let (conn, _, job, long) = one_grant(&out);
    assert_eq!((conn, job, long), (2, 2, false));
    assert_eq!(kept(&out), vec![false]);
    let (conn, _, job, long) = one_grant(&run(&mut s, 750, 1, leases[1]));
    assert_eq!((conn, job, long), (2, 1, false), "the other probe, then the long task queued");
    // (Long tasks with far to go keep short probes away, as in the paper: the test above.)
}

#[test]
fn eagle_adaptive_queues_no_probe_beside_long_work_that_has_waited_a_second() {
    let (mut s, leases) = busy_with_long_work(Policy::EagleAdaptive);
    // At 1000 ms the running tasks are past their 800 ms estimate (counted 800 ms more, within
    // the floor), but the queued long task has waited the floor: short work may not pass it.
    assert_eq!(send(&mut s, 1000, 2, short_probe(1, 1)), rejected(1));
    // It runs when a slot frees; with nothing long queued, a probe may wait beside long work.
    let (conn, _, job, long) = one_grant(&run(&mut s, 1100, 1, leases[0]));
    assert_eq!((conn, job, long), (1, 5, true));
    assert!(send(&mut s, 1200, 2, short_probe(2, 1)).is_empty(), "the other long task ends within the floor");
    let (conn, _, job, _) = one_grant(&run(&mut s, 1300, 1, leases[1]));
    assert_eq!((conn, job), (2, 2));
}

#[test]
fn eagle_adaptive_gives_due_long_work_the_next_slot_once_short_work_holds_its_share() {
    // Two short probes queued beside two long tasks about to end take both slots as they
    // free (700, 750 ms); job 1 probes again and waits. At 1800 ms short work has passed the
    // queued long task for over `min_wait` and holds one slot of two (its share under
    // `longShare` 0.5): the freed slot goes to the long task, not to the waiting probe.
    let (mut s, leases) = busy_with_long_work(Policy::EagleAdaptive);
    assert!(send(&mut s, 100, 2, short_probe(1, 4)).is_empty());
    assert!(send(&mut s, 100, 2, short_probe(2, 1)).is_empty());
    let (_, two, job, _) = one_grant(&run(&mut s, 700, 1, leases[0]));
    assert_eq!(job, 2);
    let (_, one, job, _) = one_grant(&run(&mut s, 750, 1, leases[1]));
    assert_eq!(job, 1);
    assert!(send(&mut s, 760, 2, short_probe(1, 3)).is_empty(), "queued: a short task ends within the floor");
    let (conn, _, job, long) = one_grant(&run(&mut s, 1_800, 2, two));
    assert_eq!((conn, job, long), (1, 5, true), "the long task, passed for 1.1 s");
    // The long task started: short work goes first again.
    let (conn, _, job, long) = one_grant(&run(&mut s, 1_900, 2, one));
    assert_eq!((conn, job, long), (2, 1, false));
}

#[test]
fn eagle_adaptive_serves_a_small_long_job_before_a_big_one_placed_earlier() {
    let mut order = Vec::new();
    for policy in [Policy::Eagle, Policy::EagleAdaptive] {
        let mut s = node(policy, 1);
        join(&mut s, 1, Role::Driver, "batch");
        join(&mut s, 9, Role::Central, "central");
        let place =
            |job, est_ms| ToNode::Place { app: "batch".into(), job, est_ms, bitvector: Bitvector::default(), cpus: 1 };
        let (_, busy, _, _) = one_grant(&send(&mut s, 0, 9, place(100, 10.0)));
        for _ in 0..4 {
            assert!(grants(&send(&mut s, 0, 9, place(7, 1000.0))).is_empty());
        }
        assert!(grants(&send(&mut s, 0, 9, place(8, 500.0))).is_empty());
        let first = run(&mut s, 1, 1, busy);
        order.push(drain(&mut s, 1, first));
        assert_eq!(s.leased(), 0);
    }
    assert_eq!(order[0], vec![7, 7, 7, 7, 8], "the paper keeps long work in order");
    assert_eq!(order[1], vec![8, 7, 7, 7, 7], "least remaining long work first");
}

#[test]
fn sparrow_queues_short_probes_behind_long_work() {
    let mut s = node(Policy::Sparrow, 1);
    join(&mut s, 1, Role::Driver, "batch");
    join(&mut s, 2, Role::Driver, "interactive");
    join(&mut s, 9, Role::Central, "central");
    let (_, lease, _, _) = one_grant(&send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "batch".into(), job: 5, est_ms: 1e5, bitvector: Bitvector::default(), cpus: 1 },
    ));
    assert!(
        send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 }).is_empty(),
        "queued, not rejected"
    );
    assert_eq!(one_grant(&run(&mut s, 1, 1, lease)).0, 2);
}

#[test]
fn a_placement_for_an_application_not_connected_here_is_refused() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 9, Role::Central, "central");
    let out = send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "ghost".into(), job: 3, est_ms: 9.0, bitvector: Bitvector::default(), cpus: 1 },
    );
    assert_eq!(
        out,
        vec![Action::Send {
            conn: 9,
            msg: FromNode::PlaceRefused { app: "ghost".into(), job: 3, est_ms: 9.0, cpus: 1 }
        }]
    );
    assert!(!s.status().holds_long);
}

#[test]
fn an_unanswered_grant_expires_and_its_slot_goes_to_the_next_probe() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 1, Role::Driver, "slow");
    join(&mut s, 2, Role::Driver, "other");
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 }));
    send(&mut s, 10, 2, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 });
    // Both drivers keep talking, so only the lease can expire.
    for now in [300, 600, 900] {
        send(&mut s, now, 1, ToNode::Ping);
        send(&mut s, now, 2, ToNode::Ping);
        assert!(s.handle(now, Event::Tick).is_empty(), "not yet at {now}");
    }
    let out = s.handle(LEASE, Event::Tick);
    s.check().unwrap();
    assert!(matches!(&out[0], Action::Send { conn: 1, msg: FromNode::Revoked { lease: l, .. } } if *l == lease));
    assert_eq!(one_grant(&out).0, 2, "the slot went to the waiting probe");
    // A late launch under the revoked lease is refused.
    let out = send(&mut s, LEASE + 1, 1, ToNode::Launched { lease });
    assert!(matches!(&out[..], [Action::Send { conn: 1, msg: FromNode::Revoked { .. } }]), "{out:?}");
    assert_eq!(s.leased(), 1);
}

#[test]
fn a_running_lease_outlives_the_lease_time_while_its_driver_pings() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 1, Role::Driver, "a");
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 }));
    send(&mut s, 0, 1, ToNode::Launched { lease });
    for now in (400..10_000).step_by(400) {
        send(&mut s, now, 1, ToNode::Ping);
        assert!(s.handle(now, Event::Tick).is_empty());
    }
    assert_eq!(s.leased(), 1);
}

#[test]
fn no_task_returns_the_slot_drops_the_jobs_probes_and_grants_the_next_probe() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 1, Role::Driver, "a");
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 3, est_ms: 1.0, cpus: 1 }));
    send(&mut s, 0, 1, ToNode::Probe { job: 2, tasks: 9, est_ms: 1.0, cpus: 1 });
    let out = send(&mut s, 0, 1, ToNode::NoTask { lease });
    let (_, next, job, _) = one_grant(&out);
    assert_eq!(job, 2, "job 1 had less remaining work but answered no task: its sticky probe is gone");
    assert_ne!(next, lease, "lease ids are never reused");
    assert_eq!(s.status().apps[0].probes, 1);
}

#[test]
fn a_dropped_driver_loses_every_probe_and_lease_at_once() {
    let mut s = node(Policy::Eagle, 3);
    join(&mut s, 1, Role::Driver, "dies");
    join(&mut s, 2, Role::Driver, "lives");
    join(&mut s, 9, Role::Central, "central");
    send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "dies".into(), job: 7, est_ms: 50.0, bitvector: Bitvector::default(), cpus: 1 },
    );
    let g = grants(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 9, est_ms: 1.0, cpus: 1 }));
    assert_eq!(g.len(), 0, "eagle rejects: the host holds long work");
    assert_eq!(s.leased(), 1);
    send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "dies".into(), job: 8, est_ms: 50.0, bitvector: Bitvector::default(), cpus: 1 },
    );
    send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "dies".into(), job: 9, est_ms: 50.0, bitvector: Bitvector::default(), cpus: 1 },
    );
    send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "dies".into(), job: 10, est_ms: 50.0, bitvector: Bitvector::default(), cpus: 1 },
    );
    assert_eq!(s.leased(), 3);
    assert_eq!(s.status().apps[0].reservations, 1, "one reservation still queued");
    let out = s.handle(5, Event::Disconnected { conn: 1 });
    s.check().unwrap();
    let done = out.iter().filter(|a| matches!(a, Action::Send { conn: 9, msg: FromNode::LongDone { .. } })).count();
    assert_eq!(done, 4, "the central hears of every long task and reservation that died: {out:?}");
    assert_eq!(s.leased(), 0);
    assert!(!s.status().holds_long);
    // The other application now gets the slots.
    assert_eq!(grants(&send(&mut s, 6, 2, ToNode::Probe { job: 1, tasks: 5, est_ms: 1.0, cpus: 1 })).len(), 3);
}

#[test]
fn a_silent_driver_is_closed_and_its_slots_come_back() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 1, Role::Driver, "silent");
    join(&mut s, 2, Role::Driver, "talks");
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 }));
    send(&mut s, 0, 1, ToNode::Launched { lease });
    send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 });
    send(&mut s, LEASE, 2, ToNode::Ping);
    let out = s.handle(LEASE + 1, Event::Tick);
    s.check().unwrap();
    assert!(out.iter().any(|a| matches!(a, Action::Close { conn: 1, .. })), "{out:?}");
    assert_eq!(one_grant(&out).0, 2);
}

#[test]
fn a_reconnecting_application_replaces_its_old_connection() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 1, Role::Driver, "a");
    one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 2, est_ms: 5.0, cpus: 1 }));
    let out = s.handle(1, Event::Connected { conn: 2, peer: Peer { role: Role::Driver, app: "a".into() } });
    s.check().unwrap();
    assert!(matches!(&out[..], [Action::Close { conn: 1, .. }]), "{out:?}");
    assert_eq!(s.leased(), 0, "the old connection's lease is gone");
}

#[test]
fn wrong_role_unknown_lease_and_bad_estimate_are_errors_that_keep_the_connection() {
    let mut s = node(Policy::Eagle, 1);
    join(&mut s, 1, Role::Driver, "a");
    join(&mut s, 9, Role::Central, "central");
    let is_error = |out: &[Action], needle: &str| matches!(out, [Action::Send { msg: FromNode::Error { what }, .. }] if what.contains(needle));
    assert!(is_error(
        &send(
            &mut s,
            0,
            1,
            ToNode::Place { app: "a".into(), job: 1, est_ms: 1.0, bitvector: Bitvector::default(), cpus: 1 }
        ),
        "central"
    ));
    assert!(is_error(&send(&mut s, 0, 9, ToNode::Probe { job: 1, tasks: 1, est_ms: 1.0, cpus: 1 }), "driver"));
    assert!(is_error(&send(&mut s, 0, 1, ToNode::TaskEnd { lease: 42 }), "lease 42"));
    assert!(is_error(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 1, est_ms: f64::NAN, cpus: 1 }), "est_ms"));
    // Another driver's lease cannot be ended either.
    join(&mut s, 2, Role::Driver, "b");
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 1, est_ms: 1.0, cpus: 1 }));
    assert!(is_error(&send(&mut s, 0, 2, ToNode::TaskEnd { lease }), "not held"));
    assert_eq!(s.leased(), 1);
}

#[test]
fn status_reports_slots_leases_and_queues_per_application() {
    let mut s = node(Policy::Eagle, 2);
    join(&mut s, 1, Role::Driver, "a");
    join(&mut s, 2, Role::Driver, "b");
    let (_, lease, _, _) = grants(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 1, est_ms: 1.0, cpus: 1 }))[0];
    send(&mut s, 0, 1, ToNode::Launched { lease });
    send(&mut s, 0, 1, ToNode::Probe { job: 2, tasks: 1, est_ms: 1.0, cpus: 1 });
    send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 4, est_ms: 1.0, cpus: 1 });
    send(&mut s, 0, 2, ToNode::Probe { job: 2, tasks: 4, est_ms: 9.0, cpus: 1 });
    let out = send(&mut s, 0, 2, ToNode::Status);
    let [Action::Send { conn: 2, msg: FromNode::Status(st) }] = &out[..] else { panic!("{out:?}") };
    assert_eq!((st.slots, st.leased, st.running, st.policy.as_str()), (2, 2, 1, "eagle"));
    let rows: Vec<(&str, u32, u32)> = st.apps.iter().map(|r| (r.app.as_str(), r.probes, r.leased)).collect();
    // a: job 1 done (probe gone), job 2 granted (its single task: probe gone). b: job 1's sticky probe + job 2.
    assert_eq!(rows, vec![("a", 0, 2), ("b", 2, 0)]);
}

#[test]
fn hawk_victim_gives_away_the_probes_blocked_behind_long_work_of_the_thiefs_applications() {
    let mut s = node(Policy::Hawk, 1);
    join(&mut s, 1, Role::Driver, "batch");
    join(&mut s, 2, Role::Driver, "interactive");
    join(&mut s, 3, Role::Driver, "other");
    join(&mut s, 9, Role::Central, "central");
    join(&mut s, 50, Role::Node, "peer");
    one_grant(&send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "batch".into(), job: 5, est_ms: 1e5, bitvector: Bitvector::default(), cpus: 1 },
    ));
    assert!(
        send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 2, est_ms: 5.0, cpus: 1 }).is_empty(),
        "hawk queues behind long work"
    );
    send(&mut s, 0, 3, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 });
    let out = send(&mut s, 0, 50, ToNode::Steal { limit: 10, apps: vec!["interactive".into()] });
    let [Action::Send { conn: 50, msg: FromNode::Stolen { probes } }] = &out[..] else { panic!("{out:?}") };
    assert_eq!(probes.len(), 1);
    assert_eq!((probes[0].app.as_str(), probes[0].job, probes[0].tasks), ("interactive", 1, 2));
    let st = s.status();
    let left: Vec<(&str, u32)> = st.apps.iter().map(|r| (r.app.as_str(), r.probes)).collect();
    assert_eq!(left, vec![("batch", 0), ("other", 1)], "only the thief's applications' probes moved");
    // Drivers cannot steal.
    let out = send(&mut s, 0, 2, ToNode::Steal { limit: 10, apps: vec!["other".into()] });
    assert!(matches!(&out[..], [Action::Send { msg: FromNode::Error { .. }, .. }]));
}

#[test]
fn hawk_thief_steals_when_a_slot_frees_on_an_empty_queue_and_grants_what_it_got() {
    let mut s = node(Policy::Hawk, 1);
    join(&mut s, 2, Role::Driver, "interactive");
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 }));
    let out = run(&mut s, 1, 2, lease);
    let steals: Vec<&Action> = out.iter().filter(|a| matches!(a, Action::Steal { .. })).collect();
    assert_eq!(steals.len(), 1, "{out:?}");
    assert!(matches!(steals[0], Action::Steal { apps, attempts: 10, .. } if apps == &vec!["interactive".to_string()]));
    assert!(s.handle(2, Event::Tick).iter().all(|a| !matches!(a, Action::Steal { .. })), "one steal at a time");
    let probes = vec![eagle_wire::StolenProbe { app: "interactive".into(), job: 8, tasks: 1, est_ms: 5.0, cpus: 1 }];
    let out = s.handle(3, Event::Own(StealDone { probes }));
    s.check().unwrap();
    assert_eq!(one_grant(&out), (2, lease + 1, 8, false));
    // Eagle and Sparrow never steal.
    for p in [Policy::Eagle, Policy::Sparrow] {
        let mut s = node(p, 1);
        join(&mut s, 2, Role::Driver, "interactive");
        let (_, lease, _, _) = one_grant(&send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 1 }));
        assert!(run(&mut s, 1, 2, lease).is_empty());
        assert!(s.handle(2, Event::Tick).is_empty());
    }
}
