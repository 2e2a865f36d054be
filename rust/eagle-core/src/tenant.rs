//! Tenants: the users or sessions that share one driver (a Spark Connect session, a Thrift
//! session's pool, a thread's `spark.scheduler.pool`), and the share each is given.
//!
//! A tenant groups jobs the way Spark's FAIR pools do, with the same two controls:
//! - `weight` (default 1): under SRPT a tenant's remaining work counts divided by its weight,
//!   so a weight-2 tenant's query ranks as if it were half its size;
//! - `min_share` (default 0): while a tenant runs fewer tasks than its minimum share and has
//!   tasks waiting, its jobs go before every job not overdue (the FAIR scheduler's "needy
//!   pools first").
//!
//! With neither set (every tenant at weight 1, minimum share 0) the order is plain SRPT
//! across tenants, with the starvation deadline bounding every job's wait: a tenant whose
//! query others keep bypassing with smaller ones is served once the query is overdue.
//!
//! The books also know which tenants have long work live, so that the adaptive policy's
//! long share is what FAIR pools would give those tenants together
//! ([`Tenants::long_pool_fraction`]), and is split between them as pools would split it.

use crate::error::{Bound, ConfigError};
use std::collections::{BTreeMap, HashMap};

/// What a tenant is given: Spark's pool `weight` and `minShare`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    pub weight: f64,
    pub min_share: u32,
}

impl Default for Share {
    fn default() -> Share {
        Share { weight: 1.0, min_share: 0 }
    }
}

impl Share {
    /// A share; the weight must be a positive finite number.
    pub fn new(weight: f64, min_share: u32) -> Result<Share, ConfigError> {
        if weight.is_nan() {
            return Err(ConfigError::NotANumber { key: "tenant weight" });
        }
        if !(weight.is_finite() && weight > 0.0) {
            return Err(ConfigError::out_of_range("tenant weight", weight, Bound::Positive));
        }
        Ok(Share { weight, min_share })
    }
}

#[derive(Clone, Debug, Default)]
struct Books {
    share: Share,
    /// Tasks of the tenant's jobs running now.
    running: u32,
    /// Live jobs of the tenant.
    jobs: u32,
    /// Live jobs of the tenant classed long.
    long: u32,
}

/// The tenants of live jobs: their shares and running tasks.
#[derive(Clone, Debug, Default)]
pub struct Tenants {
    by_id: BTreeMap<u64, Books>,
    /// Tenants with a minimum share above 0 (the needy check is skipped while none).
    with_min_share: usize,
    /// Live jobs of all tenants, and how many of them are long.
    jobs: u32,
    long: u32,
    /// Tenants with a live long job.
    long_tenants: usize,
}

impl Tenants {
    /// A job of `tenant` is live; the tenant's share is `share` from now on.
    pub fn join(&mut self, tenant: u64, share: Share) {
        let b = self.by_id.entry(tenant).or_default();
        let before = b.share.min_share > 0 && b.jobs > 0;
        b.share = share;
        b.jobs += 1;
        self.jobs += 1;
        self.with_min_share = self.with_min_share + (share.min_share > 0) as usize - before as usize;
    }

    /// A job of `tenant` is gone.
    pub fn leave(&mut self, tenant: u64) {
        // A tenant kept only for its running tasks has no live job to leave.
        let Some(b) = self.by_id.get_mut(&tenant).filter(|b| b.jobs > 0) else { return };
        self.jobs -= 1;
        b.jobs -= 1;
        if b.jobs == 0 {
            self.long -= b.long;
            self.long_tenants -= (b.long > 0) as usize;
            b.long = 0;
            if b.share.min_share > 0 {
                self.with_min_share -= 1;
            }
            if b.running == 0 {
                self.by_id.remove(&tenant);
            }
        }
    }

    /// A task of `tenant` started (`delta` 1) or ended (`delta` -1).
    pub fn running(&mut self, tenant: u64, delta: i32) {
        if let Some(b) = self.by_id.get_mut(&tenant) {
            b.running = b.running.saturating_add_signed(delta);
            if b.running == 0 && b.jobs == 0 {
                self.by_id.remove(&tenant);
            }
        }
    }

    /// A live job of `tenant` turned long (`delta` 1), or a long one turned short or left
    /// (-1). Called before [`Tenants::leave`] for a long job that leaves.
    pub fn long_jobs(&mut self, tenant: u64, delta: i32) {
        if let Some(b) = self.by_id.get_mut(&tenant) {
            let before = b.long;
            b.long = b.long.saturating_add_signed(delta);
            self.long = self.long + b.long - before;
            self.long_tenants = self.long_tenants + (b.long > 0) as usize - (before > 0) as usize;
        }
    }

    /// Live jobs of all tenants, and how many of them are long.
    pub fn jobs(&self) -> (u32, u32) {
        (self.jobs, self.long)
    }

    /// The part of `slots` FAIR pools would give the live tenants that have long work
    /// together: the slots split max-min fair by weight over the live tenants' demands
    /// (`demand`: the tasks each runs and has waiting; a tenant not in it asks for none). A
    /// pool asking for less than its weighted share gets what it asks, and the rest is split
    /// among the others by weight, as the FAIR scheduler's pools split slots. `others` are the
    /// jobs outside any tenant, counted as one more tenant of weight 1: `Some((demand, any
    /// long))` while any is live. `None` while fewer than two tenants are live (nothing to
    /// share between).
    pub fn long_pool_fraction(
        &self,
        slots: f64,
        demand: &HashMap<u64, f64>,
        others: Option<(f64, bool)>,
    ) -> Option<f64> {
        self.live_weight(others.is_some())?;
        let mut pools: Vec<(f64, f64, bool)> = self
            .by_id
            .iter()
            .filter(|(_, b)| b.jobs > 0)
            .map(|(t, b)| (b.share.weight, demand.get(t).copied().unwrap_or(0.0), b.long > 0))
            .collect();
        pools.extend(others.map(|(d, long)| (1.0, d, long)));
        let long = max_min_long(slots, &mut pools);
        Some(if slots > 0.0 { long / slots } else { 0.0 })
    }

    /// The weight of all live tenants, with the jobs outside any tenant (`others`: any is
    /// live) as one more tenant of weight 1; `None` while fewer than two tenants are live.
    pub fn live_weight(&self, others: bool) -> Option<f64> {
        if self.by_id.is_empty() {
            return None;
        }
        let (mut live, mut n) = (0.0, 0usize);
        for b in self.by_id.values().filter(|b| b.jobs > 0) {
            live += b.share.weight;
            n += 1;
        }
        if others {
            live += 1.0;
            n += 1;
        }
        (n >= 2 && live > 0.0).then_some(live)
    }

    /// Live tenants with long work.
    pub fn long_tenants(&self) -> usize {
        self.long_tenants
    }

    /// The tenant's live jobs.
    pub fn jobs_of(&self, tenant: u64) -> u32 {
        self.by_id.get(&tenant).map_or(0, |b| b.jobs)
    }

    /// Tasks of the tenant's jobs running now.
    pub fn running_of(&self, tenant: u64) -> u32 {
        self.by_id.get(&tenant).map_or(0, |b| b.running)
    }

    /// The tenant's weight (1 for a tenant not known).
    pub fn weight(&self, tenant: u64) -> f64 {
        self.by_id.get(&tenant).map_or(1.0, |b| b.share.weight)
    }

    /// The tenant runs fewer tasks than its minimum share.
    pub fn needy(&self, tenant: u64) -> bool {
        self.by_id.get(&tenant).is_some_and(|b| b.running < b.share.min_share)
    }

    /// Some live tenant has a minimum share.
    pub fn any_min_share(&self) -> bool {
        self.with_min_share > 0
    }
}

/// Water-filling: `slots` split among `pools` of `(weight, demand, long)` so that no pool gets
/// more than it asks, and a pool that gets less than it asks gets no less for its weight than
/// any other. Returns what the long pools get together.
fn max_min_long(slots: f64, pools: &mut [(f64, f64, bool)]) -> f64 {
    pools.sort_by(|a, b| (a.1 / a.0).total_cmp(&(b.1 / b.0)));
    let (mut left, mut weight): (f64, f64) = (slots, pools.iter().map(|p| p.0).sum());
    let mut long = 0.0;
    for &(w, d, is_long) in pools.iter() {
        let got = d.min(left * w / weight).max(0.0);
        left -= got;
        weight -= w;
        if is_long {
            long += got;
        }
    }
    long
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tenant_is_needy_below_its_minimum_share_and_forgotten_when_idle() {
        let mut t = Tenants::default();
        t.join(7, Share::new(2.0, 2).unwrap());
        assert!(t.any_min_share() && t.needy(7));
        assert_eq!(t.weight(7), 2.0);
        t.running(7, 1);
        t.running(7, 1);
        assert!(!t.needy(7), "two running meet a minimum share of two");
        t.leave(7);
        assert!(!t.any_min_share(), "no live job of a tenant with a minimum share");
        t.running(7, -1);
        t.running(7, -1);
        assert_eq!(t.weight(7), 1.0, "forgotten once no job is live and none of its tasks runs");
    }

    #[test]
    fn the_long_fraction_is_what_pools_give_the_tenants_with_long_work() {
        let mut t = Tenants::default();
        // Every tenant asks for more than the 20 slots.
        let many: HashMap<u64, f64> = [(1, 50.0), (2, 50.0)].into();
        let f = |t: &Tenants, d: &HashMap<u64, f64>, others| t.long_pool_fraction(20.0, d, others);
        assert_eq!(f(&t, &many, Some((50.0, true))), None, "no tenant: one body of jobs");
        t.join(1, Share::default());
        assert_eq!(f(&t, &many, None), None, "one tenant");
        t.join(2, Share::new(3.0, 0).unwrap());
        t.join(2, Share::new(3.0, 0).unwrap());
        t.long_jobs(2, 1);
        assert_eq!(t.jobs(), (3, 1));
        assert_eq!(t.long_tenants(), 1);
        assert_eq!(f(&t, &many, None), Some(0.75), "the weights, 3 of 4");
        assert_eq!(f(&t, &many, Some((50.0, false))), Some(0.6), "the jobs outside, weight 1");
        assert_eq!(f(&t, &many, Some((50.0, true))), Some(0.8));
        // Tenant 1 asks for 2 slots of its 5: the long tenant takes the other 3.
        let few: HashMap<u64, f64> = [(1, 2.0), (2, 50.0)].into();
        assert_eq!(f(&t, &few, None), Some(0.9));
        // The jobs outside ask for 1 and tenant 1 for 2 (their shares are 4 each): 17 left.
        assert_eq!(f(&t, &few, Some((1.0, false))), Some(0.85));
        // The long tenant asks for 4 of its 15: it gets 4; a tenant not in the map asks for none.
        assert_eq!(f(&t, &[(1, 50.0), (2, 4.0)].into(), None), Some(0.2));
        assert_eq!(f(&t, &HashMap::new(), None), Some(0.0));
        t.long_jobs(2, -1);
        t.leave(2);
        assert_eq!(t.long_tenants(), 0);
        assert_eq!(f(&t, &many, None), Some(0.0));
        t.leave(2);
        assert_eq!(t.jobs(), (1, 0));
        assert_eq!(f(&t, &many, None), None, "tenant 2 has no live job");
    }

    #[test]
    fn leaving_a_tenant_with_no_live_job_changes_nothing() {
        let mut t = Tenants::default();
        t.join(7, Share::new(1.0, 2).unwrap());
        t.running(7, 1);
        t.leave(7);
        t.leave(7); // kept for its running task: no live job to leave
        assert_eq!(t.jobs(), (0, 0));
        assert!(!t.any_min_share());
        t.join(8, Share::new(1.0, 1).unwrap());
        assert!(t.any_min_share(), "tenant 8's minimum share counts");
        t.leave(8);
        assert!(!t.any_min_share());
    }

    #[test]
    fn a_weight_must_be_positive() {
        assert!(Share::new(0.0, 0).is_err());
        assert!(Share::new(f64::NAN, 0).is_err());
        assert!(Share::new(0.5, 0).is_ok());
    }
}
