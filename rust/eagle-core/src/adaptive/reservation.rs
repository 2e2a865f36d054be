//! eagle-adaptive's short reservation: how many slots long work must leave to short
//! work, sized from the short work actually observed (our extension of Eagle §3.1,
//! where the short partition is a fixed share of the nodes, sized offline from the
//! short jobs' share of task-seconds). The rule and its keys: docs/policies/adaptive.md,
//! "The short reservation".
//!
//! - **Demand**: the slots running short tasks, integrated in `buckets` over the last
//!   `window` seconds; the mean of the bucket averages plus one standard deviation.
//! - **Size**: `R = round(headroom × demand)` when long work filling the cluster would
//!   free a slot less often than `min_wait` (else a slot frees sooner than a reserved one
//!   pays for itself), and at least the short tasks waiting now; at most `max_fraction`
//!   of the live slots; nothing below half a slot of demand.
//! - **Base**: while short work is arriving (within `idle`), `ceil(headroom × demand)`
//!   slots, at least one and at most `base_fraction` of the slots (floored), whatever the
//!   release rate: a wave of long tasks frees nothing for a whole task. Below
//!   `1 / base_fraction` slots the one slot is kept only while short tasks run at least
//!   `1 − base_fraction × slots` of the window's time in use (some task running), so its
//!   idle time stays within the share; time with nothing running costs no one.
//! - **Shrink to zero**: no short arrival for `idle` seconds and none waiting: `R = 0`.
//!
//! **Invariant.** Long tasks start only while the long tasks running stay below
//! `total − R`, so reserved slots are lent to long work only after a quiet spell, and a
//! short task arriving then makes `R ≥ 1` at once: it waits at most until the first
//! running task ends anywhere, never behind a queue of long work, as in Eagle.

use crate::error::{Bound, ConfigError};
use serde::{Deserialize, Serialize};

/// The knobs of the adaptive reservation (see the module rule).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AdaptiveParams {
    /// Sliding window over which short demand is observed, seconds.
    pub window: f64,
    /// Buckets in the window (the burstiness is the spread of bucket averages).
    pub buckets: u32,
    /// Multiplier on the observed demand (mean plus one standard deviation).
    pub headroom: f64,
    /// Upper bound of the reservation, as a fraction of the live slots.
    pub max_fraction: f64,
    /// Upper bound of the base reservation kept whatever the release interval (floored).
    pub base_fraction: f64,
    /// Seconds without a short arrival after which the reservation may drop to zero.
    pub idle: f64,
    /// While long work waits for a slot, short work starts tasks only while it holds fewer
    /// than `max(R, floor((1 − long_share) × slots))`: long work keeps this share of the
    /// cluster under a short stream that alone would fill it (0 turns it off). Short work
    /// always keeps its reservation `R`, whatever this share.
    pub long_share: f64,
    /// Starvation deadline floor: a job with waiting tasks goes first once its tasks have
    /// waited `max(deadline_factor × its fair time, min_wait)` seconds.
    pub min_wait: f64,
    /// The starvation deadline as a multiple of the job's time under fair sharing (see
    /// [`crate::policy::adaptive`]). 1: a job goes first once fair sharing would have
    /// served it.
    pub deadline_factor: f64,
    /// The order of the jobs a free slot may serve: SRPT with the starvation deadline, or
    /// the Fair Sojourn Protocol ([`crate::adaptive::fsp`]).
    #[serde(default)]
    pub order: crate::adaptive::fsp::Order,
    /// The short hold ([`crate::adaptive::hold`]): the cap of a hold's window, seconds (0 turns the
    /// hold off).
    #[serde(default = "default_hold_max")]
    pub hold_max: f64,
    /// The hold's budget: held slot-seconds at most this fraction of the cluster's
    /// slot-seconds over `window` (0 turns the hold off).
    #[serde(default = "default_hold_fraction")]
    pub hold_fraction: f64,
    /// Preemption ([`crate::adaptive::preempt`], off by default): the wait of a short job
    /// after which the youngest long attempt is killed for it, seconds (0 turns it off).
    #[serde(default)]
    pub preempt_after: f64,
    /// Preemption's budget: killed slot-seconds at most this fraction of the cluster's
    /// slot-seconds over `window` (0 turns it off).
    #[serde(default = "default_preempt_fraction")]
    pub preempt_fraction: f64,
}

fn default_preempt_fraction() -> f64 {
    0.05
}

fn default_hold_max() -> f64 {
    2.0
}

fn default_hold_fraction() -> f64 {
    0.05
}

impl Default for AdaptiveParams {
    fn default() -> Self {
        AdaptiveParams {
            window: 60.0,
            buckets: 12,
            headroom: 1.0,
            max_fraction: 0.5,
            base_fraction: 0.1,
            long_share: 0.5,
            idle: 30.0,
            min_wait: 1.0,
            deadline_factor: 5.0,
            order: crate::adaptive::fsp::Order::Srpt,
            hold_max: default_hold_max(),
            hold_fraction: default_hold_fraction(),
            preempt_after: 0.0,
            preempt_fraction: default_preempt_fraction(),
        }
    }
}

impl AdaptiveParams {
    /// Rejects out-of-range values, naming the field.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let bad = ConfigError::out_of_range;
        let pos = |key: &'static str, v: f64| {
            if v > 0.0 && v.is_finite() {
                Ok(())
            } else {
                Err(bad(key, v, Bound::Positive))
            }
        };
        let unit = Bound::Within(0.0, 1.0);
        pos("adaptive window", self.window)?;
        pos("adaptive headroom", self.headroom)?;
        if !(self.idle >= 0.0 && self.idle.is_finite()) {
            return Err(bad("adaptive idle", self.idle, Bound::NonNegative));
        }
        if !(self.min_wait >= 0.0 && self.min_wait.is_finite()) {
            return Err(bad("adaptive min_wait", self.min_wait, Bound::NonNegative));
        }
        pos("adaptive deadline_factor", self.deadline_factor)?;
        if !(0.0..=1.0).contains(&self.max_fraction) {
            return Err(bad("adaptive max_fraction", self.max_fraction, unit));
        }
        if !(0.0..=1.0).contains(&self.base_fraction) {
            return Err(bad("adaptive base_fraction", self.base_fraction, unit));
        }
        if !(0.0..=1.0).contains(&self.long_share) {
            return Err(bad("adaptive long_share", self.long_share, unit));
        }
        if !(self.hold_max >= 0.0 && self.hold_max <= 3600.0) {
            return Err(bad("adaptive hold_max", self.hold_max, Bound::Within(0.0, 3600.0)));
        }
        if !(0.0..=1.0).contains(&self.hold_fraction) {
            return Err(bad("adaptive hold_fraction", self.hold_fraction, unit));
        }
        if !(self.preempt_after >= 0.0 && self.preempt_after <= 3600.0) {
            return Err(bad("adaptive preempt_after", self.preempt_after, Bound::Within(0.0, 3600.0)));
        }
        if !(0.0..=1.0).contains(&self.preempt_fraction) {
            return Err(bad("adaptive preempt_fraction", self.preempt_fraction, unit));
        }
        if !(1..=1000).contains(&self.buckets) {
            return Err(bad("adaptive buckets", self.buckets.into(), Bound::Within(1.0, 1000.0)));
        }
        Ok(())
    }
}

/// Short demand over a sliding window, and the reservation it implies.
#[derive(Clone, Debug)]
pub struct Reservation {
    p: AdaptiveParams,
    width: f64,
    /// Slot-seconds of short work per bucket, newest last; the last is in progress.
    buckets: std::collections::VecDeque<f64>,
    /// Seconds with at least one short task running, per bucket, alongside `buckets`.
    busy: std::collections::VecDeque<f64>,
    /// Seconds with any task running (`in_use`), per bucket, alongside `buckets`.
    used: std::collections::VecDeque<f64>,
    /// Whether any task runs now ([`Reservation::cluster_in_use`]; true until told).
    in_use: bool,
    /// Start of the newest bucket.
    bucket_start: f64,
    /// Short tasks running now, and since when that count holds.
    running: u32,
    since: f64,
    last_arrival: Option<f64>,
    /// The size most recently computed.
    current: u32,
}

impl Reservation {
    pub fn new(p: AdaptiveParams, now: f64) -> Reservation {
        let width = p.window / p.buckets as f64;
        Reservation {
            p,
            width,
            buckets: std::iter::once(0.0).collect(),
            busy: std::iter::once(0.0).collect(),
            used: std::iter::once(0.0).collect(),
            in_use: true,
            bucket_start: now,
            running: 0,
            since: now,
            last_arrival: None,
            current: 0,
        }
    }

    pub fn params(&self) -> &AdaptiveParams {
        &self.p
    }

    /// Integrates the running count up to `now`, rolling buckets.
    fn advance(&mut self, now: f64) {
        if now <= self.since {
            return;
        }
        let r = self.running as f64;
        let on = if self.running > 0 { 1.0 } else { 0.0 };
        let used = if self.in_use { 1.0 } else { 0.0 };
        // Long gaps: whole buckets of constant demand, bounded by the window.
        let gap_buckets = ((now - self.bucket_start) / self.width).floor();
        if gap_buckets > self.p.buckets as f64 + 1.0 {
            self.buckets.clear();
            self.busy.clear();
            self.used.clear();
            for _ in 0..self.p.buckets {
                self.buckets.push_back(r * self.width);
                self.busy.push_back(on * self.width);
                self.used.push_back(used * self.width);
            }
            self.bucket_start = now - ((now - self.bucket_start) % self.width);
            self.buckets.push_back(r * (now - self.bucket_start));
            self.busy.push_back(on * (now - self.bucket_start));
            self.used.push_back(used * (now - self.bucket_start));
            self.since = now;
            return;
        }
        while now >= self.bucket_start + self.width {
            let end = self.bucket_start + self.width;
            self.add_to_newest((end - self.since).max(0.0));
            self.since = end;
            self.bucket_start = end;
            self.buckets.push_back(0.0);
            self.busy.push_back(0.0);
            self.used.push_back(0.0);
            while self.buckets.len() > self.p.buckets as usize + 1 {
                self.buckets.pop_front();
                self.busy.pop_front();
                self.used.pop_front();
            }
        }
        self.add_to_newest((now - self.since).max(0.0));
        self.since = now;
    }

    /// Adds `dt` seconds at the running count to the newest bucket.
    fn add_to_newest(&mut self, dt: f64) {
        if let Some(b) = self.buckets.back_mut() {
            *b += self.running as f64 * dt;
        }
        if let (Some(b), true) = (self.busy.back_mut(), self.running > 0) {
            *b += dt;
        }
        if let (Some(b), true) = (self.used.back_mut(), self.in_use) {
            *b += dt;
        }
    }

    /// The share of the window's time in use (some task running) with a short task running:
    /// how much of the time one slot kept for short work would be used while it could cost
    /// other work anything. Time with nothing running (an application's start, a drained
    /// cluster) counts for neither side. `None` until a quarter of a bucket in use is seen
    /// since the window began (the start, or a moved class boundary).
    fn busy_share(&self, now: f64) -> Option<f64> {
        let open = |on: bool| if on { (now - self.since).max(0.0) } else { 0.0 };
        let used = self.used.iter().sum::<f64>() + open(self.in_use);
        (used >= 0.25 * self.width).then(|| ((self.busy.iter().sum::<f64>() + open(self.running > 0)) / used).min(1.0))
    }

    /// Whether any task (of either class) runs now. The driver's policy tells it; a caller
    /// that never does has the whole window counted as in use.
    pub fn cluster_in_use(&mut self, now: f64, in_use: bool) {
        if in_use != self.in_use {
            self.advance(now);
            self.in_use = in_use;
        }
    }

    /// The class boundary moved: demand measured under the old one no longer says how
    /// much *short* work there is. Starts a fresh window (the running count stays).
    pub fn reset(&mut self, now: f64) {
        self.advance(now);
        self.buckets.clear();
        self.buckets.push_back(0.0);
        self.busy.clear();
        self.busy.push_back(0.0);
        self.used.clear();
        self.used.push_back(0.0);
        self.bucket_start = now;
        self.since = now;
    }

    /// A short job arrived (or short tasks became pending).
    pub fn short_arrived(&mut self, now: f64) {
        self.advance(now);
        self.last_arrival = Some(now);
    }

    /// The number of short tasks running changed by `delta`.
    pub fn short_running(&mut self, now: f64, delta: i32) {
        self.advance(now);
        self.running = (self.running as i64 + delta as i64).max(0) as u32;
    }

    /// Slots busy with short work on average over the window (the mean of the bucket
    /// averages, without the burstiness term).
    pub fn observed_mean(&self, now: f64) -> f64 {
        self.demand_terms(now).0
    }

    /// Slots busy with short work over the window: the mean, plus one standard deviation
    /// of the bucket averages (the burstiness observed).
    pub fn observed_demand(&self, now: f64) -> f64 {
        let (mean, sd) = self.demand_terms(now);
        mean + sd
    }

    /// The mean of the bucket averages of slots busy with short work, and their standard
    /// deviation.
    fn demand_terms(&self, now: f64) -> (f64, f64) {
        // Called on every decision: two passes over the buckets, no allocation.
        let n = self.buckets.len();
        let avg = |i: usize, b: f64| -> Option<f64> {
            let last = i + 1 == n;
            let span = if last { (now - self.bucket_start).max(0.0) } else { self.width };
            let total = if last { b + self.running as f64 * (now - self.since).max(0.0) } else { b };
            (span > 0.0 && (!last || span >= 0.25 * self.width || n == 1)).then(|| total / span)
        };
        let (mut k, mut sum) = (0.0, 0.0);
        for (i, &b) in self.buckets.iter().enumerate() {
            if let Some(a) = avg(i, b) {
                k += 1.0;
                sum += a;
            }
        }
        if k == 0.0 {
            return (self.running as f64, 0.0);
        }
        let mean = sum / k;
        let var = self
            .buckets
            .iter()
            .enumerate()
            .filter_map(|(i, &b)| avg(i, b))
            .map(|a| (a - mean) * (a - mean))
            .sum::<f64>()
            / k;
        (mean, var.sqrt())
    }

    /// The reservation at `now`, given the short tasks waiting, the live slots, and the
    /// mean interval between slot releases of long work filling the cluster (`long_gap`:
    /// the mean estimate of the running long tasks over the live slots). The full demand
    /// term applies only when that interval exceeds `min_wait`: with many slots or short
    /// long tasks, some slot frees sooner than a reserved one would pay for itself, and
    /// the waiting short tasks (which always count) take it first. The base (at most
    /// `base_fraction` of the slots) applies whenever short work is recent.
    pub fn size(&mut self, now: f64, short_waiting: u64, total_slots: u64, long_gap: f64) -> u32 {
        self.advance(now);
        let cap = (self.p.max_fraction * total_slots as f64).floor() as u64;
        let recent = self.last_arrival.is_some_and(|t| now - t <= self.p.idle);
        let demand = if recent { self.p.headroom * self.observed_demand(now) } else { 0.0 };
        let full = if long_gap > self.p.min_wait { demand.round() as u64 } else { 0 };
        let share = self.p.base_fraction * total_slots as f64;
        let base_cap = (share + 1e-9).floor() as u64;
        // Fewer than `1 / base_fraction` slots: one slot is more than the base's share, and
        // is kept only while short work uses it enough that its idle time stays within that
        // share (busy at least `1 − base_fraction × slots` of the time in use), or while too
        // little time in use is seen to tell: then it costs at most a quarter bucket.
        let uses_enough = self.busy_share(now).is_none_or(|b| 1.0 - b <= share + 1e-9);
        let base_cap = if base_cap == 0 && share > 0.0 && recent && uses_enough { 1 } else { base_cap };
        // At least one slot while short work is recent, even when the window was just reset
        // (a moved class boundary) and shows no demand yet.
        let base = if recent { (demand.ceil() as u64).max(1).min(base_cap) } else { 0 };
        self.current = full.max(base).max(short_waiting).min(cap) as u32;
        self.current
    }

    /// The size most recently computed by [`Reservation::size`].
    pub fn current(&self) -> u32 {
        self.current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults, which these tests are written against (a 60 s window of 12 buckets,
    /// headroom 1, at most half the slots, a base of a tenth from 10 slots, idle after 30 s).
    fn p() -> AdaptiveParams {
        AdaptiveParams::default()
    }

    #[test]
    fn zero_without_short_work_and_after_idle() {
        let mut r = Reservation::new(p(), 0.0);
        assert_eq!(r.size(10.0, 0, 16, 100.0), 0);
        r.short_arrived(10.0);
        assert_eq!(r.size(10.0, 2, 16, 100.0), 2, "waiting short tasks are reserved for at once");
        r.short_running(10.0, 2);
        assert_eq!(r.size(39.0, 0, 16, 100.0), 2, "the observed demand keeps it");
        r.short_running(39.0, -2);
        assert_eq!(r.size(41.0, 0, 16, 100.0), 0, "idle for longer than `idle`: shrinks to zero");
        assert_eq!(r.size(50.0, 0, 16, 100.0), 0);
        r.short_arrived(110.0);
        assert_eq!(r.size(110.0, 0, 16, 100.0), 1, "recent, the peak left the window: the base only");
        assert_eq!(r.size(110.0, 0, 9, 100.0), 0, "and no base under 10 slots");
    }

    #[test]
    fn grows_with_observed_demand_and_waiting_work() {
        let mut r = Reservation::new(p(), 0.0);
        r.short_arrived(0.0);
        r.short_running(0.0, 4);
        assert_eq!(r.size(20.0, 0, 16, 100.0), 4, "four slots busy with short work for 20 s");
        r.short_running(20.0, -4);
        // Buckets 4,4,4,4,0: mean 3.2 plus one standard deviation 1.6.
        assert_eq!(r.size(25.0, 0, 16, 100.0), 5, "the window remembers the demand, with burst headroom");
        assert_eq!(r.size(25.0, 6, 16, 100.0), 6, "waiting short tasks grow it at once");
        assert_eq!(r.size(25.0, 100, 16, 100.0), 8, "capped at max_fraction of the slots");
        r.short_arrived(100.0);
        assert_eq!(r.size(100.0, 1, 16, 100.0), 1, "the old peak left the window");
    }

    #[test]
    fn headroom_multiplies_the_demand() {
        let mut q = p();
        q.headroom = 1.5;
        let mut r = Reservation::new(q, 0.0);
        r.short_arrived(0.0);
        r.short_running(0.0, 2);
        assert_eq!(r.size(10.0, 0, 100, 100.0), 3);
    }

    #[test]
    fn frequent_long_releases_need_no_demand_term() {
        let mut r = Reservation::new(p(), 0.0);
        r.short_arrived(0.0);
        r.short_running(0.0, 4);
        assert_eq!(r.size(20.0, 0, 16, 100.0), 4);
        assert_eq!(r.size(20.0, 0, 16, 0.5), 1, "a slot frees every 0.5 s: only the base (10 % of 16)");
        assert_eq!(r.size(20.0, 3, 16, 0.5), 3, "waiting short tasks still count");
        assert_eq!(r.size(20.0, 0, 8, 0.5), 1, "8 slots, short work running all the window: its slot idles not");
        assert_eq!(r.size(20.0, 0, 40, 0.5), 4, "the base is capped at 10 %, below the demand of 4");
    }

    #[test]
    fn the_base_follows_short_arrivals_only() {
        let mut r = Reservation::new(p(), 0.0);
        assert_eq!(r.size(1.0, 0, 16, 0.0), 0, "no short work seen: nothing reserved");
        r.short_arrived(1.0);
        r.short_running(1.0, 1);
        r.short_running(1.05, -1);
        assert_eq!(r.size(2.0, 0, 16, 0.0), 1, "a little short work, waves of long work: one slot");
        assert_eq!(r.size(40.0, 0, 16, 0.0), 0, "no short arrival for `idle`: the base goes too");
        let mut q = p();
        q.base_fraction = 0.0;
        let mut r = Reservation::new(q, 0.0);
        r.short_arrived(1.0);
        r.short_running(1.0, 1);
        assert_eq!(r.size(2.0, 0, 16, 0.0), 0, "base_fraction 0 turns the base off");
    }

    #[test]
    fn below_ten_slots_the_base_slot_needs_short_work_busy_enough() {
        // One short task of 0.5 s every `gap` seconds for 30 s: busy 0.5 / gap of the time.
        let busy = |gap: f64| {
            let mut r = Reservation::new(p(), 0.0);
            let mut t = 0.0;
            while t < 30.0 {
                r.short_arrived(t);
                r.short_running(t, 1);
                r.short_running(t + 0.5, -1);
                t += gap;
            }
            r
        };
        // 8 slots: one is 12.5 % of them, over the base's 10 %; kept when busy >= 20 %.
        assert_eq!(busy(2.0).size(30.0, 0, 8, 0.0), 1, "busy 25 %: the slot idles 0.75, within 0.8");
        assert_eq!(busy(4.0).size(30.0, 0, 8, 0.0), 0, "busy 12.5 %: it would idle 0.875");
        // 4 slots: kept when busy >= 60 %.
        assert_eq!(busy(2.0).size(30.0, 0, 4, 0.0), 0, "busy 25 % of 4 slots: no base");
        assert_eq!(busy(0.75).size(30.0, 0, 4, 0.0), 1, "busy 67 %: one slot");
        // Not once short work stops arriving, and never above the 10 % share at 16 slots.
        assert_eq!(busy(0.75).size(61.0, 0, 8, 0.0), 0, "no arrival for `idle`");
        assert_eq!(busy(0.75).size(30.0, 0, 16, 0.0), 1, "16 slots: the floored share, 1");
        let mut q = p();
        q.base_fraction = 0.0;
        let mut r = Reservation::new(q, 0.0);
        r.short_arrived(0.0);
        r.short_running(0.0, 1);
        assert_eq!(r.size(20.0, 0, 8, 0.0), 0, "base_fraction 0 turns it off");
    }

    #[test]
    fn a_reset_forgets_the_demand_seen() {
        let mut r = Reservation::new(p(), 0.0);
        r.short_arrived(0.0);
        r.short_running(0.0, 6);
        r.short_running(20.0, -6);
        assert!(r.size(21.0, 0, 16, 100.0) >= 6);
        r.reset(21.0);
        assert_eq!(r.size(30.0, 0, 16, 100.0), 1, "only the base: short work arrived 30 s ago");
        assert_eq!(r.size(31.0, 0, 16, 100.0), 0, "not recent any more");
    }

    #[test]
    fn a_reset_keeps_the_base_while_short_work_is_recent() {
        // The class boundary moved just before a wave of long tasks: the window shows no
        // demand, but short jobs keep arriving, so one slot of 16 stays theirs.
        let mut r = Reservation::new(p(), 0.0);
        for i in 0..20 {
            let t = i as f64 * 0.3;
            r.short_arrived(t);
            r.short_running(t, 1);
            r.short_running(t + 0.01, -1);
        }
        r.reset(6.0);
        assert_eq!(r.size(6.0, 0, 16, 0.4), 1);
        // 8 slots: nothing seen since the reset tells whether the slot would idle, so it is
        // kept; once a quarter bucket in use shows short work running 3 % of it, it is not.
        assert_eq!(r.size(6.0, 0, 8, 0.4), 1, "8 slots, nothing seen since the reset");
        for i in 20..30 {
            let t = i as f64 * 0.3;
            r.short_arrived(t);
            r.short_running(t, 1);
            r.short_running(t + 0.01, -1);
        }
        assert_eq!(r.size(9.0, 0, 8, 0.4), 0, "8 slots: below the base share");
    }

    #[test]
    fn time_with_nothing_running_leaves_the_busy_share_as_it_was() {
        // 8 slots: short tasks of 0.1 s every 0.25 s beside long work (busy 40 %), after 20 s
        // with nothing running: over the wall time short work ran 8 % of the window.
        let stream = |r: &mut Reservation| {
            for i in 0..16 {
                let t = 20.0 + i as f64 * 0.25;
                r.short_arrived(t);
                r.short_running(t, 1);
                r.short_running(t + 0.1, -1);
            }
        };
        let mut r = Reservation::new(p(), 0.0);
        r.cluster_in_use(0.0, false);
        r.cluster_in_use(20.0, true);
        stream(&mut r);
        assert_eq!(r.size(24.0, 0, 8, 0.15), 1, "busy 40 % of the time in use: the slot is kept");
        let mut wall = Reservation::new(p(), 0.0);
        stream(&mut wall);
        assert_eq!(wall.size(24.0, 0, 8, 0.15), 0, "told nothing, every second counts: 7 %");
        // The cluster drains and sits idle: the share stays, and so does the slot while short
        // work is recent.
        r.cluster_in_use(24.0, false);
        assert_eq!(r.size(40.0, 0, 8, 0.15), 1);
    }

    #[test]
    fn long_gaps_do_not_loop() {
        let mut r = Reservation::new(p(), 0.0);
        r.short_arrived(0.0);
        r.short_running(0.0, 1);
        assert_eq!(r.size(1e9, 0, 16, 100.0), 0);
        r.short_arrived(1e9);
        assert_eq!(r.size(1e9 + 1.0, 0, 16, 100.0), 1, "one slot busy with short work all window");
    }
}
