//! Tests of the central's state machine, driven by events: placement, the partitions, the
//! drivers' reports, and the nodes coming and going.

use super::*;
use eagle_wire::{NodeStatus, Peer};
use std::collections::BTreeSet;

mod headroom;
mod input;
mod restricted;

fn driver(s: &mut CentralState, conn: ConnId, app: &str) -> Vec<Action> {
    s.handle(Event::Connected { conn, peer: Peer { role: Role::Driver, app: app.into() } })
}

fn three_up(short_fraction: f64) -> CentralState {
    let hosts: Vec<(String, String)> = (0..3).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
    let (mut s, dials) = CentralState::new(&hosts, short_fraction);
    assert_eq!(dials.len(), 3, "one dial per --nodes entry");
    for h in 0..3 {
        s.handle(Event::Own(HostEvent::NodeUp { host: h }));
    }
    s
}

/// Four general hosts h0-h3 of 2 slots, up and sized, under `--long-headroom fraction`.
fn four_general(fraction: f64) -> CentralState {
    let hosts: Vec<(String, String)> = (0..4).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
    let (s, _) = CentralState::new(&hosts, 0.0);
    let mut s = s.with_long_headroom(fraction);
    for h in 0..4 {
        s.handle(Event::Own(HostEvent::NodeUp { host: h }));
        s.handle(Event::Own(HostEvent::FromNode { host: h, msg: FromNode::Status(NodeStatus::idle("eagle", 2)) }));
    }
    s
}

/// `SubmitLong` of `tasks` one-slot tasks of `est_ms`, anywhere, with no input.
fn long_job(job: u64, tasks: u32, est_ms: f64) -> ToCentral {
    ToCentral::SubmitLong { job, tasks, est_ms, cpus: 1, hosts: None, avoid: Vec::new(), input: Vec::new() }
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
        s.handle(Event::Message {
            conn,
            msg: ToCentral::Executors { hosts: hosts.iter().map(|h| h.to_string()).collect() },
        })
    };
    assert!(say(&mut s, 9, &["h2", "h0"]).is_empty());
    let out = s.handle(Event::Message { conn: 9, msg: long_job(1, 4, 100.0) });
    let on: BTreeSet<HostId> = placements(&out).iter().map(|x| x.0).collect();
    assert_eq!(on, BTreeSet::from([0, 2]), "LWL over a's hosts only, though h1 holds the least work");
    // b has not said: every host is a candidate, and LWL fills the idle one first.
    let out = s.handle(Event::Message { conn: 10, msg: long_job(1, 1, 100.0) });
    assert_eq!(placements(&out).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1]);
    // a's executors move: its next tasks follow them.
    say(&mut s, 9, &["h1"]);
    let out = s.handle(Event::Message { conn: 9, msg: long_job(2, 2, 100.0) });
    assert_eq!(placements(&out).iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 1]);
    // No executor left: nothing is placed, and the driver is told so (it places them itself).
    say(&mut s, 9, &[]);
    let out = s.handle(Event::Message { conn: 9, msg: long_job(3, 2, 100.0) });
    assert!(placements(&out).is_empty());
    assert!(
        out.iter().any(|a| matches!(
            a,
            Action::ToPeer { conn: 9, msg: FromCentral::Unplaced { job: 3, tasks: 2, host: None } }
        )),
        "{out:?}"
    );
    // Names the central does not know (IP addresses against host names, say): it cannot
    // tell where the executors are, and places as if it had not been told.
    say(&mut s, 9, &["10.0.0.1", "10.0.0.2"]);
    let out = s.handle(Event::Message { conn: 9, msg: long_job(5, 3, 1.0) });
    assert_eq!(placements(&out).len(), 3, "{out:?}");
    // A reconnecting driver starts again from every host.
    s.handle(Event::Disconnected { conn: 9 });
    driver(&mut s, 9, "a");
    let out = s.handle(Event::Message { conn: 9, msg: long_job(4, 3, 1.0) });
    assert_eq!(placements(&out).len(), 3);
    // Only drivers say where their executors are.
    let (node, _) = (77, s.handle(Event::Connected { conn: 77, peer: Peer { role: Role::Node, app: String::new() } }));
    let out = say(&mut s, node, &["h0"]);
    assert!(
        matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { what }, .. }] if what.contains("Executors")),
        "{out:?}"
    );
}

#[test]
fn lwl_over_the_general_partition_with_the_bitvector_piggybacked() {
    let mut s = three_up(0.34); // host 0 is short-only
    let hello = driver(&mut s, 9, "a");
    assert!(
        matches!(&hello[..], [Action::ToPeer { msg: FromCentral::Hosts { names }, .. },
                              Action::ToPeer { msg: FromCentral::ShortOnly { hosts }, .. }]
                 if names.len() == 3 && hosts == &[0]),
        "{hello:?}"
    );
    let out = s.handle(Event::Message { conn: 9, msg: long_job(1, 3, 100.0) });
    let p = placements(&out);
    assert_eq!(p.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 2, 2], "water-filling over hosts 1 and 2 only");
    let Some(Action::ToNode { msg: ToNode::Place { bitvector, .. }, .. }) = out.first() else { panic!() };
    assert!(!bitvector.bit(0) && bitvector.bit(1) && bitvector.bit(2), "the copy reflects this job's placements");
    assert!(out.contains(&Action::ToPeer { conn: 9, msg: FromCentral::Placed { job: 1, hosts: vec![1, 2, 2] } }));
    // Host 2 finishes both its tasks: it has the least work now.
    for _ in 0..2 {
        s.handle(Event::Own(HostEvent::FromNode {
            host: 2,
            msg: FromNode::LongDone { app: "a".into(), job: 1, est_ms: 100.0, cpus: 1 },
        }));
    }
    let out = s.handle(Event::Message { conn: 9, msg: long_job(2, 1, 10.0) });
    assert_eq!(placements(&out)[0], (2, 2), "least work left, and a fresher stamp");
    let st = s.status();
    assert_eq!(st.nodes.iter().map(|n| n.long_tasks).collect::<Vec<_>>(), vec![0, 1, 1]);
    assert!(!st.nodes[0].general && st.nodes[1].general);
}

#[test]
fn an_adaptive_short_partition_grows_with_the_drivers_short_load_and_shrinks_when_it_is_gone() {
    let mut s = eight_up(ShortPartition::Adaptive);
    driver(&mut s, 1, "interactive");
    driver(&mut s, 2, "batch");
    let long_hosts = |s: &mut CentralState, job: u64| -> BTreeSet<HostId> {
        let out = s.handle(Event::Message {
            conn: 2,
            msg: ToCentral::SubmitLong {
                job,
                tasks: 16,
                est_ms: 1000.0,
                cpus: 1,
                hosts: None,
                avoid: Vec::new(),
                input: Vec::new(),
            },
        });
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
        last.extend(told(&s.handle(Event::Own(HostEvent::NodeUp { host: h }))));
        let st = NodeStatus::idle("eagle", 2);
        last.extend(told(&s.handle(Event::Own(HostEvent::FromNode { host: h, msg: FromNode::Status(st) }))));
    }
    // The paper's share (one host of eight), as slots: one on each of hosts 0 and 1.
    assert_eq!(last, (0..8).map(|h| (h, u32::from(h < 2))).collect(), "every node told, once sized");
    driver(&mut s, 1, "interactive");
    driver(&mut s, 2, "batch");
    // Long work goes to every host, hosts 0 and 1 counted with one slot each; the
    // bitvector leaves them out, since they queue short probes beside long work.
    let out = s.handle(Event::Message { conn: 2, msg: long_job(1, 14, 1000.0) });
    let p = placements(&out);
    let on = |h: HostId| p.iter().filter(|x| x.0 == h).count();
    assert_eq!((on(0), on(1), on(2), on(7)), (1, 1, 2, 2), "{p:?}");
    let Some(Action::ToNode { msg: ToNode::Place { bitvector, .. }, .. }) =
        out.iter().find(|a| matches!(a, Action::ToNode { msg: ToNode::Place { .. }, .. }))
    else {
        panic!()
    };
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
    assert_eq!(told(&s.handle(Event::Own(HostEvent::NodeDown { host: 3 }))), BTreeMap::from([(6, 1)]));
    assert_eq!(told(&s.handle(Event::Own(HostEvent::NodeUp { host: 3 }))), BTreeMap::from([(3, 1), (6, 0)]));
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
            s.handle(Event::Own(HostEvent::NodeUp { host: h }));
            sized(s, h, 2);
        }
    };
    let on = |s: &mut CentralState, conn: ConnId, hosts: &[u32]| {
        s.handle(Event::Message {
            conn,
            msg: ToCentral::Executors { hosts: hosts.iter().map(|h| format!("h{h}")).collect() },
        })
    };
    let apps = |s: &mut CentralState| {
        for (conn, app, hosts) in
            [(1, "a", [0, 1, 2, 3]), (2, "b", [0, 1, 2, 3]), (3, "c", [4, 5, 6, 7]), (4, "d", [4, 5, 6, 7])]
        {
            driver(s, conn, app);
            on(s, conn, &hosts);
        }
    };
    let kept = |s: &mut CentralState| -> Vec<u32> { s.status().nodes.iter().map(|n| n.short_slots).collect() };
    let short_only = |s: &mut CentralState| -> Vec<String> {
        s.status().nodes.into_iter().filter(|n| !n.general).map(|n| n.name).collect()
    };

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
    let out = s.handle(Event::Message { conn: 3, msg: long_job(1, 4, 100.0) });
    assert!(placements(&out).iter().all(|x| x.0 == 7), "c's long work on its other host: {out:?}");
}

/// The short partition exists so that short work always finds a host free of long work
/// (§3.1). With applications on some hosts, the paper's share (one host of eight) is on
/// the hosts of one application pair only, and the other interactive application's short
/// jobs queue behind long work everywhere they can run: on the testbed (`eagle-adaptive/4`,
/// ratio 1.2, seed 1) every short job of 3 s or more was that application's, up to 31 s,
/// while the other's took at most 1.4 s. So every application that has run short work keeps
/// a short-only host (a kept slot under `slots`) among its own, up to half the hosts.
#[test]
fn every_application_with_short_work_keeps_a_short_only_host_among_its_own() {
    let start = |mode: ShortPartition, apps: &[(ConnId, Vec<u32>)]| {
        let mut s = eight_up(mode);
        for (conn, on) in apps {
            driver_on(&mut s, *conn, on);
        }
        s
    };
    let short = |s: &mut CentralState, conn: ConnId| {
        s.handle(Event::Message { conn, msg: ToCentral::ShortLoad { running: 1, waiting: 0 } });
        s.handle(Event::Message { conn, msg: ToCentral::ShortLoad { running: 0, waiting: 0 } });
    };
    let short_only = |s: &mut CentralState| -> Vec<String> {
        s.status().nodes.into_iter().filter(|n| !n.general).map(|n| n.name).collect()
    };
    let kept = |s: &mut CentralState| -> Vec<u32> {
        s.handle(Event::Tick);
        s.status().nodes.iter().map(|n| n.short_slots).collect()
    };
    let pairs = vec![(1, vec![0, 1, 2, 3]), (2, vec![0, 1, 2, 3]), (3, vec![4, 5, 6, 7]), (4, vec![4, 5, 6, 7])];

    // fixed: the paper's one host until short work shows up; then one host of each
    // application that ran some (1 and 3, the interactive ones), whatever their load.
    let mut s = start(ShortPartition::Fixed, &pairs);
    assert_eq!(short_only(&mut s), ["h0"]);
    short(&mut s, 1);
    assert_eq!(short_only(&mut s), ["h0"], "1's hosts hold the paper's host");
    short(&mut s, 3);
    assert_eq!(short_only(&mut s), ["h0", "h4"]);
    let out = s.handle(Event::Message { conn: 4, msg: long_job(1, 6, 100.0) });
    assert!(placements(&out).iter().all(|x| (5..8).contains(&x.0)), "4's long work stays off h4: {out:?}");
    // It goes: the paper's share again.
    s.handle(Event::Disconnected { conn: 3 });
    assert_eq!(short_only(&mut s), ["h0"]);

    // Never more than half the hosts: six interactive applications on a host each.
    let singles: Vec<(ConnId, Vec<u32>)> = (0..6).map(|i| (10 + i as ConnId, vec![i])).collect();
    let mut s = start(ShortPartition::Fixed, &singles);
    for conn in 10..16 {
        short(&mut s, conn);
    }
    assert_eq!(short_only(&mut s).len(), 4);

    // adaptive (whole hosts) and slots (kept slots): the same floor.
    let mut s = start(ShortPartition::Adaptive, &pairs);
    short(&mut s, 1);
    short(&mut s, 3);
    // Past the demand's 10 s window, within the minute a driver idle of short work counts.
    s.set_now(30.0);
    assert_eq!(short_only(&mut s), ["h0", "h4"]);
    let three = vec![(1, vec![0, 1]), (2, vec![2, 3]), (3, vec![4, 5]), (4, vec![6, 7])];
    let mut s = start(ShortPartition::Slots, &three);
    assert_eq!(kept(&mut s), [1, 0, 1, 0, 0, 0, 0, 0], "the floor: two slots, in cover order");
    for conn in 1..=3 {
        short(&mut s, conn);
    }
    s.set_now(30.0);
    assert_eq!(kept(&mut s), [1, 0, 1, 0, 1, 0, 0, 0], "a slot on the hosts of each of 1, 2, 3");
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
    assert!(
        matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { what }, .. }] if what.contains("ShortLoad"))
    );
}

#[test]
fn a_lost_host_drops_its_work_and_bit_and_gets_no_placements() {
    let mut s = three_up(0.0);
    driver(&mut s, 1, "a");
    s.handle(Event::Message { conn: 1, msg: long_job(1, 3, 5.0) });
    s.handle(Event::Own(HostEvent::NodeDown { host: 1 }));
    let st = s.status();
    assert_eq!(st.nodes[1].long_tasks, 0);
    assert!(!st.bitvector.bit(1));
    let out = s.handle(Event::Message { conn: 1, msg: long_job(2, 4, 5.0) });
    assert!(placements(&out).iter().all(|p| p.0 != 1));
}

#[test]
fn no_host_up_means_unplaced_and_refusals_are_forwarded() {
    let (mut s, _) = CentralState::new(&[("h0".into(), "x:1".into())], 0.0);
    driver(&mut s, 1, "a");
    let out = s.handle(Event::Message { conn: 1, msg: long_job(4, 2, 5.0) });
    assert_eq!(out, vec![Action::ToPeer { conn: 1, msg: FromCentral::Unplaced { job: 4, tasks: 2, host: None } }]);
    s.handle(Event::Own(HostEvent::NodeUp { host: 0 }));
    s.handle(Event::Message { conn: 1, msg: long_job(5, 1, 5.0) });
    let out = s.handle(Event::Own(HostEvent::FromNode {
        host: 0,
        msg: FromNode::PlaceRefused { app: "a".into(), job: 5, est_ms: 5.0, cpus: 1 },
    }));
    // The refusal names the host, so the driver stops counting the task as queued there.
    assert_eq!(out, vec![Action::ToPeer { conn: 1, msg: FromCentral::Unplaced { job: 5, tasks: 1, host: Some(0) } }]);
    assert_eq!(s.status().nodes[0].long_tasks, 0);
}

#[test]
fn registration_adds_a_host_once_and_tells_the_drivers() {
    let (mut s, _) = CentralState::new(&[], 0.0);
    driver(&mut s, 1, "a");
    s.handle(Event::Connected { conn: 2, peer: Peer { role: Role::Node, app: "n1".into() } });
    let out = s
        .handle(Event::Message { conn: 2, msg: ToCentral::Register { name: "n1".into(), addr: "127.0.0.1:9".into() } });
    assert!(out.contains(&Action::Dial { host: 0, addr: "127.0.0.1:9".into() }));
    assert!(out.contains(&Action::ToPeer { conn: 1, msg: FromCentral::Hosts { names: vec!["n1".into()] } }));
    let out = s
        .handle(Event::Message { conn: 2, msg: ToCentral::Register { name: "n1".into(), addr: "127.0.0.1:9".into() } });
    assert!(out.is_empty(), "known host: no second dial");
    let out = s.handle(Event::Message { conn: 1, msg: ToCentral::Register { name: "n2".into(), addr: "y:1".into() } });
    assert!(
        matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { .. }, .. }]),
        "drivers cannot register hosts"
    );
}

fn sized(s: &mut CentralState, host: HostId, slots: u32) {
    let st = NodeStatus::idle("eagle", slots);
    s.handle(Event::Own(HostEvent::FromNode { host, msg: FromNode::Status(st) }));
}

#[test]
fn a_node_coming_up_is_asked_its_size_and_wide_tasks_go_only_where_they_fit() {
    let hosts: Vec<(String, String)> = (0..3).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
    let (mut s, _) = CentralState::new(&hosts, 0.0);
    let out = s.handle(Event::Own(HostEvent::NodeUp { host: 0 }));
    assert_eq!(out, vec![Action::ToNode { host: 0, msg: ToNode::Status }], "the size comes with the node's status");
    s.handle(Event::Own(HostEvent::NodeUp { host: 1 }));
    s.handle(Event::Own(HostEvent::NodeUp { host: 2 }));
    sized(&mut s, 0, 1);
    sized(&mut s, 1, 4);
    sized(&mut s, 2, 2);
    driver(&mut s, 1, "a");
    let out = s.handle(Event::Message {
        conn: 1,
        msg: ToCentral::SubmitLong {
            job: 1,
            tasks: 3,
            est_ms: 10.0,
            cpus: 4,
            hosts: None,
            avoid: Vec::new(),
            input: Vec::new(),
        },
    });
    assert_eq!(placements(&out).iter().map(|p| p.0).collect::<Vec<_>>(), vec![1, 1, 1], "only h1 has 4 slots");
    assert!(
        out.iter().all(|a| !matches!(a, Action::ToNode { msg: ToNode::Place { cpus, .. }, .. } if *cpus != 4)),
        "placements carry the width"
    );
    // The work map counts slot-ms: 3 tasks x 10 ms x 4 slots.
    assert_eq!(s.status().nodes[1].work_ms, 120.0);
    s.handle(Event::Own(HostEvent::FromNode {
        host: 1,
        msg: FromNode::LongDone { app: "a".into(), job: 1, est_ms: 10.0, cpus: 4 },
    }));
    assert_eq!(s.status().nodes[1].work_ms, 80.0);
    let out = s.handle(Event::Message {
        conn: 1,
        msg: ToCentral::SubmitLong {
            job: 2,
            tasks: 1,
            est_ms: 10.0,
            cpus: 8,
            hosts: None,
            avoid: Vec::new(),
            input: Vec::new(),
        },
    });
    assert_eq!(
        out,
        vec![Action::ToPeer { conn: 1, msg: FromCentral::Unplaced { job: 2, tasks: 1, host: None } }],
        "no host has 8 slots"
    );
    let out = s.handle(Event::Message {
        conn: 1,
        msg: ToCentral::SubmitLong {
            job: 3,
            tasks: 1,
            est_ms: 10.0,
            cpus: 0,
            hosts: None,
            avoid: Vec::new(),
            input: Vec::new(),
        },
    });
    assert!(
        matches!(&out[..], [Action::ToPeer { msg: FromCentral::Error { what }, .. }] if what.contains("cpus")),
        "{out:?}"
    );
}

#[test]
fn under_lotes_narrow_long_work_keeps_off_the_host_planned_for_wide_work() {
    let hosts: Vec<(String, String)> = (0..2).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
    let (mut s, _) = CentralState::with_placement(&hosts, 0.0, Placement::Lotes, 3).unwrap();
    for (h, slots) in [(0, 4), (1, 1)] {
        s.handle(Event::Own(HostEvent::NodeUp { host: h }));
        sized(&mut s, h, slots);
    }
    driver(&mut s, 1, "batch");
    driver(&mut s, 2, "etl");
    let wide = s.handle(Event::Message {
        conn: 1,
        msg: ToCentral::SubmitLong {
            job: 1,
            tasks: 2,
            est_ms: 60_000.0,
            cpus: 4,
            hosts: None,
            avoid: Vec::new(),
            input: Vec::new(),
        },
    });
    assert!(placements(&wide).iter().all(|p| p.0 == 0));
    let narrow = s.handle(Event::Message { conn: 2, msg: long_job(1, 4, 60_000.0) });
    assert_eq!(
        placements(&narrow).iter().map(|p| p.0).collect::<Vec<_>>(),
        vec![1; 4],
        "LoTES keeps h0 for the wide class"
    );
    // Plain LWL would have put narrow work on the big host (it has 4x the slots).
    let (mut l, _) = CentralState::new(&hosts, 0.0);
    for (h, slots) in [(0, 4), (1, 1)] {
        l.handle(Event::Own(HostEvent::NodeUp { host: h }));
        sized(&mut l, h, slots);
    }
    driver(&mut l, 2, "etl");
    let out = l.handle(Event::Message { conn: 2, msg: long_job(1, 4, 60_000.0) });
    assert!(placements(&out).iter().any(|p| p.0 == 0));
}

#[test]
fn an_application_idle_of_short_work_for_a_minute_no_longer_holds_a_short_only_host() {
    let mut s = eight_up(ShortPartition::Fixed);
    for (conn, on) in [(1, [0, 1, 2, 3]), (2, [0, 1, 2, 3]), (3, [4, 5, 6, 7]), (4, [4, 5, 6, 7])] {
        driver_on(&mut s, conn, &on);
    }
    let load = |s: &mut CentralState, conn: ConnId, running: u32| {
        s.handle(Event::Message { conn, msg: ToCentral::ShortLoad { running, waiting: 0 } });
    };
    let short_only = |s: &mut CentralState| -> Vec<String> {
        s.status().nodes.into_iter().filter(|n| !n.general).map(|n| n.name).collect()
    };
    load(&mut s, 1, 1);
    load(&mut s, 3, 1);
    assert_eq!(short_only(&mut s), ["h0", "h4"]);
    // 3's short work ends at 10 s; 1's goes on.
    s.set_now(10.0);
    load(&mut s, 3, 0);
    s.set_now(69.0);
    assert_eq!(short_only(&mut s), ["h0", "h4"], "idle for less than a minute: 3 still counts");
    s.set_now(71.0);
    assert_eq!(short_only(&mut s), ["h0"], "3 has had no short work for a minute");
    let out = s.handle(Event::Message { conn: 4, msg: long_job(1, 4, 100.0) });
    assert!(placements(&out).iter().any(|x| x.0 == 4), "h4 takes long work again: {out:?}");
    // Short work again: its host comes back at once, and stays while the work runs.
    load(&mut s, 3, 2);
    assert_eq!(short_only(&mut s), ["h0", "h4"]);
    s.set_now(500.0);
    assert_eq!(short_only(&mut s), ["h0", "h4"], "running short work never expires");
}

/// Eight hosts `h0`..`h7` of 2 slots, all up, a 10 % share kept for short work under `mode`.
fn eight_up(mode: ShortPartition) -> CentralState {
    let hosts: Vec<(String, String)> = (0..8).map(|i| (format!("h{i}"), format!("10.0.0.{i}:7000"))).collect();
    let (s, _) = CentralState::new(&hosts, 0.1);
    let mut s = s.with_short_partition(mode);
    for h in 0..8 {
        s.handle(Event::Own(HostEvent::NodeUp { host: h }));
        sized(&mut s, h, 2);
    }
    s
}

/// Driver `conn` (application `app{conn}`) connects, with executors on hosts `on`.
fn driver_on(s: &mut CentralState, conn: ConnId, on: &[u32]) {
    driver(s, conn, &format!("app{conn}"));
    s.handle(Event::Message {
        conn,
        msg: ToCentral::Executors { hosts: on.iter().map(|h| format!("h{h}")).collect() },
    });
}

/// Long tasks placed on a host that then leaves the general partition would keep it from
/// short work until they had all run there: the central asks its node to hand back the
/// ones still queued (`DropReservations`; each comes back as `PlaceRefused`, then
/// `Unplaced` to its driver, which submits it again), once per move, and never asks a host
/// without long work or a general one.
#[test]
fn a_host_leaving_the_general_partition_is_asked_to_hand_back_its_queued_long_work() {
    let mut s = eight_up(ShortPartition::Fixed);
    for (conn, on) in [(1, [0, 1, 2, 3]), (2, [0, 1, 2, 3]), (3, [4, 5, 6, 7]), (4, [4, 5, 6, 7])] {
        driver_on(&mut s, conn, &on);
    }
    let drops = |out: &[Action]| -> Vec<HostId> {
        out.iter()
            .filter_map(|a| match a {
                Action::ToNode { host, msg: ToNode::DropReservations } => Some(*host),
                _ => None,
            })
            .collect()
    };
    // Only h0 is short-only: 4's long work fills h4-h7, two tasks a host.
    let out = s.handle(Event::Message { conn: 4, msg: long_job(1, 8, 100.0) });
    assert!(placements(&out).iter().filter(|x| x.0 == 4).count() == 2, "{out:?}");
    assert!(drops(&out).is_empty());
    // 3 reports short work: h4, one of its hosts, leaves the general partition.
    let out = s.handle(Event::Message { conn: 3, msg: ToCentral::ShortLoad { running: 1, waiting: 0 } });
    assert_eq!(drops(&out), vec![4], "{out:?}");
    let out = s.handle(Event::Message { conn: 3, msg: ToCentral::ShortLoad { running: 2, waiting: 0 } });
    assert!(drops(&out).is_empty(), "asked once per move: {out:?}");
    // The node hands back one queued task (the other runs on): it is over here, and its
    // driver is told where it was refused.
    let out = s.handle(Event::Own(HostEvent::FromNode {
        host: 4,
        msg: FromNode::PlaceRefused { app: "app4".into(), job: 1, est_ms: 100.0, cpus: 1 },
    }));
    assert_eq!(out, vec![Action::ToPeer { conn: 4, msg: FromCentral::Unplaced { job: 1, tasks: 1, host: Some(4) } }]);
    assert_eq!(s.status().nodes[4].long_tasks, 1);
    // 1 reports short work: h0 already holds its short-only host, nothing moves.
    let out = s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 1, waiting: 0 } });
    assert!(drops(&out).is_empty(), "{out:?}");
}

/// An adaptive partition grows to the short demand only as far as leaves each application
/// with long work (placed and not over, or asked for in the last minute) a general host of
/// its own. Without the bound it grows onto every host of a batch application that shares
/// its hosts with an interactive one, and every long task of the batch application comes
/// back `Unplaced`.
#[test]
fn a_grown_partition_leaves_each_application_with_long_work_a_general_host() {
    let mut s = eight_up(ShortPartition::Adaptive);
    driver_on(&mut s, 1, &[0, 1]);
    driver_on(&mut s, 2, &[0, 1]);
    driver_on(&mut s, 3, &[2, 3, 4, 5, 6, 7]);
    let submit = |s: &mut CentralState, conn: ConnId, job: u64| {
        let out = s.handle(Event::Message {
            conn,
            msg: ToCentral::SubmitLong {
                job,
                tasks: 2,
                est_ms: 1000.0,
                cpus: 1,
                hosts: None,
                avoid: Vec::new(),
                input: Vec::new(),
            },
        });
        placements(&out).into_iter().map(|p| p.0).collect::<BTreeSet<HostId>>()
    };
    assert_eq!(submit(&mut s, 2, 1), [1].into(), "the fixed share: h0 short-only");
    // The interactive application's demand would take half the hosts, h0 and h1 first.
    s.set_now(1.0);
    s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 2, waiting: 20 } });
    s.set_now(4.0);
    assert_eq!(submit(&mut s, 2, 2), [1].into(), "h1 stays general for the batch application");
    assert_eq!(s.status().nodes.iter().filter(|n| !n.general).count(), 1);
    // A minute on, its four tasks are still placed on h1 (a long stage outlasts the
    // minute): h1 stays general (else its queued ones would come back).
    s.set_now(70.0);
    s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 2, waiting: 21 } });
    submit(&mut s, 3, 3);
    assert!(s.status().nodes[1].general, "h1 keeps the batch application's long work");
    // Once they are over and it has asked for no long work for a minute, the partition grows.
    for job in [1, 1, 2, 2] {
        s.handle(Event::Own(HostEvent::FromNode {
            host: 1,
            msg: FromNode::LongDone { app: "app2".into(), job, est_ms: 1000.0, cpus: 1 },
        }));
    }
    s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 2, waiting: 22 } });
    let placed = submit(&mut s, 3, 4);
    assert!(!s.status().nodes[1].general, "h1 short-only now");
    assert!(placed.iter().all(|&h| h >= 2), "{placed:?}");
}

/// The bound leaves each application with long work half its hosts, rounded up, as general
/// hosts, as the fixed layout does at the bench's placement: a batch application on the four
/// hosts of two busy interactive ones would otherwise keep only one of them, and its long
/// jobs take twice as long as under the fixed layout (docs/results.md).
#[test]
fn a_grown_partition_leaves_each_application_with_long_work_half_its_hosts() {
    let mut s = eight_up(ShortPartition::Adaptive);
    driver_on(&mut s, 1, &[0, 1]);
    driver_on(&mut s, 2, &[2, 3]);
    driver_on(&mut s, 3, &[0, 1, 2, 3]);
    driver_on(&mut s, 4, &[4, 5, 6, 7]);
    s.set_now(1.0);
    for conn in [1, 2] {
        s.handle(Event::Message { conn, msg: ToCentral::ShortLoad { running: 4, waiting: 40 } });
    }
    s.set_now(4.0);
    let out = s.handle(Event::Message { conn: 3, msg: long_job(1, 4, 1000.0) });
    let on: BTreeSet<HostId> = placements(&out).into_iter().map(|p| p.0).collect();
    let general: Vec<usize> = (0..4).filter(|&h| s.status().nodes[h].general).collect();
    assert_eq!(general.len(), 2, "two of the batch application's four hosts stay general: {general:?}");
    assert_eq!(on.len(), 2, "its tasks go to both: {on:?}");
    assert!(on.iter().all(|&h| general.contains(&(h as usize))), "{on:?} on {general:?}");
}

/// `share` caps the grown partition at the short class's part of all the tasks running and
/// waiting: with every application on every host and both classes queueing, `adaptive`
/// gives short work half the hosts (docs/results.md: long p50 2.6x the fixed
/// layout's); `share` gives it its part, and the whole demand again once long work
/// is over.
#[test]
fn a_share_partition_takes_only_the_short_part_of_the_demand_while_long_work_waits() {
    // (short-only hosts while the long tasks queue, the short slots `Status` reports then,
    // short-only hosts once they are over)
    let short_only = |mode: ShortPartition, long_tasks: u32| -> (usize, u32, usize) {
        let mut s = eight_up(mode);
        driver(&mut s, 1, "app1");
        driver(&mut s, 2, "app2");
        s.set_now(1.0);
        s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 4, waiting: 40 } });
        s.set_now(4.0);
        let out = s.handle(Event::Message { conn: 2, msg: long_job(1, long_tasks, 1000.0) });
        let placed = placements(&out);
        assert_eq!(placed.len(), long_tasks as usize, "{out:?}");
        s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 4, waiting: 41 } });
        let st = s.status();
        let queued = (st.nodes.iter().filter(|n| !n.general).count(), st.short_slots);
        for (host, _) in placed {
            s.handle(Event::Own(HostEvent::FromNode {
                host,
                msg: FromNode::LongDone { app: "app2".into(), job: 1, est_ms: 1000.0, cpus: 1 },
            }));
        }
        s.handle(Event::Message { conn: 1, msg: ToCentral::ShortLoad { running: 4, waiting: 42 } });
        (queued.0, queued.1, s.status().nodes.iter().filter(|n| !n.general).count())
    };
    // 40 long tasks queued beside 8 slots of short demand on 16 slots: 3 slots, 2 hosts.
    assert_eq!(short_only(ShortPartition::Share, 40), (2, 3, 4));
    // The flat cap of half the slots, for the same load.
    assert_eq!(short_only(ShortPartition::Adaptive, 40), (4, 8, 4));
    // A little long work leaves the short demand as it was.
    assert_eq!(short_only(ShortPartition::Share, 1), (4, 8, 4));
}

/// A driver learns the short-only hosts after the host list, and again whenever they
/// change: a long task set of its cannot run there, so its tasks whose input is there do not
/// wait for that locality (the driver's side: eagle-client's `grants`).
#[test]
fn every_driver_is_told_the_short_only_hosts_when_they_change() {
    let mut s = three_up(0.34);
    driver(&mut s, 1, "a");
    let short_only = |out: &[Action]| -> Vec<(ConnId, Vec<u32>)> {
        out.iter()
            .filter_map(|a| match a {
                Action::ToPeer { conn, msg: FromCentral::ShortOnly { hosts } } => Some((*conn, hosts.clone())),
                _ => None,
            })
            .collect()
    };
    assert_eq!(short_only(&driver(&mut s, 2, "b")), vec![(2, vec![0])]);
    assert!(short_only(&s.handle(Event::Tick)).is_empty(), "told once per change");
    // Host 0 goes: the next live host in the order is the short-only one, for both drivers.
    let out = s.handle(Event::Own(HostEvent::NodeDown { host: 0 }));
    let told = short_only(&out);
    assert_eq!(told.len(), 2, "{out:?}");
    assert!(told.iter().all(|(_, h)| h.len() == 1 && h[0] != 0), "{told:?}");
    // With no short partition there is none to tell.
    let mut none = three_up(0.0);
    assert_eq!(short_only(&driver(&mut none, 1, "a")), vec![(1, vec![])]);
}
