"""Shared helpers for the Spark integration tests.

Every test session runs real Spark 4.0.1 (the pyspark package in .venv) with real
executors: `spark-eagle:local[4]` runs tasks in the driver JVM, and
`spark-eagle:local-cluster[2,2,1024]` starts a standalone master, two workers and two
executor JVMs. One PySpark process keeps one JVM, so the plugin jar is put on the driver
class path of the very first session; later sessions (stock or eagle) reuse that JVM.
"""
import contextlib
import glob
import json
import os
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import pyspark  # noqa: E402

os.environ.setdefault("SPARK_HOME", os.path.dirname(pyspark.__file__))
os.environ["SPARK_SCALA_VERSION"] = "2.13"  # local-cluster executors are launched from SPARK_HOME
os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable

from pyspark import SparkConf, SparkContext  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402


def plugin_jar():
    # eagle-spark-<version>.jar only: build/libs also holds the -bench- and -tests- jars.
    jars = sorted(glob.glob(os.path.join(ROOT, "build/libs/eagle-spark-[0-9]*.jar")), key=os.path.getmtime)
    if not jars:
        pytest.exit("build/libs/eagle-spark-<version>.jar is missing: run scripts/build.sh", returncode=2)
    return jars[-1]


JAR = plugin_jar()

# Launch the JVM now, with only the settings every session shares. spark-submit turns the
# launching session's settings into JVM system properties, which every later SparkConf
# loads: launching it from a test's session would leak that test's settings into all others.
_base = (
    SparkConf(loadDefaults=False)
    .set("spark.driver.extraClassPath", JAR)
    .set("spark.driver.memory", "1g")
)
SparkContext._ensure_initialized(conf=_base)


def builder(master, conf=None, app="eagle-test"):
    b = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.jars", JAR)
        .config("spark.driver.extraClassPath", JAR)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.default.parallelism", "4")
        .config("spark.executor.memory", "768m")
    )
    for k, v in (conf or {}).items():
        b = b.config(k, v)
    return b


@contextlib.contextmanager
def spark(master, conf=None, summary_path=None, app="eagle-test"):
    """A SparkSession that is stopped on exit; yields (spark, result) where result["summary"]
    is filled with the parsed Eagle summary after the stop (when summary_path is given)."""
    conf = dict(conf or {})
    if summary_path is not None:
        conf["spark.scheduler.eagle.summary.path"] = str(summary_path)
    s = builder(master, conf, app).getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    result = {}
    try:
        yield s, result
    finally:
        s.stop()
        if summary_path is not None:
            for _ in range(50):
                if os.path.exists(summary_path):
                    break
                time.sleep(0.1)
            with open(summary_path) as f:
                result["summary"] = json.load(f)


def sleep_task(seconds):
    """A map function that sleeps (the machine has two loaded cores: sleeping tasks give
    stable durations without competing for CPU)."""

    def f(x):
        import time as _t

        _t.sleep(seconds)
        return x

    return f
