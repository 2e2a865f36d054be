"""The dds scenario's pure parts (no Spark): the configuration of each delay setting, the order
rotation, the summary and its criteria, the DDS interval statistics, the results.json schema
and the report."""
import json
import os

import pytest

from bench import dds, report
from bench.run import parse_args
from bench.schedulers import spark_conf

TB = {"master": "spark://10.77.0.1:7077", "driver_host": "10.77.0.1", "hosts": 4, "cores": 2, "slots": 8,
      "mode": "netns", "network": "fast", "note": ""}
LOC = {"PROCESS_LOCAL": 0.8, "NODE_LOCAL": 0.05, "NO_PREF": 0.0, "RACK_LOCAL": 0.0, "ANY": 0.15}


def _runs(walls, correct=True):
    """walls: {(network, delay): (tpch_s, sort_s)}."""
    runs = []
    for (net, delay), (tq, ts) in walls.items():
        for wl, w in (("tpch", tq), ("sort", ts)):
            runs.append({"delay": delay, "network": net, "workload": wl, "wall_seconds": w,
                         "correct": correct, "locality": dict(LOC), "order": 0})
    return runs


WALLS = {("fast", "fixed-0s"): (30.0, 20.0), ("fast", "fixed-3s"): (50.0, 30.0), ("fast", "dynamic"): (31.0, 20.0),
         ("congested", "fixed-0s"): (80.0, 60.0), ("congested", "fixed-3s"): (70.0, 50.0),
         ("congested", "dynamic"): (72.0, 53.0)}


def test_delay_conf_of_each_setting(tmp_path):
    assert dds.delay_conf("fixed-0s") == ({"dds.enabled": "false"}, {"spark.locality.wait": "0s"})
    assert dds.delay_conf("fixed-3s") == ({"dds.enabled": "false"}, {"spark.locality.wait": "3s"})
    assert dds.delay_conf("dynamic") == ({"dds.enabled": "true"}, {})
    assert dds.delay_conf("dynamic", 2500) == ({"dds.enabled": "true", "dds.maxWaitMs": "2500"}, {})
    with pytest.raises(ValueError, match="fixed-1s"):
        dds.delay_conf("fixed-1s")
    # Through spark_conf: the eagle master, the plugin keys, Spark's own wait.
    for delay, want_dds, want_wait in (("fixed-0s", "false", "0s"), ("fixed-3s", "false", "3s"),
                                       ("dynamic", "true", None)):
        eagle, extra = dds.delay_conf(delay)
        conf = spark_conf("eagle", TB, str(tmp_path / delay), os.getcwd(), eagle=eagle, extra=extra)
        assert conf["spark.master"] == "spark-eagle:spark://10.77.0.1:7077"
        assert conf["spark.scheduler.eagle.dds.enabled"] == want_dds
        assert conf.get("spark.locality.wait") == want_wait
        assert conf["spark.scheduler.eagle.summary.path"].endswith("eagle-summary.json")


def test_order_rotates_between_profiles():
    assert dds.order_for(0) == ["fixed-3s", "dynamic", "fixed-0s"]
    assert dds.order_for(1) == ["dynamic", "fixed-0s", "fixed-3s"]
    assert dds.order_for(2) == ["fixed-0s", "fixed-3s", "dynamic"]
    assert dds.order_for(1, ["fixed-3s", "dynamic"]) == ["dynamic", "fixed-3s"]
    # every setting first in some profile
    assert {dds.order_for(i)[0] for i in range(3)} == set(dds.DELAYS)


def test_summary_and_criteria():
    s = dds.summarise(_runs(WALLS))
    fast, cong = s["networks"]["fast"], s["networks"]["congested"]
    assert fast["total_seconds"] == {"fixed-0s": 50.0, "fixed-3s": 80.0, "dynamic": 51.0}
    assert fast["by_workload"]["tpch"]["dynamic"] == 31.0
    assert fast["ratio_dynamic_vs_fixed_3s"] == pytest.approx(51 / 80, abs=1e-4)
    assert fast["best_fixed"] == "fixed-0s"
    assert fast["ratio_dynamic_vs_best_fixed"] == pytest.approx(51 / 50, abs=1e-4)
    assert fast["met"] == {dds.CRIT_3S: True, dds.CRIT_BEST: True}
    # congested: only the best-fixed target; 125 / 120 <= 1.05
    assert cong["best_fixed"] == "fixed-3s"
    assert cong["ratio_dynamic_vs_best_fixed"] == pytest.approx(125 / 120, abs=1e-4)
    assert list(cong["met"]) == [dds.CRIT_BEST] and cong["met"][dds.CRIT_BEST] is True
    assert s["all_met"] is True
    slow = {**WALLS, ("fast", "dynamic"): (60.0, 20.0)}       # 80 / 80 = 1.0 > 0.85, 80 / 50 > 1.05
    s2 = dds.summarise(_runs(slow))
    assert s2["networks"]["fast"]["met"] == {dds.CRIT_3S: False, dds.CRIT_BEST: False}
    assert s2["all_met"] is False


def test_incorrect_run_has_no_total():
    runs = _runs(WALLS)
    next(r for r in runs if r["network"] == "fast" and r["delay"] == "dynamic" and r["workload"] == "sort")["correct"] = False
    s = dds.summarise(runs)
    fast = s["networks"]["fast"]
    assert fast["total_seconds"]["dynamic"] is None
    assert fast["by_workload"]["sort"]["dynamic"] is None and fast["by_workload"]["tpch"]["dynamic"] == 31.0
    assert fast["ratio_dynamic_vs_fixed_3s"] is None
    assert fast["met"][dds.CRIT_3S] is None and s["all_met"] is False


def _summary():
    hist = [{"atMs": 0, "level": "PROCESS_LOCAL", "intervalMs": 3000},
            {"atMs": 0, "level": "NODE_LOCAL", "intervalMs": 3000},
            {"atMs": 0, "level": "RACK_LOCAL", "intervalMs": 3000},
            {"atMs": 10, "level": "PROCESS_LOCAL", "intervalMs": 1500},
            {"atMs": 20, "level": "PROCESS_LOCAL", "intervalMs": 750}]
    return {"fallback": False,
            "jobs": [{"jobId": 0, "description": "setup: cache TPC-H tables"},
                     {"jobId": 1, "description": "TPC-H Q1"}, {"jobId": 2, "description": "TPC-H Q3"},
                     {"jobId": 3, "description": "sort (dds)"}],
            "taskSets": [{"jobId": 0, "delayHistory": hist},
                         {"jobId": 1, "delayHistory": hist},
                         {"jobId": 2, "delayHistory": hist[:3]},
                         {"jobId": 3, "delayHistory": None}]}


def test_interval_stats_from_the_eagle_summary():
    st = dds.interval_stats(_summary(), "tpch")
    assert st["task_sets"] == 2
    p = st["levels"]["PROCESS_LOCAL"]
    assert p == {"updates": 2, "mean_ms": 1125.0, "final_mean_ms": (750 + 3000) / 2, "max_ms": 1500}
    assert st["levels"]["NODE_LOCAL"] == {"updates": 0, "mean_ms": None, "final_mean_ms": 3000, "max_ms": None}
    assert dds.interval_stats(_summary(), "sort") is None          # dds off: no history
    assert dds.interval_stats(None, "tpch") is None


def test_run_entries_from_a_driver_result():
    res = {"ok": True, "app_id": "app-1", "setup_seconds": 12.0,
           "phases": {"tpch": {"wall_seconds": 20.0, "correct": True, "queries": [{"query": 1, "ok": True}]},
                      "sort": {"wall_seconds": 9.0, "correct": False, "check": "checksum differs",
                               "error": "sort: checksum differs"}},
           "locality_by_class": {"short": LOC, "long": {"ANY": 1.0}, "setup": {"NO_PREF": 1.0}}}
    tq, ts = dds.run_entries("fast", "dynamic", 1, res, _summary())
    assert (tq["workload"], tq["correct"], tq["locality"], tq["wall_seconds"]) == ("tpch", True, LOC, 20.0)
    assert tq["dds_intervals"]["task_sets"] == 2 and tq["queries"]
    assert (ts["workload"], ts["correct"], ts["error"], ts["locality"]) == ("sort", False, "sort: checksum differs", {"ANY": 1.0})
    # a driver that died: both runs incorrect, with the driver's error
    dead = dds.run_entries("congested", "fixed-0s", 0, {"ok": False, "error": "driver exited 1 without a result"}, None)
    assert [r["correct"] for r in dead] == [False, False]
    assert all("driver exited" in r["error"] for r in dead)
    assert dead[0]["dds_intervals"] is None


def _results():
    runs = _runs(WALLS)
    runs[0]["dds_intervals"] = dds.interval_stats(_summary(), "tpch")
    runs[2]["locality"] = {"PROCESS_LOCAL": 0.3, "NODE_LOCAL": 0.1, "NO_PREF": 0.0, "RACK_LOCAL": 0.0, "ANY": 0.6}
    return {"scenario": "dds",
            "testbed": {"hosts": 4, "slots": 8, "network": "fast,congested", "mode": "netns", "rate": "100mbit"},
            "workload": {"sf": 0.05, "parts": 8, "queries": [1, 3], "gap_s": 1.5, "sort_gb": 0.08,
                         "delays": list(dds.DELAYS), "networks": list(dds.NETWORKS), "dds_max_wait_ms": 10000,
                         "order": {"fast": dds.order_for(0), "congested": dds.order_for(1)}},
            "runs": runs, "summary": dds.summarise(runs),
            "sim": {"trace": "YH2_sub.tr", "nodes": 5000, "penalty": 2.0, "congestion": [1, 2, 10],
                    "runs": [{"delay": "dynamic", "job_mean": 300.0, "local_fraction": 0.3, "wait_calm": 2.0,
                              "wait_congested": 9.0, "short": {"p50": 1.0, "p90": 2.0, "p99": 3.0},
                              "long": {"mean": 10.0}}],
                    "images": []}}


def test_results_schema():
    res = json.loads(json.dumps(_results()))
    assert res["scenario"] == "dds"
    assert {"sf", "parts", "queries", "sort_gb"} <= set(res["workload"])
    for r in res["runs"]:
        assert r["delay"] in dds.DELAYS and r["network"] in dds.NETWORKS and r["workload"] in dds.WORKLOADS
        assert isinstance(r["wall_seconds"], float) and isinstance(r["correct"], bool)
        assert {"PROCESS_LOCAL", "NODE_LOCAL", "RACK_LOCAL", "ANY"} <= set(r["locality"])
    assert len(res["runs"]) == len(dds.NETWORKS) * len(dds.DELAYS) * len(dds.WORKLOADS)
    assert set(res["summary"]["networks"]) == set(dds.NETWORKS)
    assert "sim" in res


def test_report_renders(tmp_path):
    res = _results()
    res["runs"][1]["correct"] = False
    res["runs"][1]["error"] = "Q3: row 2 differs"
    res["summary"] = dds.summarise(res["runs"])
    path = report.write_report(str(tmp_path), res)
    html = open(path).read()
    for png in ("dds-wall.png", "dds-locality.png"):
        with open(tmp_path / png, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
        assert png in html
    assert "dynamic / fixed-3s" in html and dds.CRIT_3S.replace("<", "&lt;") in html
    assert "Q3: row 2 differs" in html and "no data" in html
    assert "YH2_sub.tr" in html


def test_bench_options():
    a = parse_args(["dds", "--quick"])
    assert (a.workers, a.sf, a.parts, a.sort_gb, a.gap) == (4, 0.05, 8, 0.08, 1.5)
    assert a.queries == [1, 3, 5, 6, 10, 12, 14, 19]
    assert a.networks == "fast,congested" and a.delays == "fixed-0s,fixed-3s,dynamic" and not a.no_sim
    b = parse_args(["dds"])
    assert (b.workers, b.sf, b.parts, b.sort_gb) == (8, 1.0, 16, 1.0) and b.queries == list(range(1, 23))


def test_wait_group_gone():
    """The next application waits for the previous driver's whole process group (its JVM
    outlives the Python driver), not for zombies."""
    import subprocess
    import time
    p = subprocess.Popen(["bash", "-c", "sleep 0.5 & exit 0"], start_new_session=True)
    p.wait()
    assert dds.group_alive(p.pid)
    t = time.time()
    dds.wait_group_gone(p.pid, timeout=20)
    assert not dds.group_alive(p.pid) and time.time() - t < 10
