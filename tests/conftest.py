"""Shared helpers for the Spark integration tests.

Every test session runs real Spark (the pyspark package of the running python: .venv's 4.3
for the full suite, .venv-spark-<line>'s for the smoke tests of other lines) with real
executors: `spark-eagle:local[4]` runs tasks in the driver JVM, and
`spark-eagle:local-cluster[2,2,1024]` starts a standalone master, two workers and two
executor JVMs. One PySpark process keeps one JVM, so the plugin jar of this Spark line
(build/libs/eagle-spark-<line>_<scala>-*.jar) is put on the driver class path of the very
first session; later sessions (stock or eagle) reuse that JVM.
"""
import contextlib
import functools
import glob
import json
import os
import re
import subprocess
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
import pyspark  # noqa: E402

# "major.minor" of the Spark under test: the jar must be built for this line.
SPARK_LINE = ".".join(pyspark.__version__.split(".")[:2])
_PYSPARK_HOME = os.path.dirname(pyspark.__file__)


def _home_line(home):
    """(line, scala) of a Spark distribution, from its spark-core jar name, or None."""
    for j in glob.glob(os.path.join(home, "jars", "spark-core_*.jar")):
        m = re.match(r"spark-core_([0-9.]+)-([0-9]+)\.([0-9]+)\.", os.path.basename(j))
        if m:
            return f"{m.group(2)}.{m.group(3)}", m.group(1)
    return None


# SPARK_HOME launches the local-cluster executors: it must be this pyspark's line.
if _home_line(os.environ.get("SPARK_HOME", "")) is None or \
        _home_line(os.environ["SPARK_HOME"])[0] != SPARK_LINE:
    os.environ["SPARK_HOME"] = _PYSPARK_HOME
SCALA_VERSION = _home_line(os.environ["SPARK_HOME"])[1]
os.environ["SPARK_SCALA_VERSION"] = SCALA_VERSION  # local-cluster executors are launched from SPARK_HOME
os.environ["PYSPARK_PYTHON"] = sys.executable
os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable

from pyspark import SparkConf, SparkContext  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402


def line_jars(line):
    """This checkout's jars for a Spark line, newest last."""
    return sorted(glob.glob(os.path.join(ROOT, f"build/libs/eagle-spark-{line}_*-*.jar")), key=os.path.getmtime)


def plugin_jar():
    jars = line_jars(SPARK_LINE)
    if not jars:
        with open(os.path.join(ROOT, "spark-plugin/spark-lines.properties")) as f:
            default = re.search(r"(?m)^default=(\S+)", f.read()).group(1)
        hint = "" if SPARK_LINE == default else f" --spark {SPARK_LINE}"
        pytest.exit(f"build/libs/eagle-spark-{SPARK_LINE}_*.jar (for Spark {pyspark.__version__}) is "
                    f"missing: run scripts/build.sh{hint}", returncode=2)
    return jars[-1]


# Modules whose tests are independent and long: under pytest-xdist (scripts/test.sh) their tests
# go to any worker. Every other module's tests stay on one worker together (they share
# module-scoped applications, and the testbed's namespaces are one set per machine).
SPREAD = {"test_cluster_mode", "test_adaptive", "test_small_clusters", "test_sql_servers"}


def pytest_itemcollected(item):
    module = item.module.__name__.rsplit(".", 1)[-1]
    if module not in SPREAD and item.get_closest_marker("xdist_group") is None:
        group = "bench" if item.path.parent.name == "bench" else module
        item.add_marker(pytest.mark.xdist_group(group))


def pytest_collection_finish(session):
    """Under --dist loadgroup, xdist marks a grouped test by appending "@group" to its node id.
    pytest 9 ignores that write (node ids became immutable), so groups silently split across
    workers and modules sharing the testbed or a module's application run twice at once:
    stop and say so rather than run that way (scripts/setup.sh pins pytest below 9)."""
    if not session.config.getoption("loadgroup", False):
        return
    lost = [i.nodeid for i in session.items if i.get_closest_marker("xdist_group") and "@" not in i.nodeid]
    if lost:
        pytest.exit(f"pytest-xdist's --dist loadgroup has no effect with pytest {pytest.__version__} "
                    f"({lost[0]} has no group): run scripts/setup.sh (it installs pytest<9)", returncode=2)


def pytest_configure(config):
    # (pytest-xdist registers it; the other lines' venvs run without xdist)
    config.addinivalue_line("markers", "xdist_group(name): run on one pytest-xdist worker with its group")
    config.addinivalue_line(
        "markers", "smoke: the integration tests also run on the other Spark lines (scripts/test.sh)")
    config.addinivalue_line(
        "markers", "full: the second tier, run by scripts/test.sh --full only (docs/design/testing.md)")
    config.addinivalue_line(
        "markers", "alone: run by scripts/test.sh with no other Spark test beside them (timing-sensitive)")


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


@functools.lru_cache(maxsize=None)
def daemon_bin_dir():
    """The directory of eagle-node and eagle-central: EAGLE_DAEMON_BIN when set (scripts/test.sh
    builds them there before any test starts), else built first (a no-op when up to date) in
    the cargo profile EAGLE_CARGO_PROFILE, else in the debug profile."""
    if os.environ.get("EAGLE_DAEMON_BIN"):
        return os.environ["EAGLE_DAEMON_BIN"]
    profile = os.environ.get("EAGLE_CARGO_PROFILE", "dev")
    subprocess.run(["cargo", "build", "-q", "--profile", profile, "-p", "eagle-node", "-p", "eagle-central"],
                   cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    return os.path.join(target, "debug" if profile == "dev" else profile)


def assert_each_end_recorded_once(summary):
    """The summary's launches per locality level are the sum of its task sets' own: a task
    set whose end Spark reports twice (a cancelled or killed one) is counted once."""
    per_task_set = sum(sum((t.get("localityLaunches") or {}).values()) for t in summary["taskSets"])
    total = sum(summary["locality"]["launches"].values())
    assert total == per_task_set, (total, per_task_set, summary["taskSets"])


def sleep_task(seconds):
    """A map function that sleeps (the machine has two loaded cores: sleeping tasks give
    stable durations without competing for CPU)."""

    def f(x):
        import time as _t

        _t.sleep(seconds)
        return x

    return f
