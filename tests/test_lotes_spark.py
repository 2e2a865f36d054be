"""placement=lotes on real executors of different sizes: a loopback standalone cluster whose
two workers have 4 and 1 cores (127.0.0.2 and 127.0.0.3, one executor each), and task sets
of different TaskResourceProfiles (stage-level scheduling: 1-cpu, 2-cpu and 4-cpu tasks) at
once. Every result is exact, and every task ran on an executor with the cores it asked for
(each task reports its worker's address and its cpus). The start-up check of the key is
here too.

The cluster is tests/standalone.py's (master and workers through spark-daemon.sh, everything
stopped when the module's tests are done).
"""
import threading

import pytest

import features as ft
from conftest import spark
from test_config import start_fails
from standalone import standalone

CORES = {"127.0.0.2": 4, "127.0.0.3": 1}


@pytest.fixture(scope="module")
def hetero_cluster():
    with standalone(CORES, "lotes") as url:
        yield url


CONF = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.executor.memory": "700m",
    "spark.scheduler.eagle.placement": "lotes",
}


def where(seconds):
    """Each task sleeps, then returns (x, worker address, cpus it was given)."""

    def f(it):
        import os as _os
        import time as _t

        from pyspark import TaskContext

        ctx = TaskContext.get()
        _t.sleep(seconds)
        return [(x, _os.environ.get("SPARK_LOCAL_IP"), ctx.cpus()) for x in it]

    return f


def profiled(sc, cpus):
    from pyspark.resource import ResourceProfileBuilder, TaskResourceRequests

    if cpus == 1:
        return None
    return ResourceProfileBuilder().require(TaskResourceRequests().cpus(cpus)).build


def test_mixed_profiles_on_unequal_executors(hetero_cluster, tmp_path):
    with spark("spark-eagle:" + hetero_cluster, CONF, summary_path=tmp_path / "s.json") as (s, r):
        sc = s.sparkContext
        ft.wait_for_executors(sc, 2)
        results = {}
        errors = []

        def run(name, cpus, n, seconds):
            try:
                rdd = sc.parallelize(range(n), n)
                rp = profiled(sc, cpus)
                if rp is not None:
                    rdd = rdd.withResources(rp)
                results[name] = (cpus, rdd.mapPartitions(where(seconds)).collect())
            except BaseException as e:  # noqa: BLE001
                errors.append(e)

        jobs = [("wide", 4, 4, 1.0), ("mid", 2, 6, 0.5), ("narrow-a", 1, 10, 0.3), ("narrow-b", 1, 10, 0.3)]
        threads = [threading.Thread(target=run, args=j) for j in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(240)
        assert not errors, errors
        assert set(results) == {j[0] for j in jobs}
        for name, cpus, n, _ in jobs:
            got_cpus, rows = results[name]
            assert sorted(x for x, _, _ in rows) == list(range(n)), name
            for _, host, given in rows:
                assert given == cpus, (name, given)
                assert CORES[host] >= cpus, f"{name}: a {cpus}-cpu task ran on {host} ({CORES[host]} cores)"
        # The wide tasks can only have run on the 4-core worker.
        assert {h for _, h, _ in results["wide"][1]} == {"127.0.0.2"}
        # A later shuffle with the default profile is exact too.
        pairs = sc.parallelize(range(2000), 8).map(lambda x: (x % 5, x))
        got = ft.bounded(sc, lambda: sorted(pairs.reduceByKey(lambda a, b: a + b).collect()), 150)
        assert got == sorted({k: sum(x for x in range(2000) if x % 5 == k) for k in range(5)}.items())
    summary = r["summary"]
    assert summary["fallback"] is False, summary.get("fallbackReason")
    assert summary["config"]["placement"] == "lotes", summary["config"]


def test_bad_placement_names_the_key():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.placement": "tetris"})
    assert "spark.scheduler.eagle.placement" in msg and "slots or lotes" in msg, msg
