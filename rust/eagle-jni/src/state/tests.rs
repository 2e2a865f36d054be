//! Unit tests of the bridge state (`super`), and helpers the other modules' tests share.

use super::*;
use eagle_core::System;

/// Every engine key of `create()`'s configuration, as the plugin sends them.
const GOOD: [(&str, &str); 23] = [
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

/// A valid `create()` configuration with `changes` applied (JSON, as the plugin sends it).
pub(crate) fn good_with(changes: &[(&str, &str)]) -> String {
    let mut m: std::collections::BTreeMap<&str, &str> = GOOD.into_iter().collect();
    m.extend(changes.iter().copied());
    serde_json::to_string(&m).unwrap()
}

/// A valid `create()` configuration (every engine key set).
pub(crate) fn good() -> String {
    good_with(&[])
}

fn decode(changes: &[(&str, &str)]) -> Result<EngineSettings, Error> {
    decode_settings(&good_with(changes))
}

#[test]
fn decodes_the_documented_keys() {
    let p = decode(&[]).unwrap();
    assert_eq!(p.driver.cutoff, Some(10.0));
    assert_eq!(p.driver.policy, System::EagleAdaptive);
    assert_eq!(p.driver.adaptive.window, 60.0);
    assert_eq!(p.driver.adaptive.idle, 30.0);
    assert_eq!((p.driver.adaptive.hold_max, p.driver.adaptive.hold_fraction), (2.0, 0.05));
    let p = decode_settings(&good().replace(r#""cutoffMs":"10000","#, "").replace("adaptive", "paper")).unwrap();
    assert_eq!((p.driver.cutoff, p.driver.policy), (None, System::Eagle), "cutoffMs unset = learned");
    assert_eq!(p.driver.short_partition, 0.1);
    assert_eq!(p.driver.min_probes, 20);
    assert_eq!(p.driver.probe_ratio, 2);
    assert_eq!(p.driver.starvation_factor, 5.0);
    assert_eq!(p.driver.adaptive.deadline_factor, 5.0);
    assert_eq!(p.driver.default_class, Class::Short);
    assert_eq!(p.driver.default_estimate, 1.0);
    assert_eq!(p.seed, 42);
    assert_eq!(p.fail_after_calls, None);
}

#[test]
fn rejects_bad_json_and_names_the_bad_key() {
    let err = decode_settings("[1, 2]").unwrap_err().to_string();
    assert!(err.contains("not a JSON object of strings"), "{err}");
    let err = decode(&[("cutofMs", "1")]).unwrap_err().to_string();
    assert!(err.contains("spark.scheduler.eagle.cutofMs"), "{err}");
    for (name, _) in GOOD {
        let err = decode(&[(name, "NaN")]).unwrap_err().to_string();
        assert!(err.contains(name), "{name}: {err}");
    }
    assert!(decode(&[("shortPartition", "1")]).unwrap_err().to_string().contains("shortPartition"));
    assert!(decode(&[("minProbes", "2.5")]).unwrap_err().to_string().contains("minProbes"));
    assert!(decode(&[("defaultClass", "2")]).unwrap_err().to_string().contains("defaultClass"));
    assert_eq!(decode(&[("debug.failAfterCalls", "3")]).unwrap().fail_after_calls, Some(3));
    assert!(decode(&[("placement", "2")]).unwrap_err().to_string().contains("placement"));
    assert!(decode(&[("placement", "lotes")]).unwrap().lotes);
}

#[test]
fn codes_round_trip() {
    assert_eq!(class_from_code(-1).unwrap(), None);
    assert_eq!(class_code(class_from_code(0).unwrap()), 0);
    assert_eq!(class_code(class_from_code(1).unwrap()), 1);
    assert!(class_from_code(2).is_err());
    assert!(job_id(-1).is_err());
    assert_eq!(node_id(3).unwrap(), NodeId(3));
    assert_eq!(ms_to_s(1500), 1.5);
    assert_eq!(s_to_ms(1.5), 1500);
    assert_eq!(COUNTER_NAMES.len(), 13);
}

#[test]
fn history_json_round_trips_and_rejects_garbage() {
    let entries = vec![(0xdead_beef_0000_0001u64, 2.5, 7u64), (1, 0.25, 1)];
    let text = render_history(&entries);
    assert!(text.contains("deadbeef00000001"), "{text}");
    assert_eq!(parse_history(&text).unwrap(), entries);
    assert!(parse_history("{").is_err());
    assert!(parse_history(r#"{"format":"other","entries":[]}"#).is_err());
    assert!(
        parse_history(r#"{"format":"eagle-history/1","entries":[{"signature":"zz","meanMs":1,"samples":1}]}"#).is_err()
    );
}

#[test]
fn delay_params_decode_ms_to_seconds_and_validate() {
    let st =
        State::new(&good_with(&[("dds.minWaitMs", "0"), ("dds.maxWaitMs", "10000"), ("dds.window", "2")])).unwrap();
    let p = st.settings.delay_params([3000, 2000, 1000]).unwrap();
    assert_eq!(p.initial, [3.0, 2.0, 0.0, 1.0, 0.0]);
    assert_eq!((p.min, p.max, p.window, p.inherit), (0.0, 10.0, 2.0, true));
    assert!(!decode(&[("dds.inherit", "false")]).unwrap().delay.inherit);
    let e = st.settings.delay_params([3000, -1, 0]).unwrap_err().to_string();
    assert!(e.contains("initial wait"), "{e}");
    let e = decode(&[("dds.window", "NaN")]).unwrap_err().to_string();
    assert!(e.contains("window"), "{e}");
    let e = decode(&[("dds.minWaitMs", "5000"), ("dds.maxWaitMs", "1000")]).unwrap_err().to_string();
    assert!(e.contains("dds.maxWaitMs"), "{e}");
    let e = decode(&[("dds.window", "0.5")]).unwrap_err().to_string();
    assert!(e.contains("window"), "{e}");
    let e = decode(&[("dds.inherit", "0.5")]).unwrap_err().to_string();
    assert!(e.contains("inherit"), "{e}");
}

#[test]
fn level_codes_are_sparks_task_locality_ids() {
    assert_eq!(level(0).unwrap(), Level::ProcessLocal);
    assert_eq!(level(2).unwrap(), Level::NoPref);
    assert_eq!(level(4).unwrap(), Level::Any);
    assert!(level(5).is_err() && level(-1).is_err());
    assert_eq!(levels(&[0, 1, 4]).unwrap(), vec![Level::ProcessLocal, Level::NodeLocal, Level::Any]);
    assert!(levels(&[1, 0]).unwrap_err().to_string().contains("increasing"));
    assert!(levels(&[1, 1]).is_err());
    assert_eq!(pending_flags(&[1, 0], 2).unwrap(), vec![true, false]);
    assert!(pending_flags(&[1], 2).is_err());
    assert!(pending_flags(&[2, 0], 2).is_err());
}

#[test]
fn history_flattens_to_ms_triples() {
    let h = [
        Sample { at: 1.5, level: Level::NodeLocal, interval: 3.0 },
        Sample { at: 2.0, level: Level::RackLocal, interval: 0.25 },
    ];
    assert_eq!(flatten_history(&h), vec![1500.0, 1.0, 3000.0, 2000.0, 3.0, 250.0]);
    assert!(flatten_history(&[]).is_empty());
}

fn entry(sig: &str, mean: &str, samples: &str) -> String {
    format!("{{\"format\": \"eagle-history/1\", \"entries\": [\n  {{\"signature\": \"0000000000000001\", \"meanMs\": 5, \"samples\": 2}},\n  {{\"signature\": \"{sig}\", \"meanMs\": {mean}, \"samples\": {samples}}}\n]}}")
}

#[test]
fn history_rejects_huge_or_bad_samples_naming_the_line() {
    assert_eq!(parse_history(&entry("0000000000000002", "7", "3")).unwrap().len(), 2);
    for (mean, samples, what) in [
        ("1e308", "1", "meanMs"),
        ("-1", "1", "meanMs"),
        ("1e12", "1", "meanMs"),
        ("5", "0", "samples"),
        ("5", "18446744073709551615", "samples"),
    ] {
        let e = parse_history(&entry("0000000000000002", mean, samples)).unwrap_err().to_string();
        assert!(e.contains("line 3") && e.contains(what), "{mean} {samples}: {e}");
    }
    let e = parse_history(&entry("zz", "1", "1")).unwrap_err().to_string();
    assert!(e.contains("line 3") && e.contains("signature"), "{e}");
    let e = parse_history(&entry("0000000000000002", "\"x\"", "1")).unwrap_err().to_string();
    assert!(e.contains("line 3"), "{e}");
}

#[test]
fn loaded_history_keeps_estimates_finite() {
    // Before validation, 1e308 ms x many samples overflowed the weighted mean to inf/NaN.
    let dir = std::env::temp_dir().join(format!("eagle-hist-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("h.json");
    std::fs::write(&path, entry("0000000000000002", "1e308", "1000000")).unwrap();
    let mut st = State::new(&good()).unwrap();
    let e = load_history(&mut st.driver, &path).unwrap_err().to_string();
    assert!(e.contains(&path.display().to_string()) && e.contains("line 3"), "{e}");
    let job = st.driver.submit(0.0, 1, None, None, 2);
    let (est, _) = st.driver.job_estimate(job).unwrap();
    assert!(est.is_finite(), "{est}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn concurrent_saves_to_one_path_never_collide() {
    // Two applications sharing history.path used to share "<path>.tmp": one's rename
    // took the other's file away (ENOENT) or published a half-written file.
    let dir = std::env::temp_dir().join(format!("eagle-hist-race-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("history.json");
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut st = State::new(&good()).unwrap();
                st.driver.load_history(&(0..500u64).map(|s| (s * 8 + t, 1.0, 1)).collect::<Vec<_>>());
                for _ in 0..20 {
                    save_history(&st.driver, &path).map_err(|e| format!("thread {t}: {e}"))?;
                    let text = std::fs::read_to_string(&path).unwrap();
                    parse_history(&text).map_err(|e| format!("thread {t} read a torn file: {e}"))?;
                }
                Ok::<(), String>(())
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap().unwrap();
    }
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(left.len(), 1, "no temporary file left behind: {left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn status_is_the_counters_then_the_status_slots() {
    let mut st = State::new(&good()).unwrap();
    let v = st.status();
    assert_eq!(v.len(), COUNTER_NAMES.len() + STATUS_NAMES.len());
    let at = |name: &str| v[COUNTER_NAMES.len() + STATUS_NAMES.iter().position(|n| *n == name).unwrap()];
    assert_eq!(at("ddsProcessWaitMeanMs"), -1, "no delay scheduling");
    assert_eq!(at("ddsLearnedRackWaitMs"), -1);
    let n = st.driver.add_node(0.0, 3);
    let j = st.driver.submit(0.0, 5, Some(Class::Long), Some(2.0), 7);
    let calls = st.calls();
    assert_eq!(st.driver.offer(0.0, n, 3, &[]), vec![j; 3]);
    let v = st.status();
    let at = |name: &str| v[COUNTER_NAMES.len() + STATUS_NAMES.iter().position(|n| *n == name).unwrap()];
    assert_eq!((at("busySlots"), at("totalSlots")), (3, 3));
    assert_eq!((at("shortTaskSets"), at("longTaskSets")), (0, 1));
    assert_eq!(v[0], st.counters()[0], "decisions first, as in counters()");
    assert!(v[0] >= 3);
    assert_eq!(st.calls(), calls, "reading the status is not a counted call");
}

#[test]
fn probe_bounds_are_enforced_by_the_bridge() {
    assert!(decode(&[("minProbes", "10001")]).unwrap_err().to_string().contains("minProbes"));
    assert!(decode(&[("minProbes", "10000")]).is_ok());
    assert!(decode(&[("probeRatio", "101")]).unwrap_err().to_string().contains("probeRatio"));
    assert!(decode(&[("minProbes", "2147483647")]).unwrap_err().to_string().contains("minProbes"));
    assert!(decode(&[("history.maxEntries", "0")]).unwrap_err().to_string().contains("history.maxEntries"));
    assert!(decode(&[("debug.holdCallMs", "60001")]).unwrap_err().to_string().contains("debug.holdCallMs"));
}
