"""Spark features that need a real standalone cluster with two hosts: a master on 127.0.0.1
and two workers bound to 127.0.0.2 and 127.0.0.3 (Spark never runs a speculative copy on the
host of the running attempt, so one host cannot test speculation), started with SPARK_HOME's
sbin/spark-daemon.sh (what start-master.sh / start-worker.sh run; the pyspark package ships
only that script) for this module by tests/standalone.py, and stopped after it.

- speculation: the first attempt of one task hangs; the job finishes because the copy wins;
- dynamic allocation with shuffle tracking: executors are added for a burst and removed
  when idle, and later jobs still complete.
Eagle (`spark-eagle:spark://...`) and stock (`spark://...`) alike.
"""
import time

import pytest

import features as ft
from conftest import spark
from standalone import standalone

HOSTS = ["127.0.0.2", "127.0.0.3"]
@pytest.fixture(scope="module")
def cluster():
    with standalone({h: 2 for h in HOSTS}, "standalone", memory="1500m") as url:
        yield url


def common(extra):
    conf = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
    conf.update(extra)
    return conf


SPECULATION = common({
    "spark.speculation": "true",
    "spark.speculation.quantile": "0.5",
    "spark.speculation.multiplier": "2",
    "spark.speculation.minTaskRuntime": "1s",
})


def straggler_job(sc):
    def f(x):
        import time as _t

        from pyspark import TaskContext

        ctx = TaskContext.get()
        _t.sleep(600 if (ctx.partitionId() == 0 and ctx.attemptNumber() == 0) else 1.0)
        return x

    return sc.parallelize(range(8), 8).map(f).sum()


@pytest.mark.parametrize("eagle", [True, pytest.param(False, marks=pytest.mark.full)], ids=["eagle", "stock"])
def test_speculative_copy_finishes_the_job(cluster, eagle, tmp_path):
    master = ("spark-eagle:" if eagle else "") + cluster
    with spark(master, SPECULATION, summary_path=(tmp_path / "s.json") if eagle else None) as (s, r):
        sc = s.sparkContext
        ft.wait_for_executors(sc, 2)
        hosts = {e.host() for e in sc._jsc.sc().statusTracker().getExecutorInfos()} - {"127.0.0.1"}
        assert hosts == set(HOSTS), hosts
        t0 = time.time()
        assert ft.bounded(sc, lambda: straggler_job(sc), 150) == sum(range(8))
        assert time.time() - t0 < 120  # the hung first attempt sleeps 600 s
        if eagle:
            deadline = time.time() + 30
            while time.time() < deadline and sc._jsc.sc().taskScheduler().engineBusySlots() != 0:
                time.sleep(0.5)
            assert sc._jsc.sc().taskScheduler().engineBusySlots() == 0
    if eagle:
        assert r["summary"]["fallback"] is False, r["summary"]["fallbackReason"]


DYNAMIC = common({
    "spark.dynamicAllocation.enabled": "true",
    "spark.dynamicAllocation.shuffleTracking.enabled": "true",
    "spark.dynamicAllocation.minExecutors": "0",
    "spark.dynamicAllocation.initialExecutors": "0",
    "spark.dynamicAllocation.maxExecutors": "2",
    "spark.dynamicAllocation.executorIdleTimeout": "3s",
    "spark.dynamicAllocation.schedulerBacklogTimeout": "1s",
    "spark.dynamicAllocation.shuffleTracking.timeout": "5s",
    "spark.decommission.enabled": "true",
    "spark.executor.cores": "2",
})


def wait_count(sc, pred, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred(ft.executor_count(sc)):
            return True
        time.sleep(0.5)
    return False


@pytest.mark.full
@pytest.mark.parametrize("eagle", [True, False], ids=["eagle", "stock"])
def test_dynamic_allocation_adds_and_removes_executors(cluster, eagle, tmp_path):
    master = ("spark-eagle:" if eagle else "") + cluster
    with spark(master, DYNAMIC, summary_path=(tmp_path / "s.json") if eagle else None) as (s, r):
        sc = s.sparkContext
        assert ft.executor_count(sc) == 0
        burst = sc.parallelize(range(16), 16).map(ft._sleep(1.5))
        assert ft.bounded(sc, burst.count, 150) == 16
        assert ft.executor_count(sc) >= 1 or wait_count(sc, lambda n: n >= 1, 1)
        # idle: every executor is decommissioned and removed
        assert wait_count(sc, lambda n: n == 0, 90), ft.executor_count(sc)
        # later jobs get executors again, including a shuffle
        pairs = sc.parallelize(range(1000), 8).map(lambda x: (x % 7, x))
        got = ft.bounded(sc, lambda: sorted(pairs.reduceByKey(lambda a, b: a + b).collect()), 150)
        assert got == sorted({k: sum(x for x in range(1000) if x % 7 == k) for k in range(7)}.items())
    if eagle:
        assert r["summary"]["fallback"] is False, r["summary"]["fallbackReason"]
