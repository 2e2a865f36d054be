//! A long task the central placed on a host whose node then refused it (`PlaceRefused`;
//! the node tells the driver, `Unqueued`, and the central answers it `Unplaced`) is no
//! longer counted as queued there. Were the driver to keep counting it, then when its link
//! to that host later dropped it would ask the central to place that task once more, and the
//! spare reservation would come back as a grant with nothing to launch.
//!
//! The central here is a stand-in that scripts its answers and the refusal, so both are certain;
//! the nodes are real `eagle-node`s. No timing is asserted.

#[allow(dead_code)] // each test crate uses part of the shared support
mod support;

use eagle_client::Event;
use eagle_wire::FromCentral;
use std::time::Duration;
use support::*;

/// A central whose host list is `names`. The first `SubmitLong` of a job is placed one
/// task per host in turn, and the task on host 1 is then refused by that host's node (at
/// `node1`: the stand-in asks it for more slots than it has), which tells the driver
/// (`Unqueued`) and the central, whose `Unplaced` names host 1; every later one is placed
/// on host 0.
fn refusing_central(names: &[&str], node1: &str) -> (String, Asked) {
    let node1 = node1.to_string();
    stand_in_central(names, move |first, job, tasks| {
        Answer::Send(if first && tasks >= 2 {
            place_on_node(&node1, "app", job, &[3], false, 1);
            let hosts = (0..tasks).map(|i| i % 2).collect();
            vec![FromCentral::Placed { job, hosts }, FromCentral::Unplaced { job, tasks: 1, host: Some(1) }]
        } else {
            vec![FromCentral::Placed { job, hosts: vec![0; tasks as usize] }]
        })
    })
}

#[test]
fn a_placement_the_node_refused_is_not_placed_again_when_that_hosts_link_drops() {
    let (n0, n1) = (node(2), node(2));
    let proxy = Proxy::new(&n1);
    let (central, asked) = refusing_central(&["h0", "h1"], &n1);
    let (c, mut d) = linked_client("app", &central, &[("h0", &n0), ("h1", &proxy.addr)]);
    d.submit(&c, 1, 2, true);
    // Two tasks placed (one on each host), the one on h1 refused and asked for again.
    eventually("the refused task asked for again", || {
        (asked.lock().iter().map(|a| a.1).sum::<u32>() >= 3).then_some(())
    });
    proxy.cut();
    d.until(&c, "h1 seen down", false, |d| d.events.contains(&Event::HostDown("h1".into())));
    // Nothing of the job was queued on h1 any more: its link dropping places nothing again.
    // Twenty client ticks (at 100 ms) for a request that, when wrong, goes out at once.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(*asked.lock(), vec![(1, 2), (1, 1)], "long tasks asked of the central");
    assert_eq!((c.unplaced_long(), c.placed_locally()), (1, 0), "(unplaced, placed locally)");
}
