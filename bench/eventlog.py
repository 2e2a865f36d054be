"""Reading a Spark event log (JSON lines): locality-level mix and per-job/task facts.

Used for the locality mix of every run (``{"PROCESS_LOCAL": fraction, ...}``), which the
dynamic-delay benchmark reports, and for task counts per class.
"""
from __future__ import annotations

import glob
import json
import os

LEVELS = ("PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY")


def find_log(events_dir: str) -> list | None:
    """The newest application's event log files: a single file, or the ``events_N_*`` parts of
    a rolling ``eventlog_v2_*`` directory, in order."""
    entries = glob.glob(os.path.join(events_dir, "*"))
    if not entries:
        return None
    newest = max(entries, key=os.path.getmtime)
    if os.path.isdir(newest):
        parts = glob.glob(os.path.join(newest, "events_*"))
        return sorted(parts, key=lambda p: int(os.path.basename(p).split("_")[1])) or None
    return [newest]


def _lines(paths):
    for p in paths if isinstance(paths, (list, tuple)) else [paths]:
        with open(p, errors="replace") as f:
            yield from f


def events(paths):
    """The log's events, parsed, skipping a truncated last line of an in-progress log."""
    for line in _lines(paths):
        try:
            yield json.loads(line)
        except ValueError:
            continue


def parse(path) -> dict:
    """``{"tasks": n, "locality": {level: fraction}, "locality_by_class": {...},
    "jobs": {job id: {"class", "submitted_ms", "completed_ms", "stages"}}, "hosts": [...],
    "slot_ms_by_plan": {plan: ms}}``. ``slot_ms_by_plan`` is how long the plan's tasks held
    their slots, launch to finish as the driver saw it, summed."""
    jobs, stage_class, stage_plan = {}, {}, {}
    counts, by_class, by_plan, slot_ms = {}, {}, {}, {}
    hosts = set()
    tasks = 0
    for ev in events(path):
        kind = ev.get("Event")
        if kind == "SparkListenerJobStart":
            props = ev.get("Properties") or {}
            cls = props.get("bench.class", "unknown")
            jid = ev["Job ID"]
            jobs[jid] = {"class": cls, "submitted_ms": ev.get("Submission Time"),
                         "completed_ms": None, "stages": ev.get("Stage IDs", []),
                         "description": props.get("spark.job.description")}
            for s in ev.get("Stage IDs", []):
                stage_class[s] = cls
                stage_plan[s] = props.get("bench.plan", "")
        elif kind == "SparkListenerJobEnd":
            j = jobs.get(ev.get("Job ID"))
            if j is not None:
                j["completed_ms"] = ev.get("Completion Time")
                j["result"] = (ev.get("Job Result") or {}).get("Result")
        elif kind == "SparkListenerTaskEnd":
            info = ev.get("Task Info") or {}
            level = info.get("Locality", "ANY")
            tasks += 1
            counts[level] = counts.get(level, 0) + 1
            cls = stage_class.get(ev.get("Stage ID"), "unknown")
            by_class.setdefault(cls, {})
            by_class[cls][level] = by_class[cls].get(level, 0) + 1
            plan = stage_plan.get(ev.get("Stage ID"), "")
            by_plan.setdefault(plan, {})
            by_plan[plan][level] = by_plan[plan].get(level, 0) + 1
            if info.get("Launch Time") is not None and info.get("Finish Time") is not None:
                slot_ms[plan] = slot_ms.get(plan, 0) + max(0, info["Finish Time"] - info["Launch Time"])
            if info.get("Host"):
                hosts.add(info["Host"])

    def frac(c):
        n = sum(c.values())
        return {lvl: round(c.get(lvl, 0) / n, 4) for lvl in LEVELS if n} if n else {}

    return {
        "tasks": tasks,
        "locality": frac(counts),
        "locality_counts": counts,
        "locality_by_class": {k: frac(v) for k, v in by_class.items()},
        "locality_by_plan": {k: frac(v) for k, v in by_plan.items()},
        "slot_ms_by_plan": slot_ms,
        "jobs": jobs,
        "hosts": sorted(hosts),
    }


def task_spans(path) -> list:
    """``[(stage id, launch ms, finish ms)]`` of every task that ended, in log order."""
    out = []
    for ev in events(path):
        if ev.get("Event") == "SparkListenerTaskEnd":
            info = ev.get("Task Info") or {}
            if info.get("Launch Time") is not None and info.get("Finish Time") is not None:
                out.append((ev.get("Stage ID"), info["Launch Time"], info["Finish Time"]))
    return out


def task_anatomy(path, since_ms: float = 0.0, until_ms: float = float("inf")) -> dict:
    """Where a task's slot time goes, over the tasks launched in [``since_ms``, ``until_ms``):
    ``{"tasks", "hold_ms", "run_ms", "deserialize_ms", "deserialize_cpu_ms", "cpu_ms",
    "gc_s", "pairs_per_stage", "first": {...}, "rest": {...}}``, means in ms.

    ``hold`` is launch to finish as the driver saw it, ``run`` the executor's run time, and
    ``deserialize`` its deserialize time (wall; ``deserialize_cpu`` the CPU of it): a
    deserialize far above its CPU is a task waiting for the CPU or for a broadcast fetch.
    ``first`` are the first task of each (stage, executor) pair, which fetches the stage's
    task binary and broadcasts, ``rest`` the others (each ``{"tasks", "deserialize_ms",
    "other_ms"}``, ``other`` = hold - run - deserialize: launch and result transit)."""
    rows = []
    for ev in events(path):
        if ev.get("Event") != "SparkListenerTaskEnd":
            continue
        info, m = ev.get("Task Info") or {}, ev.get("Task Metrics") or {}
        launch, finish = info.get("Launch Time"), info.get("Finish Time")
        if launch is None or finish is None or not since_ms <= launch < until_ms:
            continue
        rows.append((launch, (ev.get("Stage ID"), ev.get("Stage Attempt ID")), info.get("Executor ID"),
                     finish - launch, m.get("Executor Run Time", 0), m.get("Executor Deserialize Time", 0),
                     m.get("Executor Deserialize CPU Time", 0) / 1e6, m.get("Executor CPU Time", 0) / 1e6,
                     m.get("JVM GC Time", 0)))
    if not rows:
        return {"tasks": 0}
    rows.sort(key=lambda r: r[0])

    def mean(xs):
        xs = list(xs)
        return round(sum(xs) / len(xs), 2) if xs else None

    seen, first, rest = set(), [], []
    for r in rows:
        (rest if (r[1], r[2]) in seen else first).append(r)
        seen.add((r[1], r[2]))

    def part(rs):
        return {"tasks": len(rs), "deserialize_ms": mean(r[5] for r in rs),
                "other_ms": mean(r[3] - r[4] - r[5] for r in rs)}

    return {"tasks": len(rows), "hold_ms": mean(r[3] for r in rows), "run_ms": mean(r[4] for r in rows),
            "deserialize_ms": mean(r[5] for r in rows), "deserialize_cpu_ms": mean(r[6] for r in rows),
            "cpu_ms": mean(r[7] for r in rows), "gc_s": round(sum(r[8] for r in rows) / 1000, 2),
            "pairs_per_stage": round(len(first) / len({r[1] for r in rows}), 2),
            "first": part(first), "rest": part(rest)}
