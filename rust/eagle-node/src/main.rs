//! `eagle-node`: the per-host daemon. See the crate documentation and
//! docs/guide/cluster-mode.md.

use clap::Parser;
use eagle_node::{spawn, Options, Policy, Settings};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(name = "eagle-node", about = "Eagle per-host queue daemon (cluster mode)")]
struct Args {
    /// Slots (concurrent tasks) of this host.
    #[arg(long, required_unless_present = "status", value_parser = clap::value_parser!(u32).range(1..))]
    slots: Option<u32>,
    /// Address to listen on for drivers and the central scheduler.
    #[arg(long, required_unless_present = "status")]
    listen: Option<String>,
    /// Do not run a daemon: print the status of the eagle-node at this address (one
    /// line, key=value) and exit, 0 if it answered, 1 if not.
    #[arg(long, value_name = "ADDR", conflicts_with_all = ["slots", "listen", "central", "peers"])]
    status: Option<String>,
    /// File holding the shared secret (same file on every daemon and driver).
    #[arg(long)]
    secret_file: PathBuf,
    /// The central scheduler to register this node with.
    #[arg(long)]
    central: Option<String>,
    /// A grant must be answered, and every peer heard from, within this many ms.
    #[arg(long, default_value_t = 3000, value_parser = clap::value_parser!(u64).range(10..))]
    lease_ms: u64,
    /// Queue policy: eagle-adaptive (the default: short probes start on a free slot beside
    /// long work, or wait beside long work due to free a slot within 1 s; SRPT over long work), eagle (the paper's SBP + SRPT + SSS, as published),
    /// hawk (FIFO + work stealing) or sparrow (FIFO probes).
    #[arg(long, default_value = "eagle-adaptive", value_parser = eagle_node::policy::parse)]
    policy: Policy,
    /// Name in the central's host list (default: the advertised address).
    #[arg(long)]
    name: Option<String>,
    /// Address the central scheduler connects to (default: the bound address).
    #[arg(long)]
    advertise: Option<String>,
    /// Hawk and eagle-adaptive: the other node daemons to steal from (host:port,...).
    #[arg(long, value_delimiter = ',')]
    peers: Vec<String>,
    /// eagle-adaptive: the steal's budget, the share of this host's slot-time stolen short
    /// work may hold over the reservation window (default 0.05; 0 turns the steal off).
    #[arg(long, value_name = "F", value_parser = fraction)]
    steal_fraction: Option<f64>,
}

/// A number in [0, 1], else an error naming the value.
fn fraction(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if (0.0..=1.0).contains(&f) => Ok(f),
        _ => Err(format!("expected a number in [0, 1], got '{s}'")),
    }
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let a = Args::parse();
    let secret = match eagle_wire::read_secret(&a.secret_file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("eagle-node: {e}");
            std::process::exit(2);
        }
    };
    if let Some(addr) = a.status {
        match eagle_wire::client::node_status(&addr, &secret, Duration::from_secs(10)) {
            Ok(s) => println!("eagle-node {addr}: {}", eagle_wire::client::node_line(&s)),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let (Some(slots), Some(listen)) = (a.slots, a.listen) else {
        unreachable!("clap requires --slots and --listen without --status")
    };
    let opts = Options {
        settings: Settings { policy: a.policy, slots, lease_ms: a.lease_ms },
        listen,
        secret,
        central: a.central,
        name: a.name,
        advertise: a.advertise,
        peers: a.peers,
        steal_fraction: a.steal_fraction,
    };
    match spawn(opts) {
        Ok(h) => h.join(),
        Err(e) => {
            eprintln!("eagle-node: {e}");
            std::process::exit(1);
        }
    }
}
