//! The `--json` interface: required keys, and a seed fixes everything but the
//! timings (`wall_seconds`, `perf`).

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn small_trace() -> Option<String> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces/YH_small.tr");
    p.exists().then(|| p.to_str().unwrap().to_string())
}

fn run_json(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_eagle-sim")).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim_end().lines().count(), 1, "one JSON object on one line: {text}");
    serde_json::from_str(&text).unwrap()
}

fn without_timings(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("wall_seconds");
    o.remove("perf");
    v
}

#[test]
fn json_has_the_interface_keys_and_is_deterministic() {
    let Some(trace) = small_trace() else {
        eprintln!("skipping: YH_small.tr not found");
        return;
    };
    for system in ["sparrow", "hawk", "eagle", "dlwl", "clwl"] {
        let args = ["run", "--trace", &trace, "--system", system, "--nodes", "20", "--seed", "7", "--json"];
        let a = run_json(&args);
        for k in ["system", "nodes", "seed", "short", "long", "utilization", "counters", "events", "wall_seconds"] {
            assert!(a.get(k).is_some(), "{system}: missing key {k} in {a}");
        }
        for k in ["count", "p50", "p90", "p99", "mean"] {
            assert!(a["short"].get(k).is_some() && a["long"].get(k).is_some(), "{system}: missing {k}");
        }
        for k in ["probes_behind_long", "short_tasks_after_hol", "rescheduled_probes", "stolen_probes"] {
            assert!(a["counters"][k].is_u64(), "{system}: counter {k}");
        }
        assert_eq!(a["system"], system);
        assert_eq!(a["nodes"], 20);
        assert_eq!(a["seed"], 7);
        assert_eq!(a["short"]["count"].as_u64().unwrap() + a["long"]["count"].as_u64().unwrap(), 10);
        let b = run_json(&args);
        assert_eq!(without_timings(a), without_timings(b), "{system}: same seed, different output");
    }
}

#[test]
fn table_output_without_json() {
    let Some(trace) = small_trace() else { return };
    let out = Command::new(env!("CARGO_BIN_EXE_eagle-sim"))
        .args(["run", "--trace", &trace, "--system", "eagle", "--nodes", "20"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("short") && text.contains("p99") && text.contains("utilization"), "{text}");
}
