//! A session's own guess for a task set of unknown size (adaptive, with tenants:
//! docs/policies/adaptive.md, "A size nothing knows").
//!
//! A task set with no hint and no history enters at the application's typical task, which in
//! a shared server is a user's query stage. An ETL session's next stage is far more often
//! like its own last stages than like a query's, so a session whose last [`RECENT`] measured
//! task sets (at least two) were all long guesses long: the median of them. A session with
//! any short one among them keeps the typical task, so a user's first query is guessed as
//! before. Each is a warm mean measured at a task set's end (Eagle §3.1 estimates a job from
//! the durations of its own tasks; here a session's stages stand in for a job's tasks).
//!
//! **Invariant.** Memory is bounded: at most [`SESSIONS`] sessions, the least recently
//! ended forgotten first, each with its last [`RECENT`] means.
use std::collections::{HashMap, VecDeque};

/// How many of a session's ended task sets its guess looks at.
pub const RECENT: usize = 3;

/// How many sessions are remembered.
pub const SESSIONS: usize = 4096;

#[derive(Clone, Debug, Default)]
pub(super) struct Sessions {
    /// By session: when it last ended a task set (a counter), its last means.
    recent: HashMap<u64, (u64, VecDeque<f64>)>,
    clock: u64,
}

impl Sessions {
    /// A task set of `session` ended with a measured warm mean of `mean` seconds.
    pub(super) fn ended(&mut self, session: u64, mean: f64) {
        if !(mean.is_finite() && mean > 0.0) {
            return;
        }
        self.clock += 1;
        if !self.recent.contains_key(&session) && self.recent.len() >= SESSIONS {
            if let Some(&oldest) = self.recent.iter().min_by_key(|(_, (at, _))| *at).map(|(s, _)| s) {
                self.recent.remove(&oldest);
            }
        }
        let e = self.recent.entry(session).or_default();
        e.0 = self.clock;
        if e.1.len() == RECENT {
            e.1.pop_front();
        }
        e.1.push_back(mean);
    }

    /// The estimate of a task set of unknown size from `session`: the median of its last
    /// means while there are at least two and every one is past `cutoff`.
    pub(super) fn guess(&self, session: u64, cutoff: f64) -> Option<f64> {
        let (_, means) = self.recent.get(&session)?;
        if means.len() < 2 || means.iter().any(|&m| m <= cutoff) {
            return None;
        }
        let mut v: Vec<f64> = means.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let mid = v.len() / 2;
        Some(if v.len() % 2 == 1 { v[mid] } else { (v[mid - 1] + v[mid]) / 2.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_guesses_long_only_while_its_recent_task_sets_all_were() {
        let mut s = Sessions::default();
        s.ended(1, 3.0);
        assert_eq!(s.guess(1, 0.4), None, "one task set is no pattern");
        s.ended(1, 5.0);
        assert_eq!(s.guess(1, 0.4), Some(4.0));
        s.ended(1, 0.2);
        assert_eq!(s.guess(1, 0.4), None, "a short one among them");
        for m in [6.0, 2.0, 9.0] {
            s.ended(1, m);
        }
        assert_eq!(s.guess(1, 0.4), Some(6.0), "the last {RECENT} only");
        assert_eq!(s.guess(2, 0.4), None);
    }

    #[test]
    fn the_least_recently_seen_session_is_forgotten_first() {
        let mut s = Sessions::default();
        for k in 0..SESSIONS as u64 {
            s.ended(k, 1.0);
            s.ended(k, 1.0);
        }
        s.ended(0, 1.0);
        s.ended(SESSIONS as u64, 1.0);
        assert_eq!(s.recent.len(), SESSIONS);
        assert!(s.guess(0, 0.5).is_some(), "seen last but one");
        assert!(s.guess(1, 0.5).is_none(), "the oldest is gone");
    }
}
