"""Checking query answers against a reference (DuckDB), pure Python.

Rules:
* values are normalised first: Decimal and numpy numbers become float, dates ISO strings;
* numbers match when ``isclose(a, b, rel_tol=1e-6, abs_tol=1e-4)`` (Spark computes in
  DECIMAL, DuckDB partly in DOUBLE);
* the ORDER BY columns must agree row by row, and be sorted in the query's directions
  (rows that tie on them may come back in any order);
* every row must then match, compared as a multiset.
"""
from __future__ import annotations

import datetime as _dt
import decimal
import math
from typing import Iterable, List, Sequence

REL_TOL = 1e-6
ABS_TOL = 1e-4


def norm_value(v):
    if v is None:
        return None
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, decimal.Decimal):
        return float(v)
    if isinstance(v, (_dt.datetime, _dt.date)):
        return v.isoformat()
    if hasattr(v, "item"):          # numpy scalar
        return norm_value(v.item())
    return str(v)


def norm_rows(rows: Iterable[Sequence]) -> List[list]:
    return [[norm_value(v) for v in row] for row in rows]


def values_equal(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    na, nb = isinstance(a, (int, float)), isinstance(b, (int, float))
    if na and nb:
        if isinstance(a, float) and math.isnan(a) or isinstance(b, float) and math.isnan(b):
            return isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b)
        return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if na or nb:
        return False
    return a == b


def rows_equal(r1: Sequence, r2: Sequence) -> bool:
    return len(r1) == len(r2) and all(values_equal(a, b) for a, b in zip(r1, r2))


def _canon(v):
    if v is None:
        return (0, 0.0, "")
    if isinstance(v, (int, float)):
        return (1, round(float(v), 2), "")
    return (2, 0.0, str(v))


def _cmp(a, b) -> int:
    """-1/0/1 with tolerance for numbers (None sorts first, as in ascending Spark)."""
    if values_equal(a, b):
        return 0
    if a is None:
        return -1
    if b is None:
        return 1
    return -1 if a < b else 1


def compare(got: Sequence[Sequence], want: Sequence[Sequence], order_keys: Sequence[int] = (),
            desc_keys: Sequence[int] = ()) -> tuple[bool, str]:
    """(ok, message) comparing result rows ``got`` with the reference ``want``."""
    got, want = norm_rows(got), norm_rows(want)
    if len(got) != len(want):
        return False, f"{len(got)} rows, expected {len(want)}"
    if got and want and len(got[0]) != len(want[0]):
        return False, f"{len(got[0])} columns, expected {len(want[0])}"
    desc = set(desc_keys)
    for i, (g, w) in enumerate(zip(got, want)):
        for k in order_keys:
            if not values_equal(g[k], w[k]):
                return False, f"row {i}: order column {k} is {g[k]!r}, expected {w[k]!r}"
    for i in range(1, len(got)):
        for k in order_keys:
            c = _cmp(got[i - 1][k], got[i][k])
            if k in desc:
                c = -c
            if c < 0:
                break
            if c > 0:
                return False, f"rows {i - 1} and {i} are out of order on column {k}"
    gs = sorted(got, key=lambda r: [_canon(v) for v in r])
    ws = sorted(want, key=lambda r: [_canon(v) for v in r])
    for i, (g, w) in enumerate(zip(gs, ws)):
        if not rows_equal(g, w):
            return False, f"row mismatch: got {g!r}, expected {w!r}"
    return True, f"{len(got)} rows match"
