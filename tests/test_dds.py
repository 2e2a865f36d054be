"""Dynamic Delay Scheduling in the plugin: configuration and the summary's locality data.

The local-cluster run with DDS enabled (the default) is the `eagle_cluster` fixture of
test_local_cluster.py (its results equal stock Spark's); its summary is checked there. Here:
start-up validation of spark.scheduler.eagle.dds.*, and a cheap local session with DDS off.
"""
import pytest
from pyspark import StorageLevel

from conftest import spark
from test_config import start_fails

LEVELS = ["PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"]


@pytest.mark.parametrize(
    "key,value,expected",
    [
        ("dds.enabled", "maybe", "true or false"),
        ("dds.minWaitMs", "-1", "an integer >= 0"),
        ("dds.maxWaitMs", "soon", "an integer >= 0"),
        ("dds.window", "0.5", "a number >= 1"),
    ],
)
def test_bad_dds_value_names_the_key(key, value, expected):
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle." + key: value})
    assert "spark.scheduler.eagle." + key in msg and expected in msg, msg


def test_max_wait_below_min_wait_names_the_key():
    msg = start_fails(
        "spark-eagle:local[2]",
        {"spark.scheduler.eagle.dds.minWaitMs": "5000", "spark.scheduler.eagle.dds.maxWaitMs": "1000"},
    )
    assert "spark.scheduler.eagle.dds.maxWaitMs" in msg and "dds.minWaitMs" in msg, msg


def test_unknown_dds_key_is_named():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.dds.maxWait": "1000"})
    assert "Unknown Eagle configuration key: spark.scheduler.eagle.dds.maxWait" in msg


def test_dds_disabled_has_no_history_but_a_locality_mix(tmp_path):
    path = tmp_path / "summary.json"
    conf = {"spark.scheduler.eagle.dds.enabled": "false"}
    with spark("spark-eagle:local[2]", conf, summary_path=path) as (s, r):
        sc = s.sparkContext
        cached = sc.parallelize(range(2000), 4).map(lambda x: x * 3).persist(StorageLevel.MEMORY_ONLY)
        got = [cached.count(), cached.sum()]
    assert got == [2000, 3 * sum(range(2000))]
    summary = r["summary"]
    assert summary["fallback"] is False, summary["fallbackReason"]
    assert summary["config"]["dds.enabled"] is False
    assert summary["taskSets"]
    for t in summary["taskSets"]:
        assert t["delayHistory"] is None, t
        assert set(t["locality"]) == set(LEVELS)
        assert sum(t["localityLaunches"].values()) >= t["tasks"]
    total = summary["locality"]
    assert sum(total["launches"].values()) >= 8
    assert abs(sum(total["fractions"].values()) - 1.0) < 1e-6
