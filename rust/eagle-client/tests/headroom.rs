//! `eagle-central --long-headroom` through the client and real daemons: a long job of many
//! tasks queues on fewer hosts than it may use, a small long job of another application
//! runs at once on the host left free, and every task still launches once. No timing is
//! asserted; every wait is bounded generously.

#[allow(dead_code)] // each test crate uses part of the shared support
mod support;

use support::*;

#[test]
fn a_big_long_job_leaves_a_host_to_a_small_one_of_another_application() {
    let nodes: Vec<String> = (0..2).map(|_| node(2)).collect();
    // 2 general hosts, headroom 0.5: one host no one job's tasks go to.
    let central = central_headroom(&nodes, 0.5);
    central_linked(&central, 2);
    let hosts = [("h0", nodes[0].as_str()), ("h1", nodes[1].as_str())];
    let (big, mut db) = linked_client("batch-1", &central, &hosts);
    let (small, mut ds) = linked_client("batch-0", &central, &hosts);
    db.submit(&big, 1, 8, true);
    db.until(&big, "two of the big job's tasks to run", true, |d| d.running.len() == 2);
    // A second more, the two held running: the other host's slots stay free of the big job.
    hold_for(&mut db, &big, 1_000);
    assert_eq!(db.ran_of(1).len(), 2, "{:?}", db.ran);
    let busy = db.ran[0].1.clone();
    assert!(db.ran.iter().all(|r| r.1 == busy), "one host: {:?}", db.ran);
    // A small long job of another application runs at once on the other host.
    ds.submit(&small, 7, 2, true);
    ds.until(&small, "the small job's tasks beside the big job's", true, |d| d.running.len() == 2);
    assert!(ds.ran.iter().all(|r| r.1 != busy), "{:?}", ds.ran);
    assert_eq!(db.running.len(), 2);
    for g in ds.running.drain(..) {
        small.task_end(&g);
    }
    small.finished(7);
    // The big job's tasks end: its other six run, each launched once.
    for g in db.running.drain(..) {
        big.task_end(&g);
    }
    db.until(&big, "every task of the big job", false, |d| d.left[&1] == 0);
    big.finished(1);
    assert_eq!(db.ran_of(1).len(), 8, "{:?}", db.ran);
    for a in &nodes {
        eventually("no lease left", || (leased(a) == 0).then_some(()));
    }
    eventually("no long task left placed", || {
        central_status(&central).nodes.iter().all(|n| n.long_tasks == 0).then_some(())
    });
}
