"""Spark scheduler features under the plugin, with real executors.

local-cluster[2,2,1024] (two executor JVMs, two cores each), eagle and stock in turn, with
spark.excludeOnFailure.enabled: barrier stages next to a normal job, a stage-level
TaskResourceProfile of 2 cpus per task, and a job that fails on one executor only. A
FetchFailed that resubmits the map stage runs in an application of its own without
excludeOnFailure: it kills an executor, and a retry that Spark sends to the dying executor
would exclude the only one left for the stage, which aborts the stage (stock Spark does).
Every scenario is bounded in time (a hang is a failure, see features.bounded); the stock
runs show that Spark itself behaves the same.
"""
import pytest

import features as ft
from conftest import spark

MASTER = "local-cluster[2,2,1024]"
CONF = {
    "spark.excludeOnFailure.enabled": "true",
    "spark.task.maxFailures": "4",
    # an executor excluded for a stage after one failed task (default 2)
    "spark.excludeOnFailure.stage.maxFailedTasksPerExecutor": "1",
    # no application-wide exclusion: the later scenarios need both executors
    "spark.excludeOnFailure.application.maxFailedTasksPerExecutor": "1000",
}
FETCH_CONF = {"spark.task.maxFailures": "4"}


def run_scenarios(s, eagle):
    sc = s.sparkContext
    ft.wait_for_executors(sc, 2)
    sc.parallelize(range(8), 8).count()  # Python workers up on both executors
    out = {}

    def attempt(name, fn):
        try:
            out[name] = fn()
        except Exception as e:  # noqa: BLE001 (asserted by the tests)
            out[name] = e

    attempt("barrier", lambda: ft.barrier_next_to_normal_job(sc, partitions=2))
    attempt("barrier4", lambda: ft.barrier_next_to_normal_job(sc, partitions=4))
    probe = (lambda: sc._jsc.sc().taskScheduler().engineBusySlots()) if eagle else None
    attempt("profile", lambda: ft.cpus2_profile_job(sc, probe))
    # long (eagle): the engine plans long task sets only on the general partition (one of the
    # two executors), so the first attempts run there and that executor becomes the failing
    # one; once it is excluded for the stage, the only executor left is short-only
    attempt("exclude", lambda: ft.fails_on_one_executor(sc, "long" if eagle else None))
    return out


def run_fetch_failed(s):
    sc = s.sparkContext
    ft.wait_for_executors(sc, 2)
    sc.parallelize(range(8), 8).count()  # Python workers up on both executors
    try:
        return ft.fetch_failed_resubmit(sc, sc.applicationId)
    except Exception as e:  # noqa: BLE001 (asserted by the test)
        return e


@pytest.fixture(scope="module")
def eagle_runs(tmp_path_factory):
    path = tmp_path_factory.mktemp("features") / "summary.json"
    with spark("spark-eagle:" + MASTER, CONF, summary_path=path) as (s, r):
        out = run_scenarios(s, eagle=True)
    out["summary"] = r["summary"]
    return out


@pytest.fixture(scope="module")
def stock_runs():
    with spark(MASTER, CONF) as (s, _):
        return run_scenarios(s, eagle=False)


@pytest.fixture(scope="module")
def eagle_fetch(tmp_path_factory):
    path = tmp_path_factory.mktemp("fetch") / "summary.json"
    with spark("spark-eagle:" + MASTER, FETCH_CONF, summary_path=path) as (s, r):
        out = {"fetchFailed": run_fetch_failed(s)}
    out["summary"] = r["summary"]
    return out


@pytest.fixture(scope="module")
def stock_fetch():
    with spark(MASTER, FETCH_CONF) as (s, _):
        return {"fetchFailed": run_fetch_failed(s)}


def ok(v):
    if isinstance(v, Exception):
        raise v
    return v


@pytest.mark.parametrize("which", ["eagle", "stock"])
def test_barrier_stage_next_to_a_normal_job(which, eagle_runs, stock_runs):
    runs = eagle_runs if which == "eagle" else stock_runs
    assert ok(runs["barrier"]) == (ft.barrier_expected(2), sum(range(1000)) * 2)
    # a barrier stage as wide as the cluster: it needs every slot at once
    assert ok(runs["barrier4"]) == (ft.barrier_expected(4), sum(range(1000)) * 2)


@pytest.mark.parametrize("which", ["eagle", "stock"])
def test_task_resource_profile_with_two_cpus(which, eagle_runs, stock_runs):
    runs = eagle_runs if which == "eagle" else stock_runs
    total, busy_peak = ok(runs["profile"])
    assert total == 3 * sum(range(8))
    if which == "eagle":
        # two 2-cpu tasks fill the four cores: the engine counts all four slots taken
        # (one slot per task would leave it planning two slots Spark cannot fill)
        assert busy_peak == 4, busy_peak


@pytest.mark.parametrize("which", ["eagle", "stock"])
def test_exclude_on_failure_completes_on_the_other_executor(which, eagle_runs, stock_runs):
    runs = eagle_runs if which == "eagle" else stock_runs
    assert ok(runs["exclude"]) == sum(range(400))


@pytest.mark.parametrize("which", ["eagle", "stock"])
def test_fetch_failed_resubmits_the_map_stage(which, eagle_fetch, stock_fetch):
    runs = eagle_fetch if which == "eagle" else stock_fetch
    answer, _ = ok(runs["fetchFailed"])
    assert answer == ft.fetch_expected()


def test_eagle_ran_the_features_without_fallback(eagle_runs, eagle_fetch):
    summary = eagle_runs["summary"]
    assert summary["fallback"] is False, summary["fallbackReason"]
    # the excludeOnFailure job ran with the long hint (the stranded case it exercises)
    assert any(t["hintClass"] == "long" for t in summary["taskSets"]), summary["taskSets"]
    fetch = eagle_fetch["summary"]
    assert fetch["fallback"] is False, fetch["fallbackReason"]
    # the killed executor's map output was recomputed: a second attempt of a map stage
    assert any(t["attempt"] >= 1 for t in fetch["taskSets"]), [
        (t["stageId"], t["attempt"]) for t in fetch["taskSets"]]
