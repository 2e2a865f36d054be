//! Greedy dispatch (LoTES paper §5.2), the natural baseline.
//!
//! - **Arrival**: first fit, walking the machines in configuration order (the
//!   paper's Table 1, top to bottom): the task starts on the first machine with
//!   enough free resources.
//! - **Otherwise** it joins the queue of one machine: the shortest queue among the
//!   machines it could ever fit on, ties broken at random. The task stays bound to
//!   that machine.
//! - **Completion**: the machine starts its queued tasks in FCFS order while the
//!   head fits (a head that does not fit blocks the queue: first come, first served).

use super::{MachineConfig, Placer, Pool, Request, Start};
use crate::error::PlacementError;
use crate::rng::Rng;
use crate::types::Time;
use std::collections::VecDeque;

/// First fit, else the shortest machine queue.
pub struct Greedy {
    pool: Pool,
    queues: Vec<VecDeque<Request>>,
    rng: Rng,
    queued: usize,
}

impl Greedy {
    pub fn new(configs: &[MachineConfig], seed: u64) -> Result<Greedy, PlacementError> {
        let pool = Pool::new(configs)?;
        let queues = vec![VecDeque::new(); pool.len()];
        Ok(Greedy { pool, queues, rng: Rng::new(seed), queued: 0 })
    }
    /// Length of machine `m`'s queue.
    pub fn queue_len(&self, m: u32) -> usize {
        self.queues[m as usize].len()
    }
}

impl Placer for Greedy {
    fn arrive(&mut self, _now: Time, r: Request, out: &mut Vec<Start>) -> Result<(), PlacementError> {
        self.pool.check(&r)?;
        if let Some(m) = (0..self.pool.len() as u32).find(|&m| self.pool.fits(m, &r.demand)) {
            self.pool.take(m, &r, out);
            return Ok(());
        }
        // Shortest queue among the machines the task can ever fit; random ties
        // (reservoir sampling over the ties keeps one pass).
        let mut best: Option<(usize, u32)> = None;
        let mut ties = 0usize;
        for (m, mach) in self.pool.machines().iter().enumerate() {
            if !r.demand.fits_in(&mach.capacity) {
                continue;
            }
            let len = self.queues[m].len();
            match best {
                Some((b, _)) if len > b => {}
                Some((b, _)) if len == b => {
                    ties += 1;
                    if self.rng.below(ties) == 0 {
                        best = Some((len, m as u32));
                    }
                }
                _ => {
                    best = Some((len, m as u32));
                    ties = 1;
                }
            }
        }
        let (_, m) = best.expect("check() found a machine it fits");
        self.queues[m as usize].push_back(r);
        self.queued += 1;
        Ok(())
    }

    fn finished(&mut self, _now: Time, machine: u32, key: u64, out: &mut Vec<Start>) -> Result<(), PlacementError> {
        self.pool.give_back(machine, key)?;
        let q = &mut self.queues[machine as usize];
        while q.front().is_some_and(|r| self.pool.fits(machine, &r.demand)) {
            let r = q.pop_front().expect("front");
            self.pool.take(machine, &r, out);
            self.queued -= 1;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hetero::resources::Resources;

    fn req(key: u64, c: f64, m: f64) -> Request {
        Request { key, demand: Resources::new(vec![c, m]), duration: 10.0 }
    }

    #[test]
    fn first_fit_then_shortest_queue_then_fcfs() {
        let cfgs = vec![
            MachineConfig { count: 1, capacity: Resources::new(vec![1.0, 1.0]) },
            MachineConfig { count: 1, capacity: Resources::new(vec![0.5, 0.5]) },
        ];
        let mut g = Greedy::new(&cfgs, 1).unwrap();
        let mut out = vec![];
        g.arrive(0.0, req(1, 0.6, 0.1), &mut out).unwrap();
        g.arrive(0.0, req(2, 0.3, 0.1), &mut out).unwrap(); // fits machine 0 still (first fit)
        g.arrive(0.0, req(3, 0.3, 0.1), &mut out).unwrap(); // machine 0 full on cores: machine 1
        assert_eq!(out, vec![Start { key: 1, machine: 0 }, Start { key: 2, machine: 0 }, Start { key: 3, machine: 1 }]);
        out.clear();
        // 0.6 cores fits only machine 0: its queue, even though machine 1's is as short.
        g.arrive(1.0, req(4, 0.6, 0.1), &mut out).unwrap();
        g.arrive(1.0, req(5, 0.1, 0.1), &mut out).unwrap(); // bypasses: first fit on machine 0's last 0.1
        assert_eq!(out, vec![Start { key: 5, machine: 0 }]);
        assert_eq!((g.queue_len(0), g.queued()), (1, 1));
        out.clear();
        g.finished(2.0, 0, 2, &mut out).unwrap(); // 0.3 freed: head needs 0.6, blocks
        assert!(out.is_empty());
        g.finished(3.0, 0, 1, &mut out).unwrap();
        assert_eq!(out, vec![Start { key: 4, machine: 0 }]);
        assert_eq!(g.queued(), 0);
    }
}
