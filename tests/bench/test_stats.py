import pytest

from bench import stats


def test_percentile_interpolates_linearly_between_ranks():
    xs = [1, 2, 3, 4]
    assert stats.percentile(xs, 0) == 1
    assert stats.percentile(xs, 100) == 4
    assert stats.percentile(xs, 50) == pytest.approx(2.5)
    assert stats.percentile(xs, 90) == pytest.approx(3.7)
    assert stats.percentile([5.0], 99) == 5.0
    assert stats.percentile([], 50) is None


def test_percentile_ignores_input_order():
    assert stats.percentile([10, 1, 7, 3], 75) == stats.percentile([1, 3, 7, 10], 75)


def test_percentile_rejects_out_of_range():
    with pytest.raises(ValueError):
        stats.percentile([1], 101)


def test_summary_fields():
    s = stats.summary(range(1, 101))
    assert s["count"] == 100
    assert s["p50"] == pytest.approx(50.5)
    assert s["p99"] == pytest.approx(99.01)
    assert s["mean"] == pytest.approx(50.5)
    assert stats.summary([]) == {"count": 0, "p50": None, "p90": None, "p99": None, "mean": None}


def test_mean_of_and_ratio():
    assert stats.mean_of([{"p": 1}, {"p": 3}, {"p": None}], "p") == 2
    assert stats.mean_of([], "p") is None
    assert stats.ratio(1, 2) == 0.5
    assert stats.ratio(1, 0) is None
    assert stats.ratio(None, 2) is None


def test_percentile_rank_is_n_minus_1_times_q_over_100_to_the_bit():
    # numpy's order of operations: (n - 1) * (q / 100). (n - 1) * q / 100 differs in the last
    # bit for one n in five at q = 90, and sim-eirene's figures were computed this way.
    for n in range(1, 400):
        xs = [1.0 + (i * 7919 % n) * 0.37 for i in range(n)]
        s = sorted(xs)
        for q in (50, 75, 90, 99):
            k = (n - 1) * (q / 100)
            lo, hi = int(k), min(int(k) + 1, n - 1)
            assert stats.percentile(xs, q) == s[lo] + (s[hi] - s[lo]) * (k - lo), (n, q)
