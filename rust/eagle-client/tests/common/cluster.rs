//! Cluster mode's driver side under test: in-process `eagle-node` and `eagle-central`
//! daemons on 127.0.0.1, and a fake Spark per application that runs offer rounds as the
//! plugin does (`setPending`, `offer`, launches, `roundEnd`, `taskEnded`). Shared by
//! `cluster_side.rs` and the driver-side soak (`eagle-jni/tests/soak_driver_cluster.rs`,
//! where the counting allocator is).

use eagle_client::grants::{ClusterParams, ClusterSide, Shape};
use eagle_core::{JobId, NodeId};
use eagle_testkit::{Central, Node};
use std::time::{Duration, Instant};

pub const SECRET: &[u8] = b"jni-cluster-test";

pub fn node(slots: u32) -> (String, u16) {
    node_with(eagle_node::Policy::Eagle, slots)
}

pub fn node_with(policy: eagle_node::Policy, slots: u32) -> (String, u16) {
    node_on(policy, slots, "127.0.0.1:0")
}

pub fn node_on(policy: eagle_node::Policy, slots: u32, listen: &str) -> (String, u16) {
    let addr = Node::new(SECRET, slots).policy(policy).lease_ms(3_000).listen(listen).start();
    (addr.to_string(), addr.port())
}

pub fn central(nodes: &[&str]) -> String {
    central_keyed(nodes, SECRET)
}

pub fn central_keyed(nodes: &[&str], secret: &[u8]) -> String {
    central_with(nodes, secret, 0.0)
}

/// A central keeping `short_fraction` of the hosts short-only (the paper's fixed partition).
pub fn central_with(nodes: &[&str], secret: &[u8], short_fraction: f64) -> String {
    let named: Vec<(&str, &str)> = nodes.iter().map(|a| (*a, *a)).collect();
    central_named(&named, secret, short_fraction)
}

/// [`central_with`], the nodes named as `(name, address)`: a driver knows a host by its
/// executors' host name, so the central's `Hosts` and `ShortOnly` reach it only by that name.
pub fn central_named(nodes: &[(&str, &str)], secret: &[u8], short_fraction: f64) -> String {
    let nodes = nodes.iter().map(|(n, a)| (n.to_string(), a.to_string())).collect();
    Central::new(secret, nodes).short_fraction(short_fraction).start().to_string()
}

pub fn side(app: &str, central: &str, node_port: u16) -> ClusterSide {
    ClusterSide::start(ClusterParams {
        central: central.into(),
        node_port,
        secret: SECRET.to_vec(),
        app: app.into(),
        min_probes: 2,
        probe_ratio: 2,
        ping_ms: 200,
        seed: 7,
        retry_rejected: true,
        warm_grants: true,
        affinity: false,
    })
    .unwrap()
}

pub fn leased(addr: &str) -> u32 {
    eagle_testkit::leased(addr, SECRET)
}

/// Polls `f` until it holds ([`eagle_testkit::eventually`]).
pub fn eventually(what: &str, mut f: impl FnMut() -> bool) {
    eagle_testkit::eventually(what, || f().then_some(()))
}

/// One application's Spark, as the plugin drives it: one executor (`EXEC`) on the host with
/// `slots` cores, task sets with waiting tasks (each task `width` cores), tasks that run
/// until `finish`.
pub struct FakeSpark {
    pub c: ClusterSide,
    pub slots: u32,
    /// (job, waiting tasks, cores per task)
    pub waiting: Vec<(JobId, u32, u32)>,
    /// (task id, job, cores)
    pub running: Vec<(i64, JobId, u32)>,
    pub next_tid: i64,
    pub launched: u32,
    pub grants_seen: u64,
    /// Task sets the warm-executors rule says no to (`worth` false), short grants only.
    pub cold: Vec<JobId>,
    /// Barrier task sets: Spark launches all their waiting tasks in one round or none.
    pub gangs: Vec<JobId>,
    /// A gang's launches, per round that launched any.
    pub gang_launches: Vec<u32>,
    /// Failed tasks Spark counts as waiting but cannot launch yet, by job: the backend's
    /// status update took them off the running set, and the result getter's thread has not
    /// put them back in the pending lists (`requeue`).
    pub limbo: Vec<JobId>,
}

pub const EXEC: NodeId = NodeId(0);

impl FakeSpark {
    pub fn new(c: ClusterSide, slots: u32) -> FakeSpark {
        FakeSpark {
            c,
            slots,
            waiting: Vec::new(),
            running: Vec::new(),
            next_tid: 0,
            launched: 0,
            grants_seen: 0,
            cold: Vec::new(),
            gangs: Vec::new(),
            gang_launches: Vec::new(),
            limbo: Vec::new(),
        }
    }

    /// A barrier task set (the plugin submits it to the cluster side as a gang).
    pub fn submit_gang(&mut self, job: u32, tasks: u32, est_s: f64) {
        self.submit(job, tasks, est_s, false);
        self.c.set_gang(JobId(job));
        self.gangs.push(JobId(job));
    }

    pub fn submit(&mut self, job: u32, tasks: u32, est_s: f64, long: bool) {
        self.submit_wide(job, tasks, est_s, long, 1);
    }

    /// Tasks of `width` cores (a wider resource profile): the engine counts `width` slots
    /// per task, and each task holds `width` slots of the node.
    pub fn submit_wide(&mut self, job: u32, tasks: u32, est_s: f64, long: bool, width: u32) {
        self.c.submit(JobId(job), tasks * width, est_s, long, Shape { width, cpus: width });
        self.waiting.push((JobId(job), tasks, width));
    }

    pub fn cores_used(&self) -> u32 {
        self.running.iter().map(|r| r.2).sum()
    }

    /// Waits briefly for a grant, then runs one offer round; `exclude` as the plugin's.
    pub fn round(&mut self, exclude: &[JobId]) {
        if let Some(n) = self.c.inbox().wait(self.grants_seen, Duration::from_millis(20)) {
            self.grants_seen = n;
        }
        for &(j, w, width) in &self.waiting {
            let failing = self.limbo.iter().filter(|&&l| l == j).count() as u32;
            self.c.set_pending(j, (w + failing) * width);
        }
        let free = self.slots - self.cores_used();
        let mut plan = Vec::new();
        let cold = self.cold.clone();
        self.c.offer(EXEC, free, exclude, |job, _, _| !cold.contains(&job), &mut plan);
        // The plugin's allowance: a launch takes `width` planned slots of its job.
        let mut allowance: Vec<(JobId, u32)> = Vec::new();
        for job in plan {
            match allowance.iter_mut().find(|(j, _)| *j == job) {
                Some(a) => a.1 += 1,
                None => allowance.push((job, 1)),
            }
        }
        let mut launched = Vec::new();
        for (job, n) in allowance.iter_mut() {
            let w = self.waiting.iter_mut().find(|(j, _, _)| j == job).unwrap();
            if self.gangs.contains(job) {
                // Spark's barrier rule: every waiting task gets a slot this round, or none
                // launches; the offers it took are not declined (the plugin's allowance was
                // spent), and their grants go back at the round's end.
                if *n >= w.1 * w.2 && w.1 > 0 {
                    self.gang_launches.push(w.1);
                    for _ in 0..w.1 {
                        let tid = self.next_tid;
                        self.next_tid += 1;
                        self.running.push((tid, *job, w.2));
                        launched.push((tid, EXEC, *job));
                    }
                    w.1 = 0;
                }
                *n = 0;
                continue;
            }
            // Spark launches while it has a task and the allowance covers one.
            while w.1 > 0 && *n >= w.2 {
                *n -= w.2;
                w.1 -= 1;
                let tid = self.next_tid;
                self.next_tid += 1;
                self.running.push((tid, *job, w.2));
                launched.push((tid, EXEC, *job));
            }
        }
        // The planned slots no launch took are declined one by one, then the round ends.
        for (job, n) in allowance {
            for _ in 0..n {
                self.c.decline(EXEC, job);
            }
        }
        self.launched += launched.len() as u32;
        self.c.round_end(&launched);
    }

    /// The oldest running task ends.
    pub fn finish_one(&mut self) {
        if !self.running.is_empty() {
            let (tid, _, _) = self.running.remove(0);
            self.c.task_ended(tid);
        }
    }

    /// The oldest running task fails: its lease ends, and Spark queues it again (a retry),
    /// with no offer round in between.
    pub fn fail_one(&mut self) {
        if !self.running.is_empty() {
            let (tid, job, _) = self.running.remove(0);
            self.c.task_ended(tid);
            self.waiting.iter_mut().find(|w| w.0 == job).unwrap().1 += 1;
        }
    }

    /// The oldest running task fails as Spark sees it first: its lease ends and Spark counts
    /// it waiting, but it launches again only after [`FakeSpark::requeue`].
    pub fn fail_one_late(&mut self) {
        if !self.running.is_empty() {
            let (tid, job, _) = self.running.remove(0);
            self.c.task_ended(tid);
            self.limbo.push(job);
        }
    }

    /// The failed tasks are back in Spark's pending lists (its `handleFailedTask`).
    pub fn requeue(&mut self) {
        for job in std::mem::take(&mut self.limbo) {
            self.waiting.iter_mut().find(|w| w.0 == job).unwrap().1 += 1;
        }
    }

    /// Offer rounds until every task set is done, each oldest running task ending after a
    /// round: the first `fail` launches from task id `first` on fail as in
    /// [`FakeSpark::fail_one_late`], and Spark queues the failed ones again every
    /// `requeue_every` rounds. Returns how many failed.
    pub fn run_failing_first(&mut self, what: &str, first: i64, fail: u32, requeue_every: u32) -> u32 {
        let deadline = Instant::now() + Duration::from_secs(60);
        let (mut failed, mut step) = (0, 0u32);
        while !self.done() {
            assert!(Instant::now() < deadline, "{what}: hung, {} launched, {:?} waiting", self.launched, self.waiting);
            self.round(&[]);
            step += 1;
            if step.is_multiple_of(requeue_every) {
                self.requeue();
            }
            match self.running.first() {
                Some(&(tid, _, _)) if tid < first + fail as i64 => {
                    failed += 1;
                    self.fail_one_late();
                }
                Some(_) => self.finish_one(),
                None => {}
            }
        }
        failed
    }

    /// Every task set submitted is gone (the plugin's `removeJob`).
    pub fn remove_all(&mut self) {
        for &(j, _, _) in &self.waiting {
            self.c.remove_job(j);
        }
    }

    pub fn done(&self) -> bool {
        self.running.is_empty() && self.limbo.is_empty() && self.waiting.iter().all(|w| w.1 == 0)
    }
}

/// A node of `slots` slots, its central, and two applications "a" and "b" linked to it,
/// each with one executor of `slots` cores there.
pub fn shared_node(slots: u32) -> (String, FakeSpark, FakeSpark) {
    let (addr, port) = node(slots);
    let central = central(&[&addr]);
    let mut a = FakeSpark::new(side("a", &central, port), slots);
    let mut b = FakeSpark::new(side("b", &central, port), slots);
    a.c.executor_added(EXEC, "127.0.0.1");
    b.c.executor_added(EXEC, "127.0.0.1");
    eventually("both applications to link the node", || {
        a.c.drain();
        b.c.drain();
        a.c.hosts_up() == 1 && b.c.hosts_up() == 1
    });
    (addr, a, b)
}

/// A node of `slots` slots, its central, and application "a" linked to it, with one
/// executor of `slots` cores there.
pub fn linked_app(slots: u32) -> (String, FakeSpark) {
    linked_app_with(eagle_node::Policy::Eagle, slots)
}

/// As [`linked_app`], the node running `policy`.
pub fn linked_app_with(policy: eagle_node::Policy, slots: u32) -> (String, FakeSpark) {
    let (addr, port) = node_with(policy, slots);
    let central = central(&[&addr]);
    let mut a = FakeSpark::new(side("a", &central, port), slots);
    a.c.executor_added(EXEC, "127.0.0.1");
    eventually("the node to link", || {
        a.c.drain();
        a.c.hosts_up() == 1
    });
    (addr, a)
}

/// Offer rounds of both applications until both are done, a task of each ending every
/// second round; `after` sees both after every round.
pub fn run_together(a: &mut FakeSpark, b: &mut FakeSpark, mut after: impl FnMut(&FakeSpark, &FakeSpark)) {
    let mut step = 0u64;
    let deadline = Instant::now() + Duration::from_secs(60);
    while !(a.done() && b.done()) {
        assert!(Instant::now() < deadline, "jobs did not finish: a launched {} b launched {}", a.launched, b.launched);
        a.round(&[]);
        b.round(&[]);
        after(a, b);
        step += 1;
        if step.is_multiple_of(2) {
            a.finish_one();
            b.finish_one();
        }
    }
}
