//! Which hosts take a long task set's tasks: least work left over the general partition
//! (Eagle §3.2), on hosts of different sizes (LoTES in cluster mode).
//!
//! A host's size is its node's slot count (`eagle-node --slots`, one slot a core), learnt
//! from the node's `Status` once the central's link is up; a task holds `cpus` slots.
//!
//! * **Fit.** A task never goes to a host with fewer slots than it holds (a host whose
//!   size is not known yet counts as one slot).
//! * **LWL.** When every fitting host has the same size and the task holds one slot, the
//!   paper's water-filling over the work left, unchanged (`eagle_core::eagle::lwl`). Otherwise
//!   each task goes to the host with the least slot-milliseconds of work left per slot,
//!   counting the task itself: `(work + est·cpus) / slots`, ties to the lower host.
//! * **Input.** When the driver says where the tasks read their input (`SubmitLong.input`:
//!   a cached block, a file's replica, a reduce task's map output; the adaptive policy
//!   sends it, `policy=paper` does not), a task goes to a host holding input of a task not
//!   yet placed there whenever it ends there, by the estimates, at most one task estimate
//!   later than on the host LWL picks: no task is held more than one task's time for its
//!   data, and Spark's delay scheduling then picks a task reading there under each grant.
//!   Without input, the paper's placement, unchanged.
//! * **LoTES** (`eagle-central --placement lotes`): the hosts are the machines, grouped
//!   into configurations by size, and the live long task sets are the jobs, classed by
//!   their `cpus` (LoTES §4-5, through `eagle_core::hetero::lotes::ExecutorPlacement`, the same
//!   planner the driver uses for executors). A task set then goes only to hosts whose
//!   plan bin holds its class while such a host fits it; when none does, fit alone
//!   decides. A task set is live while tasks placed for it are not over; the planner
//!   re-plans when a host joins, is lost or changes size, and when the class mix drifts.

use crate::error::FlagError;
use crate::ids::HostId;
use eagle_core::eagle::lwl::{self, water_fill};
use eagle_core::hetero::lotes::{ExecutorPlacement, LotesParams};
use eagle_core::types::{JobId, NodeId};
use eagle_core::PlacementError;
use std::collections::{BTreeMap, BTreeSet};

/// How the central places long tasks (`eagle-central --placement`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Placement {
    /// Least work left (Eagle §3.2), capacity-aware.
    Lwl,
    /// LoTES's plan over the host sizes, then least work left among the hosts it allows.
    Lotes,
}

impl Placement {
    pub fn parse(s: &str) -> Result<Placement, FlagError> {
        match s {
            "lwl" => Ok(Placement::Lwl),
            "lotes" => Ok(Placement::Lotes),
            other => Err(FlagError::UnknownPlacement(other.to_string())),
        }
    }
}

/// A candidate host: its id, its work left (slot-ms), its slots, if known, and how many of
/// the job's tasks read their input there.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Candidate {
    pub host: HostId,
    pub work_ms: f64,
    pub slots: Option<u32>,
    pub input: u32,
}

impl Candidate {
    /// Its slots (1 while its size is not known).
    pub fn size(&self) -> u32 {
        self.slots.unwrap_or(1).max(1)
    }
}

/// A long task set with tasks placed and not over (LoTES plans for these).
struct TaskSet {
    id: JobId,
    /// Tasks placed and not over, per host.
    live: BTreeMap<HostId, u32>,
    /// Placed as a big job under `--long-headroom` (see `state`'s spread).
    big: bool,
}

/// The placement state: the live long task sets, and LoTES's planner for them.
pub struct HostPlacement {
    lotes: Option<ExecutorPlacement>,
    task_sets: BTreeMap<(String, u64), TaskSet>,
    next_id: u32,
}

impl HostPlacement {
    pub fn new(placement: Placement, seed: u64) -> Result<HostPlacement, PlacementError> {
        let lotes = match placement {
            Placement::Lwl => None,
            Placement::Lotes => Some(ExecutorPlacement::new(LotesParams::default(), seed)?),
        };
        Ok(HostPlacement { lotes, task_sets: BTreeMap::new(), next_id: 0 })
    }

    /// The host's node reported its size (or reported it again).
    pub fn host_sized(&mut self, host: HostId, slots: u32) {
        if let Some(l) = self.lotes.as_mut() {
            // Amounts are finite and >= 0, so this cannot fail.
            let _ = l.add_executor(NodeId(host), &[slots as f64]);
        }
    }

    /// The host is gone: so are the tasks placed there.
    pub fn host_lost(&mut self, host: HostId) {
        if let Some(l) = self.lotes.as_mut() {
            l.remove_executor(NodeId(host));
        }
        let keys: Vec<(String, u64)> = self.task_sets.keys().cloned().collect();
        for k in keys {
            let n = self.task_sets[&k].live.get(&host).copied().unwrap_or(0);
            for _ in 0..n {
                self.over(host, &k.0, k.1);
            }
        }
    }

    /// Chooses a host for each of `tasks` tasks of `app`'s `job` (each `est_ms` long,
    /// holding `cpus` slots) among `hosts` (the general partition's live hosts), in
    /// placement order; fewer (possibly none) when no host fits.
    pub fn choose(
        &mut self,
        app: &str,
        job: u64,
        tasks: u32,
        est_ms: f64,
        cpus: u32,
        hosts: &[Candidate],
    ) -> Vec<HostId> {
        let fit: Vec<Candidate> = hosts.iter().copied().filter(|c| c.size() >= cpus).collect();
        if fit.is_empty() || tasks == 0 {
            return Vec::new();
        }
        let key = (app.to_string(), job);
        let id = match self.task_sets.get(&key) {
            Some(t) => t.id,
            None => {
                let id = JobId(self.next_id);
                self.next_id = self.next_id.wrapping_add(1);
                self.task_sets.insert(key.clone(), TaskSet { id, live: BTreeMap::new(), big: false });
                id
            }
        };
        let allowed = match self.lotes.as_mut() {
            Some(l) => {
                let live: u32 = self.task_sets[&key].live.values().sum();
                if live == 0 {
                    // LoTES wants a duration > 0 (seconds); a zero estimate weighs little.
                    let _ = l.add_task_set(id, &[cpus as f64], tasks, (est_ms / 1000.0).max(1e-3));
                }
                l.set_pending(id, live + tasks);
                let planned: Vec<Candidate> = fit
                    .iter()
                    .copied()
                    .filter(|c| l.exclude(NodeId(c.host), &[c.size() as f64]).is_ok_and(|ex| !ex.contains(&id)))
                    .collect();
                if planned.is_empty() {
                    fit
                } else {
                    planned
                }
            }
            None => fit,
        };
        let chosen = least_work_left(&allowed, tasks as usize, est_ms, cpus);
        let t = self.task_sets.get_mut(&key).expect("registered above");
        for &h in &chosen {
            *t.live.entry(h).or_default() += 1;
        }
        if t.live.is_empty() {
            self.forget(&key);
        }
        chosen
    }

    /// A task of `app`'s `job` placed on `host` is over (or its reservation was dropped).
    pub fn over(&mut self, host: HostId, app: &str, job: u64) {
        let key = (app.to_string(), job);
        let Some(t) = self.task_sets.get_mut(&key) else { return };
        if let Some(n) = t.live.get_mut(&host) {
            *n -= 1;
            if *n == 0 {
                t.live.remove(&host);
            }
        }
        let live: u32 = t.live.values().sum();
        let id = t.id;
        if live == 0 {
            self.forget(&key);
        } else if let Some(l) = self.lotes.as_mut() {
            l.set_pending(id, live);
        }
    }

    fn forget(&mut self, key: &(String, u64)) {
        if let Some(t) = self.task_sets.remove(key) {
            if let Some(l) = self.lotes.as_mut() {
                l.remove_task_set(t.id);
            }
        }
    }

    /// Live long task sets (LoTES plans for these).
    pub fn live_task_sets(&self) -> usize {
        self.task_sets.len()
    }

    /// The hosts holding tasks of `app`'s `job` placed and not over.
    pub fn hosts_of(&self, app: &str, job: u64) -> Vec<HostId> {
        self.task_sets.get(&(app.to_string(), job)).map_or(Vec::new(), |t| t.live.keys().copied().collect())
    }

    /// Marks `app`'s `job`, while it has tasks placed and not over, as a big job.
    pub fn mark_big(&mut self, app: &str, job: u64) {
        if let Some(t) = self.task_sets.get_mut(&(app.to_string(), job)) {
            t.big = true;
        }
    }

    /// The hosts holding tasks, placed and not over, of a job marked big.
    pub fn big_hosts(&self) -> BTreeSet<HostId> {
        self.task_sets.values().filter(|t| t.big).flat_map(|t| t.live.keys().copied()).collect()
    }

    /// Whether `app` has long tasks placed and not over.
    pub fn has_live(&self, app: &str) -> bool {
        let app = app.to_string();
        self.task_sets.range((app.clone(), 0)..=(app, u64::MAX)).next().is_some()
    }

    /// The LoTES bin of `host` (tasks per class), under `--placement lotes` once planned.
    pub fn bin_of(&mut self, host: HostId) -> Option<Vec<u32>> {
        self.lotes.as_mut()?.bin_of(NodeId(host))
    }
}

/// Least work left over `hosts`: the paper's water-filling when they are all of one size,
/// a task holds one slot and no host holds the job's input; else per task the least
/// `(work + est·cpus) / slots`, the time the task would end there, or a host holding input
/// of a task not placed there yet when the task ends there at most `est` later.
fn least_work_left(hosts: &[Candidate], tasks: usize, est_ms: f64, cpus: u32) -> Vec<HostId> {
    let uniform = hosts.windows(2).all(|w| w[0].size() == w[1].size());
    if uniform && cpus == 1 && hosts.iter().all(|c| c.input == 0) {
        let mut chosen = Vec::with_capacity(tasks);
        water_fill(hosts.iter().map(|c| (c.work_ms, NodeId(c.host))), tasks, est_ms, &mut chosen);
        return chosen.into_iter().map(|n| n.0).collect();
    }
    // Ties go to the lower host.
    let mut by_host = hosts.to_vec();
    by_host.sort_by_key(|c| c.host);
    let sized: Vec<lwl::Host> =
        by_host.iter().map(|c| lwl::Host { work_ms: c.work_ms, slots: c.size(), input: c.input }).collect();
    lwl::near_input(&sized, tasks, est_ms, cpus).into_iter().map(|i| by_host[i].host).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(host: HostId, work_ms: f64, slots: u32) -> Candidate {
        Candidate { host, work_ms, slots: Some(slots), input: 0 }
    }

    fn near(host: HostId, work_ms: f64, slots: u32, input: u32) -> Candidate {
        Candidate { input, ..c(host, work_ms, slots) }
    }

    #[test]
    fn one_size_and_one_slot_is_the_papers_water_filling() {
        let hosts = [c(1, 0.0, 2), c(2, 0.0, 2)];
        assert_eq!(least_work_left(&hosts, 3, 100.0, 1), vec![1, 2, 2], "as eagle_core::eagle::lwl::water_fill");
    }

    #[test]
    fn a_task_never_goes_where_it_does_not_fit() {
        let mut p = HostPlacement::new(Placement::Lwl, 1).unwrap();
        let hosts = [c(0, 0.0, 1), c(1, 1e9, 4), c(2, 0.0, 2)];
        assert_eq!(p.choose("a", 1, 3, 10.0, 4, &hosts), vec![1, 1, 1], "only the 4-slot host holds a 4-cpu task");
        assert!(p.choose("a", 2, 2, 10.0, 8, &hosts).is_empty(), "wider than every host: unplaced");
        let unknown = [Candidate { host: 5, work_ms: 0.0, slots: None, input: 0 }];
        assert!(p.choose("a", 3, 1, 10.0, 2, &unknown).is_empty(), "a host of unknown size counts as one slot");
        assert_eq!(p.choose("a", 4, 1, 10.0, 1, &unknown), vec![5]);
    }

    #[test]
    fn a_task_goes_to_its_input_while_it_ends_there_at_most_one_task_later() {
        // Three idle hosts of 2 slots; all 6 tasks (1 s each) read input on host 0. LWL
        // spreads them 2 : 2 : 2 (each ends at 1 s). Near their input, a task may end one
        // task later (2 s): host 0 takes 4 (two waves), hosts 1 and 2 one each.
        let hosts = [near(0, 0.0, 2, 6), c(1, 0.0, 2), c(2, 0.0, 2)];
        let mut got = least_work_left(&hosts, 6, 1000.0, 1);
        got.sort();
        assert_eq!(got, vec![0, 0, 0, 0, 1, 2]);
        let lwl = least_work_left(&[c(0, 0.0, 2), c(1, 0.0, 2), c(2, 0.0, 2)], 6, 1000.0, 1);
        assert_eq!(lwl.iter().filter(|&&h| h == 0).count(), 2, "without input, LWL: {lwl:?}");
        // Only 2 tasks read input there: the other 4 go by least work left.
        let mut got = least_work_left(&[near(0, 0.0, 2, 2), c(1, 0.0, 2), c(2, 0.0, 2)], 6, 1000.0, 1);
        got.sort();
        assert_eq!(got, vec![0, 0, 1, 1, 2, 2]);
        // The input's host is two waves behind: it ends a task there 2 s after host 1, so
        // nothing goes there.
        let busy = [near(0, 4000.0, 2, 6), c(1, 0.0, 2)];
        assert_eq!(least_work_left(&busy, 2, 1000.0, 1), vec![1, 1]);
        // One wave behind: within the bound, the first task goes to its input.
        let one = [near(0, 2000.0, 2, 6), c(1, 0.0, 2)];
        assert_eq!(least_work_left(&one, 1, 1000.0, 1), vec![0]);
        // Input on two hosts: each takes the tasks reading there, as far as the bound allows.
        let mut got = least_work_left(&[near(0, 0.0, 2, 2), near(1, 0.0, 2, 2), c(2, 0.0, 2)], 4, 1000.0, 1);
        got.sort();
        assert_eq!(got, vec![0, 0, 1, 1]);
    }

    #[test]
    fn input_on_a_host_the_task_does_not_fit_is_ignored() {
        let mut p = HostPlacement::new(Placement::Lwl, 1).unwrap();
        let hosts = [near(0, 0.0, 1, 3), c(1, 0.0, 4)];
        assert_eq!(p.choose("a", 1, 3, 10.0, 2, &hosts), vec![1, 1, 1]);
    }

    #[test]
    fn bigger_hosts_take_more_work_per_task() {
        // Hosts of 4 and 1 slots, no work: 5 one-slot tasks of 10 ms go 4 : 1.
        let hosts = [c(0, 0.0, 1), c(1, 0.0, 4)];
        let mut got = least_work_left(&hosts, 5, 10.0, 1);
        got.sort();
        assert_eq!(got, vec![0, 1, 1, 1, 1]);
    }

    #[test]
    fn lotes_keeps_each_size_for_the_class_its_plan_gives_it() {
        let mut p = HostPlacement::new(Placement::Lotes, 7).unwrap();
        p.host_sized(0, 4);
        p.host_sized(1, 1);
        let hosts = [c(0, 0.0, 4), c(1, 0.0, 1)];
        // A wide class (4 cpus) and a narrow one (1 cpu), both live: the plan fills the
        // 4-slot host with the wide class, so narrow tasks keep off it while it is live.
        assert_eq!(p.choose("batch", 1, 2, 60_000.0, 4, &hosts), vec![0, 0]);
        let narrow = p.choose("other", 1, 6, 60_000.0, 1, &hosts);
        assert_eq!(narrow, vec![1; 6], "narrow tasks stay on the 1-slot host while the wide set is live");
        assert!(p.bin_of(0).is_some_and(|b| b.iter().sum::<u32>() == 1), "the 4-slot host's bin is one wide task");
        // Without LoTES the same narrow tasks go mostly to the big, idle host.
        let mut lwl = HostPlacement::new(Placement::Lwl, 7).unwrap();
        assert!(lwl.choose("other", 1, 6, 60_000.0, 1, &hosts).contains(&0));
        // The wide set ends: LoTES re-plans and lets the narrow class use the big host.
        p.over(0, "batch", 1);
        p.over(0, "batch", 1);
        let later = p.choose("other", 2, 4, 60_000.0, 1, &[c(0, 0.0, 4), c(1, 360_000.0, 1)]);
        assert!(later.contains(&0), "with no wide set live the big host takes narrow work: {later:?}");
        assert_eq!(p.live_task_sets(), 2, "the two narrow sets are live, the wide one is forgotten");
    }

    #[test]
    fn a_lost_host_ends_its_tasks() {
        for placement in [Placement::Lotes, Placement::Lwl] {
            let mut p = HostPlacement::new(placement, 7).unwrap();
            p.host_sized(0, 2);
            let got = p.choose("a", 1, 2, 10.0, 1, &[c(0, 0.0, 2)]);
            assert_eq!(got, vec![0, 0]);
            assert_eq!(p.live_task_sets(), 1);
            assert!(p.has_live("a") && !p.has_live("b") && !p.has_live(""));
            p.host_lost(0);
            assert_eq!(p.live_task_sets(), 0);
            assert!(!p.has_live("a"));
        }
    }

    #[test]
    fn an_application_has_live_long_work_until_its_last_task_is_over() {
        let mut p = HostPlacement::new(Placement::Lwl, 1).unwrap();
        let hosts = [c(0, 0.0, 2), c(1, 0.0, 2)];
        assert_eq!(p.choose("ab", 1, 2, 10.0, 1, &hosts).len(), 2);
        assert_eq!(p.choose("a", 7, 1, 10.0, 1, &hosts), vec![0]);
        assert!(p.choose("a", 8, 1, 10.0, 9, &hosts).is_empty(), "nothing placed, nothing live");
        assert_eq!(p.live_task_sets(), 2);
        p.over(0, "a", 7);
        assert!(!p.has_live("a"), "another application's name is not a prefix match");
        assert!(p.has_live("ab"));
        p.over(0, "ab", 1);
        p.over(1, "ab", 1);
        assert!(!p.has_live("ab"));
        assert_eq!(p.live_task_sets(), 0);
    }

    #[test]
    fn placement_names() {
        assert_eq!(Placement::parse("lotes"), Ok(Placement::Lotes));
        assert_eq!(Placement::parse("lwl"), Ok(Placement::Lwl));
        assert!(Placement::parse("tetris").unwrap_err().to_string().contains("lwl or lotes"));
    }
}
