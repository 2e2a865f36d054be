//! The node state machine on a virtual clock, no sockets: what a grant says about its probe,
//! wide tasks holding several slots, kept short slots and a host leaving the general
//! partition, and the end of a starved short job under a stream of small ones.

mod common;

use common::*;
use eagle_node::state::LEND_AFTER_MS;
use eagle_node::{Action, Event, Policy};
use eagle_wire::{Bitvector, FromNode, Role, ToNode};

#[test]
fn a_grant_says_whether_the_probe_stays_for_the_next_task() {
    // Eagle (Sticky Batch Probing): the probe stays while the job has tasks left here.
    let mut s = node(Policy::Eagle, 2);
    join(&mut s, 1, Role::Driver, "a");
    assert_eq!(kept(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 2, est_ms: 10.0, cpus: 1 })), vec![true, false]);
    // Sparrow and Hawk: one grant per probe, so the driver must probe again for more tasks.
    for policy in [Policy::Sparrow, Policy::Hawk] {
        let mut s = node(policy, 2);
        join(&mut s, 1, Role::Driver, "a");
        assert_eq!(
            kept(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 3, est_ms: 10.0, cpus: 1 })),
            vec![false],
            "{policy:?}"
        );
    }
}

#[test]
fn a_wide_task_holds_its_slots_and_narrow_ones_do_not_overtake_it() {
    // 4 slots; a narrow job runs on 3 of them, then a wide job (4 cpus, one task) comes
    // first in SRPT order. The node must not let a second narrow job take the free slot
    // (the wide task would then wait for ever behind a stream of narrow ones), and it
    // grants the wide task only when all 4 slots are free.
    let mut s = node(Policy::Eagle, 4);
    join(&mut s, 1, Role::Driver, "narrow");
    join(&mut s, 2, Role::Driver, "wide");
    let first = grants(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 3, est_ms: 100.0, cpus: 1 }));
    assert_eq!(first.len(), 3);
    for &(_, lease, _, _) in &first {
        assert!(send(&mut s, 0, 1, ToNode::Launched { lease }).is_empty());
    }
    assert!(
        grants(&send(&mut s, 1, 2, ToNode::Probe { job: 7, tasks: 1, est_ms: 1.0, cpus: 4 })).is_empty(),
        "3 of 4 slots busy"
    );
    assert!(
        grants(&send(&mut s, 2, 1, ToNode::Probe { job: 2, tasks: 5, est_ms: 50.0, cpus: 1 })).is_empty(),
        "the free slot is held for the wide task"
    );
    assert_eq!(s.status().leased, 3);
    let mut out = Vec::new();
    for &(_, lease, _, _) in &first {
        assert!(grants(&out).is_empty(), "granted before the last slot freed: {out:?}");
        out = send(&mut s, 3, 1, ToNode::TaskEnd { lease });
    }
    let (conn, lease, job, _) = one_grant(&out);
    assert_eq!((conn, job), (2, 7), "all 4 slots free: the wide task's lease");
    let st = s.status();
    assert_eq!((st.leased, st.apps.iter().find(|a| a.app == "wide").unwrap().leased), (4, 4), "one lease, four slots");
    // Its end frees the four slots at once: the narrow job takes all of them.
    assert_eq!(grants(&run(&mut s, 4, 2, lease)).len(), 4);
}

#[test]
fn work_wider_than_the_host_is_refused_and_zero_cpus_is_an_error() {
    let mut s = node(Policy::Sparrow, 2);
    join(&mut s, 1, Role::Driver, "a");
    join(&mut s, 9, Role::Central, "central");
    let out = send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 2, est_ms: 5.0, cpus: 3 });
    assert!(matches!(&out[..], [Action::Send { conn: 1, msg: FromNode::Rejected { job: 1, .. } }]), "{out:?}");
    let out = send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "a".into(), job: 2, est_ms: 9.0, bitvector: Bitvector::default(), cpus: 3 },
    );
    // The driver hears it too: its books then never wait on the central's answer.
    let unqueued = Action::Send { conn: 1, msg: FromNode::Unqueued { job: 2, tasks: 1 } };
    assert_eq!(
        out,
        vec![
            unqueued,
            Action::Send { conn: 9, msg: FromNode::PlaceRefused { app: "a".into(), job: 2, est_ms: 9.0, cpus: 3 } }
        ]
    );
    let out = send(&mut s, 0, 1, ToNode::Probe { job: 3, tasks: 1, est_ms: 5.0, cpus: 0 });
    assert!(
        matches!(&out[..], [Action::Send { msg: FromNode::Error { what }, .. }] if what.contains("cpus")),
        "{out:?}"
    );
    // A 2-cpu placement fits: one lease of both slots, and its end reports its width.
    let (_, lease, _, long) = one_grant(&send(
        &mut s,
        0,
        9,
        ToNode::Place { app: "a".into(), job: 4, est_ms: 9.0, bitvector: Bitvector::default(), cpus: 2 },
    ));
    assert!(long);
    assert_eq!(s.status().leased, 2);
    let out = run(&mut s, 1, 1, lease);
    assert!(
        out.contains(&Action::Send {
            conn: 9,
            msg: FromNode::LongDone { app: "a".into(), job: 4, est_ms: 9.0, cpus: 2 }
        }),
        "{out:?}"
    );
    assert_eq!(s.status().leased, 0);
}

#[test]
fn a_dropped_driver_frees_every_slot_of_its_wide_leases() {
    let mut s = node(Policy::Eagle, 3);
    join(&mut s, 1, Role::Driver, "a");
    let (_, lease, _, _) = one_grant(&send(&mut s, 0, 1, ToNode::Probe { job: 1, tasks: 1, est_ms: 5.0, cpus: 3 }));
    assert!(send(&mut s, 0, 1, ToNode::Launched { lease }).is_empty());
    assert_eq!(s.leased(), 3);
    s.handle(1, Event::Disconnected { conn: 1 });
    s.check().unwrap();
    assert_eq!(s.leased(), 0);
}

#[test]
fn kept_short_slots_hold_long_work_back_and_queue_short_probes_beside_it() {
    for policy in [Policy::Eagle, Policy::EagleAdaptive, Policy::Hawk] {
        let mut s = node(policy, 2);
        join(&mut s, 1, Role::Driver, "batch");
        join(&mut s, 2, Role::Driver, "interactive");
        join(&mut s, 9, Role::Central, "central");
        // Only the central may keep slots.
        let out = send(&mut s, 0, 2, ToNode::ShortSlots { slots: 1 });
        assert!(
            matches!(&out[..], [Action::Send { msg: FromNode::Error { what }, .. }] if what.contains("ShortSlots")),
            "{out:?}"
        );
        assert_eq!(s.status().short_slots, 0);
        assert!(send(&mut s, 0, 9, ToNode::ShortSlots { slots: 1 }).is_empty());
        assert_eq!(s.status().short_slots, 1);
        // A short task starts at once; then three long tasks are placed: one slot is long
        // work's, the other is kept.
        let (_, first, _, _) = one_grant(&send(&mut s, 0, 2, ToNode::Probe { job: 9, tasks: 1, est_ms: 5.0, cpus: 1 }));
        let bv = Bitvector { stamp: 1, words: vec![0] };
        let mut out = Vec::new();
        for _ in 0..3 {
            out.extend(send(
                &mut s,
                0,
                9,
                ToNode::Place { app: "batch".into(), job: 5, est_ms: 1e5, bitvector: bv.clone(), cpus: 1 },
            ));
        }
        let (_, long_lease, _, long) = one_grant(&out);
        assert!(long);
        assert_eq!((s.leased(), s.status().apps.iter().map(|a| a.reservations).sum::<u32>()), (2, 2));
        // A short job probes while the host holds long work: queued, not rejected; the kept
        // slot goes to it when the short task ends, though long work waits, and its probe
        // sticks (Sticky Batch Probing) for its next tasks.
        assert!(send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 3, est_ms: 5.0, cpus: 1 }).is_empty(), "{policy:?}");
        let out = run(&mut s, 1, 2, first);
        let (_, lease, job, long) = one_grant(&out);
        assert_eq!((job, long), (1, false), "{policy:?}");
        if policy != Policy::Hawk {
            assert_eq!(kept(&out), vec![true]);
            let (_, lease, job, _) = one_grant(&run(&mut s, 2, 2, lease));
            assert_eq!(job, 1);
            let (_, lease, job, _) = one_grant(&run(&mut s, 3, 2, lease));
            assert_eq!(job, 1);
            assert!(
                grants(&run(&mut s, 3, 2, lease)).is_empty(),
                "{policy:?}: no short work left: the kept slot idles"
            );
        } else {
            assert!(grants(&run(&mut s, 2, 2, lease)).is_empty(), "hawk: one grant per probe; the kept slot idles");
        }
        assert_eq!(s.leased(), 1);
        // The long task ends: the next long one takes its slot, never the kept one.
        let (_, _, _, long) = one_grant(&run(&mut s, 4, 1, long_lease));
        assert!(long);
        assert_eq!(s.leased(), 1);
        // Short work away from the host for LEND_AFTER_MS (its last grant at t = 3, hawk's
        // at 1): the kept slot is lent to the last long task, not before.
        send(&mut s, 900, 9, ToNode::Ping);
        send(&mut s, 900, 1, ToNode::Ping);
        send(&mut s, 900, 2, ToNode::Ping);
        assert!(grants(&s.handle(1000, Event::Tick)).is_empty(), "{policy:?}");
        let (_, _, _, long) = one_grant(&s.handle(3 + LEND_AFTER_MS, Event::Tick));
        assert!(long);
        assert_eq!(s.leased(), 2);
        // A node that has seen no short work lends its kept slots from the start.
        let mut fresh = node(policy, 2);
        join(&mut fresh, 1, Role::Driver, "batch");
        join(&mut fresh, 9, Role::Central, "central");
        send(&mut fresh, 0, 9, ToNode::ShortSlots { slots: 1 });
        let mut out = Vec::new();
        for _ in 0..2 {
            out.extend(send(
                &mut fresh,
                0,
                9,
                ToNode::Place { app: "batch".into(), job: 5, est_ms: 1e5, bitvector: bv.clone(), cpus: 1 },
            ));
        }
        assert_eq!(grants(&out).len(), 2, "{policy:?}");
        // Kept slots again, and then the central's link drops: they are released.
        assert!(send(&mut s, 1004, 9, ToNode::ShortSlots { slots: 5 }).is_empty());
        assert_eq!(s.status().short_slots, 2, "at most the host's slots");
        s.handle(1004, Event::Disconnected { conn: 9 });
        assert_eq!(s.status().short_slots, 0);
        s.check().unwrap();
    }
}

/// A host that leaves the general partition hands back the long reservations queued there
/// (the central places them again on the general hosts), each as a `PlaceRefused`, tells
/// their driver (`Unqueued`), and keeps the long task it already granted; only the central
/// may ask.
#[test]
fn a_host_leaving_the_general_partition_hands_back_its_queued_reservations() {
    for policy in [Policy::Eagle, Policy::EagleAdaptive, Policy::Hawk, Policy::Sparrow] {
        let mut s = node(policy, 1);
        join(&mut s, 1, Role::Driver, "batch");
        join(&mut s, 9, Role::Central, "central");
        let bv = Bitvector { stamp: 1, words: vec![1] };
        let mut out = Vec::new();
        for job in [5, 5, 6] {
            out.extend(send(
                &mut s,
                0,
                9,
                ToNode::Place { app: "batch".into(), job, est_ms: 1e5, bitvector: bv.clone(), cpus: 1 },
            ));
        }
        let (_, lease, job, long) = one_grant(&out);
        assert!(long && job == 5, "{out:?}");
        assert!(send(&mut s, 1, 1, ToNode::Launched { lease }).is_empty());
        assert_eq!(s.status().apps.iter().map(|a| a.reservations).sum::<u32>(), 2, "{policy:?}");

        let out = send(&mut s, 2, 1, ToNode::DropReservations);
        assert!(
            matches!(&out[..], [Action::Send { msg: FromNode::Error { what }, .. }] if what.contains("DropReservations")),
            "{out:?}"
        );
        let mut out = send(&mut s, 2, 9, ToNode::DropReservations);
        out.sort_by_key(|a| format!("{a:?}"));
        let refused = |job| Action::Send {
            conn: 9,
            msg: FromNode::PlaceRefused { app: "batch".into(), job, est_ms: 1e5, cpus: 1 },
        };
        let unqueued = |job| Action::Send { conn: 1, msg: FromNode::Unqueued { job, tasks: 1 } };
        assert_eq!(out, vec![unqueued(5), unqueued(6), refused(5), refused(6)], "{policy:?}");
        s.check().unwrap();
        assert_eq!(s.status().apps.iter().map(|a| a.reservations).sum::<u32>(), 0, "{policy:?}");
        assert_eq!(s.leased(), 1, "the granted long task runs on");

        // Its end frees the slot, reported as usual; nothing is granted after it.
        let out = run(&mut s, 3, 1, lease);
        assert!(grants(&out).is_empty(), "{out:?}");
        assert!(
            out.contains(&Action::Send {
                conn: 9,
                msg: FromNode::LongDone { app: "batch".into(), job: 5, est_ms: 1e5, cpus: 1 }
            }),
            "{out:?}"
        );
        assert_eq!(s.leased(), 0);
        s.check().unwrap();
    }
}

/// A 2-slot eagle-adaptive node kept busy by one-task short jobs of 100 ms arriving every
/// `every` ms, with a short job of nine 400 ms tasks queued at 10 ms: every task runs
/// exactly its estimate. Returns when each of the nine was granted (ms).
fn mid_job_under_a_stream(every: u64) -> Vec<u64> {
    const MID: u64 = 1_000_000;
    let mut s = node(Policy::EagleAdaptive, 2);
    join(&mut s, 1, Role::Driver, "interactive");
    let probe = |job, tasks, est_ms| ToNode::Probe { job, tasks, est_ms, cpus: 1 };
    // Running leases: (end, lease).
    let mut running: Vec<(u64, u64)> = Vec::new();
    let mut mid = Vec::new();
    let mut next_small = 1u64;
    let mut out = Vec::new();
    let mut now = 0;
    while mid.len() < 9 && now < 60_000 {
        for (_, lease, job, _) in grants(&out) {
            assert!(send(&mut s, now, 1, ToNode::Launched { lease }).is_empty());
            if job == MID {
                mid.push(now);
            }
            running.push((now + if job == MID { 400 } else { 100 }, lease));
        }
        // The next event: the mid job's probe, a small job's arrival, or a task end.
        let arrival = (next_small - 1) * every;
        let end = running.iter().map(|r| r.0).min().unwrap_or(u64::MAX);
        if mid.is_empty() && now < 10 && arrival > 10 && end >= 10 {
            now = 10;
            out = send(&mut s, now, 1, probe(MID, 9, 400.0));
        } else if arrival <= end {
            now = arrival;
            out = send(&mut s, now, 1, probe(next_small, 1, 100.0));
            next_small += 1;
        } else {
            now = end;
            let k = running.iter().position(|r| r.0 == end).unwrap();
            let (_, lease) = running.swap_remove(k);
            out = send(&mut s, now, 1, ToNode::TaskEnd { lease });
        }
    }
    mid
}

#[test]
fn eagle_adaptive_serves_the_end_of_a_starved_short_job_at_full_width() {
    // The smaller jobs have less remaining work, so SRPT serves them first, and at one every
    // 50-60 ms they keep both slots busy: after its first task (a free slot), the nine-task
    // job runs only under its starvation cap, which counts once it has waited `min_wait`
    // (1 s). Each grant restarts that floor while more than a floor of the host's slots of
    // its work is left (2 s here: five 400 ms tasks); then its last tasks go at once.
    // Restarting it at every grant served the job one launch a second: its ninth task
    // started at 8,210 ms (50 ms) and 8,010 ms (60 ms).
    for every in [50, 55, 60] {
        let mid = mid_job_under_a_stream(every);
        assert_eq!(mid.len(), 9, "all nine tasks ran: {mid:?}");
        let gaps: Vec<u64> = mid.windows(2).map(|w| w[1] - w[0]).collect();
        assert!(gaps[..3].iter().all(|&g| g >= 900), "smaller jobs pass it for about a second at a time: {mid:?}");
        assert!(gaps[3..].iter().all(|&g| g <= 400), "its last five tasks go as slots free: {mid:?}");
        assert!(mid[8] <= 4_500, "{mid:?}");
    }
    // With room between the small jobs, SRPT serves it there and the floor does not bind.
    let light = mid_job_under_a_stream(80);
    assert!(light.windows(2).all(|w| w[1] - w[0] <= 700), "{light:?}");
}

#[test]
fn eagle_adaptive_keeps_a_waiting_jobs_floor_when_it_probes_again() {
    // One slot, busy. Job 1 (a hundred 10 ms tasks) queues at 0; job 2 (one 60 ms task, less
    // remaining work) at 1.5 s. Its task is longer than 5 × job 1's, so once job 1 has
    // waited the floor (`min_wait`, 1 s) job 2 may not pass it. A second probe of job 1 at
    // 1.5 s (a driver's re-probe, or its local long share asked again) must not restart
    // job 1's wait: it restarted the floor, and job 2 passed.
    let mut s = node(Policy::EagleAdaptive, 1);
    join(&mut s, 1, Role::Driver, "a");
    let probe = |job, tasks, est_ms| ToNode::Probe { job, tasks, est_ms, cpus: 1 };
    let (_, busy, _, _) = one_grant(&send(&mut s, 0, 1, probe(100, 1, 10.0)));
    assert!(grants(&send(&mut s, 0, 1, probe(1, 100, 10.0))).is_empty());
    assert!(grants(&send(&mut s, 1500, 1, probe(1, 100, 10.0))).is_empty());
    assert!(grants(&send(&mut s, 1500, 1, probe(2, 1, 60.0))).is_empty());
    let (_, _, job, _) = one_grant(&run(&mut s, 1600, 1, busy));
    assert_eq!(job, 1, "job 1 has waited 1.6 s, past the floor");
}
