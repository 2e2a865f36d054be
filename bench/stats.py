"""Percentiles and summaries of job completion times (pure Python)."""
from __future__ import annotations

import math
from typing import Iterable, Sequence


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0..100), interpolating linearly between ranks (numpy's default,
    and the reference simulator's). None for an empty sequence. The rank is
    ``(n - 1) * (q / 100)``, in numpy's order: ``(n - 1) * q / 100`` can differ in the last bit."""
    if not 0 <= q <= 100:
        raise ValueError(f"percentile {q} outside [0, 100]")
    xs = sorted(float(v) for v in values)
    if not xs:
        return None
    pos = (len(xs) - 1) * (q / 100.0)
    lo = math.floor(pos)
    hi = math.ceil(pos)
    if lo == hi:
        return xs[lo]
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary(values: Iterable[float]) -> dict:
    """``{"count", "p50", "p90", "p99", "mean"}`` of job completion times (seconds)."""
    xs = [float(v) for v in values]
    out = {"count": len(xs)}
    for q in (50, 90, 99):
        p = percentile(xs, q)
        out[f"p{q}"] = None if p is None else round(p, 4)
    out["mean"] = round(sum(xs) / len(xs), 4) if xs else None
    return out


def mean_of(dicts: Sequence[dict], key: str) -> float | None:
    """Mean of ``d[key]`` over the dicts where it is a number (averaging runs)."""
    vals = [d[key] for d in dicts if isinstance(d.get(key), (int, float))]
    return sum(vals) / len(vals) if vals else None


def ratio(a: float | None, b: float | None) -> float | None:
    if a is None or b is None or b == 0:
        return None
    return a / b
