//! The connection handshake: protocol version, role, application id, and mutual
//! challenge-response authentication from a shared secret (the scheme of Spark's
//! `spark.authenticate`: the secret itself never crosses the wire).
//!
//! ```text
//!  client (driver, or central towards a node)          server (daemon)
//!                        ◄── Server{version, role, nonce_s}
//!   Client{version, role, app, nonce_c,
//!          proof_c = HMAC(secret, "client", version, role, app, nonce_s, nonce_c)} ──►
//!                                       version equal? proof_c valid? role allowed?
//!                        ◄── Welcome{proof_s = HMAC(secret, "server", nonce_s, nonce_c, role, app)}
//!                        ◄── or Refused{reason}, and the server closes
//!   client checks proof_s: only a holder of the secret could have produced it.
//! ```
//!
//! Nonces are 32 random bytes from the OS (`getrandom`); the MAC is HMAC-SHA256
//! (`hmac` + `sha2`, RustCrypto), compared in constant time. Every field fed to the
//! MAC is length-prefixed, so no two different handshakes hash the same bytes.

use crate::frame::{read_frame, write_frame, FrameError};
use crate::PROTOCOL_VERSION;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;
use std::fmt;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

type HmacSha256 = Hmac<Sha256>;

/// What a peer is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Role {
    /// A Spark driver: the distributed scheduler of one application.
    Driver,
    /// An `eagle-node` daemon.
    Node,
    /// The `eagle-central` long-job scheduler.
    Central,
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Role::Driver => "driver",
            Role::Node => "node",
            Role::Central => "central",
        })
    }
}

/// The authenticated other side of a connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Peer {
    /// What the peer is.
    pub role: Role,
    /// The application id (drivers); the daemon's name for a central or node client.
    pub app: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
enum Hello {
    Server { version: u32, role: Role, nonce: String },
    Client { version: u32, role: Role, app: String, nonce: String, proof: String },
    Welcome { proof: String },
    Refused { reason: String },
}

/// Why a handshake failed.
#[derive(Debug)]
pub enum HandshakeError {
    /// The two sides speak different protocol versions.
    Version { ours: u32, theirs: u32 },
    /// The peer's proof does not match our secret (a wrong secret, or not an Eagle peer).
    BadProof { role: Role, app: String },
    /// The server refused us, saying why.
    Refused(String),
    /// The peer's role may not connect here.
    RoleNotAllowed(Role),
    /// A message out of order or a bad field.
    Protocol(String),
    /// The handshake's own frames were broken (closed, truncated, malformed).
    Frame(FrameError),
}

impl fmt::Display for HandshakeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HandshakeError::Version { ours, theirs } => {
                write!(f, "protocol version mismatch: ours {ours}, theirs {theirs}")
            }
            HandshakeError::BadProof { role, app } => {
                write!(f, "authentication failed for {role} '{app}': wrong shared secret")
            }
            HandshakeError::Refused(r) => write!(f, "refused by the server: {r}"),
            HandshakeError::RoleNotAllowed(r) => write!(f, "a {r} may not connect here"),
            HandshakeError::Protocol(m) => write!(f, "handshake protocol error: {m}"),
            HandshakeError::Frame(e) => write!(f, "handshake: {e}"),
        }
    }
}

impl std::error::Error for HandshakeError {}

impl From<FrameError> for HandshakeError {
    fn from(e: FrameError) -> Self {
        HandshakeError::Frame(e)
    }
}

/// Why a shared secret file could not be used; both name the path.
#[derive(Debug)]
pub enum SecretError {
    /// The file could not be read.
    Unreadable { path: PathBuf, source: std::io::Error },
    /// The file holds nothing but whitespace.
    Empty { path: PathBuf },
}

impl fmt::Display for SecretError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretError::Unreadable { path, source } => {
                write!(f, "cannot read secret file {}: {source}", path.display())
            }
            SecretError::Empty { path } => write!(f, "secret file {} is empty", path.display()),
        }
    }
}

impl std::error::Error for SecretError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SecretError::Unreadable { source, .. } => Some(source),
            SecretError::Empty { .. } => None,
        }
    }
}

/// Reads a shared secret file: its bytes without trailing whitespace. An unreadable or
/// empty file is an error naming the path.
pub fn read_secret(path: &Path) -> Result<Vec<u8>, SecretError> {
    let raw = std::fs::read(path).map_err(|source| SecretError::Unreadable { path: path.to_path_buf(), source })?;
    let end = raw.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    if end == 0 {
        return Err(SecretError::Empty { path: path.to_path_buf() });
    }
    Ok(raw[..end].to_vec())
}

fn nonce() -> Result<[u8; 32], HandshakeError> {
    let mut n = [0u8; 32];
    getrandom::fill(&mut n).map_err(|e| HandshakeError::Protocol(format!("no OS randomness for the nonce: {e}")))?;
    Ok(n)
}

fn hex(bytes: &[u8]) -> String {
    const D: &[u8; 16] = b"0123456789abcdef";
    bytes.iter().flat_map(|b| [D[(b >> 4) as usize] as char, D[(b & 15) as usize] as char]).collect()
}

fn unhex(s: &str, what: &str) -> Result<Vec<u8>, HandshakeError> {
    let bad = || HandshakeError::Protocol(format!("{what} is not hex"));
    if !s.len().is_multiple_of(2) || s.len() > 256 {
        return Err(bad());
    }
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(s.get(2 * i..2 * i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect()
}

fn mac(secret: &[u8], label: &str, parts: &[&[u8]]) -> HmacSha256 {
    let mut m = HmacSha256::new_from_slice(secret).expect("HMAC takes keys of any length");
    for p in std::iter::once(label.as_bytes()).chain(parts.iter().copied()) {
        m.update(&(p.len() as u64).to_be_bytes());
        m.update(p);
    }
    m
}

fn role_bytes(r: Role) -> &'static [u8] {
    match r {
        Role::Driver => b"driver",
        Role::Node => b"node",
        Role::Central => b"central",
    }
}

fn send<S: Write>(s: &mut S, h: &Hello) -> Result<(), HandshakeError> {
    write_frame(s, h)?;
    s.flush().map_err(FrameError::Io)?;
    Ok(())
}

/// Server side: authenticates the client on `stream` and returns who it is. On a
/// wrong version, proof or role the client is told why (`Refused`) and the error is
/// returned: the caller logs it with the peer's address and closes the connection.
pub fn accept<S: Read + Write>(
    stream: &mut S,
    secret: &[u8],
    role: Role,
    allowed: &[Role],
) -> Result<Peer, HandshakeError> {
    let (peer, welcome) = accept_deferred(stream, secret, role, allowed)?;
    stream.write_all(welcome.bytes()).map_err(FrameError::Io)?;
    stream.flush().map_err(FrameError::Io)?;
    Ok(peer)
}

/// The server's last handshake frame (`Welcome`), encoded and not yet sent. The
/// client's [`connect`] returns only once it has read it, so whoever sends it decides
/// when the client may start talking: a daemon registers the connection with its
/// state first, and nothing the client causes afterwards can reach the state before
/// the connection does (see [`crate::net`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Welcome(Vec<u8>);

impl Welcome {
    /// The frame, ready to be written to the client's stream as is.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }
}

/// [`accept`] without its last step: the client is authenticated, and the `Welcome`
/// that completes its handshake is returned for the caller to send (first, before
/// any message) once it is ready for the client's traffic.
pub fn accept_deferred<S: Read + Write>(
    stream: &mut S,
    secret: &[u8],
    role: Role,
    allowed: &[Role],
) -> Result<(Peer, Welcome), HandshakeError> {
    let ns = nonce()?;
    send(stream, &Hello::Server { version: PROTOCOL_VERSION, role, nonce: hex(&ns) })?;
    let (version, peer_role, app, nc, proof) = match read_frame::<_, Hello>(stream)? {
        Hello::Client { version, role, app, nonce, proof } => (version, role, app, nonce, proof),
        other => return Err(HandshakeError::Protocol(format!("expected the client hello, got {other:?}"))),
    };
    let refuse = |stream: &mut S, e: HandshakeError| -> Result<(Peer, Welcome), HandshakeError> {
        let _ = send(stream, &Hello::Refused { reason: e.to_string() });
        Err(e)
    };
    if version != PROTOCOL_VERSION {
        return refuse(stream, HandshakeError::Version { ours: PROTOCOL_VERSION, theirs: version });
    }
    let nc = unhex(&nc, "client nonce")?;
    let proof = unhex(&proof, "client proof")?;
    let v = version.to_be_bytes();
    let expect = mac(secret, "client", &[&v, role_bytes(peer_role), app.as_bytes(), &ns, &nc]);
    if expect.verify_slice(&proof).is_err() {
        return refuse(stream, HandshakeError::BadProof { role: peer_role, app });
    }
    if !allowed.contains(&peer_role) {
        return refuse(stream, HandshakeError::RoleNotAllowed(peer_role));
    }
    let ps = mac(secret, "server", &[&ns, &nc, role_bytes(peer_role), app.as_bytes()]).finalize().into_bytes();
    let mut welcome = Vec::new();
    write_frame(&mut welcome, &Hello::Welcome { proof: hex(&ps) })?;
    Ok((Peer { role: peer_role, app }, Welcome(welcome)))
}

/// Client side: proves the secret to the server, checks the server's proof, and
/// returns the server's role.
pub fn connect<S: Read + Write>(stream: &mut S, secret: &[u8], role: Role, app: &str) -> Result<Role, HandshakeError> {
    let (server_version, server_role, ns) = match read_frame::<_, Hello>(stream)? {
        Hello::Server { version, role, nonce } => (version, role, nonce),
        other => return Err(HandshakeError::Protocol(format!("expected the server hello, got {other:?}"))),
    };
    let ns = unhex(&ns, "server nonce")?;
    let nc = nonce()?;
    let v = PROTOCOL_VERSION.to_be_bytes();
    let proof = mac(secret, "client", &[&v, role_bytes(role), app.as_bytes(), &ns, &nc]).finalize().into_bytes();
    // Sent even on a version mismatch, so that the server logs the refusal too.
    send(
        stream,
        &Hello::Client { version: PROTOCOL_VERSION, role, app: app.to_string(), nonce: hex(&nc), proof: hex(&proof) },
    )?;
    match read_frame::<_, Hello>(stream) {
        Ok(Hello::Welcome { proof }) => {
            if server_version != PROTOCOL_VERSION {
                return Err(HandshakeError::Version { ours: PROTOCOL_VERSION, theirs: server_version });
            }
            let proof = unhex(&proof, "server proof")?;
            let expect = mac(secret, "server", &[&ns, &nc, role_bytes(role), app.as_bytes()]);
            expect
                .verify_slice(&proof)
                .map_err(|_| HandshakeError::BadProof { role: server_role, app: String::new() })?;
            Ok(server_role)
        }
        Ok(Hello::Refused { reason }) => Err(HandshakeError::Refused(reason)),
        Ok(other) => Err(HandshakeError::Protocol(format!("expected welcome or refusal, got {other:?}"))),
        Err(FrameError::Closed) if server_version != PROTOCOL_VERSION => {
            Err(HandshakeError::Version { ours: PROTOCOL_VERSION, theirs: server_version })
        }
        Err(e) => Err(e.into()),
    }
}

/// Test support: a client hello claiming another protocol version.
#[doc(hidden)]
pub fn connect_with_version<S: Read + Write>(
    stream: &mut S,
    secret: &[u8],
    role: Role,
    app: &str,
    version: u32,
) -> Result<Role, HandshakeError> {
    let ns = match read_frame::<_, Hello>(stream)? {
        Hello::Server { nonce, .. } => unhex(&nonce, "server nonce")?,
        other => return Err(HandshakeError::Protocol(format!("expected the server hello, got {other:?}"))),
    };
    let nc = nonce()?;
    let v = version.to_be_bytes();
    let proof = mac(secret, "client", &[&v, role_bytes(role), app.as_bytes(), &ns, &nc]).finalize().into_bytes();
    send(stream, &Hello::Client { version, role, app: app.to_string(), nonce: hex(&nc), proof: hex(&proof) })?;
    match read_frame::<_, Hello>(stream)? {
        Hello::Refused { reason } => Err(HandshakeError::Refused(reason)),
        Hello::Welcome { .. } => Ok(Role::Node),
        other => Err(HandshakeError::Protocol(format!("{other:?}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{TcpListener, TcpStream};
    use std::thread;

    /// Runs `accept` on one side of a loopback connection and `client` on the other.
    fn pair<T: Send + 'static>(
        server_secret: &'static [u8],
        allowed: &'static [Role],
        client: impl FnOnce(&mut TcpStream) -> T + Send + 'static,
    ) -> (Result<Peer, HandshakeError>, T) {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let c = thread::spawn(move || client(&mut TcpStream::connect(addr).unwrap()));
        let (mut s, _) = l.accept().unwrap();
        let server = accept(&mut s, server_secret, Role::Node, allowed);
        drop(s);
        (server, c.join().unwrap())
    }

    #[test]
    fn same_secret_authenticates_both_ways() {
        let (s, c) = pair(b"s3cret", &[Role::Driver], |st| connect(st, b"s3cret", Role::Driver, "app-7"));
        assert_eq!(s.unwrap(), Peer { role: Role::Driver, app: "app-7".into() });
        assert_eq!(c.unwrap(), Role::Node);
    }

    #[test]
    fn wrong_secret_is_refused_and_named() {
        let (s, c) = pair(b"s3cret", &[Role::Driver], |st| connect(st, b"guess", Role::Driver, "app-7"));
        let e = s.unwrap_err();
        assert!(matches!(&e, HandshakeError::BadProof { app, .. } if app == "app-7"), "{e:?}");
        assert!(e.to_string().contains("wrong shared secret"));
        match c {
            Err(HandshakeError::Refused(r)) => assert!(r.contains("authentication failed"), "{r}"),
            other => panic!("the client must learn it was refused: {other:?}"),
        }
    }

    #[test]
    fn wrong_version_is_refused() {
        let (s, c) =
            pair(b"k", &[Role::Driver], |st| connect_with_version(st, b"k", Role::Driver, "a", PROTOCOL_VERSION + 1));
        assert!(matches!(s.unwrap_err(), HandshakeError::Version { theirs, .. } if theirs == PROTOCOL_VERSION + 1));
        assert!(matches!(c, Err(HandshakeError::Refused(r)) if r.contains("version")));
    }

    #[test]
    fn role_not_allowed_is_refused() {
        let (s, c) = pair(b"k", &[Role::Driver], |st| connect(st, b"k", Role::Central, "central"));
        assert!(matches!(s.unwrap_err(), HandshakeError::RoleNotAllowed(Role::Central)));
        assert!(c.is_err());
    }

    #[test]
    fn garbage_instead_of_hello_is_an_error() {
        let (s, _) = pair(b"k", &[Role::Driver], |st| {
            let mut hello = [0u8; 4];
            st.read_exact(&mut hello).unwrap(); // the length of the server hello; ignore the rest
            st.write_all(&[0, 0, 0, 3, b'x', b'y', b'z']).unwrap();
        });
        assert!(matches!(s.unwrap_err(), HandshakeError::Frame(FrameError::Malformed { .. })));
    }

    #[test]
    fn mac_fields_are_unambiguous() {
        let a = mac(b"k", "client", &[b"ab", b"c"]).finalize().into_bytes();
        let b = mac(b"k", "client", &[b"a", b"bc"]).finalize().into_bytes();
        assert_ne!(a, b);
    }

    #[test]
    fn secret_file_is_trimmed_and_empty_is_an_error() {
        let dir = std::env::temp_dir().join(format!("eagle-wire-secret-{}", std::process::id()));
        std::fs::write(&dir, b"abc\n").unwrap();
        assert_eq!(read_secret(&dir).unwrap(), b"abc");
        std::fs::write(&dir, b"\n \n").unwrap();
        assert!(read_secret(&dir).unwrap_err().to_string().contains("is empty"));
        std::fs::remove_file(&dir).unwrap();
        assert!(read_secret(&dir).unwrap_err().to_string().contains("cannot read secret file"));
    }
}
