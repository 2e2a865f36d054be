//! Waiting for daemons under one bound: a condition polled until it holds, and the
//! conditions the tests wait for (a central that has linked its nodes) or read (a
//! node's leased slots), asked over the status queries of `eagle_wire::client`.

use std::thread;
use std::time::{Duration, Instant};

/// How long a condition may take before the test fails: generous, the machine may be loaded.
pub const PATIENCE: Duration = Duration::from_secs(60);

/// How long a query may wait for a daemon's answer.
const QUERY: Duration = Duration::from_secs(10);

/// Polls `f` every 20 ms until it returns `Some`; panics naming `what` after [`PATIENCE`].
pub fn eventually<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        if let Some(t) = f() {
            return t;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        thread::sleep(Duration::from_millis(20));
    }
}

/// Waits until the central at `addr` knows `n` nodes, every one linked.
pub fn central_linked(addr: &str, secret: &[u8], n: usize) {
    eventually("the central to link every node", || {
        let st = eagle_wire::client::central_status(addr, secret, QUERY).ok()?;
        (st.nodes.len() == n && st.nodes.iter().all(|h| h.connected)).then_some(())
    });
}

/// Slots leased on the node at `addr` (`u32::MAX` when it does not answer).
pub fn leased(addr: &str, secret: &[u8]) -> u32 {
    eagle_wire::client::node_status(addr, secret, QUERY).map(|s| s.leased).unwrap_or(u32::MAX)
}
