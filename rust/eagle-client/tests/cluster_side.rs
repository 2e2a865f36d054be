//! Cluster mode's driver side (`eagle_client::grants::ClusterSide`) against real in-process
//! `eagle-node` and `eagle-central` daemons on 127.0.0.1, with a fake Spark per application
//! that runs offer rounds as the plugin does: `setPending`, `offer`, launches, `roundEnd`,
//! `taskEnded`. No timing is asserted; every wait is bounded generously.

#[allow(dead_code)] // each test crate uses part of the shared support
#[path = "common/cluster.rs"]
mod cluster;

use cluster::*;
use eagle_client::grants::{ClusterParams, ClusterSide, Shape};
use eagle_core::{JobId, NodeId};
use std::time::{Duration, Instant};

#[test]
fn two_applications_share_a_host_slot_by_slot_and_every_task_runs_once() {
    let (addr, mut a, mut b) = shared_node(2);
    a.submit(0, 6, 0.05, false);
    b.submit(0, 6, 0.05, false);
    b.submit(1, 3, 0.05, false);
    let mut most = 0;
    run_together(&mut a, &mut b, |a, b| {
        most = most.max(a.running.len() + b.running.len());
        // The node has 2 slots for both applications: never more tasks at once.
        assert!(
            a.running.len() + b.running.len() <= 2,
            "{} + {} tasks on a 2-slot host",
            a.running.len(),
            b.running.len()
        );
    });
    assert_eq!(a.launched, 6, "every task of a once");
    assert_eq!(b.launched, 9, "every task of b once");
    assert_eq!(most, 2, "the host's slots were used");
    a.remove_all();
    b.remove_all();
    eventually("no lease left on the node", || leased(&addr) == 0);
}

/// A task that fails is queued again by Spark, and its retry needs a grant again. The round
/// that launched the task reported one task waiting (`setPending` comes before the launches),
/// and the failure brings the count back to one before the next round: the driver must still
/// ask for the retry's slot, short (probes) and long (a central placement) alike. Comparing
/// with the count it had last reported, it would send nothing, and the retry would wait for
/// good.
#[test]
fn a_failed_task_runs_again_under_a_fresh_grant() {
    let (addr, mut a) = linked_app(2);
    for (job, long) in [(0, false), (1, true)] {
        a.submit(job, 1, 0.05, long);
        eventually("the first attempt to launch", || {
            a.round(&[]);
            a.running.len() == 1
        });
        a.fail_one();
        eventually("the retry to launch", || {
            a.round(&[]);
            a.running.len() == 1
        });
        a.finish_one();
        assert!(a.done());
    }
    assert_eq!(a.launched, 4, "each task twice: the failed attempt and its retry");
    a.remove_all();
    eventually("no lease left on the node", || leased(&addr) == 0);
}

/// As Spark sees a failed task: between the backend's status update and the result getter's
/// `handleFailedTask`, offer rounds count it waiting (it left the running set) while Spark
/// cannot launch it, so a grant asked for it goes back unused. The first five launches of a
/// short and of a long task set (five tasks, two slots) fail so, and Spark queues each again
/// up to ten rounds later: each task set still ends, every attempt under a grant, under both
/// Eagle node policies.
#[test]
fn tasks_that_fail_before_spark_queues_them_again_all_run_again() {
    for policy in [eagle_node::Policy::Eagle, eagle_node::Policy::EagleAdaptive] {
        let (addr, mut a) = linked_app_with(policy, 2);
        let tasks = 5;
        for (job, long) in [(0u32, false), (1, true)] {
            a.submit(job, tasks, 0.05, long);
            let first = a.next_tid;
            let failed = a.run_failing_first(&format!("{policy:?} job {job}"), first, tasks, 10);
            assert_eq!(failed, tasks, "job {job}: each of its first attempts failed");
        }
        assert_eq!(a.launched, 4 * tasks, "each task twice: the failed attempt and its retry");
        // The window was hit: grants asked for tasks Spark could not launch yet went back.
        assert!(a.c.counters.returned > 0, "{:?}", a.c.counters);
        a.remove_all();
        eventually("no lease left on the node", || leased(&addr) == 0);
    }
}

/// The same failures for a long task set of an application whose only executor is on one
/// host of two, the central keeping one host short-only: on the general host its tasks are the
/// central's placements, on the short-only one the driver places them itself once the central
/// could not. Either way every failed task runs again. (Were the driver's own placement to
/// keep the share of a host whose grant went back counted as placed, the task set would hang
/// with tasks waiting.)
#[test]
fn a_long_task_set_on_either_host_of_a_partitioned_cluster_runs_its_failed_tasks_again() {
    let (addr_a, port) = node_with(eagle_node::Policy::EagleAdaptive, 2);
    let (addr_b, _) = node_on(eagle_node::Policy::EagleAdaptive, 2, &format!("127.0.0.2:{port}"));
    let central = central_with(&[&addr_a, &addr_b], SECRET, 0.5);
    for (k, host) in ["127.0.0.1", "127.0.0.2"].into_iter().enumerate() {
        let mut a = FakeSpark::new(side(&format!("on-{host}"), &central, port), 2);
        a.c.executor_added(EXEC, host);
        eventually("the node to link", || {
            a.c.drain();
            a.c.hosts_up() == 1
        });
        // Three task sets one after the other: the old code hung on one of them in about one
        // run of two for each (a grant must come while a failed task waits to be queued).
        let tasks = 5;
        for i in 0..3u32 {
            a.submit(k as u32 * 3 + i, tasks, 0.05, true);
            let failed = a.run_failing_first(&format!("on {host}, task set {i}"), a.next_tid, tasks, 10);
            assert_eq!(failed, tasks, "on {host}, task set {i}");
        }
        assert_eq!(a.launched, 6 * tasks, "on {host}: each task twice");
        a.remove_all();
    }
    eventually("no lease left on either node", || leased(&addr_a) == 0 && leased(&addr_b) == 0);
}

/// With the central down, the driver places every long task itself (local LWL): a grant of
/// its probe that goes back unused, here asked for a failed task Spark has not queued again
/// yet, drops the probe on that node, and the rest of the host's share is placed again.
/// (Were that share to stay counted as placed, the task set would hang.)
#[test]
fn with_the_central_down_a_long_task_set_runs_its_failed_tasks_again() {
    let (addr, port) = node_with(eagle_node::Policy::EagleAdaptive, 2);
    let down = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
    let mut a = FakeSpark::new(side("central-down", &down, port), 2);
    a.c.executor_added(EXEC, "127.0.0.1");
    eventually("the node to link", || {
        a.c.drain();
        a.c.hosts_up() == 1
    });
    assert!(!a.c.central_up());
    // Eight task sets one after the other: the old code hung on one of them in about one run
    // of two for each.
    let tasks = 5;
    for job in 0..8u32 {
        a.submit(job, tasks, 0.05, true);
        let failed = a.run_failing_first(&format!("task set {job}"), a.next_tid, tasks, 10);
        assert_eq!(failed, tasks, "task set {job}");
    }
    assert_eq!(a.launched, 16 * tasks, "each task twice");
    a.remove_all();
    eventually("no lease left on the node", || leased(&addr) == 0);
}

#[test]
fn a_killed_driver_frees_its_slots_for_the_other_application() {
    let (addr, port) = node(2);
    let central = central(&[&addr]);
    let mut a = FakeSpark::new(side("a", &central, port), 2);
    a.c.executor_added(EXEC, "127.0.0.1");
    a.submit(0, 4, 1.0, false);
    eventually("a to hold both slots", || {
        a.round(&[]);
        a.running.len() == 2
    });
    let mut b = FakeSpark::new(side("b", &central, port), 2);
    b.c.executor_added(EXEC, "127.0.0.1");
    b.submit(0, 2, 0.05, false);
    for _ in 0..10 {
        b.round(&[]);
    }
    assert_eq!(b.launched, 0, "b waits while a holds both slots");
    // a's driver dies with its tasks running (no task end, no goodbye).
    drop(a);
    eventually("b to get both slots", || {
        b.round(&[]);
        b.launched == 2
    });
    while !b.done() {
        b.finish_one();
        b.round(&[]);
    }
    b.c.remove_job(JobId(0));
    eventually("no lease left on the node", || leased(&addr) == 0);
}

#[test]
fn a_grant_the_round_cannot_use_goes_back_and_a_lost_executor_ends_its_leases() {
    let (addr, port) = node(2);
    let central = central(&[&addr]);
    let mut a = FakeSpark::new(side("a", &central, port), 2);
    a.c.executor_added(EXEC, "127.0.0.1");
    a.submit(3, 2, 1.0, false);
    // Spark may not run job 3 on this executor (e.g. excluded): its grants go back.
    eventually("a grant to be refused and returned", || {
        a.round(&[JobId(3)]);
        a.c.counters.returned >= 1
    });
    assert_eq!(a.launched, 0);
    // Later it may: the job probes again and runs.
    eventually("job 3 to launch both tasks", || {
        a.round(&[]);
        a.launched == 2
    });
    eventually("both leases held", || leased(&addr) == 2);
    // The executor is lost with both tasks: their leases end, the node frees the slots.
    a.c.executor_removed(EXEC);
    assert_eq!(a.c.running(), 0);
    eventually("the lost executor's leases to end", || leased(&addr) == 0);
    assert_eq!(a.c.counters.task_ends, 2);
}

#[test]
fn bad_settings_are_refused_naming_the_key() {
    let base = ClusterParams {
        central: "127.0.0.1:7100".into(),
        node_port: 7101,
        secret: b"s".to_vec(),
        app: "app".into(),
        min_probes: 2,
        probe_ratio: 2,
        ping_ms: 200,
        seed: 1,
        retry_rejected: true,
        warm_grants: true,
        affinity: false,
    };
    for (p, key) in [
        (ClusterParams { central: "nohost".into(), ..base.clone() }, "cluster.central"),
        (ClusterParams { central: "h:notaport".into(), ..base.clone() }, "cluster.central"),
        (ClusterParams { node_port: 0, ..base.clone() }, "cluster.nodePort"),
        (ClusterParams { secret: Vec::new(), ..base.clone() }, "secret"),
    ] {
        let e = ClusterSide::start(p).err().expect("refused").to_string();
        assert!(e.contains(key), "{e}");
    }
    assert!(base.validate().is_ok());
}

/// A central that refuses the driver (another build's protocol version or, here, another
/// secret) fails the start with an error naming the key and the cause, which the plugin
/// turns into its fallback; before, the driver retried forever and its jobs waited on
/// links that never came. A central that is merely down does not fail it.
#[test]
fn a_central_that_refuses_the_driver_fails_the_start_naming_it() {
    let (addr, port) = node(2);
    let refusing = central_keyed(&[addr.as_str()], b"another build's secret");
    let p = ClusterParams {
        central: refusing.clone(),
        node_port: port,
        secret: SECRET.to_vec(),
        app: "app".into(),
        min_probes: 2,
        probe_ratio: 2,
        ping_ms: 200,
        seed: 1,
        retry_rejected: true,
        warm_grants: true,
        affinity: false,
    };
    let e = ClusterSide::start(p.clone()).err().expect("refused").to_string();
    assert!(e.contains(&format!("spark.scheduler.eagle.cluster.central={refusing}")), "{e}");
    assert!(e.contains("refused") && e.contains("same eagle-spark build"), "{e}");
    let down = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().to_string();
    assert!(
        ClusterSide::start(ClusterParams { central: down, ..p.clone() }).is_ok(),
        "a central down is a fault, not an error"
    );
    assert!(ClusterSide::start(ClusterParams { central: central(&[addr.as_str()]), ..p }).is_ok());
}

#[test]
fn hawk_and_sparrow_nodes_run_every_task_once() {
    for policy in [eagle_node::Policy::Hawk, eagle_node::Policy::Sparrow] {
        let (addr, port) = node_with(policy, 2);
        let central = central(&[&addr]);
        let mut a = FakeSpark::new(side("a", &central, port), 2);
        a.c.executor_added(EXEC, "127.0.0.1");
        a.submit(0, 6, 0.005, false);
        let deadline = Instant::now() + Duration::from_secs(60);
        while !a.done() {
            assert!(Instant::now() < deadline, "{policy:?}: {} of 6 tasks launched", a.launched);
            a.round(&[]);
            a.finish_one();
        }
        assert_eq!(a.launched, 6, "{policy:?}");
    }
}

#[test]
fn a_wide_task_holds_its_cores_on_the_node_and_no_application_oversubscribes_the_host() {
    // A 4-slot host shared by a batch application whose tasks take 2 cores each (a wider
    // resource profile) and an interactive one of 1-core tasks. The node must count each
    // wide task as 2 of its slots, so the two never run more than 4 cores at once, and
    // every task runs once.
    let (addr, mut a, mut b) = shared_node(4);
    a.submit_wide(0, 5, 0.05, false, 2);
    b.submit(0, 8, 0.05, false);
    let (mut most, mut wide_seen) = (0, false);
    run_together(&mut a, &mut b, |a, b| {
        let cores = a.cores_used() + b.cores_used();
        assert!(cores <= 4, "{} + {} cores on a 4-slot host", a.cores_used(), b.cores_used());
        most = most.max(cores);
        wide_seen |= !a.running.is_empty();
    });
    assert_eq!(a.launched, 5, "every wide task once");
    assert_eq!(b.launched, 8, "every narrow task once");
    assert!(wide_seen && most >= 3, "the host was shared (most cores at once: {most})");
    a.c.remove_job(JobId(0));
    b.c.remove_job(JobId(0));
    eventually("no lease left on the node", || leased(&addr) == 0);
}

#[test]
fn a_task_wider_than_every_host_never_launches_and_holds_no_slot() {
    let (addr, mut a) = linked_app(2);
    a.submit_wide(0, 1, 0.05, false, 4);
    for _ in 0..20 {
        a.round(&[]);
    }
    assert_eq!(a.launched, 0);
    assert_eq!(leased(&addr), 0, "the node refused the probe instead of holding slots for it");
    // A narrow job of the same application still runs.
    a.submit(1, 2, 0.05, false);
    eventually("the narrow job to launch", || {
        a.round(&[]);
        a.finish_one();
        a.launched == 2
    });
}

/// Two nodes of 2 slots (127.0.0.1 and 127.0.0.2, one port) under a central, and an
/// application linked to both, with executor 0 on the first host and 1 on the second.
fn two_hosts() -> (String, String, ClusterSide) {
    let (addr_a, port) = node(2);
    let (addr_b, _) = node_on(eagle_node::Policy::Eagle, 2, &format!("127.0.0.2:{port}"));
    let central = central(&[&addr_a, &addr_b]);
    let mut c = side("a", &central, port);
    c.executor_added(NodeId(0), "127.0.0.1");
    c.executor_added(NodeId(1), "127.0.0.2");
    eventually("both nodes linked", || {
        c.drain();
        c.hosts_up() == 2
    });
    (addr_a, addr_b, c)
}

/// `cluster.warmGrants`: with the job holding a slot under a kept probe, a grant of a host
/// where it holds none goes back at once, and the job drains on its kept slots. Two hosts
/// (127.0.0.1 and 127.0.0.2, one port), one executor each; `worth` says no whenever the
/// job holds a kept slot, so every task runs on the host that granted first, and nothing
/// is lost, launched twice or left leased.
#[test]
fn a_grant_where_the_job_is_cold_goes_back_and_its_kept_slots_drain_it() {
    let (addr_a, addr_b, mut c) = two_hosts();
    let execs = [NodeId(0), NodeId(1)];
    let job = JobId(0);
    let mut waiting = 6u32;
    c.submit(job, waiting, 0.05, false, Shape::ONE);
    let (mut running, mut on, mut tid, mut seen, mut step) = (Vec::<(i64, usize)>::new(), [0u32; 2], 0i64, 0u64, 0u64);
    let deadline = Instant::now() + Duration::from_secs(60);
    while waiting > 0 || !running.is_empty() {
        assert!(Instant::now() < deadline, "{} tasks left to launch, {} running", waiting, running.len());
        if let Some(n) = c.inbox().wait(seen, Duration::from_millis(20)) {
            seen = n;
        }
        c.set_pending(job, waiting);
        let mut launched = Vec::new();
        for (k, &e) in execs.iter().enumerate() {
            let free = 2 - running.iter().filter(|r| r.1 == k).count() as u32;
            let mut plan = Vec::new();
            c.offer(e, free, &[], |_, _, kept| kept == 0, &mut plan);
            for j in plan {
                if waiting == 0 {
                    c.decline(e, j);
                    continue;
                }
                waiting -= 1;
                launched.push((tid, e, j));
                running.push((tid, k));
                on[k] += 1;
                tid += 1;
            }
        }
        c.round_end(&launched);
        step += 1;
        if step.is_multiple_of(2) && !running.is_empty() {
            let (t, _) = running.remove(0);
            c.task_ended(t);
        }
    }
    assert_eq!(on[0] + on[1], 6, "every task once: {on:?}");
    assert!(on[0].max(on[1]) >= 4, "the job stayed on the host that granted first, nearly: {on:?}");
    assert!(c.counters.cold_returned >= 1, "the other host's grant went back: {:?}", c.counters);
    c.remove_job(job);
    eventually("no lease left on either node", || leased(&addr_a) == 0 && leased(&addr_b) == 0);
}

/// A host where the task set handed a grant back is probed again once the warm-executors
/// rule turns (its estimate proved low, `grants/cold.rs`). The "no task" of the hand-back
/// drops the task set's probe on that host, and the client, which keeps probes where the
/// tasks run, would never send another: a stage that came in at a far too low estimate would
/// run its whole first wave on the host that granted first. Here `worth` says no
/// while the job holds a kept slot until the first tasks have "overrun", then yes; no task
/// ends, so only a new probe can bring the other host's slots.
#[test]
fn a_host_handed_back_is_probed_again_once_the_rule_turns() {
    let (addr_a, addr_b, mut c) = two_hosts();
    let execs = [NodeId(0), NodeId(1)];
    let job = JobId(0);
    let mut waiting = 4u32;
    c.submit(job, waiting, 0.035, false, Shape::ONE);
    let mut on = [0u32; 2];
    let (mut tid, mut seen) = (0i64, 0u64);
    let mut round = |c: &mut ClusterSide, waiting: &mut u32, on: &mut [u32; 2], overran: bool| {
        if let Some(n) = c.inbox().wait(seen, Duration::from_millis(20)) {
            seen = n;
        }
        c.set_pending(job, *waiting);
        let mut launched = Vec::new();
        for (k, &e) in execs.iter().enumerate() {
            let free = 2 - on[k];
            if free == 0 {
                continue;
            }
            let mut plan = Vec::new();
            c.offer(e, free, &[], |_, _, kept| overran || kept == 0, &mut plan);
            for j in plan {
                if *waiting == 0 {
                    c.decline(e, j);
                    continue;
                }
                *waiting -= 1;
                launched.push((tid, e, j));
                on[k] += 1;
                tid += 1;
            }
        }
        c.round_end(&launched);
    };
    eventually("two tasks on one host and the other's grant handed back", || {
        round(&mut c, &mut waiting, &mut on, false);
        on[0] + on[1] == 2 && c.counters.cold_returned >= 1
    });
    assert_eq!(on.iter().filter(|n| **n == 2).count(), 1, "both on the host that granted first: {on:?}");
    // Rounds go on with the rule still saying no: no probe goes back, nothing launches there.
    for _ in 0..10 {
        round(&mut c, &mut waiting, &mut on, false);
    }
    assert_eq!((on[0] + on[1], c.counters.probed_again), (2, 0), "{on:?} {:?}", c.counters);
    eventually("the other host's slots, once the rule turns", || {
        round(&mut c, &mut waiting, &mut on, true);
        on == [2, 2]
    });
    assert_eq!(c.counters.probed_again, 1, "{:?}", c.counters);
    for t in 0..tid {
        c.task_ended(t);
    }
    c.remove_job(job);
    eventually("no lease left on either node", || leased(&addr_a) == 0 && leased(&addr_b) == 0);
}

/// A barrier task set in cluster mode is a gang: it launches all its tasks in one round or
/// none, a grant it holds while short of the others goes back within its hold (so the other
/// application's work gets the slot), and once the host has the slots it runs whole.
#[test]
fn a_gang_launches_whole_or_not_at_all_and_gives_back_what_it_cannot_use_together() {
    let (addr, mut a, mut b) = shared_node(2);
    // b holds one of the two slots with a task that runs until the test ends it.
    b.submit(0, 1, 5.0, false);
    eventually("b's long task to run", || {
        b.round(&[]);
        b.running.len() == 1
    });
    a.submit_gang(5, 2, 0.05);
    // With one slot free the gang gathers at most one grant: it launches nothing, and gives
    // that grant back once its hold is over.
    eventually("the gang to give back a grant it could not use", || {
        a.round(&[]);
        b.round(&[]);
        a.c.counters.gang_returned >= 1
    });
    assert_eq!(a.launched, 0, "no task of a gang launches while its host has one slot free");
    // b's next job gets the slot the gang let go, while b's first task still runs.
    b.submit(1, 2, 0.05, false);
    eventually("b's second job to run beside its first", || {
        a.round(&[]);
        b.round(&[]);
        if b.running.len() == 2 {
            let tid = b.running.iter().find(|r| r.1 == JobId(1)).map(|r| r.0).unwrap();
            b.running.retain(|r| r.0 != tid);
            b.c.task_ended(tid);
        }
        b.waiting.iter().all(|w| w.0 != JobId(1) || w.1 == 0) && b.running.iter().all(|r| r.1 != JobId(1))
    });
    assert_eq!(a.launched, 0, "the gang still waits for two slots");
    // b's first task ends: both slots free, and the gang runs whole, in one round.
    b.finish_one();
    eventually("the gang to launch", || {
        a.round(&[]);
        a.launched == 2
    });
    assert_eq!(a.gang_launches, vec![2], "both tasks of the gang in one round");
    while !a.done() {
        a.finish_one();
        a.round(&[]);
    }
    a.remove_all();
    b.remove_all();
    eventually("no lease left on the node", || leased(&addr) == 0);
}

/// A long task whose grant went back unused (Spark could not run it on that executor then)
/// is placed again: the central's placement was spent on the grant.
#[test]
fn a_long_task_whose_grant_went_back_is_placed_again() {
    let (addr, mut a) = linked_app(2);
    a.submit(4, 1, 1.0, true);
    eventually("the long grant to be refused and returned", || {
        a.round(&[JobId(4)]);
        a.c.counters.returned >= 1
    });
    assert_eq!(a.launched, 0);
    eventually("the long task to launch", || {
        a.round(&[]);
        a.launched == 1
    });
    a.finish_one();
    a.c.remove_job(JobId(4));
    eventually("no lease left on the node", || leased(&addr) == 0);
}

/// The central tells the driver its short-only hosts (`ShortOnly`): no long task set gets a
/// slot there while the central places it, so the plugin's delay scheduling does not hold
/// a long task back for input there (`grants/reach.rs`). A short task set, a long one
/// Spark restricts to some executors, and any long one once the central is gone (the
/// driver then places it anywhere) have nothing out of reach.
#[test]
fn a_long_task_set_has_the_short_only_hosts_out_of_reach_while_the_central_places_it() {
    let (addr_a, port) = node(2);
    let (addr_b, _) = node_on(eagle_node::Policy::Eagle, 2, &format!("127.0.0.2:{port}"));
    let central = central_named(&[("127.0.0.1", &addr_a), ("127.0.0.2", &addr_b)], SECRET, 0.5);
    let mut c = side("reach", &central, port);
    c.executor_added(NodeId(0), "127.0.0.1");
    c.executor_added(NodeId(1), "127.0.0.2");
    eventually("both nodes and the central linked", || {
        c.drain();
        c.hosts_up() == 2 && c.central_up()
    });
    c.submit(JobId(0), 4, 5.0, true, Shape::ONE);
    c.submit(JobId(1), 4, 0.01, false, Shape::ONE);
    c.submit(JobId(2), 4, 5.0, true, Shape::ONE);
    let mut short_only = Vec::new();
    eventually("the short-only host to be known", || {
        short_only = c.out_of_reach(JobId(0));
        !short_only.is_empty()
    });
    assert_eq!(short_only.len(), 1, "one host of two is short-only: {short_only:?}");
    assert!(c.out_of_reach(JobId(1)).is_empty(), "short work may run on every host");
    c.restrict(JobId(2), Some(&[NodeId(0)]));
    assert!(c.out_of_reach(JobId(2)).is_empty(), "a restricted task set may be placed by the driver");
    assert!(c.out_of_reach(JobId(7)).is_empty(), "an unknown task set");
    c.remove_job(JobId(0));
    assert!(c.out_of_reach(JobId(0)).is_empty(), "a task set that is gone");
}

/// A long task set says where its tasks' input is (`inputNodes` of `submit`): the central
/// puts them near it, within one task estimate of least work left, where without input it
/// spreads them evenly.
#[test]
fn a_long_task_set_is_placed_near_its_input() {
    let (addr_a, port) = node(2);
    let (addr_b, _) = node_on(eagle_node::Policy::Eagle, 2, &format!("127.0.0.2:{port}"));
    let central = central_named(&[("127.0.0.1", &addr_a), ("127.0.0.2", &addr_b)], SECRET, 0.0);
    let mut c = side("near", &central, port);
    c.executor_added(NodeId(0), "127.0.0.1");
    c.executor_added(NodeId(1), "127.0.0.2");
    eventually("both nodes and the central linked", || {
        c.drain();
        c.hosts_up() == 2 && c.central_up()
    });
    let long_tasks = || {
        let st = eagle_wire::client::central_status(&central, SECRET, Duration::from_secs(10)).unwrap();
        st.nodes.iter().map(|n| n.long_tasks).collect::<Vec<_>>()
    };
    // Four tasks of 5 s, every one reading its input on the executor of 127.0.0.2: three go
    // there (the third ends 5 s after it would on the idle host, the bound), one elsewhere.
    c.submit_near(JobId(0), 4, 5.0, true, Shape::ONE, &[NodeId(1); 4]);
    eventually("the job placed near its input", || long_tasks() == vec![1, 3]);
    c.remove_job(JobId(0));
    eventually("the reservations dropped", || {
        c.drain();
        long_tasks() == vec![0, 0]
    });
    // Without input: least work left, two each.
    c.submit(JobId(1), 4, 5.0, true, Shape::ONE);
    eventually("the job placed by least work left", || long_tasks() == vec![2, 2]);
    c.remove_job(JobId(1));
}
