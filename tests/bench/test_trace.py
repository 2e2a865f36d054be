import math
import os
import statistics

import pytest

from bench import trace

LINES = [
    "0.0 4 10.0 8 9 11 12",          # short (Yahoo cutoff 90.58)
    "1.0 2 20.0 10 30",
    "2.0 8 500.0 " + " ".join(["500"] * 8),   # long
    "3.0 1 91.9 91.9",               # int(91.9) = 91 > 90.58: long
    "4.0 1 90.9 90.9",               # int(90.9) = 90: short
]


def jobs():
    return trace.parse_lines(LINES)


def test_parse_and_validate():
    js = jobs()
    assert len(js) == 5 and js[2].durations == (500.0,) * 8 and js[0].mean == 10.0
    with pytest.raises(ValueError, match="3 tasks announced, 2 durations"):
        trace.parse_lines(["0 3 1.0 1 1"])
    with pytest.raises(ValueError, match="no jobs"):
        trace.parse_lines(["", "  "])


def test_class_follows_reference_truncation():
    cut = trace.CUTOFFS["YH"]
    assert [trace.job_class(j.mean, cut) for j in jobs()] == ["short", "short", "long", "long", "short"]


def test_cutoff_by_trace_family():
    assert trace.cutoff_for("/x/YH2_sub.tr.xz") == pytest.approx(90.5811)
    assert trace.cutoff_for("GOOG_subtrace.tr") == pytest.approx(1129.532)
    with pytest.raises(ValueError):
        trace.cutoff_for("other.tr")


def test_pick_durations_keeps_the_jobs_own_values():
    d = [1, 2, 3, 4, 5, 6, 7, 8]
    assert trace.pick_durations(d, 8) == d
    assert trace.pick_durations(d, 4) == [1, 3, 5, 7]
    assert trace.pick_durations(d, 1) == [1]
    assert trace.scaled_count(8, 0.01) == 1
    assert trace.scaled_count(100, 0.25) == 25


def test_task_scale_makes_the_average_job_one_cluster_wave():
    js = jobs()
    for slots in (4, 16):
        f = trace.task_scale_factor(js, slots)
        target = slots * trace.mean_task_runtime(js)
        # Rounding makes work a step function of f; the bisection lands on the first step >= target.
        assert trace.mean_job_work(js, f) >= target * 0.999
        assert trace.mean_job_work(js, f * 0.98) < target * 1.001 or f == 0


def test_workload_load_is_one_over_ratio_and_arrivals_are_poisson():
    js = jobs()
    n = 4000
    w = trace.build_workload(js, slots=8, ratio=1.25, n_jobs=n, seed=7, cutoff_s=90.5811)
    m = w["meta"]
    # Task counts are integers, so the load lands on the first step at or above 1/ratio.
    assert 1 / 1.25 <= m["nominal_load"] <= 1 / 1.25 * 1.05
    arr = [j["arrival_s"] for j in w["jobs"]]
    assert arr == sorted(arr) and arr[0] > 0
    gaps = [b - a for a, b in zip([0.0] + arr, arr)]
    mean_gap = statistics.mean(gaps)
    assert mean_gap == pytest.approx(m["mean_interarrival_s"], rel=0.06)
    # Exponential: standard deviation close to the mean.
    assert statistics.pstdev(gaps) == pytest.approx(mean_gap, rel=0.1)
    # Seconds become milliseconds; the estimate is the trace's mean, truncated.
    assert m["mean_interarrival_s"] == pytest.approx(1.25 * m["mean_task_runtime_s"])
    assert m["mean_task_runtime_s"] == pytest.approx(trace.mean_task_runtime(js) / 1000, rel=0.1)
    for j in w["jobs"]:
        assert all(isinstance(d, int) and d >= 1 for d in j["durations_ms"])
        assert j["class"] in ("short", "long")
        assert j["estimate_ms"] >= 1
    assert m["short_jobs"] + m["long_jobs"] == n


def test_workload_is_deterministic_per_seed():
    js = jobs()
    a = trace.build_workload(js, slots=4, ratio=2.0, n_jobs=50, seed=3, cutoff_s=90.5811)
    b = trace.build_workload(js, slots=4, ratio=2.0, n_jobs=50, seed=3, cutoff_s=90.5811)
    c = trace.build_workload(js, slots=4, ratio=2.0, n_jobs=50, seed=4, cutoff_s=90.5811)
    assert a == b and a != c


def test_higher_ratio_spreads_arrivals():
    js = jobs()
    a = trace.build_workload(js, slots=4, ratio=1.2, n_jobs=500, seed=1, cutoff_s=90.5811)
    b = trace.build_workload(js, slots=4, ratio=2.0, n_jobs=500, seed=1, cutoff_s=90.5811)
    assert b["jobs"][-1]["arrival_s"] == pytest.approx(a["jobs"][-1]["arrival_s"] * 2.0 / 1.2, rel=1e-6)


def test_real_trace_if_present():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "traces", "YH_small.tr")
    if not os.path.exists(path):
        pytest.skip("shared traces not present next to the repository")
    js = trace.load_trace(path)
    assert len(js) == 10 and len(js[0].durations) == 51
    assert math.isclose(js[0].mean, 15.9488927468)


def test_find_prefers_the_checkout_traces_then_the_shared_folder(tmp_path):
    root = tmp_path / "repo"
    (root / "traces").mkdir(parents=True)
    (tmp_path / "shared" / "traces").mkdir(parents=True)
    assert trace.shared_dir(str(root)) == str(tmp_path / "shared")
    assert trace.find(str(root), "YH2_sub") is None
    (tmp_path / "shared" / "traces" / "YH2_sub.tr.xz").write_bytes(b"")
    assert trace.find(str(root), "YH2_sub") == str(tmp_path / "shared" / "traces" / "YH2_sub.tr.xz")
    (root / "traces" / "YH2_sub.tr").write_text("")
    assert trace.find(str(root), "YH2_sub") == str(root / "traces" / "YH2_sub.tr")
    assert trace.find(str(root), "GOOG_subtrace") is None


def test_open_text_reads_plain_and_xz_alike(tmp_path):
    import lzma
    text = "\n".join(LINES) + "\n"
    (tmp_path / "t.tr").write_text(text)
    with lzma.open(tmp_path / "t.tr.xz", "wt") as f:
        f.write(text)
    for name in ("t.tr", "t.tr.xz"):
        with trace.open_text(str(tmp_path / name)) as f:
            assert f.read() == text
    assert trace.load_trace(str(tmp_path / "t.tr.xz")) == jobs()
