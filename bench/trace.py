"""Trace replay workloads (paper §7), pure Python: finding, parsing, scaling, Poisson arrivals.

Trace format (one job a line, seconds): ``submit_time ntasks mean_duration d1 .. dn``.

How a trace becomes a Spark workload (see docs/benchmarks.md):

* **Time.** Task durations go from seconds to milliseconds (a 15 s trace task sleeps 15 ms),
  as in the paper's Spark experiment. The trace's per-job mean (third column, also scaled) is
  the ``spark.scheduler.eagle.job.estimatedTaskMs`` hint.
* **Class (reporting only).** A job is long when ``int(mean) > cutoff`` with the trace's
  comparison cutoff (Yahoo 90.5811 s, Google 1129.532 s), as in the reference simulator.
* **Arrivals.** Poisson; the mean inter-arrival time is ``ratio × mean task runtime``, where
  the mean task runtime is the mean over the trace's jobs of their mean task duration (scaled).
* **Sampling.** ``n_jobs`` jobs drawn uniformly with replacement from the trace, with a seed.
* **Task counts.** Scaled to the cluster by one factor ``f`` for the sample:
  ``n' = max(1, round(n·f))`` tasks, taken evenly from the job's own durations. ``f`` is chosen
  so that the sample's average job's work equals one wave of the cluster
  (``slots × mean task runtime``). With that choice the offered load is ``1 / ratio``:
  ratio 1.2 ≈ 83 % busy (high load), 2.0 = 50 % (moderate load). (``f`` comes from the sample,
  not the whole trace, because the traces are heavy-tailed: a few hundred jobs drawn from
  Yahoo hold far less work than the trace's mean, and the load would miss its target by 2×.)
"""
from __future__ import annotations

import lzma
import math
import os
import random
from dataclasses import dataclass
from typing import Iterable, List, Sequence

# Comparison cutoffs (seconds) of the reference simulator's README, by trace family.
CUTOFFS = {"YH": 90.5811, "GOOG": 1129.532, "CC": 272.7830, "FB": 76.5951}


@dataclass(frozen=True)
class TraceJob:
    submit: float
    mean: float               # seconds, the trace's own estimate
    durations: tuple          # seconds


def parse_lines(lines: Iterable[str], name: str = "trace") -> List[TraceJob]:
    jobs = []
    for lineno, line in enumerate(lines, 1):
        parts = line.split()
        if not parts:
            continue
        try:
            submit, n, mean = float(parts[0]), int(parts[1]), float(parts[2])
            durs = tuple(float(x) for x in parts[3:3 + n])
        except (ValueError, IndexError) as e:
            raise ValueError(f"{name}:{lineno}: malformed line ({e})") from None
        if n < 1 or len(durs) != n:
            raise ValueError(f"{name}:{lineno}: {n} tasks announced, {len(durs)} durations given")
        jobs.append(TraceJob(submit, mean, durs))
    if not jobs:
        raise ValueError(f"{name}: no jobs")
    return jobs


def open_text(path: str):
    """A trace file for reading as text, decompressing a ``.xz`` one."""
    return lzma.open(path, "rt") if path.endswith(".xz") else open(path)


def load_trace(path: str) -> List[TraceJob]:
    with open_text(path) as f:
        return parse_lines(f, os.path.basename(path))


def shared_dir(root: str) -> str:
    """The ``shared`` folder next to the checkout ``root`` (its ``traces/`` holds the
    compressed traces)."""
    return os.path.normpath(os.path.join(root, "..", "shared"))


def find(root: str, name: str) -> str | None:
    """Where the trace ``name`` (``YH2_sub``, ``GOOG_subtrace``) is: ``traces/NAME.tr`` of the
    checkout (``scripts/traces.sh``), else ``../shared/traces/NAME.tr.xz``; None if neither."""
    for p in (os.path.join(root, "traces", name + ".tr"), os.path.join(shared_dir(root), "traces", name + ".tr.xz")):
        if os.path.exists(p):
            return p
    return None


def cutoff_for(path: str) -> float:
    """The comparison cutoff for a trace file, from its name (YH*, GOOG*, CC*, FB*)."""
    base = os.path.basename(path).upper()
    for prefix, cut in CUTOFFS.items():
        if base.startswith(prefix):
            return cut
    raise ValueError(f"{path}: unknown trace family; pass --cutoff (seconds)")


def job_class(mean_s: float, cutoff_s: float) -> str:
    return "long" if int(mean_s) > cutoff_s else "short"


def scaled_count(n: int, f: float) -> int:
    return max(1, int(round(n * f)))


def pick_durations(durs: Sequence[float], k: int) -> List[float]:
    """k durations taken evenly from the job's own (k <= len keeps its distribution)."""
    n = len(durs)
    return [durs[min(n - 1, (i * n) // k)] for i in range(k)]


def mean_task_runtime(jobs: Sequence[TraceJob]) -> float:
    """Mean over jobs of the job's mean task duration (trace seconds)."""
    return sum(j.mean for j in jobs) / len(jobs)


def mean_job_work(jobs: Sequence[TraceJob], f: float) -> float:
    """Mean task-seconds per job after scaling task counts by f."""
    total = 0.0
    for j in jobs:
        k = scaled_count(len(j.durations), f)
        total += sum(pick_durations(j.durations, k))
    return total / len(jobs)


def task_scale_factor(jobs: Sequence[TraceJob], slots: int) -> float:
    """The f for which the average job's work is one wave of the cluster
    (``slots × mean task runtime``), by bisection (work is non-decreasing in f)."""
    target = slots * mean_task_runtime(jobs)
    lo, hi = 0.0, 1.0
    while mean_job_work(jobs, hi) < target and hi < 1e6:
        hi *= 2
    if mean_job_work(jobs, lo) >= target:
        return lo
    for _ in range(40):
        mid = (lo + hi) / 2
        if mean_job_work(jobs, mid) < target:
            lo = mid
        else:
            hi = mid
    return hi


def build_workload(jobs: Sequence[TraceJob], *, slots: int, ratio: float, n_jobs: int,
                   seed: int, cutoff_s: float, f: float | None = None) -> dict:
    """The replay plan: ``{"jobs": [{"id", "arrival_s", "durations_ms", "estimate_ms", "class"}],
    "meta": {...}}``. Arrival times are seconds from the start of the replay."""
    if ratio <= 0 or n_jobs < 1 or slots < 1:
        raise ValueError("ratio > 0, n_jobs >= 1 and slots >= 1 are required")
    rng = random.Random(seed)
    sample = [jobs[rng.randrange(len(jobs))] for _ in range(n_jobs)]
    if f is None:
        f = task_scale_factor(sample, slots)
    mtr_s = mean_task_runtime(sample) / 1000.0        # trace seconds -> real seconds
    iat = ratio * mtr_s
    t = 0.0
    out = []
    for i, j in enumerate(sample):
        t += rng.expovariate(1.0 / iat)
        k = scaled_count(len(j.durations), f)
        durs_ms = [max(1, int(round(d))) for d in pick_durations(j.durations, k)]
        out.append({
            "id": i,
            "arrival_s": round(t, 6),
            "durations_ms": durs_ms,
            "estimate_ms": max(1, int(j.mean)),
            "class": job_class(j.mean, cutoff_s),
        })
    work = sum(sum(j["durations_ms"]) for j in out) / 1000.0
    span = out[-1]["arrival_s"] if out else 0.0
    meta = {
        "ratio": ratio, "seed": seed, "slots": slots, "n_jobs": n_jobs,
        "task_scale": f, "mean_task_runtime_s": mtr_s, "mean_interarrival_s": iat,
        "nominal_load": round(mean_job_work(sample, f) / 1000.0 / (iat * slots), 4),
        "sample_load": round(work / (span * slots), 4) if span > 0 else None,
        "short_jobs": sum(1 for j in out if j["class"] == "short"),
        "long_jobs": sum(1 for j in out if j["class"] == "long"),
        "tasks": sum(len(j["durations_ms"]) for j in out),
        "work_s": round(work, 3),
        "cutoff_ms": cutoff_s,
    }
    return {"jobs": out, "meta": meta}
