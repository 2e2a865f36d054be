//! The node daemon's threads: the accept loop and one reader thread per connection
//! ([`eagle_wire::net`]), and one scheduler thread that owns the [`NodeState`] and
//! the connections' write halves. Readers hand decoded messages to the scheduler
//! over a `crossbeam-channel`; the scheduler applies them in arrival order, writes
//! the replies, and ticks the state every quarter lease so that unanswered leases
//! and silent peers expire. With `--central`, a registration thread announces the
//! node to the central scheduler (which then connects back) and keeps that link alive.
//! Under Hawk and eagle-adaptive, a steal thread carries out each [`Action::Steal`]: it asks
//! random `--peers` in turn, over links it keeps open between steals, and hands the stolen
//! probes back to the scheduler.

use crate::state::{Action, Event, Ms, NodeState, Settings, StealDone};
use crossbeam_channel::{select, unbounded, Sender};
use eagle_core::rng::Rng;
use eagle_wire::net::{serve, Inbound, Writers};
use eagle_wire::{
    connect, write_frame, FrameError, FrameReader, FromCentral, FromNode, HandshakeError, Role, StolenProbe, ToCentral,
    ToNode,
};
use std::collections::HashMap;
use std::io::{self, BufReader, BufWriter, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

/// How the daemon runs.
#[derive(Clone, Debug)]
pub struct Options {
    pub settings: Settings,
    /// Address to listen on (`127.0.0.1:0` picks a free port).
    pub listen: String,
    pub secret: Vec<u8>,
    /// The central scheduler to register with, if any.
    pub central: Option<String>,
    /// This node's name in the central's host list (default: the advertised address).
    pub name: Option<String>,
    /// The address the central should connect to (default: the bound address).
    pub advertise: Option<String>,
    /// Hawk and eagle-adaptive: the other node daemons to steal from.
    pub peers: Vec<String>,
    /// eagle-adaptive: the steal's budget ([`NodeState::set_steal_fraction`]); `None`: the
    /// default.
    pub steal_fraction: Option<f64>,
}

/// A running daemon.
#[derive(Debug)]
pub struct NodeHandle {
    /// The bound address.
    pub addr: SocketAddr,
    scheduler: thread::JoinHandle<()>,
}

impl NodeHandle {
    /// Blocks until the scheduler thread ends (it does not, short of a panic).
    pub fn join(self) {
        let _ = self.scheduler.join();
    }
}

/// Binds, starts the threads, and returns at once.
pub fn spawn(opts: Options) -> io::Result<NodeHandle> {
    let listener = TcpListener::bind(&opts.listen)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot listen on {}: {e}", opts.listen)))?;
    let addr = listener.local_addr()?;
    let (tx, rx) = unbounded::<Inbound<ToNode>>();
    let secret: Arc<[u8]> = Arc::from(opts.secret.as_slice());
    serve(
        listener,
        secret.clone(),
        Role::Node,
        &[Role::Driver, Role::Central, Role::Node],
        Arc::new(AtomicU64::new(1)),
        tx,
    );
    let settings = opts.settings.clone();
    let steal_fraction = opts.steal_fraction;
    let advertise = opts.advertise.clone().unwrap_or_else(|| addr.to_string());
    let name = opts.name.clone().unwrap_or_else(|| advertise.clone());
    let (stx, srx) = unbounded::<Vec<StolenProbe>>();
    let thief = Thief::start(opts.peers.clone(), secret.clone(), name.clone(), stx)?;
    log::info!(
        "eagle-node listening on {addr}: {} slots, policy {}, lease {} ms",
        settings.slots,
        settings.policy.name(),
        settings.lease_ms
    );
    let scheduler = thread::Builder::new().name("node-scheduler".into()).spawn(move || {
        let mut state = NodeState::new(settings.clone());
        if let Some(f) = steal_fraction {
            state.set_steal_fraction(f);
        }
        let mut writers = Writers::default();
        let origin = Instant::now();
        let tick = Duration::from_millis((settings.lease_ms / 4).clamp(1, 250));
        let mut next_tick = Instant::now() + tick;
        let now = || origin.elapsed().as_millis() as Ms;
        let mut rng = Rng::new(seed());
        loop {
            let timeout = next_tick.saturating_duration_since(Instant::now());
            let first = select! {
                recv(rx) -> m => match m {
                    Ok(m) => Some(m),
                    Err(_) => return,
                },
                recv(srx) -> probes => {
                    let probes = probes.unwrap_or_default();
                    apply(&mut writers, state.handle(now(), Event::Own(StealDone { probes })), &thief, &mut rng);
                    None
                },
                default(timeout) => None,
            };
            // Apply what has arrived (a bounded batch), then flush the replies once.
            for inbound in first.into_iter().chain(std::iter::from_fn(|| rx.try_recv().ok()).take(63)) {
                let event = match inbound {
                    Inbound::Open { conn, peer, writer, welcome, .. } => {
                        // The client's handshake ends when this batch is flushed: after
                        // the state below has registered it (eagle_wire::net).
                        writers.open(conn, writer, welcome);
                        Event::Connected { conn, peer }
                    }
                    Inbound::Msg { conn, msg } => Event::Message { conn, msg },
                    Inbound::Closed { conn, .. } => {
                        writers.remove(conn);
                        Event::Disconnected { conn }
                    }
                };
                apply(&mut writers, state.handle(now(), event), &thief, &mut rng);
            }
            if Instant::now() >= next_tick {
                apply(&mut writers, state.handle(now(), Event::Tick), &thief, &mut rng);
                next_tick = Instant::now() + tick;
            }
            writers.flush();
        }
    })?;
    if let Some(central) = opts.central.clone() {
        let period = Duration::from_millis((opts.settings.lease_ms / 3).clamp(10, 1000));
        thread::Builder::new()
            .name("node-register".into())
            .spawn(move || register_loop(&central, &secret, &name, &advertise, period))?;
    }
    Ok(NodeHandle { addr, scheduler })
}

fn seed() -> u64 {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    t.as_nanos() as u64 ^ ((std::process::id() as u64) << 32)
}

/// Hawk, thief side: one thread runs this node's steals, one at a time (the state asks
/// for the next only after `StealDone`), over authenticated links to the peers that it
/// keeps from one steal to the next. An idle node steals at every tick, asking up to
/// `attempts` peers in turn; a connection and a handshake per attempt would cost the
/// testbed's Hawk daemons about ten times Eagle's CPU in `scripts/bench cluster`, on a
/// machine where that CPU is the applications'.
struct Thief {
    peers: Arc<Vec<String>>,
    requests: Sender<StealRequest>,
}

struct StealRequest {
    victims: Vec<String>,
    apps: Vec<String>,
    limit: u32,
}

impl Thief {
    /// Starts the steal thread; what each steal got (possibly nothing) goes to `done`.
    fn start(peers: Vec<String>, secret: Arc<[u8]>, name: String, done: Sender<Vec<StolenProbe>>) -> io::Result<Thief> {
        let (requests, rx) = unbounded::<StealRequest>();
        thread::Builder::new().name("node-steal".into()).spawn(move || {
            let mut links = PeerLinks { secret, name, open: HashMap::new() };
            for req in rx {
                let mut got = Vec::new();
                for v in &req.victims {
                    match links.steal(v, req.limit, &req.apps) {
                        Ok(p) if !p.is_empty() => {
                            log::info!("stole {} probes from {v}", p.len());
                            got = p;
                            break;
                        }
                        Ok(_) => {}
                        Err(e) => log::debug!("steal from {v}: {e}"),
                    }
                }
                if done.send(got).is_err() {
                    return;
                }
            }
        })?;
        Ok(Thief { peers: Arc::new(peers), requests })
    }

    /// Asks up to `attempts` random peers in turn (with `each_once`, distinct peers); the
    /// first giving peer's probes (or nothing) come back as a `StealDone`.
    fn steal(&self, apps: Vec<String>, limit: u32, attempts: u32, each_once: bool, rng: &mut Rng) {
        let victims: Vec<String> = if self.peers.is_empty() {
            Vec::new()
        } else if each_once {
            let mut order: Vec<usize> = (0..self.peers.len()).collect();
            for i in (1..order.len()).rev() {
                order.swap(i, rng.below(i + 1));
            }
            order.into_iter().take(attempts as usize).map(|i| self.peers[i].clone()).collect()
        } else {
            (0..attempts).map(|_| self.peers[rng.below(self.peers.len())].clone()).collect()
        };
        if self.requests.send(StealRequest { victims, apps, limit }).is_err() {
            log::error!("the steal thread is gone");
        }
    }
}

/// The steal thread's links, by peer address.
struct PeerLinks {
    secret: Arc<[u8]>,
    name: String,
    open: HashMap<String, PeerLink>,
}

impl PeerLinks {
    /// One `Steal` to `peer`, over its open link if there is one. A link the peer has
    /// closed meanwhile (a victim drops a peer silent for a lease) is dialled again once;
    /// any other failure (a timeout: the answer may still come) drops the link.
    fn steal(&mut self, peer: &str, limit: u32, apps: &[String]) -> Result<Vec<StolenProbe>, LinkError> {
        if let Some(mut link) = self.open.remove(peer) {
            match link.steal(limit, apps) {
                Ok(p) => {
                    self.open.insert(peer.to_string(), link);
                    return Ok(p);
                }
                Err(e) if e.closed => log::debug!("link to {peer} closed ({}): dialling again", e.cause),
                Err(e) => return Err(LinkError::Frame(e.cause)),
            }
        }
        let mut link = PeerLink::dial(peer, &self.secret, &self.name)?;
        let got = link.steal(limit, apps).map_err(|e| LinkError::Frame(e.cause))?;
        self.open.insert(peer.to_string(), link);
        Ok(got)
    }
}

struct PeerLink {
    stream: TcpStream,
    reader: FrameReader<BufReader<TcpStream>>,
}

/// A failed steal; `closed`: the peer had closed the link before it read the request.
struct StealError {
    cause: FrameError,
    closed: bool,
}

/// Why a link to a peer node or to the central failed (logged; the caller retries).
#[derive(Debug)]
enum LinkError {
    Resolve(io::Error),
    NoAddress,
    /// Dialling a peer node.
    Dial(io::Error),
    /// Connecting to the central.
    Connect(io::Error),
    Handshake(HandshakeError),
    Io(io::Error),
    Frame(FrameError),
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Resolve(e) | LinkError::Dial(e) | LinkError::Io(e) => write!(f, "{e}"),
            LinkError::NoAddress => f.write_str("no address"),
            LinkError::Connect(e) => write!(f, "connect: {e}"),
            LinkError::Handshake(e) => write!(f, "{e}"),
            LinkError::Frame(e) => write!(f, "{e}"),
        }
    }
}

impl PeerLink {
    fn dial(peer: &str, secret: &[u8], name: &str) -> Result<PeerLink, LinkError> {
        let addr = peer.to_socket_addrs().map_err(LinkError::Resolve)?.next().ok_or(LinkError::NoAddress)?;
        let stream = TcpStream::connect_timeout(&addr, Duration::from_millis(500)).map_err(LinkError::Dial)?;
        let _ = stream.set_nodelay(true);
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        connect(&mut &stream, secret, Role::Node, name).map_err(LinkError::Handshake)?;
        let reader = FrameReader::new(BufReader::new(stream.try_clone().map_err(LinkError::Io)?));
        Ok(PeerLink { stream, reader })
    }

    fn steal(&mut self, limit: u32, apps: &[String]) -> Result<Vec<StolenProbe>, StealError> {
        let fail = |e: FrameError| StealError { closed: closed(&e), cause: e };
        write_frame(&mut &self.stream, &ToNode::Steal { limit, apps: apps.to_vec() }).map_err(fail)?;
        loop {
            match self.reader.read::<FromNode>().map_err(fail)? {
                FromNode::Stolen { probes } => return Ok(probes),
                _ => continue,
            }
        }
    }
}

/// Whether a frame error says the peer had closed the connection (as opposed to a
/// timeout or a bad frame).
fn closed(e: &FrameError) -> bool {
    match e {
        FrameError::Closed => true,
        FrameError::Truncated { got: 0, .. } => true,
        FrameError::Io(e) => matches!(
            e.kind(),
            io::ErrorKind::BrokenPipe
                | io::ErrorKind::ConnectionReset
                | io::ErrorKind::ConnectionAborted
                | io::ErrorKind::UnexpectedEof
        ),
        _ => false,
    }
}

fn apply(writers: &mut Writers, actions: Vec<Action>, thief: &Thief, rng: &mut Rng) {
    for a in actions {
        match a {
            Action::Send { conn, msg } => {
                writers.send(conn, &msg);
            }
            Action::Close { conn, reason } => {
                log::info!("closing connection {conn}: {reason}");
                writers.close(conn);
            }
            Action::Steal { apps, limit, attempts, each_once } => thief.steal(apps, limit, attempts, each_once, rng),
        }
    }
}

/// Keeps this node registered with the central scheduler, reconnecting when the link
/// drops (the central restarted, or the network failed).
fn register_loop(central: &str, secret: &[u8], name: &str, advertise: &str, period: Duration) {
    loop {
        match register_once(central, secret, name, advertise, period) {
            Ok(()) => log::warn!("central scheduler {central} closed the registration link"),
            Err(e) => log::warn!("registration with the central scheduler {central}: {e}"),
        }
        thread::sleep(Duration::from_secs(1));
    }
}

fn register_once(central: &str, secret: &[u8], name: &str, advertise: &str, period: Duration) -> Result<(), LinkError> {
    let stream = TcpStream::connect(central).map_err(LinkError::Connect)?;
    let _ = stream.set_nodelay(true);
    connect(&mut &stream, secret, Role::Node, name).map_err(LinkError::Handshake)?;
    let mut w = BufWriter::new(&stream);
    let mut r = FrameReader::new(BufReader::new(&stream));
    let mut send = |m: &ToCentral| -> Result<(), LinkError> {
        eagle_wire::write_frame(&mut w, m).map_err(LinkError::Frame)?;
        w.flush().map_err(LinkError::Io)
    };
    send(&ToCentral::Register { name: name.to_string(), addr: advertise.to_string() })?;
    log::info!("registered as '{name}' ({advertise}) with the central scheduler {central}");
    loop {
        thread::sleep(period);
        send(&ToCentral::Ping)?;
        loop {
            match r.read::<FromCentral>() {
                Ok(FromCentral::Pong) => break,
                Ok(_) => continue,
                Err(eagle_wire::FrameError::Closed) => return Ok(()),
                Err(e) => return Err(LinkError::Frame(e)),
            }
        }
    }
}
