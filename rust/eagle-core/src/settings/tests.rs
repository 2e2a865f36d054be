//! The key table's decoding, defaults and documentation.

use super::*;
use crate::adaptive::fsp::Order;

fn decode(pairs: &[(&str, &str)]) -> Result<EngineSettings, ConfigError> {
    EngineSettings::from_pairs(pairs.iter().copied())
}

#[test]
fn no_keys_give_the_defaults() {
    let s = decode(&[]).unwrap();
    assert_eq!(s, EngineSettings::default());
    assert_eq!(s.driver.policy, System::EagleAdaptive);
    assert_eq!((s.driver.adaptive.window, s.driver.adaptive.idle), (60.0, 30.0));
    assert_eq!((s.driver.adaptive.hold_max, s.driver.adaptive.hold_fraction), (2.0, 0.05));
    assert_eq!((s.seed, s.fail_after_calls, s.history_max_entries, s.lotes), (42, None, 10_000, false));
    assert_eq!((s.delay.min, s.delay.max, s.delay.window, s.delay.inherit, s.dds), (0.0, 10.0, 2.0, true, true));
}

#[test]
fn decodes_every_kind_in_the_engines_units() {
    let s = decode(&[
        ("cutoffMs", "10000"),
        ("policy", "paper"),
        ("reservation.windowMs", "30000"),
        ("order", "FSP"),
        ("defaultClass", "long"),
        ("debug.failAfterCalls", "3"),
        ("placement", "lotes"),
        ("dds.inherit", "false"),
        ("seed", " 7 "),
    ])
    .unwrap();
    assert_eq!((s.driver.cutoff, s.driver.policy), (Some(10.0), System::Eagle));
    assert_eq!((s.driver.adaptive.window, s.driver.adaptive.order), (30.0, Order::Fsp));
    assert_eq!((s.driver.default_class, s.fail_after_calls, s.lotes), (Class::Long, Some(3), true));
    assert_eq!((s.delay.inherit, s.seed), (false, 7));
    assert_eq!(decode(&[("policy", "eagle-adaptive")]).unwrap().driver.policy, System::EagleAdaptive);
}

#[test]
fn a_bad_or_unknown_key_is_named() {
    let e = decode(&[("minProbes", "0")]).unwrap_err().to_string();
    assert!(e.contains("spark.scheduler.eagle.minProbes") && e.contains("expected an integer in [1, 10000]"), "{e}");
    let e = decode(&[("shortPartition", "lots")]).unwrap_err().to_string();
    assert!(e.contains("spark.scheduler.eagle.shortPartition = 'lots'"), "{e}");
    let e = decode(&[("reservation.maxFraction", "1.5")]).unwrap_err().to_string();
    assert!(e.contains("expected a number in [0, 1]"), "{e}");
    let e = decode(&[("order", "lifo")]).unwrap_err().to_string();
    assert!(e.contains("expected srpt or fsp"), "{e}");
    let e = decode(&[("policy", "hawk")]).unwrap_err().to_string();
    assert!(e.contains("expected adaptive or paper"), "{e}");
    let e = decode(&[("dds.minWaitMs", "5000"), ("dds.maxWaitMs", "1000")]).unwrap_err().to_string();
    assert!(e.contains("dds.maxWaitMs") && e.contains(">= spark.scheduler.eagle.dds.minWaitMs (5000)"), "{e}");
    assert_eq!(decode(&[("cutofMs", "5")]), Err(ConfigError::UnknownKey("cutofMs".into())));
    for v in ["NaN", "inf", "-1"] {
        assert!(decode(&[("reservation.headroom", v)]).is_err(), "{v}");
    }
}

#[test]
fn the_table_documents_the_defaults_it_decodes_to() {
    let names: Vec<&str> = KEYS.iter().map(|k| k.name).collect();
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "{names:?}");
    for k in KEYS {
        let d = k.default_text();
        if k.unset.is_none() {
            let s = decode(&[(k.name, d.as_str())]).unwrap_or_else(|e| panic!("{}: default {d}: {e}", k.name));
            assert_eq!(s, EngineSettings::default(), "{}", k.name);
        }
    }
    assert_eq!(key("cutoffMs").unwrap().default_text(), "(learned)");
    assert_eq!(key("reservation.maxFraction").unwrap().range_text(), "[0, 1]");
    let v: Value = serde_json::from_str(&keys_json()).unwrap();
    assert_eq!(v.as_array().unwrap().len(), KEYS.len());
    let summary = EngineSettings::default().to_json();
    assert_eq!((summary["policy"].as_str(), summary["cutoffMs"].as_str()), (Some("adaptive"), Some("learned")));
    assert_eq!(summary["seed"], 42);
}

#[test]
fn delay_params_take_sparks_initial_waits() {
    let d = decode(&[]).unwrap().delay_params([3000, 2000, 1000]).unwrap();
    assert_eq!(d.initial, [3.0, 2.0, 0.0, 1.0, 0.0]);
    assert!(decode(&[]).unwrap().delay_params([3000, -1, 0]).is_err());
}
