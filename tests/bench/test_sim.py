import json
import math
import os
import sys
import time

import pytest

from bench import sim


def test_binary_and_seeds():
    assert sim.binary("/r") == "/r/target/release/eagle-sim"
    assert sim.seed_list(False, 3) == [1, 2, 3]
    assert sim.seed_list(True, 3) == [1]
    assert sim.seed_list(False, 0) == []
    assert sim.ROOT == os.path.dirname(os.path.dirname(os.path.abspath(sim.__file__)))


def test_run_returns_stdout_and_parses_json():
    assert sim.run([sys.executable, "-c", "print('out')"], "sim-x") == "out\n"
    assert sim.run_json([sys.executable, "-c", "print('{\"a\": [1, null]}')"]) == {"a": [1, None]}


def test_a_failed_run_names_the_command_and_its_stderr():
    cmd = [sys.executable, "-c", "import sys; sys.stderr.write('boom\\n'); sys.exit(3)"]
    with pytest.raises(SystemExit) as e:
        sim.run(cmd, "sim-x")
    assert e.value.code == f"sim-x: {' '.join(cmd)} failed:\nboom\n"
    with pytest.raises(RuntimeError) as e:
        sim.run(cmd)
    assert str(e.value) == f"{' '.join(cmd)} failed:\nboom\n"


def test_pool_yields_in_task_order_whatever_finishes_first():
    order = []

    def fn(name, delay):
        time.sleep(delay)
        order.append(name)
        return name.upper()

    tasks = [("a", 0.15), ("b", 0.0), ("c", 0.0)]
    assert list(sim.pool(fn, tasks, 2)) == [(("a", 0.15), "A"), (("b", 0.0), "B"), (("c", 0.0), "C")]
    assert order[0] == "b"       # b finished first, yet came out second


def test_runs_done_line():
    assert sim.runs_done("sim-dds", 3, 12, "dynamic seed 1", 41.6) == \
        "sim-dds: 3/12 runs done (dynamic seed 1), 42 s elapsed, ETA 125 s"
    assert sim.runs_done("sim-compare", 12, 12, "x", 100.0).endswith("100 s elapsed, ETA 0 s")


def test_mean_is_exact_and_nan_for_nothing():
    assert math.isnan(sim.mean([]))
    assert sim.mean(iter([1, 2])) == 1.5
    xs = [0.1, 0.2, 0.3]
    assert sim.mean(xs) == 0.2 and sum(xs) / 3 != 0.2     # statistics.mean, not sum / len


def test_write_results_makes_the_folder(tmp_path):
    path = sim.write_results(str(tmp_path / "a" / "b"), {"x": [1.5, None]})
    assert path == str(tmp_path / "a" / "b" / "results.json")
    with open(path) as f:
        text = f.read()
    assert json.loads(text) == {"x": [1.5, None]} and text.startswith('{\n "x": [\n  1.5')
