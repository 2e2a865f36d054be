//! Connection plumbing shared by the daemons (and, later, the driver library):
//! an accept loop that runs the [`handshake`](crate::handshake), one reader thread
//! per connection that decodes frames into a `crossbeam-channel`, and [`Writers`],
//! the buffered write halves owned by the single thread that holds the state; and
//! [`Event`], what that state machine reacts to, alike in both daemons.
//!
//! A connection whose frame is malformed (or that fails the handshake) is logged
//! with the peer's address and closed; the others are untouched.
//!
//! ## A connection is registered before its client may speak
//! The accept side does not send the handshake's last frame itself: it hands the
//! encoded [`Welcome`] to the owning thread inside [`Inbound::Open`], and
//! [`Writers::open`] writes it first. So the owner has processed `Open` before the
//! client's `connect` returns, and anything the client causes afterwards (its own
//! messages, or a central's `Place` for it sent over another connection) reaches the
//! owner after it. Without this a `Place` could overtake the `Open` and be refused.

use crate::frame::{write_frame, FrameError, FrameReader};
use crate::handshake::{accept_deferred, HandshakeError, Peer, Role, Welcome};
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

/// What a daemon's state machine reacts to: its peers' connections and their messages
/// (`M`), the periodic tick, and `X`, what only that daemon hears of. The server turns
/// [`Inbound`] into the first three.
#[derive(Clone, Debug, PartialEq)]
pub enum Event<M, X> {
    /// A peer completed the handshake.
    Connected {
        conn: ConnId,
        peer: Peer,
    },
    /// The connection ended (closed, reset, malformed frame, write failure).
    Disconnected {
        conn: ConnId,
    },
    Message {
        conn: ConnId,
        msg: M,
    },
    /// Time passed: expire what is due, keep the links alive.
    Tick,
    /// What only this daemon reacts to.
    Own(X),
}

/// What the reader threads hand to the state-owning thread.
#[derive(Debug)]
pub enum Inbound<M> {
    /// A connection passed the handshake; `writer` is its write half. The client
    /// waits for `welcome`: pass both to [`Writers::open`].
    Open {
        conn: ConnId,
        peer: Peer,
        addr: SocketAddr,
        writer: TcpStream,
        welcome: Welcome,
    },
    Msg {
        conn: ConnId,
        msg: M,
    },
    /// The connection ended; `why` is `None` for a clean close.
    Closed {
        conn: ConnId,
        why: Option<String>,
    },
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
                        Ok((peer, welcome)) => read_loop(stream, conn, peer, welcome, tx),
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

fn authenticate(
    stream: &TcpStream,
    secret: &[u8],
    role: Role,
    allowed: &[Role],
) -> Result<(Peer, Welcome), HandshakeError> {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT));
    let done = accept_deferred(&mut &*stream, secret, role, allowed)?;
    let _ = stream.set_read_timeout(None);
    Ok(done)
}

/// Reads frames of an authenticated connection into `tx` until it ends: announces it
/// with `Open` (carrying the `welcome` still owed to the client), then `Msg`s, then
/// `Closed` (after logging why, naming the peer), sent before the socket is shut down.
pub fn read_loop<M: DeserializeOwned>(
    stream: TcpStream,
    conn: ConnId,
    peer: Peer,
    welcome: Welcome,
    tx: Sender<Inbound<M>>,
) {
    let addr = match stream.peer_addr() {
        Ok(a) => a,
        Err(_) => return,
    };
    let Ok(writer) = stream.try_clone() else { return };
    let who = format!("{} '{}' at {addr}", peer.role, peer.app);
    log::info!("connection {conn}: {who} connected");
    if tx.send(Inbound::Open { conn, peer, addr, writer, welcome }).is_err() {
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
    // The state thread hears of the end before the peer sees its socket close, so whatever
    // anyone sends after seeing the close is handled after the connection's state is gone.
    let _ = tx.send(Inbound::Closed { conn, why });
    let _ = stream.shutdown(Shutdown::Both);
}

/// The write halves of the open connections, owned by one thread. Frames are
/// buffered; [`Writers::flush`] sends every buffered frame (call it once per batch).
#[derive(Default)]
pub struct Writers {
    map: HashMap<ConnId, BufWriter<TcpStream>>,
    dirty: Vec<ConnId>,
}

impl Writers {
    /// Adds a connection this process opened (its handshake is complete).
    pub fn insert(&mut self, conn: ConnId, writer: TcpStream) {
        let _ = writer.set_nodelay(true);
        let _ = writer.set_write_timeout(Some(Duration::from_secs(5)));
        self.map.insert(conn, BufWriter::new(writer));
    }

    /// Adds an accepted connection ([`Inbound::Open`]) and buffers the `welcome` that
    /// completes its client's handshake, ahead of any message. Call it when the owner's
    /// state has registered the connection (the frame goes out at the next flush).
    pub fn open(&mut self, conn: ConnId, writer: TcpStream, welcome: Welcome) {
        self.insert(conn, writer);
        let w = self.map.get_mut(&conn).expect("just inserted");
        match w.write_all(welcome.bytes()) {
            Ok(()) => self.dirty.push(conn),
            Err(e) => {
                log::warn!("connection {conn}: cannot send the handshake's welcome, closing: {e}");
                self.close(conn);
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handshake::connect;
    use crossbeam_channel::unbounded;

    /// The client's `connect` returns only after the owner took the connection in
    /// (`Writers::open` and a flush), never on the accept thread's own.
    #[test]
    fn the_client_is_welcomed_only_by_the_owner() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (tx, rx) = unbounded::<Inbound<crate::msg::ToNode>>();
        serve(listener, Arc::from(&b"s"[..]), Role::Node, &[Role::Driver], Arc::new(AtomicU64::new(1)), tx);
        let (done_tx, done) = unbounded();
        thread::spawn(move || {
            let s = TcpStream::connect(addr).unwrap();
            s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
            let shaken = connect(&mut &s, b"s", Role::Driver, "app");
            let _ = done_tx.send(shaken.map(|_| s));
        });
        let Ok(Inbound::Open { conn, peer, writer, welcome, .. }) = rx.recv_timeout(Duration::from_secs(30)) else {
            panic!("no Open")
        };
        assert_eq!(peer.app, "app");
        // The owner has not answered: the client is still waiting for the welcome.
        assert!(
            done.recv_timeout(Duration::from_millis(300)).is_err(),
            "connect returned before the owner registered it"
        );
        let mut w = Writers::default();
        w.open(conn, writer, welcome);
        w.flush();
        let s =
            done.recv_timeout(Duration::from_secs(30)).expect("connect returns once welcomed").expect("handshake ok");
        // The link works in both directions afterwards.
        write_frame(&mut &s, &crate::msg::ToNode::Ping).unwrap();
        assert!(matches!(
            rx.recv_timeout(Duration::from_secs(30)),
            Ok(Inbound::Msg { msg: crate::msg::ToNode::Ping, .. })
        ));
        assert!(w.send(conn, &crate::msg::FromNode::Pong));
        w.flush();
        let got: crate::msg::FromNode = FrameReader::new(&s).read().unwrap();
        assert_eq!(got, crate::msg::FromNode::Pong);
    }
}
