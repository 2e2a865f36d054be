//! Support for the process-level fault tests: the real `eagle-node` and
//! `eagle-central` binaries as child processes on 127.0.0.1, and a fake driver
//! written against `eagle-wire` only (what the driver side speaks).
//!
//! `eagle-central` is this package's binary (`CARGO_BIN_EXE_eagle-central`); cargo
//! builds a package's binaries before its integration tests, but not another
//! package's, so `eagle-node` is built once with the same cargo, profile and target
//! directory the first time a test needs it.

#![allow(dead_code)]

use eagle_wire::client::{open, ClientError};
use eagle_wire::{write_frame, FrameError, FrameReader, FromCentral, FromNode, Role, ToCentral, ToNode};
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// Generous bounds: the machine running the tests may be loaded (the driver test took 47 s
/// in a CI run beside the workspace tests, and once timed out at 60 s there).
pub const PATIENCE: Duration = Duration::from_secs(150);

pub fn central_bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_eagle-central"))
}

/// The `eagle-node` binary next to `eagle-central`, built on first use.
pub fn node_bin() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let central = central_bin();
            let dir = central.parent().expect("the binary has a directory");
            let profile = match dir.file_name().and_then(|n| n.to_str()) {
                Some("debug") | None => "dev".to_string(),
                Some(p) => p.to_string(),
            };
            let target_dir = dir.parent().expect("a profile directory has a target directory");
            let status = Command::new(env!("CARGO"))
                .args(["build", "-q", "-p", "eagle-node", "--bin", "eagle-node", "--profile", &profile, "--target-dir"])
                .arg(target_dir)
                .status()
                .expect("run cargo to build eagle-node");
            assert!(status.success(), "cargo build -p eagle-node failed: {status}");
            let bin = dir.join("eagle-node");
            assert!(bin.exists(), "no eagle-node binary at {}", bin.display());
            bin
        })
        .clone()
}

/// A scratch directory with the shared secret (0600), removed at drop.
pub struct Scratch {
    pub dir: PathBuf,
    pub secret_file: PathBuf,
}

pub const SECRET: &[u8] = b"fault-test-secret";

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("eagle-faults-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let secret_file = dir.join("secret");
        std::fs::write(&secret_file, SECRET).unwrap();
        std::fs::set_permissions(&secret_file, std::fs::Permissions::from_mode(0o600)).unwrap();
        Scratch { dir, secret_file }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A daemon child process. Its stderr (the log) is kept for failure messages.
pub struct Daemon {
    pub name: String,
    bin: PathBuf,
    /// Arguments other than `--listen`.
    args: Vec<String>,
    /// The bound address (`127.0.0.1:PORT`), known once it logged it.
    pub addr: String,
    child: Option<Child>,
    pub log: Arc<Mutex<Vec<String>>>,
}

impl Daemon {
    /// Starts `bin args --listen 127.0.0.1:0` and waits for it to log its address.
    pub fn start(name: &str, bin: &Path, args: &[String]) -> Daemon {
        let mut d = Daemon {
            name: name.to_string(),
            bin: bin.to_path_buf(),
            args: args.to_vec(),
            addr: "127.0.0.1:0".into(),
            child: None,
            log: Arc::new(Mutex::new(Vec::new())),
        };
        d.launch();
        d
    }

    fn launch(&mut self) {
        let mut child = Command::new(&self.bin)
            .args(&self.args)
            .args(["--listen", &self.addr])
            .env("RUST_LOG", "info")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {} ({}): {e}", self.name, self.bin.display()));
        let (tx, rx) = channel::<String>();
        let stderr = child.stderr.take().unwrap();
        let log = self.log.clone();
        thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Some(rest) = line.split("listening on ").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or("").trim_end_matches([',', ':']);
                    let _ = tx.send(addr.to_string());
                }
                log.lock().unwrap().push(line);
            }
        });
        match rx.recv_timeout(PATIENCE) {
            Ok(addr) => self.addr = addr,
            Err(_) => {
                let _ = child.kill();
                panic!("{} did not start: {:?}", self.name, self.log.lock().unwrap());
            }
        }
        self.child = Some(child);
    }

    /// SIGKILL: the process dies at once, its sockets are reset by the kernel.
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            c.kill().unwrap();
            c.wait().unwrap();
        }
    }

    /// Starts the daemon again on the same address.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "{} is still running", self.name);
        self.launch();
    }

    pub fn logged(&self, needle: &str) -> bool {
        self.log.lock().unwrap().iter().any(|l| l.contains(needle))
    }
}

impl Drop for Daemon {
    /// Kills the daemon; when a test failed, prints its log first, so a timeout says what
    /// the daemon saw (a closed link, a refused placement) instead of only that it waited.
    fn drop(&mut self) {
        if thread::panicking() {
            let log = self.log.lock().map(|l| l.clone()).unwrap_or_default();
            eprintln!("---- {} log ({} lines, last 60) ----", self.name, log.len());
            for line in log.iter().skip(log.len().saturating_sub(60)) {
                eprintln!("{}: {line}", self.name);
            }
        }
        self.kill();
    }
}

/// Polls `probe` until it returns `Some`, or panics after [`PATIENCE`] with `what`
/// and the last value seen.
pub fn eventually<T, D: std::fmt::Debug>(what: &str, mut probe: impl FnMut() -> Result<T, D>) -> T {
    let t0 = Instant::now();
    loop {
        match probe() {
            Ok(t) => return t,
            Err(last) => {
                assert!(t0.elapsed() < PATIENCE, "timed out waiting for {what}; last: {last:?}");
                thread::sleep(Duration::from_millis(50));
            }
        }
    }
}

/// Why the fake driver could not link to a daemon; names the address and the step.
#[derive(Debug)]
pub enum LinkError {
    Open(ClientError),
    Ping { addr: String, cause: FrameError },
    NoPong { addr: String, cause: FrameError },
    NotPong { addr: String, got: String },
}

impl From<ClientError> for LinkError {
    fn from(e: ClientError) -> Self {
        LinkError::Open(e)
    }
}

impl std::fmt::Display for LinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LinkError::Open(e) => write!(f, "{e}"),
            LinkError::Ping { addr, cause } => write!(f, "eagle-node at {addr}: ping: {cause}"),
            LinkError::NoPong { addr, cause } => write!(f, "eagle-node at {addr}: no pong: {cause}"),
            LinkError::NotPong { addr, got } => write!(f, "eagle-node at {addr}: expected Pong, got {got}"),
        }
    }
}

/// What the fake driver's reader threads report. `gen` tells a link's incarnations
/// apart (a reconnect starts a new one), so a late event of a dead link is ignored.
#[derive(Debug)]
pub enum Ev {
    Node { node: usize, gen: u64, msg: FromNode },
    NodeClosed { node: usize, gen: u64 },
    Central { gen: u64, msg: FromCentral },
    CentralClosed { gen: u64 },
}

struct LinkSlot {
    addr: String,
    stream: Option<TcpStream>,
    gen: u64,
}

/// A fake driver: one authenticated link per node, and one to the central.
pub struct FakeDriver {
    pub app: String,
    nodes: Vec<LinkSlot>,
    central: LinkSlot,
    tx: Sender<Ev>,
    rx: Receiver<Ev>,
    last_ping: Instant,
    /// Ping the links this often (under a third of the nodes' lease time).
    pub ping_every: Duration,
    /// False once the driver went silent (it stops pinging, as a hung process).
    pub alive: bool,
}

impl FakeDriver {
    pub fn new(app: &str, nodes: &[String], central: &str) -> FakeDriver {
        let (tx, rx) = channel();
        let slot = |a: &str| LinkSlot { addr: a.to_string(), stream: None, gen: 0 };
        FakeDriver {
            app: app.to_string(),
            nodes: nodes.iter().map(|a| slot(a)).collect(),
            central: slot(central),
            tx,
            rx,
            last_ping: Instant::now(),
            ping_every: Duration::from_millis(300),
            alive: true,
        }
    }

    fn reader<M: serde::de::DeserializeOwned + Send + 'static>(
        s: &TcpStream,
        tx: Sender<Ev>,
        msg: impl Fn(M) -> Ev + Send + 'static,
        closed: Ev,
    ) {
        let r = s.try_clone().unwrap();
        r.set_read_timeout(None).unwrap();
        thread::spawn(move || {
            let mut r = FrameReader::new(BufReader::new(r));
            while let Ok(m) = r.read::<M>() {
                if tx.send(msg(m)).is_err() {
                    return;
                }
            }
            let _ = tx.send(closed);
        });
    }

    /// Connects (or reconnects) to node `i`; the error names the address. Returns once
    /// the node answered a `Ping`: its state thread has then registered the connection,
    /// so a placement the central sends there next finds the application.
    pub fn connect_node(&mut self, i: usize) -> Result<(), LinkError> {
        let addr = self.nodes[i].addr.clone();
        let s = open(&addr, SECRET, Role::Driver, &self.app, "eagle-node", Duration::from_secs(5))?;
        write_frame(&mut &s, &ToNode::Ping).map_err(|e| LinkError::Ping { addr: addr.clone(), cause: e })?;
        match FrameReader::new(&s).read::<FromNode>().map_err(|e| LinkError::NoPong { addr: addr.clone(), cause: e })? {
            FromNode::Pong => {}
            other => return Err(LinkError::NotPong { addr, got: format!("{other:?}") }),
        }
        let l = &mut self.nodes[i];
        l.gen += 1;
        let gen = l.gen;
        Self::reader(&s, self.tx.clone(), move |msg| Ev::Node { node: i, gen, msg }, Ev::NodeClosed { node: i, gen });
        l.stream = Some(s);
        Ok(())
    }

    pub fn connect_central(&mut self) -> Result<(), LinkError> {
        let s = open(&self.central.addr, SECRET, Role::Driver, &self.app, "eagle-central", Duration::from_secs(5))?;
        let l = &mut self.central;
        l.gen += 1;
        let gen = l.gen;
        Self::reader(&s, self.tx.clone(), move |msg| Ev::Central { gen, msg }, Ev::CentralClosed { gen });
        l.stream = Some(s);
        Ok(())
    }

    pub fn node_up(&self, i: usize) -> bool {
        self.nodes[i].stream.is_some()
    }

    pub fn central_up(&self) -> bool {
        self.central.stream.is_some()
    }

    fn write<T: serde::Serialize>(slot: &mut LinkSlot, m: &T) -> bool {
        let Some(s) = slot.stream.as_mut() else { return false };
        write_frame(s, m).is_ok() && s.flush().is_ok()
    }

    /// Sends to node `i`; false when the link is down.
    pub fn send_node(&mut self, i: usize, m: &ToNode) -> bool {
        Self::write(&mut self.nodes[i], m)
    }

    pub fn send_central(&mut self, m: &ToCentral) -> bool {
        Self::write(&mut self.central, m)
    }

    /// The next event of a live link (stale ones are dropped, a close marks the link
    /// down), waiting up to 20 ms; pings every live link when due.
    pub fn step(&mut self) -> Option<Ev> {
        if self.alive && self.last_ping.elapsed() >= self.ping_every {
            self.last_ping = Instant::now();
            for i in 0..self.nodes.len() {
                self.send_node(i, &ToNode::Ping);
            }
            self.send_central(&ToCentral::Ping);
        }
        let ev = self.rx.recv_timeout(Duration::from_millis(20)).ok()?;
        match &ev {
            Ev::Node { node, gen, .. } if *gen != self.nodes[*node].gen => None,
            Ev::NodeClosed { node, gen } => {
                let l = &mut self.nodes[*node];
                if *gen != l.gen {
                    return None;
                }
                l.stream = None;
                Some(ev)
            }
            Ev::Central { gen, .. } if *gen != self.central.gen => None,
            Ev::CentralClosed { gen } => {
                if *gen != self.central.gen {
                    return None;
                }
                self.central.stream = None;
                Some(ev)
            }
            _ => Some(ev),
        }
    }

    /// Steps until `f` returns `Some` for an event, panicking after [`PATIENCE`].
    pub fn wait_for<T>(&mut self, what: &str, mut f: impl FnMut(&mut FakeDriver, Ev) -> Option<T>) -> T {
        let t0 = Instant::now();
        loop {
            assert!(t0.elapsed() < PATIENCE, "{}: timed out waiting for {what}", self.app);
            if let Some(ev) = self.step() {
                if let Some(t) = f(self, ev) {
                    return t;
                }
            }
        }
    }

    /// Dies without a goodbye: every socket is shut down at once, as the kernel does
    /// for a SIGKILLed process.
    pub fn crash(&mut self) {
        for l in self.nodes.iter_mut().chain(std::iter::once(&mut self.central)) {
            if let Some(s) = l.stream.take() {
                let _ = s.shutdown(Shutdown::Both);
            }
        }
        self.alive = false;
    }
}
