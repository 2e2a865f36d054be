//! The fixed layouts of the `Array[Long]`s the plugin reads (`counters`, `status`,
//! `clusterStatus`), shared with `Native.scala` by slot order: each `*_NAMES` table names
//! the slots, and its encoder fills them from the application's typed state. Counts
//! saturate at `Long.MaxValue`; times are whole milliseconds, -1 for "none".

use crate::convert::s_to_ms;
use eagle_client::Application;
use eagle_core::Counters;

/// Names of the `counters(handle): Array[Long]` slots, in order. The first fourteen
/// are the engine's [`Counters`]; the last is the number of bridge calls made on
/// the handle (the `failAfterCalls` test hook counts the same calls).
pub const COUNTER_NAMES: [&str; 15] = [
    "decisions",
    "probesPlaced",
    "probesRejectedSss",
    "probesBehindLong",
    "shortTasksAfterHol",
    "rescheduledProbes",
    "fallbackProbes",
    "stolenProbes",
    "srptBypasses",
    "emptyFetches",
    "backfills",
    "declines",
    "preemptions",
    "preemptedMs",
    "nativeCalls",
];

/// Names of the `status(handle): Array[Long]` slots that follow the [`COUNTER_NAMES`]
/// ones (the array is the counters, then these). Times in whole milliseconds; -1 for
/// "none" (no reservation under `policy=paper`, no cutoff while no split is known, no
/// interval without delay scheduling or without a live task set). The `dds*Wait*` slots
/// are the mean and the largest current interval over the live task sets, per level; the
/// `ddsLearned*` ones the application's learned intervals.
pub const STATUS_NAMES: [&str; 16] = [
    "reservedSlots",
    "cutoffMs",
    "busySlots",
    "totalSlots",
    "shortTaskSets",
    "longTaskSets",
    "ddsProcessWaitMeanMs",
    "ddsProcessWaitMaxMs",
    "ddsNodeWaitMeanMs",
    "ddsNodeWaitMaxMs",
    "ddsRackWaitMeanMs",
    "ddsRackWaitMaxMs",
    "ddsLearnedProcessWaitMs",
    "ddsLearnedNodeWaitMs",
    "ddsLearnedRackWaitMs",
    "warmupMs",
];

/// Names of the `clusterStatus(handle): Array[Long]` slots, in order (empty outside cluster
/// mode).
pub const CLUSTER_STATUS_NAMES: [&str; 19] = [
    "centralUp",
    "hostsUp",
    "heldGrants",
    "runningLeases",
    "grants",
    "launched",
    "returned",
    "revoked",
    "taskEnds",
    "hostDowns",
    "centralDowns",
    "surplusReturned",
    "coldReturned",
    "unplacedLong",
    "placedLocally",
    "warmFirst",
    "spreadLate",
    "gangReturned",
    "probedAgain",
];

/// A count as a `Long`, saturating.
fn long(x: u64) -> i64 {
    x.min(i64::MAX as u64) as i64
}

/// The [`COUNTER_NAMES`] layout.
pub fn counters(st: &Application) -> Vec<i64> {
    let c: &Counters = st.driver.counters();
    let v = [
        c.decisions,
        c.probes_placed,
        c.probes_rejected_sss,
        c.probes_behind_long,
        c.short_tasks_after_hol,
        c.rescheduled_probes,
        c.fallback_probes,
        c.stolen_probes,
        c.srpt_bypasses,
        c.empty_fetches,
        c.backfills,
        c.declines,
        c.preemptions,
        c.preempted_ms,
        st.calls(),
    ];
    v.iter().map(|&x| long(x)).collect()
}

/// The `status(handle)` layout: [`COUNTER_NAMES`] then [`STATUS_NAMES`]. Read-only.
pub fn status(st: &Application) -> Vec<i64> {
    let s = st.driver.status();
    let ms = |v: Option<f64>| v.map_or(-1, s_to_ms);
    let mut v = counters(st);
    v.extend([
        s.reservation.map_or(-1, i64::from),
        ms(s.cutoff),
        long(s.busy_slots),
        long(s.total_slots),
        i64::from(s.short_jobs),
        i64::from(s.long_jobs),
    ]);
    for i in 0..3 {
        v.extend([ms(s.delay_mean[i]), ms(s.delay_max[i])]);
    }
    for i in 0..3 {
        v.push(ms(s.delay_learned.map(|l| l[i])));
    }
    v.push(s_to_ms(s.warmup));
    v
}

/// The [`CLUSTER_STATUS_NAMES`] layout, as of the client's events so far (empty outside
/// cluster mode).
pub fn cluster_status(st: &mut Application) -> Vec<i64> {
    let Some(c) = st.cluster.as_mut() else {
        return Vec::new();
    };
    c.drain();
    let k = &c.counters;
    let v = [
        c.central_up() as u64,
        c.hosts_up() as u64,
        c.held_grants() as u64,
        c.running() as u64,
        k.grants,
        k.launched,
        k.returned,
        k.revoked,
        k.task_ends,
        k.host_downs,
        k.central_downs,
        c.client().surplus_returned(),
        k.cold_returned,
        c.client().unplaced_long(),
        c.client().placed_locally(),
        c.client().warm_first(),
        c.client().spread_late(),
        k.gang_returned,
        k.probed_again,
    ];
    v.iter().map(|&x| long(x)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::tests::{app, good};
    use eagle_core::Class;

    #[test]
    fn status_is_the_counters_then_the_status_slots() {
        let mut st = app(&good()).unwrap();
        let v = status(&st);
        assert_eq!(v.len(), COUNTER_NAMES.len() + STATUS_NAMES.len());
        let at = |name: &str| v[COUNTER_NAMES.len() + STATUS_NAMES.iter().position(|n| *n == name).unwrap()];
        assert_eq!(at("ddsProcessWaitMeanMs"), -1, "no delay scheduling");
        assert_eq!(at("ddsLearnedRackWaitMs"), -1);
        let n = st.driver.add_node(0.0, 3);
        let j = st.driver.submit(0.0, 5, Some(Class::Long), Some(2.0), 7);
        let calls = st.calls();
        assert_eq!(st.driver.offer(0.0, n, 3, &[]), vec![j; 3]);
        let v = status(&st);
        let at = |name: &str| v[COUNTER_NAMES.len() + STATUS_NAMES.iter().position(|n| *n == name).unwrap()];
        assert_eq!((at("busySlots"), at("totalSlots")), (3, 3));
        assert_eq!((at("shortTaskSets"), at("longTaskSets")), (0, 1));
        assert_eq!(v[0], counters(&st)[0], "decisions first, as in counters()");
        assert!(v[0] >= 3);
        assert_eq!(st.calls(), calls, "reading the status is not a counted call");
    }
}
