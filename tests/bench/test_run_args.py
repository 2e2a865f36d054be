"""scripts/bench's --eagle-conf (extra spark.scheduler.eagle.* keys for the eagle runs) and
--executor-java-options / --driver-java-options (JVM options under every scheduler)."""
import os

import pytest

from bench import run
from bench.schedulers import spark_conf


def test_eagle_conf_items_reach_the_eagle_runs_only(tmp_path):
    a = run.parse_args(["tpch", "--quick", "--eagle-conf", "eirene.satc=true",
                        "--eagle-conf", "spark.scheduler.eagle.longShare=0.4"])
    assert a.eagle_conf == [("eirene.satc", "true"), ("longShare", "0.4")]
    tb = {"master": "spark://h:7077", "slots": 4, "cores": 2, "driver_host": "h", "mode": "netns"}
    (tmp_path / "build" / "libs").mkdir(parents=True)
    import pyspark
    line = ".".join(pyspark.__version__.split(".")[:2])
    for name in (f"eagle-spark-{line}_2.13-0.jar", "eagle-spark-bench-0.jar"):
        (tmp_path / "build" / "libs" / name).write_text("")
    eagle = spark_conf("eagle", tb, str(tmp_path / "e"), str(tmp_path), eagle=dict(a.eagle_conf))
    assert eagle["spark.scheduler.eagle.eirene.satc"] == "true"
    assert eagle["spark.scheduler.eagle.longShare"] == "0.4"
    fair = spark_conf("fair", tb, str(tmp_path / "f"), str(tmp_path), eagle=dict(a.eagle_conf))
    assert not any(k.startswith("spark.scheduler.eagle.") for k in fair)


@pytest.mark.parametrize("bad", ["eirene.satc", "=true", "eirene.satc=", "spark.scheduler.eagle.=1"])
def test_a_malformed_eagle_conf_item_is_an_error_naming_the_option(bad, capsys):
    with pytest.raises(SystemExit):
        run.parse_args(["sort", "--eagle-conf", bad])
    err = capsys.readouterr().err
    assert "--eagle-conf wants KEY=VALUE" in err and repr(bad) in err


def test_executor_java_options_reach_every_scheduler_alike(tmp_path):
    from bench.harness import Testbed
    a = run.parse_args(["cluster", "--quick", "--executor-java-options", "-XX:+UseSerialGC -Xss2m"])
    tb = Testbed(a)
    tb.env = {"TB_MODE": "netns", "TB_MASTER": "spark://h:7077", "TB_DRIVER_HOST": "h", "TB_HOSTS": "2",
              "TB_CORES": "2", "TB_SLOTS": "4", "TB_NETWORK": "fast", "TB_EAGLE_CENTRAL": "h:7100",
              "TB_EAGLE_SECRET": "/s"}
    info = tb.info()
    assert info["executor_java_options"] == "-XX:+UseSerialGC -Xss2m"
    (tmp_path / "build" / "libs").mkdir(parents=True)
    import pyspark
    line = ".".join(pyspark.__version__.split(".")[:2])
    for name in (f"eagle-spark-{line}_2.13-0.jar", "eagle-spark-bench-0.jar"):
        (tmp_path / "build" / "libs" / name).write_text("")
    for sched in ("fifo", "fair", "eagle"):
        conf = spark_conf(sched, info, str(tmp_path / sched), str(tmp_path))
        assert conf["spark.executor.extraJavaOptions"] == "-XX:+UseSerialGC -Xss2m", sched
    # Without the option the executors keep Spark's default.
    info["executor_java_options"] = None
    assert "spark.executor.extraJavaOptions" not in spark_conf("fifo", info, str(tmp_path / "d"), str(tmp_path))
    assert spark_conf("fifo", info, str(tmp_path / "d"), str(tmp_path))["spark.driver.extraJavaOptions"] == \
        "-XX:+UseParallelGC", "the drivers keep the bench's own option"


def test_driver_java_options_follow_the_drivers_own(tmp_path):
    from bench.harness import Testbed
    a = run.parse_args(["cluster", "--quick", "--driver-java-options=-XX:StartFlightRecording=filename=/j/"])
    tb = Testbed(a)
    tb.env = {"TB_MODE": "netns", "TB_MASTER": "spark://h:7077", "TB_DRIVER_HOST": "h", "TB_HOSTS": "2",
              "TB_CORES": "2", "TB_SLOTS": "4", "TB_NETWORK": "fast"}
    (tmp_path / "build" / "libs").mkdir(parents=True)
    import pyspark
    line = ".".join(pyspark.__version__.split(".")[:2])
    for name in (f"eagle-spark-{line}_2.13-0.jar", "eagle-spark-bench-0.jar"):
        (tmp_path / "build" / "libs" / name).write_text("")
    for sched in ("fifo", "eagle"):
        conf = spark_conf(sched, tb.info(), str(tmp_path / sched), str(tmp_path))
        assert conf["spark.driver.extraJavaOptions"] == \
            "-XX:+UseParallelGC -XX:StartFlightRecording=filename=/j/", sched
        assert "spark.executor.extraJavaOptions" not in conf


def test_host_cpu_reaches_the_testbed_only_when_asked():
    from bench.harness import Testbed
    shared = Testbed(run.parse_args(["cluster", "--quick"]))._cmd("up")
    assert "--host-cpu" not in shared, "the default testbed is started as before"
    isolated = run.parse_args(["cluster", "--quick", "--host-cpu", "isolated"])
    tb = Testbed(isolated)
    up = tb._cmd("up")
    assert up[up.index("--host-cpu") + 1] == "isolated"
    assert "--host-cpu" not in tb._cmd("down"), "down finds the groups by the prefix"
    tb.env = {"TB_MODE": "netns", "TB_MASTER": "spark://h:7077", "TB_DRIVER_HOST": "h", "TB_HOSTS": "2",
              "TB_CORES": "2", "TB_SLOTS": "4", "TB_NETWORK": "fast", "TB_HOST_CPU": "isolated"}
    assert tb.info()["host_cpu"] == "isolated"
    with pytest.raises(SystemExit):
        run.parse_args(["cluster", "--host-cpu", "private"])


def test_sort_alone_only_writes_the_sort_alone_and_belongs_to_the_sort_scenario(capsys):
    assert run.wanted_results(run.parse_args(["sort"])) == ["tpch", "sort"]
    assert run.wanted_results(run.parse_args(["sort", "--sort-alone-only"])) == ["sort"]
    assert run.wanted_results(run.parse_args(["all"])) == ["replay", "tpch", "sort"]
    with pytest.raises(SystemExit):
        run.parse_args(["tpch", "--sort-alone-only"])
    assert "--sort-alone-only is an option of the sort scenario, not of tpch" in capsys.readouterr().err


def test_a_single_dash_leading_java_option_goes_in_the_equals_form(capsys):
    a = run.parse_args(["cluster", "--driver-java-options=-XX:+UseSerialGC",
                        "--executor-java-options=-XX:+UseSerialGC"])
    assert a.driver_java_options == a.executor_java_options == "-XX:+UseSerialGC"
    # The help shows that form: the space-separated one is an argparse error here.
    with pytest.raises(SystemExit):
        run.parse_args(["cluster", "--driver-java-options", "-XX:+UseSerialGC"])
    with pytest.raises(SystemExit):
        run.parse_args(["--help"])
    helptext = "".join(capsys.readouterr().out.split())  # argparse wraps inside an option
    assert "--driver-java-options=-XX:StartFlightRecording" in helptext
    assert "--executor-java-options=-XX:+UseSerialGC" in helptext


def test_the_sort_alone_needs_no_tpch_data_and_the_stream_gets_it(tmp_path, monkeypatch):
    from bench import tpch
    made, cfgs = [], []
    monkeypatch.setattr(tpch, "ensure_data", lambda root, sf, parts, log: made.append(root) or str(tmp_path / "d"))
    monkeypatch.setattr(tpch, "duckdb_answers", lambda d, sf, log: None)
    monkeypatch.setattr(run, "wait_idle", lambda *a, **k: None)
    monkeypatch.setattr(run, "spark_conf", lambda *a, **k: {})
    monkeypatch.setattr(run, "adaptive_state", lambda d: None, raising=False)

    def driver(run_dir, cfg, timeout):
        cfgs.append(cfg)
        sort = {"id": "sort-alone", "class": "long", "latency": 70.0, "ok": True}
        return {"ok": True, "sort_check": "ok", "phases": {"alone": {"jobs": [sort], "driver_cpu_s": 1.0}}}
    monkeypatch.setattr(run, "run_driver", driver)
    tb = {"slots": 4, "hosts": 2, "network": "fast", "mode": "netns", "cores": 2, "note": ""}
    args = run.parse_args(["sort", "--sort-alone-only", "--schedulers", "fifo,eagle"])
    out = run.scenario_tpch_sort(args, tb, str(tmp_path), ["sort"])
    assert made == []
    assert [c["tpch"]["data"] for c in cfgs] == [None, None]
    assert all(c["sort_alone"] and not c["stream"] for c in cfgs)
    assert set(out) == {"sort"} and [r["long"]["p50"] for r in out["sort"]["runs"]] == [70.0, 70.0]
    # The stream still gets the data and DuckDB's answers.
    cfgs.clear()
    run.scenario_tpch_sort(run.parse_args(["sort", "--schedulers", "fifo"]), tb, str(tmp_path), ["tpch", "sort"])
    assert made == [str(tmp_path / "data")]
    assert cfgs[0]["tpch"]["answers"] == str(tmp_path / "d" / "duckdb-answers.json") and cfgs[0]["stream"]


def test_an_eagle_run_with_its_own_keys_runs_beside_the_plain_one(tmp_path, monkeypatch):
    """``eagle+KEY=VALUE`` in --schedulers: a second eagle application with those keys in the
    same invocation, so a key's effect is measured against the same FAIR run."""
    from bench import schedulers
    cfgs, confs = [], []
    monkeypatch.setattr(run, "wait_idle", lambda *a, **k: None)
    monkeypatch.setattr(run, "spark_conf", lambda sched, *a, eagle=None, **k: confs.append((sched, eagle)) or {})
    monkeypatch.setattr(run, "adaptive_state", lambda d: None, raising=False)

    def driver(run_dir, cfg, timeout):
        cfgs.append((os.path.basename(run_dir), cfg["scheduler"]))
        sort = {"id": "sort-alone", "class": "long", "latency": 70.0, "ok": True}
        return {"ok": True, "sort_check": "ok", "phases": {"alone": {"jobs": [sort], "driver_cpu_s": 1.0}}}
    monkeypatch.setattr(run, "run_driver", driver)
    tb = {"slots": 4, "hosts": 2, "network": "fast", "mode": "netns", "cores": 2, "note": ""}
    args = run.parse_args(["sort", "--sort-alone-only", "--eagle-conf", "longShare=0.4",
                           "--schedulers", "fair,eagle,eagle+hold.maxMs=0+spark.scheduler.eagle.dds.enabled=false"])
    out = run.scenario_tpch_sort(args, tb, str(tmp_path), ["sort"])
    label = "eagle+hold.maxMs=0+spark.scheduler.eagle.dds.enabled=false"
    assert cfgs == [("fair", "fair"), ("eagle", "eagle"), (label, "eagle")], \
        "each run has its own directory; the driver sees the scheduler without the keys"
    assert confs == [("fair", {"longShare": "0.4"}), ("eagle", {"longShare": "0.4"}),
                     ("eagle", {"longShare": "0.4", "hold.maxMs": "0", "dds.enabled": "false"})]
    assert [r["scheduler"] for r in out["sort"]["runs"]] == ["fair", "eagle", label], "results keep the label"
    assert schedulers.eagle_keys(args, "eagle") == {"longShare": "0.4"}


@pytest.mark.parametrize("bad, says", [
    ("fair,fair+hold.maxMs=0", "only eagle takes its own keys"),
    ("fair,eagle+hold.maxMs", "after '+' comes KEY=VALUE"),
    ("fair,eagel", "unknown scheduler 'eagel'"),
    ("eagle,eagle", "named twice"),
])
def test_a_bad_scheduler_label_is_an_error_naming_it(bad, says, capsys):
    with pytest.raises(SystemExit) as e:
        run.parse_args(["sort", "--schedulers", bad])
    assert says in (capsys.readouterr().err + str(e.value))


def test_own_keys_belong_to_the_scenarios_that_run_one_application_per_scheduler(capsys):
    with pytest.raises(SystemExit):
        run.parse_args(["server", "--schedulers", "fair,eagle+hold.maxMs=0"])
    assert "--eagle-conf" in capsys.readouterr().err


def test_a_relative_out_directory_is_taken_from_where_the_bench_was_started(tmp_path, monkeypatch):
    # Spark's event log takes `file://` + the directory: a relative one read as a host name
    # ("Wrong FS: file://target/...") and the first server did not start.
    monkeypatch.chdir(tmp_path)
    a = run.parse_args(["server", "--quick", "--out", "target/bench/q4"])
    assert a.out == str(tmp_path / "target" / "bench" / "q4")
