//! Two node daemons and the central scheduler on 127.0.0.1 (ephemeral ports,
//! in-process), with two fake drivers: an interactive application probing short
//! jobs and a batch application submitting long jobs to the central. Every task must
//! run exactly once, long tasks only in the general partition, rejected short probes
//! (Eagle SSS) are retried where the bitvector shows no long work, and after the run
//! no slot is leased anywhere.

use crossbeam_channel::{unbounded, Receiver, Sender};
use eagle_node::Policy;
use eagle_testkit::{Central, Node};
use eagle_wire::{connect, write_frame, FrameReader, FromCentral, FromNode, NodeStatus, Role, ToCentral, ToNode};
use serde::de::DeserializeOwned;
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufReader, BufWriter, Write};
use std::net::{SocketAddr, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

const SECRET: &[u8] = b"test-secret";

/// A client connection: a writer and a reader thread feeding `rx` tagged with `tag`.
struct Link<T> {
    w: BufWriter<TcpStream>,
    _t: std::marker::PhantomData<T>,
}

impl<T: Serialize> Link<T> {
    fn open<R: DeserializeOwned + Send + 'static, E: Send + 'static>(
        addr: SocketAddr,
        app: &str,
        tx: Sender<E>,
        wrap: impl Fn(R) -> E + Send + 'static,
    ) -> Link<T> {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        connect(&mut &s, SECRET, Role::Driver, app).unwrap();
        let r = s.try_clone().unwrap();
        thread::spawn(move || {
            let mut r = FrameReader::new(BufReader::new(r));
            while let Ok(m) = r.read::<R>() {
                if tx.send(wrap(m)).is_err() {
                    return;
                }
            }
        });
        Link { w: BufWriter::new(s), _t: std::marker::PhantomData }
    }
    fn send(&mut self, m: &T) {
        write_frame(&mut self.w, m).unwrap();
        self.w.flush().unwrap();
    }
}

impl<T> Drop for Link<T> {
    fn drop(&mut self) {
        // The reader thread holds a clone of the socket: shut it down so the daemon sees the end.
        let _ = self.w.get_ref().shutdown(std::net::Shutdown::Both);
    }
}

enum In {
    Node(usize, FromNode),
    Central(FromCentral),
}

fn node_status(addr: SocketAddr) -> NodeStatus {
    let (tx, rx) = unbounded();
    let mut l: Link<ToNode> = Link::open(addr, "observer", tx, |m: FromNode| m);
    l.send(&ToNode::Status);
    loop {
        if let FromNode::Status(s) = rx.recv_timeout(Duration::from_secs(10)).unwrap() {
            return s;
        }
    }
}

/// A fake driver: runs its jobs' tasks under the grants it gets; returns how many
/// times each (job, task) ran, and (node, job) of every grant.
struct Driver {
    nodes: Vec<Link<ToNode>>,
    rx: Receiver<In>,
    /// job → tasks not yet launched
    unlaunched: BTreeMap<u64, u32>,
    next_task: HashMap<u64, u32>,
    runs: BTreeMap<(u64, u32), u32>,
    /// (due, node, lease) of the running tasks.
    running: Vec<(Instant, usize, u64)>,
    task_ms: u64,
    last_ping: Instant,
}

impl Driver {
    fn new(app: &str, nodes: &[SocketAddr], task_ms: u64) -> (Driver, Sender<In>) {
        let (tx, rx) = unbounded();
        let links =
            nodes.iter().enumerate().map(|(i, &a)| Link::open(a, app, tx.clone(), move |m| In::Node(i, m))).collect();
        let mut d = Driver {
            nodes: links,
            rx,
            unlaunched: BTreeMap::new(),
            next_task: HashMap::new(),
            runs: BTreeMap::new(),
            running: Vec::new(),
            task_ms,
            last_ping: Instant::now(),
        };
        // The rule for drivers (docs/guide/cluster-mode.md): a link is usable once a Ping is answered (the
        // handshake ends before the node's state thread knows the connection, so a Place
        // the central sends at once could find the application unknown).
        let mut waiting: std::collections::BTreeSet<usize> = (0..d.nodes.len()).collect();
        for l in &mut d.nodes {
            l.send(&ToNode::Ping);
        }
        while !waiting.is_empty() {
            match d.rx.recv_timeout(Duration::from_secs(20)) {
                Ok(In::Node(i, FromNode::Pong)) => {
                    waiting.remove(&i);
                }
                Ok(_) => {}
                Err(e) => panic!("no Pong from nodes {waiting:?}: {e}"),
            }
        }
        (d, tx)
    }

    /// Handles one node message; returns a rejection `(job, node)` for the caller to re-probe.
    fn on_node(&mut self, node: usize, m: FromNode) -> Option<(u64, eagle_wire::Bitvector)> {
        match m {
            FromNode::Grant { lease, job, .. } => {
                let left = self.unlaunched.get_mut(&job).filter(|n| **n > 0);
                match left {
                    Some(n) => {
                        *n -= 1;
                        let t = self.next_task.entry(job).or_insert(0);
                        *self.runs.entry((job, *t)).or_insert(0) += 1;
                        *t += 1;
                        let done = *n == 0;
                        self.nodes[node].send(&ToNode::Launched { lease });
                        self.running.push((Instant::now() + Duration::from_millis(self.task_ms), node, lease));
                        if done {
                            for l in &mut self.nodes {
                                l.send(&ToNode::Remaining { job, tasks: 0 });
                            }
                        }
                    }
                    None => self.nodes[node].send(&ToNode::NoTask { lease }),
                }
                None
            }
            FromNode::Rejected { job, bitvector } => Some((job, bitvector.unwrap_or_default())),
            FromNode::Revoked { lease, reason } => panic!("lease {lease} revoked: {reason}"),
            FromNode::Error { what } => panic!("node error: {what}"),
            _ => None,
        }
    }

    /// Ends due tasks, keeps the links alive; waits up to 5 ms for the next message.
    fn poll(&mut self) -> Option<In> {
        let now = Instant::now();
        if now.duration_since(self.last_ping) > Duration::from_millis(500) {
            self.last_ping = now;
            for l in &mut self.nodes {
                l.send(&ToNode::Ping);
            }
        }
        let (due, later): (Vec<_>, Vec<_>) = self.running.drain(..).partition(|r| r.0 <= now);
        self.running = later;
        for (_, node, lease) in due {
            self.nodes[node].send(&ToNode::TaskEnd { lease });
        }
        self.rx.recv_timeout(Duration::from_millis(5)).ok()
    }

    fn all_done(&self) -> bool {
        self.unlaunched.values().all(|&n| n == 0) && self.running.is_empty()
    }
}

fn start_cluster(policy: Policy) -> (Vec<SocketAddr>, SocketAddr) {
    let nodes: Vec<SocketAddr> = (0..2).map(|_| Node::new(SECRET, 2).policy(policy).start()).collect();
    let central = Central::numbered(SECRET, &nodes).short_fraction(0.5).start(); // n0 short-only, n1 general
    (nodes, central)
}

fn run_cluster(policy: Policy) {
    let (nodes, central) = start_cluster(policy);
    let deadline = Instant::now() + Duration::from_secs(60);

    // The batch driver: 3 long jobs of 3 tasks through the central.
    let batch_nodes = nodes.clone();
    let batch = thread::spawn(move || {
        let (mut d, tx) = Driver::new("batch", &batch_nodes, 40);
        let mut c: Link<ToCentral> = Link::open(central, "batch", tx, In::Central);
        // Wait until the central has linked both nodes.
        loop {
            c.send(&ToCentral::Status);
            if let Ok(In::Central(FromCentral::Status(s))) = d.rx.recv_timeout(Duration::from_secs(10)) {
                if s.nodes.iter().all(|n| n.connected) {
                    break;
                }
            }
            assert!(Instant::now() < deadline, "the central never linked the nodes");
            thread::sleep(Duration::from_millis(20));
        }
        for job in 0..3u64 {
            d.unlaunched.insert(job, 3);
            c.send(&ToCentral::SubmitLong {
                job,
                tasks: 3,
                est_ms: 40.0,
                cpus: 1,
                hosts: None,
                avoid: Vec::new(),
                input: Vec::new(),
            });
        }
        let mut placed: Vec<u32> = Vec::new();
        while !(d.all_done() && placed.len() == 9) {
            assert!(Instant::now() < deadline, "batch driver timed out: {:?}", d.unlaunched);
            match d.poll() {
                Some(In::Node(n, m)) => assert!(d.on_node(n, m).is_none(), "long work is never rejected"),
                Some(In::Central(FromCentral::Placed { hosts, .. })) => placed.extend(hosts),
                Some(In::Central(FromCentral::Unplaced { job, tasks, host: None })) => {
                    panic!("job {job}: {tasks} tasks unplaced")
                }
                _ => {}
            }
        }
        assert!(placed.iter().all(|&h| h == 1), "long tasks only in the general partition: {placed:?}");
        d.runs
    });

    // The interactive driver: 12 short jobs of 4 tasks, probing both nodes (SSS retry on rejection).
    let short_nodes = nodes.clone();
    let interactive = thread::spawn(move || {
        let (mut d, _tx) = Driver::new("interactive", &short_nodes, 2);
        let mut rejected = 0;
        for job in 0..12u64 {
            d.unlaunched.insert(job, 4);
            // Eagle: a sticky probe stands for the whole job; Sparrow: one probe per task,
            // 2t in all (late binding answers the extra ones with NoTask).
            let per_node = if policy == Policy::Eagle { 1 } else { 4 };
            for n in 0..2 {
                for _ in 0..per_node {
                    d.nodes[n].send(&ToNode::Probe { job, tasks: 4, est_ms: 2.0, cpus: 1 });
                }
            }
            // Let some long work arrive between jobs.
            let until = Instant::now() + Duration::from_millis(15);
            while Instant::now() < until {
                if let Some(In::Node(n, m)) = d.poll() {
                    if let Some((job, bv)) = d.on_node(n, m) {
                        rejected += 1;
                        // §3.1: retry where the bitvector shows no long work; else the short-only node.
                        let target = (0..2).find(|&i| i != n && !bv.bit(i)).unwrap_or(0);
                        let left = d.unlaunched[&job];
                        if left > 0 {
                            d.nodes[target].send(&ToNode::Probe { job, tasks: left, est_ms: 2.0, cpus: 1 });
                        }
                    }
                }
            }
        }
        while !d.all_done() {
            assert!(Instant::now() < deadline, "interactive driver timed out: {:?}", d.unlaunched);
            if let Some(In::Node(n, m)) = d.poll() {
                if let Some((job, _)) = d.on_node(n, m) {
                    rejected += 1;
                    let left = d.unlaunched[&job];
                    if left > 0 {
                        d.nodes[0].send(&ToNode::Probe { job, tasks: left, est_ms: 2.0, cpus: 1 });
                    }
                }
            }
        }
        (d.runs, rejected)
    });

    let long_runs = batch.join().unwrap();
    let (short_runs, rejected) = interactive.join().unwrap();
    assert_eq!(long_runs.len(), 9, "9 long tasks ran");
    assert_eq!(short_runs.len(), 48, "48 short tasks ran");
    assert!(long_runs.values().chain(short_runs.values()).all(|&n| n == 1), "every task ran exactly once");
    if policy == Policy::Sparrow {
        assert_eq!(rejected, 0, "sparrow never rejects");
    }
    // The drivers are gone (their connections dropped with their threads' links): no slot leased.
    let t0 = Instant::now();
    for &n in &nodes {
        loop {
            let st = node_status(n);
            if st.leased == 0 && st.apps.iter().all(|a| a.app == "observer") {
                break;
            }
            assert!(t0.elapsed() < Duration::from_secs(20), "node {n} still leases: {st:?}");
            thread::sleep(Duration::from_millis(20));
        }
    }
}

#[test]
fn two_applications_share_two_eagle_nodes_and_every_task_runs_once() {
    run_cluster(Policy::Eagle);
}

#[test]
fn the_same_run_under_sparrow() {
    run_cluster(Policy::Sparrow);
}
