//! The client against real daemons (in-process `eagle-node`s and `eagle-central` on
//! 127.0.0.1): short jobs by probes, long jobs by the central, late binding, the
//! central's and a node's disappearance and return, and no lease left behind.
//! No timing is asserted; every wait is bounded generously.

#[allow(dead_code)] // each test crate uses part of the shared support
mod support;

use eagle_client::Event;
use std::collections::{BTreeMap, BTreeSet};
use support::*;

fn hosts_up(d: &mut Driver, c: &eagle_client::Client, n: usize) {
    d.until(c, "the hosts to be linked", false, |d| {
        d.events.iter().filter(|e| matches!(e, Event::HostUp(_))).count() >= n
    });
}

/// `n` nodes of 2 slots linked to a central the client reaches only through a proxy that
/// is cut: the client's hosts are up, the central is not.
fn central_cut_off(n: usize) -> (Vec<String>, Proxy, eagle_client::Client, Driver) {
    let nodes: Vec<String> = (0..n).map(|_| node(2)).collect();
    let central = central(&nodes);
    central_linked(&central, n);
    let proxy = Proxy::new(&central);
    proxy.cut();
    let c = client("app", &proxy.addr, 2);
    for (i, a) in nodes.iter().enumerate() {
        c.add_host(&format!("h{i}"), a);
    }
    let mut d = Driver::default();
    hosts_up(&mut d, &c, n);
    (nodes, proxy, c, d)
}

/// A client of the app "app" on `nodes` (hosts `h0`, `h1`, ...) and the central at
/// `central`, once the central has linked every node and the client every host and the central.
fn linked_client(nodes: &[String], central: &str) -> (eagle_client::Client, Driver) {
    linked_client_k(nodes, central, 2)
}

/// [`linked_client`] with K = `min_probes`.
fn linked_client_k(nodes: &[String], central: &str, min_probes: u32) -> (eagle_client::Client, Driver) {
    central_linked(central, nodes.len());
    let c = client("app", central, min_probes);
    for (i, a) in nodes.iter().enumerate() {
        c.add_host(&format!("h{i}"), a);
    }
    let mut d = Driver::default();
    hosts_up(&mut d, &c, nodes.len());
    d.until(&c, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    (c, d)
}

#[test]
fn short_and_long_jobs_run_every_task_once_and_leave_no_lease() {
    let nodes: Vec<String> = (0..3).map(|_| node(2)).collect();
    let central = central(&nodes);
    let (c, mut d) = linked_client(&nodes, &central);

    // A short job of 6 tasks probes max(K=2, 12) → all 3 hosts; every task runs once.
    d.submit(&c, 1, 6, false);
    // A long job of 4 tasks goes to the central, whose placements come back as long grants.
    d.submit(&c, 2, 4, true);
    d.until(&c, "both jobs to run", false, |d| d.left.values().all(|&n| n == 0));
    assert_eq!(d.ran_of(1).len(), 6);
    assert!(d.ran_of(1).iter().all(|r| !r.2), "short tasks run under probe grants");
    assert_eq!(d.ran_of(2).len(), 4);
    assert!(d.ran_of(2).iter().all(|r| r.2), "long tasks run under the central's placements");
    c.finished(1);
    c.finished(2);
    for a in &nodes {
        eventually("no lease left on the node", || (leased(a) == 0).then_some(()));
    }
    let (central_up, views) = c.hosts();
    assert!(central_up);
    assert!(views.iter().all(|v| v.up && v.leases == 0), "{views:?}");
}

#[test]
fn a_grant_with_nothing_to_launch_is_returned_and_the_slot_goes_to_another_application() {
    let n = node(1);
    let central = central(std::slice::from_ref(&n));
    let a = client("a", &central, 1);
    let b = client("b", &central, 1);
    a.add_host("h", &n);
    b.add_host("h", &n);
    let (mut da, mut db) = (Driver::default(), Driver::default());
    hosts_up(&mut da, &a, 1);
    hosts_up(&mut db, &b, 1);
    // a holds the only slot with a running task; b's job queues behind it.
    da.submit(&a, 1, 1, false);
    da.until(&a, "a's task to run", true, |d| d.ran.len() == 1);
    db.submit(&b, 1, 2, false);
    // a's driver says it has one more task (a retry, say) but, when the grant comes,
    // finds none it may launch: the grant is returned at once (late binding).
    a.remaining(1, 1);
    let g = da.running.pop().unwrap();
    da.left.insert(1, 0);
    a.task_end(&g);
    let grants = |d: &Driver| d.events.iter().filter(|e| matches!(e, Event::Grant(_))).count();
    // b gets the slot for both its tasks, and a a grant it returns.
    until2(&a, &mut da, &b, &mut db, "a's second grant and b's tasks", |da, db| grants(da) == 2 && db.ran.len() == 2);
    eventually("no lease left", || (leased(&n) == 0).then_some(()));
    assert_eq!(da.ran.len(), 1, "a launched nothing under the returned grant");
}

/// Late binding: a short job of one task that probes three idle hosts is granted a slot by
/// each. The client keeps as many grants as the job has tasks left and hands the others
/// back to their nodes itself, so those slots do not wait a round trip through the driver.
#[test]
fn surplus_grants_go_back_to_their_nodes_without_reaching_the_driver() {
    let nodes: Vec<String> = (0..3).map(|_| node(2)).collect();
    let central = central(&nodes);
    let (c, _d) = linked_client_k(&nodes, &central, 3);
    // The driver does not answer yet: what reaches it stays in the event channel.
    c.submit(1, 1, 50.0, false);
    eventually("two surplus grants back on their nodes", || {
        let leased: u32 = nodes.iter().map(|a| leased(a)).sum();
        (c.surplus_returned() == 2 && leased == 1).then_some(())
    });
    let grants: Vec<eagle_client::Grant> = c
        .events()
        .try_iter()
        .filter_map(|e| match e {
            Event::Grant(g) => Some(g),
            _ => None,
        })
        .collect();
    assert_eq!(grants.len(), 1, "only the grant the job can use reaches the driver: {grants:?}");
    c.launched(&grants[0]);
    c.task_end(&grants[0]);
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
}

/// eagle-adaptive grants a short probe beside long work once, while a slot is free; the
/// client's next probe there finds the slot leased and is rejected. When the task under
/// that grant ends, its slot is free again and the job, with tasks left, probes that host
/// again: a many-task short job keeps the slot it was using instead of waiting, with no
/// other host to go to, for the client's tick (here far beyond the test's bound).
#[test]
fn a_short_job_granted_once_beside_long_work_probes_that_host_again_when_its_task_ends() {
    let n = node_with(eagle_node::Policy::EagleAdaptive, 2, 120_000);
    let central = central(std::slice::from_ref(&n));
    central_linked(&central, 1);
    let c = client_with("app", &central, 2, 120_000);
    c.add_host("h0", &n);
    let mut d = Driver::default();
    hosts_up(&mut d, &c, 1);
    d.until(&c, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    // A long task holds one of the host's two slots.
    d.submit(&c, 1, 1, true);
    d.until(&c, "the long task to start", true, |d| d.left[&1] == 0);
    // A short job of 3 tasks: each runs beside the long task, one after the other.
    d.submit(&c, 2, 3, false);
    d.until(&c, "every short task to run beside the long one", false, |d| d.left[&2] == 0);
    assert_eq!(d.ran_of(2).len(), 3);
    assert!(d.ran_of(2).iter().all(|r| r.1 == "h0" && !r.2), "{:?}", d.ran);
    let long = d.running.pop().unwrap();
    c.task_end(&long);
    c.finished(1);
    c.finished(2);
    eventually("no lease left on the node", || (leased(&n) == 0).then_some(()));
}

/// A Spark application submits its first job as its executors register, so the central may
/// place a long job on a node that has no link from the driver yet: the node refuses, the
/// central answers `Unplaced`. While the central is up, the job goes back to it once the
/// links are up (its placements respect the short partition), not to local LWL over every host.
#[test]
fn a_long_job_the_central_could_not_place_yet_is_placed_by_the_central_again() {
    let nodes: Vec<String> = (0..2).map(|_| node(2)).collect();
    let central = central(&nodes);
    central_linked(&central, 2);
    let c = client("app", &central, 2);
    let mut d = Driver::default();
    d.until(&c, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    // No node is linked yet: the central's placements are refused.
    d.submit(&c, 1, 4, true);
    std::thread::sleep(std::time::Duration::from_millis(300));
    for (i, a) in nodes.iter().enumerate() {
        c.add_host(&format!("h{i}"), a);
    }
    d.until(&c, "the long job to run", false, |d| d.left[&1] == 0);
    assert!(d.ran_of(1).iter().all(|r| r.2), "every task under a central placement: {:?}", d.ran_of(1));
}

/// A driver tells the central where it has executors (`Executors`). One that submits a long
/// job as its first executor's host links up, with the central already linked, must not
/// leave that job waiting: the central learns of the host before it places the job, or
/// the tasks it could not place go back to it as soon as the host is up, not at the next
/// tick (here far beyond the test's bound). Caught in CI, where the submit and the host's
/// link were handled in one turn and the job was placed against an empty host list.
#[test]
fn a_long_job_submitted_as_the_first_host_links_up_is_placed_without_waiting_for_a_tick() {
    let n = node(2);
    let central = central(std::slice::from_ref(&n));
    central_linked(&central, 1);
    let c = client_with("app", &central, 2, 120_000);
    let mut d = Driver::default();
    d.until(&c, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    c.add_host("h0", &n);
    d.submit(&c, 1, 2, true);
    d.until(&c, "the long job to run", false, |d| d.left[&1] == 0);
    assert!(d.ran_of(1).iter().all(|r| r.2), "every task under a central placement: {:?}", d.ran_of(1));
}

#[test]
fn long_jobs_fall_back_to_local_lwl_while_the_central_is_down_and_go_back_to_it_after() {
    let (nodes, proxy, c, mut d) = central_cut_off(2);
    // Central unreachable: the long job is spread over the driver's own hosts and runs.
    d.submit(&c, 1, 4, true);
    d.until(&c, "the long job to run locally", false, |d| d.left[&1] == 0);
    let hosts: BTreeSet<&String> = d.ran_of(1).iter().map(|r| &r.1).collect();
    assert_eq!(hosts.len(), 2, "LWL spreads the tasks over both hosts");
    assert!(d.ran_of(1).iter().all(|r| !r.2), "not under the central's placements");
    assert!(!d.events.contains(&Event::CentralUp));
    // The central returns: the next long job goes to it.
    proxy.restore();
    d.until(&c, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    d.submit(&c, 2, 2, true);
    d.until(&c, "the second long job to run", false, |d| d.left[&2] == 0);
    assert!(d.ran_of(2).iter().all(|r| r.2), "placed by the central");
    // And it going away again is noticed.
    proxy.cut();
    d.until(&c, "the central to be seen down", false, |d| d.events.contains(&Event::CentralDown));
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
}

/// While the central is down, the driver's own LWL places a long job near its input as the
/// central would: within one task estimate of the least loaded host.
#[test]
fn a_local_long_job_goes_near_its_input() {
    let (nodes, _proxy, c, mut d) = central_cut_off(3);
    // Three idle hosts, 2 tasks, both reading on h2: both go there (the second ends one
    // task later there than on an idle host, within the bound).
    d.left.insert(1, 2);
    c.submit_near(1, 2, 50.0, true, 1, vec![("h2".into(), 2)]);
    d.until(&c, "the long job to run locally", false, |d| d.left[&1] == 0);
    let hosts: Vec<&str> = d.ran_of(1).iter().map(|r| r.1.as_str()).collect();
    assert_eq!(hosts, vec!["h2", "h2"], "near its input: {:?}", d.ran_of(1));
    // Without input the same job is spread over two hosts.
    d.submit(&c, 2, 2, true);
    d.until(&c, "the second long job to run locally", false, |d| d.left[&2] == 0);
    let spread: BTreeSet<&String> = d.ran_of(2).iter().map(|r| &r.1).collect();
    assert_eq!(spread.len(), 2, "LWL alone: {:?}", d.ran_of(2));
    c.finished(1);
    c.finished(2);
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
}

/// While the central is down, a long job's LWL shares are the only places it runs: a
/// grant that uses up its host's share does not send the job's remaining tasks out as
/// short probes (which would let the first host to answer run all of them, and a host
/// LWL gave nothing be leased for the job).
#[test]
fn a_local_long_job_runs_its_lwl_shares_and_probes_no_other_host() {
    let (nodes, _proxy, c, mut d) = central_cut_off(3);
    // LWL over three idle hosts gives 2 tasks one host each, and the third nothing.
    d.submit(&c, 1, 2, true);
    d.until(&c, "the long job to run locally", false, |d| d.left[&1] == 0);
    // A node numbers its leases 1, 2, …, and a link keeps its order: the first lease a
    // host grants a later job counts the leases it granted job 1 (a grant the client
    // returned at once, for a job with nothing left, never reaches the driver). Job 2's
    // six tasks are held, so they need every slot: every host grants it.
    d.submit(&c, 2, 6, false);
    let first_of_job_2 = |d: &Driver| {
        let mut first: BTreeMap<String, u64> = BTreeMap::new();
        for e in &d.events {
            if let Event::Grant(g) = e {
                if g.job == 2 {
                    first.entry(g.host.clone()).or_insert(g.lease);
                }
            }
        }
        first
    };
    d.until(&c, "a grant of job 2 from every host", true, |d| first_of_job_2(d).len() == 3);
    let for_job_1: Vec<u64> = first_of_job_2(&d).values().map(|l| l - 1).collect();
    assert_eq!(for_job_1.iter().sum::<u64>(), 2, "one lease per LWL share and no more: {:?}", d.events);
    assert!(for_job_1.iter().all(|&n| n <= 1), "one share per host: {for_job_1:?}");
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    c.finished(1);
    c.finished(2);
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
    let (_, views) = c.hosts();
    assert!(views.iter().all(|v| v.local_long_ms == 0.0), "no local long work is left accounted: {views:?}");
}

#[test]
fn a_host_whose_node_is_down_gets_no_work_until_it_is_back() {
    let nodes: Vec<String> = (0..2).map(|_| node(4)).collect();
    let central = central(&nodes);
    let proxies: Vec<Proxy> = nodes.iter().map(|a| Proxy::new(a)).collect();
    let c = client("app", &central, 4);
    c.add_host("h0", &proxies[0].addr);
    c.add_host("h1", &proxies[1].addr);
    let mut d = Driver::default();
    hosts_up(&mut d, &c, 2);
    // h1's node dies with two of the driver's tasks running there.
    d.submit(&c, 1, 8, false);
    d.until(&c, "tasks running on both hosts", true, |d| {
        ["h0", "h1"].iter().all(|h| d.running.iter().any(|g| g.host == *h))
    });
    proxies[1].cut();
    d.until(&c, "h1 seen down", true, |d| d.events.contains(&Event::HostDown("h1".into())));
    let before = d.ran.iter().filter(|r| r.1 == "h1").count();
    // The tasks running there finish on their own (their end has nowhere to go).
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    // New work goes to h0 only.
    d.submit(&c, 2, 6, false);
    d.until(&c, "both jobs to run", false, |d| d.left.values().all(|&n| n == 0));
    assert_eq!(d.ran.iter().filter(|r| r.1 == "h1").count(), before, "nothing launched on h1 while its node was down");
    assert_eq!(d.ran.len(), 14, "every task ran once");
    // The node comes back: the driver registers again and h1 takes work.
    proxies[1].restore();
    d.until(&c, "h1 back", false, |d| d.events.iter().filter(|e| **e == Event::HostUp("h1".into())).count() == 2);
    // Eight tasks held at once need both hosts' four slots.
    d.submit(&c, 3, 8, false);
    d.until(&c, "job 3 to run", true, |d| d.left[&3] == 0);
    assert_eq!(d.ran_of(3).iter().filter(|r| r.1 == "h1").count(), 4, "h1 is used again");
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
}

#[test]
fn a_dropped_client_leaves_no_lease_and_another_application_gets_the_slots() {
    let n = node(2);
    let central = central(std::slice::from_ref(&n));
    let a = client("a", &central, 1);
    a.add_host("h", &n);
    let mut da = Driver::default();
    hosts_up(&mut da, &a, 1);
    da.submit(&a, 1, 5, false);
    da.until(&a, "a to hold both slots", true, |d| d.running.len() == 2);
    drop(a);
    let b = client("b", &central, 1);
    b.add_host("h", &n);
    let mut db = Driver::default();
    hosts_up(&mut db, &b, 1);
    db.submit(&b, 1, 4, false);
    db.until(&b, "b's tasks to run", false, |d| d.left[&1] == 0);
    eventually("no lease left", || (leased(&n) == 0).then_some(()));
}

#[test]
fn a_short_task_goes_around_hosts_holding_long_work() {
    let nodes: Vec<String> = (0..3).map(|_| node(2)).collect();
    let central = central(&nodes);
    let (c, mut d) = linked_client_k(&nodes, &central, 1);
    // Two long tasks, placed by LWL on the two lowest empty hosts (h0, h1), keep running.
    d.submit(&c, 1, 2, true);
    d.until(&c, "the long tasks to run", true, |d| d.running.len() == 2);
    let long_hosts: BTreeSet<String> = d.running.iter().map(|g| g.host.clone()).collect();
    assert_eq!(long_hosts, ["h0", "h1"].iter().map(|s| s.to_string()).collect());
    // Each short task probes max(K=1, 2) = 2 of the 3 hosts; h0 and h1 reject it (SSS),
    // so every one of them runs on h2 although h0 and h1 have a free slot each.
    for job in 2..6 {
        d.submit(&c, job, 1, false);
        d.until(&c, "the short task to run", false, |d| d.left[&job] == 0);
    }
    let short_hosts: BTreeSet<&String> = d.ran.iter().filter(|r| r.0 >= 2).map(|r| &r.1).collect();
    assert_eq!(short_hosts.into_iter().cloned().collect::<Vec<_>>(), vec!["h2".to_string()]);
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
}

/// A many-task short job is rejected by the hosts holding long work and keeps its sticky
/// probe on the one without. When the long work ends, the job must spread to the freed
/// hosts: its rejections are retried at the keep-alive tick. While the long work runs,
/// the retries are rejected again, so no short task ever runs beside it (Eagle nodes).
#[test]
fn a_short_job_rejected_by_hosts_holding_long_work_spreads_to_them_once_it_ends() {
    let nodes: Vec<String> = (0..3).map(|_| node(2)).collect();
    let central = central(&nodes);
    let (c, mut d) = linked_client_k(&nodes, &central, 1);
    // Two long tasks, placed by LWL on h0 and h1, keep running.
    d.submit(&c, 1, 2, true);
    d.until(&c, "the long tasks to run", true, |d| d.running.len() == 2);
    let long: Vec<eagle_client::Grant> = std::mem::take(&mut d.running);
    // A short job of 400 tasks probes every host; h0 and h1 reject it; h2's two slots run it.
    d.submit(&c, 2, 400, false);
    d.until(&c, "two short tasks to run on h2", true, |d| d.running.len() == 2);
    // Ten ticks (200 ms each) with h2's two tasks held: the retried probes are rejected.
    hold_for(&mut d, &c, 2_000);
    assert!(d.ran_of(2).iter().all(|r| r.1 == "h2"), "a short task ran beside long work: {:?}", d.ran_of(2));
    assert_eq!(d.ran_of(2).len(), 2);
    // The long work ends. h2 runs one short task at a time, ending one every 50 ms, so the
    // job has tasks left for about 20 s (100 ticks); the freed hosts must take some of them.
    for g in long {
        c.task_end(&g);
    }
    c.finished(1);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !d.ran_of(2).iter().any(|r| r.1 != "h2") {
        assert!(d.left[&2] > 0, "every task of the short job ran on h2: {:?}", d.ran_of(2).len());
        assert!(std::time::Instant::now() < deadline, "timed out: the job never spread; events {:?}", d.events);
        if let Some(g) = d.running.pop() {
            c.task_end(&g);
        }
        hold_for(&mut d, &c, 50);
    }
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    d.until(&c, "the short job to end", false, |d| d.left[&2] == 0);
    c.finished(2);
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
}

#[test]
fn lotes_keeps_the_big_host_for_wide_long_work_and_narrow_long_work_on_the_small_one() {
    // Hosts of 4 and 1 slots, eagle-central --placement lotes: a batch application's long
    // job of 4-slot tasks and an ETL application's long job of 1-slot tasks. The plan gives
    // the 4-slot host to the wide class, so while the wide job is live every narrow task
    // runs on the 1-slot host; the wide tasks can only run on the big one.
    let (big, small) = (node(4), node(1));
    let central = central_with(&[big.clone(), small.clone()], eagle_central::placement::Placement::Lotes);
    central_linked(&central, 2);
    let (a, b) = (client("batch", &central, 2), client("etl", &central, 2));
    for c in [&a, &b] {
        c.add_host("big", &big);
        c.add_host("small", &small);
    }
    let (mut da, mut db) = (Driver::default(), Driver::default());
    for (c, d) in [(&a, &mut da), (&b, &mut db)] {
        hosts_up(d, c, 2);
        d.until(c, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    }
    da.submit_wide(&a, 1, 2, true, 4);
    da.until(&a, "a wide task to run", true, |d| !d.ran_of(1).is_empty());
    assert_eq!(leased(&big), 4, "the wide task's lease holds the whole host");
    db.submit(&b, 1, 6, true);
    db.until(&b, "the narrow job to run", false, |d| d.left[&1] == 0);
    assert!(db.ran_of(1).iter().all(|r| r.1 == "small" && r.2), "{:?}", db.ran);
    // The wide job ends: its second task runs on the big host too.
    for g in std::mem::take(&mut da.running) {
        a.task_end(&g);
    }
    da.until(&a, "the wide job to run", false, |d| d.left[&1] == 0);
    assert!(da.ran_of(1).iter().all(|r| r.1 == "big"), "{:?}", da.ran);
    a.finished(1);
    b.finished(1);
    for n in [&big, &small] {
        eventually("no lease left on the node", || (leased(n) == 0).then_some(()));
    }
}

#[test]
fn long_tasks_placed_on_a_host_whose_link_drops_are_placed_again() {
    // Two 1-slot hosts; another application holds n1's slot, so the long tasks the central
    // places on n1 wait there as reservations. Then this driver's link to n1 drops: n1
    // drops those reservations, and the driver must place the tasks again (the job would
    // otherwise wait for grants that never come).
    let nodes: Vec<String> = (0..2).map(|_| node(1)).collect();
    let central = central(&nodes);
    central_linked(&central, 2);
    let x = client("x", &central, 1);
    x.add_host("n1", &nodes[1]);
    let mut dx = Driver::default();
    hosts_up(&mut dx, &x, 1);
    dx.submit(&x, 1, 1, false);
    dx.until(&x, "x to hold n1's slot", true, |d| d.running.len() == 1);

    let proxy = Proxy::new(&nodes[1]);
    let a = client("a", &central, 1);
    // Named as the central names the nodes, as the Spark recipe does (executor host = node name).
    a.add_host("n0", &nodes[0]);
    a.add_host("n1", &proxy.addr);
    let mut da = Driver::default();
    hosts_up(&mut da, &a, 2);
    da.until(&a, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    da.submit(&a, 1, 4, true);
    da.until(&a, "a long task to run on n0", true, |d| d.running.len() == 1);
    eventually("a's reservations queued on n1", || {
        let st = eagle_wire::client::node_status(&nodes[1], SECRET, std::time::Duration::from_secs(10)).ok()?;
        st.apps.iter().any(|q| q.app == "a" && q.reservations > 0).then_some(())
    });
    proxy.cut();
    da.until(&a, "n1 seen down", true, |d| d.events.contains(&Event::HostDown("n1".into())));
    let g = da.running.pop().unwrap();
    a.task_end(&g);
    da.until(&a, "the long job to run", false, |d| d.left[&1] == 0);
    assert_eq!(da.ran_of(1).len(), 4, "every task once");
    assert!(da.ran_of(1).iter().all(|r| r.1 == "n0"), "{:?}", da.ran);
    a.finished(1);
    for g in std::mem::take(&mut dx.running) {
        x.task_end(&g);
    }
    x.finished(1);
    for n in &nodes {
        eventually("no lease left", || (leased(n) == 0).then_some(()));
    }
}

/// The client reports its short tasks running and waiting to the central; a central whose
/// short partition is adaptive keeps hosts for them, and long work goes to the others.
#[test]
fn short_tasks_waiting_grow_an_adaptive_short_partition_and_long_work_keeps_off_it() {
    let nodes: Vec<String> = (0..4).map(|_| node(1)).collect();
    let central = central_sized(
        &nodes,
        eagle_central::placement::Placement::Lwl,
        eagle_central::short_partition::ShortPartition::Adaptive,
    );
    let (c, mut d) = linked_client(&nodes, &central);
    assert_eq!(
        central_status(&central).nodes.iter().filter(|n| !n.general).count(),
        0,
        "no short work, no fixed share"
    );
    // 8 short tasks on 4 slots: 4 run (held) and 4 wait. Capped at half the slots: 2 hosts.
    d.submit(&c, 1, 8, false);
    d.until(&c, "4 short tasks to run", true, |d| d.running.len() == 4);
    let st = eventually("the central to see the short load", || {
        let st = central_status(&central);
        (st.short_slots == 2).then_some(st)
    });
    let short_only: BTreeSet<String> = st.nodes.iter().filter(|n| !n.general).map(|n| n.name.clone()).collect();
    assert_eq!(short_only.len(), 2, "{st:?}");
    // A long job placed while short tasks wait keeps off the short-only hosts.
    d.submit(&c, 2, 4, true);
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    d.until(&c, "both jobs to run", false, |d| d.left[&1] == 0 && d.left[&2] == 0);
    let names: BTreeMap<String, String> = (0..4).map(|i| (format!("h{i}"), format!("n{i}"))).collect();
    let long_on: BTreeSet<&String> = d.ran_of(2).iter().map(|r| &names[&r.1]).collect();
    assert!(long_on.iter().all(|n| !short_only.contains(*n)), "long tasks on {long_on:?}, short-only {short_only:?}");
}

/// Under `--short-partition slots` the central keeps the short demand as slots on every node
/// and tells each node its count: long work placed meanwhile goes to every host, in the
/// slots each leaves it, and every slot comes back at the end.
#[test]
fn short_tasks_waiting_make_every_node_keep_a_slot_and_long_work_goes_to_every_host() {
    let nodes: Vec<String> = (0..4).map(|_| node(2)).collect();
    let central = central_sized(
        &nodes,
        eagle_central::placement::Placement::Lwl,
        eagle_central::short_partition::ShortPartition::Slots,
    );
    let (c, mut d) = linked_client(&nodes, &central);
    assert!(nodes.iter().all(|n| short_slots(n) == 0), "no short work, no fixed share");
    // 12 short tasks on 8 slots: 8 run (held, the demand) and 4 wait. Capped at half the slots: 4, one
    // on each node.
    d.submit(&c, 1, 12, false);
    d.until(&c, "8 short tasks to run", true, |d| d.running.len() == 8);
    eventually("every node to keep one slot", || nodes.iter().all(|n| short_slots(n) == 1).then_some(()));
    let st = central_status(&central);
    assert!(st.nodes.iter().all(|n| n.general && n.short_slots == 1), "{st:?}");
    // A long job of 4 tasks: one per host (each leaves long work one slot), where the
    // whole-host partition would have put them on two.
    d.submit(&c, 2, 4, true);
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    d.until(&c, "both jobs to run", false, |d| d.left[&1] == 0 && d.left[&2] == 0);
    let long_on: BTreeSet<&String> = d.ran_of(2).iter().map(|r| &r.1).collect();
    assert_eq!(long_on.len(), 4, "long tasks on {long_on:?}");
    for n in &nodes {
        eventually("no lease left", || (leased(n) == 0).then_some(()));
    }
}

/// A daemon that refuses the driver's handshake (here another shared secret; another
/// protocol version is refused alike) is misconfigured, not down. The client tells the
/// central's refusal apart at once (`central_first`, which the plugin's start turns into
/// an error naming the central), from a central that is down (not reached: the local
/// fallback rides it out) and one that links; a refusing node never counts as up, and the
/// work goes to the nodes that accept.
#[test]
fn a_refusing_daemon_is_told_apart_from_one_that_is_down_and_never_gets_work() {
    use eagle_central::{placement::Placement, short_partition::ShortPartition};
    let good = node(2);
    let bad = node_keyed(eagle_node::Policy::Eagle, 2, 5_000, b"another build's secret");
    let wait = std::time::Duration::from_secs(30);

    let refusing =
        central_keyed(std::slice::from_ref(&good), Placement::Lwl, ShortPartition::Fixed, b"another build's secret");
    let why = client("app", &refusing, 2).central_first(wait).unwrap_err().to_string();
    assert!(why.contains(&refusing) && why.contains("refused"), "{why}");

    let down = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
    assert_eq!(client("app", &down, 2).central_first(wait), Ok(false), "nothing listens there");

    let central = central(std::slice::from_ref(&good));
    let c = client("app", &central, 2);
    assert_eq!(c.central_first(wait), Ok(true));
    assert_eq!(c.central_first(wait), Ok(true), "asked again: the same answer");
    c.add_host("bad", &bad);
    c.add_host("good", &good);
    let mut d = Driver::default();
    d.until(&c, "the good host to link", false, |d| d.events.contains(&Event::HostUp("good".into())));
    // A short job probing both hosts (K = 2) runs wholly on the one that accepts.
    d.submit(&c, 1, 4, false);
    d.until(&c, "the job to run", false, |d| d.left[&1] == 0);
    assert!(d.ran_of(1).iter().all(|r| r.1 == "good"), "{:?}", d.ran_of(1));
    assert!(!d.events.contains(&Event::HostUp("bad".into())));
    let (_, views) = c.hosts();
    assert!(views.iter().any(|v| v.host == "bad" && !v.up && v.leases == 0), "{views:?}");
}

#[test]
fn a_long_job_of_an_application_on_some_hosts_is_placed_by_the_central_only_there() {
    // Three 2-slot hosts; the application has executors (a node link) on n1 only, as under
    // dynamic allocation or `spark.cores.max` below the hosts' total. The client tells the
    // central so, and every long task runs under the central's placement on n1. Without
    // that, the central would place most of them on n0 and n2, whose nodes refuse an
    // application not connected there, and they would end up placed locally.
    let nodes: Vec<String> = (0..3).map(|_| node(2)).collect();
    let central = central(&nodes);
    central_linked(&central, 3);
    let a = client("a", &central, 1);
    a.add_host("n1", &nodes[1]);
    let mut d = Driver::default();
    hosts_up(&mut d, &a, 1);
    d.until(&a, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    // The report goes out with the next turn of the client's loop; the submit follows it
    // on the same ordered link, so the central reads the hosts first.
    d.submit(&a, 1, 6, true);
    d.until(&a, "the long job to run", false, |d| d.left[&1] == 0);
    assert_eq!(d.ran_of(1).len(), 6, "every task once: {:?}", d.ran);
    assert!(d.ran_of(1).iter().all(|r| r.1 == "n1" && r.2), "all under central placements on n1: {:?}", d.ran);
    a.finished(1);
    for n in &nodes {
        eventually("no lease left", || (leased(n) == 0).then_some(()));
    }
    let st = central_status(&central);
    assert!(st.nodes.iter().all(|n| n.long_tasks == 0 && n.work_ms == 0.0), "{st:?}");
}

/// Spark's exclusion on failure: a long task set that may no longer run on the general host
/// (it failed there) may still run on the short-only one. The central places long work on
/// general hosts only, so the driver places it itself, by LWL over the hosts it may use.
/// Left to the central, its grants would go back unused, and the central would place the
/// tasks on the excluded host again, for good.
/// `n` nodes of 2 slots (hosts `n0`, `n1`, ...) whose central keeps one of them for short
/// work, and the client "app" linked to them all and to the central: returns the nodes'
/// addresses, the short-only host, the general hosts, the client and its driver.
struct OneShortOnly {
    nodes: Vec<String>,
    short_only: String,
    general: Vec<String>,
    c: eagle_client::Client,
    d: Driver,
}

fn one_short_only(n: usize) -> OneShortOnly {
    let nodes: Vec<String> = (0..n).map(|_| node(2)).collect();
    let central = eagle_testkit::Central::numbered(SECRET, &nodes).short_fraction(1.0 / n as f64).start().to_string();
    central_linked(&central, n);
    let (short_only, general): (Vec<_>, Vec<_>) = central_status(&central).nodes.into_iter().partition(|n| !n.general);
    let mut short_only: Vec<String> = short_only.into_iter().map(|n| n.name).collect();
    let general: Vec<String> = general.into_iter().map(|n| n.name).collect();
    assert_eq!(short_only.len(), 1, "one host of {n} is short-only");
    let c = client("app", &central, 2);
    for (i, a) in nodes.iter().enumerate() {
        c.add_host(&format!("n{i}"), a);
    }
    let mut d = Driver::default();
    hosts_up(&mut d, &c, n);
    d.until(&c, "the central link", false, |d| d.events.contains(&Event::CentralUp));
    OneShortOnly { nodes, short_only: short_only.remove(0), general, c, d }
}

/// A long job of 4 tasks on `n` hosts, one of them short-only, that Spark restricts (after
/// its submission, as the plugin does when a round finds it excluded) to the hosts
/// `allowed` picks from (short-only, general). Spark refuses every grant elsewhere and
/// launches one task under each grant of a host it may use; returns where each task ran
/// and the short-only host.
fn run_restricted_long_job(
    n: usize,
    allowed: impl FnOnce(&[String], &[String]) -> Vec<String>,
) -> (Vec<String>, String) {
    let OneShortOnly { nodes, short_only, general, c, mut d } = one_short_only(n);
    let allowed = allowed(std::slice::from_ref(&short_only), &general);
    d.left.insert(1, 4);
    c.submit(1, 4, 50.0, true);
    c.restrict(1, Some(allowed.clone()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while d.left[&1] > 0 {
        assert!(std::time::Instant::now() < deadline, "the job did not run: {:?}", d.events);
        let Ok(e) = c.events().recv_timeout(std::time::Duration::from_millis(200)) else { continue };
        match &e {
            Event::Grant(g) if g.job == 1 && !allowed.contains(&g.host) => c.no_task(g),
            _ => d.on(&c, e, false),
        }
    }
    assert_eq!(d.ran_of(1).len(), 4, "every task once: {:?}", d.ran);
    c.finished(1);
    for n in &nodes {
        eventually("no lease left", || (leased(n) == 0).then_some(()));
    }
    (d.ran_of(1).iter().map(|r| r.1.clone()).collect(), short_only)
}

#[test]
fn a_long_job_spark_keeps_off_the_general_hosts_runs_on_the_host_it_may_use() {
    let (ran, short_only) = run_restricted_long_job(2, |short_only, _| short_only.to_vec());
    assert!(ran.iter().all(|h| *h == short_only), "{ran:?}");
}

/// A restricted long job is not placed by the driver's own LWL over every host it may use,
/// the short-only one included: excluding one general host would put long work where short
/// work is promised no wait.
#[test]
fn a_long_job_spark_keeps_off_one_general_host_stays_off_the_short_only_host() {
    let mut kept = String::new();
    let (ran, short_only) = run_restricted_long_job(3, |short_only, general| {
        kept = general[1].clone();
        vec![short_only[0].clone(), general[0].clone()]
    });
    assert!(ran.iter().all(|h| *h != short_only && *h != kept), "only the general host it may use: {ran:?}");
}

/// A long task Spark will not run on the host of its first grant (a speculative copy beside
/// its original) is placed on another general host the next time, not on that one again:
/// the central's LWL alone, with the hosts' work equal again once the grant went back,
/// would choose the same host at every tick until the original ended.
#[test]
fn a_long_task_spark_refuses_on_a_host_is_placed_on_another_general_host() {
    let OneShortOnly { nodes, short_only, c, mut d, .. } = one_short_only(3);
    d.left.insert(1, 1);
    c.submit(1, 1, 50.0, true);
    let (mut refused, mut refusals) = (None::<String>, 0);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while d.left[&1] > 0 {
        assert!(std::time::Instant::now() < deadline, "never placed elsewhere: {refusals} grant(s) of {refused:?}");
        let Ok(e) = c.events().recv_timeout(std::time::Duration::from_millis(200)) else { continue };
        match &e {
            Event::Grant(g) if g.job == 1 && refused.as_ref().is_none_or(|h| *h == g.host) => {
                refused = Some(g.host.clone());
                refusals += 1;
                c.no_task(g);
            }
            _ => d.on(&c, e, false),
        }
    }
    let ran = &d.ran_of(1)[0].1;
    assert!(Some(ran) != refused.as_ref() && *ran != short_only, "ran on {ran}, refused on {refused:?}");
    assert!(refusals <= 2, "{refusals} grants of {refused:?}");
    c.finished(1);
    for n in &nodes {
        eventually("no lease left", || (leased(n) == 0).then_some(()));
    }
}
