"""Eirene's Scheduler-Aware Task Cloning in real Spark (`spark.scheduler.eagle.eirene.satc`).

Real executors on two hosts (the standalone cluster of test_features_standalone: Spark never
runs a speculative copy on the host of the running attempt, and SATC's clones are Spark
speculative copies). Each task returns (partition, attemptNumber), so the job's output shows
which copy's result Spark took, and that every partition's result is taken exactly once.

- SATC on: a short task set whose first attempt of partition 0 straggles (60 s against 1 s):
  a clone (attempt 1) wins, the output is exact, the summary counts the clone launched, won
  and the straggler killed;
- SATC off: the same job gets no copy at all;
- a long task set (class hint long) is never cloned, even with idle slots and a straggler.
No timing assertions: which attempt produced each result, and the counters.
"""
import time

import features as ft
from conftest import spark
from test_config import start_fails
from test_features_standalone import cluster, common  # noqa: F401 (module-scoped fixture)

SATC = "spark.scheduler.eagle.eirene.satc"
TASKS = 3


def straggler_job(sc, straggle_s):
    def f(it):
        import time as _t

        from pyspark import TaskContext

        ctx = TaskContext.get()
        first = ctx.attemptNumber() == 0
        _t.sleep(straggle_s if (ctx.partitionId() == 0 and first) else 1.0)
        yield (ctx.partitionId(), ctx.attemptNumber())

    return sc.parallelize(range(TASKS), TASKS).mapPartitions(f).collect()


def run(master, satc, tmp_path, klass, straggle_s):
    conf = common({SATC: "true" if satc else "false", "spark.scheduler.eagle.cutoffMs": "10000"})
    with spark("spark-eagle:" + master, conf, summary_path=tmp_path / "s.json") as (s, r):
        sc = s.sparkContext
        ft.wait_for_executors(sc, 2)

        def job():  # local properties are per thread: set them in the one that runs the job
            sc.setLocalProperty("spark.scheduler.eagle.job.class", klass)
            sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", "1000" if klass == "short" else "60000")
            return straggler_job(sc, straggle_s)

        out = ft.bounded(sc, job, 150)
        # every slot the engine handed out comes back (clones and killed copies included)
        deadline = time.time() + 30
        while time.time() < deadline and sc._jsc.sc().taskScheduler().engineBusySlots() != 0:
            time.sleep(0.5)
        busy = sc._jsc.sc().taskScheduler().engineBusySlots()
    assert r["summary"]["fallback"] is False, r["summary"]["fallbackReason"]
    return out, busy, r["summary"]


def test_a_clone_of_the_straggler_wins_and_each_result_is_taken_once(cluster, tmp_path):  # noqa: F811
    out, busy, summary = run(cluster, True, tmp_path, "short", 60)
    assert sorted(p for p, _ in out) == list(range(TASKS)), out  # each partition's result once
    attempts = dict(out)
    assert attempts[0] >= 1, f"the straggler's own result was taken, no clone won: {out}"
    e = summary["eirene"]
    assert e["satc"] is True
    assert e["clonesWon"] >= 1 and e["clonesLaunched"] >= 1, e
    # every launched clone ended first or second; at most one clone per task
    assert e["clonesLaunched"] == e["clonesWon"] + e["clonesLost"], e
    assert e["clonesLaunched"] <= e["clonesRequested"] <= TASKS, e
    assert 1 <= e["copiesKilled"] <= e["clonesLaunched"], e  # at least the straggler
    assert summary["taskSets"][0]["class"] == "short"
    assert busy == 0


def test_no_clone_with_satc_off(cluster, tmp_path):  # noqa: F811
    out, busy, summary = run(cluster, False, tmp_path, "short", 6)
    assert sorted(out) == [(p, 0) for p in range(TASKS)], out
    assert "eirene" not in summary
    assert summary["config"]["eirene.satc"] is False
    assert busy == 0


def test_a_long_task_set_is_never_cloned(cluster, tmp_path):  # noqa: F811
    out, busy, summary = run(cluster, True, tmp_path, "long", 6)
    assert sorted(out) == [(p, 0) for p in range(TASKS)], (out, summary["eirene"])
    assert summary["taskSets"][0]["hintClass"] == "long"
    assert summary["eirene"]["clonesRequested"] == 0, summary["eirene"]
    assert summary["eirene"]["clonesLaunched"] == 0
    assert busy == 0


def test_bad_satc_value_names_the_key():
    msg = start_fails("spark-eagle:local[2]", {SATC: "maybe"})
    assert SATC in msg and "expected true or false" in msg
