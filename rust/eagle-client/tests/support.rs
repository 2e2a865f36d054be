//! Daemons for the client's tests: in-process `eagle-node`s and an `eagle-central`
//! on 127.0.0.1, each reachable through a [`Proxy`] the test can cut (the daemon
//! looks dead to the client: its connections drop and new ones are closed at once)
//! and restore (the daemon is back), and a fake driver that answers the grants.

use eagle_central::{placement::Placement, short_partition::ShortPartition};
use eagle_client::{Client, ClientConfig, Event, Grant};
pub use eagle_testkit::eventually;
use eagle_testkit::{Central, Node};
use eagle_wire::{FromCentral, Role, ToCentral};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

pub const SECRET: &[u8] = b"client-test";

pub fn node(slots: u32) -> String {
    node_with(eagle_node::Policy::Eagle, slots, 5_000)
}

/// A node of `policy` whose leases (and silent peers) expire after `lease_ms`.
pub fn node_with(policy: eagle_node::Policy, slots: u32, lease_ms: u64) -> String {
    node_keyed(policy, slots, lease_ms, SECRET)
}

/// [`node_with`] whose shared secret is `secret`.
pub fn node_keyed(policy: eagle_node::Policy, slots: u32, lease_ms: u64, secret: &[u8]) -> String {
    Node::new(secret, slots).policy(policy).lease_ms(lease_ms).start().to_string()
}

pub fn central(nodes: &[String]) -> String {
    central_with(nodes, Placement::Lwl)
}

pub fn central_with(nodes: &[String], placement: Placement) -> String {
    central_sized(nodes, placement, ShortPartition::Fixed)
}

/// A central whose short-only partition has no fixed share and is sized as `short_partition` says.
pub fn central_sized(nodes: &[String], placement: Placement, short_partition: ShortPartition) -> String {
    central_keyed(nodes, placement, short_partition, SECRET)
}

/// [`central_sized`] whose shared secret is `secret`.
pub fn central_keyed(nodes: &[String], placement: Placement, short_partition: ShortPartition, secret: &[u8]) -> String {
    Central::numbered(secret, nodes).placement(placement).short_partition(short_partition).start().to_string()
}

/// A central with no short-only partition whose long jobs each leave `fraction` of the
/// general slots to the others (`--long-headroom`).
pub fn central_headroom(nodes: &[String], fraction: f64) -> String {
    Central::numbered(SECRET, nodes).long_headroom(fraction).start().to_string()
}

/// A TCP forwarder to `upstream` that can be cut and restored.
pub struct Proxy {
    pub addr: String,
    cut: Arc<AtomicBool>,
    live: Arc<parking_lot::Mutex<Vec<TcpStream>>>,
}

impl Proxy {
    pub fn new(upstream: &str) -> Proxy {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap().to_string();
        let cut = Arc::new(AtomicBool::new(false));
        let live: Arc<parking_lot::Mutex<Vec<TcpStream>>> = Arc::default();
        let (c, lv, up) = (cut.clone(), live.clone(), upstream.to_string());
        thread::spawn(move || {
            for s in l.incoming().flatten() {
                if c.load(Ordering::SeqCst) {
                    let _ = s.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(u) = TcpStream::connect(&up) else { continue };
                let _ = (s.set_nodelay(true), u.set_nodelay(true));
                lv.lock().extend([s.try_clone().unwrap(), u.try_clone().unwrap()]);
                pipe(s.try_clone().unwrap(), u.try_clone().unwrap());
                pipe(u, s);
            }
        });
        Proxy { addr, cut, live }
    }

    /// The daemon disappears for the client.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for s in self.live.lock().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    /// The daemon is back.
    pub fn restore(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

fn pipe(mut from: TcpStream, mut to: TcpStream) {
    thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        loop {
            match from.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if to.write_all(&buf[..n]).is_err() {
                        break;
                    }
                }
            }
        }
        let _ = to.shutdown(Shutdown::Both);
        let _ = from.shutdown(Shutdown::Both);
    });
}

pub fn client(app: &str, central: &str, min_probes: u32) -> Client {
    client_with(app, central, min_probes, 200)
}

/// A client whose tick (keep-alives, and re-probing jobs left without any probe) comes
/// every `ping_ms`.
pub fn client_with(app: &str, central: &str, min_probes: u32, ping_ms: u64) -> Client {
    client_probing(app, central, min_probes, 2, ping_ms)
}

/// [`client_with`] whose short jobs probe `max(min_probes, probe_ratio · t)` hosts.
pub fn client_probing(app: &str, central: &str, min_probes: u32, probe_ratio: u32, ping_ms: u64) -> Client {
    let cfg = ClientConfig {
        app: app.into(),
        central: central.into(),
        secret: SECRET.to_vec(),
        min_probes,
        probe_ratio,
        ping_ms,
        seed: 1,
        retry_rejected: true,
    };
    Client::start(cfg)
}

/// A driver's bookkeeping over a client: tasks left per job, what ran where.
#[derive(Default)]
pub struct Driver {
    pub left: BTreeMap<u64, u32>,
    /// (job, host, long) per launched task.
    pub ran: Vec<(u64, String, bool)>,
    pub running: Vec<Grant>,
    pub events: Vec<Event>,
}

impl Driver {
    pub fn submit(&mut self, c: &Client, job: u64, tasks: u32, long: bool) {
        self.submit_wide(c, job, tasks, long, 1);
    }

    /// Tasks of `cpus` slots each.
    pub fn submit_wide(&mut self, c: &Client, job: u64, tasks: u32, long: bool, cpus: u32) {
        self.left.insert(job, tasks);
        c.submit_wide(job, tasks, 50.0, long, cpus);
    }

    /// Reacts to one event: a grant launches a task if one is left (else returns it).
    /// Tasks are ended at once unless `hold`.
    pub fn on(&mut self, c: &Client, e: Event, hold: bool) {
        if let Event::Grant(g) = &e {
            match self.left.get_mut(&g.job).filter(|n| **n > 0) {
                Some(n) => {
                    *n -= 1;
                    c.launched(g);
                    self.ran.push((g.job, g.host.clone(), g.long));
                    if hold {
                        self.running.push(g.clone());
                    } else {
                        c.task_end(g);
                    }
                }
                None => c.no_task(g),
            }
        }
        self.events.push(e);
    }

    /// Handles events until `done` holds (panics after a generous bound).
    pub fn until(&mut self, c: &Client, what: &str, hold: bool, mut done: impl FnMut(&Driver) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !done(self) {
            let left = deadline.saturating_duration_since(Instant::now());
            match c.events().recv_timeout(left.min(Duration::from_millis(200))) {
                Ok(e) => self.on(c, e, hold),
                Err(_) if Instant::now() >= deadline => {
                    panic!("timed out waiting for {what}; events: {:?}", self.events)
                }
                Err(_) => {}
            }
        }
    }

    pub fn ran_of(&self, job: u64) -> Vec<&(u64, String, bool)> {
        self.ran.iter().filter(|r| r.0 == job).collect()
    }
}

/// A client of `app` (ticking every 100 ms, K = 2) on `central` and the nodes `hosts`
/// (name, address), once the central and every host are linked.
pub fn linked_client(app: &str, central: &str, hosts: &[(&str, &str)]) -> (Client, Driver) {
    let c = client_with(app, central, 2, 100);
    for (name, addr) in hosts {
        c.add_host(name, addr);
    }
    let mut d = Driver::default();
    d.until(&c, "every host and the central", false, |d| {
        d.events.contains(&Event::CentralUp)
            && d.events.iter().filter(|e| matches!(e, Event::HostUp(_))).count() == hosts.len()
    });
    (c, d)
}

/// The client handles events for `ms`, holding every task (none ends).
pub fn hold_for(d: &mut Driver, c: &Client, ms: u64) {
    let until = Instant::now() + Duration::from_millis(ms);
    while let Some(left) = until.checked_duration_since(Instant::now()) {
        if let Ok(e) = c.events().recv_timeout(left) {
            d.on(c, e, true);
        }
    }
}

/// Handles the events of two clients until `done` holds (bounded generously).
pub fn until2(
    a: &Client,
    da: &mut Driver,
    b: &Client,
    db: &mut Driver,
    what: &str,
    done: impl Fn(&Driver, &Driver) -> bool,
) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(da, db) {
        assert!(Instant::now() < deadline, "timed out waiting for {what}; events: {:?} / {:?}", da.events, db.events);
        if let Ok(e) = a.events().recv_timeout(Duration::from_millis(20)) {
            da.on(a, e, false);
        }
        if let Ok(e) = b.events().recv_timeout(Duration::from_millis(20)) {
            db.on(b, e, false);
        }
    }
}

/// Waits until the central at `addr` has linked `n` nodes.
pub fn central_linked(addr: &str, n: usize) {
    eagle_testkit::central_linked(addr, SECRET, n)
}

/// Leased slots on the node at `addr`.
pub fn central_status(addr: &str) -> eagle_wire::CentralStatus {
    eagle_wire::client::central_status(addr, SECRET, Duration::from_secs(10)).unwrap()
}

pub fn leased(addr: &str) -> u32 {
    eagle_testkit::leased(addr, SECRET)
}

/// The slots the node at `addr` keeps for short work (`--short-partition slots`).
pub fn short_slots(addr: &str) -> u32 {
    eagle_wire::client::node_status(addr, SECRET, Duration::from_secs(10)).map(|s| s.short_slots).unwrap_or(u32::MAX)
}

/// The `SubmitLong` requests a stand-in central received: (job, tasks).
pub type Asked = Arc<Mutex<Vec<(u64, u32)>>>;

/// Acts for a central toward the node at `addr`, as a stand-in central does before it
/// answers a driver: places one long task of `app`'s `job` per entry of `cpus` (the slots it
/// asks for), then hands the queued ones back if `drop` (`DropReservations`), and returns
/// once the node has refused `refused` of them (`PlaceRefused`). The link then closes.
pub fn place_on_node(addr: &str, app: &str, job: u64, cpus: &[u32], drop: bool, refused: u32) {
    let s = eagle_wire::client::open(addr, SECRET, Role::Central, "central", "eagle-node", Duration::from_secs(10))
        .unwrap();
    let bitvector = eagle_wire::Bitvector { stamp: 1, words: vec![u64::MAX] };
    for &cpus in cpus {
        let place =
            eagle_wire::ToNode::Place { app: app.into(), job, est_ms: 50.0, bitvector: bitvector.clone(), cpus };
        eagle_wire::write_frame(&mut &s, &place).unwrap();
    }
    if drop {
        eagle_wire::write_frame(&mut &s, &eagle_wire::ToNode::DropReservations).unwrap();
    }
    let mut seen = 0;
    while seen < refused {
        if let eagle_wire::FromNode::PlaceRefused { .. } =
            eagle_wire::read_frame::<_, eagle_wire::FromNode>(&mut &s).unwrap()
        {
            seen += 1;
        }
    }
}

/// What a stand-in central does with a `SubmitLong`.
pub enum Answer {
    /// Sends these and stays up.
    Send(Vec<FromCentral>),
    /// Sends these, then dies: it closes the link and stops listening, so reconnecting
    /// is refused.
    Last(Vec<FromCentral>),
}

/// A stand-in central on 127.0.0.1 whose host list is `names`, for answers a real one
/// gives only by chance. It answers `Ping` itself, records every `SubmitLong`, and does
/// what `answer` returns for it (the first field: is it the job's first request?).
/// Returns its address and the requests.
pub fn stand_in_central(
    names: &[&str],
    mut answer: impl FnMut(bool, u64, u32) -> Answer + Send + 'static,
) -> (String, Asked) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap().to_string();
    let asked: Asked = Arc::default();
    let (seen, names) = (asked.clone(), names.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    thread::spawn(move || {
        for mut s in l.incoming().flatten() {
            if eagle_wire::accept(&mut s, SECRET, Role::Central, &[Role::Driver]).is_err() {
                continue;
            }
            let mut w = s.try_clone().unwrap();
            let mut send = |m: &FromCentral| eagle_wire::write_frame(&mut w, m).is_ok();
            if !send(&FromCentral::Hosts { names: names.clone() }) {
                continue;
            }
            while let Ok(m) = eagle_wire::read_frame::<_, ToCentral>(&mut s) {
                let ok = match m {
                    ToCentral::SubmitLong { job, tasks, .. } => {
                        let first = seen.lock().iter().all(|a| a.0 != job);
                        seen.lock().push((job, tasks));
                        match answer(first, job, tasks) {
                            Answer::Send(msgs) => msgs.iter().all(&mut send),
                            Answer::Last(msgs) => {
                                msgs.iter().all(&mut send);
                                let _ = s.shutdown(Shutdown::Both);
                                return;
                            }
                        }
                    }
                    ToCentral::Ping => send(&FromCentral::Pong),
                    _ => true,
                };
                if !ok {
                    break;
                }
            }
        }
    });
    (addr, asked)
}
