//! The daemon behind TCP (in-process, 127.0.0.1, ephemeral port): authentication,
//! version check, and a malformed frame closing only its own connection.

use eagle_node::Policy;
use eagle_testkit::Node;
use eagle_wire::handshake::connect_with_version;
use eagle_wire::{connect, write_frame, FrameReader, FromNode, HandshakeError, Role, ToNode, PROTOCOL_VERSION};
use std::io::{BufReader, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

const SECRET: &[u8] = b"node-test";

fn daemon(slots: u32) -> SocketAddr {
    Node::new(SECRET, slots).lease_ms(10_000).start()
}

fn client(addr: SocketAddr, app: &str) -> (TcpStream, FrameReader<BufReader<TcpStream>>) {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    connect(&mut &s, SECRET, Role::Driver, app).unwrap();
    let r = FrameReader::new(BufReader::new(s.try_clone().unwrap()));
    (s, r)
}

fn ask(s: &mut TcpStream, r: &mut FrameReader<BufReader<TcpStream>>, m: &ToNode) -> FromNode {
    write_frame(s, m).unwrap();
    s.flush().unwrap();
    r.read().unwrap()
}

#[test]
fn a_wrong_secret_or_version_is_refused_and_the_daemon_keeps_serving() {
    let addr = daemon(1);
    let s = TcpStream::connect(addr).unwrap();
    match connect(&mut &s, b"not-the-secret", Role::Driver, "intruder") {
        Err(HandshakeError::Refused(r)) => assert!(r.contains("authentication failed"), "{r}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let s = TcpStream::connect(addr).unwrap();
    match connect_with_version(&mut &s, SECRET, Role::Driver, "old", PROTOCOL_VERSION + 1) {
        Err(HandshakeError::Refused(r)) => assert!(r.contains("version"), "{r}"),
        other => panic!("expected a refusal, got {other:?}"),
    }
    let (mut s, mut r) = client(addr, "ok");
    assert_eq!(ask(&mut s, &mut r, &ToNode::Ping), FromNode::Pong);
}

#[test]
fn a_malformed_frame_closes_that_connection_only() {
    let addr = daemon(2);
    let (mut good, mut good_r) = client(addr, "good");
    let grant = ask(&mut good, &mut good_r, &ToNode::Probe { job: 1, tasks: 1, est_ms: 1.0, cpus: 1 });
    assert!(matches!(grant, FromNode::Grant { job: 1, .. }));
    for garbage in [&b"\x00\x00\x00\x05hello"[..], b"\x7f\xff\xff\xff", b"\x00\x00\x00\x0a{\"Boom\":1}"] {
        let (mut bad, mut bad_r) = client(addr, "bad");
        assert!(matches!(
            ask(&mut bad, &mut bad_r, &ToNode::Probe { job: 1, tasks: 3, est_ms: 1.0, cpus: 1 }),
            FromNode::Grant { .. }
        ));
        bad.write_all(garbage).unwrap();
        // The daemon closes the bad connection ...
        assert!(bad_r.read::<FromNode>().is_err(), "the bad connection must be closed after {garbage:?}");
    }
    // ... which freed the bad driver's lease, and the good one still works.
    let st = match ask(&mut good, &mut good_r, &ToNode::Status) {
        FromNode::Status(st) => st,
        other => panic!("{other:?}"),
    };
    assert_eq!(st.leased, 1, "only the good driver's lease is left: {st:?}");
    assert_eq!(st.apps.len(), 1);
}

fn hawk(lease_ms: u64, peers: Vec<String>) -> SocketAddr {
    Node::new(SECRET, 1).policy(Policy::Hawk).lease_ms(lease_ms).peers(peers).start()
}

fn client_as(addr: SocketAddr, role: Role, app: &str) -> (TcpStream, FrameReader<BufReader<TcpStream>>) {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    connect(&mut &s, SECRET, role, app).unwrap();
    let r = FrameReader::new(BufReader::new(s.try_clone().unwrap()));
    (s, r)
}

#[test]
fn hawk_an_idle_node_steals_a_probe_blocked_behind_long_work_on_its_peer() {
    let victim = hawk(60_000, Vec::new());
    let thief = hawk(200, vec![victim.to_string()]);
    // The batch application's long task occupies the victim's only slot.
    let (mut batch, mut batch_r) = client_as(victim, Role::Driver, "batch");
    // A Ping round trip (no longer needed: the handshake ends only once the node's
    // state knows the connection; see a_placement_sent_right_after_a_drivers_handshake_...).
    write_frame(&mut batch, &ToNode::Ping).unwrap();
    batch.flush().unwrap();
    assert!(matches!(batch_r.read::<FromNode>().unwrap(), FromNode::Pong));
    let (mut central, _central_r) = client_as(victim, Role::Central, "central");
    let place = ToNode::Place { app: "batch".into(), job: 1, est_ms: 1e6, bitvector: Default::default(), cpus: 1 };
    write_frame(&mut central, &place).unwrap();
    central.flush().unwrap();
    let FromNode::Grant { lease, long: true, .. } = batch_r.read().unwrap() else {
        panic!("the long task gets the slot")
    };
    write_frame(&mut batch, &ToNode::Launched { lease }).unwrap();
    batch.flush().unwrap();
    // The interactive application probes the victim (queued behind long work) and is
    // connected to the idle thief, which steals the probe and grants the slot.
    let (mut at_thief, mut at_thief_r) = client_as(thief, Role::Driver, "interactive");
    let (mut at_victim, _) = client_as(victim, Role::Driver, "interactive");
    write_frame(&mut at_victim, &ToNode::Probe { job: 7, tasks: 1, est_ms: 1.0, cpus: 1 }).unwrap();
    at_victim.flush().unwrap();
    loop {
        write_frame(&mut at_thief, &ToNode::Ping).unwrap();
        at_thief.flush().unwrap();
        match at_thief_r.read::<FromNode>().unwrap() {
            FromNode::Grant { job, long, .. } => {
                assert_eq!((job, long), (7, false));
                break;
            }
            FromNode::Pong => std::thread::sleep(Duration::from_millis(20)),
            other => panic!("{other:?}"),
        }
    }
    let st = match ask(&mut batch, &mut batch_r, &ToNode::Status) {
        FromNode::Status(st) => st,
        other => panic!("{other:?}"),
    };
    assert!(st.apps.iter().all(|a| a.probes == 0), "the probe left the victim: {st:?}");
}

/// A race of cluster mode: a driver's handshake with a node ends, it asks the central
/// for long work at once (no `Ping` first), and the central's `Place` reaches the node
/// over another connection. The node must already know the driver then: the client
/// may only finish its handshake once the node's state holds the connection, so the
/// placement is queued, never refused. Many fresh drivers, so a window between the
/// handshake's end and the registration would show.
#[test]
fn a_placement_sent_right_after_a_drivers_handshake_finds_the_driver() {
    let addr = daemon(1);
    let (mut central, mut central_r) = client_as(addr, Role::Central, "central");
    assert_eq!(ask(&mut central, &mut central_r, &ToNode::Ping), FromNode::Pong);
    let mut drivers = Vec::new();
    let mut refused = Vec::new();
    for i in 0..100 {
        let app = format!("driver-{i}");
        // No Ping: the handshake's end is all the driver waits for.
        drivers.push(client_as(addr, Role::Driver, &app));
        let place = ToNode::Place { app: app.clone(), job: 1, est_ms: 1.0, bitvector: Default::default(), cpus: 1 };
        write_frame(&mut central, &place).unwrap();
        write_frame(&mut central, &ToNode::Ping).unwrap();
        central.flush().unwrap();
        loop {
            match central_r.read::<FromNode>().unwrap() {
                FromNode::Pong => break,
                FromNode::PlaceRefused { app, .. } => refused.push(app),
                FromNode::LongDone { .. } => {}
                other => panic!("unexpected answer to the central: {other:?}"),
            }
        }
    }
    assert!(refused.is_empty(), "placements refused right after the handshake: {refused:?}");
    // The first driver's reservation got the only slot.
    let (_, first_r) = &mut drivers[0];
    assert!(matches!(first_r.read::<FromNode>().unwrap(), FromNode::Grant { job: 1, long: true, .. }));
}
