//! Arrivals of short *units*: what a user submits and waits for, a SQL query or a Spark
//! job (a group), or a task set outside any group. A query's later stages are task sets
//! of the same group and are not new arrivals, even when the previous stage has left
//! before the next one is submitted, as Spark's adaptive execution does.
//!
//! The adaptive policy holds short work to its cap under the long share only while short
//! units keep arriving (or the share lets the long work end first): a burst that stopped
//! arriving a window ago is a finite backlog, and long work's wait behind it is bounded
//! by that backlog (docs/policies/adaptive.md, "Long work keeps a share").

use crate::types::Time;
use std::collections::HashMap;

/// Past this many remembered groups, those not seen within the window are forgotten, and
/// all of them if every one was (a forgotten group's next stage then counts as an
/// arrival, which only keeps the share a window longer).
pub const RECENT_GROUPS: usize = 4096;

#[derive(Clone, Debug)]
pub struct ShortArrivals {
    /// When the last short unit arrived.
    last: Time,
    /// The newest task set, its submission time and `last` before it: undone if the task
    /// set turns out to belong to a group seen lately.
    undo: Option<(u32, Time, Time)>,
    /// Groups with when a task set of theirs last arrived or left.
    recent: HashMap<u64, Time>,
}

impl Default for ShortArrivals {
    fn default() -> Self {
        ShortArrivals { last: f64::NEG_INFINITY, undo: None, recent: HashMap::new() }
    }
}

impl ShortArrivals {
    /// Task set `job` was submitted at `now`; `short` if it has short tasks to run. It
    /// counts as a unit's arrival unless [`ShortArrivals::grouped`] follows for a group
    /// seen lately.
    pub fn submitted(&mut self, job: u32, now: Time, short: bool) {
        self.undo = Some((job, now, self.last));
        if short {
            self.last = now;
        }
    }

    /// Task set `job` belongs to `group`; `live` if the group has another live task set.
    /// A group live or seen within `window` makes the task set no new arrival: returns true
    /// then.
    pub fn grouped(&mut self, job: u32, group: u64, live: bool, window: f64) -> bool {
        let Some((_, at, before)) = self.undo.filter(|u| u.0 == job) else { return false };
        self.undo = None;
        let continued = live || self.recent.get(&group).is_some_and(|&t| at - t <= window);
        if continued {
            self.last = before;
        }
        self.remember(group, at, window);
        continued
    }

    /// A task set of `group` left at `now`.
    pub fn left(&mut self, group: u64, now: Time, window: f64) {
        self.remember(group, now, window);
    }

    /// Whether a short unit arrived within `window` of `now`.
    pub fn within(&self, now: Time, window: f64) -> bool {
        now - self.last <= window
    }

    fn remember(&mut self, group: u64, at: Time, window: f64) {
        self.recent.insert(group, at);
        if self.recent.len() > RECENT_GROUPS {
            self.recent.retain(|_, t| at - *t <= window);
            if self.recent.len() > RECENT_GROUPS {
                self.recent.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_query_s_next_stage_is_no_arrival_even_after_the_previous_one_left() {
        let mut a = ShortArrivals::default();
        assert!(!a.within(0.0, 60.0), "nothing has arrived");
        a.submitted(1, 5.0, true);
        a.grouped(1, 7, false, 60.0);
        assert!(a.within(65.0, 60.0) && !a.within(65.1, 60.0));
        // Stage 1 leaves at 50 s; stage 2 of the same query comes at 100 s: no arrival.
        a.left(7, 50.0, 60.0);
        a.submitted(2, 100.0, true);
        a.grouped(2, 7, false, 60.0);
        assert!(!a.within(100.0, 60.0));
        // A new query is; so is a task set outside any group, and a long one is not.
        a.submitted(3, 101.0, true);
        a.grouped(3, 8, false, 60.0);
        assert!(a.within(161.0, 60.0) && !a.within(161.1, 60.0));
        a.submitted(4, 200.0, true);
        assert!(a.within(200.0, 60.0));
        a.submitted(5, 300.0, false);
        a.grouped(5, 9, false, 60.0);
        assert!(!a.within(300.0, 60.0));
        // A short stage of a live group, and one of a group last seen over a window ago.
        a.submitted(6, 301.0, true);
        a.grouped(6, 9, true, 60.0);
        assert!(!a.within(301.0, 60.0));
        a.submitted(7, 500.0, true);
        a.grouped(7, 7, false, 60.0);
        assert!(a.within(500.0, 60.0), "group 7 was last seen at 100 s");
        // A late `grouped` for an older task set changes nothing.
        a.submitted(8, 600.0, true);
        a.grouped(7, 9, true, 60.0);
        assert!(a.within(600.0, 60.0));
    }

    #[test]
    fn the_memory_of_groups_stays_bounded() {
        let mut a = ShortArrivals::default();
        for g in 0..3 * RECENT_GROUPS as u64 {
            let t = g as f64 * 0.001;
            a.submitted(g as u32, t, true);
            a.grouped(g as u32, g, false, 60.0);
            assert!(a.recent.len() <= RECENT_GROUPS);
        }
        // Spread over time, the pruning keeps the window's groups.
        let mut a = ShortArrivals::default();
        for g in 0..2 * RECENT_GROUPS as u64 {
            a.left(g, g as f64, 60.0);
        }
        assert!(a.recent.len() <= RECENT_GROUPS && a.recent.len() >= 60, "{}", a.recent.len());
    }
}
