"""Smoke tests: the integration tests scripts/test.sh also runs on the other Spark lines
(3.5, 4.0, 4.1 and 4.2, each with its own pyspark venv and jar; the full suite runs on the default
line). Real executors: spark-eagle:local-cluster[2,1,1024] under both policies, a failing
task retried, the run summary written; and the version guard, which refuses a jar built for
another line with a message naming both versions."""
import glob
import os
import subprocess
import sys

import pytest

import workloads
from features import executor_count, wait_for_executors
from conftest import JAR, ROOT, SCALA_VERSION, SPARK_LINE, sleep_task, spark

pytestmark = pytest.mark.smoke


@pytest.fixture(scope="module", params=["adaptive", "paper"])
def cluster_run(request, tmp_path_factory):
    policy = request.param
    d = tmp_path_factory.mktemp(f"smoke_{policy}")
    conf = {"spark.scheduler.eagle.policy": policy, "spark.task.maxFailures": "4"}
    with spark("spark-eagle:local-cluster[2,1,1024]", conf, summary_path=d / "summary.json") as (s, r):
        sc = s.sparkContext
        wait_for_executors(sc, 2)
        executors = executor_count(sc)
        slept = sc.parallelize(range(40), 8).map(sleep_task(0.05)).map(lambda x: x * 2).sum()
        flaky = workloads.flaky_job(sc)
        grouped = sorted(tuple(row) for row in
                         s.range(0, 1000).selectExpr("id % 3 AS k").groupBy("k").count().collect())
    return policy, executors, slept, flaky, grouped, r["summary"]


def test_jobs_run_on_real_executors_under_eagle(cluster_run):
    policy, executors, slept, flaky, grouped, summary = cluster_run
    assert executors == 2
    assert slept == 2 * sum(range(40))
    assert flaky == sum(range(1000))  # partition 1 failed once and was retried
    assert grouped == [(0, 334), (1, 333), (2, 333)]
    assert summary["fallback"] is False, summary["fallbackReason"]
    assert summary["config"]["policy"] == policy
    assert summary["master"] == "spark-eagle:local-cluster[2,1,1024]"


def test_summary_counts_every_task_as_an_engine_decision(cluster_run):
    _, _, _, _, _, summary = cluster_run
    c = summary["counters"]
    tasks = sum(t["tasks"] for t in summary["taskSets"])
    assert summary["taskSets"] and all(t["eagleJob"] >= 0 for t in summary["taskSets"])
    assert tasks >= 8 + 4 + 1, tasks
    # every launch is an engine decision; the flaky partition's retry is one more
    assert c["decisions"] >= tasks + 1, (c, tasks)
    jobs = summary["jobs"]
    assert len(jobs) >= 3 and all(j["result"] == "succeeded" for j in jobs), jobs


def _other_line_jars():
    """The newest jar of each other Spark line built in this checkout."""
    out = {}
    for j in sorted(glob.glob(os.path.join(ROOT, "build/libs/eagle-spark-*_*-*.jar")), key=os.path.getmtime):
        line = os.path.basename(j)[len("eagle-spark-"):].split("_")[0]
        if line != SPARK_LINE:
            out[line] = j
    return sorted(out.items())


GUARD = r"""
import sys
from pyspark.sql import SparkSession
jar = sys.argv[1]
try:
    (SparkSession.builder.master("spark-eagle:local[1]").config("spark.jars", jar)
     .config("spark.driver.extraClassPath", jar).config("spark.ui.enabled", "false").getOrCreate())
except Exception as e:  # noqa: BLE001
    print("START FAILED:", e)
    sys.exit(3)
print("STARTED")
"""


def test_jar_of_another_line_fails_at_start_naming_both_versions():
    others = _other_line_jars()
    if not others:
        pytest.skip("no jar of another Spark line: scripts/test.sh builds them (scripts/build.sh --spark 4.0)")
    import pyspark
    for line, jar in others:
        p = subprocess.run([sys.executable, "-c", GUARD, jar], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, PYSPARK_SUBMIT_ARGS="pyspark-shell"))
        out = p.stdout + p.stderr
        assert p.returncode == 3, (line, out[-3000:])
        name = os.path.basename(jar)
        assert f"{name} was built for Spark {line}" in out, out[-3000:]
        assert f"runs in Spark {pyspark.__version__} (Scala {SCALA_VERSION})" in out, out[-3000:]
        assert f"use eagle-spark-{SPARK_LINE}_{SCALA_VERSION}-" in out, out[-3000:]
    assert os.path.basename(JAR).startswith(f"eagle-spark-{SPARK_LINE}_{SCALA_VERSION}-")
