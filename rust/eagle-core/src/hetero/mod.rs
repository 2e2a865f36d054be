//! Resource-aware placement on heterogeneous machines (the LoTES paper's model, §2):
//! [`resources`] (multi-resource amounts), this module (machines, the [`Placer`]
//! interface, the [`Pool`] of free capacity), the Greedy and Tetris baselines, and
//! [`lotes`] (the paper's three stages, and executor placement for Spark).
//!
//! A cluster is a list of machine *configurations*, each `count` identical machines
//! with one capacity vector ([`MachineConfig`]). Tasks arrive one by one with a
//! demand vector and a known duration; each runs on one machine, many at once as
//! long as their demands fit the machine's capacity in every resource. A task that
//! fits nowhere waits in a queue. The quantity of interest is the *response time*,
//! the wait from arrival until the task starts.
//!
//! Three placers share this model and the [`Placer`] interface (events in,
//! [`Start`] decisions out, like the rest of the engine):
//!
//! - [`lotes::Lotes`]: the paper's three stages (§4);
//! - [`greedy::Greedy`]: first fit, else the shortest machine queue (§5.2);
//! - [`tetris::Tetris`]: alignment score minus remaining work (§5.2, after Grandl et al.).
//!
//! The [`Pool`] holds what every placer needs about each machine: its capacity and
//! what is free; it is the only place where resources are taken and given back, so
//! no placer can start a task where it does not fit ([`Pool::take`] refuses).

pub mod greedy;
pub mod lotes;
pub mod resources;
pub mod tetris;

pub use crate::error::PlacementError;
use crate::types::Time;
use resources::Resources;

/// `count` identical machines with `capacity` each.
#[derive(Clone, Debug, PartialEq)]
pub struct MachineConfig {
    pub count: u32,
    pub capacity: Resources,
}

/// A task to place: the paper's "job" (one machine, one demand, one duration).
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    /// The host's key for the task; echoed in [`Start`] and [`Placer::finished`].
    pub key: u64,
    pub demand: Resources,
    /// Known processing time in seconds (the paper: known once the job arrives).
    pub duration: f64,
}

/// Decision: start task `key` on machine `machine` now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Start {
    pub key: u64,
    pub machine: u32,
}

/// One machine's state.
#[derive(Clone, Debug, PartialEq)]
pub struct Machine {
    /// Index of its configuration in the cluster's list.
    pub config: usize,
    pub capacity: Resources,
    pub free: Resources,
    /// Tasks running on it.
    pub running: u32,
}

/// Every machine, configurations in list order, machines of one configuration
/// contiguous (the order Greedy's first fit walks, §5.2: Table 1 top to bottom).
#[derive(Clone, Debug, Default)]
pub struct Pool {
    machines: Vec<Machine>,
    dims: usize,
    /// Configurations so far.
    configs: usize,
    /// `running` demand of each task by key, to give it back on completion.
    running: std::collections::HashMap<u64, (u32, Resources)>,
}

impl Pool {
    /// Builds the machines of `configs`; every capacity must have the same
    /// number of resources, be finite and non-negative.
    pub fn new(configs: &[MachineConfig]) -> Result<Pool, PlacementError> {
        let dims = configs.first().map_or(0, |c| c.capacity.dims());
        let mut pool = Pool { machines: Vec::new(), dims, configs: 0, running: Default::default() };
        for c in configs {
            pool.add_config(c)?;
        }
        if pool.machines.is_empty() {
            return Err(PlacementError::NoMachines);
        }
        Ok(pool)
    }
    /// Appends the machines of one more configuration (its index is the number
    /// of configurations before it).
    pub fn add_config(&mut self, c: &MachineConfig) -> Result<(), PlacementError> {
        let j = self.configs;
        if c.capacity.dims() != self.dims {
            return Err(PlacementError::ConfigDims { config: j, dims: c.capacity.dims(), first: self.dims });
        }
        if !c.capacity.is_valid() {
            return Err(PlacementError::BadCapacity { config: j });
        }
        for _ in 0..c.count {
            self.machines.push(Machine {
                config: j,
                capacity: c.capacity.clone(),
                free: c.capacity.clone(),
                running: 0,
            });
        }
        self.configs += 1;
        Ok(())
    }
    pub fn len(&self) -> usize {
        self.machines.len()
    }
    pub fn is_empty(&self) -> bool {
        self.machines.is_empty()
    }
    pub fn dims(&self) -> usize {
        self.dims
    }
    pub fn machine(&self, m: u32) -> &Machine {
        &self.machines[m as usize]
    }
    pub fn machines(&self) -> &[Machine] {
        &self.machines
    }
    /// Whether `demand` fits what machine `m` has free now.
    pub fn fits(&self, m: u32, demand: &Resources) -> bool {
        demand.fits_in(&self.machines[m as usize].free)
    }
    /// Whether `demand` fits some machine when it is empty (else it could never run).
    pub fn fits_somewhere(&self, demand: &Resources) -> bool {
        self.machines.iter().any(|m| demand.fits_in(&m.capacity))
    }
    /// Checks a request before a placer takes it.
    pub fn check(&self, r: &Request) -> Result<(), PlacementError> {
        if r.demand.dims() != self.dims || !r.demand.is_valid() {
            return Err(PlacementError::BadDemand { key: r.key, demand: r.demand.amounts().to_vec(), dims: self.dims });
        }
        if !(r.duration.is_finite() && r.duration >= 0.0) {
            return Err(PlacementError::BadDuration { key: r.key, duration: r.duration });
        }
        if self.running.contains_key(&r.key) {
            return Err(PlacementError::AlreadyRunning { key: r.key });
        }
        if !self.fits_somewhere(&r.demand) {
            return Err(PlacementError::FitsNowhere { key: r.key, demand: r.demand.amounts().to_vec() });
        }
        Ok(())
    }
    /// Starts `r` on `m`: takes its demand and records the decision in `out`.
    /// Panics if it does not fit (a placer bug, never an input error).
    pub fn take(&mut self, m: u32, r: &Request, out: &mut Vec<Start>) {
        let mach = &mut self.machines[m as usize];
        assert!(r.demand.fits_in(&mach.free), "placer bug: task {} does not fit machine {m}", r.key);
        mach.free.sub(&r.demand);
        mach.running += 1;
        self.running.insert(r.key, (m, r.demand.clone()));
        out.push(Start { key: r.key, machine: m });
    }
    /// Gives back the resources of task `key`, which ran on `m`; returns its demand.
    pub fn give_back(&mut self, m: u32, key: u64) -> Result<Resources, PlacementError> {
        match self.running.remove(&key) {
            Some((on, d)) if on == m => {
                let mach = &mut self.machines[m as usize];
                mach.free.add(&d);
                mach.running -= 1;
                if mach.running == 0 {
                    // No drift: an idle machine has exactly its capacity free.
                    mach.free = mach.capacity.clone();
                }
                Ok(d)
            }
            Some((on, d)) => {
                self.running.insert(key, (on, d));
                Err(PlacementError::WrongMachine { key, machine: m, runs_on: on })
            }
            None => Err(PlacementError::NotRunning { key, machine: m }),
        }
    }
    /// Every running task: key, machine, demand (any order).
    pub fn running_tasks(&self) -> impl Iterator<Item = (u64, u32, &Resources)> {
        self.running.iter().map(|(k, (m, d))| (*k, *m, d))
    }
    /// Tasks running in the whole pool.
    pub fn running(&self) -> usize {
        self.running.len()
    }
}

/// A resource-aware placer: the engine side of heterogeneous placement.
///
/// The host reports each arrival and each completion; the placer answers with the
/// tasks to start now. Every placer is deterministic given its seed.
pub trait Placer {
    /// A task arrives at `now`. Errors: a malformed request, or one that fits no machine.
    fn arrive(&mut self, now: Time, r: Request, out: &mut Vec<Start>) -> Result<(), PlacementError>;
    /// Task `key` ended on `machine` at `now`; queued tasks may start.
    fn finished(&mut self, now: Time, machine: u32, key: u64, out: &mut Vec<Start>) -> Result<(), PlacementError>;
    /// The machines and what is free on them.
    fn pool(&self) -> &Pool;
    /// Tasks waiting.
    fn queued(&self) -> usize;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfgs() -> Vec<MachineConfig> {
        vec![
            MachineConfig { count: 2, capacity: Resources::new(vec![1.0, 1.0]) },
            MachineConfig { count: 1, capacity: Resources::new(vec![0.5, 2.0]) },
        ]
    }

    #[test]
    fn pool_takes_and_gives_back() {
        let mut p = Pool::new(&cfgs()).unwrap();
        assert_eq!(p.len(), 3);
        assert_eq!(p.machine(2).config, 1);
        let r = Request { key: 7, demand: Resources::new(vec![0.6, 0.9]), duration: 1.0 };
        p.check(&r).unwrap();
        let mut out = vec![];
        assert!(p.fits(0, &r.demand) && !p.fits(2, &r.demand));
        let small = Request { key: 8, demand: Resources::new(vec![0.4, 0.4]), duration: 1.0 };
        p.take(2, &small, &mut out);
        assert_eq!(out, vec![Start { key: 8, machine: 2 }]);
        assert!(p.check(&small).is_err(), "already running");
        assert!(p.give_back(1, 8).is_err());
        assert_eq!(p.give_back(2, 8).unwrap(), small.demand);
        assert_eq!(p.machine(2).free, p.machine(2).capacity);
        let huge = Request { key: 9, demand: Resources::new(vec![1.0, 2.0]), duration: 1.0 };
        assert!(p.check(&huge).unwrap_err().to_string().contains("exceeds every machine"));
    }
}
