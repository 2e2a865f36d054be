//! The client thread and its handle. One thread owns every decision and every write
//! half ([`eagle_wire::net::Writers`]); the driver's calls and the link threads'
//! reports reach it as `Cmd`s over one `crossbeam-channel`, so they are applied in
//! one order. What the driver must act on comes back as [`Event`]s.
//!
//! A job's life here (Eagle §3.2, late binding):
//! ```text
//!  submit(short) ─► Probe to max(K,2t) hosts ─► Grant ─► Event::Grant ─► launched ─► task_end
//!  submit(long)  ─► SubmitLong to the central ─┘   (or local LWL + Probes if it is down)  └► no_task
//! ```
//! A grant for a job with nothing left (or unknown) is returned at once (`NoTask`).
//!
//! **Where the nodes are.** A node daemon runs on every worker host on one port
//! (`scripts/eagle-cluster.sh --node-port`), and the application must have an
//! executor on each host it uses; so the driver links to `executor host : node port`
//! for every host it has executors on ([`Client::add_host`]). It needs no host list
//! from the central (which may be down) and never links to hosts it cannot use.
//!
//! **Faults.** A node link that drops takes its host out of every new decision (and
//! its grants are void) until the link is back: the link thread reconnects every
//! [`crate::RETRY`] and the host is used again. While the central is unreachable, long task
//! sets are spread over the driver's own hosts by least work left
//! ([`crate::placement::local_lwl`]) and sent to those nodes as probes; once it is back,
//! long task sets go to it again. Tasks the central could not place (`Unplaced`) take
//! the same local path.

use crate::books::{Host, Job, Lease};
use crate::error::Refused;
use crate::link::{self, Link, LinkEvent};
use crossbeam_channel::{after, select, unbounded, Receiver, Sender};
use eagle_core::rng::Rng;
use eagle_wire::net::Writers;
use eagle_wire::{Bitvector, FromCentral, FromNode, ToCentral, ToNode};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

mod central;
mod local;
mod nodes;
mod probing;

/// How the client runs.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// This application's id (the handshake's `app`; unique among the applications).
    pub app: String,
    /// The central scheduler, `host:port`.
    pub central: String,
    /// The shared secret of the daemons.
    pub secret: Vec<u8>,
    /// K, the minimum number of probes of a short job (`spark.scheduler.eagle.minProbes`).
    pub min_probes: u32,
    /// Probes per task of a short job (`spark.scheduler.eagle.probeRatio`; the paper's 2):
    /// a job of `t` tasks probes `max(K, probe_ratio · t)` hosts.
    pub probe_ratio: u32,
    /// Keep-alive period towards every daemon: under a third of the nodes' lease time.
    pub ping_ms: u64,
    /// Seed of the probe sampling.
    pub seed: u64,
    /// A short job probes again, at each keep-alive tick, the hosts that rejected it a
    /// tick or more ago (`State::retry_rejected`). Off: Eagle as published, where a
    /// rejecting host is never probed again by that job.
    pub retry_rejected: bool,
}

/// A slot leased by `host`'s node for one task of `job`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Grant {
    pub host: String,
    pub lease: u64,
    pub job: u64,
    /// A central placement (long job) rather than a probe's.
    pub long: bool,
    /// The node keeps the job's probe after this grant (Sticky Batch Probing, §3.3): when
    /// the task ends, the slot is offered to the job again before its queue moves on.
    pub kept: bool,
}

/// What the driver is told.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Launch one task of `job` on `host` and call [`Client::launched`], or call
    /// [`Client::no_task`] at once.
    Grant(Grant),
    /// The grant is void (not answered in time, or its node went away): do not launch.
    Revoked(Grant),
    /// The node of `host` is linked (again): it takes new work.
    HostUp(String),
    /// The node of `host` is unreachable: no new work goes there until `HostUp`.
    HostDown(String),
    /// Long task sets go to the central scheduler.
    CentralUp,
    /// The central scheduler is unreachable: long task sets are placed locally (LWL).
    CentralDown,
    /// The central's short-only hosts now (`ShortOnly`): it places no long task there.
    ShortOnly(Vec<String>),
}

/// One host as the client sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct HostView {
    pub host: String,
    pub up: bool,
    /// Leases of this application on the host (granted or running).
    pub leases: u32,
    /// Long work placed here by the local fallback and not over, in estimated ms.
    pub local_long_ms: f64,
}

/// What the client thread is asked to do (by the driver or a link thread).
#[derive(Debug)]
pub(crate) enum Cmd {
    AddHost { host: String, addr: String },
    RemoveHost { host: String },
    Submit { job: u64, tasks: u32, est_ms: f64, long: bool, cpus: u32, input: Vec<(String, u32)> },
    Remaining { job: u64, tasks: u32 },
    Restrict { job: u64, hosts: Option<Vec<String>> },
    Finished { job: u64 },
    Launched(Grant),
    NoTask(Grant),
    ProbeAgain { job: u64, host: String },
    TaskEnd(Grant),
    Node(LinkEvent<FromNode>),
    Central(LinkEvent<FromCentral>),
    Hosts(Sender<(bool, Vec<HostView>)>),
    AffinityWait(Duration),
    Stop,
}

/// Counters the client thread keeps and the driver reads (its summary, the bench).
#[derive(Default)]
struct Counters {
    surplus_returned: AtomicU64,
    unplaced_long: AtomicU64,
    placed_locally: AtomicU64,
    warm_first: AtomicU64,
    spread_late: AtomicU64,
}

/// The handle the driver holds. Dropping it stops the threads and closes the links
/// (the daemons then drop this application's probes and leases).
pub struct Client {
    cmd: Sender<Cmd>,
    events: Receiver<Event>,
    thread: Option<thread::JoinHandle<()>>,
    counters: Arc<Counters>,
    /// The central link's first outcome ([`Client::central_first`]), sent once.
    first: Receiver<Result<bool, Refused>>,
    first_seen: parking_lot::Mutex<Option<Result<bool, Refused>>>,
}

impl Client {
    /// Starts the client thread and the link to the central. Hosts come with [`Client::add_host`].
    pub fn start(cfg: ClientConfig) -> Client {
        let (cmd, rx) = unbounded();
        let (etx, events) = unbounded();
        let tx = cmd.clone();
        let counters = Arc::new(Counters::default());
        let counter = counters.clone();
        let (first_tx, first) = crossbeam_channel::bounded(1);
        let thread = thread::Builder::new()
            .name("eagle-client".into())
            .spawn(move || {
                let mut st = State::new(cfg, tx, etx, counter);
                st.first_central = Some(first_tx);
                st.run(rx)
            })
            .expect("spawn the eagle-client thread");
        Client { cmd, events, thread: Some(thread), counters, first, first_seen: parking_lot::Mutex::new(None) }
    }

    /// How the central link's first attempt went, waiting up to `wait` for it: `Ok(true)`
    /// linked; `Ok(false)` not reached, or not within `wait` (long task sets are then placed
    /// locally until it is); `Err(why)` the central refused this driver: another protocol
    /// version or a wrong shared secret, which no retry mends.
    pub fn central_first(&self, wait: Duration) -> Result<bool, Refused> {
        let mut seen = self.first_seen.lock();
        if seen.is_none() {
            *seen = self.first.recv_timeout(wait).ok();
        }
        seen.clone().unwrap_or(Ok(false))
    }

    /// Grants the client handed back to their nodes itself, without an [`Event::Grant`]:
    /// the job already held a grant for each of its tasks left (late binding's surplus).
    pub fn surplus_returned(&self) -> u64 {
        self.counters.surplus_returned.load(Ordering::Relaxed)
    }

    /// Long tasks the central answered it could not place (`Unplaced`), over the client's life.
    pub fn unplaced_long(&self) -> u64 {
        self.counters.unplaced_long.load(Ordering::Relaxed)
    }

    /// Long tasks placed (or placed again, after a rejection) by the driver's own LWL
    /// fallback: the central was unreachable, or could not place them after ten asks.
    pub fn placed_locally(&self) -> u64 {
        self.counters.placed_locally.load(Ordering::Relaxed)
    }

    /// Short jobs whose first probes went to the application's warm hosts only
    /// ([`Client::affinity_wait`]).
    pub fn warm_first(&self) -> u64 {
        self.counters.warm_first.load(Ordering::Relaxed)
    }

    /// Of those, jobs that still had tasks without a grant when the wait ran out, and
    /// probed the other hosts then.
    pub fn spread_late(&self) -> u64 {
        self.counters.spread_late.load(Ordering::Relaxed)
    }

    /// Application affinity (policy `adaptive`; `Duration::ZERO`, the default, turns it
    /// off): a short job's first probes go only to the hosts where this application has
    /// run the most short tasks (at most `probeRatio · t` of them, none the freshest
    /// bitvector marks as holding long work), and to the others only if it still has tasks
    /// without a grant after the wait: what a short task of the application costs more on
    /// the others than on the warm hosts, as measured here ([`crate::placement::affinity_wait`]),
    /// and at least `wait`. Spreading an application's short work over every host
    /// it has an executor on makes each of those JVMs load, compile and cache the same
    /// code; kept on the hosts where it runs most, that happens on fewer. The driver sets
    /// `wait` to its measured warm-up, the cost of a task on an executor where the stage
    /// is cold: a job waits for a warm host at most as long as a cold one would cost it.
    /// A job whose first probes went to every host (no warm host yet, or fewer hosts than
    /// it probes) is unaffected.
    pub fn affinity_wait(&self, wait: Duration) {
        let _ = self.cmd.send(Cmd::AffinityWait(wait));
    }

    /// The events to act on, in order.
    pub fn events(&self) -> &Receiver<Event> {
        &self.events
    }

    /// The application has executors on `host`, whose node daemon listens at `addr`.
    pub fn add_host(&self, host: &str, addr: &str) {
        let _ = self.cmd.send(Cmd::AddHost { host: host.into(), addr: addr.into() });
    }

    /// The application has no executor on `host` any more.
    pub fn remove_host(&self, host: &str) {
        let _ = self.cmd.send(Cmd::RemoveHost { host: host.into() });
    }

    /// A task set of `tasks` tasks of about `est_ms` each; `long` per the engine's
    /// classification. Each task holds one slot of its host.
    pub fn submit(&self, job: u64, tasks: u32, est_ms: f64, long: bool) {
        self.submit_wide(job, tasks, est_ms, long, 1);
    }

    /// [`Client::submit`] for tasks that hold `cpus` slots (cores) each: every grant of
    /// the job is a lease of `cpus` slots, and hosts with fewer slots refuse its probes.
    pub fn submit_wide(&self, job: u64, tasks: u32, est_ms: f64, long: bool, cpus: u32) {
        self.submit_near(job, tasks, est_ms, long, cpus, Vec::new());
    }

    /// [`Client::submit_wide`], with where the tasks read their input: hosts, each with how
    /// many of the tasks have input there. A long job's placements go near it
    /// (`SubmitLong.input`); a short job's probes do not look at it.
    pub fn submit_near(&self, job: u64, tasks: u32, est_ms: f64, long: bool, cpus: u32, input: Vec<(String, u32)>) {
        let _ = self.cmd.send(Cmd::Submit { job, tasks, est_ms, long, cpus: cpus.max(1), input });
    }

    /// The job's unlaunched tasks are now `tasks` (a retry adds one, a kill removes).
    pub fn remaining(&self, job: u64, tasks: u32) {
        let _ = self.cmd.send(Cmd::Remaining { job, tasks });
    }

    /// Spark lets the job run only on the executors of `hosts` (exclusion on failure, a
    /// resource profile), or anywhere again (`None`). Its later probes and placements
    /// follow; a grant of another host goes back as before, and a long task it was meant
    /// for is placed again at the next tick, on the hosts it may use.
    pub fn restrict(&self, job: u64, hosts: Option<Vec<String>>) {
        let _ = self.cmd.send(Cmd::Restrict { job, hosts });
    }

    /// The job is over: its probes are withdrawn, later grants for it returned.
    pub fn finished(&self, job: u64) {
        let _ = self.cmd.send(Cmd::Finished { job });
    }

    pub fn launched(&self, g: &Grant) {
        let _ = self.cmd.send(Cmd::Launched(g.clone()));
    }

    pub fn no_task(&self, g: &Grant) {
        let _ = self.cmd.send(Cmd::NoTask(g.clone()));
    }

    /// Short `job` probes `host` again, as one host of its probes: the driver handed back
    /// a grant there (its "no task" dropped the probe) and would now use one. Nothing is
    /// sent while the job has a probe there, or no task that a grant does not cover.
    pub fn probe_again(&self, job: u64, host: &str) {
        let _ = self.cmd.send(Cmd::ProbeAgain { job, host: host.to_string() });
    }

    pub fn task_end(&self, g: &Grant) {
        let _ = self.cmd.send(Cmd::TaskEnd(g.clone()));
    }

    /// Whether the central is linked, and every host's view (waits for the client thread).
    pub fn hosts(&self) -> (bool, Vec<HostView>) {
        let (tx, rx) = unbounded();
        let _ = self.cmd.send(Cmd::Hosts(tx));
        rx.recv().unwrap_or((false, Vec::new()))
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.cmd.send(Cmd::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The central's link id; hosts are numbered from 1.
const CENTRAL: u64 = 0;

struct State {
    cfg: ClientConfig,
    secret: Arc<[u8]>,
    cmd: Sender<Cmd>,
    events: Sender<Event>,
    writers: Writers,
    central: Link,
    central_up: bool,
    /// The central's host list (`Hosts`): the names its `Placed` indexes.
    central_hosts: Vec<String>,
    hosts: BTreeMap<u64, Host>,
    by_name: HashMap<String, u64>,
    next_link: u64,
    jobs: HashMap<u64, Job>,
    leases: HashMap<(u64, u64), Lease>,
    rng: Rng,
    /// The freshest bitvector a rejection brought (Succinct State Sharing, §3.1): bit `i`
    /// is host `i` of `central_hosts`.
    bitvector: Option<Bitvector>,
    /// The short load last reported to the central (`ShortLoad`), since its link came up.
    short_load_sent: Option<(u32, u32)>,
    /// The hosts last reported to the central as having executors (`Executors`), since
    /// its link came up.
    executors_sent: Option<Vec<String>>,
    /// A host's link came up or went, or the central's did, since the last report: the
    /// hosts are compared with [`State::executors_sent`] at the turn's end (not every turn).
    executors_stale: bool,
    /// How many times `Executors` was sent: a job's `SubmitLong` sent before the latest one
    /// was placed against an older host list ([`Job::asked_at`]).
    executors_epoch: u64,
    /// What [`Client::surplus_returned`], [`Client::unplaced_long`] and
    /// [`Client::placed_locally`] read.
    counters: Arc<Counters>,
    /// Where the central link's first outcome goes ([`Client::central_first`]).
    first_central: Option<Sender<Result<bool, Refused>>>,
    /// [`Client::affinity_wait`]; zero: off.
    affinity_wait: Duration,
    /// Short jobs holding their probes on warm hosts, by when they spread (`Job::spread_at`).
    spreads: BTreeSet<(Instant, u64)>,
}

impl State {
    fn new(cfg: ClientConfig, cmd: Sender<Cmd>, events: Sender<Event>, counters: Arc<Counters>) -> State {
        let secret: Arc<[u8]> = Arc::from(cfg.secret.as_slice());
        let central =
            link::start(CENTRAL, cfg.central.clone(), secret.clone(), cfg.app.clone(), cmd.clone(), Cmd::Central);
        State {
            rng: Rng::new(cfg.seed),
            cfg,
            secret,
            cmd,
            events,
            writers: Writers::default(),
            central,
            central_up: false,
            central_hosts: Vec::new(),
            hosts: BTreeMap::new(),
            by_name: HashMap::new(),
            next_link: 1,
            jobs: HashMap::new(),
            leases: HashMap::new(),
            bitvector: None,
            short_load_sent: None,
            executors_sent: None,
            executors_stale: true,
            executors_epoch: 0,
            counters,
            first_central: None,
            affinity_wait: Duration::ZERO,
            spreads: BTreeSet::new(),
        }
    }

    fn run(mut self, rx: Receiver<Cmd>) {
        let period = Duration::from_millis(self.cfg.ping_ms.max(10));
        let mut next = Instant::now() + period;
        loop {
            let wake = self.spreads.first().map_or(next, |&(t, _)| t.min(next));
            let got = select! {
                recv(rx) -> c => c.ok(),
                recv(after(wake.saturating_duration_since(Instant::now()))) -> _ => None,
            };
            match got {
                Some(Cmd::Stop) => break,
                Some(c) => {
                    self.handle(c);
                    for c in std::iter::from_fn(|| rx.try_recv().ok()).take(63) {
                        if matches!(c, Cmd::Stop) {
                            return self.stop();
                        }
                        self.handle(c);
                    }
                }
                None => {}
            }
            self.spread_due(Instant::now());
            if Instant::now() >= next {
                self.tick(period);
                next = Instant::now() + period;
            }
            self.report_executors();
            self.report_short_load();
            self.writers.flush();
        }
        self.stop();
    }

    fn stop(mut self) {
        self.central.stop();
        for h in self.hosts.values() {
            h.link.stop();
        }
        self.writers.flush();
    }

    fn emit(&self, e: Event) {
        let _ = self.events.send(e);
    }

    fn up_hosts(&self) -> Vec<u64> {
        self.hosts.iter().filter(|(_, h)| h.up).map(|(&i, _)| i).collect()
    }

    fn handle(&mut self, c: Cmd) {
        match c {
            Cmd::AddHost { host, addr } => {
                if self.by_name.contains_key(&host) {
                    return;
                }
                let id = self.next_link;
                self.next_link += 1;
                let link =
                    link::start(id, addr, self.secret.clone(), self.cfg.app.clone(), self.cmd.clone(), Cmd::Node);
                self.by_name.insert(host.clone(), id);
                self.hosts
                    .insert(id, Host { name: host, link, up: false, local_long_ms: 0.0, short_runs: 0, hold_ms: None });
            }
            Cmd::RemoveHost { host } => {
                if let Some(id) = self.by_name.remove(&host) {
                    self.host_down(id);
                    if let Some(h) = self.hosts.remove(&id) {
                        h.link.stop();
                    }
                }
            }
            Cmd::Submit { job, tasks, est_ms, long, cpus, input } => {
                let est = if est_ms.is_finite() && est_ms >= 0.0 { est_ms } else { 0.0 };
                let mut j = Job::new(tasks, est, long, cpus);
                if long {
                    j.input = input;
                }
                self.jobs.insert(job, j);
                if tasks == 0 {
                    return;
                }
                if long {
                    self.place_long(job, tasks);
                } else {
                    self.probe(job);
                }
            }
            Cmd::Remaining { job, tasks } => {
                let Some(j) = self.jobs.get_mut(&job) else { return };
                j.left = tasks;
                for &h in &j.probed {
                    self.writers.send(h, &ToNode::Remaining { job, tasks });
                }
                if tasks == 0 {
                    j.probed.clear();
                    self.unshare_all(job);
                } else if j.long {
                    // More tasks than reservations out (a retry): place the difference.
                    let more = tasks.saturating_sub(j.reserved + j.unplaced);
                    if more > 0 {
                        self.place_long(job, more);
                    }
                } else if j.probed.is_empty() {
                    self.probe(job);
                }
            }
            Cmd::Restrict { job, hosts } => {
                if let Some(j) = self.jobs.get_mut(&job) {
                    j.allowed = hosts.map(|h| h.into_iter().collect());
                }
            }
            Cmd::Finished { job } => {
                self.unshare_all(job);
                if let Some(j) = self.jobs.remove(&job) {
                    for h in j.probed {
                        self.writers.send(h, &ToNode::Remaining { job, tasks: 0 });
                    }
                }
            }
            Cmd::Launched(g) => self.launched(g),
            Cmd::NoTask(g) => self.lease_over(g, true),
            Cmd::ProbeAgain { job, host } => {
                let may = self.jobs.get(&job).is_some_and(|j| j.may_run_on(&host));
                if let (Some(&h), true) = (self.by_name.get(&host), may) {
                    self.probe_host(h, job);
                }
            }
            Cmd::TaskEnd(g) => self.lease_over(g, false),
            Cmd::Node(e) => self.node_event(e),
            Cmd::Central(e) => self.central_event(e),
            Cmd::Hosts(tx) => {
                let views = self
                    .hosts
                    .iter()
                    .map(|(&id, h)| HostView {
                        host: h.name.clone(),
                        up: h.up,
                        leases: self.leases.keys().filter(|(l, _)| *l == id).count() as u32,
                        local_long_ms: h.local_long_ms,
                    })
                    .collect();
                let _ = tx.send((self.central_up, views));
            }
            Cmd::AffinityWait(w) => self.affinity_wait = w,
            Cmd::Stop => {}
        }
    }

    fn launched(&mut self, g: Grant) {
        // The node hears of it only while the lease stands; the job's count drops either way
        // (a task launched under a grant that was voided meanwhile, e.g. its host's link
        // dropped, still launched: counting it as left would probe for a task that is gone).
        if let Some(&h) = self.by_name.get(&g.host) {
            if let Some(l) = self.leases.get_mut(&(h, g.lease)) {
                l.launched_at = Some(Instant::now());
                self.writers.send(h, &ToNode::Launched { lease: g.lease });
            }
        }
        if !g.long {
            if let Some(host) = self.by_name.get(&g.host).and_then(|h| self.hosts.get_mut(h)) {
                host.short_runs += 1;
            }
        }
        let Some(j) = self.jobs.get_mut(&g.job) else { return };
        j.left = j.left.saturating_sub(1);
        j.spent_on.clear();
        if j.left == 0 {
            // The nodes drop the job's probes; more tasks later (a retry) probe anew.
            for p in std::mem::take(&mut j.probed) {
                self.writers.send(p, &ToNode::Remaining { job: g.job, tasks: 0 });
            }
            self.unshare_all(g.job);
        }
    }

    /// Grants of `job` handed to the driver and not launched yet.
    fn unlaunched(&self, job: u64) -> u32 {
        self.leases.values().filter(|l| l.job == job && l.launched_at.is_none()).count() as u32
    }

    fn lease_over(&mut self, g: Grant, no_task: bool) {
        let Some(&h) = self.by_name.get(&g.host) else { return };
        let Some(l) = self.leases.remove(&(h, g.lease)) else { return };
        if no_task {
            self.writers.send(h, &ToNode::NoTask { lease: g.lease });
            // The node drops the job's probe on a short NoTask: it is no longer there.
            if !l.long {
                let local_long = self.jobs.get_mut(&l.job).is_some_and(|j| {
                    j.probed.remove(&h);
                    j.long
                });
                if local_long {
                    // A long job placed locally: the rest of its share here went with the
                    // probe, and the tick places it again (`reprobe`). Kept as reserved, it
                    // was never asked for again: a long task set whose grant Spark could not
                    // use (a failed task not yet queued again) waited for good.
                    self.unshare(l.job, &[h]);
                }
            } else {
                self.placement_spent(l.job, &g.host);
            }
        } else {
            self.writers.send(h, &ToNode::TaskEnd { lease: g.lease });
            if let (false, Some(at), Some(host)) = (l.long, l.launched_at, self.hosts.get_mut(&h)) {
                host.held(at.elapsed().as_secs_f64() * 1000.0);
            }
            if l.once {
                self.probe_after(h, l.job);
            }
        }
        // A local long task (granted under a probe) is over, or was never launched: its
        // estimate left the host's share at the grant and leaves its local work now.
        if let Some(host) = self.hosts.get_mut(&h) {
            host.release_local(l.local_ms);
        }
    }

    /// Keep-alives, and short jobs left without any probe (every host rejected them)
    /// try again from scratch; with [`ClientConfig::retry_rejected`], short jobs also probe
    /// again the hosts that rejected them a `period` or more ago.
    fn tick(&mut self, period: Duration) {
        for id in self.up_hosts() {
            self.writers.send(id, &ToNode::Ping);
        }
        if self.central_up {
            self.writers.send(CENTRAL, &ToCentral::Ping);
        }
        self.retry_unplaced();
        self.place_spent();
        let starved: Vec<u64> = self
            .jobs
            .iter()
            .filter(|(_, j)| if j.long { j.local && j.left > j.reserved } else { j.left > 0 && j.probed.is_empty() })
            .map(|(&id, _)| id)
            .collect();
        for job in starved {
            self.jobs.get_mut(&job).unwrap().rejected.clear();
            self.reprobe(job);
        }
        if self.cfg.retry_rejected {
            self.retry_rejected(period);
        }
    }
}
