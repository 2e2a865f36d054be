//! The link threads: one per node daemon and one for the central scheduler. Each
//! connects, authenticates as this application's driver (the [`eagle_wire`]
//! handshake; the daemon has registered the connection when it returns), hands the
//! write half to the client thread (`Up`), forwards every frame it reads (`Msg`), and
//! reports the end (`Down`). Then it waits [`RETRY`](crate::RETRY) and tries again,
//! until the client drops the link's `wanted` flag.
//!
//! A daemon that refuses the handshake (another protocol version, a wrong shared secret,
//! not an Eagle daemon) is misconfigured, not down: the link says so (`refused`), logs
//! the reason as an error once per reason rather than at every attempt, and tries again
//! only every [`REFUSED_RETRY`], so that a daemon restarted from the right build is
//! picked up without the refusals flooding either side's log.

use crate::error::Refused;
use eagle_wire::{connect, FrameError, FrameReader, HandshakeError};
use serde::de::DeserializeOwned;
use std::io::BufReader;
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// What a link thread reports, tagged with the link's id.
#[derive(Debug)]
pub enum LinkEvent<M> {
    Up {
        link: u64,
        writer: TcpStream,
    },
    Msg {
        link: u64,
        msg: M,
    },
    /// The connection ended or was never made; `refused`: the daemon refused the
    /// handshake itself (see the module doc), which retrying will not mend.
    Down {
        link: u64,
        why: String,
        refused: Option<Refused>,
    },
}

/// How often a link the daemon refused is tried again.
pub const REFUSED_RETRY: Duration = Duration::from_secs(5);

/// Whether a failed handshake is the daemon refusing us (its version, secret or role),
/// not the connection failing under it.
fn refusal(e: &HandshakeError) -> bool {
    !matches!(e, HandshakeError::Frame(_))
}

/// A running link thread: clearing `wanted` (and shutting the socket) ends it.
pub struct Link {
    pub wanted: Arc<AtomicBool>,
    pub socket: Arc<parking_lot::Mutex<Option<TcpStream>>>,
}

impl Link {
    /// Stops reconnecting and closes the current connection, if any.
    pub fn stop(&self) {
        self.wanted.store(false, Ordering::SeqCst);
        if let Some(s) = self.socket.lock().take() {
            let _ = s.shutdown(Shutdown::Both);
        }
    }
}

/// Starts the link `link` to the daemon at `addr`, as driver `app`; every event it sees goes
/// to `cmd` as `map` makes it (the client thread's command).
pub fn start<M: DeserializeOwned + Send + 'static, C: Send + 'static>(
    link: u64,
    addr: String,
    secret: Arc<[u8]>,
    app: String,
    cmd: crossbeam_channel::Sender<C>,
    map: fn(LinkEvent<M>) -> C,
) -> Link {
    let wanted = Arc::new(AtomicBool::new(true));
    let socket = Arc::new(parking_lot::Mutex::new(None));
    let (w, s) = (wanted.clone(), socket.clone());
    let spawned = thread::Builder::new().name(format!("eagle-link-{link}")).spawn(move || {
        let mut logged: Option<String> = None;
        while w.load(Ordering::SeqCst) {
            let (why, refused) = once::<M>(link, &addr, &secret, &app, &s, &|e| cmd.send(map(e)).is_ok());
            if refused.is_some() {
                if logged.as_deref() != Some(why.as_str()) {
                    log::error!(
                        "eagle-client: {why}; the driver '{app}' tries again every {}s",
                        REFUSED_RETRY.as_secs()
                    );
                    logged = Some(why.clone());
                } else {
                    log::debug!("eagle-client: {why}");
                }
            } else {
                logged = None;
            }
            let wait = if refused.is_some() { REFUSED_RETRY } else { crate::RETRY };
            if cmd.send(map(LinkEvent::Down { link, why, refused })).is_err() {
                return;
            }
            // In short steps, so that a stopped link ends promptly.
            let until = std::time::Instant::now() + wait;
            while w.load(Ordering::SeqCst) && std::time::Instant::now() < until {
                thread::sleep(crate::RETRY.min(until.saturating_duration_since(std::time::Instant::now())));
            }
        }
    });
    if let Err(e) = spawned {
        log::error!("cannot start the link thread to {link}: {e}");
    }
    Link { wanted, socket }
}

/// One connection: returns why it ended, and whether the daemon refused the handshake.
fn once<M: DeserializeOwned>(
    link: u64,
    addr: &str,
    secret: &[u8],
    app: &str,
    slot: &parking_lot::Mutex<Option<TcpStream>>,
    send: &dyn Fn(LinkEvent<M>) -> bool,
) -> (String, Option<Refused>) {
    let sock = match addr.to_socket_addrs().map(|mut a| a.next()) {
        Ok(Some(a)) => a,
        Ok(None) => return (format!("{addr}: no address"), None),
        Err(e) => return (format!("{addr}: cannot resolve: {e}"), None),
    };
    let stream = match TcpStream::connect_timeout(&sock, Duration::from_secs(2)) {
        Ok(s) => s,
        Err(e) => return (format!("{addr}: connect: {e}"), None),
    };
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(eagle_wire::net::HANDSHAKE_TIMEOUT));
    if let Err(e) = connect(&mut &stream, secret, eagle_wire::Role::Driver, app) {
        if refusal(&e) {
            let r = Refused { addr: addr.to_string(), app: app.to_string(), reason: e.to_string() };
            return (r.to_string(), Some(r));
        }
        log::warn!("{addr}: handshake of the driver '{app}' failed: {e}");
        return (format!("{addr}: handshake: {e}"), None);
    }
    let _ = stream.set_read_timeout(None);
    let (Ok(writer), Ok(mine)) = (stream.try_clone(), stream.try_clone()) else {
        return (format!("{addr}: socket"), None);
    };
    *slot.lock() = Some(mine);
    if !send(LinkEvent::Up { link, writer }) {
        return ("client stopped".into(), None);
    }
    let mut r = FrameReader::new(BufReader::new(&stream));
    let why = loop {
        match r.read::<M>() {
            Ok(msg) => {
                if !send(LinkEvent::Msg { link, msg }) {
                    break "client stopped".to_string();
                }
            }
            Err(FrameError::Closed) => break format!("{addr}: closed"),
            Err(e) => break format!("{addr}: {e}"),
        }
    };
    slot.lock().take();
    let _ = stream.shutdown(Shutdown::Both);
    (why, None)
}
