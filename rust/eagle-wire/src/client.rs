//! One-shot clients for operators and tests: ask a daemon for its status.
//!
//! `eagle-node --status ADDR`, `eagle-central --status ADDR`, `scripts/eagle-cluster.sh
//! status` and the fault tests use these. A status query authenticates like any peer
//! (the [`handshake`](crate::handshake)) under the [`Role::Node`] role with the id
//! [`STATUS_CLIENT`]: a node-role peer leaves no trace in either daemon's state (it
//! registers no application and gets no host list), so asking never perturbs what is
//! asked about. Every error names the address and what failed (connect, handshake,
//! answer), so a script can print it as is.

use crate::frame::{write_frame, FrameError, FrameReader};
use crate::handshake::{connect, HandshakeError, Role};
use crate::msg::{CentralStatus, FromCentral, FromNode, NodeStatus, ToCentral, ToNode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::fmt;
use std::io::{self, BufReader, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The peer id a status query presents in the handshake.
pub const STATUS_CLIENT: &str = "eagle-status";

/// Why a query to a daemon failed: which daemon (`what`), at which address, and the step.
#[derive(Debug)]
pub struct ClientError {
    /// The daemon asked (`eagle-node`, `eagle-central`).
    pub what: String,
    pub addr: String,
    pub step: ClientStep,
}

/// The step of a [`ClientError`] that failed, with its cause.
#[derive(Debug)]
pub enum ClientStep {
    /// The address did not resolve (`None`: it resolved to no address).
    Resolve(Option<io::Error>),
    Connect(io::Error),
    /// Setting the socket's timeouts.
    Socket(io::Error),
    Handshake(HandshakeError),
    Send(FrameError),
    /// The connection ended before the status answer.
    NoAnswer(FrameError),
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}: ", self.what, self.addr)?;
        match &self.step {
            ClientStep::Resolve(Some(e)) => write!(f, "cannot resolve the address: {e}"),
            ClientStep::Resolve(None) => f.write_str("cannot resolve the address: no address found"),
            ClientStep::Connect(e) => write!(f, "connect: {e}"),
            ClientStep::Socket(e) => write!(f, "socket: {e}"),
            ClientStep::Handshake(e) => write!(f, "handshake: {e}"),
            ClientStep::Send(e) => write!(f, "send: {e}"),
            ClientStep::NoAnswer(e) => write!(f, "no status answer: {e}"),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.step {
            ClientStep::Resolve(e) => e.as_ref().map(|e| e as _),
            ClientStep::Connect(e) | ClientStep::Socket(e) => Some(e),
            ClientStep::Handshake(e) => Some(e),
            ClientStep::Send(e) | ClientStep::NoAnswer(e) => Some(e),
        }
    }
}

/// Opens an authenticated connection to the daemon at `addr` (as `role`, id `app`),
/// every step bounded by `timeout`. The error names `what` and `addr`.
pub fn open(
    addr: &str,
    secret: &[u8],
    role: Role,
    app: &str,
    what: &str,
    timeout: Duration,
) -> Result<TcpStream, ClientError> {
    let fail = |step| ClientError { what: what.to_string(), addr: addr.to_string(), step };
    let sock = addr
        .to_socket_addrs()
        .map_err(|e| fail(ClientStep::Resolve(Some(e))))?
        .next()
        .ok_or_else(|| fail(ClientStep::Resolve(None)))?;
    let s = TcpStream::connect_timeout(&sock, timeout).map_err(|e| fail(ClientStep::Connect(e)))?;
    let _ = s.set_nodelay(true);
    s.set_read_timeout(Some(timeout)).map_err(|e| fail(ClientStep::Socket(e)))?;
    s.set_write_timeout(Some(timeout)).map_err(|e| fail(ClientStep::Socket(e)))?;
    connect(&mut &s, secret, role, app).map_err(|e| fail(ClientStep::Handshake(e)))?;
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
) -> Result<T, ClientError> {
    let fail = |step| ClientError { what: what.to_string(), addr: addr.to_string(), step };
    let s = open(addr, secret, Role::Node, STATUS_CLIENT, what, timeout)?;
    let mut w = &s;
    write_frame(&mut w, ask).and_then(|_| w.flush().map_err(Into::into)).map_err(|e| fail(ClientStep::Send(e)))?;
    let mut r = FrameReader::new(BufReader::new(&s));
    loop {
        let m = r.read::<A>().map_err(|e| fail(ClientStep::NoAnswer(e)))?;
        if let Some(t) = pick(m) {
            let _ = s.shutdown(std::net::Shutdown::Both);
            return Ok(t);
        }
    }
}

/// The status of the `eagle-node` daemon at `addr`.
pub fn node_status(addr: &str, secret: &[u8], timeout: Duration) -> Result<NodeStatus, ClientError> {
    query(addr, secret, "eagle-node", timeout, &ToNode::Status, |m: FromNode| match m {
        FromNode::Status(s) => Some(s),
        _ => None,
    })
}

/// The status of the `eagle-central` daemon at `addr`.
pub fn central_status(addr: &str, secret: &[u8], timeout: Duration) -> Result<CentralStatus, ClientError> {
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
