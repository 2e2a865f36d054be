//! Native decision latency: how long `Driver::offer` takes per offer, in a realistic
//! steady state (the figure `scripts/bench-plugin` prints).
//!
//! A cluster of `NODES` executors with `SLOTS` slots each runs a mix of short and long task
//! sets; every step ends one running task (as Spark's status update would), tells the
//! engine Spark's pending count for that task set, and times one `offer(node, 1)`; task sets
//! are replaced as they drain. Usage: `offer_latency [nodes] [slots] [offers]`.
use eagle_core::{Class, Driver, DriverConfig, JobId, NodeId};
use std::time::Instant;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

struct Job {
    id: JobId,
    pending: u32,
}

fn main() {
    let args: Vec<u64> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let nodes = *args.first().unwrap_or(&100) as u32;
    let slots = *args.get(1).unwrap_or(&8) as u32;
    let offers = *args.get(2).unwrap_or(&200_000) as usize;

    let mut d = Driver::new(DriverConfig::default(), 7).expect("driver");
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut now = 0.0;
    let node_ids: Vec<NodeId> = (0..nodes).map(|_| d.add_node(now, slots)).collect();
    let mut jobs: Vec<Job> = Vec::new();
    let mut sig = 0u64;
    let mut submit = |d: &mut Driver, rng: &mut Rng, now: f64| {
        sig += 1;
        let long = rng.below(5) == 0;
        let tasks = if long { 200 + rng.below(800) as u32 } else { 4 + rng.below(60) as u32 };
        let (class, est) = if long { (Class::Long, 60.0) } else { (Class::Short, 0.5) };
        let id = d.submit(now, tasks, Some(class), Some(est), sig);
        d.set_pending(now, id, tasks);
        Job { id, pending: tasks }
    };
    for _ in 0..50 {
        jobs.push(submit(&mut d, &mut rng, now));
    }
    // running[(node, job)]: what is running where
    let mut running: Vec<(NodeId, JobId)> = Vec::new();
    // fill the cluster
    for &n in &node_ids {
        for j in d.offer(now, n, slots, &[]) {
            running.push((n, j));
            if let Some(job) = jobs.iter_mut().find(|x| x.id == j) {
                job.pending = job.pending.saturating_sub(1);
            }
        }
    }
    let mut lat = Vec::with_capacity(offers);
    let mut launched = 0u64;
    for _ in 0..offers {
        now += 0.001;
        if running.is_empty() {
            break;
        }
        let (n, j) = running.swap_remove(rng.below(running.len()));
        d.task_finished(now, n, j, Some(0.5));
        // task sets that have nothing left leave, new ones arrive
        if let Some(pos) = jobs.iter().position(|x| x.id == j && x.pending == 0) {
            if !running.iter().any(|r| r.1 == j) {
                let done = jobs.swap_remove(pos);
                d.remove_job(now, done.id);
                jobs.push(submit(&mut d, &mut rng, now));
            }
        }
        let t = Instant::now();
        let plan = d.offer(now, n, 1, &[]);
        lat.push(t.elapsed().as_nanos() as u64);
        for pj in plan {
            launched += 1;
            running.push((n, pj));
            if let Some(job) = jobs.iter_mut().find(|x| x.id == pj) {
                job.pending = job.pending.saturating_sub(1);
                d.set_pending(now, pj, job.pending);
            }
        }
    }
    lat.sort_unstable();
    let pct = |p: f64| lat[((lat.len() as f64 - 1.0) * p) as usize];
    println!(
        "offer latency ({} nodes x {} slots, {} live task sets, {} offers, {} launches): median {} ns, p99 {} ns, max {} ns",
        nodes,
        slots,
        jobs.len(),
        lat.len(),
        launched,
        pct(0.5),
        pct(0.99),
        lat[lat.len() - 1]
    );
}
