"""Dynamic Delay Scheduling in the plugin: configuration and the summary's locality data.

The local-cluster run with DDS enabled (the default) is the `eagle_cluster` fixture of
test_local_cluster.py (its results equal stock Spark's); its summary is checked there. Here:
start-up validation of spark.scheduler.eagle.dds.*, a cheap local session with DDS off, and the
max-wait bound on a two-executor local cluster (DDS on, then off).
"""
import json
import threading
import time

import pytest
from pyspark import StorageLevel

from bench import eventlog
from conftest import spark
from test_config import start_fails

LEVELS = ["PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"]


@pytest.mark.parametrize(
    "key,value,expected",
    [
        ("dds.enabled", "maybe", "true or false"),
        ("dds.minWaitMs", "-1", "an integer >= 0"),
        ("dds.maxWaitMs", "soon", "an integer >= 0"),
        ("dds.window", "0.5", "a number >= 1"),
        ("dds.inherit", "sometimes", "true or false"),
    ],
)
def test_bad_dds_value_names_the_key(key, value, expected):
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle." + key: value})
    assert "spark.scheduler.eagle." + key in msg and expected in msg, msg


def test_max_wait_below_min_wait_names_the_key():
    msg = start_fails(
        "spark-eagle:local[2]",
        {"spark.scheduler.eagle.dds.minWaitMs": "5000", "spark.scheduler.eagle.dds.maxWaitMs": "1000"},
    )
    assert "spark.scheduler.eagle.dds.maxWaitMs" in msg and "dds.minWaitMs" in msg, msg


def test_unknown_dds_key_is_named():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.dds.maxWait": "1000"})
    assert "Unknown Eagle configuration key: spark.scheduler.eagle.dds.maxWait" in msg


def test_dds_disabled_has_no_history_but_a_locality_mix(tmp_path):
    path = tmp_path / "summary.json"
    conf = {"spark.scheduler.eagle.dds.enabled": "false"}
    with spark("spark-eagle:local[2]", conf, summary_path=path) as (s, r):
        sc = s.sparkContext
        cached = sc.parallelize(range(2000), 4).map(lambda x: x * 3).persist(StorageLevel.MEMORY_ONLY)
        got = [cached.count(), cached.sum()]
    assert got == [2000, 3 * sum(range(2000))]
    summary = r["summary"]
    assert summary["fallback"] is False, summary["fallbackReason"]
    assert summary["config"]["dds.enabled"] is False
    assert summary["taskSets"]
    for t in summary["taskSets"]:
        assert t["delayHistory"] is None, t
        assert set(t["locality"]) == set(LEVELS)
        assert sum(t["localityLaunches"].values()) >= t["tasks"]
    total = summary["locality"]
    assert sum(total["launches"].values()) >= 8
    assert abs(sum(total["fractions"].values()) - 1.0) < 1e-6


# ---- the max-wait bound in real Spark --------------------------------------------------

BUSY_TASKS, BUSY_TASK_MS = 6, 1500


def _wait_executors(sc, n, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if len(sc._jsc.sc().statusTracker().getExecutorInfos()) - 1 >= n:  # minus the driver
            return
        time.sleep(0.5)
    raise AssertionError(f"{n} executors did not register in {timeout}s")


def _tasks_by_job(events_dir):
    """{job description: [(executor id, locality), ...]} from the Spark event log."""
    stage_job, out = {}, {}
    for line in eventlog._lines(eventlog.find_log(events_dir)):
        ev = json.loads(line)
        if ev["Event"] == "SparkListenerJobStart":
            desc = (ev.get("Properties") or {}).get("spark.job.description")
            for s in ev["Stage IDs"]:
                stage_job[s] = desc
        elif ev["Event"] == "SparkListenerTaskEnd":
            info = ev["Task Info"]
            out.setdefault(stage_job.get(ev["Stage ID"]), []).append((info["Executor ID"], info["Locality"]))
    return out


def _busy_executor_run(tmp_path, dds_enabled):
    """local-cluster[2,1,1024] (two executors, one slot each), spark.locality.wait=60s,
    dds.maxWaitMs=1000. A cached DataFrame is built while the other executor runs a sleeping
    blocker (cancelled afterwards), so all its blocks are on one executor A; then a job of
    BUSY_TASKS sleeping tasks over it: every task prefers A (PROCESS_LOCAL), whose one slot
    they keep busy."""
    events = tmp_path / "events"
    events.mkdir(parents=True)
    conf = {
        "spark.scheduler.eagle.dds.enabled": "true" if dds_enabled else "false",
        "spark.scheduler.eagle.dds.maxWaitMs": "1000",
        "spark.locality.wait": "60s",
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + str(events),
        "spark.eventLog.compress": "false",
    }
    with spark("spark-eagle:local-cluster[2,1,1024]", conf, summary_path=tmp_path / "summary.json") as (s, r):
        sc = s.sparkContext
        _wait_executors(sc, 2)

        def blocker():   # one task that sleeps until it is cancelled (at most 120 s)
            sc.setJobGroup("blocker", "blocker", interruptOnCancel=True)
            try:
                s.range(0, 1, 1, 1).selectExpr("reflect('java.lang.Thread', 'sleep', cast(120000 as bigint))").collect()
            except Exception:
                pass  # cancelled

        th = threading.Thread(target=blocker)
        th.start()
        tracker = sc.statusTracker()
        deadline = time.time() + 60
        while time.time() < deadline:   # until the blocker's task runs on one executor
            infos = [tracker.getStageInfo(i) for i in tracker.getActiveStageIds()]
            if any(i is not None and i.numActiveTasks >= 1 for i in infos):
                break
            time.sleep(0.1)
        sc.setJobDescription("cache")
        cached = s.range(0, BUSY_TASKS, 1, BUSY_TASKS).persist(StorageLevel.MEMORY_ONLY)
        assert cached.count() == BUSY_TASKS
        sc.cancelJobGroup("blocker")
        th.join()
        sc.setJobDescription("measured")
        t0 = time.time()
        rows = cached.selectExpr(
            "id", f"reflect('java.lang.Thread', 'sleep', cast({BUSY_TASK_MS} as bigint)) as s").collect()
        r["elapsed"] = time.time() - t0
        assert sorted(x["id"] for x in rows) == list(range(BUSY_TASKS))
    tasks = _tasks_by_job(str(events))
    cache_execs = {e for e, _ in tasks["cache"]}
    blocker_execs = {e for e, _ in tasks["blocker"]}
    assert len(cache_execs) == 1 and not cache_execs & blocker_execs, (
        "set-up: the cached blocks should all be on the executor the blocker left free", tasks)
    r["home"] = cache_execs.pop()
    r["measured"] = tasks["measured"]
    return r


def test_dds_max_wait_bounds_a_long_locality_wait(tmp_path):
    """DDS on: the waits start at spark.locality.wait (60 s) clamped to dds.maxWaitMs (1 s), so
    the busy executor's tasks also run on the idle one, long before 60 s. DDS off: Spark's own
    60 s wait keeps every task on the busy executor (its tasks end within ~10 s, so the wait
    never expires)."""
    on = _busy_executor_run(tmp_path / "on", True)
    away = [(e, lvl) for e, lvl in on["measured"] if e != on["home"]]
    assert away, ("with dds.maxWaitMs=1000 some tasks should launch on the idle executor", on["measured"])
    assert all(lvl != "PROCESS_LOCAL" for _, lvl in away), on["measured"]
    assert on["elapsed"] < 30, on["elapsed"]
    summary = on["summary"]
    assert summary["fallback"] is False, summary["fallbackReason"]
    measured_jobs = {j["jobId"] for j in summary["jobs"] if j["description"] == "measured"}
    (ts,) = [t for t in summary["taskSets"] if t["jobId"] in measured_jobs]
    assert ts["delayHistory"] and all(h["intervalMs"] <= 1000 for h in ts["delayHistory"]), ts["delayHistory"]
    assert sum(n for lvl, n in ts["localityLaunches"].items() if lvl != "PROCESS_LOCAL") >= 1, ts

    off = _busy_executor_run(tmp_path / "off", False)
    assert all(e == off["home"] and lvl == "PROCESS_LOCAL" for e, lvl in off["measured"]), off["measured"]
    assert off["summary"]["config"]["dds.enabled"] is False
