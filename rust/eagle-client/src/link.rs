//! The link threads: one per node daemon and one for the central scheduler. Each
//! connects, authenticates as this application's driver (the [`eagle_wire`]
//! handshake; the daemon has registered the connection when it returns), hands the
//! write half to the client thread (`Up`), forwards every frame it reads (`Msg`), and
//! reports the end (`Down`). Then it waits [`RETRY`](crate::RETRY) and tries again,
//! until the client drops the link's `wanted` flag.

use eagle_wire::{connect, FrameError, FrameReader};
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
    Up { link: u64, writer: TcpStream },
    Msg { link: u64, msg: M },
    Down { link: u64, why: String },
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

/// Starts the link `link` to the daemon at `addr`, as driver `app`.
pub fn start<M: DeserializeOwned + Send + 'static>(
    link: u64,
    addr: String,
    secret: Arc<[u8]>,
    app: String,
    cmd: crossbeam_channel::Sender<crate::client::Cmd>,
    map: fn(LinkEvent<M>) -> crate::client::Cmd,
) -> Link {
    let wanted = Arc::new(AtomicBool::new(true));
    let socket = Arc::new(parking_lot::Mutex::new(None));
    let (w, s) = (wanted.clone(), socket.clone());
    let spawned = thread::Builder::new().name(format!("eagle-link-{link}")).spawn(move || {
        while w.load(Ordering::SeqCst) {
            let why = once::<M>(link, &addr, &secret, &app, &s, &|e| cmd.send(map(e)).is_ok());
            if cmd.send(map(LinkEvent::Down { link, why })).is_err() {
                return;
            }
            thread::sleep(crate::RETRY);
        }
    });
    if let Err(e) = spawned {
        log::error!("cannot start the link thread to {link}: {e}");
    }
    Link { wanted, socket }
}

/// One connection: returns why it ended.
fn once<M: DeserializeOwned>(
    link: u64,
    addr: &str,
    secret: &[u8],
    app: &str,
    slot: &parking_lot::Mutex<Option<TcpStream>>,
    send: &dyn Fn(LinkEvent<M>) -> bool,
) -> String {
    let sock = match addr.to_socket_addrs().map(|mut a| a.next()) {
        Ok(Some(a)) => a,
        Ok(None) => return format!("{addr}: no address"),
        Err(e) => return format!("{addr}: cannot resolve: {e}"),
    };
    let stream = match TcpStream::connect_timeout(&sock, Duration::from_secs(2)) {
        Ok(s) => s,
        Err(e) => return format!("{addr}: connect: {e}"),
    };
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(eagle_wire::net::HANDSHAKE_TIMEOUT));
    if let Err(e) = connect(&mut &stream, secret, eagle_wire::Role::Driver, app) {
        log::warn!("{addr} refused the driver '{app}': {e}");
        return format!("{addr}: handshake: {e}");
    }
    let _ = stream.set_read_timeout(None);
    let (Ok(writer), Ok(mine)) = (stream.try_clone(), stream.try_clone()) else { return format!("{addr}: socket") };
    *slot.lock() = Some(mine);
    if !send(LinkEvent::Up { link, writer }) {
        return "client stopped".into();
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
    why
}
