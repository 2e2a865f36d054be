"""Reading a Spark event log (JSON lines): locality-level mix and per-job/task facts.

Used for the locality mix of every run (``{"PROCESS_LOCAL": fraction, ...}``), which the
dynamic-delay benchmark (issue 5) reports, and for task counts per class.
"""
from __future__ import annotations

import glob
import json
import os

LEVELS = ("PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY")


def find_log(events_dir: str) -> str | None:
    logs = [p for p in glob.glob(os.path.join(events_dir, "*")) if os.path.isfile(p)]
    return max(logs, key=os.path.getmtime) if logs else None


def parse(path: str) -> dict:
    """``{"tasks": n, "locality": {level: fraction}, "locality_by_class": {...},
    "jobs": {job id: {"class", "submitted_ms", "completed_ms", "stages"}}, "hosts": [...]}``."""
    jobs, stage_class = {}, {}
    counts, by_class = {}, {}
    hosts = set()
    tasks = 0
    with open(path, errors="replace") as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue                       # a truncated last line of an in-progress log
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
        "jobs": jobs,
        "hosts": sorted(hosts),
    }
