"""One benchmark of ``scripts/bench-sim``: ``python -m bench.sim_speed NAME TARGET_S RUNS_FILE``
prints the verdict on eagle-sim's speed and memory from the runs the script timed.

RUNS_FILE has one run a line: ``SYSTEM WALL_S USER_S MAXRSS_KB JSON`` (``/usr/bin/time -f
"%e %U %M"`` and ``eagle-sim run --json``), for the systems ``eagle`` and ``sparrow``.

- Times are medians over the eagle runs; the peak RSS is the largest. The first eagle run's
  report gives the trace's size and the percentiles.
- The wall-time target passes when the median wall time is at most TARGET_S; when only the
  user CPU time is, the verdict says the machine was busy. Memory passes below 1024 MB.
- The baselines come from the same file: the eagle runs' own parse time (wall / parse) and
  the median wall time of the sparrow runs (eagle / sparrow).
"""
from __future__ import annotations

import json
import statistics as st
import sys

RSS_TARGET_MB = 1024


def parse_runs(lines) -> dict:
    """``{"eagle": [...], "sparrow": [...]}``, each run ``{"wall", "user", "rss" (MB), "d" (its report)}``."""
    rows = {"eagle": [], "sparrow": []}
    for line in lines:
        system, wall, user, rss_kb, js = line.split(" ", 4)
        rows[system].append(dict(wall=float(wall), user=float(user), rss=int(rss_kb) / 1024, d=json.loads(js)))
    return rows


def verdict(wall: float, user: float, target: float) -> str:
    return "PASS" if wall <= target else ("FAIL (user CPU passes: machine busy)" if user <= target else "FAIL")


def report(name: str, target: float, rows: dict) -> list:
    e, s = rows["eagle"], rows["sparrow"]
    med = st.median
    wall, user = med([r["wall"] for r in e]), med([r["user"] for r in e])
    parse = med([r["d"]["perf"]["parse_seconds"] for r in e])
    sim = med([r["d"]["perf"]["sim_seconds"] for r in e])
    eps = med([r["d"]["perf"]["events_per_sec"] for r in e])
    rss = max(r["rss"] for r in e)
    hwm = max(r["d"]["perf"]["peak_rss_mb"] or 0 for r in e)
    swall = med([r["wall"] for r in s])
    d = e[0]["d"]
    sh, lo = d["short"], d["long"]
    return [
        f"\n== {name}: {d['jobs']} jobs, {d['tasks']} tasks, {d['nodes']} nodes, eagle, median of {len(e)} run(s)",
        f"   wall {wall:.3f} s (user CPU {user:.3f} s; simulation loop {sim:.3f} s)   target <= {target:g} s: "
        f"{verdict(wall, user, target)}",
        f"   events {d['events']:,} -> {eps/1e6:.2f} M events/s; peak event queue {d['peak_queue']:,}",
        f"   peak RSS {rss:.0f} MB (/usr/bin/time), {hwm:.0f} MB (VmHWM)   target < {RSS_TARGET_MB} MB: "
        f"{'PASS' if rss < RSS_TARGET_MB else 'FAIL'}",
        f"   baselines in this run: parse {parse:.3f} s -> wall/parse = {wall/parse:.1f}x; "
        f"sparrow wall {swall:.3f} s -> eagle/sparrow = {wall/swall:.2f}x",
        f"   short p50/p90/p99 = {sh['p50']:.1f} {sh['p90']:.1f} {sh['p99']:.1f}; "
        f"long = {lo['p50']:.1f} {lo['p90']:.1f} {lo['p99']:.1f}; util {100*d['utilization']:.1f}%",
    ]


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    name, target, path = argv[0], float(argv[1]), argv[2]
    with open(path) as f:
        rows = parse_runs(f)
    for line in report(name, target, rows):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
