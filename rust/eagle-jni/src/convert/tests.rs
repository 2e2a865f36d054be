//! Unit tests of the conversions (`super`), and helpers the other modules' tests share.

use super::*;
use eagle_client::Application;
use eagle_core::System;
use eagle_testkit::ENGINE_CONFIG as GOOD;

/// A valid `create()` configuration with `changes` applied (JSON, as the plugin sends it).
pub(crate) fn good_with(changes: &[(&str, &str)]) -> String {
    serde_json::to_string(&eagle_testkit::engine_config_with(changes)).unwrap()
}

/// A valid `create()` configuration (every engine key set).
pub(crate) fn good() -> String {
    good_with(&[])
}

/// An application's scheduler from a `create()` configuration, as `create` makes it.
pub(crate) fn app(config: &str) -> Result<Application, Error> {
    Ok(Application::new(decode_settings(config)?)?)
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
    assert_eq!(crate::layout::COUNTER_NAMES.len(), 15);
}

#[test]
fn delay_params_decode_ms_to_seconds_and_validate() {
    let st = app(&good_with(&[("dds.minWaitMs", "0"), ("dds.maxWaitMs", "10000"), ("dds.window", "2")])).unwrap();
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

#[test]
fn probe_bounds_are_enforced_by_the_bridge() {
    assert!(decode(&[("minProbes", "10001")]).unwrap_err().to_string().contains("minProbes"));
    assert!(decode(&[("minProbes", "10000")]).is_ok());
    assert!(decode(&[("probeRatio", "101")]).unwrap_err().to_string().contains("probeRatio"));
    assert!(decode(&[("minProbes", "2147483647")]).unwrap_err().to_string().contains("minProbes"));
    assert!(decode(&[("history.maxEntries", "0")]).unwrap_err().to_string().contains("history.maxEntries"));
    assert!(decode(&[("debug.holdCallMs", "60001")]).unwrap_err().to_string().contains("debug.holdCallMs"));
}

#[test]
fn attempts_decode_and_name_what_is_wrong() {
    let a = attempts(&[2, 0], &[1500, 0], &[0, 1]).unwrap();
    assert_eq!((a[0].job, a[0].started, a[0].preempted_before), (JobId(2), 1.5, false));
    assert!(a[1].preempted_before);
    let e = attempts(&[2], &[1500, 0], &[0]).unwrap_err().to_string();
    assert!(e.contains("1 jobs, 2 start times and 1 flags"), "{e}");
    let e = attempts(&[2], &[1500], &[2]).unwrap_err().to_string();
    assert!(e.contains("preempted flag"), "{e}");
    assert!(attempts(&[-1], &[0], &[0]).unwrap_err().to_string().contains("job id"));
}
