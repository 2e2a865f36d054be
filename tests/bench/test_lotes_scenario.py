"""The lotes scenario's pure parts (no Spark): the mixed-profile workload, the job waits read
from an event log, and the testbed's --cores-list validation."""
import json
import os
import subprocess

from bench import lotes
from bench.harness import ROOT


def test_workload_is_deterministic_mixed_and_at_the_asked_load():
    a = lotes.workload(1, 400, 8, 0.9)
    assert a == lotes.workload(1, 400, 8, 0.9)
    assert a != lotes.workload(2, 400, 8, 0.9)
    assert {j["cpus"] for j in a} == {1, 2, 4}
    for j in a:
        lo, hi = lotes.TASKS[j["cpus"]]
        assert lo <= j["tasks"] <= hi and 1.0 <= j["duration_s"] <= 3.0
    arrivals = [j["arrival_s"] for j in a]
    assert arrivals == sorted(arrivals) and arrivals[0] == 0.0
    work = sum(j["cpus"] * j["tasks"] * j["duration_s"] for j in a)
    offered = work / arrivals[-1] / 8
    assert abs(offered - 0.9) < 0.01, offered
    assert abs(lotes.offered(lotes.workload(1, 40, 8, 0.9), 8) - 0.9) < 0.01


def test_job_wait_is_first_launch_minus_submission(tmp_path):
    ev = [
        {"Event": "SparkListenerJobStart", "Job ID": 0, "Submission Time": 1000, "Stage IDs": [0],
         "Properties": {"bench.plan": "s1", "bench.job": "0"}},
        {"Event": "SparkListenerJobStart", "Job ID": 1, "Submission Time": 1500, "Stage IDs": [1],
         "Properties": {"bench.plan": "s1", "bench.job": "1"}},
        {"Event": "SparkListenerJobStart", "Job ID": 2, "Submission Time": 1500, "Stage IDs": [2],
         "Properties": {"bench.class": "warmup"}},
        {"Event": "SparkListenerTaskStart", "Stage ID": 0, "Task Info": {"Launch Time": 1250}},
        {"Event": "SparkListenerTaskStart", "Stage ID": 0, "Task Info": {"Launch Time": 1200}},
        {"Event": "SparkListenerTaskStart", "Stage ID": 1, "Task Info": {"Launch Time": 4500}},
        {"Event": "SparkListenerTaskStart", "Stage ID": 2, "Task Info": {"Launch Time": 1600}},
    ]
    p = tmp_path / "log"
    p.write_text("\n".join(json.dumps(e) for e in ev) + "\n{trunc")
    assert lotes.job_waits([str(p)]) == {("s1", 0): 0.2, ("s1", 1): 3.0}


def test_testbed_rejects_a_cores_list_that_does_not_match_the_workers():
    script = os.path.join(ROOT, "scripts", "testbed.sh")
    r = subprocess.run(["bash", script, "status", "--workers", "3", "--cores-list", "4,1"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--cores-list has 2 entries for --workers 3" in r.stderr, r.stderr
    r = subprocess.run(["bash", script, "status", "--workers", "2", "--cores-list", "4,x"],
                       capture_output=True, text=True)
    assert r.returncode == 2 and "--cores-list must be positive integers" in r.stderr, r.stderr
