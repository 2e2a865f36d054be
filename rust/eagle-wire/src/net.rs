//! Connection plumbing shared by the daemons (and, later, the driver library):
//! an accept loop that runs the [`handshake`](crate::handshake), one reader thread
//! per connection that decodes frames into a `crossbeam-channel`, and [`Writers`],
//! the buffered write halves owned by the single thread that holds the state.
//!
//! A connection whose frame is malformed (or that fails the handshake) is logged
//! with the peer's address and closed; the others are untouched.

use crate::frame::{write_frame, FrameError, FrameReader};
use crate::handshake::{accept, HandshakeError, Peer, Role};
use crossbeam_channel::Sender;
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::HashMap;
use std::io::{BufReader, BufWriter, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

/// A connection, numbered by the process that accepted or opened it.
pub type ConnId = u64;

/// What the reader threads hand to the state-owning thread.
#[derive(Debug)]
pub enum Inbound<M> {
    /// A connection passed the handshake; `writer` is its write half.
    Open { conn: ConnId, peer: Peer, addr: SocketAddr, writer: TcpStream },
    Msg { conn: ConnId, msg: M },
    /// The connection ended; `why` is `None` for a clean close.
    Closed { conn: ConnId, why: Option<String> },
}

/// How long a peer may take to complete the handshake.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);

/// Accepts connections on `listener` forever (one thread), authenticating each on a
/// thread of its own that then reads its frames into `tx`. Returns the accept thread.
pub fn serve<M: DeserializeOwned + Send + 'static>(
    listener: TcpListener,
    secret: Arc<[u8]>,
    role: Role,
    allowed: &'static [Role],
    ids: Arc<AtomicU64>,
    tx: Sender<Inbound<M>>,
) -> thread::JoinHandle<()> {
    thread::Builder::new()
        .name(format!("{role}-accept"))
        .spawn(move || {
            for stream in listener.incoming() {
                let stream = match stream {
                    Ok(s) => s,
                    Err(e) => {
                        log::warn!("accept failed: {e}");
                        continue;
                    }
                };
                let (secret, tx, conn) = (secret.clone(), tx.clone(), ids.fetch_add(1, Ordering::Relaxed));
                let spawned = thread::Builder::new().name(format!("conn-{conn}")).spawn(move || {
                    let addr = stream.peer_addr().map_or_else(|_| "?".to_string(), |a| a.to_string());
                    match authenticate(&stream, &secret, role, allowed) {
                        Ok(peer) => read_loop(stream, conn, peer, tx),
                        Err(e) => log::warn!("refused connection from {addr}: {e}"),
                    }
                });
                if let Err(e) = spawned {
                    log::error!("cannot start a connection thread: {e}");
                }
            }
        })
        .expect("spawn the accept thread")
}

fn authenticate(stream: &TcpStream, secret: &[u8], role: Role, allowed: &[Role]) -> Result<Peer, HandshakeError> {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT));
    let peer = accept(&mut &*stream, secret, role, allowed)?;
    let _ = stream.set_read_timeout(None);
    Ok(peer)
}

/// Reads frames of an authenticated connection into `tx` until it ends: announces it
/// with `Open`, then `Msg`s, then `Closed` (after logging why, naming the peer).
pub fn read_loop<M: DeserializeOwned>(stream: TcpStream, conn: ConnId, peer: Peer, tx: Sender<Inbound<M>>) {
    let addr = match stream.peer_addr() {
        Ok(a) => a,
        Err(_) => return,
    };
    let Ok(writer) = stream.try_clone() else { return };
    let who = format!("{} '{}' at {addr}", peer.role, peer.app);
    log::info!("connection {conn}: {who} connected");
    if tx.send(Inbound::Open { conn, peer, addr, writer }).is_err() {
        return;
    }
    let mut r = FrameReader::new(BufReader::new(&stream));
    let why = loop {
        match r.read::<M>() {
            Ok(msg) => {
                if tx.send(Inbound::Msg { conn, msg }).is_err() {
                    return;
                }
            }
            Err(FrameError::Closed) => break None,
            Err(e) => break Some(e.to_string()),
        }
    };
    match &why {
        Some(e) => log::warn!("closing connection {conn} from {who}: {e}"),
        None => log::info!("connection {conn}: {who} closed"),
    }
    let _ = stream.shutdown(Shutdown::Both);
    let _ = tx.send(Inbound::Closed { conn, why });
}

/// The write halves of the open connections, owned by one thread. Frames are
/// buffered; [`Writers::flush`] sends every buffered frame (call it once per batch).
#[derive(Default)]
pub struct Writers {
    map: HashMap<ConnId, BufWriter<TcpStream>>,
    dirty: Vec<ConnId>,
}

impl Writers {
    pub fn insert(&mut self, conn: ConnId, writer: TcpStream) {
        let _ = writer.set_nodelay(true);
        let _ = writer.set_write_timeout(Some(Duration::from_secs(5)));
        self.map.insert(conn, BufWriter::new(writer));
    }

    /// Buffers `msg` for `conn`. A connection that cannot be written is shut down
    /// (its reader thread then reports it closed). Returns false when `conn` is unknown
    /// or broken.
    pub fn send<T: Serialize>(&mut self, conn: ConnId, msg: &T) -> bool {
        let Some(w) = self.map.get_mut(&conn) else { return false };
        match write_frame(w, msg) {
            Ok(()) => {
                self.dirty.push(conn);
                true
            }
            Err(e) => {
                log::warn!("connection {conn}: write failed, closing: {e}");
                self.close(conn);
                false
            }
        }
    }

    /// Shuts the connection down (both directions) and forgets it.
    pub fn close(&mut self, conn: ConnId) {
        if let Some(w) = self.map.remove(&conn) {
            let _ = w.get_ref().shutdown(Shutdown::Both);
        }
    }

    pub fn remove(&mut self, conn: ConnId) {
        self.map.remove(&conn);
    }

    /// Flushes every connection written since the last flush.
    pub fn flush(&mut self) {
        for conn in std::mem::take(&mut self.dirty) {
            let failed = match self.map.get_mut(&conn) {
                Some(w) => w.flush().is_err(),
                None => false,
            };
            if failed {
                log::warn!("connection {conn}: flush failed, closing");
                self.close(conn);
            }
        }
    }

    pub fn contains(&self, conn: ConnId) -> bool {
        self.map.contains_key(&conn)
    }
}
