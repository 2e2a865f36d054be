//! Trace parsing (errors name file and line, duplicate-time shift) and the
//! command line's error handling. None of these need the engine to schedule.

use eagle_sim::trace::{Family, Trace};
use std::path::PathBuf;
use std::process::Command;

/// Writes `content` to a fresh file under the system temp dir.
fn temp_trace(name: &str, content: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("eagle-sim-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

fn load_err(name: &str, content: &str) -> String {
    let p = temp_trace(name, content);
    Trace::load(p.to_str().unwrap()).unwrap_err().to_string()
}

#[test]
fn errors_name_the_file_and_the_line() {
    let cases = [
        ("count.tr", "1 2 5 5 5\n2 3 5 5 5\n", ":2:", "task count says 3 but the line has 2"),
        ("nonnum.tr", "1 1 5 5\n2 1 5 5\n3 1 5 x\n", ":3:", "task duration 1: 'x' is not a number"),
        ("neg.tr", "1 1 5 -5\n", ":1:", "negative"),
        ("negmean.tr", "1 1 -5 5\n", ":1:", "mean task duration"),
        ("decr.tr", "5 1 5 5\n4 1 5 5\n", ":2:", "earlier than the previous job's 5"),
        ("zero.tr", "1 0 5\n", ":1:", "at least one task"),
        ("short.tr", "1 1\n", ":1:", "missing mean"),
        ("fraccount.tr", "1 1.5 5 5\n", ":1:", "task count"),
        ("nan.tr", "nan 1 5 5\n", ":1:", "submission time"),
    ];
    for (name, content, line, what) in cases {
        let msg = load_err(name, content);
        assert!(msg.contains(name), "{msg} should name {name}");
        assert!(msg.contains(line), "{msg} should name line {line}");
        assert!(msg.contains(what), "{msg} should say {what}");
    }
    let missing = Trace::load("/nonexistent/x.tr").unwrap_err().to_string();
    assert!(missing.contains("/nonexistent/x.tr") && missing.contains("cannot open"), "{missing}");
}

#[test]
fn blank_trailing_line_is_accepted() {
    let p = temp_trace("blank.tr", "1 1 5 5\n2 1 5 5\n\n");
    assert_eq!(Trace::load(p.to_str().unwrap()).unwrap().len(), 2);
}

#[test]
fn duplicate_submission_times_shift_by_a_hundredth() {
    let t = Trace::parse("d.tr", "1 1 5 5\n1 1 5 5\n1 1 5 5\n2 1 5 5\n2 1 5 5\n".as_bytes()).unwrap();
    // Same float arithmetic as the reference: job_start_tstamps[t] += 0.01, repeatedly.
    let s: Vec<f64> = (0..t.len()).map(|i| t.submit(i)).collect();
    assert_eq!(s, vec![1.0, 1.0 + 0.01, 1.0 + 0.01 + 0.01, 2.0, 2.0 + 0.01]);
    // A shift past the next job's time: that job waits for it (never back in time).
    let t = Trace::parse("d.tr", "1 1 5 5\n1 1 5 5\n1.005 1 5 5\n".as_bytes()).unwrap();
    assert_eq!(t.submit(2), 1.0 + 0.01);
}

#[test]
fn reads_the_shared_traces() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/traces");
    let small = dir.join("YH_small.tr");
    if !small.exists() {
        eprintln!("skipping: {} not found", small.display());
        return;
    }
    let t = Trace::load(small.to_str().unwrap()).unwrap();
    assert_eq!((t.len(), t.tasks()), (10, 183));
    assert_eq!(t.submit(0), 7.527);
    assert_eq!(t.job(0).int_mean(), 15.0);
    let yh = dir.join("YH2_sub.tr.xz");
    if yh.exists() {
        let t = Trace::load(yh.to_str().unwrap()).unwrap();
        assert_eq!((t.len(), t.tasks()), (3363, 137_029));
    }
    assert_eq!(Family::detect("x/GOOG_subtrace.tr.xz"), Family::Google);
    assert_eq!(Family::detect("x/YH2_sub.tr"), Family::Yahoo);
}

fn eagle_sim(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_eagle-sim")).args(args).output().unwrap()
}

#[test]
fn bad_flags_exit_non_zero_with_a_message() {
    let trace = temp_trace("ok.tr", "1 1 5 5\n");
    let tr = trace.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "missing command"),
        (vec!["frobnicate"], "unknown command"),
        (vec!["run", "--system", "eagle", "--nodes", "10"], "missing --trace"),
        (vec!["run", "--trace", tr, "--system", "yarn", "--nodes", "10"], "unknown system 'yarn'"),
        (vec!["run", "--trace", tr, "--system", "eagle", "--nodes", "ten"], "--nodes 'ten'"),
        (vec!["run", "--trace", tr, "--system", "eagle", "--nodes", "0"], "--nodes must be at least 1"),
        (vec!["run", "--trace", tr, "--system", "eagle", "--nodes", "10", "--bogus"], "unknown flag --bogus"),
        (vec!["run", "--trace", tr, "--system", "eagle", "--nodes", "10", "--estimate", "over:0.5"], "bad estimate"),
        (vec!["run", "--trace", tr, "--system", "eagle", "--nodes", "10", "--big-partition", "120"], "big_partition_pct"),
        (vec!["run", "--trace", tr, "--system", "eagle", "--nodes", "10", "--seed"], "--seed needs a value"),
        (vec!["run", "--trace", tr, "--system", "eagle", "--nodes", "1", "--nodes", "2"], "given twice"),
        (vec!["gen", "--like", tr, "--jobs", "5", "--nodes", "10", "--out", "/dev/null"], "missing --load"),
    ];
    for (args, want) in cases {
        let out = eagle_sim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: stderr {err:?} should contain {want:?}");
    }
}

#[test]
fn bad_trace_exits_one_naming_file_and_line() {
    let trace = temp_trace("bad_cli.tr", "1 1 5 5\n2 2 5 5\n");
    let out = eagle_sim(&["run", "--trace", trace.to_str().unwrap(), "--system", "eagle", "--nodes", "10", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("bad_cli.tr:2:"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn gen_writes_a_parsable_trace() {
    let src = temp_trace("gen_src.tr", "0 2 10.5 10 11\n1 1 100 100\n2 3 1 1 1 1\n");
    let dst = src.with_file_name("gen_out.tr");
    let out = eagle_sim(&[
        "gen", "--like", src.to_str().unwrap(), "--jobs", "1000", "--nodes", "10", "--load", "0.7", "--seed", "4", "--out",
        dst.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = Trace::load(dst.to_str().unwrap()).unwrap();
    assert_eq!(t.len(), 1000);
}
