"""results.json -> report.html with PNGs, and the replay summary's done criteria (no Spark)."""
import argparse
import json
import os

from bench import report, stats
from bench.run import replay_summary


def _runs():
    runs = []
    for ratio in (1.2, 2.0):
        for seed in (1, 2):
            for sched, f in (("fifo", 6.0), ("fair", 2.0), ("eagle", 1.0)):
                short = [0.1 * f * (1 + i % 7) for i in range(30)]
                long_ = [5.0 + i for i in range(5)]
                runs.append({"scheduler": sched, "ratio": ratio, "seed": seed,
                             "short": stats.summary(short), "long": stats.summary(long_),
                             "wall_seconds": 30.0, "correct": True,
                             "latencies": {"short": short, "long": long_},
                             "locality": {"PROCESS_LOCAL": 1.0}})
    return runs


def test_summary_criteria():
    args = argparse.Namespace(ratios=[1.2, 2.0], schedulers=["fifo", "fair", "eagle"])
    summ = replay_summary(_runs(), args)
    assert [row["ratio"] for row in summ] == [1.2, 2.0]
    crit = summ[0]["criteria"]
    assert abs(crit["short_p99_vs_fifo"] - 1 / 6) < 1e-9
    assert abs(crit["short_p99_vs_fair"] - 0.5) < 1e-9
    assert crit["long_p50_vs_fifo"] == 1.0
    assert all(crit["met"].values())
    assert summ[0]["schedulers"]["eagle"]["runs"] == 2


def test_report_renders_pngs(tmp_path):
    args = argparse.Namespace(ratios=[1.2, 2.0], schedulers=["fifo", "fair", "eagle"])
    runs = _runs()
    res = {"scenario": "replay", "testbed": {"hosts": 2, "slots": 4, "network": "fast", "mode": "netns"},
           "runs": runs, "summary": replay_summary(runs, args), "trace": "t", "cutoff_s": 90.0}
    path = report.write_report(str(tmp_path), res)
    html = open(path).read()
    pngs = [f for f in os.listdir(tmp_path) if f.endswith(".png")]
    assert len(pngs) == 4
    for f in pngs:
        assert f in html
        with open(tmp_path / f, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
    json.dumps(res)


def test_tpch_and_sort_reports(tmp_path):
    q = [{"query": i, "latency": 1.0 + i / 10, "ok": True, "check": "ok"} for i in range(1, 23)]
    runs = [{"scheduler": s, "short": stats.summary([x["latency"] for x in q]),
             "long": stats.summary([40.0]), "wall_seconds": 50.0, "correct": True,
             "batch_seconds": 40.0, "queries": q,
             "latencies": {"short": [x["latency"] for x in q], "long": [40.0]}}
            for s in ("fifo", "fair", "eagle")]
    d = tmp_path / "tpch"
    d.mkdir()
    report.write_report(str(d), {"scenario": "tpch", "testbed": {}, "runs": runs})
    assert (d / "queries.png").exists()
    sruns = [dict(r, variant=v) for r in runs for v in ("alone", "under-tpch")]
    d2 = tmp_path / "sort"
    d2.mkdir()
    report.write_report(str(d2), {"scenario": "sort", "testbed": {}, "runs": sruns})
    assert (d2 / "sort.png").exists() and "Q22" not in (d2 / "report.html").read_text()


def test_adaptive_state_is_plotted(tmp_path):
    args = argparse.Namespace(ratios=[1.2, 2.0], schedulers=["fifo", "fair", "eagle"])
    runs = _runs()
    hist = [{"atMs": 1000, "reservedSlots": 0, "cutoffMs": None},
            {"atMs": 5000, "reservedSlots": 3, "cutoffMs": 450.0},
            {"atMs": 9000, "reservedSlots": 1, "cutoffMs": 450.0}]
    res = {"scenario": "replay", "testbed": {"hosts": 2, "slots": 4, "network": "fast", "mode": "netns"},
           "runs": runs, "summary": replay_summary(runs, args), "trace": "t", "cutoff_s": 90.0,
           "adaptive": {"policy": "adaptive", "history": hist}}
    html = open(report.write_report(str(tmp_path), res)).read()
    assert "adaptive.png" in html
    with open(tmp_path / "adaptive.png", "rb") as fh:
        assert fh.read(8) == b"\x89PNG\r\n\x1a\n"


def test_the_machine_table_shows_each_plans_cpu_and_flags_a_saturated_one(tmp_path):
    runs = _runs()[:2]
    runs[0]["machine"] = {"cpus": 2, "wall_s": 57.7, "capacity_cpu_s": 115.4, "used_cpu_s": 111.7, "busy": 0.968,
                          "by": {"executors": 72.8, "drivers": 27.0, "eagle-node": 1.4, "eagle-central": 0.4,
                                 "spark-daemons": 2.1, "bench": 3.3, "other": 4.7}}
    runs[1]["machine"] = {}
    html = report._html({"scenario": "cluster", "testbed": {}, "runs": runs}, [])
    assert "Machine CPU over each plan" in html
    assert "<td class='bad'>97 %</td>" in html, "a plan that used 90 % or more of the cores is flagged"
    assert "<td>72.8</td>" in html and "<td>115.4</td>" in html
    assert html.split("Machine CPU")[1].count("<tr><td>") == 1, "a run without a machine reading has no row"
    assert "Machine CPU" not in report._html({"scenario": "cluster", "testbed": {}, "runs": _runs()[2:4]}, [])
