//! The size of the short-only partition (`--short-partition`).
//!
//! Eagle (§3.1) keeps a fixed share of the nodes for short work only, sized offline from
//! the short jobs' share of task-seconds. On a live cluster that share is not known in
//! advance; with too small a share, short jobs queue on the short-only hosts while every
//! other host is closed to them by Succinct State Sharing.
//!
//! `adaptive` keeps the paper's share as a floor and grows the partition to the short
//! demand the drivers report (`ShortLoad{running, waiting}`, summed), observed over a
//! sliding window by eagle-core's [`Reservation`] (mean of the bucket averages plus one
//! standard deviation, reset after `idle` seconds without short work, at most
//! `max_fraction` of the live slots). Waiting tasks count: a saturated partition shows its
//! deficit only as a queue. The partition is the smallest prefix of the live hosts whose
//! slots cover that demand, never fewer hosts than the fixed share nor every host. A host
//! that joins it takes no new long placements; nothing queued is moved, and its SSS bit
//! clears when its last long work ends.
//!
//! `slots` keeps the same demand as slots on every host instead of whole hosts: one slot of
//! each host in turn, then a second, and so on ([`short_slots_per_host`]); each node is told
//! its count (`ShortSlots`), holds long work in its other slots, and queues short probes
//! whatever long work it holds (docs/results.md, "The adaptive short partition,
//! measured"). A host whose every slot is kept takes no long placement.
//!
//! When the drivers' hosts (`Executors`) differ, the hosts are taken in [`cover_order`], and
//! the partition spans at least [`cover_len`] hosts, up to half of them, so that every
//! application that has run short work has a short-only host among its own: §3.1's
//! guarantee holds for each application.

use crate::ids::ConnId;
use eagle_core::adaptive::reservation::{AdaptiveParams, Reservation};
use eagle_core::eagle::partition::short_only_count;
use eagle_core::types::NodeId;
use std::collections::{BTreeMap, BTreeSet};

/// How the short-only partition is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortPartition {
    /// The paper's: `round(short_fraction × hosts)` hosts.
    Fixed,
    /// At least that, grown to the drivers' observed short demand.
    Adaptive,
    /// The same demand, kept as slots spread over the hosts rather than whole hosts.
    Slots,
    /// As `Adaptive`, and never past the short class's share of the whole demand
    /// ([`share_of_demand`]): while long work queues too, short work takes no more of the
    /// slots than its share of the tasks running and waiting.
    Share,
}

impl ShortPartition {
    /// `--short-partition fixed|adaptive`.
    pub fn parse(s: &str) -> Result<ShortPartition, crate::error::FlagError> {
        match s {
            "fixed" => Ok(ShortPartition::Fixed),
            "adaptive" => Ok(ShortPartition::Adaptive),
            "slots" => Ok(ShortPartition::Slots),
            "share" => Ok(ShortPartition::Share),
            _ => Err(crate::error::FlagError::UnknownShortPartition(s.to_string())),
        }
    }

    /// The name `parse` reads.
    pub fn name(self) -> &'static str {
        match self {
            ShortPartition::Fixed => "fixed",
            ShortPartition::Adaptive => "adaptive",
            ShortPartition::Slots => "slots",
            ShortPartition::Share => "share",
        }
    }
}

/// `--short-partition share`: the slots short work may take out of `total_slots`, given
/// its demand `short` (slots, as [`ShortDemand::slots`] observes it) and the long tasks
/// placed and not over (`long`, running or queued at the nodes): `short` while no long
/// work waits, else its share of both, rounded up. The fixed share stays the floor (the
/// caller's). Why: with a flat cap of half the slots, short work that queues took half the
/// hosts while long work queued on the rest, though on a machine short of CPU those hosts
/// bought short work little (docs/results.md).
pub fn share_of_demand(total_slots: u64, short: u32, long: u64) -> u32 {
    if long == 0 || short == 0 {
        return short;
    }
    let share = (total_slots * short as u64).div_ceil(short as u64 + long);
    share.min(short as u64) as u32
}

/// The window the central observes short demand over: shorter than the driver's (60 s),
/// since a host's long queue takes seconds to drain and a partition sized for last
/// minute's burst would hold hosts back from long work long after it.
pub fn params() -> AdaptiveParams {
    AdaptiveParams {
        window: 10.0,
        buckets: 10,
        headroom: 1.0,
        max_fraction: 0.5,
        // The fixed share is the floor; no extra base.
        base_fraction: 0.0,
        idle: 10.0,
        // Unused here (no long share, the demand term always applies).
        long_share: 0.0,
        min_wait: 0.0,
        deadline_factor: 1.0,
        order: eagle_core::adaptive::fsp::Order::Srpt,
        // No hold: the central sizes a partition, it does not hand out slots.
        hold_max: 0.0,
        hold_fraction: 0.0,
        // Nor preemption: the central kills nothing.
        preempt_after: 0.0,
        preempt_fraction: 0.0,
    }
}

/// What the short demand counts of the drivers' `ShortLoad`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Short tasks running plus waiting (`adaptive`): a saturated partition of whole hosts
    /// shows its deficit only as a queue, since short probes are shut out of every other
    /// host.
    Queue,
    /// Short tasks holding a slot (`slots`). Kept slots do not bound where short work runs:
    /// every host queues short probes and hands a freed slot to them by SRPT, so the slots
    /// short work holds grow with its load without a queue term. A queue is not slots of
    /// need either: a job of 400 short tasks waiting is one wave after another, and counting
    /// it would hold the demand at its cap (half the slots) through every burst
    /// (docs/results.md, "short slots kept on every host"), leaving long work half the
    /// cluster.
    Held,
}

/// The drivers' short load, and the demand observed from it.
#[derive(Clone, Debug)]
pub struct ShortDemand {
    window: Reservation,
    measure: Measure,
    /// Per driver connection: short tasks (running, waiting) as last reported.
    loads: BTreeMap<ConnId, (u32, u32)>,
}

impl ShortDemand {
    pub fn new(now: f64, measure: Measure) -> ShortDemand {
        ShortDemand { window: Reservation::new(params(), now), measure, loads: BTreeMap::new() }
    }

    /// The slots a driver's load counts for.
    fn weight(&self, (running, waiting): (u32, u32)) -> i64 {
        match self.measure {
            Measure::Queue => running as i64 + waiting as i64,
            Measure::Held => running as i64,
        }
    }

    /// A driver's `ShortLoad`. More tasks waiting than it last said is an arrival.
    pub fn report(&mut self, now: f64, conn: ConnId, running: u32, waiting: u32) {
        let before = self.loads.insert(conn, (running, waiting)).unwrap_or((0, 0));
        if waiting > before.1 {
            self.window.short_arrived(now);
        }
        let delta = self.weight((running, waiting)) - self.weight(before);
        self.window.short_running(now, delta.clamp(i32::MIN as i64, i32::MAX as i64) as i32);
    }

    /// A driver's connection closed: its load is gone.
    pub fn gone(&mut self, now: f64, conn: ConnId) {
        if let Some(load) = self.loads.remove(&conn) {
            self.window.short_running(now, -(self.weight(load).min(i32::MAX as i64) as i32));
        }
    }

    /// The slots to keep for short work at `now`, out of `total_slots` live ones. Demand
    /// stays current while any short task waits, however long ago it arrived.
    pub fn slots(&mut self, now: f64, total_slots: u64) -> u32 {
        if self.loads.values().any(|&(_, w)| w > 0) {
            self.window.short_arrived(now);
        }
        self.window.size(now, 0, total_slots, f64::INFINITY)
    }

    /// The size most recently computed.
    pub fn current(&self) -> u32 {
        self.window.current()
    }
}

/// How many of the live hosts (in partition order, with these slot counts) form the
/// short-only partition: the fewest whose slots cover `short_slots`, at least the fixed
/// share `fraction`, never every host (and none of fewer than two).
pub fn short_only_hosts(slots: &[u32], fraction: f64, short_slots: u32) -> usize {
    let n = slots.len();
    let floor = short_only_count(n, fraction);
    if n < 2 {
        return floor;
    }
    let (mut k, mut covered) = (0, 0u64);
    while k < n && covered < short_slots as u64 {
        covered += slots[k] as u64;
        k += 1;
    }
    k.max(floor).min(n - 1)
}

/// `--short-partition slots`: the slots each live host (in partition order, with these
/// slot counts) keeps for short work. They cover `short_slots`, at least the fixed share's
/// (the slots of its `round(fraction × hosts)` hosts), never every slot; they are dealt
/// one per host in turn, lowest index first, so a host keeps a second only once every
/// host keeps one.
pub fn short_slots_per_host(slots: &[u32], fraction: f64, short_slots: u32) -> Vec<u32> {
    let total: u64 = slots.iter().map(|&s| s as u64).sum();
    let floor: u64 = slots[..short_only_count(slots.len(), fraction).min(slots.len())].iter().map(|&s| s as u64).sum();
    let mut want = (short_slots as u64).max(floor).min(total.saturating_sub(1));
    let mut kept = vec![0u32; slots.len()];
    while want > 0 {
        for (k, &s) in kept.iter_mut().zip(slots) {
            if want > 0 && *k < s {
                *k += 1;
                want -= 1;
            }
        }
    }
    kept
}

/// The order in which the short reservation takes the `live` hosts (`(id, name)`, by id):
/// index order (the paper's: every job may run on every node), except that each next host
/// is the one where the most drivers not yet covered have executors (`drivers`: each
/// driver's hosts, by name), lowest index on ties; once every driver with a live host is
/// covered, coverage starts again. So the fixed share's few hosts, and the first slots
/// `--short-partition slots` keeps, are on the hosts of as many applications as they can
/// be, and an application with executors on some hosts is not left without any short-only
/// host or kept slot while another application's hosts hold them all. With every driver on
/// every host, or no driver, the order is index order. Costs hosts² × drivers.
pub fn cover_order(live: &[(NodeId, &str)], drivers: &[&BTreeSet<String>]) -> Vec<NodeId> {
    // Only drivers with a live host can be covered.
    let sets: Vec<&BTreeSet<String>> =
        drivers.iter().copied().filter(|s| live.iter().any(|(_, h)| s.contains(*h))).collect();
    let mut left = live.to_vec();
    let mut order = Vec::with_capacity(live.len());
    let mut covered = vec![false; sets.len()];
    while !left.is_empty() {
        if covered.iter().all(|&c| c) {
            covered.fill(false);
        }
        let gain = |h: &str| sets.iter().zip(&covered).filter(|(s, &c)| !c && s.contains(h)).count();
        let mut best = 0;
        for i in 1..left.len() {
            if gain(left[i].1) > gain(left[best].1) {
                best = i;
            }
        }
        let (n, h) = left.remove(best);
        for (s, c) in sets.iter().zip(covered.iter_mut()) {
            *c |= s.contains(h);
        }
        order.push(n);
    }
    order
}

/// How many of the first hosts of `order` (by name) it takes to hold a host of every
/// driver in `drivers` (each driver's hosts) that has a host in `order` at all: the
/// shortest prefix a short partition must span so that every application with short work
/// has a short-only host, or a kept slot, among its own. 0 with no such driver.
pub fn cover_len(order: &[&str], drivers: &[&BTreeSet<String>]) -> usize {
    drivers.iter().filter_map(|on| order.iter().position(|h| on.contains(*h))).max().map_or(0, |last| last + 1)
}

/// The most hosts of `order` (by name) a grown partition may span and still leave every
/// driver in `drivers` (each driver's hosts) that has a host in `order` half its hosts there,
/// rounded up, as general hosts: its last ones in the order. `order.len()` with no such
/// driver. It is the partition's own cap (never more than half the slots) taken to each
/// application with long work.
///
/// A driver with long work whose hosts were all short-only could have none of it placed: the
/// central would answer `Unplaced` to every ask and the driver fall back to its own
/// placement, on the short-only hosts, after ten asks. Left one host of its four, such an
/// application's long jobs took twice as long as under the fixed layout's two
/// (docs/results.md).
pub fn long_bound(order: &[&str], drivers: &[&BTreeSet<String>]) -> usize {
    drivers
        .iter()
        .filter_map(|on| {
            let at: Vec<usize> = order.iter().enumerate().filter(|(_, h)| on.contains(**h)).map(|(i, _)| i).collect();
            at.get(at.len() - at.len().div_ceil(2)).copied()
        })
        .min()
        .unwrap_or(order.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partition_covers_the_demand_with_the_fixed_share_as_a_floor() {
        let two = [2u32; 8];
        assert_eq!(short_only_hosts(&two, 0.1, 0), 1, "the paper's share of 8 hosts");
        assert_eq!(short_only_hosts(&two, 0.1, 2), 1);
        assert_eq!(short_only_hosts(&two, 0.1, 3), 2);
        assert_eq!(short_only_hosts(&two, 0.1, 5), 3);
        assert_eq!(short_only_hosts(&two, 0.1, 100), 7, "never every host");
        assert_eq!(short_only_hosts(&two, 0.0, 0), 0);
        assert_eq!(short_only_hosts(&[4, 1, 1], 0.0, 5), 2, "by the hosts' own slots");
        assert_eq!(short_only_hosts(&[4], 0.5, 9), 0, "one host is never short-only");
    }

    #[test]
    fn kept_slots_go_one_per_host_in_turn_with_the_fixed_share_as_a_floor() {
        let two = [2u32; 8];
        assert_eq!(short_slots_per_host(&two, 0.1, 0), [1, 1, 0, 0, 0, 0, 0, 0], "the paper's host, as slots");
        assert_eq!(short_slots_per_host(&two, 0.1, 5), [1, 1, 1, 1, 1, 0, 0, 0]);
        assert_eq!(
            short_slots_per_host(&two, 0.1, 10),
            [2, 2, 1, 1, 1, 1, 1, 1],
            "a second slot once every host keeps one"
        );
        assert_eq!(short_slots_per_host(&two, 0.1, 99), [2, 2, 2, 2, 2, 2, 2, 1], "never every slot");
        assert_eq!(short_slots_per_host(&two, 0.0, 0), [0; 8]);
        assert_eq!(short_slots_per_host(&[1, 4, 1], 0.0, 4), [1, 2, 1], "by the hosts' own slots");
        assert_eq!(short_slots_per_host(&[3], 0.5, 9), [2], "one host keeps a slot for long work");
        assert_eq!(short_slots_per_host(&[], 0.5, 9), Vec::<u32>::new());
        for want in 0..40 {
            let kept = short_slots_per_host(&[2, 1, 3, 2], 0.25, want);
            let sum: u32 = kept.iter().sum();
            assert_eq!(sum, want.clamp(2, 7), "{want}: {kept:?}");
            assert!(kept.iter().zip([2, 1, 3, 2]).all(|(k, s)| *k <= s));
        }
    }

    #[test]
    fn demand_grows_with_a_queue_and_shrinks_after_the_idle_time() {
        let mut d = ShortDemand::new(0.0, Measure::Queue);
        assert_eq!(d.slots(0.0, 16), 0, "no short work seen");
        // Two drivers: one runs 2 short tasks and queues 4, the other queues 2.
        d.report(0.0, 1, 2, 4);
        d.report(0.0, 2, 0, 2);
        assert_eq!(d.slots(3.0, 16), 8, "8 slots wanted for 3 s");
        // Capped at half the live slots.
        d.report(3.0, 2, 0, 40);
        assert_eq!(d.slots(9.0, 16), 8, "max_fraction 0.5 of 16");
        // Everything ran: the window still remembers it for a while ...
        d.report(9.0, 1, 0, 0);
        d.report(9.0, 2, 0, 0);
        assert!(d.slots(12.0, 16) > 0);
        // ... and no arrival for the idle time releases every slot.
        assert_eq!(d.slots(20.0, 16), 0);
        assert_eq!(d.current(), 0);
    }

    #[test]
    fn a_task_still_waiting_keeps_the_demand_past_the_idle_time() {
        let mut d = ShortDemand::new(0.0, Measure::Queue);
        d.report(0.0, 1, 2, 1);
        assert_eq!(d.slots(30.0, 16), 3, "one task has waited 30 s: still short work around");
        d.report(30.0, 1, 2, 0);
        assert_eq!(d.slots(50.0, 16), 0, "only running tasks, nothing arrived for 20 s");
    }

    #[test]
    fn held_demand_counts_the_slots_short_work_holds_not_its_queue() {
        let mut d = ShortDemand::new(0.0, Measure::Held);
        // A job of 400 short tasks: 3 run, the rest wait.
        d.report(0.0, 1, 3, 397);
        assert_eq!(d.slots(5.0, 16), 3, "three slots held, whatever the queue");
        // Short work wins freed slots: the demand follows what it holds.
        d.report(5.0, 1, 6, 394);
        assert_eq!(d.slots(10.0, 16), 6);
        // Another driver's tasks add; one going away takes its own.
        d.report(10.0, 2, 2, 0);
        d.gone(10.0, 1);
        assert_eq!(d.slots(20.0, 16), 2);
        // The cap still holds.
        d.report(20.0, 2, 15, 1);
        assert_eq!(d.slots(30.0, 16), 8);
        // A waiting task keeps it past the idle time; with none, it goes.
        d.report(30.0, 2, 1, 1);
        assert_eq!(d.slots(60.0, 16), 1);
        d.report(60.0, 2, 1, 0);
        assert_eq!(d.slots(80.0, 16), 0);
    }

    #[test]
    fn a_driver_that_goes_away_takes_its_load_with_it() {
        let mut d = ShortDemand::new(0.0, Measure::Queue);
        d.report(0.0, 7, 0, 6);
        assert_eq!(d.slots(5.0, 16), 6);
        d.gone(5.0, 7);
        d.report(5.0, 8, 0, 1);
        // Once the window has passed, only the driver still there counts.
        assert_eq!(d.slots(15.0, 16), 1);
        d.gone(10.0, 99); // unknown: nothing
    }

    #[test]
    fn a_grown_partition_leaves_every_driver_with_long_work_half_its_hosts() {
        let order = ["a", "b", "c", "d"];
        let set = |hs: &[&str]| hs.iter().map(|h| h.to_string()).collect::<BTreeSet<String>>();
        let (ab, bd, x) = (set(&["a", "b"]), set(&["d", "b"]), set(&["x"]));
        assert_eq!(long_bound(&order, &[&ab]), 1, "a may be short-only, b stays general");
        assert_eq!(long_bound(&order, &[&ab, &bd]), 1);
        assert_eq!(long_bound(&order, &[&bd]), 3);
        assert_eq!(long_bound(&order, &[&x]), 4, "no host in the order: no bound");
        let (abcd, bcd) = (set(&["a", "b", "c", "d"]), set(&["b", "c", "d"]));
        assert_eq!(long_bound(&order, &[&abcd]), 2, "half of four hosts stay general: c and d");
        assert_eq!(long_bound(&order, &[&bcd]), 2, "two of three, rounded up");
        assert_eq!(long_bound(&order, &[&abcd, &ab]), 1);
        assert_eq!(long_bound(&order, &[]), 4);
    }

    #[test]
    fn the_share_caps_short_demand_at_its_part_of_all_tasks_only_while_long_work_waits() {
        // No long work: the demand as observed.
        assert_eq!(share_of_demand(16, 8, 0), 8);
        // 8 short against 24 long on 16 slots: a quarter, 4 slots.
        assert_eq!(share_of_demand(16, 8, 24), 4);
        // Rounded up: 16 × 8 / 9 = 14.2, but never past the demand itself.
        assert_eq!(share_of_demand(16, 8, 1), 8);
        assert_eq!(share_of_demand(16, 3, 40), 2);
        assert_eq!(share_of_demand(16, 0, 40), 0);
    }

    #[test]
    fn parse_names_the_flag() {
        assert_eq!(ShortPartition::parse("adaptive"), Ok(ShortPartition::Adaptive));
        for m in [ShortPartition::Fixed, ShortPartition::Adaptive, ShortPartition::Slots, ShortPartition::Share] {
            assert_eq!(ShortPartition::parse(m.name()), Ok(m));
        }
        assert!(ShortPartition::parse("auto").unwrap_err().to_string().contains("--short-partition"));
        assert_eq!(ShortPartition::parse("share"), Ok(ShortPartition::Share));
    }
}
