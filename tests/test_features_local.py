"""Spark scheduler features under the plugin on local masters (tasks in the driver JVM), eagle
and stock: barrier stages, spark.task.cpus=2, job-group cancellation, spark.task.maxFailures
exhausted, and an offer round that throws (no engine slot may leak). Every scenario is
bounded in time (features.bounded): a hang is a failure."""
import glob
import os
import shutil
import tempfile
import time

import pytest

import features as ft
from conftest import assert_each_end_recorded_once, spark


def busy_slots(sc):
    """The engine's busy-slot count (planned or running), read through the scheduler."""
    return sc._jsc.sc().taskScheduler().engineBusySlots()


def wait_idle(sc, timeout=30):
    """Slots are freed as status updates arrive, just after the job returns: wait a little."""
    deadline = time.time() + timeout
    while time.time() < deadline and busy_slots(sc) != 0:
        time.sleep(0.2)
    return busy_slots(sc)


def overlap_job(sc, n=8, seconds=1.0):
    """n tasks that each record (start, end); returns (sum, max tasks running at once)."""
    d = tempfile.mkdtemp(prefix="eagle-overlap-")

    def f(x):
        import os as _os
        import time as _t

        t0 = _t.time()
        _t.sleep(seconds)
        with open(_os.path.join(d, "%d" % x), "w") as fh:
            fh.write("%f %f" % (t0, _t.time()))
        return x

    try:
        total = ft.bounded(sc, lambda: sc.parallelize(range(n), n).map(f).sum(), 120)
        spans = [tuple(map(float, open(p).read().split())) for p in glob.glob(os.path.join(d, "*"))]
    finally:
        shutil.rmtree(d, ignore_errors=True)
    peak = max(sum(1 for a, b in spans if a <= t < b) for t, _ in spans)
    return total, peak


@pytest.mark.parametrize("master", ["spark-eagle:local[4]", "local[4]"])
def test_barrier_stage_on_local(master):
    with spark(master) as (s, _):
        sc = s.sparkContext
        assert ft.barrier_next_to_normal_job(sc, partitions=2) == (ft.barrier_expected(2), 999000)
        assert ft.barrier_next_to_normal_job(sc, partitions=4) == (ft.barrier_expected(4), 999000)
        if master.startswith("spark-eagle"):
            assert wait_idle(sc) == 0


@pytest.mark.parametrize("master", ["spark-eagle:local[4]", "local[4]"])
def test_task_cpus_two_halves_the_slots(master):
    with spark(master, {"spark.task.cpus": "2"}) as (s, _):
        sc = s.sparkContext
        total, peak = overlap_job(sc)
        assert total == sum(range(8))
        assert 1 <= peak <= 2, peak  # 4 cores / 2 cpus per task
        if master.startswith("spark-eagle"):
            assert wait_idle(sc) == 0


@pytest.mark.parametrize("master", ["spark-eagle:local[4]", "local[4,4]"])
def test_cancel_and_max_failures(master, tmp_path):
    eagle = master.startswith("spark-eagle")
    summary_path = tmp_path / "summary.json" if eagle else None
    with spark(master, {"spark.task.maxFailures": "4"}, summary_path=summary_path) as (s, res):
        sc = s.sparkContext
        err, ended, nxt = ft.cancel_job_group(sc)
        assert err is not None and "cancel" in err.lower(), err
        assert ended < 60, ended  # the tasks sleep 120 s: the cancellation ended the job
        assert nxt == sum(range(100))
        err, attempts, nxt = ft.max_failures_exhausted(sc)
        assert err is not None and "always-failing task" in err, err
        assert attempts == 4, (attempts, err)  # spark.task.maxFailures attempts, then the abort
        assert nxt == sum(range(100))
        if eagle:
            assert wait_idle(sc) == 0
    if eagle:
        assert_each_end_recorded_once(res["summary"])


def test_round_that_throws_leaks_no_slot(tmp_path):
    """debug.throwInRound makes the first planned round throw inside the stock round, after
    the engine planned its slots: they must go back to the engine (try/finally), the round is
    retried, and every later job runs on all slots."""
    conf = {"spark.scheduler.eagle.debug.throwInRound": "1"}
    with spark("spark-eagle:local[2]", conf, summary_path=tmp_path / "s.json") as (s, r):
        sc = s.sparkContext
        assert ft.bounded(sc, lambda: sc.parallelize(range(100), 4).sum(), 60) == 4950
        assert wait_idle(sc) == 0
        total, peak = overlap_job(sc, n=4)
        assert total == 6 and peak == 2, peak  # both slots usable
        assert wait_idle(sc) == 0
    assert r["summary"]["fallback"] is False, r["summary"]["fallbackReason"]
