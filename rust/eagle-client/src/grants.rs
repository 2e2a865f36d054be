//! Grants become offer rounds' plans (Eagle SoCC'16 §5, "a scheduler client as a plug-in
//! for Spark"): in cluster mode the plan of every offer round comes from the slots that the
//! hosts' `eagle-node` daemons grant this application, not from the driver's engine.
//!
//! The driver's engine still classifies task sets and learns their durations
//! ([`eagle_core::Driver::task_observed`]); the [`Client`] probes the nodes for
//! short task sets and sends long ones to `eagle-central`. A grant is a lease of one slot
//! for one task set on one host. How a grant is used:
//!
//! ```text
//!  Grant ──► held ──offer(executor on its host)──► assigned ──round_end: a task of that
//!                │                                     │      task set launched there──► running ──task_ended──► TaskEnd
//!                │                                     └──decline / not launched──► NoTask
//!                └──seen by an offer that could not use it, or held > GRANT_HOLD──► NoTask
//! ```
//!
//! A barrier stage is a gang ([`ClusterSide::set_gang`]): its grants stay held, unplanned,
//! until there is one for each of its tasks, and then one round plans them all.
//!
//! Spark's TaskSetManager still picks the task, so retries, speculation, locality and delay
//! scheduling keep working; a launch without a grant never happens (the plugin vetoes every
//! launch the plan does not allow). Running leases are keyed by Spark's task id, so a task
//! that ends after its task set is gone (a killed speculative copy, a zombie attempt) still
//! ends its lease, and a lost executor ends the leases of its tasks: no slot leaks.
//!
//! Threads: the client's own (links, decisions), and one pump that moves the client's
//! [`Event`]s into an [`Inbox`] and wakes [`Inbox::wait`] (the plugin's revive thread,
//! which asks Spark for an offer round when a grant arrives). Every other step runs under
//! the engine's handle lock and drains the inbox first, in the client's order.

use crate::client::{Client, ClientConfig, Event, Grant};
use crate::error::ClusterError;
use eagle_core::{JobId, NodeId};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

mod cold;
mod inbox;
mod reach;
pub use inbox::Inbox;

/// A grant no offer round used within this time goes back to its node (late binding: a
/// slot is never held for a task set that cannot take it; the node's lease is longer).
pub const GRANT_HOLD: Duration = Duration::from_millis(1000);

/// A gang (a barrier task set: Spark launches all its tasks in one round or none) holds its
/// grants until it has one for every task, for at most this many keep-alive periods: under
/// the nodes' lease, which the keep-alive period is kept under a third of. Then it gives them
/// all back, withdraws its probes, and probes afresh a period later.
pub const GANG_HOLD_PINGS: u32 = 2;

/// How the driver reaches the daemons (`spark.scheduler.eagle.cluster.*`).
#[derive(Clone, Debug, PartialEq)]
pub struct ClusterParams {
    /// `eagle-central`, `host:port`.
    pub central: String,
    /// Every host's `eagle-node` listens on this port.
    pub node_port: u16,
    pub secret: Vec<u8>,
    /// This application's id (unique among the applications sharing the daemons).
    pub app: String,
    /// K, the minimum number of probes of a short task set (`minProbes`).
    pub min_probes: u32,
    /// Probes per task of a short task set (`probeRatio`).
    pub probe_ratio: u32,
    /// Keep-alive period towards every daemon (under a third of the nodes' lease time).
    pub ping_ms: u64,
    pub seed: u64,
    /// [`ClientConfig::retry_rejected`]: on unless the driver runs the paper's policy.
    pub retry_rejected: bool,
    /// `cluster.warmGrants`: hand back a grant that the warm-executors rule says a job's own
    /// slots drain sooner ([`eagle_core::Driver::worth_grant`]).
    pub warm_grants: bool,
    /// `cluster.affinity`, and the driver runs policy `adaptive`: a short task set's first
    /// probes go to the application's warm hosts, the others after what a task costs more
    /// there, at least the measured warm-up ([`Client::affinity_wait`]).
    pub affinity: bool,
}

impl ClusterParams {
    /// Rejects what cannot work, naming the key.
    pub fn validate(&self) -> Result<(), ClusterError> {
        let central = self.central.trim();
        let ok = central.rsplit_once(':').is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
        if !ok {
            return Err(ClusterError::BadCentral(self.central.clone()));
        }
        if self.node_port == 0 {
            return Err(ClusterError::BadNodePort(0));
        }
        if self.secret.is_empty() {
            return Err(ClusterError::NoSecret);
        }
        if self.app.is_empty() {
            return Err(ClusterError::NoApp);
        }
        Ok(())
    }
}

/// How wide a task set's tasks are.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// Engine slots (offer units, `spark.task.cpus` cores each) one task takes.
    pub width: u32,
    /// Slots of its host's node (cores) one task holds: a grant is a lease of this many.
    pub cpus: u32,
}

impl Shape {
    pub const ONE: Shape = Shape { width: 1, cpus: 1 };
}

/// A grant not yet used.
struct Held {
    grant: Grant,
    since: Instant,
    /// An offer round saw it and could not use it: it goes back at the round's end.
    refused: bool,
}

/// What cluster mode did (the run summary's `cluster` section).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClusterCounters {
    pub grants: u64,
    pub launched: u64,
    /// Grants given back unused (`NoTask`).
    pub returned: u64,
    /// Of those, grants of a host where the job was cold or warming, handed back by the
    /// warm-executors rule (`cluster.warmGrants`).
    pub cold_returned: u64,
    /// Hosts a task set handed a grant back on and then probed again, once the
    /// warm-executors rule said yes there (its estimate proved low: `grants/cold.rs`).
    pub probed_again: u64,
    /// Of those, grants a gang gave back when it could not gather one for every task in time.
    pub gang_returned: u64,
    /// Grants voided by their node (link lost, lease expired) before use.
    pub revoked: u64,
    pub task_ends: u64,
    pub host_downs: u64,
    pub central_downs: u64,
}

/// The driver's side of cluster mode behind one engine handle.
pub struct ClusterSide {
    client: Option<Client>,
    inbox: Arc<Inbox>,
    pump: Option<thread::JoinHandle<()>>,
    node_port: u16,
    warm_grants: bool,
    /// [`ClusterParams::affinity`], and the wait last given to the client.
    affinity: bool,
    affinity_sent: Duration,
    host_of: HashMap<NodeId, String>,
    executors_on: HashMap<String, u32>,
    up: HashSet<String>,
    central_up: bool,
    held: HashMap<String, Vec<Held>>,
    /// Planned this round: (executor, grant, plan entries not declined). A grant is planned
    /// as its task's width in entries, and goes back once all of them are declined.
    assigned: Vec<(NodeId, Grant, u32)>,
    /// Launched tasks by Spark task id: (executor, grant).
    running: HashMap<i64, (NodeId, Grant)>,
    /// Live task sets: their launchable engine slots as the client counts them (the last
    /// count reported, less the launches since), and their shape.
    pending: HashMap<JobId, (u32, Shape)>,
    /// Task sets Spark lets run only on some executors: their hosts, as last told the client.
    restricted: HashMap<JobId, Vec<String>>,
    /// Gangs (barrier task sets, [`ClusterSide::set_gang`]); `Some(t)` while one waits to
    /// probe again at `t` after giving its grants back.
    gangs: HashMap<JobId, Option<Instant>>,
    /// How long a gang holds grants before it gives them back ([`GANG_HOLD_PINGS`]).
    gang_hold: Duration,
    /// Since when each gang grant planned this round was held, by (host, lease): one the
    /// round does not launch is held again, not given back (a round that offers only some
    /// executors cannot launch a gang, and must not cost it the grants it gathered).
    gang_since: HashMap<(String, u64), Instant>,
    ping: Duration,
    /// Hosts each task set handed a grant back on under the warm-executors rule, and has
    /// not probed since (`grants/cold.rs`).
    handed: HashMap<JobId, Vec<String>>,
    /// Live task sets classed long (submitted to the central).
    long: HashSet<JobId>,
    /// The central's short-only hosts, as last told (`grants/reach.rs`).
    short_only: HashSet<String>,
    pub counters: ClusterCounters,
}

/// How long the start waits for the central's first answer: its connect timeout (2 s) and
/// handshake timeout (5 s), so that only a central that accepts and never answers costs
/// the whole wait. A central refusing the connection or linking answers at once.
const FIRST_CENTRAL_WAIT: std::time::Duration = std::time::Duration::from_secs(8);

/// The hosts of `input` (executors holding the tasks' input, `width` entries a task per
/// executor), each with how many of the `tasks` tasks read input there, at most `tasks`;
/// executors of no known host are left out. Sorted by host name.
pub fn input_hosts(input: &[NodeId], host_of: &HashMap<NodeId, String>, width: u32, tasks: u32) -> Vec<(String, u32)> {
    let mut entries: BTreeMap<&str, u32> = BTreeMap::new();
    for n in input {
        if let Some(h) = host_of.get(n) {
            *entries.entry(h.as_str()).or_default() += 1;
        }
    }
    entries
        .into_iter()
        .map(|(h, e)| (h.to_string(), e.div_ceil(width.max(1)).min(tasks)))
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// `host:port`, with brackets around an IPv6 literal.
pub fn node_addr(host: &str, port: u16) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

impl ClusterSide {
    pub fn start(p: ClusterParams) -> Result<ClusterSide, ClusterError> {
        p.validate()?;
        let client = Client::start(ClientConfig {
            app: p.app.clone(),
            central: p.central.trim().to_string(),
            secret: p.secret.clone(),
            min_probes: p.min_probes,
            probe_ratio: p.probe_ratio,
            ping_ms: p.ping_ms,
            seed: p.seed,
            retry_rejected: p.retry_rejected,
        });
        // A central that refuses this driver (another build's protocol, a wrong secret) is a
        // configuration error: fail the start, naming it, so that the plugin falls back to
        // stock scheduling (or, with fallback=false, the jobs abort) rather than wait on
        // links that never come. A central merely down is a fault cluster mode rides out.
        if let Err(cause) = client.central_first(FIRST_CENTRAL_WAIT) {
            return Err(ClusterError::Refused { central: p.central.trim().to_string(), cause });
        }
        let inbox = Arc::new(Inbox::default());
        let (rx, ib) = (client.events().clone(), inbox.clone());
        let pump = thread::Builder::new()
            .name("eagle-cluster-pump".into())
            .spawn(move || {
                // Ends when the client thread stops (its event sender is dropped).
                for e in rx.iter() {
                    ib.push(e);
                }
                ib.close();
            })
            .map_err(ClusterError::Thread)?;
        Ok(ClusterSide {
            client: Some(client),
            inbox,
            pump: Some(pump),
            node_port: p.node_port,
            warm_grants: p.warm_grants,
            affinity: p.affinity,
            affinity_sent: Duration::ZERO,
            host_of: HashMap::new(),
            executors_on: HashMap::new(),
            up: HashSet::new(),
            central_up: false,
            held: HashMap::new(),
            assigned: Vec::new(),
            running: HashMap::new(),
            pending: HashMap::new(),
            restricted: HashMap::new(),
            gangs: HashMap::new(),
            gang_since: HashMap::new(),
            gang_hold: Duration::from_millis(p.ping_ms) * GANG_HOLD_PINGS,
            ping: Duration::from_millis(p.ping_ms),
            handed: HashMap::new(),
            long: HashSet::new(),
            short_only: HashSet::new(),
            counters: ClusterCounters::default(),
        })
    }

    /// The client (its own counters are part of cluster mode's status).
    pub fn client(&self) -> &Client {
        self.client.as_ref().expect("the client lives until drop")
    }

    /// For the plugin's revive thread (waits without the engine's lock).
    pub fn inbox(&self) -> Arc<Inbox> {
        self.inbox.clone()
    }

    /// Applies the client's events so far, in order.
    pub fn drain(&mut self) {
        for e in self.inbox.drain() {
            match e {
                Event::Grant(g) => {
                    self.counters.grants += 1;
                    if self.pending.contains_key(&JobId(g.job as u32)) && self.executors_on.contains_key(&g.host) {
                        self.held.entry(g.host.clone()).or_default().push(Held {
                            grant: g,
                            since: Instant::now(),
                            refused: false,
                        });
                    } else {
                        self.give_back(&g);
                    }
                }
                Event::Revoked(g) => {
                    if let Some(v) = self.held.get_mut(&g.host) {
                        let before = v.len();
                        v.retain(|h| h.grant.lease != g.lease);
                        self.counters.revoked += (before - v.len()) as u64;
                    }
                    // Assigned this round: Spark may launch it anyway; the node no longer counts it.
                    self.assigned.retain(|(_, a, _)| !(a.host == g.host && a.lease == g.lease));
                }
                Event::HostUp(h) => {
                    self.up.insert(h);
                }
                Event::HostDown(h) => {
                    self.counters.host_downs += 1;
                    self.up.remove(&h);
                    self.held.remove(&h);
                }
                Event::CentralUp => self.central_up = true,
                Event::ShortOnly(hosts) => self.set_short_only(hosts),
                Event::CentralDown => {
                    self.counters.central_downs += 1;
                    self.central_up = false;
                }
            }
        }
    }

    fn give_back(&mut self, g: &Grant) {
        self.counters.returned += 1;
        self.gang_since.remove(&(g.host.clone(), g.lease));
        self.client().no_task(g);
    }

    /// A planned grant the round did not use: a gang's is held again (as since it was first
    /// held, so its hold still ends in time), any other goes back.
    fn unplanned(&mut self, g: Grant) {
        let since = self.gang_since.remove(&(g.host.clone(), g.lease));
        match since {
            Some(since) if self.gangs.contains_key(&JobId(g.job as u32)) && self.executors_on.contains_key(&g.host) => {
                self.held.entry(g.host.clone()).or_default().push(Held { grant: g, since, refused: false });
            }
            _ => self.give_back(&g),
        }
    }

    /// Executor `node` runs on `host`: the application links to that host's node daemon.
    pub fn executor_added(&mut self, node: NodeId, host: &str) {
        if self.host_of.insert(node, host.to_string()).is_some() {
            return;
        }
        let n = self.executors_on.entry(host.to_string()).or_default();
        *n += 1;
        if *n == 1 {
            let addr = node_addr(host, self.node_port);
            self.client().add_host(host, &addr);
        }
    }

    /// Executor `node` is gone, with its tasks: their leases end, its grants go back.
    pub fn executor_removed(&mut self, node: NodeId) {
        self.drain();
        let Some(host) = self.host_of.remove(&node) else {
            return;
        };
        let ended: Vec<i64> = self.running.iter().filter(|(_, (n, _))| *n == node).map(|(&t, _)| t).collect();
        for t in ended {
            self.task_ended(t);
        }
        let mine: Vec<Grant> = self.assigned.iter().filter(|(n, _, _)| *n == node).map(|(_, g, _)| g.clone()).collect();
        self.assigned.retain(|(n, _, _)| *n != node);
        for g in mine {
            self.give_back(&g);
        }
        let n = self.executors_on.get_mut(&host).expect("counted at executor_added");
        *n -= 1;
        if *n == 0 {
            self.executors_on.remove(&host);
            for h in self.held.remove(&host).unwrap_or_default() {
                self.give_back(&h.grant);
            }
            self.client().remove_host(&host);
            self.up.remove(&host);
        }
    }

    /// A task set of `units` launchable engine slots (`shape.width` per task), classified
    /// and estimated by the engine.
    pub fn submit(&mut self, job: JobId, units: u32, est_s: f64, long: bool, shape: Shape) {
        self.submit_near(job, units, est_s, long, shape, &[]);
    }

    /// [`ClusterSide::submit`], with the executors holding the tasks' input (`input`: the
    /// engine's `set_input_nodes` list, `shape.width` entries a task per executor): a long
    /// task set asks the central to place its tasks near it ([`input_hosts`]).
    pub fn submit_near(&mut self, job: JobId, units: u32, est_s: f64, long: bool, shape: Shape, input: &[NodeId]) {
        self.drain();
        let shape = Shape { width: shape.width.max(1), cpus: shape.cpus.max(1) };
        self.pending.insert(job, (units, shape));
        if long {
            self.long.insert(job);
        }
        let tasks = units / shape.width;
        let near = if long { input_hosts(input, &self.host_of, shape.width, tasks) } else { Vec::new() };
        self.client().submit_near(job.0 as u64, tasks, est_s * 1000.0, long, shape.cpus, near);
    }

    /// Application affinity's least wait: the driver's measured warm-up, `warmup_s` (0 until
    /// measured, which leaves affinity off). Sent to the client when it changed.
    pub fn warmup(&mut self, warmup_s: f64) {
        if !self.affinity {
            return;
        }
        let w = Duration::try_from_secs_f64(warmup_s).unwrap_or(Duration::ZERO);
        if w != self.affinity_sent {
            self.affinity_sent = w;
            self.client().affinity_wait(w);
        }
    }

    /// Spark's count of the task set's launchable engine slots (waiting + speculatable).
    pub fn set_pending(&mut self, job: JobId, units: u32) {
        let Some((p, shape)) = self.pending.get_mut(&job) else { return };
        let (before, width) = (*p / shape.width, shape.width);
        *p = units;
        // A gang that gave its grants back probes afresh once its wait is over.
        let retry = match self.gangs.get_mut(&job) {
            Some(at) if at.is_some_and(|t| Instant::now() >= t) => at.take().is_some(),
            _ => false,
        };
        if units / width != before || (retry && units > 0) {
            self.client().remaining(job.0 as u64, units / width);
        }
    }

    /// Spark lets `job` run only on the executors `usable` (an executor or host excluded for
    /// it on failure, a resource profile), or on every one again (`None`). The client then
    /// probes and places it only on their hosts: a long task excluded from the host the
    /// central placed it on runs on another instead of going back there for good.
    pub fn restrict(&mut self, job: JobId, usable: Option<&[NodeId]>) {
        if !self.pending.contains_key(&job) {
            return;
        }
        let hosts = usable.map(|nodes| {
            let mut h: Vec<String> = nodes.iter().filter_map(|n| self.host_of.get(n).cloned()).collect();
            h.sort();
            h.dedup();
            h
        });
        if self.restricted.get(&job) == hosts.as_ref() {
            return;
        }
        match &hosts {
            Some(h) => self.restricted.insert(job, h.clone()),
            None => self.restricted.remove(&job),
        };
        self.client().restrict(job.0 as u64, hosts);
    }

    /// Task set `job` is a gang (a barrier stage): Spark launches all its tasks in one offer
    /// round or none. Its grants are held, not planned, until there is one for each of its
    /// waiting tasks; then one round plans them all. A gang that has not gathered them within
    /// [`GANG_HOLD_PINGS`] keep-alive periods gives them all back (other applications' work
    /// takes the slots), withdraws its probes and probes afresh a period later, so two gangs
    /// short of slots do not hold each other's forever.
    pub fn set_gang(&mut self, job: JobId) {
        if self.pending.contains_key(&job) {
            self.gangs.insert(job, None);
        }
    }

    /// Grants held for gang `job` on every host, and whether they cover its waiting tasks
    /// with the ones `taken` this round.
    fn gang_ready(&self, job: JobId, taken: u32) -> bool {
        let (units, width) = self.pending.get(&job).map_or((0, 1), |(u, s)| (*u, s.width));
        let held = self.held.values().flatten().filter(|h| h.grant.job == job.0 as u64).count() as u32;
        units > 0 && held + taken >= units / width
    }

    /// The task set is gone: its probes are withdrawn, its grants go back.
    pub fn remove_job(&mut self, job: JobId) {
        self.drain();
        if self.pending.remove(&job).is_none() {
            return;
        }
        self.client().finished(job.0 as u64);
        self.gangs.remove(&job);
        self.restricted.remove(&job);
        self.handed.remove(&job);
        self.long.remove(&job);
        let mut back = Vec::new();
        for v in self.held.values_mut() {
            v.retain(|h| {
                let mine = h.grant.job == job.0 as u64;
                if mine {
                    back.push(h.grant.clone());
                }
                !mine
            });
        }
        for g in back {
            self.give_back(&g);
        }
    }

    /// `free` engine slots are free on executor `node`: the task sets whose grants on its host it
    /// may serve, one entry per launch (never one of `exclude`, never more than a task set
    /// has launchable tasks this round). Grants it cannot use are marked to go back. With
    /// `cluster.warmGrants`, a short grant of a host where its job holds no slot goes back
    /// at once (late binding's "no task", so its node serves the next entry of its queue
    /// now) when `worth(job, waiting, running)` says no, `running` counting the job's
    /// slots under kept probes ([`eagle_core::Driver::worth_grant`]).
    pub fn offer(
        &mut self,
        node: NodeId,
        free: u32,
        exclude: &[JobId],
        worth: impl Fn(JobId, u32, u32) -> bool,
        out: &mut Vec<JobId>,
    ) {
        self.drain();
        let Some(host) = self.host_of.get(&node).cloned() else {
            return;
        };
        if self.warm_grants {
            self.probe_handed_back(&host, free, exclude, &worth);
        }
        if !self.held.contains_key(&host) {
            return;
        }
        let mut taken: HashMap<JobId, u32> = HashMap::new();
        for (_, g, _) in &self.assigned {
            *taken.entry(JobId(g.job as u32)).or_default() += 1;
        }
        // Gangs plan only once their grants cover every waiting task (held anywhere, or
        // planned on another executor this round); until then their grants stay held.
        let ready: HashSet<JobId> =
            self.gangs.keys().copied().filter(|&j| self.gang_ready(j, taken.get(&j).copied().unwrap_or(0))).collect();
        // The slots each job holds under a kept probe (Sticky Batch Probing): they drain its
        // waiting tasks warm. Jobs holding a slot of this host are never asked: a "no task"
        // drops the job's probe on the host, the kept one with it.
        let (mut sticky, mut here) = if self.warm_grants { self.holding(&host) } else { Default::default() };
        let held = self.held.get_mut(&host).expect("checked above");
        let mut left = free;
        let mut cold = Vec::new();
        let mut i = 0;
        while i < held.len() {
            let job = JobId(held[i].grant.job as u32);
            let (units, width) = self.pending.get(&job).map_or((0, 1), |(u, s)| (*u, s.width));
            let room = (units / width).saturating_sub(taken.get(&job).copied().unwrap_or(0));
            let gang = self.gangs.contains_key(&job);
            if gang && !ready.contains(&job) {
                i += 1; // held for the gang's other tasks (see `set_gang`)
                continue;
            }
            let usable = left >= width && room > 0 && !exclude.contains(&job);
            // Long grants are the central's placements (LWL over the hosts): not ruled here.
            // A gang takes every grant it gathered: its tasks start together or not at all.
            if usable
                && !gang
                && self.warm_grants
                && !held[i].grant.long
                && !here.contains(&job)
                && !worth(job, room, sticky.get(&job).copied().unwrap_or(0))
            {
                cold.push(held.swap_remove(i).grant);
                continue;
            }
            if usable {
                // One task under the grant: `width` plan entries (engine slots) of the offer.
                let h = held.swap_remove(i);
                *taken.entry(job).or_default() += 1;
                if h.grant.kept {
                    *sticky.entry(job).or_default() += 1;
                }
                here.insert(job);
                left -= width;
                out.extend(std::iter::repeat_n(job, width as usize));
                if gang {
                    self.gang_since.insert((host.clone(), h.grant.lease), h.since);
                }
                self.assigned.push((node, h.grant, width));
                continue;
            }
            if left > 0 {
                // This executor had room but may not run it: give it back at the round's end
                // (another executor of the host may still take it in this round).
                held[i].refused = true;
            }
            i += 1;
        }
        self.counters.cold_returned += cold.len() as u64;
        for g in cold {
            self.handed_back(JobId(g.job as u32), &host);
            self.give_back(&g);
        }
    }

    /// A planned entry (one engine slot) was not used: once all the entries of a grant
    /// are declined (its task's width), the grant goes back at once (a gang's is held again).
    pub fn decline(&mut self, node: NodeId, job: JobId) {
        if let Some(i) = self.assigned.iter().position(|(n, g, _)| *n == node && g.job == job.0 as u64) {
            self.assigned[i].2 -= 1;
            if self.assigned[i].2 == 0 {
                let (_, g, _) = self.assigned.swap_remove(i);
                self.unplanned(g);
            }
        }
    }

    /// The offer round is over; `launched` are its launches as (task id, executor, job).
    /// Each takes an assigned grant of its job on its executor; grants left unassigned or
    /// refused (or held too long) go back, but a gang's unlaunched ones are held again until
    /// its hold ends, and then all of its grants go back together.
    pub fn round_end(&mut self, launched: &[(i64, NodeId, JobId)]) {
        self.drain();
        for &(tid, node, job) in launched {
            if let Some(i) = self.assigned.iter().position(|(n, g, _)| *n == node && g.job == job.0 as u64) {
                let (n, g, _) = self.assigned.swap_remove(i);
                self.gang_since.remove(&(g.host.clone(), g.lease));
                self.counters.launched += 1;
                self.client().launched(&g);
                // The client counts the launch off the job's waiting tasks; so does the
                // count `set_pending` compares with. Spark reported it before this round's
                // launches, so a task that fails before the next round would bring Spark's
                // count back to the last one reported, and its retry would ask for no slot.
                if let Some((units, shape)) = self.pending.get_mut(&job) {
                    *units = units.saturating_sub(shape.width);
                }
                self.running.insert(tid, (n, g));
            }
        }
        for (_, g, _) in std::mem::take(&mut self.assigned) {
            self.unplanned(g);
        }
        let now = Instant::now();
        // A gang whose oldest grant has waited its hold gives all of them back at once (no
        // pass over the held grants when no gang is live: this runs after every round).
        let expired: HashSet<u64> = if self.gangs.is_empty() {
            HashSet::new()
        } else {
            self.held
                .values()
                .flatten()
                .filter(|h| {
                    self.gangs.contains_key(&JobId(h.grant.job as u32)) && now.duration_since(h.since) > self.gang_hold
                })
                .map(|h| h.grant.job)
                .collect()
        };
        let gangs = &self.gangs;
        let mut back = Vec::new();
        for v in self.held.values_mut() {
            v.retain_mut(|h| {
                let go = if gangs.contains_key(&JobId(h.grant.job as u32)) {
                    expired.contains(&h.grant.job)
                } else {
                    h.refused || now.duration_since(h.since) > GRANT_HOLD
                };
                if go {
                    back.push(h.grant.clone());
                }
                h.refused = false;
                !go
            });
        }
        self.counters.gang_returned += back.iter().filter(|g| expired.contains(&g.job)).count() as u64;
        for g in back {
            self.give_back(&g);
        }
        for job in expired {
            let j = JobId(job as u32);
            // Its probes go too (a probe left queued would grant it one slot at a time
            // again); it probes afresh when `set_pending` sees the wait over.
            self.client().remaining(job, 0);
            self.gangs.insert(j, Some(now + self.ping));
        }
    }

    /// Spark task `tid` reached a final state: its lease ends (unknown ids are ignored).
    pub fn task_ended(&mut self, tid: i64) {
        if let Some((_, g)) = self.running.remove(&tid) {
            self.counters.task_ends += 1;
            self.client().task_end(&g);
        }
    }

    /// Grants waiting for an offer round.
    pub fn held_grants(&self) -> usize {
        self.held.values().map(Vec::len).sum()
    }

    /// Tasks running under a lease.
    pub fn running(&self) -> usize {
        self.running.len()
    }

    pub fn central_up(&self) -> bool {
        self.central_up
    }

    /// Hosts whose node is linked.
    pub fn hosts_up(&self) -> usize {
        self.up.len()
    }
}

impl Drop for ClusterSide {
    fn drop(&mut self) {
        // Stops the client's threads and closes its links (the daemons then drop this
        // application's probes and leases); the pump sees the end of the events and ends.
        drop(self.client.take());
        if let Some(p) = self.pump.take() {
            let _ = p.join();
        }
    }
}

#[cfg(test)]
mod tests;
