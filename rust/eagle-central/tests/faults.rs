//! Cluster mode's faults at process level: the real `eagle-node` and
//! `eagle-central` binaries on 127.0.0.1 (ephemeral ports), killed with SIGKILL and
//! restarted on the same port, and fake drivers written against `eagle-wire`.
//!
//! * a node daemon dies mid-run: its driver sees the link drop, the tasks it ran
//!   there finish on their own, no grant comes from that host while it is down, and
//!   after the restart the driver registers again and gets grants from it;
//! * the central dies: placing long work fails at once with an error naming the
//!   central's address (the driver's cue to fall back to LWL over its own executors),
//!   the long work already placed runs to the end, and after the restart placements
//!   work again;
//! * a driver dies (sockets dropped) and another hangs (silent, sockets open): their
//!   probes, reservations and leases leave every daemon (within the lease time for the
//!   silent one), a third driver gets every slot, and at the end no daemon holds a lease.
//!
//! No timing is asserted: every wait polls with a generous bound.

mod support;

use eagle_wire::client::{central_status, node_status};
use eagle_wire::{FromCentral, FromNode, ToCentral, ToNode};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use support::*;

const Q: Duration = Duration::from_secs(10);

fn node_args(scratch: &Scratch, slots: u32, lease_ms: u64) -> Vec<String> {
    let s = |x: &str| x.to_string();
    vec![
        s("--slots"),
        slots.to_string(),
        s("--lease-ms"),
        lease_ms.to_string(),
        s("--secret-file"),
        scratch.secret_file.display().to_string(),
    ]
}

fn central_args(scratch: &Scratch, nodes: &[&Daemon]) -> Vec<String> {
    let list: Vec<String> = nodes.iter().map(|d| format!("{}={}", d.name, d.addr)).collect();
    vec![
        "--nodes".into(),
        list.join(","),
        "--short-fraction".into(),
        "0".into(),
        "--ping-ms".into(),
        "200".into(),
        "--secret-file".into(),
        scratch.secret_file.display().to_string(),
    ]
}

/// Waits until every daemon reports no lease and nothing queued, and the central
/// (if any) no long task.
fn all_quiet(nodes: &[&Daemon], central: Option<&Daemon>) {
    for n in nodes {
        eventually(&format!("{} to hold nothing", n.name), || match node_status(&n.addr, SECRET, Q) {
            Ok(st) if st.leased == 0 && st.apps.is_empty() => Ok(()),
            other => Err(other),
        });
    }
    if let Some(c) = central {
        eventually("the central to count no long task", || match central_status(&c.addr, SECRET, Q) {
            Ok(st) if st.nodes.iter().all(|n| n.long_tasks == 0) => Ok(()),
            other => Err(other),
        });
    }
}

/// `Unplaced`: a node refused a placement (it has no link from this driver). A driver
/// places those tasks again; returns how many.
fn resubmit(d: &mut FakeDriver, job: u64, tasks: u32) -> usize {
    d.send_central(&long_job(job, tasks, 100.0));
    tasks as usize
}

/// `SubmitLong` of `tasks` one-slot tasks of `est_ms`, anywhere, with no input.
fn long_job(job: u64, tasks: u32, est_ms: f64) -> ToCentral {
    ToCentral::SubmitLong { job, tasks, est_ms, cpus: 1, hosts: None, avoid: Vec::new(), input: Vec::new() }
}

fn central_linked(c: &Daemon, n: usize) {
    eventually("the central to link every node", || match central_status(&c.addr, SECRET, Q) {
        Ok(st) if st.nodes.len() == n && st.nodes.iter().all(|h| h.connected) => Ok(()),
        other => Err(other),
    });
}

/// Task bookkeeping of a fake driver's jobs: each task is launched at most once.
#[derive(Default)]
struct Tasks {
    /// job → tasks not launched yet
    left: BTreeMap<u64, u32>,
    /// (job, task) → the node it ran on
    ran: BTreeMap<(u64, u32), usize>,
    /// lease → (node, job, task) running now
    running: BTreeMap<(usize, u64), (u64, u32)>,
}

impl Tasks {
    fn submit(&mut self, job: u64, tasks: u32) {
        self.left.insert(job, tasks);
    }
    /// A grant: launch the next task of `job`, or answer `NoTask`.
    fn on_grant(&mut self, d: &mut FakeDriver, node: usize, lease: u64, job: u64) {
        let Some(left) = self.left.get_mut(&job).filter(|n| **n > 0) else {
            d.send_node(node, &ToNode::NoTask { lease });
            return;
        };
        *left -= 1;
        let task = self.ran.keys().filter(|(j, _)| *j == job).count() as u32;
        assert!(self.ran.insert((job, task), node).is_none(), "task {job}.{task} launched twice");
        self.running.insert((node, lease), (job, task));
        d.send_node(node, &ToNode::Launched { lease });
    }
    /// Ends every running task on `node` (reporting it, when the link is up).
    fn end_on(&mut self, d: &mut FakeDriver, node: usize) -> usize {
        let leases: Vec<(usize, u64)> = self.running.keys().filter(|(n, _)| *n == node).copied().collect();
        for k in &leases {
            self.running.remove(k);
            d.send_node(node, &ToNode::TaskEnd { lease: k.1 });
        }
        leases.len()
    }
    fn running_on(&self, node: usize) -> usize {
        self.running.keys().filter(|(n, _)| *n == node).count()
    }
    fn done(&self, job: u64) -> bool {
        self.left.get(&job) == Some(&0) && !self.running.values().any(|(j, _)| *j == job)
    }
    fn ran_on(&self, job: u64) -> BTreeSet<usize> {
        self.ran.iter().filter(|((j, _), _)| *j == job).map(|(_, &n)| n).collect()
    }
}

#[test]
fn a_killed_node_stops_granting_its_driver_goes_on_and_registers_again_after_the_restart() {
    let scratch = Scratch::new("node");
    let node = node_bin();
    let mut nodes = [
        Daemon::start("n0", &node, &node_args(&scratch, 2, 2000)),
        Daemon::start("n1", &node, &node_args(&scratch, 2, 2000)),
    ];
    let addrs: Vec<String> = nodes.iter().map(|n| n.addr.clone()).collect();
    let mut d = FakeDriver::new("app", &addrs, "127.0.0.1:9");
    let mut t = Tasks::default();
    d.connect_node(0).unwrap();
    d.connect_node(1).unwrap();

    // Job 1, 8 tasks: its sticky probe on each node takes both slots there.
    t.submit(1, 8);
    for i in 0..2 {
        d.send_node(i, &ToNode::Probe { job: 1, tasks: 8, est_ms: 10.0, cpus: 1 });
    }
    d.wait_for("four tasks running, two per node", |d, ev| {
        if let Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } = ev {
            t.on_grant(d, node, lease, job);
        }
        (t.running_on(0) == 2 && t.running_on(1) == 2).then_some(())
    });

    // n0 dies with two of the driver's tasks running there.
    nodes[0].kill();
    d.wait_for("the link to n0 to drop", |_, ev| matches!(ev, Ev::NodeClosed { node: 0, .. }).then_some(()));
    assert!(!d.node_up(0));
    // Those tasks are the executor's: they finish on their own (nothing to report to).
    assert_eq!(t.end_on(&mut d, 0), 2);
    let err = d.connect_node(0).expect_err("n0 is down").to_string();
    assert!(err.contains(&nodes[0].addr) && err.contains("connect"), "the error names the host and the step: {err}");

    // The rest of job 1 runs on n1 alone, as n1 frees its slots.
    let mut grants_after_kill = BTreeSet::new();
    loop {
        t.end_on(&mut d, 1);
        if t.done(1) {
            break;
        }
        d.wait_for("a grant of job 1", |d, ev| match ev {
            Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } => {
                grants_after_kill.insert(node);
                t.on_grant(d, node, lease, job);
                Some(())
            }
            _ => None,
        });
    }
    assert_eq!(grants_after_kill, BTreeSet::from([1]), "no grant from the dead host");
    assert_eq!(t.ran.len(), 8, "every task of job 1 ran once: {:?}", t.ran);
    for i in 0..2 {
        d.send_node(i, &ToNode::Remaining { job: 1, tasks: 0 });
    }

    // n0 restarts on the same port; the driver registers again and gets its grants.
    nodes[0].restart();
    eventually("the driver to reconnect to n0", || d.connect_node(0));
    t.submit(2, 4);
    d.send_node(0, &ToNode::Probe { job: 2, tasks: 4, est_ms: 10.0, cpus: 1 });
    while !t.done(2) {
        d.wait_for("a grant from the restarted n0", |d, ev| match ev {
            Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } => {
                t.on_grant(d, node, lease, job);
                Some(())
            }
            Ev::NodeClosed { node, .. } => panic!("link to n{node} dropped"),
            _ => (t.left[&2] == 0).then_some(()),
        });
        t.end_on(&mut d, 0);
    }
    assert_eq!(t.ran_on(2), BTreeSet::from([0]), "job 2 ran on the restarted node");
    all_quiet(&[&nodes[0], &nodes[1]], None);
}

#[test]
fn a_killed_central_fails_placements_fast_placed_work_finishes_and_it_serves_again_after_the_restart() {
    let scratch = Scratch::new("central");
    let node = node_bin();
    // A long lease: this test is about the central, and on a loaded CI machine a driver
    // starved past a short one is dropped as silent or has its grant revoked (the subject of
    // the driver test below), which would leave it waiting here for grants that cannot come.
    let nodes = [
        Daemon::start("n0", &node, &node_args(&scratch, 2, 10_000)),
        Daemon::start("n1", &node, &node_args(&scratch, 2, 10_000)),
    ];
    let mut central = Daemon::start("central", &central_bin(), &central_args(&scratch, &[&nodes[0], &nodes[1]]));
    central_linked(&central, 2);
    let addrs: Vec<String> = nodes.iter().map(|n| n.addr.clone()).collect();
    let mut d = FakeDriver::new("batch", &addrs, &central.addr);
    let mut t = Tasks::default();
    d.connect_node(0).unwrap();
    d.connect_node(1).unwrap();
    d.connect_central().unwrap();

    // Six long tasks on four slots: two wait as reservations on the nodes.
    let mut placed = 0;
    for (job, tasks) in [(1u64, 4u32), (2, 2)] {
        t.submit(job, tasks);
        d.send_central(&long_job(job, tasks, 100.0));
    }
    d.wait_for("four long tasks running, all six placed", |d, ev| {
        match ev {
            Ev::Central { msg: FromCentral::Placed { hosts, .. }, .. } => placed += hosts.len(),
            Ev::Central { msg: FromCentral::Unplaced { job, tasks, .. }, .. } => placed -= resubmit(d, job, tasks),
            Ev::Node { node, msg: FromNode::Grant { lease, job, long: true, .. }, .. } => {
                t.on_grant(d, node, lease, job)
            }
            _ => {}
        }
        (placed == 6 && t.running.len() == 4).then_some(())
    });

    central.kill();
    d.wait_for("the link to the central to drop", |_, ev| match ev {
        Ev::CentralClosed { .. } => Some(()),
        // Not to be consumed unseen: the loop below would then wait for grants that cannot come.
        Ev::NodeClosed { node, .. } => panic!("link to n{node} dropped"),
        _ => None,
    });
    // Placing more long work fails at once, and says where: the driver can fall back.
    let err = d.connect_central().expect_err("the central is down").to_string();
    assert!(err.contains("eagle-central") && err.contains(&central.addr) && err.contains("connect"), "{err}");
    assert!(!d.send_central(&long_job(3, 1, 1.0)), "no link to send on");

    // The nodes keep the placed work: the reservations are granted as slots free.
    loop {
        t.end_on(&mut d, 0);
        t.end_on(&mut d, 1);
        if t.done(1) && t.done(2) {
            break;
        }
        d.wait_for("a grant of a placed task", |d, ev| match ev {
            Ev::Node { node, msg: FromNode::Grant { lease, job, long: true, .. }, .. } => {
                t.on_grant(d, node, lease, job);
                Some(())
            }
            Ev::NodeClosed { node, .. } => panic!("link to n{node} dropped"),
            _ => None,
        });
    }
    assert_eq!(t.ran.len(), 6, "every placed task ran once: {:?}", t.ran);

    central.restart();
    central_linked(&central, 2);
    eventually("the driver to reconnect to the central", || d.connect_central());
    t.submit(4, 3);
    d.send_central(&long_job(4, 3, 100.0));
    let mut placed = 0;
    while !(t.done(4) && placed == 3) {
        d.wait_for("job 4 placed and granted", |d, ev| match ev {
            Ev::Central { msg: FromCentral::Placed { hosts, .. }, .. } => {
                placed += hosts.len();
                Some(())
            }
            Ev::Central { msg: FromCentral::Unplaced { job, tasks, .. }, .. } => {
                placed -= resubmit(d, job, tasks);
                Some(())
            }
            Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } => {
                t.on_grant(d, node, lease, job);
                Some(())
            }
            _ => (t.left[&4] == 0).then_some(()),
        });
        t.end_on(&mut d, 0);
        t.end_on(&mut d, 1);
    }
    assert_eq!(t.ran.keys().filter(|(j, _)| *j == 4).count(), 3);
    all_quiet(&[&nodes[0], &nodes[1]], Some(&central));
}

#[test]
fn a_dead_and_a_silent_driver_lose_everything_and_another_driver_gets_every_slot() {
    let scratch = Scratch::new("driver");
    let node = node_bin();
    let lease_ms = 3000;
    let nodes = [
        Daemon::start("n0", &node, &node_args(&scratch, 2, lease_ms)),
        Daemon::start("n1", &node, &node_args(&scratch, 2, lease_ms)),
    ];
    let central = Daemon::start("central", &central_bin(), &central_args(&scratch, &[&nodes[0], &nodes[1]]));
    central_linked(&central, 2);
    let addrs: Vec<String> = nodes.iter().map(|n| n.addr.clone()).collect();

    let held = |n: &Daemon, app: &str| {
        node_status(&n.addr, SECRET, Q).unwrap().apps.iter().any(|a| a.app == app && a.leased == 2)
    };
    // `hung` takes n1's two slots, then goes silent with its sockets open.
    let mut hung = FakeDriver::new("hung", &addrs, &central.addr);
    let mut ht = Tasks::default();
    hung.connect_node(1).unwrap();
    ht.submit(1, 5);
    hung.send_node(1, &ToNode::Probe { job: 1, tasks: 5, est_ms: 10.0, cpus: 1 });
    hung.wait_for("hung running two tasks on n1", |d, ev| {
        if let Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } = ev {
            ht.on_grant(d, node, lease, job);
        }
        (ht.running_on(1) == 2).then_some(())
    });
    assert!(held(&nodes[1], "hung"), "hung holds n1's slots before it goes silent");
    hung.alive = false;

    // `dead` takes n0's two slots and has long work placed behind them, then crashes.
    let mut dead = FakeDriver::new("dead", &addrs, &central.addr);
    let mut dt = Tasks::default();
    dead.connect_node(0).unwrap();
    dead.connect_node(1).unwrap();
    dead.connect_central().unwrap();
    dt.submit(1, 5);
    dead.send_node(0, &ToNode::Probe { job: 1, tasks: 5, est_ms: 10.0, cpus: 1 });
    // The long job is submitted only once the short tasks run: sent together, the central's
    // placement can reach n0 before the probe does (a loaded machine reorders the two
    // paths), and Eagle's SSS then rightly rejects the short probe at a host holding long
    // work: the test waited for grants that never came.
    dead.wait_for("dead running two tasks on n0", |d, ev| {
        if let Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } = ev {
            dt.on_grant(d, node, lease, job);
        }
        (dt.running_on(0) == 2).then_some(())
    });
    dt.submit(2, 2);
    dead.send_central(&long_job(2, 2, 100.0));
    dead.wait_for("dead's long job placed", |d, ev| {
        match ev {
            Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } => dt.on_grant(d, node, lease, job),
            Ev::Central { msg: FromCentral::Placed { .. }, .. } => return Some(()),
            _ => {}
        }
        None
    });
    assert!(held(&nodes[0], "dead"), "dead holds n0's slots before it crashes");
    dead.crash();

    // `live` wants all four slots: two tasks on each node.
    let mut live = FakeDriver::new("live", &addrs, &central.addr);
    let mut lt = Tasks::default();
    live.connect_node(0).unwrap();
    live.connect_node(1).unwrap();
    for (node, job) in [(0usize, 1u64), (1, 2)] {
        lt.submit(job, 2);
        live.send_node(node, &ToNode::Probe { job, tasks: 2, est_ms: 10.0, cpus: 1 });
    }
    live.wait_for("live running on all four slots", |d, ev| {
        match ev {
            Ev::Node { node, msg: FromNode::Grant { lease, job, .. }, .. } => lt.on_grant(d, node, lease, job),
            // Eagle SSS: the dead driver's long reservation was still counted; probe again.
            Ev::Node { node, msg: FromNode::Rejected { job, .. }, .. } => {
                std::thread::sleep(Duration::from_millis(100));
                d.send_node(node, &ToNode::Probe { job, tasks: lt.left[&job], est_ms: 10.0, cpus: 1 });
            }
            Ev::NodeClosed { node, .. } => panic!("live's link to n{node} dropped"),
            _ => {}
        }
        (lt.running.len() == 4).then_some(())
    });
    assert_eq!((lt.ran_on(1), lt.ran_on(2)), (BTreeSet::from([0]), BTreeSet::from([1])));
    for n in &nodes {
        let st = node_status(&n.addr, SECRET, Q).unwrap();
        assert_eq!(
            st.apps.iter().map(|a| (a.app.as_str(), a.leased)).collect::<Vec<_>>(),
            vec![("live", 2)],
            "{}: {st:?}",
            n.name
        );
    }
    // The silent driver was cut off: its link to n1 was closed by the node.
    hung.wait_for("n1 to close the silent driver's link", |_, ev| {
        matches!(ev, Ev::NodeClosed { node: 1, .. }).then_some(())
    });
    assert!(nodes[1].logged("not heard from for more than 3000 ms"), "n1 logs why it dropped the silent driver");

    lt.end_on(&mut live, 0);
    lt.end_on(&mut live, 1);
    all_quiet(&[&nodes[0], &nodes[1]], Some(&central));
}
