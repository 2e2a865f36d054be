//! How many hosts a short job probes: `max(K, r·t)` (Eagle SoCC'16 §3.2, K = `minProbes`,
//! r = `probeRatio`), against real daemons on 127.0.0.1. No timing is asserted.

#[allow(dead_code)] // each test crate uses part of the shared support
mod support;

use eagle_central::placement::Placement;
use eagle_central::short_partition::ShortPartition;
use eagle_client::Event;
use std::time::Duration;
use support::*;

/// The nodes holding a probe of the application `app`.
fn hosts_with_probes(nodes: &[String]) -> usize {
    nodes
        .iter()
        .filter(|a| {
            let st = eagle_wire::client::node_status(a, SECRET, Duration::from_secs(10)).unwrap();
            st.apps.iter().any(|q| q.app == "app" && q.probes > 0)
        })
        .count()
}

/// Five one-slot Sparrow nodes (FIFO: a probe waits where it lands) whose slots a long job
/// holds, so that a short job's probes stay queued and can be counted. K = 1: a job of 2
/// tasks probes `r·2` hosts, not `2t` whatever `probeRatio` says.
#[test]
fn a_short_job_probes_max_k_and_the_ratio_times_its_tasks_hosts() {
    for (ratio, want) in [(1, 2), (2, 4)] {
        let nodes: Vec<String> = (0..5).map(|_| node_with(eagle_node::Policy::Sparrow, 1, 60_000)).collect();
        // No fixed short share: the long job takes every host.
        let central = central_sized(&nodes, Placement::Lwl, ShortPartition::Adaptive);
        central_linked(&central, nodes.len());
        let c = client_probing("app", &central, 1, ratio, 200);
        for (i, a) in nodes.iter().enumerate() {
            c.add_host(&format!("h{i}"), a);
        }
        let mut d = Driver::default();
        d.until(&c, "every host and the central", false, |d| {
            d.events.iter().filter(|e| matches!(e, Event::HostUp(_))).count() == 5
                && d.events.contains(&Event::CentralUp)
        });
        d.submit(&c, 1, 5, true);
        d.until(&c, "the long tasks to hold every slot", true, |d| d.running.len() == 5);
        d.submit(&c, 2, 2, false);
        eventually(&format!("{want} hosts to hold a probe (ratio {ratio})"), || {
            (hosts_with_probes(&nodes) == want).then_some(())
        });
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(hosts_with_probes(&nodes), want, "ratio {ratio}: no more probes came");
        for g in std::mem::take(&mut d.running) {
            c.task_end(&g);
        }
        d.until(&c, "the short tasks to run", false, |d| d.left[&2] == 0);
        for a in &nodes {
            eventually("no lease left", || (leased(a) == 0).then_some(()));
        }
    }
}

/// The node at `addr` holds a probe of the application `app`.
fn holds_probe(addr: &str) -> bool {
    let st = eagle_wire::client::node_status(addr, SECRET, Duration::from_secs(10)).unwrap();
    st.apps.iter().any(|q| q.app == "app" && q.probes > 0)
}

/// Application affinity (`Client::affinity_wait`): a short job's first probes go to the
/// hosts where the application ran short tasks, and to the others only once the wait is
/// over with its tasks still without a slot. Five one-slot Sparrow nodes (a probe waits
/// where it lands); K = 5, so without affinity every host is probed at once. Only the order
/// of events is asserted: the long wait is never reached by the test, the short one is
/// waited for.
#[test]
fn affinity_probes_the_warm_host_first_and_the_others_after_the_wait() {
    let nodes: Vec<String> = (0..5).map(|_| node_with(eagle_node::Policy::Sparrow, 1, 60_000)).collect();
    let central = central_sized(&nodes, Placement::Lwl, ShortPartition::Adaptive);
    central_linked(&central, nodes.len());
    let c = client_probing("app", &central, 5, 1, 200);
    for (i, a) in nodes.iter().enumerate() {
        c.add_host(&format!("h{i}"), a);
    }
    let mut d = Driver::default();
    d.until(&c, "every host and the central", false, |d| {
        d.events.iter().filter(|e| matches!(e, Event::HostUp(_))).count() == 5 && d.events.contains(&Event::CentralUp)
    });
    c.affinity_wait(Duration::from_secs(3600));
    // No host is warm yet: the first short job probes all five, and runs on one of them.
    d.submit(&c, 1, 1, false);
    d.until(&c, "job 1 to run", false, |d| d.left[&1] == 0);
    let warm: usize = d.ran_of(1)[0].1.trim_start_matches('h').parse().unwrap();
    eventually("job 1's probes to be withdrawn", || nodes.iter().all(|a| !holds_probe(a)).then_some(()));
    assert_eq!(c.warm_first(), 0, "no warm host: probed as without affinity");

    // Long work holds every slot, so probes stay queued where they land.
    d.submit(&c, 10, 5, true);
    d.until(&c, "the long tasks to hold every slot", true, |d| d.running.len() == 5);
    d.submit(&c, 2, 1, false);
    eventually("job 2 to probe its warm host", || holds_probe(&nodes[warm]).then_some(()));
    std::thread::sleep(Duration::from_millis(500));
    let probed: Vec<usize> = (0..5).filter(|&i| holds_probe(&nodes[i])).collect();
    assert_eq!(probed, vec![warm], "job 2 waits for the host where the application ran, before its wait is over");
    assert_eq!(c.warm_first(), 1);

    // A short wait: job 3 probes the warm host, then every host once the wait is over.
    c.affinity_wait(Duration::from_millis(200));
    d.submit(&c, 3, 1, false);
    eventually("job 3 to probe every host after its wait", || (hosts_with_probes(&nodes) == 5).then_some(()));
    assert_eq!((c.warm_first(), c.spread_late()), (2, 1), "job 2's wait is not over; job 3's is");

    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    d.until(&c, "the short jobs to run", false, |d| d.left[&2] == 0 && d.left[&3] == 0);
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
}
