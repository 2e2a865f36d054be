"""Spark configuration of the three schedulers under test, on the same testbed.

* ``fifo``  — stock Spark, ``spark.scheduler.mode=FIFO`` (the default).
* ``fair``  — stock Spark, ``spark.scheduler.mode=FAIR`` set up the way a careful operator
  would: an allocation file with an ``interactive`` pool (FAIR inside, weight 2, a minimum
  share of a quarter of the slots) and a ``batch`` pool (FIFO inside, weight 1); every job is
  put in its pool with the ``spark.scheduler.pool`` local property, from the workload's own
  short/long label.
* ``eagle`` — master ``spark-eagle:<inner>``; jobs carry the ``spark.scheduler.eagle.job.*`` local
  properties the workload defines (the replay passes the trace's estimate; TPC-H and the sort
  pass the class).

Every scheduler gets the plugin jar and the benchmark jar (``eagle-spark-bench-<version>.jar``,
where the replay's sleep job ``SleepJob`` lives: benchmark code stays out of the plugin jar)
on ``spark.jars`` and ``spark.driver.extraClassPath``. On a stock master the plugin jar changes
nothing, as its cluster manager only claims ``spark-eagle:`` URLs.
"""
from __future__ import annotations

import argparse
import glob
import os

EAGLE_PREFIX = "spark.scheduler.eagle."

SCHEDULERS = ("fifo", "fair", "eagle")
POOL = {"short": "interactive", "long": "batch"}


def find_jar(root: str) -> str | None:
    """The plugin jar of the Spark line of this python's pyspark (eagle-spark-<line>_<scala>-*.jar)."""
    try:
        import pyspark
        line = ".".join(pyspark.__version__.split(".")[:2])
    except ImportError:
        line = "*"
    jars = sorted(glob.glob(os.path.join(root, "build", "libs", f"eagle-spark-{line}_*-*.jar")), key=os.path.getmtime)
    return jars[-1] if jars else None


def find_bench_jar(root: str) -> str | None:
    """build/libs/eagle-spark-bench-<version>.jar: SleepJob (and the plugin benchmarks' mains)."""
    jars = sorted(glob.glob(os.path.join(root, "build", "libs", "eagle-spark-bench-*.jar")))
    return jars[-1] if jars else None


def jar_conf(jar: str, bench_jar: str) -> dict:
    """``spark.jars`` (shipped to the executors) and ``spark.driver.extraClassPath`` (the
    cluster manager is looked up before ``spark.jars`` are added) for both jars."""
    return {"spark.jars": f"{jar},{bench_jar}",
            "spark.driver.extraClassPath": os.pathsep.join([jar, bench_jar])}


def fair_allocation_xml(slots: int) -> str:
    min_share = max(1, slots // 4)
    return f"""<?xml version="1.0"?>
<allocations>
  <pool name="interactive">
    <schedulingMode>FAIR</schedulingMode>
    <weight>2</weight>
    <minShare>{min_share}</minShare>
  </pool>
  <pool name="batch">
    <schedulingMode>FIFO</schedulingMode>
    <weight>1</weight>
    <minShare>0</minShare>
  </pool>
</allocations>
"""


def spark_conf(scheduler: str, testbed: dict, run_dir: str, root: str,
               eagle: dict | None = None, extra: dict | None = None) -> dict:
    """The SparkConf (as a dict) of one run."""
    if scheduler not in SCHEDULERS:
        raise ValueError(f"scheduler must be one of {SCHEDULERS}")
    master = testbed["master"]
    slots = int(testbed["slots"])
    events = os.path.join(run_dir, "events")
    os.makedirs(events, exist_ok=True)
    conf = {
        "spark.master": master,
        "spark.app.name": f"eagle-bench-{os.path.basename(run_dir)}",
        "spark.driver.host": testbed["driver_host"],
        "spark.driver.bindAddress": testbed["driver_host"],
        "spark.driver.memory": "2g",
        "spark.executor.memory": testbed.get("executor_memory", "768m"),
        "spark.executor.cores": str(testbed["cores"]),
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + events,
        "spark.eventLog.compress": "false",
        "spark.sql.shuffle.partitions": str(2 * slots),
        "spark.default.parallelism": str(2 * slots),
        "spark.local.dir": os.path.join(run_dir, "driver-local"),
        "spark.driver.extraJavaOptions": "-XX:+UseParallelGC",
        "spark.sql.warehouse.dir": os.path.join(run_dir, "warehouse"),
    }
    if testbed.get("executor_java_options"):
        # The same for every scheduler: a testbed setting, not a scheduler's.
        conf["spark.executor.extraJavaOptions"] = testbed["executor_java_options"]
    if testbed.get("driver_java_options"):
        conf["spark.driver.extraJavaOptions"] += " " + testbed["driver_java_options"]
    if testbed.get("mode") == "local-cluster":
        conf.pop("spark.driver.bindAddress")
    jar, bench_jar = find_jar(root), find_bench_jar(root)
    if not jar or not bench_jar:
        raise SystemExit("no build/libs/eagle-spark-<version>.jar or eagle-spark-bench-<version>.jar: "
                         "run bash scripts/build.sh first")
    conf.update(jar_conf(jar, bench_jar))
    if scheduler == "fair":
        xml = os.path.join(run_dir, "fairscheduler.xml")
        with open(xml, "w") as f:
            f.write(fair_allocation_xml(slots))
        conf["spark.scheduler.mode"] = "FAIR"
        conf["spark.scheduler.allocation.file"] = xml
    elif scheduler == "eagle":
        conf["spark.master"] = "spark-eagle:" + master
        conf["spark.scheduler.eagle.summary.path"] = os.path.join(run_dir, "eagle-summary.json")
        for k, v in (eagle or {}).items():
            conf[EAGLE_PREFIX + k] = str(v)
    for k, v in (extra or {}).items():
        conf[k] = str(v)
    return conf


def job_properties(scheduler: str, cls: str, estimate_ms: int | None = None,
                   pass_class: bool = True) -> dict:
    """Local properties a workload thread sets before submitting a job."""
    props = {}
    if scheduler == "fair":
        props["spark.scheduler.pool"] = POOL[cls]
    elif scheduler == "eagle":
        if pass_class:
            props["spark.scheduler.eagle.job.class"] = cls
        if estimate_ms is not None:
            props["spark.scheduler.eagle.job.estimatedTaskMs"] = str(int(estimate_ms))
    props["bench.class"] = cls
    return props



def eagle_conf_item(text: str) -> tuple:
    """``KEY=VALUE`` of ``--eagle-conf``: the key relative to ``spark.scheduler.eagle.``."""
    key, sep, value = text.partition("=")
    key = key.strip()
    if key.startswith(EAGLE_PREFIX):
        key = key[len(EAGLE_PREFIX):]
    if not sep or not key or not value.strip():
        raise argparse.ArgumentTypeError(f"--eagle-conf wants KEY=VALUE, got {text!r}")
    return key, value.strip()


def split_conf(label: str, what: str = "scheduler") -> tuple:
    """``LABEL[+KEY=VALUE...]``: the label without its own keys, and those keys
    (``spark.scheduler.eagle.*``, the prefix left out as in ``--eagle-conf``); a malformed key is
    an error naming the label (``what`` names the option's kind in it)."""
    head, *items = label.split("+")
    conf = {}
    for item in items:
        try:
            key, value = eagle_conf_item(item)
        except argparse.ArgumentTypeError:
            raise SystemExit(f"{what}: {label!r}: after '+' comes KEY=VALUE (a spark.scheduler.eagle.* key), "
                             f"got {item!r}")
        conf[key] = value
    return head, conf


def eagle_keys(args, label: str) -> dict:
    """The ``spark.scheduler.eagle.*`` keys of the run ``label`` names: ``--eagle-conf``'s, then
    its own (``split_conf``), so two eagle runs of one invocation can differ in a key and be
    measured against the same baselines."""
    return {**dict(getattr(args, "eagle_conf", []) or []), **split_conf(label)[1]}
