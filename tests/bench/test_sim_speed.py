import json

import pytest

from bench import sim_speed as ss

REPORT = {"jobs": 3363, "tasks": 41000, "nodes": 4000, "events": 1234567, "peak_queue": 4321, "utilization": 0.688,
          "short": {"p50": 21.04, "p90": 70.55, "p99": 150.0}, "long": {"p50": 1500.0, "p90": 11881.5, "p99": 14000.0},
          "perf": {"parse_seconds": 0.02, "sim_seconds": 0.05, "events_per_sec": 2.5e7, "peak_rss_mb": None}}


def line(system, wall, user, rss_kb, **perf):
    d = dict(REPORT, perf=dict(REPORT["perf"], **perf))
    return f"{system} {wall} {user} {rss_kb} {json.dumps(d)}\n"


def test_parse_runs():
    rows = ss.parse_runs([line("eagle", 0.1, 0.09, 2048), line("sparrow", 0.05, 0.04, 1024)])
    assert [(r["wall"], r["user"], r["rss"]) for r in rows["eagle"]] == [(0.1, 0.09, 2.0)]
    assert rows["sparrow"][0]["d"]["jobs"] == 3363
    with pytest.raises(KeyError):
        ss.parse_runs([line("hawk", 1, 1, 1)])


def test_verdict():
    assert ss.verdict(0.2, 0.3, 0.2) == "PASS"
    assert ss.verdict(0.3, 0.2, 0.2) == "FAIL (user CPU passes: machine busy)"
    assert ss.verdict(0.3, 0.25, 0.2) == "FAIL"


def test_report_takes_medians_and_the_largest_rss():
    rows = ss.parse_runs([line("eagle", 0.1, 0.08, 6144), line("eagle", 0.3, 0.1, 2048, peak_rss_mb=7.4),
                          line("eagle", 0.16, 0.09, 4096, sim_seconds=0.07),
                          line("sparrow", 0.08, 0.05, 1024), line("sparrow", 0.04, 0.03, 1024)])
    assert ss.report("YH2_sub", 0.2, rows) == [
        "\n== YH2_sub: 3363 jobs, 41000 tasks, 4000 nodes, eagle, median of 3 run(s)",
        "   wall 0.160 s (user CPU 0.090 s; simulation loop 0.050 s)   target <= 0.2 s: PASS",
        "   events 1,234,567 -> 25.00 M events/s; peak event queue 4,321",
        "   peak RSS 6 MB (/usr/bin/time), 7 MB (VmHWM)   target < 1024 MB: PASS",
        "   baselines in this run: parse 0.020 s -> wall/parse = 8.0x; sparrow wall 0.060 s -> eagle/sparrow = 2.67x",
        "   short p50/p90/p99 = 21.0 70.5 150.0; long = 1500.0 11881.5 14000.0; util 68.8%",
    ]
    big = ss.parse_runs([line("eagle", 25, 19.5, 2 * 1024 * 1024), line("sparrow", 10, 9, 1)])
    out = ss.report("Google-like synthetic", 20, big)
    assert out[1].endswith("target <= 20 s: FAIL (user CPU passes: machine busy)")
    assert out[3].endswith("target < 1024 MB: FAIL")


def test_main_reads_the_runs_file(tmp_path, capsys):
    (tmp_path / "runs.txt").write_text(line("eagle", 0.1, 0.09, 2048) + line("sparrow", 0.05, 0.04, 1024))
    assert ss.main(["YH2_sub", "0.2", str(tmp_path / "runs.txt")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("\n== YH2_sub: 3363 jobs") and "target <= 0.2 s: PASS" in out and out.count("\n") == 7
