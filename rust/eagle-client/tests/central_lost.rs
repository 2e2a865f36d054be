//! The central scheduler dies with long tasks in flight: asked of it (`SubmitLong`) and
//! neither placed nor refused. The driver cannot know whether any node got them, so they
//! are placed by the local fallback (LWL over the driver's own hosts) when the link drops.
//! Counted as reserved instead, the task set would wait for grants that could never come.
//!
//! The same holds for placements a node hands back (`PlaceRefused`) just before the
//! central dies: the central's `Unplaced` for them never comes, so the node tells the
//! driver itself.
//!
//! The central here is a stand-in that scripts its answers and its death, so the loss is
//! certain; the nodes are real `eagle-node`s. No timing is asserted.

#[allow(dead_code)] // each test crate uses part of the shared support
mod support;

use eagle_client::Event;
use eagle_wire::FromCentral;
use support::*;

#[test]
fn long_tasks_in_flight_when_the_central_dies_are_placed_locally_and_all_run_once() {
    let (n0, n1) = (node(2), node(2));
    // The central dies on the first `SubmitLong`, unanswered.
    let (central, asked) = stand_in_central(&["h0", "h1"], |_, _, _| Answer::Last(Vec::new()));
    let (c, mut d) = linked_client("app", &central, &[("h0", &n0), ("h1", &n1)]);
    d.submit(&c, 1, 3, true);
    d.until(&c, "the central's death, then all three tasks run", false, |d| {
        d.events.contains(&Event::CentralDown) && d.ran_of(1).len() == 3
    });
    assert_eq!(*asked.lock(), vec![(1, 3)], "the central was asked once, and answered nothing");
    assert_eq!((c.unplaced_long(), c.placed_locally()), (0, 3), "(unplaced, placed locally)");
    // Each task ran once; then every slot is free again on both nodes.
    assert_eq!(d.ran_of(1).len(), 3);
    eventually("every lease over", || (leased(&n0) == 0 && leased(&n1) == 0).then_some(()));
}

/// The central places a job's three long tasks on a host of one slot, the first is granted
/// there and the other two queue; then the host joins the short partition and the central
/// hands them back (`DropReservations`), and dies before it tells the driver (`Unplaced`).
/// Were the driver to still count the two as queued on that host (they are not in flight at
/// the central), nothing would place them again, and the task set would wait for good.
#[test]
fn placements_a_node_hands_back_as_the_central_dies_are_placed_locally_and_all_run_once() {
    let (n0, n1) = (node(2), node(1));
    let at_n1 = n1.clone();
    let (central, asked) = stand_in_central(&["h0", "h1"], move |_, job, tasks| {
        // As a real central does: the node hears first (every task but the granted one
        // comes back refused), then the driver; then the central dies.
        place_on_node(&at_n1, "app", job, &vec![1; tasks as usize], true, tasks - 1);
        Answer::Last(vec![FromCentral::Placed { job, hosts: vec![1; tasks as usize] }])
    });
    let (c, mut d) = linked_client("app", &central, &[("h0", &n0), ("h1", &n1)]);
    d.submit(&c, 1, 3, true);
    // The first task holds h1's only slot, so the other two stay queued there until handed back.
    d.until(&c, "the first task, and the central's death", true, |d| {
        d.events.contains(&Event::CentralDown) && !d.ran_of(1).is_empty()
    });
    for g in std::mem::take(&mut d.running) {
        c.task_end(&g);
    }
    d.until(&c, "all three tasks run", false, |d| d.ran_of(1).len() == 3);
    assert_eq!(*asked.lock(), vec![(1, 3)], "the central was asked once");
    // The two handed back, and again any that a node rejected then.
    assert!(
        c.unplaced_long() == 0 && c.placed_locally() >= 2,
        "unplaced {}, placed locally {}",
        c.unplaced_long(),
        c.placed_locally()
    );
    eventually("every lease over", || (leased(&n0) == 0 && leased(&n1) == 0).then_some(()));
    assert_eq!(d.ran_of(1).len(), 3, "each task ran once");
}
