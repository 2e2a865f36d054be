import datetime as dt
import decimal

from bench import check
from bench.tpch_queries import DESC_KEYS, ORDER_KEYS, PARAMS, query


def test_numbers_match_with_tolerance_across_decimal_and_double():
    got = [("A", decimal.Decimal("532348211.65"), 25.575154)]
    want = [("A", 532348211.65000004, 25.5751546)]
    assert check.compare(got, want)[0]
    assert not check.compare([("A", 1.0, 2.0)], [("A", 1.01, 2.0)])[0]


def test_dates_and_nulls():
    assert check.compare([(dt.date(1995, 3, 15), None)], [("1995-03-15", None)])[0]
    assert not check.compare([(None,)], [(0.0,)])[0]


def test_row_count_and_width():
    ok, msg = check.compare([(1,), (2,)], [(1,)])
    assert not ok and "rows" in msg
    ok, msg = check.compare([(1, 2)], [(1,)])
    assert not ok and "columns" in msg


def test_ties_on_order_keys_may_come_in_any_order():
    want = [(10, "a"), (10, "b"), (5, "c")]
    got = [(10, "b"), (10, "a"), (5, "c")]
    assert check.compare(got, want, order_keys=[0], desc_keys=[0])[0]


def test_order_is_checked_on_order_keys():
    want = [(1, "a"), (2, "b")]
    got = [(2, "b"), (1, "a")]
    ok, msg = check.compare(got, want, order_keys=[0])
    assert not ok and "order column" in msg
    # Without order keys the same rows match as a multiset.
    assert check.compare(got, want)[0]


def test_descending_direction_is_enforced():
    rows = [(3,), (2,), (1,)]
    assert check.compare(rows, rows, order_keys=[0], desc_keys=[0])[0]
    ok, msg = check.compare(rows, rows, order_keys=[0])
    assert not ok and "out of order" in msg


def test_wrong_value_outside_order_keys_is_caught():
    ok, msg = check.compare([(1, "x")], [(1, "y")], order_keys=[0])
    assert not ok and "mismatch" in msg


def test_queries_have_parameters_and_order_metadata():
    for q in range(1, 23):
        sql = query(q, 0.1)
        assert sql.lower().startswith(("select", "with"))
        assert ":" not in sql.replace("::", "")       # every substitution parameter is filled
        assert q in ORDER_KEYS and q in PARAMS
        assert set(DESC_KEYS.get(q, [])) <= set(ORDER_KEYS[q])
    # Q1: DELTA = 90 days before 1998-12-01; Q11 scales FRACTION by 1/SF.
    assert "date '1998-09-02'" in query(1)
    assert "0.0010000000" in query(11, 0.1)
