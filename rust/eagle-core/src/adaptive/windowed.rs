//! A sum over a sliding window, kept in buckets: the budgets of the hold ([`super::hold`])
//! and of the cluster-mode nodes' steal (`eagle-node`), slot-seconds spent over the last
//! window. Invariant: an amount counts for at least `window` and at most `window` plus one
//! bucket after it was added.

use crate::types::Time;
use std::collections::VecDeque;

/// Buckets of the sliding window of the budget.
const BUCKETS: usize = 12;

/// A sum over a sliding window, in buckets.
#[derive(Clone, Debug)]
pub struct Windowed {
    width: f64,
    buckets: VecDeque<(f64, f64)>,
}

impl Windowed {
    /// A sum over the last `window` (seconds, or any unit `now` is in).
    pub fn new(window: f64) -> Windowed {
        Windowed { width: (window / BUCKETS as f64).max(1e-9), buckets: VecDeque::new() }
    }

    /// Adds `amount` at `now` (times never decrease).
    pub fn add(&mut self, now: Time, amount: f64) {
        if amount <= 0.0 {
            return;
        }
        let start = (now / self.width).floor() * self.width;
        match self.buckets.back_mut() {
            Some(b) if b.0 >= start => b.1 += amount,
            _ => self.buckets.push_back((start, amount)),
        }
        let horizon = now - self.width * BUCKETS as f64;
        while self.buckets.front().is_some_and(|b| b.0 + self.width <= horizon) {
            self.buckets.pop_front();
        }
    }

    /// The sum of the amounts added within the window before `now`.
    pub fn total(&self, now: Time) -> f64 {
        let horizon = now - self.width * BUCKETS as f64;
        self.buckets.iter().filter(|b| b.0 + self.width > horizon).map(|b| b.1).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_leave_the_sum_once_the_window_has_passed() {
        let mut w = Windowed::new(60.0);
        w.add(0.0, 2.0);
        w.add(30.0, 3.0);
        assert_eq!(w.total(30.0), 5.0);
        assert_eq!(w.total(59.0), 5.0);
        assert_eq!(w.total(66.0), 3.0, "the first bucket left after one window and a bucket");
        assert_eq!(w.total(200.0), 0.0);
        w.add(200.0, 0.0);
        assert_eq!(w.total(200.0), 0.0, "nothing added");
    }
}
