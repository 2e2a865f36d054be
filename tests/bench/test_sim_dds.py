import math

import pytest

from bench import sim_dds as sd


def test_defaults(tmp_path):
    a = sd.parse_args([], str(tmp_path))
    assert (a.quick, a.seeds, a.nodes, a.penalty, a.congestion) == (False, 3, 5000, 2.0, "13000:26000:10")
    assert a.out == str(tmp_path / "target" / "bench" / "dds" / "sim")
    with pytest.raises(SystemExit) as e:
        sd.parse_args(["--penalty", "x"], str(tmp_path))
    assert e.value.code == 2


def test_congestion_is_three_numbers():
    assert sd.parse_congestion("13000:26000:10") == (13000.0, 26000.0, 10.0)
    with pytest.raises(ValueError):
        sd.parse_congestion("1:2")
    with pytest.raises(ValueError):
        sd.parse_congestion("1:2:x")


def test_command_passes_the_options_through(tmp_path):
    a = sd.parse_args(["--nodes", "100", "--penalty", "1.5", "--congestion", "5:6:7"], str(tmp_path))
    assert sd.command("BIN", "T.tr", a, "fixed:3", 2) == [
        "BIN", "--quiet", "run", "--trace", "T.tr", "--system", "eagle", "--nodes", "100", "--seed", "2",
        "--locality", "fixed:3", "--penalty", "1.5", "--congestion", "5:6:7", "--json"]


def report(short_mean, short_n, long_mean, long_n, intervals, local=0.5, remote=10.0, p=1.0):
    pc = {"p50": p, "p90": 2 * p, "p99": 3 * p}
    return {"short": dict(pc, mean=short_mean, count=short_n), "long": dict(pc, mean=long_mean, count=long_n),
            "locality": {"intervals": intervals, "local_fraction": local, "remote_seconds": remote}}


def test_summarise_weighs_the_means_and_splits_the_waits_at_the_phase():
    rs = [report(10.0, 3, 100.0, 1, [[99.9, 1.0], [100.0, 5.0], [199.9, 7.0], [200.0, 2.0]], 0.4, 10.0, 1.0),
          report(20.0, 1, 40.0, 1, [[0.0, 3.0]], 0.6, 30.0, 3.0)]
    row = sd.summarise("fixed-3s", "fixed:3", rs, [1, 2], 100.0, 200.0)
    assert row["job_mean"] == pytest.approx(((10 * 3 + 100) / 4 + (20 + 40) / 2) / 2)    # 31.25
    assert row["wait_calm"] == 2.0 and row["wait_congested"] == 6.0   # [100, 200): 5 and 7
    assert row["short"] == {"p50": 2.0, "p90": 4.0, "p99": 6.0, "mean": 15.0}
    assert (row["local_fraction"], row["remote_seconds"], row["seeds"]) == (0.5, 20.0, [1, 2])
    none = sd.summarise("dynamic", "dynamic:3:0:10:2", [report(1.0, 1, 1.0, 1, [])], [1], 0.0, 1.0)
    assert math.isnan(none["wait_calm"]) and math.isnan(none["wait_congested"])


def test_table_is_relative_to_the_fixed_3s_wait():
    rows = [sd.summarise(n, m, [report(10.0 * (i + 1), 1, 10.0 * (i + 1), 1, [[0, 1.0]])], [1], 5.0, 6.0)
            for i, (n, m) in enumerate(sd.MODES)]
    lines = sd.table(rows)
    assert lines[0].startswith("\ndelay      short p50     p90     p99    mean | long p50     mean | all mean  vs 3s")
    assert lines[1] == ("fixed-0s         1.0     2.0     3.0    10.0 |      1.0     10.0 |     10.0  0.500 | "
                        "0.500 | 1.00 / nan")
    assert lines[2].split("|")[2] == "     20.0  1.000 "
    assert lines[4].split("|")[2] == "     40.0  2.000 "


def test_rolling_median():
    pts = [[float(t), float(t % 3)] for t in range(10, 0, -1)]
    assert sd.rolling_median(pts, parts=5) == ([1.5, 3.5, 5.5, 7.5, 9.5], [1.5, 0.5, 1.0, 1.5, 0.5])
    assert sd.rolling_median([], 60) == ([], [])
    assert sd.rolling_median([[1.0, 2.0]], 60) == ([1.0], [2.0])


def test_without_the_trace(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    with pytest.raises(SystemExit) as e:
        sd.main(["--quick"], str(root))
    assert e.value.code == "sim-dds: YH2_sub not found in traces/ or ../shared/traces"
