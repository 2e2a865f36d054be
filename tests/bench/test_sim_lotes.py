import json
import lzma
import math

import pytest

from bench import sim, sim_lotes as sl


def test_defaults(tmp_path):
    a = sl.parse_args([], str(tmp_path))
    assert (a.quick, a.seeds, a.jobs, a.nodes, a.load, a.machine_scale, a.systems) == \
        (False, 5, 1500000, 5000, 28.0, "0.5", "lotes,tetris,greedy")
    assert a.out == str(tmp_path / "target" / "sim-lotes")
    assert list(vars(a)) == ["quick", "seeds", "jobs", "nodes", "load", "machine_scale", "systems", "out"]


def test_every_task_becomes_a_job_of_its_own(tmp_path):
    lines = ["0.5 2 3.0 2 4\n", "\n", "7 1 10 10\n"]
    assert list(sl.single_task_jobs(lines)) == ["0.5 1 2 2\n", "0.5 1 4 4\n", "7 1 10 10\n"]
    with lzma.open(tmp_path / "g.tr.xz", "wt") as f:
        f.writelines(lines)
    sl.write_singles(str(tmp_path / "g.tr.xz"), str(tmp_path / "singles.tr"))
    assert (tmp_path / "singles.tr").read_text() == "0.5 1 2 2\n0.5 1 4 4\n7 1 10 10\n"
    assert not (tmp_path / "singles.tr.tmp").exists()


def test_traces_are_generated_again_only_when_their_options_change(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(sim, "run", lambda cmd, prog=None: calls.append((cmd, prog)) or "")
    a = sl.parse_args(["--jobs", "100", "--out", str(tmp_path)], str(tmp_path))
    t1 = tmp_path / "goog-lotes-s1.tr"
    (tmp_path / "goog-lotes-s1.tr.demands").write_text("")
    (tmp_path / "goog-lotes-s1.tr.args").write_text("100 5000 28.0")
    (tmp_path / "goog-lotes-s2.tr.args").write_text("100 5000 28.0")      # no .demands: made again
    assert sl.traces(a, "BIN", "like.tr", "cls", [1, 2]) == {1: str(t1), 2: str(tmp_path / "goog-lotes-s2.tr")}
    assert calls == [(["BIN", "-q", "gen", "--like", "like.tr", "--jobs", "100", "--nodes", "5000", "--load", "28.0",
                       "--seed", "2", "--classes", "cls", "--out", str(tmp_path / "goog-lotes-s2.tr")], "sim-lotes")]
    a.load = 3.0
    sl.traces(a, "BIN", "like.tr", "cls", [1])
    assert len(calls) == 2 and (tmp_path / "goog-lotes-s1.tr.args").read_text() == "100 5000 3.0"


def test_a_run_is_reused_while_its_command_is_the_same(tmp_path, monkeypatch):
    runs = []
    monkeypatch.setattr(sim, "run_json", lambda cmd, prog=None: runs.append(prog) or {"response": {"mean": 1.0}})
    path = str(tmp_path / "lotes-s1.json")
    r = sl.cached_run(["BIN", "run", "a"], path)
    assert runs == ["sim-lotes"] and r["cmd"] == ["BIN", "run", "a"] and r["elapsed"] >= 0
    with open(path) as f:
        assert json.load(f) == r
    assert sl.cached_run(["BIN", "run", "a"], path) == r and len(runs) == 1
    sl.cached_run(["BIN", "run", "b"], path)
    assert len(runs) == 2


def rep(mean, p99, long_p50=100.0, plan_s=0.5, offered=0.8):
    return {"response": {"mean": mean, "p50": mean / 2, "p90": mean * 2, "p99": p99},
            "short": {"p50": 1.0, "p99": 9.0}, "long": {"p50": long_p50}, "elapsed": plan_s * 4,
            "plan": {"seconds": plan_s, "bins": 17, "lambda_fluid": 9.87654, "lambda_lp": 8.5, "lambda_rounded": 8.25,
                     "classes_per_config": [2, 3]},
            "machine_count": 6295, "configs": 10, "jobs": 100, "tasks": 100, "offered": [["cpu", offered], ["mem", 0.5]]}


def test_rows_and_the_lotes_lines():
    rows = {"lotes": sl.summarise("lotes", [rep(10.0, 100.0, None, 0.5), rep(20.0, 300.0, 50.0, 0.75)]),
            "tetris": sl.summarise("tetris", [rep(5.0, 0.0), rep(5.0, 0.0)])}
    lo = rows["lotes"]
    assert (lo["mean"], lo["p99"], lo["long_p50"], lo["plan_seconds"], lo["wall"]) == (15.0, 200.0, 50.0, 0.75, 3.0)
    assert lo["per_seed_mean"] == [10.0, 20.0] and "plan" not in rows["tetris"]
    assert math.isnan(sl.summarise("greedy", [rep(1.0, 1.0, None)])["long_p50"])
    assert sl.row_line("lotes", lo) == ("lotes            15.000        200.00     7.500 |       1.0        9.0      50.0 |"
                                        "     3.0  10 20")
    assert sl.lotes_lines(rows) == [
        "lotes / tetris: mean response 3.0000x, p99 n/a (mean of per-seed ratios 3.0000x)",
        "lotes plan: at most 0.750 s (k-means + allocation LP + 17 bins + machine-assignment LP), lambda fluid 9.8765"
        " / LP 8.5000 / rounded 8.2500 tasks/s, |K^j| [2, 3]"]
    assert sl.lotes_lines({"tetris": rows["tetris"]}) == []
    # A light load where nothing waits under the baseline: no ratio, and no ZeroDivisionError.
    idle = {"lotes": lo, "greedy": sl.summarise("greedy", [rep(0.0, 0.0), rep(0.0, 0.0)])}
    assert sl.lotes_lines(idle)[0] == "lotes / greedy: mean response n/a, p99 n/a (mean of per-seed ratios n/a)"


def test_offered_line_means_over_the_seeds():
    results = {("lotes", 1): rep(1.0, 1.0, offered=0.5), ("lotes", 2): rep(1.0, 1.0, offered=0.7)}
    assert sl.offered_line(results, ["lotes"], [1, 2]) == \
        "\n6295 machines in 10 configurations; 100 jobs, 100 tasks per trace; offered cpu 60%, mem 50%"


def test_without_the_source_trace(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    with pytest.raises(SystemExit) as e:
        sl.main(["--quick"], str(root))
    assert e.value.code == "sim-lotes: GOOG_subtrace not found in traces/ or ../shared/traces"
