//! The central scheduler dies with long tasks in flight: asked of it (`SubmitLong`) and
//! neither placed nor refused. The driver cannot know whether any node got them, so they
//! are placed by the local fallback (LWL over the driver's own hosts) when the link drops.
//! Before 2026-11-29 they stayed counted as reserved, and the task set waited for grants
//! that could never come.
//!
//! The central here is a stand-in that takes the request and dies without an answer, so
//! the loss is certain; the nodes are real `eagle-node`s. No timing is asserted.

#[allow(dead_code)] // each test crate uses part of the shared support
mod support;

use eagle_client::Event;
use support::*;

#[test]
fn long_tasks_in_flight_when_the_central_dies_are_placed_locally_and_all_run_once() {
    let (n0, n1) = (node(2), node(2));
    // The central dies on the first `SubmitLong`, unanswered.
    let (central, asked) = stand_in_central(&["h0", "h1"], |_, _, _| None);
    let c = client_with("app", &central, 2, 100);
    c.add_host("h0", &n0);
    c.add_host("h1", &n1);
    let mut d = Driver::default();
    d.until(&c, "both hosts and the central", false, |d| {
        d.events.contains(&Event::CentralUp) && d.events.iter().filter(|e| matches!(e, Event::HostUp(_))).count() == 2
    });
    d.submit(&c, 1, 3, true);
    d.until(&c, "the central's death, then all three tasks run", false, |d| {
        d.events.contains(&Event::CentralDown) && d.ran_of(1).len() == 3
    });
    assert_eq!(*asked.lock(), vec![(1, 3)], "the central was asked once, and answered nothing");
    // Each task ran once; then every slot is free again on both nodes.
    assert_eq!(d.ran_of(1).len(), 3);
    eventually("every lease over", || (leased(&n0) == 0 && leased(&n1) == 0).then_some(()));
}
