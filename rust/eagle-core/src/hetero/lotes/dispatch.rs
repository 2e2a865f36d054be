//! Stage 3: the online dispatcher (LoTES §4.3), and re-planning.
//!
//! **Arrival** (§4.3.1) of a task of class `k` (its nearest centroid):
//! 1. roulette wheel: configuration `j` with probability ρ_jk;
//! 2. among `j`'s machines where the task fits now, the one with the highest score
//!    `v = N_ik − κ_mk` (its bin's class-`k` count minus the class-`k` tasks it
//!    runs; ties: the lowest machine index);
//! 3. if none fits in `j`, every other machine, scored the same way;
//! 4. otherwise the task joins the queue of its class (|K| FIFO queues).
//!
//! **Completion** on machine `m` of configuration `j` (§4.3.2): the classes with
//! Δ_jk > 0 are ranked by `v`; the first class's queue is scanned in arrival order
//! and the first task that fits starts (`v` drops by one), and so on while any such
//! class has a task that fits. Classes with Δ_jk = 0 are left waiting even when they
//! would fit: their resources are kept for the tasks the plan packs there.
//!
//! **Re-planning**: every `window` arrivals the class mix of those arrivals is
//! compared with the plan's α; when the total-variation distance exceeds `drift`,
//! the classes are re-fitted on the window and stages 1–2 are solved again. Adding
//! machines ([`Lotes::add_machines`]) re-plans at once. Running and queued tasks are
//! re-classified; nothing is moved or preempted.

use super::classes::{Classes, Sample};
use super::Plan;
use crate::error::PlacementError;
use crate::hetero::{MachineConfig, Placer, Pool, Request, Start};
use crate::rng::Rng;
use crate::types::Time;
use std::collections::{HashMap, VecDeque};

/// LoTES knobs.
#[derive(Clone, Debug, PartialEq)]
pub struct LotesParams {
    /// Classes k-means looks for (the paper: 4).
    pub classes: usize,
    /// Arrivals per class-mix check; 0 never re-plans on the class mix.
    pub window: usize,
    /// Total-variation distance between the window's class mix and the plan's
    /// that triggers a re-plan.
    pub drift: f64,
}

impl Default for LotesParams {
    fn default() -> Self {
        LotesParams { classes: 4, window: 20_000, drift: 0.1 }
    }
}

/// The LoTES placer.
pub struct Lotes {
    configs: Vec<MachineConfig>,
    pool: Pool,
    params: LotesParams,
    plan: Plan,
    /// Per machine: the bin it emulates (index into `plan.bins[config]`).
    machine_bin: Vec<u32>,
    /// Per machine, per class: κ_mk.
    kappa: Vec<Vec<u32>>,
    /// Class of each running task.
    class_of: HashMap<u64, usize>,
    /// Per class: (arrival sequence, task).
    queues: Vec<VecDeque<(u64, Request)>>,
    queued: usize,
    seq: u64,
    rng: Rng,
    /// The last `window` arrivals since the last check.
    recent: Vec<Sample>,
    replans: u32,
}

impl Lotes {
    /// Fits the classes on `training` (the paper: the first day's jobs), then plans.
    pub fn new(
        configs: &[MachineConfig],
        training: &[Sample],
        params: LotesParams,
        seed: u64,
    ) -> Result<Lotes, PlacementError> {
        let pool = Pool::new(configs)?;
        let mut rng = Rng::new(seed);
        let classes = Classes::fit(training, params.classes, &max_capacity(configs), &mut rng)?;
        Lotes::with_classes(configs, classes, params, rng, pool)
    }

    /// Plans with classes given directly.
    pub fn with_given_classes(
        configs: &[MachineConfig],
        classes: Classes,
        params: LotesParams,
        seed: u64,
    ) -> Result<Lotes, PlacementError> {
        let pool = Pool::new(configs)?;
        Lotes::with_classes(configs, classes, params, Rng::new(seed), pool)
    }

    fn with_classes(
        configs: &[MachineConfig],
        classes: Classes,
        params: LotesParams,
        rng: Rng,
        pool: Pool,
    ) -> Result<Lotes, PlacementError> {
        let plan = Plan::build(configs, classes)?;
        let k = plan.classes.len();
        let mut l = Lotes {
            configs: configs.to_vec(),
            kappa: vec![vec![0; k]; pool.len()],
            pool,
            params,
            plan,
            machine_bin: Vec::new(),
            class_of: HashMap::new(),
            queues: vec![VecDeque::new(); k],
            queued: 0,
            seq: 0,
            rng,
            recent: Vec::new(),
            replans: 0,
        };
        l.machine_bin = l.machine_bins();
        Ok(l)
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }
    /// Re-plans done since construction.
    pub fn replans(&self) -> u32 {
        self.replans
    }
    /// The bin machine `m` emulates.
    pub fn bin_of(&self, m: u32) -> &[u32] {
        let j = self.pool.machine(m).config;
        &self.plan.bins[j][self.machine_bin[m as usize] as usize]
    }

    fn machine_bins(&self) -> Vec<u32> {
        (0..self.configs.len()).flat_map(|j| self.plan.machine_bins(j)).collect()
    }

    /// New machines join (a new configuration); stages 1–2 are solved again.
    pub fn add_machines(&mut self, config: MachineConfig) -> Result<(), PlacementError> {
        let mut configs = self.configs.clone();
        configs.push(config.clone());
        let plan = Plan::build(&configs, self.plan.classes.clone())?;
        self.pool.add_config(&config)?;
        self.configs = configs;
        self.install(plan);
        Ok(())
    }

    /// Adopts `plan`: machine bins, and the class of every running and queued task.
    fn install(&mut self, plan: Plan) {
        self.plan = plan;
        self.machine_bin = self.machine_bins();
        let k = self.plan.classes.len();
        self.kappa = vec![vec![0; k]; self.pool.len()];
        self.class_of.clear();
        for (key, m, d) in self.pool.running_tasks() {
            let c = self.plan.classes.classify(d);
            self.kappa[m as usize][c] += 1;
            self.class_of.insert(key, c);
        }
        let mut waiting: Vec<(u64, Request)> = self.queues.iter_mut().flat_map(|q| q.drain(..)).collect();
        waiting.sort_by_key(|(s, _)| *s);
        self.queues = vec![VecDeque::new(); k];
        for (s, r) in waiting {
            let c = self.plan.classes.classify(&r.demand);
            self.queues[c].push_back((s, r));
        }
        self.replans += 1;
    }

    /// The class-mix check (see the module doc).
    fn watch_mix(&mut self, r: &Request) {
        if self.params.window == 0 {
            return;
        }
        self.recent.push(Sample { demand: r.demand.clone(), duration: r.duration });
        if self.recent.len() < self.params.window {
            return;
        }
        let k = self.plan.classes.len();
        let mut counts = vec![0usize; k];
        for s in &self.recent {
            counts[self.plan.classes.classify(&s.demand)] += 1;
        }
        let n = self.recent.len() as f64;
        let tv = 0.5
            * counts
                .iter()
                .zip(&self.plan.classes.classes)
                .map(|(&c, cl)| (c as f64 / n - cl.share).abs())
                .sum::<f64>();
        if tv > self.params.drift {
            let fitted = Classes::fit(&self.recent, self.params.classes, &max_capacity(&self.configs), &mut self.rng);
            if let Ok(plan) = fitted.and_then(|c| Plan::build(&self.configs, c)) {
                self.install(plan);
            }
        }
        self.recent.clear();
    }

    /// Roulette wheel over configurations for class `k` (None: no configuration serves it).
    fn roulette(&mut self, k: usize) -> Option<usize> {
        let shares = &self.plan.share[k];
        if shares.iter().sum::<f64>() <= 0.0 {
            return None;
        }
        let u = self.rng.unit();
        let mut acc = 0.0;
        for (j, &s) in shares.iter().enumerate() {
            acc += s;
            if u < acc {
                return Some(j);
            }
        }
        shares.iter().rposition(|&s| s > 0.0)
    }

    /// `v = N_ik − κ_mk`.
    fn score(&self, m: u32, k: usize) -> i64 {
        self.bin_of(m)[k] as i64 - self.kappa[m as usize][k] as i64
    }

    /// The best-scoring machine where `r` fits now, among those with `in_j(config)`.
    fn best_machine(&self, r: &Request, k: usize, in_j: impl Fn(usize) -> bool) -> Option<u32> {
        let mut best: Option<(i64, u32)> = None;
        for (m, mach) in self.pool.machines().iter().enumerate() {
            if in_j(mach.config) && r.demand.fits_in(&mach.free) {
                let v = self.score(m as u32, k);
                if best.is_none_or(|(b, _)| v > b) {
                    best = Some((v, m as u32));
                }
            }
        }
        best.map(|(_, m)| m)
    }

    fn start(&mut self, m: u32, k: usize, r: &Request, out: &mut Vec<Start>) {
        self.pool.take(m, r, out);
        self.kappa[m as usize][k] += 1;
        self.class_of.insert(r.key, k);
    }

    /// Tasks waiting in class `k`'s queue.
    pub fn queue_len(&self, k: usize) -> usize {
        self.queues[k].len()
    }
}

/// Per resource, the largest capacity of any configuration (k-means's scale).
fn max_capacity(configs: &[MachineConfig]) -> Vec<f64> {
    let dims = configs.first().map_or(0, |c| c.capacity.dims());
    (0..dims).map(|l| configs.iter().map(|c| c.capacity.get(l)).fold(0.0, f64::max)).collect()
}

impl Placer for Lotes {
    fn arrive(&mut self, _now: Time, r: Request, out: &mut Vec<Start>) -> Result<(), PlacementError> {
        self.pool.check(&r)?;
        self.watch_mix(&r);
        let k = self.plan.classes.classify(&r.demand);
        let chosen = self.roulette(k);
        let m = match chosen {
            Some(j) => self.best_machine(&r, k, |c| c == j).or_else(|| self.best_machine(&r, k, |c| c != j)),
            None => self.best_machine(&r, k, |_| true),
        };
        match m {
            Some(m) => self.start(m, k, &r, out),
            None => {
                self.queues[k].push_back((self.seq, r));
                self.queued += 1;
            }
        }
        self.seq += 1;
        Ok(())
    }

    fn finished(&mut self, _now: Time, machine: u32, key: u64, out: &mut Vec<Start>) -> Result<(), PlacementError> {
        self.pool.give_back(machine, key)?;
        if let Some(c) = self.class_of.remove(&key) {
            self.kappa[machine as usize][c] -= 1;
        }
        let j = self.pool.machine(machine).config;
        let k_count = self.plan.classes.len();
        let mut exhausted = vec![false; k_count];
        loop {
            let mut pick: Option<(i64, usize)> = None;
            for (k, &done) in exhausted.iter().enumerate() {
                if self.plan.serves[j][k] && !done && !self.queues[k].is_empty() {
                    let v = self.score(machine, k);
                    if pick.is_none_or(|(b, _)| v > b) {
                        pick = Some((v, k));
                    }
                }
            }
            let Some((_, k)) = pick else { break };
            match self.queues[k].iter().position(|(_, r)| self.pool.fits(machine, &r.demand)) {
                Some(i) => {
                    let (_, r) = self.queues[k].remove(i).expect("position");
                    self.queued -= 1;
                    self.start(machine, k, &r, out);
                }
                None => exhausted[k] = true,
            }
        }
        if self.pool.machine(machine).running == 0 && self.queued > 0 {
            // Not in the paper: an idle machine also takes, in arrival order, a task of
            // a class it does not serve by plan. Otherwise a task whose own demand
            // exceeds every planned machine (a class centroid fits, the task does not)
            // would wait forever.
            let mut first: Option<(u64, usize, usize)> = None;
            for (k, q) in self.queues.iter().enumerate() {
                if let Some(i) = q.iter().position(|(_, r)| self.pool.fits(machine, &r.demand)) {
                    if first.is_none_or(|(s, _, _)| q[i].0 < s) {
                        first = Some((q[i].0, k, i));
                    }
                }
            }
            if let Some((_, k, i)) = first {
                let (_, r) = self.queues[k].remove(i).expect("position");
                self.queued -= 1;
                self.start(machine, k, &r, out);
            }
        }
        Ok(())
    }

    fn pool(&self) -> &Pool {
        &self.pool
    }
    fn queued(&self) -> usize {
        self.queued
    }
}
