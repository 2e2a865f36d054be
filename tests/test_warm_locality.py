"""Warm executors weigh data locality (policy=adaptive; eagle-core adaptive/warmup.rs, "Data locality").

The warm-executors rule weighs a cold start against slot time only. With a measured warm-up
far above the application's typical task it kept a new stage on the executors it started
on: on the TPC-H + sort benchmark a 32-task stage over blocks cached on all 8
executors ran on 3 of them, 20 tasks reading their block remotely while 10 slots idled. The
plugin now tells the engine where each task's input is (`Native.inputNodes`), and such an
executor is worth the task set. The decision itself is pinned by the engine's tests
(rust/eagle-core/tests/warm_executors.rs); this test runs the path on real executors: a
cached RDD spread over both executors of local-cluster[2,2,1024], then a job of sleeping
tasks over it without hints. Every task must run where its block is, on both executors,
with the engine in charge (no fallback).

Dynamic Delay Scheduling is held at a 10 s wait (`dds.minWaitMs`): its update rule halves a
level's wait with every local task, so by the second measured job the process-local wait is
under a millisecond, and on a loaded machine an executor one task ahead of the other rightly
runs the other's pending task remotely (a task of measured job 0 can run away from its
block). That is DDS's own trade, pinned in test_dds.py; here it would hide what this
test is about, whether the warm-executors rule lets the stage onto both executors at all.
"""
from pyspark import StorageLevel

from conftest import spark
from test_dds import _tasks_by_job, _wait_executors

PARTS = 8


def _sleep(seconds):
    def f(x):
        import time as _t

        _t.sleep(seconds)
        return x

    return f


def test_a_stage_over_cached_blocks_runs_where_its_blocks_are(tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    conf = {
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + str(events),
        "spark.eventLog.compress": "false",
        "spark.scheduler.eagle.dds.minWaitMs": "10000",
    }
    with spark("spark-eagle:local-cluster[2,2,1024]", conf, summary_path=tmp_path / "summary.json") as (s, r):
        sc = s.sparkContext
        _wait_executors(sc, 2)
        sc.setJobDescription("cache")
        # Hinted long enough that the warm-executors rule spreads it over both executors.
        sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", "5000")
        cached = sc.parallelize(range(PARTS), PARTS).map(_sleep(0.3)).persist(StorageLevel.MEMORY_ONLY)
        assert cached.count() == PARTS
        sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", None)
        for k in range(3):
            sc.setJobDescription(f"measured {k}")
            assert sorted(cached.map(_sleep(0.3)).collect()) == list(range(PARTS))
    summary = r["summary"]
    assert summary["fallback"] is False, summary["fallbackReason"]
    tasks = _tasks_by_job(str(events))
    cache_execs = {e for e, _ in tasks["cache"]}
    assert len(cache_execs) == 2, ("set-up: blocks on both executors", tasks["cache"])
    for k in range(3):
        measured = tasks[f"measured {k}"]
        assert len(measured) == PARTS, measured
        assert all(lvl == "PROCESS_LOCAL" for _, lvl in measured), (k, measured)
        assert {e for e, _ in measured} == cache_execs, (k, measured)
