//! `eagle-central`: the long-job scheduler of cluster mode. See
//! docs/guide/cluster-mode.md.

use clap::Parser;
use eagle_central::{parse_nodes, spawn, Options};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser, Debug)]
#[command(name = "eagle-central", about = "Eagle centralized long-job scheduler (cluster mode)")]
struct Args {
    /// Address to listen on for drivers and registering nodes.
    #[arg(long, required_unless_present = "status")]
    listen: Option<String>,
    /// Do not run a daemon: print the status of the eagle-central at this address (one
    /// line, key=value) and exit, 0 if it answered, 1 if not.
    #[arg(long, value_name = "ADDR", conflicts_with_all = ["listen", "nodes"])]
    status: Option<String>,
    /// File holding the shared secret (same file on every daemon and driver).
    #[arg(long)]
    secret_file: PathBuf,
    /// Node daemons to connect to: name=host:port,... (nodes started with --central register themselves).
    #[arg(long, default_value = "")]
    nodes: String,
    /// Share of connected hosts kept for short work only (Eagle's short partition); the
    /// floor under --short-partition adaptive and slots.
    #[arg(long, default_value_t = 0.1)]
    short_fraction: f64,
    /// fixed: the short partition is --short-fraction of the hosts (the paper's). adaptive:
    /// at least that, grown to cover the short tasks the drivers report running and waiting
    /// over a 10 s window, at most half the slots. slots: the same demand kept as slots on
    /// every host, one per host in turn (each node is told its count; its long work leaves
    /// those slots free). share: as adaptive, and never past the short class's share of the
    /// tasks running and waiting (the drivers' short demand against the long tasks placed
    /// and not over), so that while both queue short work takes only its part.
    #[arg(long, default_value = "fixed", value_parser = eagle_central::short_partition::ShortPartition::parse)]
    short_partition: eagle_central::short_partition::ShortPartition,
    /// Keep-alive period towards the nodes (ms); under a third of their --lease-ms.
    #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..))]
    ping_ms: u64,
    /// How long tasks are placed: lwl (least work left, Eagle) or lotes (LoTES's plan over
    /// the hosts' sizes, then least work left).
    #[arg(long, default_value = "lwl", value_parser = eagle_central::placement::Placement::parse)]
    placement: eagle_central::placement::Placement,
    /// The share of the general hosts (rounded up, at least one) that no one long job's
    /// tasks go to: a job is placed over the rest at most, so that a later small long job,
    /// and short probes, find whole hosts free of it instead of waiting for its tasks to
    /// end. 0: over every general host (the papers'); 0.1, the default, is what
    /// eagle-adaptive runs with (a node policy other than eagle-adaptive wants 0).
    #[arg(long, default_value = "0.1", value_parser = eagle_central::headroom::parse)]
    long_headroom: f64,
}

fn main() {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();
    let a = Args::parse();
    if !(0.0..1.0).contains(&a.short_fraction) {
        eprintln!("eagle-central: --short-fraction must be in [0, 1), got {}", a.short_fraction);
        std::process::exit(2);
    }
    let secret = match eagle_wire::read_secret(&a.secret_file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("eagle-central: {e}");
            std::process::exit(2);
        }
    };
    if let Some(addr) = a.status {
        match eagle_wire::client::central_status(&addr, &secret, Duration::from_secs(10)) {
            Ok(s) => println!("eagle-central {addr}: {}", eagle_wire::client::central_line(&s)),
            Err(e) => {
                eprintln!("{e}");
                std::process::exit(1);
            }
        }
        return;
    }
    let Some(listen) = a.listen else { unreachable!("clap requires --listen without --status") };
    let nodes = match parse_nodes(&a.nodes) {
        Ok(n) => n,
        Err(e) => {
            eprintln!("eagle-central: {e}");
            std::process::exit(2);
        }
    };
    let opts = Options {
        listen,
        secret,
        nodes,
        short_fraction: a.short_fraction,
        short_partition: a.short_partition,
        ping_ms: a.ping_ms,
        placement: a.placement,
        long_headroom: a.long_headroom,
    };
    match spawn(opts) {
        Ok(h) => h.join(),
        Err(e) => {
            eprintln!("eagle-central: {e}");
            std::process::exit(1);
        }
    }
}
