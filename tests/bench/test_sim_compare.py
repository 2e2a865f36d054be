import pytest

from bench import sim_compare as sc

REF_LINES = [
    "GOOG_subtrace  5000 Eagle    short(n=9097) p50/90/99 =  14484.03  63887.05  71863.42 | long(n=903) =  19015.96  33657.26  75516.81 | util 34.5% | user-cpu 129.0s\n",
    "YH2_sub   4000 Eagle    short(n=3026) p50/90/99 =     24.00     71.35    154.33 | long(n=337) =   1526.00  11881.51  13968.26 | util 68.8% | user-cpu 11.0s\n",
    "YH2_sub   4000 Hawk     short(n=3026) p50/90/99 =    213.87    649.00    930.54 | long(n=337) =   1525.50  11881.93  14007.93 | util 68.8% | user-cpu 10.8s\n",
    "some prose that matches neither form\n",
    "YH2_sub   Eagle    short p50/90/99 = 24.00 71.67 149.24 | long = 1526.00 11865.76 14025.29\n",
    "YH2_sub   DLWL     short p50/90/99 = 28.00 80.00 240.00 | long = 1446.30 5931.40 13676.09\n",
]


def test_defaults_and_choices(tmp_path):
    a = sc.parse_args([], str(tmp_path))
    assert (a.seeds, a.quick, a.clwl, a.jobs, a.only) == (5, False, False, 2, None)
    assert a.out == str(tmp_path / "target" / "sim-compare")
    assert a.bin == str(tmp_path / "target" / "release" / "eagle-sim")
    with pytest.raises(SystemExit) as e:
        sc.parse_args(["--only", "fb"], str(tmp_path))
    assert e.value.code == 2


def test_systems_experiments_and_pairs():
    assert sc.systems(False) == ["eagle", "hawk", "sparrow", "dlwl", "eagle-adaptive"]
    assert sc.systems(True)[-2:] == ["clwl", "eagle-adaptive"]
    assert sc.experiments("yahoo") == [("YH2_sub", 3000), ("YH2_sub", 4000), ("YH2_sub", 5000)]
    assert sc.experiments("google") == [("GOOG_subtrace", 5000), ("GOOG_subtrace", 8000)]
    assert len(sc.experiments(None)) == 5
    assert sc.pairs(True)[-1] == ("eagle", "clwl") and len(sc.pairs(False)) == 3


def test_reference_single_runs_and_the_means_that_replace_them():
    ref = sc.parse_reference(REF_LINES)
    assert set(ref) == {("GOOG_subtrace", 5000, "eagle"), ("YH2_sub", 4000, "eagle"), ("YH2_sub", 4000, "hawk"),
                        ("YH2_sub", 4000, "dlwl")}
    g = ref[("GOOG_subtrace", 5000, "eagle")]
    assert g == {"short": [14484.03, 63887.05, 71863.42], "long": [19015.96, 33657.26, 75516.81],
                 "util": 0.345, "src": "1 run"}
    e = ref[("YH2_sub", 4000, "eagle")]
    assert e["short"] == [24.0, 71.67, 149.24] and e["src"] == "mean seeds 1-3" and e["util"] == 0.688
    assert ref[("YH2_sub", 4000, "hawk")]["src"] == "1 run"
    assert ref[("YH2_sub", 4000, "dlwl")]["util"] is None     # a mean without a single run before it


def test_load_reference_without_and_with_the_file(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    assert sc.load_reference(str(root)) == ({}, None)
    (tmp_path / "shared" / "docs").mkdir(parents=True)
    path = tmp_path / "shared" / "docs" / "REFERENCE_RESULTS.md"
    path.write_text("".join(REF_LINES))
    ref, p = sc.load_reference(str(root))
    assert p == str(path) and len(ref) == 4


def run(short, long_, util=0.5, sim_s=1.0):
    return {"short": dict(zip(sc.PCTS, short)), "long": dict(zip(sc.PCTS, long_)), "utilization": util,
            "perf": {"sim_seconds": sim_s}}


def test_mean_over_seeds_leaves_out_missing_percentiles():
    o = sc.mean_over_seeds([run([1, 2, 3], [10, 20, None], 0.5, 1.0), run([3, 4, 5], [30, 40, 50], 0.7, 2.0)])
    assert o == {"short": [2, 3, 4], "long": [20, 30, 50], "util": 0.6, "sim_seconds": 1.5}


def test_ratios_and_cells():
    assert sc.ratios([1, 2, None, 4], [2, 0, 1, None]) == [0.5, None, None, None]
    assert sc.fmt(None, 9, 3) == "        -" and sc.fmt(1.23456, 9, 3) == "    1.235"
    assert sc.fmt(12.345, 10) == "     12.35"


def test_tables():
    exps, syss = [("YH2_sub", 4000)], ["eagle", "hawk", "eagle-adaptive"]
    ours = {("YH2_sub", 4000, "eagle"): {"short": [20.0, 80.0, 150.0], "long": [1500.0, 12000.0, None], "util": 0.688,
                                         "sim_seconds": 0.12},
            ("YH2_sub", 4000, "hawk"): {"short": [200.0, 650.0, 1000.0], "long": [1500.0, 12000.0, 14000.0],
                                        "util": 0.69, "sim_seconds": 0.1},
            ("YH2_sub", 4000, "eagle-adaptive"): {"short": [10.0, 40.0, 75.0], "long": [750.0, 6000.0, 7000.0],
                                                  "util": 0.7, "sim_seconds": 0.2}}
    ref = {("YH2_sub", 4000, "eagle"): {"short": [24.0, 71.0, 150.0], "long": [1500.0, 12000.0, 14000.0],
                                        "util": None, "src": "mean seeds 1-3"},
           ("YH2_sub", 4000, "hawk"): {"short": [200.0, 650.0, 1000.0], "long": [1500.0, 12000.0, 14000.0],
                                       "util": 0.688, "src": "1 run"}}
    lines = sc.percentiles_table(exps, syss, ours, ref, [1, 2], "REF.md")
    assert lines[0] == "\n# Mean percentiles over seeds 1..2 (ours) vs reference (REF.md)"
    assert lines[2] == ("YH2_sub         4000 Eagle    ours      20.00      80.00     150.00 |    1500.00"
                        "   12000.00          - | 68.8%   0.12")
    assert lines[3].endswith("|     - (mean seeds 1-3)")          # no utilisation in a mean line
    assert lines[5].endswith("| 68.8% (1 run)")
    assert len(lines) == 7                                          # adaptive: no reference line

    table, flagged = sc.ratios_table(exps, [("eagle", "hawk")], ours, ref)
    assert table[2] == "YH2_sub         4000 Eagle/Hawk     ours     0.100     0.123     0.150 |     1.000     1.000         -"
    assert table[3] == " " * 36 + "ref      0.120     0.109     0.150 |     1.000     1.000     1.000"
    # short p50 0.100 / 0.120 - 1 = -17 % (starred), p90 +13 %; long p99: ours is missing.
    assert table[4] == (" " * 36 + "dev  " + "    -17%*" + " " + "    +13% " + " " + "     +0% " + " | "
                        + "     +0% " + " " + "     +0% " + " " + "    -    ")
    assert flagged == ["YH2_sub 4000 Eagle/Hawk short p50: ours 0.100 ref 0.120 (-17%)"]
    assert len(table) == 5
    # Without both reference entries there is no ref and no dev line.
    assert len(sc.ratios_table(exps, [("eagle", "hawk")], ours, {})[0]) == 3

    ad = sc.adaptive_table(exps, ours)
    assert ad[2] == "YH2_sub         4000 Adaptive/Hawk        0.050     0.062     0.075 |     0.500     0.500     0.500"
    assert ad[3].startswith("YH2_sub         4000 Adaptive/Eagle       0.500     0.500     0.500 |     0.500     0.500")
    assert ad[3].endswith("        -")


def test_a_missing_trace_ends_the_run_with_the_folders_looked_in(tmp_path, capsys):
    root = tmp_path / "repo"
    root.mkdir()
    with pytest.raises(SystemExit) as e:
        sc.main(["--quick", "--only", "google", "--bin", "/nonexistent"], str(root))
    assert e.value.code == (f"sim-compare: trace GOOG_subtrace not found in traces/ or {tmp_path}/shared/traces "
                            "(run scripts/traces.sh)")
    assert capsys.readouterr().err == "sim-compare: 10 runs (1 seed(s)), 2 at a time\n"
    assert not (root / "target").exists()
