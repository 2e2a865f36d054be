//! In-process daemons for tests: builders over `eagle_node::Options` and
//! `eagle_central::Options` whose defaults are what the tests share (an ephemeral
//! loopback port; Eagle with 5 s leases; a central with no short-only share, the fixed
//! partition, LWL placement, no long headroom, and pings every 200 ms). A test names
//! only what it changes.

use eagle_central::{placement::Placement, short_partition::ShortPartition, CentralHandle};
use eagle_node::{NodeHandle, Policy, Settings};
use std::io;
use std::net::SocketAddr;

/// Listen here for a free port the kernel picks (the bound address is the handle's `addr`).
pub const LOOPBACK: &str = "127.0.0.1:0";

/// Starts a daemon with `spawn` after routing the log to the test's captured output
/// (once per process); panics naming the daemon if it cannot listen.
fn started<O, H>(daemon: &str, listen: &str, spawn: fn(O) -> io::Result<H>, opts: O) -> H {
    let _ = env_logger::builder().is_test(true).try_init();
    spawn(opts).unwrap_or_else(|e| panic!("{daemon} on {listen}: {e}"))
}

/// An `eagle-node` to start: Eagle, 5 s leases, no central, no peers, on [`LOOPBACK`].
#[derive(Clone, Debug)]
pub struct Node(eagle_node::Options);

impl Node {
    /// A node of `slots` slots whose peers must prove `secret`.
    pub fn new(secret: &[u8], slots: u32) -> Node {
        Node(eagle_node::Options {
            settings: Settings { policy: Policy::Eagle, slots, lease_ms: 5_000 },
            listen: LOOPBACK.into(),
            secret: secret.to_vec(),
            central: None,
            name: None,
            advertise: None,
            peers: Vec::new(),
            steal_fraction: None,
        })
    }

    pub fn policy(mut self, policy: Policy) -> Node {
        self.0.settings.policy = policy;
        self
    }

    /// Leases (and silent peers) expire after `lease_ms`.
    pub fn lease_ms(mut self, lease_ms: u64) -> Node {
        self.0.settings.lease_ms = lease_ms;
        self
    }

    /// Listens on `addr` instead (e.g. another loopback address on a port already known).
    pub fn listen(mut self, addr: &str) -> Node {
        self.0.listen = addr.into();
        self
    }

    /// Hawk: the nodes to steal from.
    pub fn peers(mut self, peers: Vec<String>) -> Node {
        self.0.peers = peers;
        self
    }

    /// Starts the daemon; panics if it cannot listen.
    pub fn spawn(self) -> NodeHandle {
        started("eagle-node", &self.0.listen.clone(), eagle_node::spawn, self.0)
    }

    /// Starts the daemon and returns its address.
    pub fn start(self) -> SocketAddr {
        self.spawn().addr
    }
}

/// An `eagle-central` to start over known nodes: no short-only share, the fixed
/// partition, LWL, no long headroom, pings every 200 ms, on [`LOOPBACK`].
#[derive(Clone, Debug)]
pub struct Central(eagle_central::Options);

impl Central {
    /// A central over the nodes `(name, address)` whose peers must prove `secret`.
    pub fn new(secret: &[u8], nodes: Vec<(String, String)>) -> Central {
        Central(eagle_central::Options {
            listen: LOOPBACK.into(),
            secret: secret.to_vec(),
            nodes,
            short_fraction: 0.0,
            short_partition: ShortPartition::Fixed,
            ping_ms: 200,
            placement: Placement::Lwl,
            long_headroom: 0.0,
        })
    }

    /// A central over the nodes at `addrs`, named `n0`, `n1`, ... in that order.
    pub fn numbered<A: ToString>(secret: &[u8], addrs: &[A]) -> Central {
        Central::new(secret, addrs.iter().enumerate().map(|(i, a)| (format!("n{i}"), a.to_string())).collect())
    }

    /// The share of the connected hosts kept for short work only.
    pub fn short_fraction(mut self, fraction: f64) -> Central {
        self.0.short_fraction = fraction;
        self
    }

    pub fn short_partition(mut self, partition: ShortPartition) -> Central {
        self.0.short_partition = partition;
        self
    }

    pub fn placement(mut self, placement: Placement) -> Central {
        self.0.placement = placement;
        self
    }

    /// The share of the general hosts no one long job's tasks go to.
    pub fn long_headroom(mut self, fraction: f64) -> Central {
        self.0.long_headroom = fraction;
        self
    }

    /// Starts the daemon (it dials its nodes in the background); panics if it cannot.
    pub fn spawn(self) -> CentralHandle {
        started("eagle-central", &self.0.listen.clone(), eagle_central::spawn, self.0)
    }

    /// Starts the daemon and returns its address.
    pub fn start(self) -> SocketAddr {
        self.spawn().addr
    }
}
