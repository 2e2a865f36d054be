"""Eagle vs stock FIFO on a real local cluster: a long job, then a stream of short jobs.

Runs the same scenario twice on `local-cluster[2,2,1024]` (two executor JVMs, two slots
each): once with the stock scheduler and once with `spark-eagle:`. A long job (hinted
`long`) saturates the cluster; a moment later short jobs (hinted `short`) arrive one after
another. Prints each short job's latency under both, and the Eagle run summary's counters.
"""
import glob
import json
import os
import sys
import tempfile
import threading
import time

import pyspark

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("SPARK_HOME", os.path.dirname(pyspark.__file__))
# the Spark line (major.minor) of this pyspark picks the jar; its Scala version launches executors
LINE = ".".join(pyspark.__version__.split(".")[:2])
os.environ["SPARK_SCALA_VERSION"] = "2.12" if LINE.startswith("3.") else "2.13"
os.environ["PYSPARK_PYTHON"] = sys.executable

from pyspark import SparkConf, SparkContext  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

CLUSTER = os.environ.get("DEMO_CLUSTER", "local-cluster[2,2,1024]")
LONG_TASKS, LONG_S = 12, 3.0
SHORT_JOBS, SHORT_TASKS, SHORT_S, GAP_S = 6, 2, 0.3, 0.7

JARS = sorted(glob.glob(os.path.join(ROOT, f"build/libs/eagle-spark-{LINE}_*-*.jar")), key=os.path.getmtime)
if not JARS:
    sys.exit(f"no build/libs/eagle-spark-{LINE}_*.jar for Spark {pyspark.__version__}: run scripts/build.sh")
JAR = JARS[-1]
SparkContext._ensure_initialized(conf=SparkConf(loadDefaults=False).set("spark.driver.extraClassPath", JAR))


def sleeper(seconds):
    def f(x):
        import time as _t

        _t.sleep(seconds)
        return x

    return f


def scenario(master, summary_path=None):
    b = (
        SparkSession.builder.master(master)
        .appName("eagle-demo")
        .config("spark.jars", JAR)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.executor.memory", "768m")
    )
    if summary_path:
        b = b.config("spark.scheduler.eagle.summary.path", summary_path)
    spark = b.getOrCreate()
    sc = spark.sparkContext
    sc.setLogLevel("ERROR")
    deadline = time.time() + 120
    while len(sc._jsc.sc().statusTracker().getExecutorInfos()) < 3 and time.time() < deadline:
        time.sleep(0.5)
    sc.parallelize(range(8), 8).map(sleeper(0.3)).count()  # start Python workers everywhere
    marks = {}

    def long_job():
        sc.setLocalProperty("spark.scheduler.eagle.job.class", "long")
        sc.setJobDescription("long")
        t0 = time.time()
        sc.parallelize(range(LONG_TASKS), LONG_TASKS).map(sleeper(LONG_S)).count()
        marks["long"] = (t0, time.time())

    def short_job(i):
        sc.setLocalProperty("spark.scheduler.eagle.job.class", "short")
        sc.setJobDescription(f"short-{i}")
        t0 = time.time()
        sc.parallelize(range(SHORT_TASKS), SHORT_TASKS).map(sleeper(SHORT_S)).count()
        marks[f"short-{i}"] = (t0, time.time())

    threads = [threading.Thread(target=long_job)]
    threads[0].start()
    time.sleep(1.0)
    for i in range(SHORT_JOBS):
        t = threading.Thread(target=short_job, args=(i,))
        t.start()
        threads.append(t)
        time.sleep(GAP_S)
    for t in threads:
        t.join()
    spark.stop()
    return marks


def main():
    print(f"Cluster {CLUSTER}: a long job ({LONG_TASKS} tasks x {LONG_S:.0f} s) saturates the 4 slots;")
    print(f"1 s later {SHORT_JOBS} short jobs ({SHORT_TASKS} tasks x {SHORT_S} s) arrive every {GAP_S} s.\n")
    print("running with the stock scheduler (FIFO) ...", flush=True)
    fifo = scenario(CLUSTER)
    summary = os.path.join(tempfile.mkdtemp(prefix="eagle-demo-"), "summary.json")
    print("running with spark-eagle: ...", flush=True)
    eagle = scenario("spark-eagle:" + CLUSTER, summary)
    print()
    print(f"{'job':<10} {'FIFO latency':>13} {'Eagle latency':>14}")
    for i in range(SHORT_JOBS):
        k = f"short-{i}"
        f = fifo[k][1] - fifo[k][0]
        e = eagle[k][1] - eagle[k][0]
        print(f"{k:<10} {f:>12.2f}s {e:>13.2f}s")
    fl = fifo["long"][1] - fifo["long"][0]
    el = eagle["long"][1] - eagle["long"][0]
    print(f"{'long':<10} {fl:>12.2f}s {el:>13.2f}s")
    fm = sum(fifo[f"short-{i}"][1] - fifo[f"short-{i}"][0] for i in range(SHORT_JOBS)) / SHORT_JOBS
    em = sum(eagle[f"short-{i}"][1] - eagle[f"short-{i}"][0] for i in range(SHORT_JOBS)) / SHORT_JOBS
    print(f"\nmean short-job latency: FIFO {fm:.2f} s, Eagle {em:.2f} s ({fm / em:.1f}x faster)")
    with open(summary) as fh:
        s = json.load(fh)
    c = s["counters"]
    print(
        f"Eagle summary ({summary}): fallback={s['fallback']}, decisions={c['decisions']}, "
        f"probes placed={c['probesPlaced']}, rejected by SSS={c['probesRejectedSss']}, "
        f"SRPT bypasses={c['srptBypasses']}, backfills={c['backfills']}, declines={c['declines']}"
    )
    print("(Eagle keeps a short partition of executors for short jobs, so the long job runs on")
    print(" fewer slots and takes longer; that is the price of low short-job latency.)")


if __name__ == "__main__":
    main()
