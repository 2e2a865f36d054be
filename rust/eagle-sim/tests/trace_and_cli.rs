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
fn bad_flags_exit_two_with_a_message_naming_the_flag() {
    let trace = temp_trace("ok.tr", "1 1 5 5\n");
    let tr = trace.to_str().unwrap();
    let run = |extra: &[&'static str]| -> Vec<String> {
        let mut v: Vec<String> =
            ["run", "--trace", tr, "--system", "eagle", "--nodes", "10"].iter().map(|s| s.to_string()).collect();
        v.extend(extra.iter().map(|s| s.to_string()));
        v
    };
    let s = |v: &[&str]| -> Vec<String> { v.iter().map(|s| s.to_string()).collect() };
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (s(&[]), vec!["requires a subcommand", "run", "gen"]),
        (s(&["frobnicate"]), vec!["unrecognized subcommand 'frobnicate'"]),
        (
            s(&["run", "--system", "eagle", "--nodes", "10"]),
            vec!["required arguments were not provided", "--trace <PATH>"],
        ),
        (
            s(&["run", "--trace", tr, "--system", "yarn", "--nodes", "10"]),
            vec![
                "invalid value 'yarn' for '--system <SYSTEM>'",
                "possible values: sparrow, hawk, eagle, dlwl, clwl, eagle-adaptive",
            ],
        ),
        (
            s(&["run", "--trace", tr, "--system", "eagle", "--nodes", "ten"]),
            vec!["invalid value 'ten' for '--nodes <N>'"],
        ),
        (
            s(&["run", "--trace", tr, "--system", "eagle", "--nodes", "0"]),
            vec!["invalid value '0' for '--nodes <N>': must be at least 1"],
        ),
        (run(&["--bogus"]), vec!["unexpected argument '--bogus'"]),
        (run(&["--estimate", "over:0.5"]), vec!["invalid value 'over:0.5' for '--estimate <MODE>'", "bad estimate"]),
        (run(&["--cutoff", "inf"]), vec!["invalid value 'inf' for '--cutoff <SECONDS>': must be a finite number"]),
        (run(&["--slots", "-1"]), vec!["--slots <K>"]),
        (run(&["--big-partition", "120"]), vec!["big_partition_pct"]),
        (run(&["--seed"]), vec!["a value is required for '--seed <S>'"]),
        (run(&["--nodes", "2"]), vec!["'--nodes <N>' cannot be used multiple times"]),
        (run(&["--json=yes"]), vec!["--json"]),
        (run(&["--penalty", "1"]), vec!["required arguments were not provided", "--locality <MODE>"]),
        (run(&["--locality", "fixed:1", "--penalty", "-1"]), vec!["for '--penalty <S>': must be >= 0"]),
        (run(&["--locality", "fixed:1", "--congestion", "5:1:2"]), vec!["for '--congestion <START:END:FACTOR>'"]),
        (run(&["--locality", "sometimes"]), vec!["for '--locality <MODE>'"]),
        (
            s(&["gen", "--like", tr, "--jobs", "5", "--nodes", "10", "--out", "/dev/null"]),
            vec!["required arguments were not provided", "--load <L>"],
        ),
        (
            s(&["gen", "--like", tr, "--jobs", "5", "--nodes", "10", "--load", "0", "--out", "/dev/null"]),
            vec!["invalid value '0' for '--load <L>': must be > 0"],
        ),
    ];
    for (args, wants) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = eagle_sim(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        for want in wants {
            assert!(err.contains(want), "{args:?}: stderr {err:?} should contain {want:?}");
        }
    }
}

#[test]
fn every_subcommand_has_its_own_help() {
    let run_flags = [
        "--trace <PATH>",
        "--system <SYSTEM>",
        "--nodes <N>",
        "--cutoff",
        "--small-partition",
        "--big-partition",
        "--seed",
        "--heartbeat",
        "--estimate",
        "--slots",
        "--jobs-out",
        "--json",
        "--locality",
        "--replication",
        "--penalty",
        "--congestion",
        "--quiet",
    ];
    let gen_flags = ["--like <TRACE>", "--jobs <N>", "--nodes <N>", "--load <L>", "--seed", "--out <PATH>", "--quiet"];
    for args in [&["run", "--help"][..], &["run", "-h"], &["help", "run"]] {
        let out = eagle_sim(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("Usage: eagle-sim run"), "{args:?}: {text}");
        for f in run_flags {
            assert!(text.contains(f), "{args:?}: run help lacks {f}: {text}");
        }
        assert!(!text.contains("--like"), "{args:?}: run help shows gen's flags: {text}");
    }
    for args in [&["gen", "--help"][..], &["help", "gen"]] {
        let out = eagle_sim(args);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(text.contains("Usage: eagle-sim gen"), "{args:?}: {text}");
        for f in gen_flags {
            assert!(text.contains(f), "{args:?}: gen help lacks {f}: {text}");
        }
        assert!(!text.contains("--trace"), "{args:?}: gen help shows run's flags: {text}");
    }
    let out = eagle_sim(&["--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0));
    assert!(text.contains("run") && text.contains("gen") && text.contains("Replays a Hawk/Eagle trace"), "{text}");
}

#[test]
fn progress_lines_on_a_pipe_and_none_with_quiet() {
    // stderr is a pipe here: plain lines, not a bar. EAGLE_SIM_PROGRESS_AFTER_MS=0 shows
    // them from the start (by default a run shorter than a second shows nothing).
    let src = temp_trace("progress_src.tr", "0 1 1 1\n");
    let big = src.with_file_name("progress_big.tr");
    let (src_path, big_path) = (src.to_str().unwrap(), big.to_str().unwrap());
    let gen_args = ["gen", "--like", src_path, "--jobs", "6000", "--nodes", "200", "--load", "0.5", "--out", big_path];
    let gen = eagle_sim(&gen_args);
    assert!(gen.status.success(), "{}", String::from_utf8_lossy(&gen.stderr));
    let args = ["run", "--trace", big_path, "--system", "sparrow", "--nodes", "200", "--json"];
    let run = |args: &[&str], after_ms: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_eagle-sim"));
        c.args(args).env_remove("EAGLE_SIM_PROGRESS_AFTER_MS");
        if let Some(ms) = after_ms {
            c.env("EAGLE_SIM_PROGRESS_AFTER_MS", ms);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).expect("stdout stays one JSON object");
        String::from_utf8(out.stderr).unwrap()
    };
    let err = run(&args, Some("0"));
    let pcts: Vec<&str> = err
        .lines()
        .filter_map(|l| l.strip_prefix("eagle-sim run sparrow: "))
        .map(|l| l.split(' ').next().unwrap())
        .collect();
    assert_eq!(pcts, ["0%", "10%", "20%", "30%", "40%", "50%", "60%", "70%", "80%", "90%", "100%"], "{err}");
    assert!(err.contains("100% (6000/6000 jobs), ") && err.contains(" s elapsed, ETA "), "{err}");
    // The same for gen (jobs written).
    let gen = Command::new(env!("CARGO_BIN_EXE_eagle-sim"))
        .args(gen_args)
        .env("EAGLE_SIM_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    let gerr = String::from_utf8_lossy(&gen.stderr);
    assert_eq!(gerr.lines().filter(|l| l.starts_with("eagle-sim gen: ") && l.contains("% (")).count(), 11, "{gerr}");
    // --quiet (before or after the subcommand: a global flag) prints nothing.
    let mut quiet = args.to_vec();
    quiet.insert(0, "--quiet");
    assert_eq!(run(&quiet, Some("0")), "");
    let mut quiet = args.to_vec();
    quiet.push("-q");
    assert_eq!(run(&quiet, Some("0")), "");
    // Default grace period: a sub-second run stays silent.
    assert_eq!(run(&args, None), "");
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
        "gen",
        "--like",
        src.to_str().unwrap(),
        "--jobs",
        "1000",
        "--nodes",
        "10",
        "--load",
        "0.7",
        "--seed",
        "4",
        "--out",
        dst.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let t = Trace::load(dst.to_str().unwrap()).unwrap();
    assert_eq!(t.len(), 1000);
}
