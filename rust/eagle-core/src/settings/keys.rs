//! The table of the engine's keys: each key's whole definition (see the parent module).

use super::{class_name, EngineSettings, Key, Kind, Parsed, MAX_HOLD_CALL_MS, MAX_SEED};
use crate::adaptive::fsp::Order;
use crate::driver::{MAX_MIN_PROBES, MAX_PROBE_RATIO};
use crate::error::Bound;
use crate::estimate::MAX_HISTORY_ENTRIES;
use crate::Class;
use serde_json::Value;

/// Engine seconds as the keys' whole milliseconds.
pub(super) fn ms(s: f64) -> i64 {
    (s * 1000.0).round() as i64
}

fn s(p: Parsed) -> f64 {
    p.int() as f64 / 1000.0
}

/// A key of `kind` named `name`; the builder methods below add the rest.
const fn key(name: &'static str, kind: Kind) -> Key {
    Key { name, kind, range: None, unset: None, doc: "", get: |_| Value::Null, set: |_, _| {} }
}

impl Key {
    const fn range(self, range: &'static str) -> Key {
        Key { range: Some(range), ..self }
    }
    const fn unset(self, unset: &'static str) -> Key {
        Key { unset: Some(unset), ..self }
    }
    const fn doc(self, doc: &'static str) -> Key {
        Key { doc, ..self }
    }
    const fn get(self, get: fn(&EngineSettings) -> Value) -> Key {
        Key { get, ..self }
    }
    const fn set(self, set: fn(&mut EngineSettings, Parsed)) -> Key {
        Key { set, ..self }
    }
}

const UNIT: Bound = Bound::Within(0.0, 1.0);
const NO_MAX: i64 = i64::MAX;

pub static KEYS: &[Key] = &[
    key("policy", Kind::Policy)
        .doc(
            "adaptive: exact SRPT over each query's remaining work with a load-sized short \
              reservation of slots and a learned short/long split; paper: Eagle as published \
              (short-only executors, probes, SSS, LWL, sticky batch probing). The engine's names \
              eagle-adaptive and eagle are accepted too.",
        )
        .get(|c| c.driver.policy.alias().into())
        .set(|c, v| c.driver.policy = v.policy()),
    key("cutoffMs", Kind::Ms { min: 1, max: NO_MAX })
        .range(">= 1; unset: learned (adaptive)")
        .unset("learned")
        .doc(
            "Task sets whose estimated mean task duration exceeds this (ms) are long. Unset: \
              adaptive learns the split from the application's task durations; paper uses 10000.",
        )
        .get(|c| c.driver.cutoff.map_or(Value::Null, |v| ms(v).into()))
        .set(|c, v| c.driver.cutoff = Some(s(v))),
    key("reservation.windowMs", Kind::Ms { min: 1, max: NO_MAX })
        .doc("adaptive: sliding window (ms) over which the slots busy with short work are observed.")
        .get(|c| ms(c.driver.adaptive.window).into())
        .set(|c, v| c.driver.adaptive.window = s(v)),
    key("reservation.headroom", Kind::Num(Bound::Positive))
        .doc(
            "adaptive: the reservation is this multiple of the short demand observed over the \
              window (mean slots busy with short work plus one standard deviation of its bucket \
              averages; > 0).",
        )
        .get(|c| c.driver.adaptive.headroom.into())
        .set(|c, v| c.driver.adaptive.headroom = v.num()),
    key("reservation.maxFraction", Kind::Num(UNIT))
        .doc("adaptive: upper bound of the reservation as a fraction of all slots, in [0, 1].")
        .get(|c| c.driver.adaptive.max_fraction.into())
        .set(|c, v| c.driver.adaptive.max_fraction = v.num()),
    key("reservation.idleMs", Kind::Ms { min: 0, max: NO_MAX })
        .doc(
            "adaptive: with no short work arriving for this long (ms), the reservation drops to 0 \
              and long work may use every slot.",
        )
        .get(|c| ms(c.driver.adaptive.idle).into())
        .set(|c, v| c.driver.adaptive.idle = s(v)),
    key("reservation.baseFraction", Kind::Num(UNIT))
        .doc(
            "adaptive: while short work is arriving, up to this fraction of all slots (floored) \
              stays reserved for it even when long work frees slots often, so a wave of long tasks \
              cannot hold every slot; in [0, 1], 0 turns the base off.",
        )
        .get(|c| c.driver.adaptive.base_fraction.into())
        .set(|c, v| c.driver.adaptive.base_fraction = v.num()),
    key("reservation.buckets", Kind::Int { min: 1, max: 1000 })
        .doc(
            "adaptive: equal buckets the window is cut into; the short demand's burstiness is one \
              standard deviation of the bucket averages.",
        )
        .get(|c| c.driver.adaptive.buckets.into())
        .set(|c, v| c.driver.adaptive.buckets = v.int() as u32),
    key("longShare", Kind::Num(UNIT))
        .doc(
            "adaptive: while long work waits for a slot, short work starts new tasks only while it \
              holds fewer than max(reservation, floor((1 - longShare) x all slots)), so long work \
              keeps this share of the cluster under a stream of short work that alone would fill \
              it, while short queries or jobs keep arriving (within reservation.windowMs), then \
              while the short backlog exceeds starvationFactor times the long work left; with \
              several tenants (pools, sessions) live, at most the weight of those with long work \
              over all live tenants', as FAIR pools would give them; in [0, 1], 0 turns it off.",
        )
        .get(|c| c.driver.adaptive.long_share.into())
        .set(|c, v| c.driver.adaptive.long_share = v.num()),
    key("hold.maxMs", Kind::Ms { min: 0, max: 3_600_000 })
        .doc(
            "adaptive: when a small job ends beside larger waiting work, its slots stay free for \
              the next submission for the 0.9 quantile of the observed end-to-next-submission \
              gaps plus 200 ms, at most this long (ms); 0 turns the hold off.",
        )
        .get(|c| ms(c.driver.adaptive.hold_max).into())
        .set(|c, v| c.driver.adaptive.hold_max = s(v)),
    key("hold.fraction", Kind::Num(UNIT))
        .doc(
            "adaptive: the hold's budget: over any reservation.windowMs, held slot-seconds stay at \
              most this fraction of the cluster's slot-seconds; 0 turns the hold off.",
        )
        .get(|c| c.driver.adaptive.hold_fraction.into())
        .set(|c, v| c.driver.adaptive.hold_fraction = v.num()),
    key("preempt.afterMs", Kind::Ms { min: 0, max: 3_600_000 })
        .doc(
            "adaptive, driver mode: when a task set's tasks have waited this long (ms), every slot \
              is taken and no running task should end within it, the youngest attempt of a task set \
              with tasks 10x longer is killed through Spark's task kill (it re-runs; a kill is no \
              task failure), each task at most once; while the budget lasts the reservation keeps \
              no slot idle for short work to come. 0 (the default) turns preemption off.",
        )
        .get(|c| ms(c.driver.adaptive.preempt_after).into())
        .set(|c, v| c.driver.adaptive.preempt_after = s(v)),
    key("preempt.fraction", Kind::Num(UNIT))
        .doc(
            "adaptive: preemption's budget: over any reservation.windowMs, the run time of the \
              killed attempts stays at most this fraction of the cluster's slot-seconds; 0 turns \
              preemption off.",
        )
        .get(|c| c.driver.adaptive.preempt_fraction.into())
        .set(|c, v| c.driver.adaptive.preempt_fraction = v.num()),
    key("deadlineFactor", Kind::Num(Bound::Positive))
        .doc(
            "adaptive: a task set whose tasks waited this multiple of its fair time (its waiting \
              work shared with the task sets waiting beside it, at least its task estimate and 1 s) \
              goes first, at full width until none of its tasks wait (> 0).",
        )
        .get(|c| c.driver.adaptive.deadline_factor.into())
        .set(|c, v| c.driver.adaptive.deadline_factor = v.num()),
    key("order", Kind::Word(&["srpt", "fsp"]))
        .doc(
            "adaptive: which waiting task set a free slot serves. srpt: the least remaining work of \
              its query or job first, with the deadlineFactor bound; fsp (Fair Sojourn Protocol): \
              the one fair sharing would finish first, so none ends later than under fair sharing.",
        )
        .get(|c| {
            match c.driver.adaptive.order {
                Order::Srpt => "srpt",
                Order::Fsp => "fsp",
            }
            .into()
        })
        .set(|c, v| c.driver.adaptive.order = if v.word() == "fsp" { Order::Fsp } else { Order::Srpt }),
    key("shortPartition", Kind::Num(Bound::WithinHalfOpen(0.0, 1.0)))
        .doc(
            "paper: fraction of executors reserved for short task sets, in [0, 1); at least one \
              when there are two or more executors.",
        )
        .get(|c| c.driver.short_partition.into())
        .set(|c, v| c.driver.short_partition = v.num()),
    key("minProbes", Kind::Int { min: 1, max: MAX_MIN_PROBES as i64 })
        .doc("paper: K, minimum number of probes per short task set (an integer).")
        .get(|c| c.driver.min_probes.into())
        .set(|c, v| c.driver.min_probes = v.int() as u32),
    key("probeRatio", Kind::Int { min: 1, max: MAX_PROBE_RATIO as i64 })
        .doc("paper: probes per task of a short task set (an integer).")
        .get(|c| c.driver.probe_ratio.into())
        .set(|c, v| c.driver.probe_ratio = v.int() as u32),
    key("starvationFactor", Kind::Num(Bound::Positive))
        .doc(
            "SRPT starvation cap (> 0). paper: a task set may be bypassed for at most this multiple \
              of its own estimated task duration. adaptive: once short jobs stop arriving, the long \
              share holds only while the short backlog exceeds this multiple of the long work left \
              (see deadlineFactor for the adaptive deadline).",
        )
        .get(|c| c.driver.starvation_factor.into())
        .set(|c, v| c.driver.starvation_factor = v.num()),
    key("defaultClass", Kind::Word(&["short", "long"]))
        .doc("Class when nothing is known: short or long.")
        .get(|c| class_name(c.driver.default_class).into())
        .set(|c, v| c.driver.default_class = if v.word() == "long" { Class::Long } else { Class::Short }),
    key("defaultEstimateMs", Kind::Ms { min: 1, max: NO_MAX })
        .doc("Estimated mean task duration (ms) when nothing is known (> 0).")
        .get(|c| ms(c.driver.default_estimate).into())
        .set(|c, v| c.driver.default_estimate = s(v)),
    key("history.maxEntries", Kind::Int { min: 1, max: MAX_HISTORY_ENTRIES as i64 })
        .doc(
            "Most stage signatures the history keeps (an integer); the least recently used is \
              evicted first.",
        )
        .get(|c| c.history_max_entries.into())
        .set(|c, v| c.history_max_entries = v.int() as usize),
    key("seed", Kind::Int { min: 0, max: MAX_SEED })
        .range("[0, 2^53)")
        .doc("Seed of the engine's random choices (integer in [0, 2^53)).")
        .get(|c| c.seed.into())
        .set(|c, v| c.seed = v.int() as u64),
    key("debug.failAfterCalls", Kind::Int { min: -1, max: NO_MAX })
        .doc("Test hook: the native side panics on every call after this many (-1 = never).")
        .get(|c| c.fail_after_calls.map_or(-1, |n| n as i64).into())
        .set(|c, v| c.fail_after_calls = u64::try_from(v.int()).ok()),
    key("debug.holdCallMs", Kind::Ms { min: 0, max: MAX_HOLD_CALL_MS })
        .doc(
            "Test hook: every native taskFinished call holds the engine this long (ms; 0 = off), \
              so that stop() races with a call in flight.",
        )
        .get(|c| c.hold_call_ms.into())
        .set(|c, v| c.hold_call_ms = v.int() as u64),
    key("dds.enabled", Kind::Bool)
        .doc(
            "Dynamic Delay Scheduling: adaptive per-stage, per-level locality waits replace Spark's \
              fixed spark.locality.wait* for task sets under the plugin (initial intervals: \
              spark.locality.wait.process/.node/.rack).",
        )
        .get(|c| c.dds.into())
        .set(|c, v| c.dds = v.flag()),
    key("dds.minWaitMs", Kind::Ms { min: 0, max: NO_MAX })
        .doc("Lower bound of every adaptive locality wait (ms, integer >= 0).")
        .get(|c| ms(c.delay.min).into())
        .set(|c, v| c.delay.min = s(v)),
    key("dds.maxWaitMs", Kind::Ms { min: 0, max: NO_MAX })
        .range(">= dds.minWaitMs")
        .doc(
            "Upper bound of every adaptive locality wait (ms, integer >= dds.minWaitMs); a task set \
              that launched nothing for this long may launch at any level.",
        )
        .get(|c| ms(c.delay.max).into())
        .set(|c, v| c.delay.max = s(v)),
    key("dds.window", Kind::Num(Bound::AtLeast(1.0)))
        .doc(
            "Averaging window of the update interval <- interval + (t_netOH - interval) / window \
              (a number >= 1; 2 = the paper's rule).",
        )
        .get(|c| c.delay.window.into())
        .set(|c, v| c.delay.window = v.num()),
    key("dds.inherit", Kind::Bool)
        .doc(
            "A new stage starts from the intervals the application has learned so far (every \
              finished task updates them by the same rule; the first stage starts from \
              spark.locality.wait*), rather than from spark.locality.wait* itself.",
        )
        .get(|c| c.delay.inherit.into())
        .set(|c, v| c.delay.inherit = v.flag()),
    key("placement", Kind::Word(&["slots", "lotes"]))
        .doc(
            "slots: every executor slot is alike (task cpus only); lotes: LoTES (multi-resource, \
              heterogeneous executors) decides which executors serve which task sets from the \
              executors' cores, memory and custom resources and the task sets' resource profiles; \
              Eagle's order still decides which task set goes first.",
        )
        .get(|c| if c.lotes { "lotes" } else { "slots" }.into())
        .set(|c, v| c.lotes = v.word() == "lotes"),
];
