"""Progress lines for long benchmark phases: ``3/9 done, 4m10s elapsed, ETA 8m20s``.

Pure helpers (no bench imports): :func:`eta` formats one line; :class:`Steps` numbers the
steps of a phase (applications, tables, queries) and logs each start with the elapsed time
and, once a step has finished, an ETA from the mean duration of the finished ones.
"""
from __future__ import annotations

import time


def fmt_seconds(s: float) -> str:
    """``42s``, ``4m10s``, ``1h02m``."""
    s = max(0, int(round(s)))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


def eta(done: int, total: int, elapsed: float) -> str:
    """``done/total done, <elapsed> elapsed[, ETA <remaining>]``: the ETA assumes the
    remaining steps take as long as the finished ones on average (none when nothing is
    finished yet, or everything is)."""
    line = f"{done}/{total} done, {fmt_seconds(elapsed)} elapsed"
    if 0 < done < total:
        line += f", ETA {fmt_seconds(elapsed / done * (total - done))}"
    return line


class Steps:
    """``steps = Steps(len(items), log, "application")``; ``steps.start(label)`` before each
    step logs ``application 2/3: <label> (1/3 done, 4m10s elapsed, ETA 8m20s)``;
    ``steps.finish()`` after the last one logs the total. With ``every`` (seconds), a start
    is logged only when that long has passed since the last line (the first always is), so
    that many quick steps do not flood the log."""

    def __init__(self, total: int, log, what: str, every: float = 0.0, clock=time.time):
        self.total, self.log, self.what, self.every, self.clock = total, log, what, every, clock
        self.t0 = clock()
        self.started = 0
        self.last = None

    def start(self, label: str) -> None:
        done = self.started
        self.started += 1
        now = self.clock()
        if self.last is not None and now - self.last < self.every:
            return
        self.last = now
        self.log(f"{self.what} {self.started}/{self.total}: {label} "
                 f"({eta(done, self.total, now - self.t0)})")

    def finish(self) -> None:
        self.log(f"{self.what}s: {eta(self.total, self.total, self.clock() - self.t0)}")
