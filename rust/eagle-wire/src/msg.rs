//! The messages, one enum per direction of each kind of link (Eagle §3 and the
//! prototype of §5).
//!
//! Identifiers: an application is named by the `app` it gave in the handshake; a
//! *job* is one of its task sets (a Spark TaskSet), numbered by the driver (`u64`,
//! unique within the application). A *lease* is one slot granted by a node, numbered
//! by that node.
//!
//! ## Driver ↔ node (short jobs, §3.2-3.3)
//! ```text
//!  driver                      node
//!    ── Probe{job,tasks,est} ──►      queued (Eagle: or Rejected{bitvector} when the
//!                                     node holds long work, SSS §3.1)
//!    ◄── Grant{lease,job} ────────    a slot freed and SBP+SRPT picked this job
//!    ── Launched{lease} ──────►       the driver runs one task under the lease ...
//!    ── TaskEnd{lease} ───────►       ... and reports its end: the slot frees
//!    ── NoTask{lease} ────────►       or: nothing to launch (late binding), slot frees
//!    ── Remaining{job,tasks} ─►       the job's unlaunched tasks changed (SRPT view)
//!    ── Ping ─────────────────►       keep-alive, at least every lease time / 3
//! ```
//! A granted lease not answered by `Launched`/`NoTask` within the node's lease time
//! is revoked (`Revoked`); a driver not heard from within the lease time, or whose
//! connection drops, loses every probe and lease on that node at once.
//!
//! The other links (each message's doc has the details; docs/guide/cluster-mode.md#protocol):
//! - **Central → node** (long jobs, §3.1-3.2): `Place` queues one long task's reservation;
//!   the node answers `LongDone` when it ends and `PlaceRefused` when the application has no
//!   link there, so the central's least-work-left map and bitvector stay exact.
//! - **Node → node** (Hawk): `Steal` to random peers, answered by `Stolen` with the short
//!   probes queued behind long work.
//! - **Driver ↔ central**: `SubmitLong` → `Placed` or `Unplaced`; the driver reports
//!   `ShortLoad` and `Executors`, the central sends `Hosts` and `ShortOnly`; a node tells a
//!   driver `Unqueued` when a placement for it is refused or handed back.

use serde::{Deserialize, Serialize};

/// Succinct State Sharing (§3.1): bit `i` set ⇔ host `i` of the central's host list
/// holds long work. `stamp` orders copies: a higher stamp is fresher.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Bitvector {
    /// The central's placement count when the copy was made.
    pub stamp: u64,
    /// Bit `i % 64` of word `i / 64` is host `i`.
    pub words: Vec<u64>,
}

impl Bitvector {
    /// True when host `i` holds long work in this copy.
    pub fn bit(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// Sent to a node daemon (by a driver, or by the central scheduler for `Place`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ToNode {
    /// A short probe of `job` (Sticky Batch Probing: it stands for the whole job while
    /// it has unlaunched tasks). `tasks` = unlaunched tasks, `est_ms` = estimated task
    /// duration, `cpus` = the slots (cores) one task holds (its resource profile's task
    /// cpus; left out when 1). A node with fewer slots rejects the probe.
    Probe {
        job: u64,
        tasks: u32,
        est_ms: f64,
        #[serde(default = "one_slot", skip_serializing_if = "is_one_slot")]
        cpus: u32,
    },
    /// The job's unlaunched task count changed; 0 drops its probes here.
    Remaining { job: u64, tasks: u32 },
    /// Central only: a reservation for one long task of `app`'s `job`, with the
    /// central's current bitvector piggybacked (§3.1).
    /// `cpus`: the slots the task holds (left out when 1).
    Place {
        app: String,
        job: u64,
        est_ms: f64,
        bitvector: Bitvector,
        #[serde(default = "one_slot", skip_serializing_if = "is_one_slot")]
        cpus: u32,
    },
    /// The driver launched a task under `lease`.
    Launched { lease: u64 },
    /// The driver has no task for `lease` (late binding): the slot frees at once.
    NoTask { lease: u64 },
    /// The task launched under `lease` ended (any outcome): the slot frees.
    TaskEnd { lease: u64 },
    /// Keep-alive.
    Ping,
    /// Asks for a [`NodeStatus`].
    Status,
    /// Node only (Hawk work stealing): an idle node asks for up to `limit` short probes
    /// queued behind long work here, of the applications in `apps` (connected to it).
    Steal { limit: u32, apps: Vec<String> },
    /// Central only (`--short-partition slots`): long work may hold at most the host's
    /// slots less `slots`; the rest are short work's, and short probes are queued here
    /// while any is kept, whatever long work the host holds. 0 (the default) keeps none.
    ShortSlots { slots: u32 },
    /// Central only: the host has left the general partition (it is short-only now). Its
    /// long reservations not granted yet go back, each answered with `PlaceRefused`, so
    /// the central places them again on the general hosts; granted ones run on.
    DropReservations,
}

/// A short probe moved from a victim node to an idle one (Hawk work stealing).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StolenProbe {
    /// The probing application (it must be connected to the thief).
    pub app: String,
    /// The driver's id of the job.
    pub job: u64,
    /// Unlaunched tasks of the job, as the victim last knew.
    pub tasks: u32,
    pub est_ms: f64,
    /// Slots one task holds.
    #[serde(default = "one_slot", skip_serializing_if = "is_one_slot")]
    pub cpus: u32,
}

fn kept_by_default() -> bool {
    true
}

/// A task's slots when a message leaves `cpus` out (an older peer, or one slot).
pub fn one_slot() -> u32 {
    1
}

/// `cpus` is left out of a message when it is 1, so peers built before it still read it.
pub fn is_one_slot(n: &u32) -> bool {
    *n == 1
}

/// Sent by a node daemon.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum FromNode {
    /// A slot is leased to the driver for one task of `job` (`long`: a central placement).
    /// `kept`: the short probe stays queued for the job's next task (Sticky Batch Probing);
    /// `false` when the grant used it up (hawk and sparrow grant once per probe, and eagle
    /// drops it with the job's last task), so a driver with more tasks probes again. Absent
    /// (an older node): kept.
    Grant {
        lease: u64,
        job: u64,
        long: bool,
        #[serde(default = "kept_by_default")]
        kept: bool,
    },
    /// Eagle SSS: the node holds long work; the probe is not queued. The node's last
    /// copy of the central's bitvector, if it has received one.
    Rejected { job: u64, bitvector: Option<Bitvector> },
    /// The lease is void (not answered in time, or unknown): do not launch under it.
    Revoked { lease: u64, reason: String },
    /// To the central: a long task it placed here is over (or its reservation was dropped).
    /// `est_ms` and `cpus` are the placement's.
    LongDone {
        app: String,
        job: u64,
        est_ms: f64,
        #[serde(default = "one_slot", skip_serializing_if = "is_one_slot")]
        cpus: u32,
    },
    /// To the central: the placement could not be queued (`app` is not connected here,
    /// or the task needs more slots than the host has).
    PlaceRefused {
        app: String,
        job: u64,
        est_ms: f64,
        #[serde(default = "one_slot", skip_serializing_if = "is_one_slot")]
        cpus: u32,
    },
    /// To a driver: `tasks` long placements of its `job` that the central sent here will not
    /// be granted here (refused, or handed back by `DropReservations`). The central places
    /// them again (its `Unplaced` tells the driver so); if it is gone, the driver does.
    Unqueued { job: u64, tasks: u32 },
    /// The answer to `Status`.
    Status(NodeStatus),
    /// To a node that sent `Steal`: the probes it may take (possibly none).
    Stolen { probes: Vec<StolenProbe> },
    /// A request that could not be honoured (the connection stays open).
    Error { what: String },
    /// The answer to `Ping`.
    Pong,
}

/// Queued entries of one application on a node.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueuedByApp {
    pub app: String,
    /// Short probes queued.
    pub probes: u32,
    /// Long reservations (central placements) queued.
    pub reservations: u32,
    /// Slots leased to the application (granted or running).
    pub leased: u32,
}

/// A node's answer to `Status`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeStatus {
    /// `eagle`, `hawk` or `sparrow`.
    pub policy: String,
    /// The host's slots (`--slots`).
    pub slots: u32,
    /// Slots under a lease (granted, or running a task).
    pub leased: u32,
    /// Leases whose task is running.
    pub running: u32,
    /// Long work is queued or leased here (an Eagle node rejects short probes).
    pub holds_long: bool,
    /// Per connected application with anything queued or leased, by name.
    pub apps: Vec<QueuedByApp>,
    /// The last copy of the central's bitvector this node received.
    pub bitvector: Option<Bitvector>,
    /// The slots kept for short work (the central's last `ShortSlots`; 0 when none).
    #[serde(default)]
    pub short_slots: u32,
}

impl NodeStatus {
    /// The status of a node of `slots` slots under `policy` with nothing queued or leased
    /// (what a node answers before its first application comes).
    pub fn idle(policy: &str, slots: u32) -> NodeStatus {
        NodeStatus {
            policy: policy.into(),
            slots,
            leased: 0,
            running: 0,
            holds_long: false,
            apps: Vec::new(),
            bitvector: None,
            short_slots: 0,
        }
    }
}

/// Sent to the central scheduler (by a driver, or by a node registering itself).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ToCentral {
    /// Place `tasks` long tasks of `job`, each estimated `est_ms` and holding `cpus`
    /// slots (left out when 1), with LWL (or LoTES, `eagle-central --placement lotes`).
    /// `hosts`, when given, are the only hosts the job may run on (Spark excluded it from
    /// the others, `spark.excludeOnFailure`): the central places there and nowhere else,
    /// and answers `Unplaced` when none of them is a general host with the application.
    /// It places on the hosts of `avoid` only when it has no other candidate.
    SubmitLong {
        job: u64,
        tasks: u32,
        est_ms: f64,
        #[serde(default = "one_slot", skip_serializing_if = "is_one_slot")]
        cpus: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hosts: Option<Vec<String>>,
        /// Hosts to place on only when no other may take the tasks: the job's grants there
        /// went back unused since its last launch (Spark runs a speculative copy only on
        /// another host than its original's, and a task under delay scheduling only where
        /// its data is). A preference, where `hosts` is a rule.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        avoid: Vec<String>,
        /// Where the job's tasks read their input (a cached block, a file's replica, a
        /// reduce task's map output): hosts, each with how many of the tasks have input
        /// there. The central puts up to that many of the tasks on such a host while each
        /// starts there at most one task estimate later than least work left would start it
        /// elsewhere (`eagle-central`'s `placement`). Empty: no preference (the paper's LWL).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        input: Vec<(String, u32)>,
    },
    /// Node only: announce this node (`name`, reachable at `addr`) to the central, which
    /// then connects to it and adds it to its host list.
    Register { name: String, addr: String },
    /// Keep-alive (answered with `Pong`).
    Ping,
    /// Asks for a [`CentralStatus`].
    Status,
    /// Driver only: the application's short tasks running now and waiting (not yet
    /// launched), sent when either changes. Read by `--short-partition adaptive|slots`.
    ShortLoad { running: u32, waiting: u32 },
    /// Driver only: the hosts where the application has executors and its link to their
    /// node is up, sent when the set changes (and when the central link comes up). The
    /// central places the application's long tasks only on these hosts, so an application
    /// with executors on some hosts (dynamic allocation, a lost executor, `spark.cores.max`
    /// under the hosts' total) gets no placement a node must refuse. Until a driver sends
    /// one, every host is a candidate.
    Executors { hosts: Vec<String> },
}

/// One node as the central sees it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeHealth {
    pub name: String,
    /// The central's link to the node is up.
    pub connected: bool,
    /// In the general partition (long tasks may go there).
    pub general: bool,
    /// Long tasks placed there and not over.
    pub long_tasks: u32,
    /// Their estimated work, the LWL score.
    pub work_ms: f64,
    /// The slots it keeps for short work (`--short-partition slots`; else 0).
    #[serde(default)]
    pub short_slots: u32,
}

/// The central's answer to `Status`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CentralStatus {
    /// In host-list order.
    pub nodes: Vec<NodeHealth>,
    pub bitvector: Bitvector,
    /// The short slots the partition is sized for (`--short-partition adaptive`, `slots`
    /// or `share`, there after its cap; 0 under a fixed partition).
    #[serde(default)]
    pub short_slots: u32,
}

/// Sent by the central scheduler to a driver.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum FromCentral {
    /// The host list; bit `i` of every bitvector and index `i` in `Placed` name `names[i]`.
    Hosts { names: Vec<String> },
    /// The short-only hosts now (indexes into `Hosts`): the central places no long task
    /// there. Sent after `Hosts` and whenever the short partition moves. A long task set
    /// whose input is on such a host cannot run where its input is while the central places
    /// it, so the driver does not hold its tasks back for that locality.
    ShortOnly { hosts: Vec<u32> },
    /// Where the job's tasks went, one host index per task.
    Placed { job: u64, hosts: Vec<u32> },
    /// `tasks` tasks of `job` found no node (none connected, or a node refused them).
    /// `host` is the index of the host whose node refused a task the central had
    /// `Placed` there, so the driver stops counting it as queued there; left out when
    /// the tasks were never placed.
    Unplaced {
        job: u64,
        tasks: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        host: Option<u32>,
    },
    /// The answer to `Status`.
    Status(CentralStatus),
    /// A request that could not be honoured (the connection stays open).
    Error { what: String },
    /// The answer to `Ping`.
    Pong,
}
