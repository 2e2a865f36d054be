//! Daemon speed: probe → grant → launch → finish cycles per
//! second through the real node (scheduler thread, state machine, codec) over a
//! loopback socket, and the grant latency (probe sent → grant read), against a no-op
//! baseline in the same run: the same handshake, codec and socket round trip, with a
//! handler that answers every probe with a grant inline (no state, no scheduler hop).
//!
//! `cargo bench -p eagle-node` (pin it with `taskset -c 0` for the one-core figure).
//! Env: `EAGLE_BENCH_CYCLES` (default 20000 per client).

use eagle_node::Policy;
use eagle_testkit::Node;
use eagle_wire::{accept, connect, write_frame, FrameReader, FromNode, Role, ToNode};
use std::io::{BufReader, BufWriter, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

const SECRET: &[u8] = b"bench";

/// The no-op baseline: answers each probe with a grant, ignores the rest.
fn echo_server() -> SocketAddr {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    thread::spawn(move || {
        for s in l.incoming() {
            let s = s.unwrap();
            thread::spawn(move || {
                s.set_nodelay(true).unwrap();
                accept(&mut &s, SECRET, Role::Node, &[Role::Driver]).unwrap();
                let mut r = FrameReader::new(BufReader::new(s.try_clone().unwrap()));
                let mut w = BufWriter::new(s);
                let mut lease = 0;
                while let Ok(m) = r.read::<ToNode>() {
                    if let ToNode::Probe { job, .. } = m {
                        lease += 1;
                        write_frame(&mut w, &FromNode::Grant { lease, job, long: false, kept: true }).unwrap();
                        w.flush().unwrap();
                    }
                }
            });
        }
    });
    addr
}

/// One client's closed loop; returns the grant latencies.
fn client(addr: SocketAddr, app: String, cycles: usize) -> Vec<Duration> {
    let s = TcpStream::connect(addr).unwrap();
    s.set_nodelay(true).unwrap();
    connect(&mut &s, SECRET, Role::Driver, &app).unwrap();
    let mut r = FrameReader::new(BufReader::new(s.try_clone().unwrap()));
    let mut w = BufWriter::new(s);
    let mut lat = Vec::with_capacity(cycles);
    for i in 0..cycles as u64 {
        let t0 = Instant::now();
        write_frame(&mut w, &ToNode::Probe { job: i, tasks: 1, est_ms: 1.0, cpus: 1 }).unwrap();
        w.flush().unwrap();
        let lease = match r.read::<FromNode>().unwrap() {
            FromNode::Grant { lease, job, .. } => {
                assert_eq!(job, i);
                lease
            }
            other => panic!("unexpected {other:?}"),
        };
        lat.push(t0.elapsed());
        write_frame(&mut w, &ToNode::Launched { lease }).unwrap();
        write_frame(&mut w, &ToNode::TaskEnd { lease }).unwrap();
        w.flush().unwrap();
    }
    lat
}

struct Figures {
    rate: f64,
    p50: Duration,
    p99: Duration,
}

fn measure(addr: SocketAddr, clients: usize, cycles: usize) -> Figures {
    client(addr, "warmup".into(), 1000);
    let t0 = Instant::now();
    let threads: Vec<_> =
        (0..clients).map(|c| thread::spawn(move || client(addr, format!("app-{c}"), cycles))).collect();
    let mut lat: Vec<Duration> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    let secs = t0.elapsed().as_secs_f64();
    lat.sort();
    let q = |p: f64| lat[((lat.len() as f64 * p) as usize).min(lat.len() - 1)];
    Figures { rate: (clients * cycles) as f64 / secs, p50: q(0.50), p99: q(0.99) }
}

fn main() {
    // `cargo bench` passes `--bench`; a filter argument is ignored (one benchmark).
    let cycles: usize = std::env::var("EAGLE_BENCH_CYCLES").ok().and_then(|v| v.parse().ok()).unwrap_or(20_000);
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    println!("eagle-node cycle benchmark: probe+grant+launch+finish over loopback, {cycles} cycles per client");
    println!(
        "{:<14} {:>7} {:>13} {:>9} {:>9} {:>13} {:>9} {:>9} {:>7}",
        "", "clients", "node cyc/s", "p50 µs", "p99 µs", "no-op cyc/s", "p50 µs", "p99 µs", "ratio"
    );
    // The paper's queue and the default one (eagle-adaptive's starvation floor and
    // served-job bookkeeping run on every grant and finish).
    for (policy, clients) in [Policy::Eagle, Policy::EagleAdaptive].into_iter().flat_map(|p| [(p, 1usize), (p, 4)]) {
        let node = Node::new(SECRET, clients as u32).policy(policy).lease_ms(60_000).start();
        let base = measure(echo_server(), clients, cycles);
        let n = measure(node, clients, cycles);
        println!(
            "{:<14} {:>7} {:>13.0} {:>9.1} {:>9.1} {:>13.0} {:>9.1} {:>9.1} {:>7.2}",
            policy.name(),
            clients,
            n.rate,
            us(n.p50),
            us(n.p99),
            base.rate,
            us(base.p50),
            us(base.p99),
            n.rate / base.rate
        );
        if clients == 1 {
            println!(
                "target (1 client): >= 20000 cycles/s: {}; p99 grant <= 100 µs: {}",
                if n.rate >= 20_000.0 { "met" } else { "NOT met" },
                if us(n.p99) <= 100.0 { "met" } else { "NOT met" }
            );
        }
    }
}
