//! Unit tests of the bridge state (`super`), and helpers the other modules' tests share.

use super::*;

/// A valid `create()` parameter array (every slot documented in [`PARAM_NAMES`]).
pub(crate) fn good() -> Vec<f64> {
    vec![
        10_000.0, 0.1, 20.0, 2.0, 5.0, 0.0, 1000.0, 42.0, -1.0, 10_000.0, 0.0, 1.0, 60_000.0, 1.0, 0.5, 30_000.0, 0.1,
        0.5, 0.0, 5.0, 0.0, 2000.0, 0.05,
    ]
}

#[test]
fn decodes_the_documented_layout() {
    let p = Params::decode(&good()).unwrap();
    assert_eq!(p.config.cutoff, Some(10.0));
    assert_eq!(p.config.policy, System::EagleAdaptive);
    assert_eq!(p.config.adaptive.window, 60.0);
    assert_eq!(p.config.adaptive.idle, 30.0);
    assert_eq!((p.config.adaptive.hold_max, p.config.adaptive.hold_fraction), (2.0, 0.05));
    let mut q = good();
    q[0] = 0.0;
    q[11] = 0.0;
    let p = Params::decode(&q).unwrap();
    assert_eq!((p.config.cutoff, p.config.policy), (None, System::Eagle), "cutoffMs 0 = not set");
    assert_eq!(p.config.short_partition, 0.1);
    assert_eq!(p.config.min_probes, 20);
    assert_eq!(p.config.probe_ratio, 2);
    assert_eq!(p.config.starvation_factor, 5.0);
    assert_eq!(p.config.adaptive.deadline_factor, 5.0);
    assert_eq!(p.config.default_class, Class::Short);
    assert_eq!(p.config.default_estimate, 1.0);
    assert_eq!(p.seed, 42);
    assert_eq!(p.fail_after_calls, None);
}

#[test]
fn rejects_wrong_length_and_names_the_bad_slot() {
    let err = Params::decode(&good()[..8]).unwrap_err().to_string();
    assert!(err.contains("expected 23 parameters"), "{err}");
    for (i, name) in PARAM_NAMES.iter().enumerate() {
        let mut p = good();
        p[i] = f64::NAN;
        let err = Params::decode(&p).unwrap_err().to_string();
        assert!(err.contains(name), "slot {i}: {err}");
    }
    let mut p = good();
    p[1] = 1.0;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("shortPartition"));
    p = good();
    p[2] = 2.5;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("minProbes"));
    p = good();
    p[5] = 2.0;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("defaultClass"));
    p = good();
    p[8] = 3.0;
    assert_eq!(Params::decode(&p).unwrap().fail_after_calls, Some(3));
    p = good();
    p[18] = 2.0;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("placement"));
    p[18] = 1.0;
    assert!(Params::decode(&p).unwrap().lotes);
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
    let p = decode_delay_params(&[3000.0, 2000.0, 1000.0, 0.0, 10000.0, 2.0, 1.0]).unwrap();
    assert_eq!(p.initial, [3.0, 2.0, 0.0, 1.0, 0.0]);
    assert_eq!((p.min, p.max, p.window, p.inherit), (0.0, 10.0, 2.0, true));
    assert!(!decode_delay_params(&[3000.0, 2000.0, 1000.0, 0.0, 10000.0, 2.0, 0.0]).unwrap().inherit);
    let e = decode_delay_params(&[3000.0; 6]).unwrap_err().to_string();
    assert!(e.contains("expected 7 delay parameters") && e.contains("processWaitMs"), "{e}");
    let e = decode_delay_params(&[3000.0, -1.0, 0.0, 0.0, 1.0, 2.0, 1.0]).unwrap_err().to_string();
    assert!(e.contains("nodeWaitMs"), "{e}");
    let e = decode_delay_params(&[0.0, 0.0, 0.0, 0.0, 1.0, f64::NAN, 1.0]).unwrap_err().to_string();
    assert!(e.contains("window"), "{e}");
    let e = decode_delay_params(&[0.0, 0.0, 0.0, 5000.0, 1000.0, 2.0, 1.0]).unwrap_err().to_string();
    assert!(e.contains("max wait"), "{e}");
    let e = decode_delay_params(&[0.0, 0.0, 0.0, 0.0, 1000.0, 0.5, 1.0]).unwrap_err().to_string();
    assert!(e.contains("window"), "{e}");
    let e = decode_delay_params(&[0.0, 0.0, 0.0, 0.0, 1000.0, 2.0, 0.5]).unwrap_err().to_string();
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
    let mut p = good();
    p[2] = 10_001.0;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("minProbes"));
    p[2] = 10_000.0;
    assert!(Params::decode(&p).is_ok());
    p = good();
    p[3] = 101.0;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("probeRatio"));
    p = good();
    p[2] = i32::MAX as f64;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("minProbes"));
    p = good();
    p[9] = 0.0;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("historyMaxEntries"));
    p = good();
    p[10] = 60_001.0;
    assert!(Params::decode(&p).unwrap_err().to_string().contains("debugHoldCallMs"));
}
