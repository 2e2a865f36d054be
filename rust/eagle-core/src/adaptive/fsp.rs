//! The Fair Sojourn Protocol order (Friedman and Henderson, SIGMETRICS 2003): serve the
//! unit that would finish first under processor sharing (PS, what Spark's FAIR scheduler
//! approximates). On one server with exact sizes no unit then ends later than under PS
//! (here, with tasks on many slots and estimated sizes, that is the aim, not a bound),
//! while the units that fair sharing would end early still go first, as under SRPT.
//!
//! A *unit* is what a user waits for: a group (a SQL query or a Spark job with stages) or
//! a task set outside any group, as in [`crate::adaptive::arrivals`]. Under PS every unit in the
//! system receives an equal part of the service, so all of them progress along one virtual
//! clock `V` (the slot-seconds each has received), and a unit that arrived at `V_a` with
//! `S` slot-seconds of work ends in PS when `V` reaches `F = V_a + S`: its *virtual finish
//! tag*, as in fair queueing. New arrivals slow `V` down but do not reorder the tags, so
//! the order by `F` is the order in which PS would end the units. The tag of a unit is
//! `V_a + served + remaining`, with `served` the estimated work of the tasks it launched:
//! launching a task leaves the tag where it is; a better estimate or a newly submitted
//! stage moves it.
//!
//! The clock runs on the work the cluster actually starts, not on its slot count: each
//! launch of a task estimated at `e` advances `V` by `e / n`, `n` the units PS has not
//! ended. Short Spark tasks cost far more than their estimates (launch, status updates), so
//! a clock at `slots` slot-seconds a second would run far ahead of the real service, "end"
//! every unit early, and serve the late ones in arrival order.
//!
//! Against SRPT (the adaptive policy's default key) a unit's age counts: a mid-size job
//! that a stream of smaller ones bypasses rises as `V` passes the tags of the newcomers,
//! and is first once PS would have ended it, without the starvation deadline's factor.
//! PS here ignores that a unit cannot use more slots than it has tasks waiting.
//!
//! Memory: a unit whose jobs have all left keeps its tag only until `V` passes it (a
//! query between two stages is still in the system under PS).

use std::collections::{BTreeSet, HashMap};

/// How the adaptive policy orders the jobs a free slot may serve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Order {
    /// Least remaining work of the unit first, with the starvation deadline.
    #[default]
    Srpt,
    /// Earliest virtual finish under processor sharing first (this module).
    Fsp,
}

impl Order {
    pub fn parse(s: &str) -> Result<Order, crate::error::ConfigError> {
        match s.to_ascii_lowercase().as_str() {
            "srpt" => Ok(Order::Srpt),
            "fsp" => Ok(Order::Fsp),
            _ => Err(crate::error::ConfigError::UnknownOrder(s.to_string())),
        }
    }
}

/// What a user waits for: a group, or a task set in none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    Group(u64),
    Job(u32),
}

#[derive(Clone, Debug)]
struct Tag {
    /// `V` when the unit arrived.
    start: f64,
    /// Estimated work of the tasks it launched (slot-seconds).
    served: f64,
    /// `start + served + remaining` as last filed.
    finish: f64,
    /// Whether a live job belongs to it.
    live: bool,
}

/// The virtual clock of processor sharing and the tags of the units in it.
#[derive(Clone, Debug, Default)]
pub struct FairClock {
    v: f64,
    /// Units PS has not ended yet, by tag: `n(t)` is its length.
    active: BTreeSet<(u64, Unit)>,
    tags: HashMap<Unit, Tag>,
}

/// An ordered key over a non-negative `f64` (its bits sort like the number).
fn bits(x: f64) -> u64 {
    x.max(0.0).to_bits()
}

impl FairClock {
    /// The cluster delivered `work` (the estimate of a task it started): processor sharing
    /// gives each unit in the system an equal part of it, ending the units it reaches.
    pub fn deliver(&mut self, work: f64) {
        let mut w = work;
        while w > 0.0 {
            let Some(&(f, u)) = self.active.first() else { break };
            let n = self.active.len() as f64;
            let need = (f64::from_bits(f) - self.v).max(0.0) * n;
            if need > w {
                self.v += w / n;
                break;
            }
            self.v = self.v.max(f64::from_bits(f));
            w -= need;
            self.active.pop_first();
            if self.tags.get(&u).is_some_and(|t| !t.live) {
                self.tags.remove(&u);
            }
        }
    }

    /// The current virtual time (slot-seconds each unit in the system has received).
    pub fn now(&self) -> f64 {
        self.v
    }

    /// Files `unit` with `remaining` work left (it arrives now if unknown) and returns its tag.
    pub fn file(&mut self, unit: Unit, remaining: f64) -> f64 {
        let v = self.v;
        let t = self.tags.entry(unit).or_insert(Tag { start: v, served: 0.0, finish: v, live: true });
        t.live = true;
        let old = t.finish;
        t.finish = t.start + t.served + remaining.max(0.0);
        let finish = t.finish;
        self.active.remove(&(bits(old), unit));
        if finish > v {
            self.active.insert((bits(finish), unit));
        }
        finish
    }

    /// `unit` launched (`work` > 0) or took back (`work` < 0) a task of that estimate.
    pub fn served(&mut self, unit: Unit, work: f64) {
        if let Some(t) = self.tags.get_mut(&unit) {
            t.served = (t.served + work).max(0.0);
        }
    }

    /// Moves what `from` has been served to `to` (a task set joining a group) and forgets `from`.
    pub fn merge(&mut self, from: Unit, to: Unit) {
        if let Some(t) = self.tags.remove(&from) {
            self.active.remove(&(bits(t.finish), from));
            let v = self.v;
            let g = self.tags.entry(to).or_insert(Tag { start: t.start.min(v), served: 0.0, finish: v, live: true });
            g.served += t.served;
        }
    }

    /// No live job belongs to `unit` any more; `left` is the work it still has (stages of a
    /// group not submitted yet). Its tag goes once `V` passes it.
    pub fn leave(&mut self, unit: Unit, left: f64) {
        let v = self.v;
        let Some(t) = self.tags.get_mut(&unit) else { return };
        t.live = false;
        let old = t.finish;
        t.finish = t.start + t.served + left.max(0.0);
        self.active.remove(&(bits(old), unit));
        if t.finish > v {
            self.active.insert((bits(t.finish), unit));
        } else {
            self.tags.remove(&unit);
        }
    }

    /// Units remembered (bounded memory checks).
    pub fn len(&self) -> usize {
        self.tags.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tags.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lone_unit_ends_when_its_work_is_delivered() {
        let mut c = FairClock::default();
        assert_eq!(c.file(Unit::Job(0), 8.0), 8.0);
        c.deliver(4.0);
        assert!((c.now() - 4.0).abs() < 1e-9);
        c.deliver(6.0);
        // Ended at 8; the clock stops with nothing in PS.
        assert!((c.now() - 8.0).abs() < 1e-9, "{}", c.now());
        assert_eq!(c.active.len(), 0);
    }

    #[test]
    fn the_clock_slows_with_more_units_and_an_old_unit_overtakes_newer_small_ones() {
        let mut c = FairClock::default();
        let big = c.file(Unit::Job(0), 10.0);
        c.deliver(2.0); // one unit: V = 2
        c.file(Unit::Job(1), 100.0);
        c.deliver(2.0); // two units: V = 3
        assert!((c.now() - 3.0).abs() < 1e-9);
        // A newcomer of 8 slot-seconds has less work than the old unit's 10 (SRPT would
        // serve it first), but PS ends the old one first: its tag is lower.
        let small = c.file(Unit::Job(2), 8.0);
        assert!(big < small, "{big} {small}");
    }

    #[test]
    fn launching_keeps_the_tag_and_a_departed_unit_is_forgotten_once_passed() {
        let mut c = FairClock::default();
        let t0 = c.file(Unit::Group(7), 4.0);
        c.served(Unit::Group(7), 1.0);
        assert_eq!(c.file(Unit::Group(7), 3.0), t0);
        c.leave(Unit::Group(7), 0.0);
        assert_eq!(c.len(), 1, "still ahead of V = 0");
        c.deliver(10.0);
        assert_eq!(c.len(), 0);
        assert!(c.is_empty());
    }

    #[test]
    fn a_task_set_joining_a_group_brings_its_service_and_age() {
        let mut c = FairClock::default();
        c.file(Unit::Job(3), 2.0);
        c.served(Unit::Job(3), 1.0);
        c.deliver(5.0); // V = 2: the task set alone ended in PS
        c.merge(Unit::Job(3), Unit::Group(1));
        let f = c.file(Unit::Group(1), 5.0);
        assert_eq!(f, 0.0 + 1.0 + 5.0);
        assert_eq!(c.len(), 1);
    }
}
