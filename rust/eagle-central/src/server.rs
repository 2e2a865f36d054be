//! The central scheduler's threads: the accept loop and reader threads for drivers
//! and registering nodes ([`eagle_wire::net`]), one connector thread per host that
//! keeps the central's link to that node daemon up (reconnecting every half second
//! while it is down), and one scheduler thread that owns the [`CentralState`] and
//! every write half. Both kinds of readers feed the scheduler over
//! `crossbeam-channel`s.

use crate::error::FlagError;
use crate::placement::Placement;
use crate::short_partition::ShortPartition;
use crate::state::{Action, CentralState, Event, HostEvent, HostId};
use crossbeam_channel::{select, tick, unbounded, Sender};
use eagle_wire::net::{serve, Inbound, Writers};
use eagle_wire::{connect, FrameError, FrameReader, FromNode, HandshakeError, Role, ToCentral};
use std::io::{self, BufReader};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub struct Options {
    pub listen: String,
    pub secret: Vec<u8>,
    /// `(name, addr)` of the nodes known at start (`--nodes`); more may register.
    pub nodes: Vec<(String, String)>,
    /// Share of connected hosts kept for short work only (the floor, when adaptive).
    pub short_fraction: f64,
    /// Fixed (the paper's), or grown to the drivers' short demand (`--short-partition`).
    pub short_partition: ShortPartition,
    /// Keep-alive period towards the nodes; keep it under a third of their lease time.
    pub ping_ms: u64,
    /// How long tasks are placed (`--placement`).
    pub placement: Placement,
    /// The share of the general hosts no one long job's tasks go to (`--long-headroom`; 0: off).
    pub long_headroom: f64,
}

#[derive(Debug)]
pub struct CentralHandle {
    pub addr: SocketAddr,
    scheduler: thread::JoinHandle<()>,
}

impl CentralHandle {
    pub fn join(self) {
        let _ = self.scheduler.join();
    }
}

/// What a connector thread reports about its host.
enum NodeLink {
    Up { host: HostId, writer: TcpStream },
    Msg { host: HostId, msg: FromNode },
    Down { host: HostId },
}

/// Parses `--nodes host=ADDR,host=ADDR`; an entry without `=` is named by its address.
pub fn parse_nodes(s: &str) -> Result<Vec<(String, String)>, FlagError> {
    let mut out: Vec<(String, String)> = Vec::new();
    for item in s.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let (name, addr) = item.split_once('=').unwrap_or((item, item));
        if name.is_empty() || addr.is_empty() || !addr.contains(':') {
            return Err(FlagError::BadNodesEntry(item.to_string()));
        }
        if out.iter().any(|(n, _)| n == name) {
            return Err(FlagError::DuplicateNode { entry: item.to_string(), name: name.to_string() });
        }
        out.push((name.to_string(), addr.to_string()));
    }
    Ok(out)
}

pub fn spawn(opts: Options) -> io::Result<CentralHandle> {
    let listener = TcpListener::bind(&opts.listen)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", opts.listen)))?;
    let addr = listener.local_addr()?;
    let secret: Arc<[u8]> = Arc::from(opts.secret.as_slice());
    let (ptx, prx) = unbounded::<Inbound<ToCentral>>();
    let (ntx, nrx) = unbounded::<NodeLink>();
    serve(listener, secret.clone(), Role::Central, &[Role::Driver, Role::Node], Arc::new(AtomicU64::new(1)), ptx);
    log::info!(
        "eagle-central listening on {addr}, {} nodes given, short partition {} (floor {} of the hosts), long headroom {}",
        opts.nodes.len(),
        opts.short_partition.name(),
        opts.short_fraction,
        opts.long_headroom
    );
    let (state, dials) = CentralState::with_placement(&opts.nodes, opts.short_fraction, opts.placement, 1)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let mut state = state.with_short_partition(opts.short_partition).with_long_headroom(opts.long_headroom);
    let start = Instant::now();
    let ping = tick(Duration::from_millis(opts.ping_ms.max(1)));
    let scheduler = thread::Builder::new().name("central-scheduler".into()).spawn(move || {
        let mut peers = Writers::default();
        let mut nodes = Writers::default();
        let apply = |actions: Vec<Action>, peers: &mut Writers, nodes: &mut Writers| {
            for a in actions {
                match a {
                    Action::ToPeer { conn, msg } => {
                        peers.send(conn, &msg);
                    }
                    Action::ToNode { host, msg } => {
                        nodes.send(host as u64, &msg);
                    }
                    Action::Dial { host, addr } => dial(host, addr, secret.clone(), ntx.clone()),
                }
            }
        };
        apply(dials, &mut peers, &mut nodes);
        loop {
            let event = select! {
                recv(prx) -> m => match m {
                    Ok(Inbound::Open { conn, peer, writer, welcome, .. }) => { peers.open(conn, writer, welcome); Event::Connected { conn, peer } }
                    Ok(Inbound::Msg { conn, msg }) => Event::Message { conn, msg },
                    Ok(Inbound::Closed { conn, .. }) => { peers.remove(conn); Event::Disconnected { conn } }
                    Err(_) => return,
                },
                recv(nrx) -> m => match m {
                    Ok(NodeLink::Up { host, writer }) => { nodes.insert(host as u64, writer); Event::Own(HostEvent::NodeUp { host }) }
                    Ok(NodeLink::Msg { host, msg }) => Event::Own(HostEvent::FromNode { host, msg }),
                    Ok(NodeLink::Down { host }) => { nodes.remove(host as u64); Event::Own(HostEvent::NodeDown { host }) }
                    Err(_) => return,
                },
                recv(ping) -> _ => Event::Tick,
            };
            state.set_now(start.elapsed().as_secs_f64());
            apply(state.handle(event), &mut peers, &mut nodes);
            // Nodes first: a driver told `Placed` then finds the placement on its node
            // even if this process dies a moment later (a driver whose link drops before
            // an answer places those tasks itself).
            nodes.flush();
            peers.flush();
        }
    })?;
    Ok(CentralHandle { addr, scheduler })
}

/// Starts the connector of `host`: connect, authenticate as the central, forward
/// the node's messages; on any failure report the host down and retry.
fn dial(host: HostId, addr: String, secret: Arc<[u8]>, tx: Sender<NodeLink>) {
    let spawned = thread::Builder::new().name(format!("link-{host}")).spawn(move || loop {
        match link_once(host, &addr, &secret, &tx) {
            Ok(()) => log::warn!("node {addr} closed the link"),
            Err(e) => log::debug!("node {addr}: {e}"),
        }
        thread::sleep(Duration::from_millis(500));
    });
    if let Err(e) = spawned {
        log::error!("cannot start the link thread of {host}: {e}");
    }
}

/// Why a link to a node ended (logged; the connector retries).
#[derive(Debug)]
enum LinkError {
    Connect(io::Error),
    Handshake(HandshakeError),
    Io(io::Error),
    /// The central's state thread is gone.
    StateGone,
    Frame(FrameError),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Connect(e) => write!(f, "connect: {e}"),
            LinkError::Handshake(e) => write!(f, "{e}"),
            LinkError::Io(e) => write!(f, "{e}"),
            LinkError::StateGone => f.write_str("sending on a disconnected channel"),
            LinkError::Frame(e) => write!(f, "{e}"),
        }
    }
}

fn link_once(host: HostId, addr: &str, secret: &[u8], tx: &Sender<NodeLink>) -> Result<(), LinkError> {
    let stream = TcpStream::connect(addr).map_err(LinkError::Connect)?;
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(eagle_wire::net::HANDSHAKE_TIMEOUT));
    if let Err(e) = connect(&mut &stream, secret, Role::Central, "central") {
        log::warn!("node {addr} refused the central: {e}");
        return Err(LinkError::Handshake(e));
    }
    let _ = stream.set_read_timeout(None);
    log::info!("linked to node {addr} (host {host})");
    let writer = stream.try_clone().map_err(LinkError::Io)?;
    tx.send(NodeLink::Up { host, writer }).map_err(|_| LinkError::StateGone)?;
    let mut r = FrameReader::new(BufReader::new(&stream));
    let result = loop {
        match r.read::<FromNode>() {
            Ok(msg) => {
                if tx.send(NodeLink::Msg { host, msg }).is_err() {
                    break Ok(());
                }
            }
            Err(FrameError::Closed) => break Ok(()),
            Err(e) => {
                log::warn!("closing the link to node {addr}: {e}");
                break Err(LinkError::Frame(e));
            }
        }
    };
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let _ = tx.send(NodeLink::Down { host });
    result
}

#[cfg(test)]
mod tests {
    use super::parse_nodes;

    #[test]
    fn nodes_flag() {
        assert_eq!(
            parse_nodes("a=10.0.0.1:7000, b=h:1").unwrap(),
            vec![("a".into(), "10.0.0.1:7000".into()), ("b".into(), "h:1".into())]
        );
        assert_eq!(parse_nodes("h:1").unwrap(), vec![("h:1".into(), "h:1".into())]);
        assert!(parse_nodes("a=nohostport").unwrap_err().to_string().contains("a=nohostport"));
        assert!(parse_nodes("a=h:1,a=h:2").unwrap_err().to_string().contains("twice"));
    }
}
