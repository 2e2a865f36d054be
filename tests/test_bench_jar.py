"""Benchmark code stays out of the product jar: EagleBench, EagleStress, SleepJob,
StragglerSleepJob, ColdInputJob and EagleCounters are in
build/libs/eagle-spark-bench-<version>.jar (spark-plugin/src/bench/scala, gradle benchJar),
which the benchmarks put next to the plugin jar."""
import glob
import json
import os
import re
import subprocess
import sys
import textwrap
import zipfile

from conftest import JAR, ROOT

BENCH_CLASSES = re.compile(r"(^|/)(EagleBench|EagleStress|SleepJob|StragglerSleepJob|ColdInputJob|EagleCounters)([$.]|$)")


def bench_jar():
    jars = sorted(glob.glob(os.path.join(ROOT, "build/libs/eagle-spark-bench-*.jar")), key=os.path.getmtime)
    assert jars, "build/libs/eagle-spark-bench-<version>.jar is missing: run scripts/build.sh"
    return jars[-1]


def test_the_product_jar_holds_no_benchmark_class():
    names = zipfile.ZipFile(JAR).namelist()
    assert os.path.basename(JAR).startswith("eagle-spark-") and "bench" not in os.path.basename(JAR)
    assert "org/apache/spark/scheduler/eagle/EagleTaskScheduler.class" in names, names
    assert [n for n in names if BENCH_CLASSES.search(n)] == []


def test_the_bench_jar_holds_the_benchmark_mains_and_nothing_else():
    names = [n for n in zipfile.ZipFile(bench_jar()).namelist() if n.endswith(".class")]
    for c in ("EagleBench", "EagleStress", "SleepJob", "StragglerSleepJob", "ColdInputJob", "EagleCounters"):
        assert f"org/apache/spark/scheduler/eagle/{c}.class" in names, names
    # Compiled against the plugin classes, not with them.
    assert [n for n in names if not BENCH_CLASSES.search(n)] == []


def test_sleep_job_runs_on_executors_with_both_jars(tmp_path):
    # The benchmarks' class path (bench.schedulers.jar_conf) in a fresh JVM: the driver finds
    # SleepJob through py4j and the executors of a local cluster load its tasks' closure from
    # spark.jars, under the eagle scheduler.
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {ROOT!r})
        from pyspark.sql import SparkSession
        import json
        from bench.driver import eagle_counters, sleep_job
        from bench.schedulers import jar_conf
        b = (SparkSession.builder.master("spark-eagle:local-cluster[1,2,1024]")
             .config("spark.ui.enabled", "false").config("spark.executor.memory", "768m"))
        for k, v in jar_conf({JAR!r}, {bench_jar()!r}).items():
            b = b.config(k, v)
        spark = b.getOrCreate()
        try:
            # The second job runs on the class the first looked up (one lookup per context).
            print("TASKS", sleep_job(spark, [5, 10, 0, 20]), sleep_job(spark, [1, 2]))
            print("SCHEDULER", spark.sparkContext._jsc.sc().taskScheduler().getClass().getSimpleName())
            print("COUNTERS", json.dumps(eagle_counters(spark)))
        finally:
            spark.stop()
    """)
    env = dict(os.environ, PYSPARK_PIN_THREAD="true")
    p = subprocess.run([sys.executable, "-c", script], cwd=str(tmp_path), env=env,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-4000:]
    assert "TASKS 4 2" in p.stdout.splitlines(), p.stdout
    assert "SCHEDULER EagleTaskScheduler" in p.stdout.splitlines(), p.stdout
    # The counters the cluster bench reads after each plan: the metrics source's, fresh.
    (line,) = [x for x in p.stdout.splitlines() if x.startswith("COUNTERS ")]
    c = json.loads(line[len("COUNTERS "):])
    assert c["decisions"] >= 4 and c["totalSlots"] == 2 and c["fallback"] == 0, c
    assert not [k for k in c if k.startswith("cluster.")], c  # not under cluster mode
