//! # eagle-wire
//!
//! The protocol spoken in cluster mode between the three kinds of peers of the
//! Eagle prototype (SoCC'16 §5: "an Eagle daemon in each worker node to manage
//! their queue, and a scheduler client as a plug-in for Spark", plus the
//! centralized long-job scheduler):
//!
//! ```text
//!   driver (distributed scheduler) ──ToNode──►  eagle-node  ◄──ToNode── eagle-central
//!                                  ◄─FromNode─             ──FromNode─►
//!   driver ──ToCentral──► eagle-central ──FromCentral──► driver
//! ```
//!
//! A daemon is always the server side of a connection; drivers (and the central
//! scheduler when it talks to nodes) are clients. Every connection:
//!
//! 1. runs the [`handshake`]: protocol version, role, application id and a
//!    challenge-response proof of a shared secret (HMAC-SHA256 over both sides'
//!    nonces, mutual, as `spark.authenticate` does); a wrong secret or version is
//!    refused before any message is read;
//! 2. then exchanges [`frame`]s: a 4-byte big-endian length, then one JSON
//!    message ([`msg`]), at most [`MAX_FRAME_BYTES`] long. A frame that is
//!    truncated, oversized or not a valid message is a [`FrameError`] naming what
//!    was wrong; the daemon closes that connection only.
//!
//! Everything works over any `Read`/`Write` (a `TcpStream` in the daemons, an
//! in-memory buffer in tests). [`net`] holds the threads every daemon uses: an
//! accept loop that authenticates, one reader thread per connection feeding a
//! channel, and the buffered writers the owning thread sends through. [`client`]
//! holds the one-shot status queries of `--status` and `scripts/eagle-cluster.sh`.

pub mod client;
pub mod frame;
pub mod handshake;
pub mod msg;
pub mod net;

pub use frame::{read_frame, write_frame, FrameError, FrameReader};
pub use handshake::{accept, accept_deferred, connect, read_secret, HandshakeError, Peer, Role, SecretError, Welcome};
pub use msg::{
    Bitvector, CentralStatus, FromCentral, FromNode, NodeHealth, NodeStatus, QueuedByApp, StolenProbe, ToCentral,
    ToNode,
};

/// The protocol version. Bump it on any incompatible change of [`msg`] or the handshake;
/// peers of different versions refuse each other.
pub const PROTOCOL_VERSION: u32 = 9;

/// The largest frame body accepted or written, in bytes. Messages are small (a status
/// with a few hundred applications is a few KiB); the cap bounds what a broken or
/// hostile peer can make a daemon allocate.
pub const MAX_FRAME_BYTES: usize = 1 << 20;
