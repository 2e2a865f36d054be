//! The engine configuration the tests share: every key of `create()`'s configuration, as
//! the plugin sends them (`spark.scheduler.eagle.*`-relative names, values as set), so that
//! the bridge's decoding tests and the driver side's tests start from one valid set.

use std::collections::BTreeMap;

/// Every engine key of `create()`'s configuration, as the plugin sends them.
pub const ENGINE_CONFIG: [(&str, &str); 23] = [
    ("cutoffMs", "10000"),
    ("shortPartition", "0.1"),
    ("minProbes", "20"),
    ("probeRatio", "2"),
    ("starvationFactor", "5"),
    ("defaultClass", "short"),
    ("defaultEstimateMs", "1000"),
    ("seed", "42"),
    ("debug.failAfterCalls", "-1"),
    ("history.maxEntries", "10000"),
    ("debug.holdCallMs", "0"),
    ("policy", "adaptive"),
    ("reservation.windowMs", "60000"),
    ("reservation.headroom", "1.0"),
    ("reservation.maxFraction", "0.5"),
    ("reservation.idleMs", "30000"),
    ("reservation.baseFraction", "0.1"),
    ("longShare", "0.5"),
    ("placement", "slots"),
    ("deadlineFactor", "5"),
    ("order", "srpt"),
    ("hold.maxMs", "2000"),
    ("hold.fraction", "0.05"),
];

/// [`ENGINE_CONFIG`] with `changes` applied (a key of `changes` replaces or adds one).
pub fn engine_config_with<'a>(changes: &[(&'a str, &'a str)]) -> BTreeMap<&'a str, &'a str> {
    let mut m: BTreeMap<&str, &str> = ENGINE_CONFIG.into_iter().collect();
    m.extend(changes.iter().copied());
    m
}
