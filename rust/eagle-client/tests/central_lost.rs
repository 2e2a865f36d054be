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
use eagle_wire::{FromCentral, Role, ToCentral};
use parking_lot::Mutex;
use std::net::{Shutdown, TcpListener};
use std::sync::Arc;
use support::*;

/// The `SubmitLong` requests a stand-in central received: (job, tasks).
type Asked = Arc<Mutex<Vec<(u64, u32)>>>;

/// A central on 127.0.0.1 whose host list is `names`, which dies (closes its link and stops
/// listening) on the first `SubmitLong`, unanswered. Returns its address and what it was asked.
fn dying_central(names: &[&str]) -> (String, Asked) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let asked: Asked = Arc::default();
    let (seen, names) = (asked.clone(), names.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    std::thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            if eagle_wire::accept(&mut s, SECRET, Role::Central, &[Role::Driver]).is_err() {
                continue;
            }
            let mut w = s.try_clone().unwrap();
            if eagle_wire::write_frame(&mut w, &FromCentral::Hosts { names: names.clone() }).is_err() {
                continue;
            }
            while let Ok(m) = eagle_wire::read_frame::<_, ToCentral>(&mut s) {
                match m {
                    ToCentral::SubmitLong { job, tasks, .. } => {
                        seen.lock().push((job, tasks));
                        let _ = s.shutdown(Shutdown::Both);
                        return; // the listener goes with it: reconnecting is refused
                    }
                    ToCentral::Ping => {
                        let _ = eagle_wire::write_frame(&mut w, &FromCentral::Pong);
                    }
                    _ => {}
                }
            }
        }
    });
    (addr, asked)
}

#[test]
fn long_tasks_in_flight_when_the_central_dies_are_placed_locally_and_all_run_once() {
    let (n0, n1) = (node(2), node(2));
    let (central, asked) = dying_central(&["h0", "h1"]);
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
