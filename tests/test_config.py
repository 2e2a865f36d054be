"""Start-up validation of spark.scheduler.eagle.* and of the master URL."""
import os
import subprocess
import sys

import pytest
from py4j.protocol import Py4JJavaError

from conftest import JAR, builder


def start_fails(master, conf):
    with pytest.raises(Exception) as info:
        s = builder(master, conf).getOrCreate()
        s.stop()  # only reached if the start unexpectedly succeeded
    return str(info.value)


def test_out_of_range_value_names_the_key():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.minProbes": "0"})
    assert "spark.scheduler.eagle.minProbes" in msg
    assert "expected an integer in [1, " in msg


def test_malformed_value_names_the_key():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.shortPartition": "lots"})
    assert "spark.scheduler.eagle.shortPartition" in msg


def test_unknown_key_is_named():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.cutofMs": "5000"})
    assert "Unknown Eagle configuration key: spark.scheduler.eagle.cutofMs" in msg


def test_job_property_as_conf_key_explains_local_properties():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.job.class": "short"})
    assert "spark.scheduler.eagle.job.class" in msg and "setLocalProperty" in msg


def test_malformed_builtin_inner_master_is_named():
    # (an inner master that no built-in form and no external cluster manager serves: see
    # test_inner_master.py)
    msg = start_fails("spark-eagle:local[two]", {})
    assert "spark-eagle:local[two]" in msg and "inner master 'local[two]' is not one of" in msg, msg


def test_py4j_error_type():
    # The failure reaches Python as a normal Java exception (no crash of the JVM).
    with pytest.raises(Py4JJavaError):
        builder("spark-eagle:local[2]", {"spark.scheduler.eagle.fallback": "maybe"}).getOrCreate()


@pytest.mark.parametrize("key,value,expected", [
    # The engine allocates max(probeRatio x tasks, minProbes) probes per task set: before the
    # bounds, Int.MaxValue was accepted and the allocation aborted the JVM (no fallback).
    ("minProbes", "2147483647", "expected an integer in [1, 10000]"),
    ("minProbes", "10001", "expected an integer in [1, 10000]"),
    ("probeRatio", "101", "expected an integer in [1, 100]"),
    ("history.maxEntries", "0", "expected an integer in [1, 1000000]"),
    ("summary.maxTaskSets", "0", "expected an integer in [1, "),
    ("debug.holdCallMs", "-1", "expected an integer in [0, 60000]"),
    ("order", "lifo", "expected srpt or fsp"),
])
def test_limits_name_the_key(key, value, expected):
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle." + key: value})
    assert "spark.scheduler.eagle." + key in msg and expected in msg, msg


POOLS_APP = """
from pyspark.sql import SparkSession
s = SparkSession.builder.getOrCreate()
s.sparkContext.setLocalProperty("spark.scheduler.pool", "interactive")
print("rows", s.sparkContext.parallelize(range(8), 4).count())
s.stop()
"""


# FIFO (nothing to say) is the second tier's: the FAIR case checks the same start-up path.
@pytest.mark.parametrize("mode", ["FAIR", pytest.param("FIFO", marks=pytest.mark.full)])
def test_fair_mode_under_eagle_is_named_in_a_warning(tmp_path, mode):
    # spark.scheduler.mode=FAIR (often a spark-defaults.conf left from before) asks for pools
    # that the Eagle policy does not apply: the application runs, and the driver's log says
    # so once, naming the allocation file. Under FIFO there is nothing to say.
    app = tmp_path / "app.py"
    app.write_text(POOLS_APP)
    pools = tmp_path / "pools.xml"
    pools.write_text('<?xml version="1.0"?><allocations><pool name="interactive">'
                     '<weight>2</weight><minShare>1</minShare></pool></allocations>')
    cmd = [os.path.join(os.environ["SPARK_HOME"], "bin", "spark-submit"),
           "--master", "spark-eagle:local[2]", "--driver-class-path", JAR,
           "--conf", "spark.ui.enabled=false", "--conf", f"spark.scheduler.mode={mode}",
           "--conf", f"spark.scheduler.allocation.file={pools}", str(app)]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert p.returncode == 0 and "rows 8" in p.stdout, p.stdout[-4000:]
    notices = [line for line in p.stdout.splitlines() if "spark.scheduler.mode=FAIR" in line]
    if mode == "FAIR":
        assert len(notices) == 1 and f"(from {pools})" in notices[0] and "not applied" in notices[0], p.stdout[-4000:]
    else:
        assert notices == [], notices
