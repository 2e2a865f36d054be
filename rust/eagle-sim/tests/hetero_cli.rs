//! Heterogeneous mode end to end through the binary: `gen --classes` writes the
//! demands, `run --machines` replays them under every placer and resource-blind
//! engine systems, and bad input fails with a message naming it.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_eagle-sim")).args(args).output().unwrap()
}

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data").join(name).to_str().unwrap().to_string()
}

/// A small source trace: 40 jobs of 1-4 tasks of 5-60 s.
fn workdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("eagle-sim-hetero-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::new();
    for j in 0..40u32 {
        let n = 1 + j % 4;
        let d: Vec<String> = (0..n).map(|t| (5 + (j * 7 + t * 13) % 56).to_string()).collect();
        text.push_str(&format!("{} {n} 30 {}\n", j * 3, d.join(" ")));
    }
    std::fs::write(dir.join("src.tr"), text).unwrap();
    dir
}

fn gen(dir: &Path, load: &str) -> String {
    let out = dir.join("h.tr").to_str().unwrap().to_string();
    let src = dir.join("src.tr");
    let o = bin(&[
        "-q",
        "gen",
        "--like",
        src.to_str().unwrap(),
        "--jobs",
        "400",
        "--nodes",
        "200",
        "--load",
        load,
        "--classes",
        &data("lotes-table2.classes"),
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

fn run(trace: &str, system: &str, extra: &[&str]) -> Value {
    let machines = data_machines();
    let mut args = vec![
        "-q",
        "run",
        "--trace",
        trace,
        "--system",
        system,
        "--nodes",
        "1",
        "--machines",
        &machines,
        "--machine-scale",
        "0.002",
        "--json",
    ];
    args.extend_from_slice(extra);
    let o = bin(&args);
    assert!(o.status.success(), "{system}: {}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn data_machines() -> String {
    data("lotes-table1.machines")
}

fn strip(mut v: Value) -> Value {
    let o = v.as_object_mut().unwrap();
    o.remove("wall_seconds");
    if let Some(p) = o.get_mut("plan").and_then(|p| p.as_object_mut()) {
        p.remove("seconds");
    }
    v
}

#[test]
fn every_system_runs_on_generated_demands_deterministically() {
    let dir = workdir("all");
    let trace = gen(&dir, "0.5");
    let demands = std::fs::read_to_string(format!("{trace}.demands")).unwrap();
    assert_eq!(demands.lines().filter(|l| !l.starts_with('#')).count(), 401, "header + one line per job");
    for system in ["lotes", "greedy", "tetris", "eagle", "eagle-adaptive"] {
        let a = run(&trace, system, &["--seed", "3", "--slots-per-core", "64"]);
        assert_eq!(a["system"], system);
        assert_eq!(a["jobs"], 400);
        assert_eq!(a["machine_count"], 31, "Table 1 x 0.002, rounded, at least one each: 13 + 8 + 2 + 2 + 6 x 1");
        for k in ["mean", "p50", "p99"] {
            assert!(a["response"][k].as_f64().is_some_and(|v| v >= 0.0), "{system}: response.{k} in {a}");
        }
        assert_eq!(a["short"]["count"].as_u64().unwrap() + a["long"]["count"].as_u64().unwrap(), 400);
        assert_eq!(a["plan"].is_object(), system == "lotes");
        let b = run(&trace, system, &["--seed", "3", "--slots-per-core", "64"]);
        assert_eq!(strip(a), strip(b), "{system}: same seed, same output");
    }
    let l = run(&trace, "lotes", &[]);
    let p = &l["plan"];
    assert_eq!(p["classes"].as_array().unwrap().len(), 4);
    assert!(p["lambda_rounded"].as_f64().unwrap() <= p["lambda_lp"].as_f64().unwrap() * (1.0 + 1e-9));
    assert!(p["lambda_lp"].as_f64().unwrap() <= p["lambda_fluid"].as_f64().unwrap() * (1.0 + 1e-9));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_files_and_flags_are_named() {
    let dir = workdir("bad");
    let trace = gen(&dir, "0.5");
    let bad = dir.join("bad.machines");
    std::fs::write(&bad, "count cores memory\n10 0.5 0.5\n3 0.5 lots\n").unwrap();
    let o = bin(&[
        "-q",
        "run",
        "--trace",
        &trace,
        "--system",
        "lotes",
        "--nodes",
        "1",
        "--machines",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains(&format!("{}:3: memory: 'lots' is not a finite number >= 0", bad.display())), "{err}");

    let other = dir.join("other.machines");
    std::fs::write(&other, "count cores gpus\n10 0.5 1\n").unwrap();
    let o = bin(&[
        "-q",
        "run",
        "--trace",
        &trace,
        "--system",
        "greedy",
        "--nodes",
        "1",
        "--machines",
        other.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("differ from the machines file's"));

    let o = bin(&["-q", "run", "--trace", &trace, "--system", "lotes", "--nodes", "5"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--system lotes needs --machines FILE"));

    let src = dir.join("src.tr");
    let o = bin(&[
        "-q",
        "run",
        "--trace",
        src.to_str().unwrap(),
        "--system",
        "tetris",
        "--nodes",
        "1",
        "--machines",
        &data_machines(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("src.tr.demands: not found"));

    let classes = dir.join("bad.classes");
    std::fs::write(&classes, "class proportion cores memory\n1 0.5 0.1\n").unwrap();
    let out = dir.join("x.tr");
    let o = bin(&[
        "-q",
        "gen",
        "--like",
        src.to_str().unwrap(),
        "--jobs",
        "5",
        "--nodes",
        "5",
        "--load",
        "0.5",
        "--classes",
        classes.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains(&format!("{}:2: expected 4 fields", classes.display())));
    let _ = std::fs::remove_dir_all(dir);
}
