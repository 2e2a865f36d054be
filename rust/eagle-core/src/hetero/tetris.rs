//! Tetris (Grandl et al., SIGCOMM'14) as the LoTES paper defines it (§5.2).
//!
//! For a task with demand `r` and a machine with free resources `C`:
//!
//! ```text
//! packing score   ω = r · C                 (alignment: higher fits better)
//! remaining work  γ = p · (r · 1)           (p the task's duration, in hours as in Table 2)
//! score           ω − w·γ                   (w = 1: equal weights, as in the paper)
//! ```
//!
//! `w` is [`Tetris::with_work_weight`]'s knob: `w = 0` packs only, in arrival
//! order among equal scores, which isolates what the clairvoyant remaining-work
//! term contributes.
//!
//! - **Arrival**: the task starts on the machine, among those where it fits now,
//!   with the highest packing score (ties: the lowest index). Otherwise it joins one
//!   central queue. (γ does not depend on the machine, so it cannot change which
//!   machine is best for one task.)
//! - **Completion**: the machine repeatedly starts, among the queued tasks that fit
//!   what it has free, the one with the highest `ω − γ` (ties: the earliest
//!   arrival), until none fits.

use super::{MachineConfig, Placer, Pool, Request, Start};
use crate::error::PlacementError;
use crate::types::Time;

/// Seconds per hour: γ uses hours, the unit of the paper's Table 2.
const HOUR: f64 = 3600.0;

/// Alignment score minus remaining work.
pub struct Tetris {
    pool: Pool,
    /// Waiting tasks in arrival order.
    queue: Vec<Request>,
    /// Weight of the remaining-work term (1 in the paper).
    work_weight: f64,
}

impl Tetris {
    pub fn new(configs: &[MachineConfig]) -> Result<Tetris, PlacementError> {
        Tetris::with_work_weight(configs, 1.0)
    }
    /// Tetris with `ω − w·γ`; `w` must be finite and >= 0.
    pub fn with_work_weight(configs: &[MachineConfig], w: f64) -> Result<Tetris, PlacementError> {
        if !(w.is_finite() && w >= 0.0) {
            return Err(PlacementError::BadWorkWeight(w));
        }
        Ok(Tetris { pool: Pool::new(configs)?, queue: Vec::new(), work_weight: w })
    }
    /// `ω − w·γ` of `r` on machine `m`.
    pub fn score(&self, r: &Request, m: u32) -> f64 {
        r.demand.dot(&self.pool.machine(m).free) - self.work_weight * r.duration / HOUR * r.demand.total()
    }
}

impl Placer for Tetris {
    fn arrive(&mut self, _now: Time, r: Request, out: &mut Vec<Start>) -> Result<(), PlacementError> {
        self.pool.check(&r)?;
        let mut best: Option<(f64, u32)> = None;
        for m in 0..self.pool.len() as u32 {
            if self.pool.fits(m, &r.demand) {
                let w = r.demand.dot(&self.pool.machine(m).free);
                if best.is_none_or(|(b, _)| w > b) {
                    best = Some((w, m));
                }
            }
        }
        match best {
            Some((_, m)) => self.pool.take(m, &r, out),
            None => self.queue.push(r),
        }
        Ok(())
    }

    fn finished(&mut self, _now: Time, machine: u32, key: u64, out: &mut Vec<Start>) -> Result<(), PlacementError> {
        self.pool.give_back(machine, key)?;
        loop {
            let mut best: Option<(f64, usize)> = None;
            for (i, r) in self.queue.iter().enumerate() {
                if self.pool.fits(machine, &r.demand) {
                    let s = self.score(r, machine);
                    if best.is_none_or(|(b, _)| s > b) {
                        best = Some((s, i));
                    }
                }
            }
            let Some((_, i)) = best else { break };
            let r = self.queue.remove(i);
            self.pool.take(machine, &r, out);
        }
        Ok(())
    }

    fn pool(&self) -> &Pool {
        &self.pool
    }
    fn queued(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hetero::resources::Resources;

    fn req(key: u64, c: f64, m: f64, hours: f64) -> Request {
        Request { key, demand: Resources::new(vec![c, m]), duration: hours * HOUR }
    }

    #[test]
    fn best_alignment_then_best_score_from_the_queue() {
        let cfgs = vec![
            MachineConfig { count: 1, capacity: Resources::new(vec![1.0, 0.2]) },
            MachineConfig { count: 1, capacity: Resources::new(vec![0.2, 1.0]) },
        ];
        let mut t = Tetris::new(&cfgs).unwrap();
        let mut out = vec![];
        // Memory-heavy, fits both: aligns with machine 1 (0.05·0.2 + 0.15·1.0 = 0.16 > 0.05·1.0 + 0.15·0.2).
        t.arrive(0.0, req(1, 0.05, 0.15, 1.0), &mut out).unwrap();
        assert_eq!(out, vec![Start { key: 1, machine: 1 }]);
        out.clear();
        t.arrive(0.0, req(2, 0.9, 0.1, 1.0), &mut out).unwrap(); // only machine 0
        t.arrive(0.0, req(3, 0.9, 0.1, 5.0), &mut out).unwrap(); // queued
        t.arrive(0.0, req(4, 0.9, 0.1, 1.0), &mut out).unwrap(); // queued, less work
        assert_eq!((out.len(), t.queued()), (1, 2));
        out.clear();
        t.finished(1.0, 0, 2, &mut out).unwrap();
        assert_eq!(out, vec![Start { key: 4, machine: 0 }], "less remaining work wins");
    }

    #[test]
    fn without_the_work_term_arrival_order_breaks_ties() {
        let cfgs = vec![MachineConfig { count: 1, capacity: Resources::new(vec![1.0, 1.0]) }];
        let mut t = Tetris::with_work_weight(&cfgs, 0.0).unwrap();
        let mut out = vec![];
        t.arrive(0.0, req(1, 0.9, 0.1, 1.0), &mut out).unwrap();
        t.arrive(0.0, req(2, 0.9, 0.1, 5.0), &mut out).unwrap();
        t.arrive(0.0, req(3, 0.9, 0.1, 1.0), &mut out).unwrap();
        out.clear();
        t.finished(1.0, 0, 1, &mut out).unwrap();
        assert_eq!(out, vec![Start { key: 2, machine: 0 }], "same packing score: the earlier arrival");
        assert!(Tetris::with_work_weight(&cfgs, -1.0).is_err());
    }
}
