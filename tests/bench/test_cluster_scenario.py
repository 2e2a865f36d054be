"""bench/cluster.py's pure parts: how the replay is split between the four applications, the
static split's cores, and each system's SparkConf."""
import argparse
import json

import pytest

from bench import cluster


def plan():
    jobs = []
    for i, cls in enumerate(["short", "long", "short", "short", "long", "long", "short"]):
        jobs.append({"id": i, "arrival_s": i * 0.5, "durations_ms": [100 if cls == "short" else 2000] * 2,
                     "estimate_ms": 100, "class": cls})
    return {"jobs": jobs, "meta": {"ratio": 1.2, "seed": 1, "n_jobs": len(jobs)}}


def test_short_jobs_alternate_between_the_interactive_apps_and_long_ones_between_the_batch_apps():
    apps = cluster.split_plan(plan())
    assert [j["orig_id"] for j in apps["interactive-0"]["jobs"]] == [0, 3]
    assert [j["orig_id"] for j in apps["interactive-1"]["jobs"]] == [2, 6]
    assert [j["orig_id"] for j in apps["batch-0"]["jobs"]] == [1, 5]
    assert [j["orig_id"] for j in apps["batch-1"]["jobs"]] == [4]
    for a in cluster.APPS:
        jobs = apps[a]["jobs"]
        assert [j["id"] for j in jobs] == list(range(len(jobs))), "ids renumbered per application"
        assert all(j["arrival_s"] == j["orig_id"] * 0.5 for j in jobs), "arrival times kept"
    assert sum(len(apps[a]["jobs"]) for a in cluster.APPS) == 7


def test_static_split_follows_the_work_and_never_exceeds_the_slots():
    apps = cluster.split_plan(plan())
    cores = cluster.static_cores(apps, 16)
    assert sum(cores.values()) <= 16 and min(cores.values()) >= 1
    # batch-0 holds 8 s of work, interactive-0 0.4 s: the batch application gets more cores.
    assert cores["batch-0"] > cores["interactive-0"]
    assert cluster.static_cores(apps, 2) == {a: 1 for a in cluster.APPS}, "one core each when slots are scarce"


@pytest.mark.parametrize("system", cluster.SYSTEMS)
def test_each_system_gets_its_conf(system, tmp_path, monkeypatch):
    monkeypatch.setattr("bench.schedulers.find_jar", lambda root: "/x/plugin.jar")
    monkeypatch.setattr("bench.schedulers.find_bench_jar", lambda root: "/x/bench.jar")
    tb = {"master": "spark://10.0.0.1:7077", "driver_host": "10.0.0.1", "hosts": 4, "cores": 8, "slots": 32,
          "mode": "netns", "eagle_central": "10.0.0.1:7100", "eagle_secret": "/s"}
    conf = cluster.app_conf(system, tb, str(tmp_path), "batch-0", 2, 3, eagle={"minProbes": 2})
    if system in cluster.CLUSTER_SYSTEMS:
        assert conf["spark.master"] == "spark-eagle:spark://10.0.0.1:7077"
        assert conf["spark.scheduler.eagle.cluster.central"] == "10.0.0.1:7100"
        assert (conf["spark.executor.cores"], conf["spark.cores.max"]) == ("2", "8")
        assert conf["spark.scheduler.eagle.minProbes"] == "2", "--eagle-conf reaches the cluster systems"
    else:
        assert conf["spark.master"] == "spark://10.0.0.1:7077"
        assert not any(k.startswith("spark.scheduler.eagle") for k in conf), "stock Spark gets no eagle key"
        want = ("1", "3") if system == "static" else ("2", "8")
        assert (conf["spark.executor.cores"], conf["spark.cores.max"]) == want


def test_the_plan_becomes_a_simulator_trace_in_seconds():
    p = plan()
    lines = cluster.plan_trace(p).splitlines()
    assert len(lines) == len(p["jobs"])
    first = lines[1].split()
    assert float(first[0]) == 0.5 and first[1] == "2" and float(first[2]) == 0.1
    assert [float(x) for x in first[3:]] == [2.0, 2.0]


@pytest.mark.parametrize("hosts,want", [(1, 0), (2, 1), (4, 1), (8, 1), (20, 2)])
def test_short_only_hosts_mirror_the_central(hosts, want):
    assert cluster.short_only_hosts(hosts) == want


def test_the_summary_checks_the_targets_and_the_report_draws_every_system(tmp_path):
    from bench import report
    runs = []
    for system, short_p99, long_p50 in [("eagle", 1.0, 5.0), ("eagle-adaptive", 3.0, 4.0), ("hawk", 2.0, 5.0),
                                        ("static", 4.0, 5.2)]:
        runs.append({"system": system, "scheduler": system, "ratio": 1.2, "seed": 1, "correct": True,
                     "short": {"count": 3, "p50": 0.1, "p90": 0.5, "p99": short_p99},
                     "long": {"count": 2, "p50": long_p50, "p90": long_p50, "p99": long_p50},
                     "latencies": {"short": [0.1, 0.5, short_p99], "long": [long_p50, long_p50]}})
    summary = cluster.summarise(runs, [1.2], ["eagle", "eagle-adaptive", "hawk", "static"])
    crit = summary[0]["criteria"]
    assert crit["short_p99_vs_static"] == pytest.approx(0.25)
    assert crit["met"] == {"short_p99_vs_static <= 0.5": True, "short_p99_vs_hawk <= 0.7": True,
                           "long_p50_vs_static <= 1.1": True}
    adaptive = summary[0]["criteria_adaptive"]
    assert adaptive["short_p99_vs_static"] == pytest.approx(0.75)
    assert adaptive["met"] == {"short_p99_vs_static <= 0.5": False, "short_p99_vs_hawk <= 0.7": False,
                               "long_p50_vs_static <= 1.1": True}
    results = {"scenario": "cluster", "testbed": {"hosts": 4, "slots": 8, "mode": "netns"}, "runs": runs,
               "summary": summary}
    html = report.write_report(str(tmp_path), results)
    text = (tmp_path / html).read_text() if not html.startswith("/") else open(html).read()
    assert "hawk" in text and "static" in text


def test_a_system_may_name_its_own_short_partition_and_is_measured_as_its_own_system(tmp_path):
    from bench import report
    assert cluster.parse_system("eagle-adaptive@slots") == ("eagle-adaptive", "slots", None)
    assert cluster.parse_system("hawk") == ("hawk", None, None)
    for bad, names in [("static@slots", "static@slots"), ("eagle@hosts", "fixed, adaptive, slots"),
                       ("eagel@slots", "eagel")]:
        with pytest.raises(SystemExit, match=names):
            cluster.parse_system(bad)
    runs = []
    for system, short_p99, long_p50 in [("eagle-adaptive", 3.0, 4.0), ("eagle-adaptive@slots", 1.0, 8.0),
                                        ("hawk", 2.0, 5.0), ("static", 4.0, 5.0)]:
        runs.append({"system": system, "scheduler": system, "ratio": 2.0, "seed": 1, "correct": True,
                     "short": {"count": 3, "p50": 0.1, "p90": 0.5, "p99": short_p99},
                     "long": {"count": 2, "p50": long_p50, "p90": long_p50, "p99": long_p50},
                     "latencies": {"short": [0.1, 0.5, short_p99], "long": [long_p50, long_p50]}})
    systems = [r["system"] for r in runs]
    row = cluster.summarise(runs, [2.0], systems)[0]
    assert set(row["criteria_of"]) == {"eagle-adaptive", "eagle-adaptive@slots"}
    slots = row["criteria_of"]["eagle-adaptive@slots"]
    assert slots["short_p99_vs_static"] == pytest.approx(0.25) and slots["long_p50_vs_static"] == pytest.approx(1.6)
    assert row["criteria_adaptive"]["short_p99_vs_hawk"] == pytest.approx(1.5), "the plain system keeps its key"
    assert report._scheds(list(reversed(runs))) == ["eagle-adaptive", "eagle-adaptive@slots", "hawk", "static"]
    results = {"scenario": "cluster", "testbed": {"hosts": 4, "slots": 8, "mode": "netns"}, "runs": runs,
               "summary": [row]}
    html = report.write_report(str(tmp_path), results)
    text = (tmp_path / html).read_text() if not html.startswith("/") else open(html).read()
    assert "eagle-adaptive@slots" in text


def test_an_application_that_fell_back_to_stock_scheduling_is_named_and_not_counted():
    fine = {"fallback": False, "cluster": {"grants": 3}}
    refused = {"fallback": True, "fallbackReason": "clusterStart: ... refused the driver 'a': protocol version mismatch"}
    summaries = {"interactive-0": fine, "batch-0": refused, "batch-1": None}
    got = cluster.fallbacks("eagle-adaptive", summaries)
    assert len(got) == 1 and got[0].startswith("batch-0:") and "protocol version mismatch" in got[0]
    assert cluster.fallbacks("eagle", {"interactive-0": fine}) == []
    assert cluster.fallbacks("static", summaries) == [], "stock Spark has no plugin to fall back from"


def test_the_warm_up_replays_the_first_plan_unmeasured_ahead_of_every_measured_one():
    plans = {"r1.2-s1": {"apps": "a"}, "r2-s1": {"apps": "b"}}
    seq = cluster.plan_sequence(plans, warmup=True)
    assert [t for t, _ in seq] == [cluster.WARMUP, "r1.2-s1", "r2-s1"]
    assert seq[0][1] is plans["r1.2-s1"], "the warm-up is the first plan itself"
    assert cluster.WARMUP not in plans, "the measured plans stay as they were"
    assert [t for t, _ in cluster.plan_sequence(plans, warmup=False)] == ["r1.2-s1", "r2-s1"]
    assert cluster.plan_sequence({}, warmup=True) == []


def test_more_warm_up_plans_replay_the_first_plans_in_order_and_wrap_around():
    plans = {"r1.2-s1": {"apps": "a"}, "r1.2-s2": {"apps": "b"}}
    seq = cluster.plan_sequence(plans, warmup=3)
    assert [t for t, _ in seq] == ["warmup", "warmup-2", "warmup-3", "r1.2-s1", "r1.2-s2"]
    assert [s for _, s in seq[:3]] == [plans["r1.2-s1"], plans["r1.2-s2"], plans["r1.2-s1"]]
    ns = lambda **kw: argparse.Namespace(**kw)
    assert cluster.warmups(ns()) == 3, "three plans by default"
    assert cluster.warmups(ns(quick=True)) == 1, "a quick run warms on one plan"
    assert cluster.warmups(ns(quick=True, warmup=2)) == 2
    assert cluster.warmups(ns(warmup=3)) == 3 and cluster.warmups(ns(warmup=3, no_warmup=True)) == 0
    with pytest.raises(SystemExit, match="--warmup must be a number of plans >= 0, got -1"):
        cluster.warmups(ns(warmup=-1))
    from bench import run
    assert cluster.warmups(run.parse_args(["cluster", "--warmup", "3"])) == 3
    assert cluster.warmups(run.parse_args(["cluster", "--no-warmup"])) == 0
    assert cluster.warmups(run.parse_args(["cluster"])) == 3
    assert cluster.warmups(run.parse_args(["cluster", "--quick"])) == 1


def test_a_system_may_give_each_application_executors_on_some_hosts(tmp_path, monkeypatch):
    from bench import report
    monkeypatch.setattr("bench.schedulers.find_jar", lambda root: "/x/plugin.jar")
    monkeypatch.setattr("bench.schedulers.find_bench_jar", lambda root: "/x/bench.jar")
    assert cluster.parse_system("eagle-adaptive/4", 8) == ("eagle-adaptive", None, 4)
    assert cluster.parse_system("eagle-adaptive@slots/4", 8) == ("eagle-adaptive", "slots", 4)
    assert cluster.parse_system("oversubscribed/2") == ("oversubscribed", None, 2)
    assert cluster.parse_system("hawk/4:8", 8) == ("hawk", None, (4, 8)), "interactive on 4, batch on 8"
    assert [cluster.hosts_of((4, 8), a) for a in cluster.APPS] == [4, 4, 8, 8]
    assert [cluster.hosts_of(4, a) for a in cluster.APPS] == [4] * 4 and cluster.hosts_of(None, "batch-0") is None
    assert cluster.run_dir_name("hawk/4:8") == "hawk-on-4-8"
    for bad, names in [("hawk/0", "1 to 8"), ("hawk/9", "1 to 8"), ("hawk/x", "hawk/x"), ("static/4", "static split"),
                       ("eagel/4", "eagel"), ("hawk/4:9", "1 to 8"), ("hawk/4:", "N:M"), ("hawk/2:4:8", "N:M"),
                       ("static/4:8", "static split")]:
        with pytest.raises(SystemExit, match=names):
            cluster.parse_system(bad, 8)
    assert cluster.base_system("eagle-adaptive@slots/4") == "eagle-adaptive"
    assert cluster.run_dir_name("eagle-adaptive/4") == "eagle-adaptive-on-4", "not a folder inside eagle-adaptive's"
    tb = {"master": "spark://10.0.0.1:7077", "driver_host": "10.0.0.1", "hosts": 8, "cores": 8, "slots": 64,
          "mode": "netns", "eagle_central": "10.0.0.1:7100", "eagle_secret": str(tmp_path / "secret")}
    conf = cluster.app_conf("hawk", tb, str(tmp_path), "batch-0", 2, None, on_hosts=4)
    assert (conf["spark.executor.cores"], conf["spark.cores.max"]) == ("2", "8"), "two slots' executors on 4 hosts"
    conf = cluster.app_conf("hawk", tb, str(tmp_path), "batch-0", 2, None)
    assert conf["spark.cores.max"] == "16", "every host by default"
    assert cluster.executors_of("hawk", 8, None, 4) == 4 and cluster.executors_of("static", 8, 3, None) == 3
    # Where the executors were, from the event log.
    events = tmp_path / "app" / "events"
    events.mkdir(parents=True)
    added = lambda ex, host: json.dumps({"Event": "SparkListenerExecutorAdded", "Executor ID": ex,
                                         "Executor Info": {"Host": host, "Total Cores": 2}})
    (events / "app-1").write_text("\n".join([json.dumps({"Event": "SparkListenerApplicationStart"}),
                                             added("0", "10.77.1.2"), added("1", "10.77.1.1"),
                                             added("2", "10.77.1.2"), "{not json"]) + "\n")
    assert cluster.executor_hosts(str(tmp_path / "app")) == ["10.77.1.1", "10.77.1.2"]
    assert cluster.executor_hosts(str(tmp_path / "none")) == []
    runs = [{"system": s, "scheduler": s, "ratio": 2.0, "seed": 1, "correct": True,
             "short": {"count": 1, "p50": p99, "p90": p99, "p99": p99}, "long": {"count": 1, "p50": 4.0, "p90": 4.0, "p99": 4.0},
             "latencies": {"short": [p99], "long": [4.0]}}
            for s, p99 in [("eagle-adaptive/4", 1.0), ("static", 4.0), ("eagle-adaptive", 2.0), ("hawk", 3.0)]]
    row = cluster.summarise(runs, [2.0], [r["system"] for r in runs])[0]
    assert row["criteria_of"]["eagle-adaptive/4"]["short_p99_vs_static"] == pytest.approx(0.25)
    assert row["criteria_of"]["eagle-adaptive/4"]["hawk"] == "hawk", "no hawk/4 ran: plain hawk"
    runs.append(dict(runs[-1], system="hawk/4", scheduler="hawk/4", short={"count": 1, "p50": 2.0, "p90": 2.0, "p99": 2.0}))
    row = cluster.summarise(runs, [2.0], [r["system"] for r in runs])[0]
    got = row["criteria_of"]["eagle-adaptive/4"]
    assert got["hawk"] == "hawk/4" and got["short_p99_vs_hawk"] == pytest.approx(0.5), "Hawk on as many hosts"
    assert cluster.hawk_of("eagle-adaptive/4:8", {"hawk/4:8": {}, "hawk/4": {}}) == "hawk/4:8"
    assert row["criteria_of"]["eagle-adaptive"]["hawk"] == "hawk"
    assert report._scheds(runs) == ["eagle-adaptive", "eagle-adaptive/4", "hawk", "hawk/4", "static"]


def test_a_system_may_carry_its_own_eagle_keys_against_the_same_baselines():
    import argparse
    label = "eagle-adaptive/4+minProbes=2+spark.scheduler.eagle.probeRatio=1"
    assert cluster.parse_system(label, 8) == ("eagle-adaptive", None, 4)
    assert cluster.base_system(label) == "eagle-adaptive"
    args = argparse.Namespace(eagle_conf=[("minProbes", "20"), ("dds.enabled", "false")])
    assert cluster.eagle_keys(args, label) == {"minProbes": "2", "probeRatio": "1", "dds.enabled": "false"}, \
        "its own keys over --eagle-conf's"
    assert cluster.eagle_keys(args, "eagle-adaptive/4") == {"minProbes": "20", "dds.enabled": "false"}
    for bad, names in [("static+minProbes=2", "cluster-mode systems"), ("eagle-adaptive+minProbes", "KEY=VALUE"),
                       ("hawk/4+=2", "KEY=VALUE"), ("oversubscribed/2+minProbes=2", "cluster-mode systems"),
                       ("eagel/4+minProbes=2", "unknown system 'eagel'")]:
        with pytest.raises(SystemExit, match=names):
            cluster.parse_system(bad, 8)
    runs = [{"system": s, "scheduler": s, "ratio": 2.0, "seed": 1, "correct": True,
             "short": {"count": 1, "p50": p99, "p90": p99, "p99": p99}, "long": {"count": 1, "p50": 4.0, "p90": 4.0, "p99": 4.0},
             "latencies": {"short": [p99], "long": [4.0]}}
            for s, p99 in [(label, 1.0), ("eagle-adaptive/4", 2.0), ("static", 4.0), ("hawk/4", 4.0), ("hawk", 8.0)]]
    row = cluster.summarise(runs, [2.0], [r["system"] for r in runs])[0]
    got = row["criteria_of"][label]
    assert got["hawk"] == "hawk/4" and got["short_p99_vs_hawk"] == pytest.approx(0.25), "held against hawk/4"
    assert row["criteria_of"]["eagle-adaptive/4"]["short_p99_vs_static"] == pytest.approx(0.5)
    assert cluster.run_dir_name(label) != cluster.run_dir_name("eagle-adaptive/4")


def test_the_task_anatomy_splits_each_stage_executor_pairs_first_task_from_the_rest(tmp_path):
    from bench import eventlog

    def task(stage, ex, launch, hold, run, deser):
        return {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Stage Attempt ID": 0,
                "Task Info": {"Launch Time": launch, "Finish Time": launch + hold, "Executor ID": ex},
                "Task Metrics": {"Executor Run Time": run, "Executor Deserialize Time": deser,
                                 "Executor Deserialize CPU Time": 2_000_000, "Executor CPU Time": 1_000_000,
                                 "JVM GC Time": 500}}
    rows = [task(1, "a", 1000, 400, 100, 250),   # stage 1's first on a
            task(1, "a", 1100, 160, 100, 20),    # then the rest
            task(1, "b", 1200, 300, 100, 150),   # stage 1's first on b
            task(2, "a", 1300, 140, 100, 10),    # stage 2's first on a
            task(3, "a", 900, 100, 50, 5),       # launched before the plan started
            task(3, "a", 5000, 100, 50, 5)]      # after the next plan started
    p = tmp_path / "events_1"
    p.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    a = eventlog.task_anatomy([str(p)], since_ms=1000, until_ms=5000)
    assert a["tasks"] == 4
    assert a["first"] == {"tasks": 3, "deserialize_ms": 136.67, "other_ms": 43.33}
    assert a["rest"] == {"tasks": 1, "deserialize_ms": 20.0, "other_ms": 40.0}
    assert a["hold_ms"] == 250.0 and a["run_ms"] == 100.0 and a["deserialize_cpu_ms"] == 2.0
    assert a["pairs_per_stage"] == 1.5 and a["gc_s"] == 2.0
    assert eventlog.task_anatomy([str(p)], since_ms=10_000) == {"tasks": 0}


def test_each_systems_testbed_logs_are_kept_in_its_own_run_folder(tmp_path):
    state = tmp_path / "testbed"
    (state / "logs").mkdir(parents=True)
    runs = tmp_path / "runs"
    for system, line in [("eagle-adaptive", "first"), ("hawk", "second")]:
        # The next testbed writes over the same files.
        (state / "logs" / "eagle-node0.log").write_text(line)
        cluster.keep_testbed_logs(str(state), str(runs / system))
    assert (runs / "eagle-adaptive" / "testbed-logs" / "eagle-node0.log").read_text() == "first"
    assert (runs / "hawk" / "testbed-logs" / "eagle-node0.log").read_text() == "second"
    # Copied again (a system run twice): the newest logs replace the old copy.
    (state / "logs" / "eagle-node0.log").write_text("third")
    cluster.keep_testbed_logs(str(state), str(runs / "hawk"))
    assert (runs / "hawk" / "testbed-logs" / "eagle-node0.log").read_text() == "third"
    # A testbed that never came up has no logs: nothing to copy, no folder made.
    cluster.keep_testbed_logs(str(tmp_path / "none"), str(runs / "static"))
    assert not (runs / "static").exists()


def test_a_failed_log_copy_is_logged_and_does_not_mask_the_runs_own_outcome(tmp_path, capsys):
    # keep_testbed_logs runs in one_system's finally: an OSError there would replace the
    # run's own exception (or its results) with a copy failure.
    state = tmp_path / "testbed"
    (state / "logs").mkdir(parents=True)
    (state / "logs" / "eagle-node0.log").write_text("x")
    blocker = tmp_path / "runs"
    blocker.write_text("a file where the run folder's parent should be")
    cluster.keep_testbed_logs(str(state), str(blocker / "eagle-adaptive"))
    out = capsys.readouterr()
    said = out.out + out.err
    assert "testbed logs" in said and "not kept" in said, said
    assert str(blocker / "eagle-adaptive") in said, said


def test_a_plans_cluster_counters_are_the_change_over_that_plan():
    # run_cluster reads the counters at the start and after each plan (warm-up first).
    result = {"counters_at_start": {"cluster.grants": 3, "cluster.heldGrants": 0, "decisions": 1},
              "replays": [
                  {"tag": "warmup", "counters": {"cluster.grants": 10, "cluster.heldGrants": 2,
                                                 "cluster.runningLeases": 1}},
                  {"tag": "1.2-s1", "counters": {"cluster.grants": 25, "cluster.heldGrants": 1,
                                                 "cluster.runningLeases": 0, "decisions": 9}},
                  {"tag": "1.2-s2", "counters": None}]}
    # Running totals less the reading before the plan; levels as read after it; only cluster.*.
    assert cluster.plan_counters(result, "warmup") == {"grants": 7, "heldGrants": 2, "runningLeases": 1}
    assert cluster.plan_counters(result, "1.2-s1") == {"grants": 15, "heldGrants": 1, "runningLeases": 0}
    # A reading that failed, a plan that did not run, or no start reading: unknown, not 0.
    assert cluster.plan_counters(result, "1.2-s2") is None
    assert cluster.plan_counters(result, "2.0-s1") is None
    assert cluster.plan_counters(dict(result, counters_at_start=None), "warmup") is None
    # An application not under cluster mode has no cluster counters.
    assert cluster.plan_counters({"counters_at_start": {}, "replays": [{"tag": "w", "counters": {}}]}, "w") == {}


def test_the_paper_check_builds_the_simulator_and_says_why_it_is_skipped(tmp_path, capsys):
    import subprocess
    calls = []

    def ok(cmd, **kw):
        calls.append((cmd, kw.get("cwd")))
        return subprocess.CompletedProcess(cmd, 0, "", "")

    assert cluster.build_simulator(str(tmp_path), run=ok)
    assert calls == [(["cargo", "build", "--release", "-q", "-p", "eagle-sim"], str(tmp_path))]

    def broken(cmd, **kw):
        return subprocess.CompletedProcess(cmd, 101, "", "error[E0425]: cannot find value `x`")

    assert not cluster.build_simulator(str(tmp_path), run=broken)

    def no_cargo(cmd, **kw):
        raise FileNotFoundError(2, "No such file or directory", "cargo")

    assert not cluster.build_simulator(str(tmp_path), run=no_cargo)
    err = capsys.readouterr()
    text = err.out + err.err
    assert "eagle-sim did not build (exit 101)" in text and "E0425" in text
    assert "cannot run cargo" in text


def test_the_paper_check_line_gives_both_sides_or_says_why_one_is_missing():
    sim = {"short_p50": 1.0, "short_p90": 0.0140, "short_p99": 0.0262, "long_p50": 1.0}
    line = cluster.paper_check_line({"ratio": 1.2, "eagle_vs_hawk_testbed": {}, "eagle_vs_hawk_simulator": sim})
    assert line.startswith("ratio 1.2 paper check, eagle/hawk:")
    assert "testbed not run (--systems needs eagle and hawk)" in line
    assert "simulator short p50/p90/p99 1.00/0.01/0.03x, long p50 1.00x" in line
    test = {"short_p50": 0.5, "short_p90": 0.25, "short_p99": 0.75, "long_p50": 1.1}
    line = cluster.paper_check_line({"ratio": 2.0, "eagle_vs_hawk_testbed": test, "eagle_vs_hawk_simulator": {}})
    assert "testbed short p50/p90/p99 0.50/0.25/0.75x, long p50 1.10x" in line
    assert "simulator not run" in line
