//! LoTES on a live Spark cluster: executors are the machines, task sets the jobs
//! (LoTES §4, adapted to an offer-driven host).
//!
//! Spark does not hand the scheduler one arriving task at a time; it offers each
//! executor's free resources and asks which task sets may launch there. So the
//! dispatcher of §4.3 becomes a filter on offers, and Eagle's own order (short/long,
//! SRPT) picks among the task sets the filter lets through:
//!
//! ```text
//!  executors (cores, memory, custom)  ──group by capacity──► configurations  (§2)
//!  task sets (profile demand, tasks, estimate) ──k-means──► classes          (§5.1)
//!        │
//!        ▼  stages 1–2 (fluid LP, bins, machine-assignment LP), see `Plan`   (§4.1–4.2)
//!  every executor emulates one bin: N_ik tasks of class k
//!        │
//!        ▼  an offer of executor m with free resources F              (§4.3, adapted)
//!  excluded: every task set whose demand does not fit F (never placed where it
//!            does not fit), and every task set whose class is not in m's bin
//!            while a waiting task set of a class in m's bin could run on m
//! ```
//!
//! The second rule is §4.3.2's "classes with Δ_jk = 0 are left waiting": an executor
//! keeps its resources for the tasks its bin plans. A class that no executor's bin
//! holds (the rounding gave it no machine) counts as planned everywhere, as the
//! dispatcher sends a class no configuration serves to any machine. Unlike the paper
//! the rule is lifted when no planned task waits (Spark offers are not arrivals; holding an executor idle
//! with nothing planned for it would only add wait). The bin's count N_ik is not
//! used as a cap: Eagle's order, not the score `v`, picks among allowed task sets.
//!
//! **Re-planning** (lazy, at the next offer): when an executor joins or is lost,
//! when a task set of a profile no live task set had arrives, when the last task
//! set of a profile ends, or when the class mix of the live task sets' tasks drifts
//! from the plan's α by more than [`LotesParams::drift`] (total variation).
//!
//! Amounts are the host's units (Spark: cores, MiB, custom resource amounts) in an
//! order the host fixes; a shorter vector means zero of the missing resources.

use super::classes::{Class, Classes, Sample};
use super::{LotesParams, Plan};
use crate::error::{AmountOf, PlacementError};
use crate::hetero::resources::Resources;
use crate::hetero::MachineConfig;
use crate::rng::Rng;
use crate::types::{JobId, NodeId};
use std::collections::BTreeMap;

/// Samples one task set contributes to k-means at most (its weight beyond that is
/// not needed to find the centroids; the class mix uses the full counts).
const SAMPLES_PER_TASK_SET: u32 = 64;

/// A live task set: its per-task demand, tasks still waiting, mean task duration.
#[derive(Clone, Debug)]
struct TaskSet {
    demand: Vec<f64>,
    pending: u32,
    duration: f64,
}

/// The plan in force and how executors map onto it.
struct Installed {
    plan: Plan,
    /// Per executor: (configuration, bin).
    machine: BTreeMap<NodeId, (usize, u32)>,
    /// Distinct demands the plan was built for (a new one re-plans).
    profiles: Vec<Vec<f64>>,
}

/// LoTES placement over Spark executors.
pub struct ExecutorPlacement {
    params: LotesParams,
    rng: Rng,
    executors: BTreeMap<NodeId, Vec<f64>>,
    task_sets: BTreeMap<JobId, TaskSet>,
    installed: Option<Installed>,
    dirty: bool,
    replans: u32,
    /// Why the last planning attempt failed (the filter then only checks fit).
    last_error: Option<PlacementError>,
}

fn check(of: AmountOf, amounts: &[f64]) -> Result<(), PlacementError> {
    match amounts.iter().position(|v| !v.is_finite() || *v < 0.0) {
        Some(i) => Err(PlacementError::BadAmount { of, resource: i, value: amounts[i] }),
        None => Ok(()),
    }
}

fn padded(v: &[f64], dims: usize) -> Resources {
    let mut a = v.to_vec();
    a.resize(dims.max(v.len()), 0.0);
    Resources::new(a)
}

impl ExecutorPlacement {
    pub fn new(params: LotesParams, seed: u64) -> Result<ExecutorPlacement, PlacementError> {
        if params.classes == 0 {
            return Err(PlacementError::NoClasses);
        }
        if !params.drift.is_finite() || params.drift < 0.0 {
            return Err(PlacementError::BadDrift(params.drift));
        }
        Ok(ExecutorPlacement {
            params,
            rng: Rng::new(seed),
            executors: BTreeMap::new(),
            task_sets: BTreeMap::new(),
            installed: None,
            dirty: false,
            replans: 0,
            last_error: None,
        })
    }

    /// An executor joins with `capacity` (its total of each resource).
    pub fn add_executor(&mut self, node: NodeId, capacity: &[f64]) -> Result<(), PlacementError> {
        check(AmountOf::Executor(node), capacity)?;
        self.executors.insert(node, capacity.to_vec());
        self.dirty = true;
        Ok(())
    }

    /// The executor is gone (lost or removed); unknown nodes are ignored.
    pub fn remove_executor(&mut self, node: NodeId) {
        if self.executors.remove(&node).is_some() {
            self.dirty = true;
        }
    }

    /// A task set arrives: `demand` per task, `tasks` in all, `duration` its mean task
    /// duration estimate (seconds, > 0).
    pub fn add_task_set(
        &mut self,
        job: JobId,
        demand: &[f64],
        tasks: u32,
        duration: f64,
    ) -> Result<(), PlacementError> {
        check(AmountOf::TaskSet(job), demand)?;
        if !duration.is_finite() || duration <= 0.0 {
            return Err(PlacementError::BadTaskSetDuration { job, duration });
        }
        let ts = TaskSet { demand: demand.to_vec(), pending: tasks, duration };
        self.task_sets.insert(job, ts);
        if !self.installed.as_ref().is_some_and(|i| i.profiles.iter().any(|p| p == demand)) {
            self.dirty = true;
        }
        Ok(())
    }

    /// Spark's count of the task set's tasks waiting to launch.
    pub fn set_pending(&mut self, job: JobId, pending: u32) {
        if let Some(t) = self.task_sets.get_mut(&job) {
            t.pending = pending;
        }
    }

    /// The task set is gone; the last of its profile re-plans.
    pub fn remove_task_set(&mut self, job: JobId) {
        if let Some(t) = self.task_sets.remove(&job) {
            if !self.task_sets.values().any(|o| o.demand == t.demand) {
                self.dirty = true;
            }
        }
    }

    /// Plans made so far (the first one counts).
    pub fn replans(&self) -> u32 {
        self.replans
    }

    /// Why the last plan could not be built, if it could not.
    pub fn last_error(&self) -> Option<&PlacementError> {
        self.last_error.as_ref()
    }

    /// The plan in force (after any pending re-plan).
    pub fn plan(&mut self) -> Option<&Plan> {
        self.refresh();
        self.installed.as_ref().map(|i| &i.plan)
    }

    /// The bin executor `node` emulates: tasks per class.
    pub fn bin_of(&mut self, node: NodeId) -> Option<Vec<u32>> {
        self.refresh();
        let i = self.installed.as_ref()?;
        let &(j, b) = i.machine.get(&node)?;
        Some(i.plan.bins[j][b as usize].clone())
    }

    fn dims(&self) -> usize {
        let e = self.executors.values().map(|v| v.len());
        let t = self.task_sets.values().map(|t| t.demand.len());
        e.chain(t).max().unwrap_or(0)
    }

    /// Re-plans when something changed since the last plan, or the mix drifted.
    fn refresh(&mut self) {
        if !self.dirty && !self.drifted() {
            return;
        }
        self.dirty = false;
        self.replans += 1;
        match self.build() {
            Ok(i) => {
                self.installed = i;
                self.last_error = None;
            }
            Err(e) => {
                self.installed = None;
                self.last_error = Some(e);
            }
        }
    }

    /// Total-variation distance between the live tasks' class mix and the plan's α.
    fn drifted(&self) -> bool {
        let Some(i) = &self.installed else { return false };
        let cls = &i.plan.classes;
        let dims = self.dims();
        let mut counts = vec![0.0; cls.len()];
        for t in self.task_sets.values() {
            counts[cls.classify(&padded(&t.demand, dims))] += t.pending as f64;
        }
        let n: f64 = counts.iter().sum();
        if n <= 0.0 {
            return false;
        }
        let tv = 0.5 * counts.iter().zip(&cls.classes).map(|(c, k)| (c / n - k.share).abs()).sum::<f64>();
        tv > self.params.drift
    }

    /// Stages 1–2 over the current executors and task sets (None: nothing to plan).
    fn build(&mut self) -> Result<Option<Installed>, PlacementError> {
        if self.executors.is_empty() || self.task_sets.is_empty() {
            return Ok(None);
        }
        let dims = self.dims();
        // Configurations: executors of equal capacity, in order of their lowest node id.
        let mut configs: Vec<MachineConfig> = Vec::new();
        let mut members: Vec<Vec<NodeId>> = Vec::new();
        for (&node, cap) in &self.executors {
            let cap = padded(cap, dims);
            match configs.iter().position(|c| c.capacity == cap) {
                Some(j) => {
                    configs[j].count += 1;
                    members[j].push(node);
                }
                None => {
                    configs.push(MachineConfig { count: 1, capacity: cap });
                    members.push(vec![node]);
                }
            }
        }
        let scale: Vec<f64> =
            (0..dims).map(|l| configs.iter().map(|c| c.capacity.get(l)).fold(0.0, f64::max)).collect();
        let mut samples = Vec::new();
        // Per distinct demand: (demand, samples, summed duration).
        let mut profiles: Vec<(Vec<f64>, usize, f64)> = Vec::new();
        for t in self.task_sets.values() {
            let d = padded(&t.demand, dims);
            if !configs.iter().any(|c| d.fits_in(&c.capacity)) {
                continue; // fits no executor: the fit rule keeps it off every offer
            }
            let weight = t.pending.clamp(1, SAMPLES_PER_TASK_SET);
            for _ in 0..weight {
                samples.push(Sample { demand: d.clone(), duration: t.duration });
            }
            match profiles.iter_mut().find(|p| p.0 == t.demand) {
                Some(p) => {
                    p.1 += weight as usize;
                    p.2 += t.duration * weight as f64;
                }
                None => profiles.push((t.demand.clone(), weight as usize, t.duration * weight as f64)),
            }
        }
        if samples.is_empty() {
            return Ok(None);
        }
        let classes = Classes::fit(&samples, self.params.classes, &scale, &mut self.rng)?;
        // A k-means centroid may fit no executor even though each member fits one (the
        // allocation LP then has λ* = 0): fall back to one class per distinct demand.
        let plan = Plan::build(&configs, classes).or_else(|_| {
            let n = samples.len() as f64;
            let given = profiles
                .iter()
                .map(|(d, w, dur)| Class {
                    demand: padded(d, dims),
                    share: *w as f64 / n,
                    mean_duration: dur / *w as f64,
                })
                .collect();
            Plan::build(&configs, Classes::given(given, &scale))
        })?;
        let profiles = profiles.into_iter().map(|p| p.0).collect();
        let mut machine = BTreeMap::new();
        for (j, nodes) in members.iter().enumerate() {
            for (node, bin) in nodes.iter().zip(plan.machine_bins(j)) {
                machine.insert(*node, (j, bin));
            }
        }
        Ok(Some(Installed { plan, machine, profiles }))
    }

    /// The task sets that may not launch on executor `node` in this offer, whose free
    /// resources are `free` (see the module doc), in job order.
    pub fn exclude(&mut self, node: NodeId, free: &[f64]) -> Result<Vec<JobId>, PlacementError> {
        check(AmountOf::Offer(node), free)?;
        self.refresh();
        let dims = self.dims();
        let free = padded(free, dims);
        let Some(cap) = self.executors.get(&node) else {
            // Not described: only the fit rule applies.
            return Ok(self
                .task_sets
                .iter()
                .filter(|(_, t)| !padded(&t.demand, dims).fits_in(&free))
                .map(|(&j, _)| j)
                .collect());
        };
        let cap = padded(cap, dims);
        // (classes, this executor's bin, classes some executor's bin holds)
        let bin = self.installed.as_ref().and_then(|i| {
            let &(j, b) = i.machine.get(&node)?;
            let k = i.plan.classes.len();
            let planned: Vec<bool> =
                (0..k).map(|c| i.machine.values().any(|&(mj, mb)| i.plan.bins[mj][mb as usize][c] > 0)).collect();
            Some((&i.plan.classes, &i.plan.bins[j][b as usize], planned))
        });
        let mut out = Vec::new();
        let mut off_plan = Vec::new();
        let mut planned_waiting = false;
        for (&job, t) in &self.task_sets {
            let d = padded(&t.demand, dims);
            // A class no executor's bin holds may go wherever it fits (as the dispatcher
            // sends a class no configuration serves to any machine).
            let in_bin = bin.as_ref().is_none_or(|(classes, bin, planned)| {
                let k = classes.classify(&d);
                bin[k] > 0 || !planned[k]
            });
            // A planned task set that fits the executor, even if not its free resources
            // now, holds the executor against off-plan ones.
            planned_waiting |= in_bin && t.pending > 0 && d.fits_in(&cap);
            if !d.fits_in(&free) {
                out.push(job);
            } else if !in_bin {
                off_plan.push(job);
            }
        }
        if planned_waiting {
            out.extend(off_plan);
            out.sort();
        }
        Ok(out)
    }
}

#[cfg(test)]
#[path = "executors_tests.rs"]
mod tests;
