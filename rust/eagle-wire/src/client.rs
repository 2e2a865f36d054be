//! One-shot clients for operators and tests: ask a daemon for its status.
//!
//! `eagle-node --status ADDR`, `eagle-central --status ADDR`, `scripts/eagle-cluster.sh
//! status` and the fault tests use these. A status query authenticates like any peer
//! (the [`handshake`](crate::handshake)) under the [`Role::Node`] role with the id
//! [`STATUS_CLIENT`]: a node-role peer leaves no trace in either daemon's state (it
//! registers no application and gets no host list), so asking never perturbs what is
//! asked about. Every error names the address and what failed (connect, handshake,
//! answer), so a script can print it as is.

use crate::frame::{write_frame, FrameReader};
use crate::handshake::{connect, Role};
use crate::msg::{CentralStatus, FromCentral, FromNode, NodeStatus, ToCentral, ToNode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::io::{BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The peer id a status query presents in the handshake.
pub const STATUS_CLIENT: &str = "eagle-status";

/// Opens an authenticated connection to the daemon at `addr` (as `role`, id `app`),
/// every step bounded by `timeout`. The error names `what` and `addr`.
pub fn open(
    addr: &str,
    secret: &[u8],
    role: Role,
    app: &str,
    what: &str,
    timeout: Duration,
) -> Result<TcpStream, String> {
    let fail = |step: &str, e: &dyn std::fmt::Display| format!("{what} at {addr}: {step}: {e}");
    let sock = addr
        .to_socket_addrs()
        .map_err(|e| fail("cannot resolve the address", &e))?
        .next()
        .ok_or_else(|| fail("cannot resolve the address", &"no address found"))?;
    let s = TcpStream::connect_timeout(&sock, timeout).map_err(|e| fail("connect", &e))?;
    let _ = s.set_nodelay(true);
    s.set_read_timeout(Some(timeout)).map_err(|e| fail("socket", &e))?;
    s.set_write_timeout(Some(timeout)).map_err(|e| fail("socket", &e))?;
    connect(&mut &s, secret, role, app).map_err(|e| fail("handshake", &e))?;
    Ok(s)
}

/// Sends `ask` once and returns the first answer `pick` accepts (other messages,
/// e.g. the central's host list, are skipped).
fn query<Q: Serialize, A: DeserializeOwned, T>(
    addr: &str,
    secret: &[u8],
    what: &str,
    timeout: Duration,
    ask: &Q,
    pick: impl Fn(A) -> Option<T>,
) -> Result<T, String> {
    let s = open(addr, secret, Role::Node, STATUS_CLIENT, what, timeout)?;
    let mut w = &s;
    write_frame(&mut w, ask)
        .and_then(|_| w.flush().map_err(Into::into))
        .map_err(|e| format!("{what} at {addr}: send: {e}"))?;
    let mut r = FrameReader::new(BufReader::new(&s));
    loop {
        let m = r.read::<A>().map_err(|e| format!("{what} at {addr}: no status answer: {e}"))?;
        if let Some(t) = pick(m) {
            let _ = s.shutdown(std::net::Shutdown::Both);
            return Ok(t);
        }
    }
}

/// The status of the `eagle-node` daemon at `addr`.
pub fn node_status(addr: &str, secret: &[u8], timeout: Duration) -> Result<NodeStatus, String> {
    query(addr, secret, "eagle-node", timeout, &ToNode::Status, |m: FromNode| match m {
        FromNode::Status(s) => Some(s),
        _ => None,
    })
}

/// The status of the `eagle-central` daemon at `addr`.
pub fn central_status(addr: &str, secret: &[u8], timeout: Duration) -> Result<CentralStatus, String> {
    query(addr, secret, "eagle-central", timeout, &ToCentral::Status, |m: FromCentral| match m {
        FromCentral::Status(s) => Some(s),
        _ => None,
    })
}

/// One line for an operator: `slots=2 leased=1 running=1 queued=3 probes=2
/// reservations=1 long=no apps=a:1/2/0,b:0/0/1` (per application: leased/probes/reservations),
/// then ` short_slots=N` when the central keeps slots for short work there.
pub fn node_line(s: &NodeStatus) -> String {
    let probes: u32 = s.apps.iter().map(|a| a.probes).sum();
    let reservations: u32 = s.apps.iter().map(|a| a.reservations).sum();
    let apps: Vec<String> =
        s.apps.iter().map(|a| format!("{}:{}/{}/{}", a.app, a.leased, a.probes, a.reservations)).collect();
    format!(
        "policy={} slots={} leased={} running={} queued={} probes={probes} reservations={reservations} long={} apps={}",
        s.policy,
        s.slots,
        s.leased,
        s.running,
        probes + reservations,
        if s.holds_long { "yes" } else { "no" },
        if apps.is_empty() { "-".to_string() } else { apps.join(",") }
    ) + &if s.short_slots > 0 { format!(" short_slots={}", s.short_slots) } else { String::new() }
}

/// One line for an operator: `nodes=2/3 long_tasks=4 bitvector_stamp=7 hosts=n0:up/short:0,n1:up/general:4,n2:down`
/// (a host keeping slots for short work, `--short-partition slots`: `n1:up/general:4/kept:1`).
pub fn central_line(s: &CentralStatus) -> String {
    let up = s.nodes.iter().filter(|n| n.connected).count();
    let long: u32 = s.nodes.iter().map(|n| n.long_tasks).sum();
    let hosts: Vec<String> = s
        .nodes
        .iter()
        .map(|n| match (n.connected, n.general) {
            (false, _) => format!("{}:down", n.name),
            (true, g) => {
                let kept = if n.short_slots > 0 && g { format!("/kept:{}", n.short_slots) } else { String::new() };
                format!("{}:up/{}:{}{kept}", n.name, if g { "general" } else { "short" }, n.long_tasks)
            }
        })
        .collect();
    format!(
        "nodes={up}/{} long_tasks={long} bitvector_stamp={} hosts={}",
        s.nodes.len(),
        s.bitvector.stamp,
        if hosts.is_empty() { "-".to_string() } else { hosts.join(",") }
    )
}
