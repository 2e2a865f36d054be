//! A long job's spare placement: the client places a long task set's waiting tasks less the
//! placements not yet granted, so a retry that Spark queues while a grant is in the driver's
//! hands is placed once more, and one placement is left over once every task has launched.
//! Its grant then goes back at once ("no task"), and it must leave the client's count of
//! placements still to come with it: otherwise a task that failed after that would ask for no
//! slot (the count says one is coming) and the task set would wait for good (as
//! `tests/test_cluster_mode.py`'s retries can show under load). No timing is asserted.

#[allow(dead_code)] // each test crate uses part of the shared support
mod support;

use eagle_client::{Event, Grant};
use std::time::Duration;
use support::*;

fn next_grant(c: &eagle_client::Client, what: &str) -> Grant {
    loop {
        match c.events().recv_timeout(Duration::from_secs(60)) {
            Ok(Event::Grant(g)) => return g,
            Ok(_) => {}
            Err(_) => panic!("timed out waiting for {what}"),
        }
    }
}

#[test]
fn a_spare_long_grant_returned_with_nothing_left_leaves_a_later_retry_a_placement() {
    let n = node(2);
    let central = central(std::slice::from_ref(&n));
    let (c, _d) = linked_client("app", &central, &[("h0", &n)]);
    // (reservations queued, slots leased) on the node.
    let status = || {
        let s = eagle_wire::client::node_status(&n, SECRET, Duration::from_secs(10)).unwrap();
        (s.apps.iter().map(|a| a.reservations).sum::<u32>(), s.leased)
    };
    c.submit_wide(1, 1, 50.0, true, 1);
    let g1 = next_grant(&c, "the first task's grant");
    // A retry joins before the driver launched under the first grant: Spark counts two tasks
    // waiting, and the client places both (the first grant is not yet spent).
    c.remaining(1, 2);
    let g2 = next_grant(&c, "a grant of the node's other slot");
    eventually("the third placement to queue on the full node", || (status() == (1, 2)).then_some(()));
    c.launched(&g1);
    c.launched(&g2);
    // The first task ends: the node grants the spare placement, and the client hands it back.
    c.task_end(&g1);
    eventually("the spare grant to go back", || (status() == (0, 1)).then_some(()));
    // The second task fails: Spark has one task waiting again, and it must get a slot.
    c.task_end(&g2);
    c.remaining(1, 1);
    let g3 = next_grant(&c, "the failed task's grant");
    assert_eq!((g3.job, g3.long), (1, true));
    c.launched(&g3);
    c.task_end(&g3);
    eventually("no lease left", || (leased(&n) == 0).then_some(()));
}
