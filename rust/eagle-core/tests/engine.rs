//! Behaviour of the engine's rules, driven the way the simulator drives it:
//! a tiny deterministic event loop over `Output::Timer` and task ends.
use eagle_core::{Class, Config, Driver, DriverConfig, Engine, JobId, JobSpec, Msg, NodeId, Output, System, Time};
use std::collections::BTreeMap;

/// A minimal host: delivers timers in (time, seq) order and ends every task after `dur(job)`.
struct Harness {
    engine: Engine,
    now: Time,
    queue: BTreeMap<(u64, u64), Ev>,
    seq: u64,
    launches: Vec<(Time, NodeId, JobId, u32)>,
    enqueues: Vec<(Time, NodeId, JobId)>,
    durations: BTreeMap<JobId, f64>,
}

#[derive(Clone, Copy, Debug)]
enum Ev {
    Timer(Msg),
    End(NodeId, JobId),
}

fn key(t: Time) -> u64 {
    (t * 1e6).round() as u64
}

impl Harness {
    fn new(cfg: Config, nodes: u32) -> Harness {
        let mut engine = Engine::new(cfg, 42).unwrap();
        let mut out = vec![];
        for _ in 0..nodes {
            engine.add_node(0.0, 1, &mut out);
        }
        engine.start(0.0, &mut out);
        let mut h = Harness {
            engine,
            now: 0.0,
            queue: BTreeMap::new(),
            seq: 0,
            launches: vec![],
            enqueues: vec![],
            durations: BTreeMap::new(),
        };
        h.absorb(out);
        h
    }

    fn absorb(&mut self, out: Vec<Output>) {
        for o in out {
            self.seq += 1;
            match o {
                Output::Timer { at, msg } => {
                    if let Msg::Enqueue { node, job, .. } = msg {
                        self.enqueues.push((at, node, job));
                    }
                    self.queue.insert((key(at), self.seq), Ev::Timer(msg));
                }
                Output::Launch { node, job, task, start } => {
                    self.launches.push((start, node, job, task));
                    let d = self.durations.get(&job).copied().unwrap_or(1.0);
                    self.queue.insert((key(start + d), self.seq), Ev::End(node, job));
                }
                o => panic!("Eirene is off in these tests, yet the engine emitted {o:?}"),
            }
        }
    }

    fn submit_local(&mut self, prefs: &[Vec<NodeId>], est: f64, dur: f64) -> JobId {
        let mut out = vec![];
        let spec = JobSpec { tasks: prefs.len() as u32, estimate: est, class: None };
        let id = self.engine.submit_job_with_locality(self.now, spec, prefs, &mut out);
        self.durations.insert(id, dur);
        self.absorb(out);
        id
    }

    fn submit(&mut self, tasks: u32, est: f64, dur: f64) -> JobId {
        let mut out = vec![];
        // Ids are dense: the next job id is the number submitted so far.
        let id = self.engine.submit_job(self.now, JobSpec { tasks, estimate: est, class: None }, &mut out);
        self.durations.insert(id, dur);
        // Launches produced during submission need the duration: re-time them.
        self.absorb(out);
        id
    }

    /// Runs events up to time `until` (inclusive).
    fn run_until(&mut self, until: Time) {
        while let Some((&(k, s), &ev)) = self.queue.iter().next() {
            if k > key(until) {
                break;
            }
            self.queue.remove(&(k, s));
            self.now = k as f64 / 1e6;
            let mut out = vec![];
            match ev {
                Ev::Timer(Msg::Heartbeat) if self.queue.is_empty() => continue,
                Ev::Timer(m) => self.engine.deliver(self.now, m, &mut out),
                Ev::End(n, j) => self.engine.task_finished(self.now, n, j, &mut out),
            }
            self.absorb(out);
        }
        self.now = self.now.max(until);
    }

    fn launched(&self, job: JobId) -> Vec<(Time, NodeId, u32)> {
        self.launches.iter().filter(|l| l.2 == job).map(|l| (l.0, l.1, l.3)).collect()
    }
}

fn eagle(short_only_pct: f64) -> Config {
    let mut c = Config::for_system(System::Eagle);
    c.cutoff = 10.0;
    c.big_partition_pct = 100.0 - short_only_pct;
    c
}

#[test]
fn every_task_runs_exactly_once_and_sbp_keeps_the_probe() {
    let mut h = Harness::new(eagle(20.0), 10);
    let j = h.submit(30, 1.0, 1.0);
    h.run_until(1000.0);
    let l = h.launched(j);
    assert_eq!(l.len(), 30);
    let mut tasks: Vec<u32> = l.iter().map(|x| x.2).collect();
    tasks.sort();
    assert_eq!(tasks, (0..30).collect::<Vec<_>>());
    // 30 tasks, 60 probes over 10 single-slot nodes: sticky probes keep nodes busy, so
    // a node runs several tasks of the job back to back.
    let mut per_node = BTreeMap::new();
    for x in &l {
        *per_node.entry(x.1).or_insert(0) += 1;
    }
    assert!(per_node.values().any(|&c| c >= 3), "{per_node:?}");
    assert!(h.engine.counters().empty_fetches < 60);
}

#[test]
fn sss_keeps_short_probes_off_nodes_with_long_work() {
    let mut h = Harness::new(eagle(20.0), 10); // nodes 0,1 short-only; 2..9 general
    let long = h.submit(8, 100.0, 100.0); // one long task on each general node
    h.run_until(1.0);
    for n in 2..10 {
        assert!(h.engine.holds_long_work(NodeId(n)), "node {n} should hold long work");
    }
    let short = h.submit(3, 1.0, 1.0);
    h.run_until(50.0);
    let c = h.engine.counters().clone();
    assert!(c.probes_rejected_sss > 0, "random first round must hit long nodes: {c:?}");
    assert!(c.rescheduled_probes > 0, "rejected probes are retried: {c:?}");
    assert_eq!(c.probes_behind_long, 0);
    for (_, node, job) in &h.enqueues {
        if *job == short {
            assert!(node.0 < 2, "short probe sent to general node {node:?} that holds long work");
        }
    }
    let l = h.launched(short);
    assert_eq!(l.len(), 3);
    assert!(l.iter().all(|x| x.0 < 10.0), "short tasks ran on the short partition while long ones run: {l:?}");
    assert_eq!(h.launched(long).len(), 8);
}

#[test]
fn short_probes_use_general_nodes_free_of_long_work() {
    let mut h = Harness::new(eagle(20.0), 10);
    let short = h.submit(2, 1.0, 1.0);
    h.run_until(20.0);
    assert_eq!(h.engine.counters().probes_rejected_sss, 0);
    let targets: std::collections::BTreeSet<u32> = h.enqueues.iter().filter(|e| e.2 == short).map(|e| e.1 .0).collect();
    assert!(targets.iter().any(|&n| n >= 2), "first round samples every node: {targets:?}");
}

#[test]
fn lwl_levels_long_work_over_the_general_partition() {
    let mut c = Config::for_system(System::Hawk);
    c.cutoff = 10.0;
    c.big_partition_pct = 80.0;
    let mut h = Harness::new(c, 10);
    let j = h.submit(24, 50.0, 50.0);
    h.run_until(0.0);
    let mut per_node = BTreeMap::new();
    for (_, n, job) in &h.enqueues {
        assert_eq!(*job, j);
        assert!(n.0 >= 2, "long task placed in the short-only partition");
        *per_node.entry(n.0).or_insert(0) += 1;
    }
    assert_eq!(per_node.len(), 8);
    assert!(per_node.values().all(|&c| c == 3), "{per_node:?}");
}

#[test]
fn lwl_prefers_empty_nodes_lowest_id_first() {
    let mut c = Config::for_system(System::Eagle);
    c.cutoff = 10.0;
    c.big_partition_pct = 80.0;
    let mut h = Harness::new(c, 10);
    let a = h.submit(3, 50.0, 50.0);
    let b = h.submit(2, 50.0, 50.0);
    h.run_until(0.0);
    let on = |job: JobId| -> Vec<u32> { h.enqueues.iter().filter(|e| e.2 == job).map(|e| e.1 .0).collect() };
    assert_eq!(on(a), vec![2, 3, 4]);
    assert_eq!(on(b), vec![5, 6]);
}

#[test]
fn srpt_serves_the_job_with_least_remaining_work_first() {
    // One node; a long-running short job occupies it while two jobs queue behind.
    let mut c = eagle(0.0);
    c.min_probes = 1;
    c.probe_ratio = 1;
    let mut h = Harness::new(c, 1);
    let first = h.submit(1, 5.0, 5.0);
    h.run_until(0.01);
    let big = h.submit(5, 5.0, 5.0); // remaining 25
    let small = h.submit(1, 5.0, 5.0); // remaining 5: jumps ahead (slack 25 >= 5)
    h.run_until(1000.0);
    let t_small = h.launched(small)[0].0;
    let t_big_first = h.launched(big)[0].0;
    assert!(h.launched(first)[0].0 < t_small);
    assert!(t_small < t_big_first, "SRPT: small job first ({t_small} vs {t_big_first})");
    assert!(h.engine.counters().srpt_bypasses >= 1);
}

#[test]
fn starvation_cap_stops_endless_bypassing() {
    // A job with estimate 1 queues first, then a stream of tiny jobs (remaining 0.9)
    // that plain SRPT would always prefer. With a cap of 5× its own estimate, the
    // waiting job gets the slot after at most ~5 bypasses.
    let mut c = eagle(0.0);
    c.min_probes = 1;
    c.probe_ratio = 1;
    c.cutoff = 100.0;
    let mut h = Harness::new(c, 1);
    let blocker = h.submit(1, 1.0, 1.0);
    h.run_until(0.01);
    let victim = h.submit(2, 1.0, 1.0); // remaining 2
    let mut tiny = vec![];
    for _ in 0..30 {
        tiny.push(h.submit(1, 0.9, 0.9)); // remaining 0.9 < 2: would always win under plain SRPT
    }
    h.run_until(1000.0);
    let _ = blocker;
    let v = h.launched(victim)[0].0;
    let before = tiny.iter().filter(|t| h.launched(**t)[0].0 < v).count();
    assert!(before >= 1, "SRPT must let some tiny jobs pass");
    assert!(before <= 6, "the starvation cap bounds the bypasses, got {before}");
}

/// The race behind `probes_behind_long = 19` at 170,000 nodes (YH2-like, 1 M jobs):
/// SSS accepts a probe at *send* time against the exact central long map, as the
/// reference simulator does, but a probe of round 2 is on the wire for 2 network
/// delays while a long reservation needs 1. A long job submitted within one
/// network delay after the short job's rounds, and LWL-placed on a node a round-2
/// probe is heading to, gets there first. The node was free of long work when the
/// probe was accepted, so this is not a violation of the SSS rule: it is counted
/// apart (`probes_overtaken_by_long`) and `probes_behind_long` stays 0.
#[test]
fn sss_round_two_probe_overtaken_by_a_later_long_reservation() {
    let nd = 0.0005;
    // 10 nodes: node 0 short-only, 1..9 general. A long job fills 1..8; node 9 stays free.
    let mut h = Harness::new(eagle(10.0), 10);
    let a = h.submit(8, 100.0, 100.0);
    h.run_until(1.0);
    for n in 1..9 {
        assert!(h.engine.holds_long_work(NodeId(n)), "node {n}");
    }
    assert!(!h.engine.holds_long_work(NodeId(9)));
    // Short job at t = 1: round 1 hits long nodes, the rejected probes are re-sent
    // (round 2, arriving at t + 2 nd) to nodes the bitvector marks free: 0 and 9.
    let t = h.now;
    let s = h.submit(10, 1.0, 1.0);
    let to_free_general = |h: &Harness| {
        h.enqueues.iter().filter(|e| e.2 == s && e.1 == NodeId(9) && (e.0 - (t + 2.0 * nd)).abs() < 1e-9).count() as u64
    };
    let racing = to_free_general(&h);
    assert!(racing > 0, "precondition: some round-2 probe heads to node 9: {:?}", h.enqueues);
    assert!(!h.engine.holds_long_work(NodeId(9)), "node 9 is free of long work when the probes are sent");
    // 0.3 ms later a long job arrives; LWL puts its task on the only empty general
    // node, 9. Its reservation lands at t + 0.8 ms, before the round-2 probes.
    h.run_until(t + 0.0003);
    let b = h.submit(1, 100.0, 100.0);
    assert!(h.engine.holds_long_work(NodeId(9)));
    h.run_until(t + 3.0 * nd);
    let c = h.engine.counters().clone();
    assert_eq!(c.probes_behind_long, 0, "no probe was sent to a node holding long work: {c:?}");
    assert_eq!(c.probes_overtaken_by_long, racing, "{c:?}");
    h.run_until(1000.0);
    assert_eq!(h.launched(s).len(), 10);
    assert_eq!(h.launched(a).len(), 8);
    assert_eq!(h.launched(b).len(), 1);
}

/// The split counter still catches the rule being broken: with no short-only
/// partition, probes that every round rejected go to random nodes that hold long
/// work when they are sent, and those count in `probes_behind_long`.
#[test]
fn eagle_without_short_partition_counts_fallback_probes_behind_long() {
    let mut h = Harness::new(eagle(0.0), 4);
    h.submit(4, 100.0, 100.0); // every node holds long work
    h.run_until(1.0);
    h.submit(1, 1.0, 1.0);
    h.run_until(2.0);
    let c = h.engine.counters().clone();
    assert_eq!(c.fallback_probes, 20, "{c:?}");
    assert_eq!(c.probes_behind_long, 20, "{c:?}");
    assert_eq!(c.probes_overtaken_by_long, 0, "{c:?}");
}

#[test]
fn hawk_steals_probes_blocked_behind_long_tasks() {
    let mut c = Config::for_system(System::Hawk);
    c.cutoff = 10.0;
    c.big_partition_pct = 100.0;
    let mut h = Harness::new(c, 4);
    let long = h.submit(3, 1000.0, 1000.0); // nodes 0,1,2 run long tasks
    h.run_until(0.01);
    // Many short probes: some land behind long tasks; node 3 frees and steals them.
    let mut shorts = vec![];
    for _ in 0..6 {
        shorts.push(h.submit(2, 1.0, 1.0));
    }
    h.run_until(500.0);
    let c = h.engine.counters().clone();
    assert!(c.probes_behind_long > 0, "{c:?}");
    assert!(c.stolen_probes > 0, "{c:?}");
    for s in shorts {
        let l = h.launched(s);
        assert_eq!(l.len(), 2);
        assert!(l.iter().all(|x| x.0 < 500.0), "stealing rescued blocked short tasks");
    }
    assert_eq!(h.launched(long).len(), 3);
}

#[test]
fn sparrow_probes_may_wait_behind_long_work() {
    let mut c = Config::for_system(System::Sparrow);
    c.cutoff = 10.0;
    let mut h = Harness::new(c, 4);
    h.submit(4, 1000.0, 1000.0);
    h.run_until(0.01);
    h.submit(2, 1.0, 1.0);
    h.run_until(10.0);
    assert!(h.engine.counters().probes_behind_long > 0);
}

#[test]
fn same_seed_same_decisions() {
    let run = || {
        let mut h = Harness::new(eagle(20.0), 20);
        for i in 0..30 {
            h.submit(1 + i % 7, if i % 5 == 0 { 50.0 } else { 1.0 }, 1.0 + (i % 3) as f64);
            let t = h.now + 0.7;
            h.run_until(t);
        }
        h.run_until(10_000.0);
        h.launches.clone()
    };
    assert_eq!(run(), run());
}

// ------------------------------------------------------------------ driver mode

fn driver(short_partition: f64) -> Driver {
    Driver::new(
        DriverConfig { policy: System::Eagle, cutoff: Some(10.0), short_partition, ..DriverConfig::default() },
        7,
    )
    .unwrap()
}

#[test]
fn driver_never_launches_more_than_pending() {
    let mut d = driver(0.0);
    let n = d.add_node(0.0, 4);
    let j = d.submit(0.0, 3, Some(Class::Short), Some(1.0), 1);
    let plan = d.offer(0.0, n, 4, &[]);
    assert_eq!(plan, vec![j, j, j], "three tasks, four free slots");
    assert!(d.offer(0.0, n, 4, &[]).is_empty(), "nothing left to launch");
    d.set_pending(1.0, j, 1); // a task failed and is pending again
    assert_eq!(d.offer(1.0, n, 4, &[]), vec![j]);
}

#[test]
fn driver_short_jobs_avoid_executors_with_long_work() {
    let mut d = driver(0.5);
    let a = d.add_node(0.0, 2); // short-only
    let b = d.add_node(0.0, 2); // general
    let long = d.submit(0.0, 10, Some(Class::Long), Some(60_000.0), 1);
    assert!(d.offer(0.0, a, 2, &[]).is_empty(), "long work never runs on the short partition");
    assert_eq!(d.offer(0.0, b, 2, &[]), vec![long, long]);
    let short = d.submit(1.0, 4, Some(Class::Short), Some(0.5), 2);
    assert_eq!(d.offer(1.0, a, 2, &[]), vec![short, short]);
    d.task_finished(2.0, b, long, Some(60.0));
    assert_eq!(d.offer(2.0, b, 1, &[]), vec![long], "the general executor keeps serving long work");
    assert_eq!(d.counters().probes_behind_long, 0);
}

#[test]
fn driver_decline_gives_the_slot_to_the_next_job() {
    let mut d = driver(0.0);
    let n = d.add_node(0.0, 1);
    let x = d.submit(0.0, 1, Some(Class::Short), Some(1.0), 1);
    let y = d.submit(0.0, 5, Some(Class::Short), Some(1.0), 2);
    assert_eq!(d.offer(0.0, n, 1, &[]), vec![x], "least remaining work first");
    d.decline(0.0, n, x);
    assert_eq!(d.offer(0.0, n, 1, &[x]), vec![y]);
    d.task_finished(1.0, n, y, Some(1.0));
    assert_eq!(d.offer(1.0, n, 1, &[]), vec![x], "the declined task is still pending");
    assert_eq!(d.counters().declines, 1);
}

#[test]
fn driver_executor_loss_keeps_every_task() {
    let mut d = driver(0.0);
    let a = d.add_node(0.0, 2);
    let b = d.add_node(0.0, 2);
    let j = d.submit(0.0, 6, Some(Class::Long), Some(60_000.0), 1);
    let on_a = d.offer(0.0, a, 2, &[]);
    assert_eq!(on_a.len(), 2);
    d.remove_node(1.0, a);
    // Spark re-queues the two lost tasks.
    d.set_pending(1.0, j, 6);
    let mut launched = 0;
    for t in 0..10 {
        let p = d.offer(2.0 + t as f64, b, 2, &[]);
        launched += p.len();
        for _ in &p {
            d.task_finished(3.0 + t as f64, b, j, Some(1.0));
        }
        let left = 6 - launched as u32;
        d.set_pending(3.0 + t as f64, j, left);
    }
    assert_eq!(launched, 6, "all six tasks ran on the surviving executor");
    assert!(d.offer(100.0, a, 2, &[]).is_empty(), "a removed executor gets nothing");
}

#[test]
fn driver_running_mean_reclassifies_and_history_remembers() {
    let mut d = driver(0.0);
    let n = d.add_node(0.0, 1);
    let j = d.submit(0.0, 4, None, None, 99);
    assert_eq!(d.job_class(j), Some(Class::Short), "default class");
    assert_eq!(d.offer(0.0, n, 1, &[]), vec![j]);
    d.task_finished(30.0, n, j, Some(30.0));
    assert_eq!(d.job_class(j), Some(Class::Long), "30 s tasks exceed the 10 s cutoff");
    assert_eq!(d.offer(30.0, n, 1, &[]), vec![j], "reclassified work keeps running");
    d.remove_job(31.0, j);
    assert_eq!(d.history(), vec![(99, 30.0, 1)]);
    let k = d.submit(40.0, 2, None, None, 99);
    assert_eq!(d.job_class(k), Some(Class::Long), "history classifies the next run");
    assert_eq!(d.job_estimate(k).unwrap().1, eagle_core::EstimateSource::History);
}

#[test]
fn driver_rejects_bad_config_naming_the_field() {
    let e = Driver::new(DriverConfig { short_partition: 1.5, ..DriverConfig::default() }, 1).err().unwrap();
    assert!(e.to_string().contains("short_partition"), "{e}");
    let e = Driver::new(DriverConfig { cutoff: Some(-1.0), ..DriverConfig::default() }, 1).err().unwrap();
    assert!(e.to_string().contains("cutoff"), "{e}");
}

#[test]
fn driver_delay_scheduling_adapts_per_stage() {
    use eagle_core::locality::delay::{DelayParams, Level};
    let levels = [Level::ProcessLocal, Level::NodeLocal, Level::Any];
    let mut d = driver(0.0);
    d.enable_delay(DelayParams::uniform(3.0, 0.0, 10.0, 2.0)).unwrap();
    let n = d.add_node(0.0, 2);
    let a = d.submit(0.0, 10, Some(Class::Short), Some(1.0), 1);
    let b = d.submit(0.0, 10, Some(Class::Short), Some(1.0), 2);
    assert_eq!(d.allowed_locality(1.0, a, &levels, &[true, true, true]), Level::ProcessLocal);
    // Stage a learns that missing locality costs nothing; stage b that it costs 8 s.
    for t in 0..6 {
        d.locality_feedback(1.0 + t as f64, a, Level::ProcessLocal, Level::Any, 0.0);
        d.locality_feedback(1.0 + t as f64, b, Level::ProcessLocal, Level::Any, 8.0);
    }
    assert_eq!(d.allowed_locality(1.5, a, &levels, &[true, true, true]), Level::Any, "a stops waiting");
    assert_eq!(d.allowed_locality(1.5, b, &levels, &[true, true, true]), Level::ProcessLocal, "b keeps waiting");
    d.launched_at(2.0, a, Level::Any, &levels);
    assert!(d.delay_history(b).iter().any(|s| s.level == Level::ProcessLocal && s.interval > 7.0));
    let _ = n;
    let mut off = driver(0.0);
    let j = off.submit(0.0, 1, None, None, 3);
    assert_eq!(off.allowed_locality(0.0, j, &levels, &[true, true, true]), Level::Any, "disabled: Spark decides");
}

#[test]
fn locality_mode_waits_for_local_slots_then_relaxes() {
    use eagle_core::locality::delay::DelayParams;
    let run = |wait: f64| {
        let mut c = eagle(0.0);
        c.min_probes = 40; // every node, node 0 included, holds a probe of the job
        c.locality = Some(DelayParams::uniform(wait, wait, wait, 2.0));
        let mut h = Harness::new(c, 4);
        // Every block lives on node 0 only; a blocker keeps node 0 busy for 2 s.
        let blocker = h.submit_local(&[vec![NodeId(0)]], 2.0, 2.0);
        h.run_until(0.001);
        let _ = blocker;
        let job = h.submit_local(&vec![vec![NodeId(0)]; 3], 1.0, 1.0);
        h.run_until(100.0);
        let l = h.launched(job);
        assert_eq!(l.len(), 3);
        let mut tasks: Vec<u32> = l.iter().map(|x| x.2).collect();
        tasks.sort();
        assert_eq!(tasks, vec![0, 1, 2], "each task exactly once");
        l
    };
    // No wait: tasks go remote at once on the free nodes.
    let l0 = run(0.0);
    assert!(l0.iter().filter(|x| x.1 != NodeId(0)).count() >= 2, "{l0:?}");
    assert!(l0.iter().any(|x| x.1 != NodeId(0) && x.0 < 0.01), "a remote launch at once: {l0:?}");
    // A 10 s wait: node 0 frees after 2 s and runs every task locally, one after another.
    let l10 = run(10.0);
    assert!(l10.iter().all(|x| x.1 == NodeId(0)), "{l10:?}");
    // A 0.5 s wait: remote launches happen, but only after the wait.
    let l05 = run(0.5);
    let remote: Vec<_> = l05.iter().filter(|x| x.1 != NodeId(0)).collect();
    assert!(!remote.is_empty(), "{l05:?}");
    assert!(remote.iter().all(|x| x.0 >= 0.5), "no remote launch before the wait: {l05:?}");
}
