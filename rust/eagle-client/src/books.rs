//! The client's books of one host, one job (a task set) and one lease: what
//! [`crate::client`]'s state thread keeps per link, per job and per grant.

use crate::link::Link;
use eagle_wire::ToCentral;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

pub(crate) struct Host {
    pub(crate) name: String,
    pub(crate) link: Link,
    pub(crate) up: bool,
    pub(crate) local_long_ms: f64,
    /// Short tasks of this application launched here since the host's executors came
    /// (application affinity ranks hosts by it: `State::probe`, client/probing.rs).
    pub(crate) short_runs: u64,
    /// How long this application's short tasks hold a slot here, launch to end, in ms: a
    /// moving average (weight [`HOLD_WEIGHT`] for the newest). None until one has ended.
    pub(crate) hold_ms: Option<f64>,
}

/// The newest task's weight in [`Host::hold_ms`].
pub(crate) const HOLD_WEIGHT: f64 = 0.1;

impl Host {
    /// A short task of this application held a slot here for `ms`.
    pub(crate) fn held(&mut self, ms: f64) {
        self.hold_ms = Some(match self.hold_ms {
            Some(h) => h + HOLD_WEIGHT * (ms - h),
            None => ms,
        });
    }

    /// `ms` of local long work placed here will not run here (any more).
    pub(crate) fn release_local(&mut self, ms: f64) {
        self.local_long_ms = (self.local_long_ms - ms).max(0.0);
    }
}

#[derive(Debug)]
pub(crate) struct Job {
    pub(crate) left: u32,
    pub(crate) est: f64,
    pub(crate) long: bool,
    /// Slots one task holds.
    pub(crate) cpus: u32,
    /// Placed locally (central down, or unplaced): its probes carry long work.
    pub(crate) local: bool,
    /// Long jobs: tasks placed (by the central or locally) whose grant has not come.
    pub(crate) reserved: u32,
    /// Local placements: long tasks per host whose grant has not come.
    pub(crate) share: BTreeMap<u64, u32>,
    /// The central's placements (its `Placed`): long tasks per host whose grant has not
    /// come. If the host's link drops they are lost there and are placed again.
    pub(crate) placed: BTreeMap<u64, u32>,
    /// Per host, the node's word on the central's placements (a long grant, or `Unqueued`)
    /// that came before the central's `Placed` for them: the two arrive on different links,
    /// in either order. `Placed` counts these as already off the host's queue.
    pub(crate) early: BTreeMap<u64, u32>,
    /// Hosts holding a probe of the job.
    pub(crate) probed: BTreeSet<u64>,
    /// Application affinity: when the job's first probes, sent to the application's warm
    /// hosts only, are due to spread to the others (`State::probe`, client/probing.rs).
    /// Set once per job: a job never holds its probes back twice.
    pub(crate) spread_at: Option<Instant>,
    /// Hosts that rejected a probe (SSS: they hold long work).
    pub(crate) rejected: BTreeSet<u64>,
    /// When the last of those rejections came (`State::retry_rejected`, client/probing.rs).
    pub(crate) rejected_at: Option<Instant>,
    /// Hosts that granted this short job a slot once, beside long work: a rejection from
    /// them may only mean that the job's own task held the slot (`State::probe_after`, client/probing.rs).
    pub(crate) beside: BTreeSet<u64>,
    /// Long tasks the central could not place yet (`Unplaced` while it is up: e.g. the
    /// driver's links to the nodes were not up yet); sent to it again at the next tick.
    pub(crate) unplaced: u32,
    /// Times the central was asked again; past [`CENTRAL_RETRIES`], local LWL takes them.
    pub(crate) central_tries: u32,
    /// `State::executors_epoch` when the central was last asked to place tasks of this job.
    pub(crate) asked_at: u64,
    /// The hosts Spark lets the job run on, when not all of them (an executor or host
    /// excluded for it on failure, or a resource profile only some executors fit): its
    /// probes and local placements go there only, and the central places its long tasks
    /// over those of them that are general hosts (locally when there are none).
    pub(crate) allowed: Option<BTreeSet<String>>,
    /// The central's placements spent on a grant that went back unused (the driver's "no
    /// task", or the node revoked it unanswered): placed again at the next tick, as far as
    /// the job still has tasks no placement or grant covers.
    pub(crate) spent: u32,
    /// The hosts where such a grant went back since the job's last launch: its placements
    /// avoid them while the central has another host (`SubmitLong.avoid`).
    pub(crate) spent_on: BTreeSet<String>,
    /// Long jobs: hosts holding its tasks' input, with how many tasks read there
    /// (`SubmitLong.input`), sent with every request to place its tasks.
    pub(crate) input: Vec<(String, u32)>,
}

/// How many ticks the central is asked again for tasks it could not place before they
/// are placed locally.
pub(crate) const CENTRAL_RETRIES: u32 = 10;

impl Job {
    /// The central's request to place `tasks` long tasks of this job (`job`), over
    /// the hosts Spark lets the job use when it restricted them, elsewhere than where its
    /// grants went back unused when it can, and near its input.
    pub(crate) fn submit_long(&self, job: u64, tasks: u32) -> ToCentral {
        let hosts = self.allowed.as_ref().map(|a| a.iter().cloned().collect());
        let avoid = self.spent_on.iter().cloned().collect();
        let input = self.input.clone();
        ToCentral::SubmitLong { job, tasks, est_ms: self.est, cpus: self.cpus, hosts, avoid, input }
    }

    /// Whether Spark lets the job run on `host` ([`Job::allowed`]).
    pub(crate) fn may_run_on(&self, host: &str) -> bool {
        self.allowed.as_ref().is_none_or(|a| a.contains(host))
    }

    /// A task set of `left` tasks of about `est` ms each, `cpus` slots per task, nothing
    /// placed or probed yet.
    pub(crate) fn new(left: u32, est: f64, long: bool, cpus: u32) -> Job {
        Job {
            left,
            est,
            long,
            cpus,
            local: false,
            reserved: 0,
            spent: 0,
            spent_on: BTreeSet::new(),
            input: Vec::new(),
            allowed: None,
            share: BTreeMap::new(),
            placed: BTreeMap::new(),
            early: BTreeMap::new(),
            probed: BTreeSet::new(),
            spread_at: None,
            rejected: BTreeSet::new(),
            rejected_at: None,
            beside: BTreeSet::new(),
            unplaced: 0,
            central_tries: 0,
            asked_at: 0,
        }
    }

    /// The local long tasks sent to `host` will not be granted there (it rejected
    /// them, or its link dropped): they are no longer reserved.
    /// Returns how many.
    pub(crate) fn lose_share(&mut self, host: u64) -> u32 {
        let n = self.share.remove(&host).unwrap_or(0);
        self.reserved = self.reserved.saturating_sub(n);
        n
    }

    /// The central placed one task on `host` (its `Placed`): queued there, unless the node
    /// already granted or handed back a placement of the job there before this arrived.
    pub(crate) fn add_placed(&mut self, host: u64) {
        match self.early.get_mut(&host) {
            Some(e) => {
                *e -= 1;
                if *e == 0 {
                    self.early.remove(&host);
                }
            }
            None => *self.placed.entry(host).or_default() += 1,
        }
    }

    /// `n` of the central's placements on `host` are no longer queued there (its node
    /// granted them, or handed them back). While the central is up (`early_possible`),
    /// those its `Placed` has not reported yet are remembered, so that it does not count them
    /// as queued when it comes; once it is gone, no `Placed` will.
    pub(crate) fn unqueue_placed(&mut self, host: u64, n: u32, early_possible: bool) {
        let q = self.placed.get(&host).copied().unwrap_or(0);
        let gone = q.min(n);
        if gone == q {
            self.placed.remove(&host);
        } else {
            self.placed.insert(host, q - gone);
        }
        if n > gone && early_possible {
            *self.early.entry(host).or_default() += n - gone;
        }
    }

    /// The central's placements on `host` will not be granted (its link dropped, and the
    /// node dropped this application's reservations with it): returns how many.
    pub(crate) fn lose_placed(&mut self, host: u64) -> u32 {
        self.early.remove(&host);
        let n = self.placed.remove(&host).unwrap_or(0);
        self.reserved = self.reserved.saturating_sub(n);
        n
    }
}

pub(crate) struct Lease {
    pub(crate) job: u64,
    pub(crate) long: bool,
    /// The host's local long work this lease took over from a local share, in ms (0 for
    /// any other lease): it leaves the host's `local_long_ms` when the lease is over.
    pub(crate) local_ms: f64,
    /// When the driver said it launched a task under it (`Client::launched`); None while
    /// the grant is not used yet.
    pub(crate) launched_at: Option<Instant>,
    /// A short grant its node did not keep a probe for (eagle-adaptive grants a short probe
    /// beside long work only while a slot is free, and once): see `State::probe_after` in client/probing.rs.
    pub(crate) once: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long_job() -> Job {
        Job { reserved: 4, ..Job::new(4, 10.0, true, 1) }
    }

    #[test]
    fn a_node_answer_before_the_centrals_placed_is_not_counted_as_queued() {
        let mut j = long_job();
        // The node granted one and handed one back before `Placed` for three came.
        j.unqueue_placed(7, 1, true);
        j.unqueue_placed(7, 1, true);
        assert!(j.placed.is_empty());
        for _ in 0..3 {
            j.add_placed(7);
        }
        assert_eq!(j.placed.get(&7), Some(&1), "one of the three is still queued there");
        assert!(j.early.is_empty());
        // In the usual order, nothing is remembered.
        j.add_placed(8);
        j.unqueue_placed(8, 1, true);
        assert!(!j.placed.contains_key(&8) && j.early.is_empty());
    }

    #[test]
    fn with_the_central_gone_no_early_answer_is_remembered_and_a_lost_link_forgets_them() {
        let mut j = long_job();
        j.unqueue_placed(7, 2, false);
        assert!(j.early.is_empty(), "no `Placed` will come");
        j.unqueue_placed(7, 1, true);
        j.add_placed(9);
        assert_eq!(j.lose_placed(9), 1);
        assert_eq!(j.lose_placed(7), 0);
        assert!(j.early.is_empty(), "the node forgot the application's work with the link");
        assert_eq!(j.reserved, 3);
    }
}
