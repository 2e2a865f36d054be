import math
import os

import pytest

from bench import sim_eirene as se


def test_defaults(tmp_path):
    a = se.parse_args([], str(tmp_path))
    assert (a.seeds, a.quick, a.only, a.google_sizes, a.fb_jobs, a.jobs) == (5, False, None, None, 30000, 2)
    assert a.out == str(tmp_path / "target" / "sim-eirene")
    assert a.bin == str(tmp_path / "target" / "release" / "eagle-sim")


def test_google_sizes():
    assert list(se.google_sizes(None)) == [4400, 7500] and list(se.google_sizes("")) == [4400, 7500]
    assert se.google_sizes("3000,12000") == [3000, 12000]
    with pytest.raises(SystemExit) as e:
        se.google_sizes("3000,x")
    assert e.value.code == "sim-eirene: --google-sizes must be a comma list of node counts, got '3000,x'"
    with pytest.raises(SystemExit) as e:
        se.google_sizes("0,5")
    assert e.value.code == "sim-eirene: --google-sizes must be node counts >= 1, got '0,5'"


def test_short_percentiles_from_a_jobs_file():
    lines = ["0 0.0 short 4.0\n", "1 1.0 long 900.0\n", "2 2.0 short 1.0\n", "3 3.0 short 2.0\n", "4 4.0 short 3.0\n"]
    assert se.short_percentiles(lines) == [2.5, 3.25, pytest.approx(3.7)]
    assert all(math.isnan(p) for p in se.short_percentiles(["1 1.0 long 9.0\n"]))


def test_short_percentiles_match_the_former_formula_to_the_bit():
    def pct(xs, q):                 # the formula sim-eirene's published figures came from
        xs = sorted(xs)
        k = (len(xs) - 1) * q
        lo = int(k)
        hi = min(lo + 1, len(xs) - 1)
        return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

    for n in range(1, 300):
        times = [1.0 + (i * 104729 % 997) / 7.0 for i in range(n)]
        lines = [f"{i} 0.0 short {t!r}\n" for i, t in enumerate(times)]
        assert se.short_percentiles(lines) == [pct(times, q) for q in (0.5, 0.75, 0.9)], n


def res(p, util=0.8, wall=1.0, helped=0):
    return {"p": p, "util": util, "wall": wall,
            "counters": {"ccdm_helped": helped, "migrations": 0, "clones_launched": 4, "clones_won": 2, "clones_wasted": 1}}


def test_summarise_normalises_to_eagle():
    base = [res([10.0, 20.0, 40.0], 0.6), res([30.0, 40.0, 0.0], 0.8)]
    row = se.summarise("YH2_sub", 3500, base, "ccdm", [res([10.0, 15.0, 1.0], wall=2.0, helped=3),
                                                       res([10.0, 15.0, 1.0], wall=5.0, helped=4)])
    assert row["eagle_short"] == [20.0, 30.0, 20.0] and row["eagle_util"] == 0.7
    assert row["normalised"] == [0.5, 0.5, 0.05]
    assert row["counters"]["ccdm_helped"] == 3.5 and row["max_wall_seconds"] == 5.0
    zero = se.summarise("x", 1, [res([0.0, 1.0, 1.0])], "satc", [res([1.0, 1.0, 1.0])])
    assert math.isnan(zero["normalised"][0]) and zero["normalised"][1:] == [1.0, 1.0]
    assert se.row_line(row) == ("YH2_sub          3500  0.70 ccdm     0.500  0.500  0.050         4        4       2 "
                                "      1     5.0")
    assert se.base_line(row["eagle_short"]) == " " * 28 + "eagle short P50/P75/P90 = 20.0 / 30.0 / 20.0 s"


def test_experiments_use_the_traces_found_and_an_existing_fb_trace(tmp_path):
    root = tmp_path / "repo"
    (root / "traces").mkdir(parents=True)
    (root / "traces" / "YH2_sub.tr").write_text("")
    out = tmp_path / "out"
    out.mkdir()
    (out / "fb_like_100.tr").write_text("")
    a = se.parse_args(["--fb-jobs", "100", "--out", str(out), "--bin", "/nonexistent"], str(root))
    a.only = "yahoo"
    assert se.experiments(a, str(root)) == [("YH2_sub", str(root / "traces" / "YH2_sub.tr"), n, []) for n in (3500, 6000)]
    a.only = "fb"     # the trace is there: no gen (the binary does not exist)
    assert se.experiments(a, str(root)) == [("FB-like", str(out / "fb_like_100.tr"), n, ["--cutoff", "76.6"])
                                            for n in (50000, 90000)]
    a.only = "google"
    with pytest.raises(SystemExit) as e:
        se.experiments(a, str(root))
    assert e.value.code == f"sim-eirene: trace GOOG_subtrace not found in traces/ or {tmp_path}{os.sep}shared{os.sep}traces"
