//! Property test of the Spark façade: random event sequences into [`Driver`], invariants
//! checked after every event against a host-side model of what was launched.
//!
//! Events: add/remove node, submit, set_pending, offer (with random exclusions), decline
//! (of a launch of the last offer, as the plugin does), task_finished (success, failure,
//! and bogus reports), remove_job, set_input_nodes (data locality, also for unknown jobs
//! and nodes), and clock jumps. Invariants:
//! - no panic;
//! - an offer never plans more launches of a job than the host says are pending, never an
//!   excluded, unknown or removed job, and never more than the node's free slots;
//! - slot accounting: per node and in total, busy = launches − ends − declines − lost
//!   (`Engine::busy_slots`, `NodeView::free_slots`), free slots within [0, slots];
//! - per job, the engine's pending and running counts equal the model's;
//! - a job id is never handed out again while a task of the job it named still runs.
//!
//! Only the public `Driver`/`Engine` API is used. Budget: `EAGLE_FUZZ_SEQUENCES` (default
//! 20,000, about a second in CI; 1,000,000 with `--features fuzz-long`):
//! `cargo test -p eagle-core --release --features fuzz-long --test fuzz -- --nocapture`.
use eagle_core::adaptive::reservation::AdaptiveParams;
use eagle_core::{Class, Driver, DriverConfig, JobId, NodeId, System};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Launches, declines, task ends and lost tasks over the run (to show the events happen).
static LAUNCHES: AtomicU64 = AtomicU64::new(0);
static DECLINES: AtomicU64 = AtomicU64::new(0);
static ENDS: AtomicU64 = AtomicU64::new(0);
static LOST: AtomicU64 = AtomicU64::new(0);
static INPUTS: AtomicU64 = AtomicU64::new(0);

/// SplitMix64: small, seedable, good enough for event generation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct NodeM {
    live: bool,
    slots: u32,
    /// Job of each running task (launched and not ended, declined or lost).
    running: Vec<u32>,
}

struct JobM {
    live: bool,
    /// Host's pending count: set_pending, minus launches, plus declines.
    pending: u32,
}

struct Model {
    nodes: Vec<NodeM>,
    jobs: HashMap<u32, JobM>,
    /// Launches of the last offer, as (node, job), for declines.
    last_plan: Vec<(u32, u32)>,
}

impl Model {
    fn running_of(&self, job: u32) -> u32 {
        self.nodes.iter().filter(|n| n.live).map(|n| n.running.iter().filter(|&&j| j == job).count() as u32).sum()
    }
}

fn check(d: &Driver, m: &Model, ctx: &dyn Fn() -> String) {
    let e = d.engine();
    let busy: u64 = m.nodes.iter().filter(|n| n.live).map(|n| n.running.len() as u64).sum();
    let total: u64 = m.nodes.iter().filter(|n| n.live).map(|n| n.slots as u64).sum();
    assert_eq!(e.busy_slots(), busy, "busy slots {}", ctx());
    assert_eq!(e.total_slots(), total, "total slots {}", ctx());
    for (i, n) in m.nodes.iter().enumerate() {
        let v = e.node(NodeId(i as u32)).unwrap_or_else(|| panic!("node {i} unknown {}", ctx()));
        assert_eq!(v.live, n.live, "node {i} liveness {}", ctx());
        assert!(v.free_slots <= v.slots, "node {i}: free {} > slots {} {}", v.free_slots, v.slots, ctx());
        if n.live {
            assert_eq!(v.free_slots as usize, n.slots as usize - n.running.len(), "node {i} free slots {}", ctx());
        } else {
            assert_eq!(v.free_slots, 0, "dead node {i} {}", ctx());
        }
    }
    for (&id, j) in &m.jobs {
        let v = e.job(JobId(id));
        assert_eq!(v.is_some(), j.live, "job {id} liveness {}", ctx());
        if let Some(v) = v {
            assert_eq!(v.unlaunched, j.pending, "job {id} pending {}", ctx());
            assert_eq!(v.running, m.running_of(id), "job {id} running {}", ctx());
        }
    }
}

/// Runs one random sequence; returns the number of events.
fn sequence(seed: u64) -> u64 {
    let mut r = Rng(seed);
    // Both policies, with and without an explicit cutoff (adaptive then learns one).
    let policy = if r.chance(50) { System::Eagle } else { System::EagleAdaptive };
    let cfg = DriverConfig {
        policy,
        cutoff: if policy == System::EagleAdaptive && r.chance(50) { None } else { Some(0.5 + r.unit() * 20.0) },
        adaptive: AdaptiveParams {
            window: 1.0 + r.unit() * 60.0,
            headroom: 0.5 + r.unit() * 2.0,
            max_fraction: r.unit(),
            base_fraction: r.unit(),
            long_share: r.unit(),
            idle: r.unit() * 30.0,
            deadline_factor: 0.1 + r.unit() * 10.0,
            order: if r.chance(50) {
                eagle_core::adaptive::fsp::Order::Fsp
            } else {
                eagle_core::adaptive::fsp::Order::Srpt
            },
            ..AdaptiveParams::default()
        },
        short_partition: if r.chance(20) { 0.0 } else { r.unit() * 0.9 },
        min_probes: 1 + r.below(30) as u32,
        probe_ratio: 1 + r.below(4) as u32,
        starvation_factor: r.unit() * 10.0,
        default_class: if r.chance(50) { Class::Short } else { Class::Long },
        default_estimate: r.unit() * 30.0,
    };
    let mut d = Driver::new(cfg, r.next()).expect("valid config");
    let mut m = Model { nodes: Vec::new(), jobs: HashMap::new(), last_plan: Vec::new() };
    let mut now = 0.0f64;
    let steps = 1 + r.below(200);
    for step in 0..steps {
        let kind = r.below(100);
        let ctx = || format!("(seed {seed}, step {step}, event {kind})");
        match kind {
            // add a node
            0..=7 => {
                let slots = 1 + r.below(8) as u32;
                let id = d.add_node(now, slots);
                assert_eq!(id.0 as usize, m.nodes.len(), "node ids are dense {}", ctx());
                m.nodes.push(NodeM { live: true, slots, running: Vec::new() });
            }
            // remove a node (maybe unknown or already dead): its running tasks are lost
            8..=10 => {
                let n = r.below(m.nodes.len() as u64 + 1) as u32;
                d.remove_node(now, NodeId(n));
                if let Some(node) = m.nodes.get_mut(n as usize) {
                    LOST.fetch_add(node.running.len() as u64, Relaxed);
                    node.live = false;
                    node.running.clear();
                }
            }
            // submit a task set
            11..=22 => {
                let tasks = if r.chance(10) { 0 } else { 1 + r.below(60) as u32 };
                let class = match r.below(3) {
                    0 => None,
                    1 => Some(Class::Short),
                    _ => Some(Class::Long),
                };
                let est = if r.chance(50) { None } else { Some(r.unit() * 40.0) };
                let id = d.submit(now, tasks, class, est, r.below(8));
                assert!(m.running_of(id.0) == 0, "job id {} reused while its tasks run {}", id.0, ctx());
                if let Some(old) = m.jobs.get(&id.0) {
                    assert!(!old.live, "job id {} reused while live {}", id.0, ctx());
                }
                m.jobs.insert(id.0, JobM { live: true, pending: tasks });
            }
            // Spark's pending count
            23..=32 => {
                let live: Vec<u32> = m.jobs.iter().filter(|(_, j)| j.live).map(|(&k, _)| k).collect();
                if !live.is_empty() {
                    let job = live[r.below(live.len() as u64) as usize];
                    let p = r.below(61) as u32;
                    d.set_pending(now, JobId(job), p);
                    m.jobs.get_mut(&job).unwrap().pending = p;
                }
            }
            // an offer round on one node
            33..=57 => {
                if m.nodes.is_empty() {
                    continue;
                }
                let n = r.below(m.nodes.len() as u64) as u32;
                let free = r.below(m.nodes[n as usize].slots as u64 + 3) as u32;
                let mut exclude: Vec<JobId> = Vec::new();
                if r.chance(25) {
                    for (&k, _) in m.jobs.iter() {
                        if r.chance(30) {
                            exclude.push(JobId(k));
                        }
                    }
                }
                let plan = d.offer(now, NodeId(n), free, &exclude);
                let node_free = {
                    let node = &m.nodes[n as usize];
                    if node.live {
                        node.slots as usize - node.running.len()
                    } else {
                        0
                    }
                };
                assert!(
                    plan.len() <= (free as usize).min(node_free),
                    "plan {} > free {free}/{node_free} {}",
                    plan.len(),
                    ctx()
                );
                let mut per_job: HashMap<u32, u32> = HashMap::new();
                for j in &plan {
                    *per_job.entry(j.0).or_default() += 1;
                }
                for (&job, &count) in &per_job {
                    assert!(!exclude.contains(&JobId(job)), "excluded job {job} planned {}", ctx());
                    let jm = m.jobs.get_mut(&job).unwrap_or_else(|| panic!("unknown job {job} planned {}", ctx()));
                    assert!(jm.live, "removed job {job} planned {}", ctx());
                    assert!(count <= jm.pending, "job {job} planned {count} > pending {} {}", jm.pending, ctx());
                    jm.pending -= count;
                }
                m.last_plan.clear();
                LAUNCHES.fetch_add(plan.len() as u64, Relaxed);
                for j in plan {
                    m.nodes[n as usize].running.push(j.0);
                    m.last_plan.push((n, j.0));
                }
            }
            // decline a launch of the last plan
            58..=64 => {
                if m.last_plan.is_empty() {
                    continue;
                }
                let (n, job) = m.last_plan.swap_remove(r.below(m.last_plan.len() as u64) as usize);
                let node = &mut m.nodes[n as usize];
                let Some(pos) = node.running.iter().position(|&j| j == job) else { continue };
                if !node.live {
                    continue;
                }
                d.decline(now, NodeId(n), JobId(job));
                DECLINES.fetch_add(1, Relaxed);
                node.running.swap_remove(pos);
                if let Some(jm) = m.jobs.get_mut(&job) {
                    if jm.live {
                        jm.pending += 1;
                    }
                }
            }
            // a running task ends
            65..=84 => {
                let live: Vec<usize> = (0..m.nodes.len()).filter(|&i| !m.nodes[i].running.is_empty()).collect();
                if live.is_empty() {
                    continue;
                }
                let n = live[r.below(live.len() as u64) as usize];
                let k = r.below(m.nodes[n].running.len() as u64) as usize;
                let job = m.nodes[n].running.swap_remove(k);
                m.last_plan.retain(|&(pn, pj)| !(pn as usize == n && pj == job));
                let dur = if r.chance(80) { Some(r.unit() * 30.0) } else { None };
                d.task_finished(now, NodeId(n as u32), JobId(job), dur);
                ENDS.fetch_add(1, Relaxed);
            }
            // a bogus end (unknown node/job, or a job not running there): ignored
            85..=87 => {
                let n = r.below(m.nodes.len() as u64 + 2) as u32;
                let job = r.below(m.jobs.len() as u64 + 3) as u32;
                let running_there = m.nodes.get(n as usize).is_some_and(|x| x.live && x.running.contains(&job));
                if !running_there {
                    d.task_finished(now, NodeId(n), JobId(job), Some(1.0));
                }
            }
            // a task set ends
            88..=93 => {
                let live: Vec<u32> = m.jobs.iter().filter(|(_, j)| j.live).map(|(&k, _)| k).collect();
                if !live.is_empty() {
                    let job = live[r.below(live.len() as u64) as usize];
                    d.remove_job(now, JobId(job));
                    let jm = m.jobs.get_mut(&job).unwrap();
                    jm.live = false;
                    jm.pending = 0;
                    m.last_plan.retain(|&(_, pj)| pj != job);
                }
            }
            // input nodes of a task set (maybe unknown, removed, or naming dead or unknown
            // nodes), as the plugin reports them at creation
            94..=95 => {
                let job = r.below(m.jobs.len() as u64 + 2) as u32;
                let k = r.below(12);
                let nodes: Vec<NodeId> = (0..k).map(|_| NodeId(r.below(m.nodes.len() as u64 + 2) as u32)).collect();
                d.set_input_nodes(JobId(job), &nodes);
                INPUTS.fetch_add(1, Relaxed);
            }
            // clock: small steps, equal times, big jumps
            _ => {
                now += match r.below(4) {
                    0 => 0.0,
                    1 => r.unit() * 0.01,
                    2 => r.unit() * 10.0,
                    _ => r.unit() * 1e6,
                };
            }
        }
        check(&d, &m, &ctx);
    }
    steps
}

#[test]
fn random_event_sequences_keep_the_invariants() {
    let default = if cfg!(feature = "fuzz-long") { 1_000_000 } else { 20_000 };
    let n: u64 = std::env::var("EAGLE_FUZZ_SEQUENCES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let base: u64 = std::env::var("EAGLE_FUZZ_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0);
    let t0 = std::time::Instant::now();
    let mut events = 0u64;
    for i in 0..n {
        events += sequence(base.wrapping_add(i).wrapping_mul(0x2545_F491_4F6C_DD1D));
    }
    let (l, dc, en, lo) = (LAUNCHES.load(Relaxed), DECLINES.load(Relaxed), ENDS.load(Relaxed), LOST.load(Relaxed));
    let inputs = INPUTS.load(Relaxed);
    eprintln!(
        "fuzz: {n} sequences, {events} events in {:.1} s ({l} launches, {dc} declines, {en} task ends, {lo} lost, {inputs} input reports)",
        t0.elapsed().as_secs_f64()
    );
    if n >= 100 {
        assert!(l > 0 && dc > 0 && en > 0 && lo > 0 && inputs > 0, "the sequences exercise every path");
    }
}

#[test]
fn probe_settings_have_upper_bounds() {
    let ok = DriverConfig::default();
    for (min_probes, probe_ratio, field) in
        [(10_001, 2, "min_probes"), (u32::MAX, 2, "min_probes"), (20, 101, "probe_ratio")]
    {
        let e = Driver::new(DriverConfig { min_probes, probe_ratio, ..ok.clone() }, 1).err().expect("rejected");
        assert!(e.to_string().contains(field), "{e}");
    }
    assert!(Driver::new(DriverConfig { min_probes: 10_000, probe_ratio: 100, ..ok }, 1).is_ok());
}
