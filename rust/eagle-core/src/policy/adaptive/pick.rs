//! The order a free slot serves (docs/policies/adaptive.md, "The order: SRPT over the query"):
//! overdue task sets first (the starvation deadline; overdue long work of several tenants is
//! split as their pools would split it), then tenants below their minimum share, then task
//! sets of a guessed size within their tenant's share, then the least remaining work of the
//! query among the task sets worth the slot (warm executors), each class only while the
//! reservation and the long share allow it.
//! Eagle orders by SRPT within its queues (SoCC'16 §3.3); this is that order over one
//! central queue.

use super::{bits, Adaptive};
use crate::types::*;

impl Adaptive {
    /// The job a free slot of `node` (the simulator: any node) serves: overdue jobs first
    /// (earliest deadline; SRPT order only), then the least key (group remaining work, or
    /// finish tag under FSP) among the jobs worth the slot (warm executors); long jobs only
    /// while the reservation allows.
    pub(super) fn pick(&mut self, now: Time, node: Option<usize>, exclude: &[JobId]) -> Option<u32> {
        // A task set of a guessed size past its tenant's share takes only a slot no other
        // job may take ([`Adaptive::too_wide`]), and not one the hold keeps from long work:
        // its tasks may be long.
        let narrow = self.guess_width();
        match self.pick_among(now, node, exclude, narrow) {
            None if narrow.is_some() && !self.slot_held(now) => self.pick_among(now, node, exclude, None),
            picked => picked,
        }
    }

    fn pick_among(&mut self, now: Time, node: Option<usize>, exclude: &[JobId], narrow: Option<f64>) -> Option<u32> {
        // A held slot is kept from long work only: from every job while no work is long
        // (no split known, or none of its long side here), else from the long jobs, unless
        // they run below their tenants' pools share.
        let held = self.slot_held(now);
        let long_here = self.long_running > 0 || !self.ready_long.is_empty();
        let long_owed = held && long_here && self.long_below_pools_share();
        let quick = |s: &Self, j: u32| !held || (long_here && (long_owed || !s.c.jobs[j as usize].class.is_long()));
        let (long_ok, r) = self.long_allowed(now);
        let long_waits = long_ok && self.ready_long.iter().any(|(_, j)| !exclude.contains(&JobId(*j)));
        let short_ok = self.short_allowed(now, r, long_waits, node);
        let eligible = |s: &Self, j: u32| {
            !exclude.contains(&JobId(j))
                && quick(s, j)
                && !s.too_wide(j, narrow)
                && if s.c.jobs[j as usize].class.is_long() { long_ok } else { short_ok }
        };
        // The starvation deadline (SRPT order only: under FSP age is in the key).
        let mut overdue = None;
        if !self.fsp() {
            let now_bits = bits(now);
            let mut seen = 0;
            for &(d, j) in self.deadlines.iter() {
                if d > now_bits {
                    break;
                }
                seen += 1;
                // Overdue jobs go first on every slot where they are warm or a cold start
                // is worth it; a cold slot that is not goes to the order below.
                if eligible(self, j) && node.is_none_or(|ni| self.worth_here(now, ni, j, true)) {
                    overdue = Some(j);
                    break;
                }
            }
            // Every job visited was seen overdue by this slot (no buffer: a hot path).
            for &(_, j) in self.deadlines.iter().take(seen) {
                let m = &mut self.meta[j as usize];
                if !m.due {
                    m.due = true;
                    m.due_est = self.c.jobs[j as usize].est;
                }
            }
        }
        // A deadline orders long work against short work; between tenants' long work the
        // pools' split decides, which keeps any of them from starving.
        if overdue.is_some_and(|j| self.c.jobs[j as usize].class.is_long() && self.tenants.long_tenants() >= 2) {
            let worth = |j: u32| eligible(self, j) && node.is_none_or(|ni| self.worth_here(now, ni, j, true));
            overdue = self.long_first(worth).map(|(_, j)| j).or(overdue);
        }
        if overdue.is_some() {
            return overdue;
        }
        // Tenants below their minimum share next, least key first.
        if let Some(j) = self.needy_first(now, node, &eligible) {
            return Some(j);
        }
        // Task sets of a guessed size within their tenant's share next (fair sharing while a
        // size is unknown).
        if let Some(j) = self.guess_first(now, node, narrow, &eligible) {
            return Some(j);
        }
        // Warm executors: the first job worth the slot with the other jobs waiting for it;
        // failing that, the first job that still gains from it (no other job wants it).
        let first_worth = |s: &Self, crowded: bool| {
            let worth = |j: u32| {
                !exclude.contains(&JobId(j))
                    && quick(s, j)
                    && !s.too_wide(j, narrow)
                    && node.is_none_or(|ni| s.worth_here(now, ni, j, crowded))
            };
            let short = if short_ok { s.ready_short.iter().find(|(_, j)| worth(*j)).copied() } else { None };
            let long = if long_ok { s.long_first(worth) } else { None };
            match (short, long) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        };
        // The fallback is for a slot no other job may take: with two eligible jobs waiting,
        // both cold here and neither worth it, the slot stays free until a task end
        // re-offers it. Jobs the reservation or the long share holds back cannot use the
        // slot, so a cold start there costs them nothing.
        let alone = |s: &Self| {
            s.ready_short.iter().chain(s.ready_long.iter()).filter(|(_, j)| eligible(s, *j)).take(2).count() <= 1
        };
        let best = first_worth(self, true).or_else(|| {
            if node.is_some() && self.warmup > 0.0 && alone(self) {
                first_worth(self, false)
            } else {
                None
            }
        });
        if let Some((_, j)) = best {
            let first = self.ready_short.first().into_iter().chain(self.ready_long.first()).min().copied();
            if first.is_some_and(|(_, f)| f != j) {
                self.c.counters.srpt_bypasses += 1;
            }
        }
        best.map(|(_, j)| j)
    }
}
