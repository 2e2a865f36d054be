//! eagle-adaptive's steal from the short partition: a general host whose slot frees asks its
//! peers for the short probes waiting there before it serves its next long task, and a
//! peer hands out copies of the short probes it cannot serve now (the probes stay).

mod common;

use common::*;
use eagle_node::{Action, Event, NodeState, Policy, StealDone, STEAL_WAIT_MS};
use eagle_wire::{Bitvector, Role, StolenProbe, ToNode};

fn place(s: &mut NodeState, now: u64, job: u64) -> Vec<Action> {
    let bitvector = Bitvector::default();
    send(s, now, 9, ToNode::Place { app: "batch".into(), job, est_ms: 5_000.0, bitvector, cpus: 1 })
}

fn steals(out: &[Action]) -> Vec<&Action> {
    out.iter().filter(|a| matches!(a, Action::Steal { .. })).collect()
}

/// A general host of one slot: a long task runs, and another of the same job is queued.
fn general_host(policy: Policy) -> (NodeState, u64) {
    let mut s = node(policy, 1);
    join(&mut s, 1, Role::Driver, "batch");
    join(&mut s, 2, Role::Driver, "interactive");
    join(&mut s, 9, Role::Central, "central");
    let (_, lease, _, _) = one_grant(&place(&mut s, 0, 5));
    assert!(grants(&place(&mut s, 0, 5)).is_empty());
    (s, lease)
}

fn waiting_probe() -> StolenProbe {
    StolenProbe { app: "interactive".into(), job: 7, tasks: 2, est_ms: 20.0, cpus: 1 }
}

#[test]
fn a_long_task_ending_asks_peers_for_waiting_short_work_before_the_next_long_task() {
    let (mut s, lease) = general_host(Policy::EagleAdaptive);
    let out = run_raw(&mut s, 3_000, 1, lease);
    assert!(grants(&out).is_empty(), "the next long task waits for the steal: {out:?}");
    let st = steals(&out);
    assert_eq!(st.len(), 1, "{out:?}");
    assert!(
        matches!(st[0], Action::Steal { apps, limit: 1, each_once: true, .. } if apps.len() == 2),
        "one free slot: one probe"
    );
    // A short probe waits on the short partition: it gets the freed slot, once.
    let out = s.handle(3_001, Event::Own(StealDone { probes: vec![waiting_probe()] }));
    s.check().unwrap();
    let (conn, short, job, long) = one_grant(&out);
    assert_eq!((conn, job, long), (2, 7, false));
    // Its task ends: the next steal finds nothing, and the long task runs. (No hold keeps
    // the slot: the job's own probes go elsewhere.)
    let out = run_raw(&mut s, 3_050, 2, short);
    assert_eq!(steals(&out).len(), 1, "{out:?}");
    assert!(grants(&s.handle(3_051, Event::Tick)).is_empty(), "the slot waits for the steal's answer");
    let out = s.handle(3_052, Event::Own(StealDone { probes: Vec::new() }));
    s.check().unwrap();
    assert_eq!(one_grant(&out).2, 5);
}

#[test]
fn a_slot_handed_back_unused_or_a_starved_long_task_does_not_steal() {
    let (mut s, lease) = general_host(Policy::EagleAdaptive);
    run_raw(&mut s, 3_000, 1, lease);
    let out = s.handle(3_001, Event::Own(StealDone { probes: vec![waiting_probe()] }));
    let (_, short, _, _) = one_grant(&out);
    // The driver had launched the job's tasks elsewhere meanwhile: the grant comes back.
    let out = send(&mut s, 3_002, 2, ToNode::NoTask { lease: short });
    assert!(steals(&out).is_empty(), "a grant handed back unused steals again: {out:?}");
    assert_eq!(one_grant(&out).2, 5, "the long task runs at once");

    // A steal that is never answered keeps the slot free at most STEAL_WAIT_MS.
    let (mut s, lease) = general_host(Policy::EagleAdaptive);
    assert_eq!(steals(&run_raw(&mut s, 3_000, 1, lease)).len(), 1);
    assert!(grants(&s.handle(3_000 + STEAL_WAIT_MS - 1, Event::Tick)).is_empty());
    assert_eq!(one_grant(&s.handle(3_000 + STEAL_WAIT_MS, Event::Tick)).2, 5);

    // Stolen short work keeps passing the queued long entry, which is charged its estimate
    // each time; once past its starvation cap, the long entry is served without asking.
    let (mut s, lease) = general_host(Policy::EagleAdaptive);
    let mut out = run_raw(&mut s, 3_000, 1, lease);
    let mut shorts = 0;
    loop {
        assert_eq!(steals(&out).len(), 1, "{out:?}");
        let probe = StolenProbe { job: 100 + shorts, tasks: 1, est_ms: 2_000.0, ..waiting_probe() };
        let (_, l, _, long) = one_grant(&s.handle(3_001 + shorts, Event::Own(StealDone { probes: vec![probe] })));
        assert!(!long);
        shorts += 1;
        out = run_raw(&mut s, 3_002 + shorts, 2, l);
        if let Some(&(_, _, job, long)) = grants(&out).first() {
            assert!(long && job == 5 && steals(&out).is_empty(), "{out:?}");
            break;
        }
        assert!(shorts < 100, "the long entry never got its turn");
    }
    // 5 x 5 s of delay in 2 s grants.
    assert_eq!(shorts, 13);
}

#[test]
fn a_peer_hands_out_copies_of_the_short_probes_it_cannot_serve_now() {
    // A short-only host of one slot: job 1's task runs, jobs 1 (sticky) and 2 wait.
    let mut s = node(Policy::EagleAdaptive, 1);
    join(&mut s, 2, Role::Driver, "interactive");
    join(&mut s, 3, Role::Driver, "other");
    join(&mut s, 50, Role::Node, "peer");
    one_grant(&send(&mut s, 0, 2, ToNode::Probe { job: 1, tasks: 3, est_ms: 20.0, cpus: 1 }));
    assert!(grants(&send(&mut s, 0, 2, ToNode::Probe { job: 2, tasks: 1, est_ms: 20.0, cpus: 1 })).is_empty());
    assert!(grants(&send(&mut s, 0, 3, ToNode::Probe { job: 4, tasks: 1, est_ms: 20.0, cpus: 1 })).is_empty());
    let before = s.status();
    let out = send(&mut s, 1, 50, ToNode::Steal { limit: 10, apps: vec!["interactive".into()] });
    let [Action::Send { conn: 50, msg: eagle_wire::FromNode::Stolen { probes } }] = &out[..] else { panic!("{out:?}") };
    let mut got: Vec<(u64, u32)> = probes.iter().map(|p| (p.job, p.tasks)).collect();
    got.sort();
    assert_eq!(got, vec![(1, 2), (2, 1)], "the thief's application's waiting jobs, with their tasks left");
    // Asked for one (the thief's free slots): the least remaining work, as this node would serve.
    let out = send(&mut s, 1, 50, ToNode::Steal { limit: 1, apps: vec!["interactive".into()] });
    let [Action::Send { msg: eagle_wire::FromNode::Stolen { probes }, .. }] = &out[..] else { panic!("{out:?}") };
    assert_eq!(probes.iter().map(|p| p.job).collect::<Vec<_>>(), vec![2]);
    let after = s.status();
    let probes_of = |st: &eagle_wire::NodeStatus| st.apps.iter().map(|r| (r.app.clone(), r.probes)).collect::<Vec<_>>();
    assert_eq!(probes_of(&before), probes_of(&after), "the probes stay: the first slot to free serves them");
}

#[test]
fn the_paper_eagle_and_hawk_keep_their_published_rules() {
    // Eagle as published: the long task runs at once, nothing is asked.
    let (mut s, lease) = general_host(Policy::Eagle);
    let out = run_raw(&mut s, 3_000, 1, lease);
    assert!(steals(&out).is_empty());
    assert_eq!(one_grant(&out).2, 5);
    // Hawk: a node with queued work does not steal; the long task runs.
    let (mut s, lease) = general_host(Policy::Hawk);
    let out = run_raw(&mut s, 3_000, 1, lease);
    assert!(steals(&out).is_empty());
    assert_eq!(one_grant(&out).2, 5);
}

#[test]
fn stolen_work_past_its_budget_leaves_the_slots_to_long_work_until_the_window_moves_on() {
    // One slot: the budget is 5 % of 60 slot-seconds, 3 s of stolen work per minute.
    let (mut s, mut lease) = general_host(Policy::EagleAdaptive);
    for _ in 0..5 {
        place(&mut s, 0, 5);
    }
    let (mut now, mut stolen) = (1_000, 0);
    let mut out = run_raw(&mut s, now, 1, lease);
    // A long task ends and the node asks its peers, while the budget lasts.
    while !steals(&out).is_empty() {
        let probe = StolenProbe { job: 200 + stolen, tasks: 1, ..waiting_probe() };
        let (_, l, _, _) = one_grant(&s.handle(now, Event::Own(StealDone { probes: vec![probe] })));
        stolen += 1;
        // Each stolen task holds the slot 1 s: the long work has been passed for `min_wait`,
        // so the next long task runs at once, without asking.
        now += 1_000;
        out = run_raw(&mut s, now, 2, l);
        let (_, l, job, long) = one_grant(&out);
        assert!(long && job == 5 && steals(&out).is_empty(), "{out:?}");
        now += 1;
        out = run_raw(&mut s, now, 1, l);
        assert!(stolen < 10, "the budget never ran out");
    }
    assert_eq!(stolen, 3, "3 s of stolen work");
    let (_, l, job, long) = one_grant(&out);
    assert!(long && job == 5, "past the budget the long task runs without asking");
    lease = l;
    // Keep the drivers and the central heard from, then let the window pass: asking resumes.
    now += 70_000;
    for conn in [1, 2, 9] {
        send(&mut s, now - 1, conn, ToNode::Ping);
    }
    let out = run_raw(&mut s, now, 1, lease);
    assert_eq!(steals(&out).len(), 1, "{out:?}");
}

#[test]
fn stolen_short_work_passes_a_waiting_long_task_for_at_most_min_wait() {
    // Within the budget (3 s of slot-time a minute), stolen tasks of 0.5-0.6 s keep the one
    // slot while a long task waits; once short work has passed it for `min_wait` (1 s) of
    // wall time, the long task takes the next slot without asking.
    let (mut s, lease) = general_host(Policy::EagleAdaptive);
    assert_eq!(steals(&run_raw(&mut s, 3_000, 1, lease)).len(), 1);
    let probe = |job| StolenProbe { job, tasks: 1, ..waiting_probe() };
    let (_, first, _, _) = one_grant(&s.handle(3_001, Event::Own(StealDone { probes: vec![probe(7)] })));
    let out = run_raw(&mut s, 3_600, 2, first);
    assert_eq!(steals(&out).len(), 1, "passed for 0.6 s: asking again: {out:?}");
    let (_, second, _, _) = one_grant(&s.handle(3_601, Event::Own(StealDone { probes: vec![probe(8)] })));
    let out = run_raw(&mut s, 4_100, 2, second);
    assert!(steals(&out).is_empty(), "passed for 1.1 s: no more asking: {out:?}");
    let (_, _, job, long) = one_grant(&out);
    assert!(long && job == 5);
}

#[test]
fn a_steal_fraction_of_zero_turns_the_steal_off() {
    let (mut s, lease) = general_host(Policy::EagleAdaptive);
    s.set_steal_fraction(0.0);
    let out = run_raw(&mut s, 3_000, 1, lease);
    assert!(steals(&out).is_empty(), "{out:?}");
    assert_eq!(one_grant(&out).2, 5);
}
