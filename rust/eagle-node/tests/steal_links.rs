//! Hawk's work stealing over links kept between steals (Hawk §3.3 in the daemons).
//!
//! An idle node steals at every tick (a quarter lease). Opening a new connection, with a
//! handshake, for each attempt costs the testbed's Hawk daemons about ten times Eagle's CPU
//! in `scripts/bench cluster`, on a 2-core machine where every CPU-second is taken from the
//! applications. A stand-in victim counts the
//! connections and steals it serves.

use eagle_node::Policy;
use eagle_testkit::Node;
use eagle_wire::handshake::accept;
use eagle_wire::{connect, write_frame, FrameReader, FromNode, Role, ToNode};
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

const SECRET: &[u8] = b"steal-test";

#[derive(Default)]
struct Served {
    connections: AtomicUsize,
    steals: AtomicUsize,
}

/// A peer that answers every `Steal` with nothing; with `close_after` it drops each
/// connection once that connection has served that many steals.
fn victim(close_after: Option<usize>) -> (SocketAddr, Arc<Served>) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let served = Arc::new(Served::default());
    let s = served.clone();
    thread::spawn(move || {
        for stream in l.incoming() {
            let Ok(mut stream) = stream else { continue };
            let s = s.clone();
            thread::spawn(move || {
                if accept(&mut stream, SECRET, Role::Node, &[Role::Node]).is_err() {
                    return;
                }
                s.connections.fetch_add(1, Ordering::SeqCst);
                let mut r = FrameReader::new(BufReader::new(stream.try_clone().unwrap()));
                let mut here = 0;
                while let Ok(msg) = r.read::<ToNode>() {
                    if let ToNode::Steal { .. } = msg {
                        s.steals.fetch_add(1, Ordering::SeqCst);
                        here += 1;
                        if write_frame(&mut stream, &FromNode::Stolen { probes: Vec::new() }).is_err() {
                            return;
                        }
                        let _ = stream.flush();
                        if close_after.is_some_and(|n| here >= n) {
                            let _ = stream.shutdown(std::net::Shutdown::Both);
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, served)
}

/// An idle Hawk node (one free slot, nothing queued) with `victim` as its only peer and
/// one application connected, kept alive for `secs` seconds of stealing.
fn steal_for(victim: SocketAddr, secs: u64) {
    let thief = Node::new(SECRET, 1).policy(Policy::Hawk).lease_ms(200).peers(vec![victim.to_string()]).start();
    let s = TcpStream::connect(thief).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    connect(&mut &s, SECRET, Role::Driver, "interactive").unwrap();
    let mut r = FrameReader::new(BufReader::new(s.try_clone().unwrap()));
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        write_frame(&mut &s, &ToNode::Ping).unwrap();
        (&s).flush().unwrap();
        assert!(matches!(r.read::<FromNode>().unwrap(), FromNode::Pong));
        thread::sleep(Duration::from_millis(40));
    }
}

#[test]
fn an_idle_hawk_node_steals_over_one_link_to_its_peer() {
    let (addr, served) = victim(None);
    steal_for(addr, 3);
    let (conns, steals) = (served.connections.load(Ordering::SeqCst), served.steals.load(Ordering::SeqCst));
    // Up to 10 attempts at every 50 ms tick: hundreds in 3 s, dozens on a loaded machine.
    assert!(steals >= 10, "the idle node kept stealing: {steals} steals");
    // One link; a second only if an answer was ever late past the 2 s read timeout.
    assert!(conns <= 2, "{steals} steals over {conns} connections");
}

#[test]
fn a_link_the_peer_closed_is_dialled_again() {
    let (addr, served) = victim(Some(2));
    steal_for(addr, 3);
    let (conns, steals) = (served.connections.load(Ordering::SeqCst), served.steals.load(Ordering::SeqCst));
    assert!(steals >= 6, "stealing went on after the peer closed its links: {steals} steals");
    assert!(conns >= 3 && conns <= steals.div_ceil(2) + 1, "{steals} steals over {conns} connections (2 per link)");
}
