//! The hold of the adaptive policy: when a small job ends beside larger waiting work, the
//! slots it used stay free for a while for the next arrival, so an interactive user's next
//! query or job does not find every slot taken by a long task that started the moment the
//! previous one ended. Eagle keeps a static short partition for this (SoCC'16 §3.1), and the
//! adaptive reservation sizes one from the observed short demand, which rounds to nothing on
//! small clusters and needs the short/long split learned first. The hold needs neither.
//!
//! The rule:
//! - **When.** A job ends (no task running or waiting) while other jobs wait, each with more
//!   remaining work than the job had in all (SRPT had put the job ahead of all of them); or
//!   while nothing waits, when long work has arrived lately: then a long job that arrives
//!   within the window finds the slots held ([`Hold::larger_arrived`]).
//! - **Size.** The job's tasks, at most `max_fraction` of the slots (the reservation's cap),
//!   and only beyond what the short reservation already keeps from the waiting work.
//! - **Window.** The gaps between such an end and the next job's submission are remembered
//!   (the last [`GAPS`]; a query's next stage is no new job and teaches no gap). A hold lasts
//!   their [`QUANTILE`] quantile plus one [`ROUND`], at most `hold_max` seconds (the cap
//!   before any gap is seen): the next gap is often the longest yet seen.
//!   The next submission of a job not classed long ends it (SRPT then places the new job); so
//!   does the window passing: the slots go back to the waiting work. A long job's submission
//!   is no next arrival: it ends no hold and teaches no gap.
//! - **Budget.** Over any reservation window, held slot-seconds (idle: the first arrival ends
//!   a hold) while work waits for them stay at most `hold_fraction` of the cluster's
//!   slot-seconds in that window (a cluster-mode node: of its long work's there). A hold
//!   opens only as large as the budget left pays for over its whole window, and not below
//!   one slot, so holds take at most that share of the cluster from the waiting work, on
//!   any cluster size (as the reservation's base takes at most `base_fraction` of the slots).
//!
//! - **From whom.** While long work is known (a learned split, and long work running or
//!   waiting), held slots are kept from long work only (and from a task set of a guessed size
//!   past its tenant's share): waiting short work takes them, its tasks end soon; so does long
//!   work below its tenants' pools share, with several tenants live. With no long work known,
//!   they are kept from every job.
//!
//! Invariants: a hold never exceeds the reservation's cap; held slot-seconds never exceed the
//! budget; `hold_max = 0` or `hold_fraction = 0` turns the hold off.

use super::windowed::Windowed;
use crate::types::Time;
use std::collections::VecDeque;

/// Gaps remembered.
pub const GAPS: usize = 32;
/// The quantile of the remembered gaps a hold lasts.
pub const QUANTILE: f64 = 0.9;
/// One round, seconds, added to the quantile: a submission at the moment a job ends still
/// reaches the engine a round later (the plugin re-offers idle slots every 0.2 s), and a think
/// time's gaps jitter by tens of milliseconds with the client's and the driver's load, while
/// with few gaps seen the quantile is the longest of them.
pub const ROUND: f64 = 0.2;
/// An open hold: its slots, since when it is charged (`None` while it keeps its slots from no
/// one), until when.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Open {
    slots: u32,
    from: Option<Time>,
    until: Time,
}

#[derive(Clone, Debug)]
pub struct Hold {
    max: f64,
    fraction: f64,
    gaps: VecDeque<f64>,
    /// When a small job last ended, while no submission has followed.
    ended: Option<Time>,
    open: Option<Open>,
    /// The newest gap came from the latest arrival (see [`Hold::not_a_new_unit`]).
    last_gap: bool,
    held: Windowed,
    window: f64,
    /// Holds opened, and those that ended at a submission (not by their window).
    pub opened: u64,
    pub used: u64,
}

impl Hold {
    /// `max`: the cap of a hold's window (seconds); `fraction`: the budget, held slot-seconds
    /// over the cluster's slot-seconds; `window`: the sliding window of the budget (seconds).
    pub fn new(max: f64, fraction: f64, window: f64) -> Hold {
        Hold {
            max,
            fraction,
            gaps: VecDeque::new(),
            ended: None,
            open: None,
            last_gap: false,
            held: Windowed::new(window),
            window,
            opened: 0,
            used: 0,
        }
    }

    fn on(&self) -> bool {
        self.max > 0.0 && self.fraction > 0.0
    }

    /// A job was submitted: learns the gap since a small job ended and ends the hold.
    pub fn arrived(&mut self, now: Time) {
        if let Some(d) = self.ended.take() {
            if self.gaps.len() == GAPS {
                self.gaps.pop_front();
            }
            self.gaps.push_back((now - d).max(0.0));
            self.last_gap = true;
        }
        if let Some(o) = self.open {
            if now < o.until {
                self.used += 1;
            }
            self.close(now);
        }
    }

    /// The arrival just seen was the next stage of a unit already running or just seen (a
    /// query's next stage), not a new unit: its gap says nothing of a user's think time.
    pub fn not_a_new_unit(&mut self) {
        if std::mem::take(&mut self.last_gap) {
            self.gaps.pop_back();
        }
    }

    /// How long a hold lasts now: the quantile of the gaps seen plus a round, at most `max`.
    pub fn window(&self) -> f64 {
        if self.gaps.is_empty() {
            return self.max;
        }
        let mut g: Vec<f64> = self.gaps.iter().copied().collect();
        g.sort_by(f64::total_cmp);
        let i = ((QUANTILE * g.len() as f64).ceil() as usize).clamp(1, g.len()) - 1;
        (g[i] + ROUND).min(self.max)
    }

    /// A small job of `tasks` tasks ended at `now` beside larger waiting work; the budget is
    /// `hold_fraction` of `slots` over the window (the cluster's slots in a driver; on a node,
    /// the slots its long work held on average over the window). Opens a hold of at most `cap`
    /// slots, as the budget allows, unless the `reserved` slots already cover it.
    pub fn small_ended(&mut self, now: Time, tasks: u32, slots: f64, cap: u32, reserved: u32) {
        self.open_after(now, tasks, slots, cap, reserved, true);
    }

    /// As [`Hold::small_ended`], with no work waiting at `now`: the hold keeps its slots from
    /// larger work that arrives within its window ([`Hold::larger_arrived`]), and is charged
    /// to the budget only from then.
    pub fn small_ended_alone(&mut self, now: Time, tasks: u32, slots: f64, cap: u32, reserved: u32) {
        self.open_after(now, tasks, slots, cap, reserved, false);
    }

    /// Larger work (a long job) arrived: an open hold keeps its slots from it, and is charged
    /// from now. It is no next arrival: the hold stays open and no gap is learned.
    pub fn larger_arrived(&mut self, now: Time) {
        if let Some(o) = self.open.as_mut() {
            o.from.get_or_insert(now);
        }
    }

    fn open_after(&mut self, now: Time, tasks: u32, slots: f64, cap: u32, reserved: u32, waiting: bool) {
        self.ended = Some(now);
        self.last_gap = false;
        let want = tasks.min(cap);
        if !self.on() || self.open.is_some() || want <= reserved {
            return;
        }
        let w = self.window();
        if w <= 0.0 {
            return;
        }
        let left = self.fraction * slots * self.window - self.held.total(now);
        let slots = want.min((left / w).max(0.0).floor() as u32);
        if slots >= 1 {
            self.open = Some(Open { slots, from: waiting.then_some(now), until: now + w });
            self.opened += 1;
        }
    }

    fn close(&mut self, now: Time) {
        if let Some(Open { slots, from: Some(from), until }) = self.open.take() {
            let end = now.min(until);
            self.held.add(end, slots as f64 * (end - from).max(0.0));
        }
    }

    /// Slots held at `now` (0 once the hold's window has passed).
    pub fn held(&mut self, now: Time) -> u32 {
        match self.open {
            Some(o) if now < o.until => o.slots,
            Some(_) => {
                self.close(now);
                0
            }
            None => 0,
        }
    }

    /// The slots of the open hold, expired or not (for reporting).
    pub fn current(&self) -> u32 {
        self.open.map_or(0, |o| o.slots)
    }

    /// When the open hold ends, if one is open.
    pub fn until(&self) -> Option<Time> {
        self.open.map(|o| o.until)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hold() -> Hold {
        Hold::new(2.0, 0.05, 60.0)
    }

    #[test]
    fn holds_the_jobs_slots_until_the_next_arrival_or_the_window() {
        let mut h = hold();
        h.small_ended(10.0, 2, 4.0, 2, 0);
        assert_eq!(h.held(10.0), 2, "the job's slots, before any gap is seen");
        assert_eq!(h.held(11.9), 2, "the cap is the window");
        h.arrived(10.3);
        assert_eq!(h.held(10.3), 0, "an arrival ends it");
        assert!((h.window() - (0.3 + ROUND)).abs() < 1e-9, "and its gap is learned");
        h.small_ended(11.0, 1, 4.0, 2, 0);
        assert_eq!(h.held(11.4), 1, "one task, one slot");
        assert_eq!(h.held(11.6), 0, "the learned window has passed");
        let mut z = hold();
        z.small_ended(12.0, 1, 4.0, 2, 0);
        z.arrived(12.0);
        assert_eq!(z.window(), ROUND, "a submission at the end itself: the hold still lasts a round");
        assert_eq!((h.opened, h.used), (2, 1));
        h.small_ended(20.0, 8, 4.0, 2, 0);
        assert_eq!(h.held(20.0), 2, "at most the cap");
    }

    #[test]
    fn the_window_is_a_high_quantile_of_the_gaps_capped() {
        let mut h = hold();
        for (i, gap) in [0.1, 0.2, 0.1, 0.3, 0.1, 0.1, 0.2, 0.1, 0.1, 1.5].iter().enumerate() {
            let t = 10.0 * i as f64;
            h.small_ended(t, 0, 4.0, 2, 0);
            h.arrived(t + gap);
        }
        assert!(
            (h.window() - (0.3 + ROUND)).abs() < 1e-9,
            "the ninth smallest of ten gaps: one long gap does not count"
        );
        for t in [200.0, 300.0] {
            h.small_ended(t, 0, 4.0, 2, 0);
            h.arrived(t + 5.0);
        }
        assert_eq!(h.window(), 2.0, "two long gaps of twelve do, capped at the maximum");
    }

    #[test]
    fn the_budget_bounds_the_held_slot_seconds() {
        // 4 slots over a 60 s window: 240 slot-seconds, a budget of 12 at fraction 0.05.
        // A user who thinks 1.9 s between small jobs would have 2 slots held 95 % of the time.
        let mut h = hold();
        let mut held = Vec::new();
        let mut t = 10.0;
        for _ in 0..60 {
            h.small_ended(t, 2, 4.0, 2, 0);
            held.push((t, h.held(t) as f64 * 1.9));
            h.arrived(t + 1.9);
            t += 2.0;
        }
        for &(at, _) in &held {
            let window: f64 = held.iter().filter(|(t, _)| *t > at - 60.0 && *t <= at).map(|(_, c)| c).sum();
            assert!(window <= 0.05 * 4.0 * 60.0 + 1e-9, "held {window} slot-seconds in the 60 s to {at}");
        }
        let total: f64 = held.iter().map(|(_, c)| c).sum();
        assert!(total > 12.0, "the budget renews as the window slides: {total}");
        assert!(held.iter().any(|(_, c)| *c == 0.0), "and stops others");
    }

    #[test]
    fn nothing_is_held_when_off_without_work_or_when_reserved() {
        let mut off = Hold::new(0.0, 0.05, 60.0);
        off.small_ended(10.0, 2, 4.0, 2, 0);
        assert_eq!(off.held(10.0), 0);
        let mut none = Hold::new(2.0, 0.0, 60.0);
        none.small_ended(10.0, 2, 4.0, 2, 0);
        assert_eq!(none.held(10.0), 0, "no budget");
        let mut h = hold();
        h.small_ended(10.0, 2, 4.0, 2, 2);
        assert_eq!(h.held(10.0), 0, "the reservation already keeps the job's slots");
    }

    #[test]
    fn a_hold_opened_with_nothing_waiting_keeps_its_slots_from_a_larger_arrival_and_is_charged_from_it() {
        // 4 slots over a 60 s window: a budget of 12 slot-seconds.
        let mut h = hold();
        for k in 0..20 {
            // Held for no one: no charge, however long.
            let t = 10.0 + 2.0 * k as f64;
            h.small_ended_alone(t, 2, 4.0, 2, 0);
            assert_eq!(h.held(t), 2, "the budget is untouched at {t}");
            h.arrived(t + 1.9);
        }
        h.small_ended_alone(60.0, 2, 4.0, 2, 0);
        h.larger_arrived(60.5);
        assert_eq!(h.held(60.6), 2, "a long job's arrival does not end it");
        h.larger_arrived(60.8);
        h.arrived(61.0);
        assert_eq!(h.held(61.0), 0, "the next small arrival does");
        assert!((h.held.total(61.0) - 1.0).abs() < 1e-9, "charged 2 slots from 60.5 to 61.0");
        assert_eq!(h.opened, 21, "76 slot-seconds held for no one, past the budget of 12, charged nothing");
    }

    #[test]
    fn a_next_gap_a_little_longer_than_every_gap_seen_still_finds_the_hold() {
        // A user thinking 0.3 s: the gaps the engine sees jitter by tens of milliseconds (the
        // client, the submission path, the plugin's round), and the next may be the longest.
        let mut h = hold();
        let mut t = 10.0;
        for gap in [0.35, 0.33, 0.33] {
            h.small_ended(t, 2, 4.0, 2, 0);
            h.arrived(t + gap);
            t += 1.0;
        }
        h.small_ended(t, 2, 4.0, 2, 0);
        assert_eq!(h.held(t + 0.45), 2, "a gap 100 ms past the longest seen still finds the slots");
        assert_eq!(h.held(t + 1.0), 0, "and the window still ends well before the cap");
    }

    #[test]
    fn a_next_stage_teaches_no_gap() {
        let mut h = hold();
        h.small_ended(10.0, 1, 4.0, 2, 0);
        h.arrived(10.01);
        h.not_a_new_unit();
        assert_eq!(h.window(), 2.0, "no gap learned: the cap");
        h.small_ended(11.0, 1, 4.0, 2, 0);
        h.arrived(11.4);
        assert!((h.window() - (0.4 + ROUND)).abs() < 1e-9);
    }
}
