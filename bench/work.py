"""What the tasks of a run cost, per class, from its Spark event log: CPU, GC and cold starts.

On a CPU-bound testbed the schedulers differ less in how long each task waits than in how
much work they make the executors do (docs/results.md, the TPC-H
row). A task set's first task on an executor fetches and deserialises the task
binary and broadcasts, and compiles generated code; the tasks started there before one has
ended all pay it (eagle-core's ``warmup`` module uses the same definition). So every run's
``result.json`` gets ``"work"``:

- ``by_class``: per job class (``bench.class``), the tasks, their executor CPU time
  (including deserialisation), JVM GC time and run time, in seconds;
- ``cold``: per class, the cold tasks by why they were cold when they started:
  ``first`` (the stage attempt's first task), ``widen`` (a new executor while the stage ran
  elsewhere), ``warming`` (another task of the stage was starting cold on the same
  executor), ``restart`` (nothing of the stage was running; its earlier tasks had ended on
  other executors); and ``warm``, the others;
- ``pairs``: per class, the (stage attempt, executor) pairs, each of which paid a warm-up.

The driver is not in the event log, yet on a shared machine its CPU is the executors' loss:
:func:`process_cpu_seconds` reads a process's CPU time, and the driver records its own JVM's
per replay and per TPC-H phase (``driver_cpu_s`` in ``result.json`` and in the results),
so a scheduler's cost in the driver is measured beside the tasks' work.
"""
from __future__ import annotations

import os

from .eventlog import events


def process_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time (s) of process ``pid`` so far, from ``/proc/<pid>/stat``;
    None where that cannot be read (another OS, a process gone)."""
    try:
        with open(f"/proc/{int(pid)}/stat") as f:
            stat = f.read()
        # The command name (field 2) is in parentheses and may hold spaces: count after it.
        fields = stat[stat.rindex(")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None

KINDS = ("first", "widen", "warming", "restart", "warm")


def _classify(tasks):
    """``tasks``: one stage attempt's ``(launch, finish, executor)``. Yields each task's kind."""
    tasks = sorted(tasks)
    first_end = {}
    for t0, t1, ex in tasks:
        first_end[ex] = min(first_end.get(ex, t1), t1)
    for i, (t0, t1, ex) in enumerate(tasks):
        if t0 >= first_end[ex]:
            yield "warm"
        elif i == 0:
            yield "first"
        else:
            running = [u for u in tasks[:i] if u[1] > t0]
            if any(u[2] == ex for u in running):
                yield "warming"
            elif running:
                yield "widen"
            else:
                yield "restart"


def summarize(path) -> dict:
    """``{"by_class": {...}, "cold": {...}, "pairs": {...}}`` (see the module doc) from an event
    log: one file or the parts of a rolling log, as :func:`bench.eventlog.find_log` returns."""
    stage_class = {}
    by_class, attempts = {}, {}
    for ev in events(path):
        kind = ev.get("Event")
        if kind == "SparkListenerJobStart":
            cls = (ev.get("Properties") or {}).get("bench.class", "unknown")
            for s in ev.get("Stage IDs", []):
                stage_class[s] = cls
        elif kind == "SparkListenerTaskEnd":
            info, m = ev.get("Task Info") or {}, ev.get("Task Metrics") or {}
            cls = stage_class.get(ev.get("Stage ID"), "unknown")
            c = by_class.setdefault(cls, {"tasks": 0, "cpu_s": 0.0, "gc_s": 0.0, "run_s": 0.0})
            c["tasks"] += 1
            c["cpu_s"] += (m.get("Executor CPU Time", 0) + m.get("Executor Deserialize CPU Time", 0)) / 1e9
            c["gc_s"] += m.get("JVM GC Time", 0) / 1e3
            c["run_s"] += m.get("Executor Run Time", 0) / 1e3
            if info.get("Launch Time") is not None and info.get("Finish Time") is not None:
                key = (cls, ev.get("Stage ID"), ev.get("Stage Attempt ID", 0))
                attempts.setdefault(key, []).append((info["Launch Time"], info["Finish Time"], info.get("Executor ID")))
    cold, pairs = {}, {}
    for (cls, _, _), tasks in attempts.items():
        counts = cold.setdefault(cls, dict.fromkeys(KINDS, 0))
        for k in _classify(tasks):
            counts[k] += 1
        pairs[cls] = pairs.get(cls, 0) + len({t[2] for t in tasks})
    for c in by_class.values():
        for k in ("cpu_s", "gc_s", "run_s"):
            c[k] = round(c[k], 3)
    return {"by_class": by_class, "cold": cold, "pairs": pairs}
