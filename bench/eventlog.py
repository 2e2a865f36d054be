"""Reading a Spark event log (JSON lines): locality-level mix and per-job/task facts.

Used for the locality mix of every run (``{"PROCESS_LOCAL": fraction, ...}``), which the
dynamic-delay benchmark (issue 5) reports, and for task counts per class.
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
    "jobs": {job id: {"class", "submitted_ms", "completed_ms", "stages"}}, "hosts": [...]}``."""
    jobs, stage_class, stage_plan = {}, {}, {}
    counts, by_class, by_plan = {}, {}, {}
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
        "jobs": jobs,
        "hosts": sorted(hosts),
    }
