"""Reliability at small sizes: stop with tasks in flight, and a short soak (second tier).

Both run `scripts/stress` (EagleStress, in the benchmark jar next to the plugin jar) in its own JVM, so a crash of the
driver (SIGSEGV, glibc abort on a corrupted heap) fails the test instead of the session.
`scripts/stress stopcycles 200` and `scripts/stress soak` are the full-size benchmarks.
"""
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def stress(tmp_path, *args, timeout=600):
    env = dict(os.environ, STRESS_OUT=str(tmp_path), STRESS_DRIVER_MEMORY="1g")
    p = subprocess.run(["bash", os.path.join(ROOT, "scripts/stress"), *map(str, args)],
                       cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    lines = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    return p, lines


def test_stop_with_tasks_in_flight_and_a_native_call_held_open(tmp_path):
    # debug.holdCallMs=50: every native taskFinished holds the engine 50 ms, so each stop
    # lands while the status-update thread is inside native code. Before the fix, destroy
    # freed the engine under that call (use-after-free: "corrupted double-linked list",
    # exit 134, or the call's canary check failing).
    p, lines = stress(tmp_path, "stopcycles", 10, 50)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
    result = lines[-1]
    assert result["result"] == "ok" and result["cycles"] == 10, result
    assert all(l["failure"] == "" for l in lines if "cycle" in l), lines
    assert not [f for f in os.listdir(tmp_path) if f.startswith("hs_err")]


@pytest.mark.full
def test_small_soak_keeps_the_summary_bounded(tmp_path):
    # 400 jobs of 50 tasks with summary.maxTaskSets=50: the summary keeps at most 50 task
    # sets and 50 jobs while its total counts every task set.
    p, lines = stress(tmp_path, "soak", 20000, 400, 50)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-3000:]
    points = [l for l in lines if "progress" in l]
    assert [l["progress"] for l in points] == [10, 25, 50, 75, 100], lines
    for l in points:
        assert l["summaryTaskSets"] <= 50 and l["summaryJobs"] <= 50, l
        assert not l["engineFallback"], l
    assert points[-1]["summaryTaskSetsTotal"] == 400, points[-1]
    assert lines[-1]["tasks"] == 20000, lines[-1]
    with open(tmp_path / "soak-summary.json") as f:
        summary = json.load(f)
    assert len(summary["taskSets"]) <= 50 and len(summary["jobs"]) <= 50
    assert summary["taskSetsTotal"] == 400 and summary["jobsTotal"] == 400, summary["taskSetsTotal"]
    assert summary["taskSetsDropped"] == 400 - len(summary["taskSets"])
    # The overall locality mix still counts every launch (20,000 tasks, retries aside).
    assert sum(summary["locality"]["launches"].values()) >= 20000
