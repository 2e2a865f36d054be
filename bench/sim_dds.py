"""Dynamic Delay Scheduling in eagle-sim (``scripts/sim-dds``): YH2_sub under Eagle in
locality mode with fixed node-local waits of 0, 3 and 10 s and with the adaptive wait,
across a congestion phase that multiplies the remote-read penalty. Prints a table, writes
``results.json``, ``intervals.png`` and ``summary.png`` to ``--out``.

- Every figure is the mean over the seeds (NaN, printed ``nan``, where there is none).
- A job's mean running time over all jobs weighs the short and the long means by their
  job counts; ``vs 3s`` divides it by the fixed 3 s wait's.
- A wait (``locality.intervals``: a job's end time and its wait) is "congested" when its
  time is in ``[START, END)`` of ``--congestion START:END:FACTOR``, "calm" otherwise.
- ``--congestion`` goes to the simulator as given; the three numbers are parsed here only
  to split the waits and to draw the penalty.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from . import sim, trace

MODES = [("fixed-0s", "fixed:0"), ("fixed-3s", "fixed:3"), ("fixed-10s", "fixed:10"), ("dynamic", "dynamic:3:0:10:2")]
STATS = ("p50", "p90", "p99", "mean")


def parse_args(argv=None, root=sim.ROOT):
    ap = argparse.ArgumentParser(prog="sim-dds")
    ap.add_argument("--quick", action="store_true", help="one seed")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--penalty", type=float, default=2.0, help="remote-read penalty outside congestion, seconds")
    ap.add_argument("--congestion", default="13000:26000:10", help="START:END:FACTOR, seconds after the first submission")
    ap.add_argument("--out", default=os.path.join(root, "target", "bench", "dds", "sim"))
    return ap.parse_args(argv)


def parse_congestion(text: str):
    """``START:END:FACTOR`` -> three floats (ValueError otherwise)."""
    c_start, c_end, c_factor = (float(x) for x in text.split(":"))
    return c_start, c_end, c_factor


def command(binary, path, args, mode, seed) -> list:
    return [binary, "--quiet", "run", "--trace", path, "--system", "eagle", "--nodes", str(args.nodes), "--seed", str(seed),
            "--locality", mode, "--penalty", str(args.penalty), "--congestion", args.congestion, "--json"]


def summarise(name: str, mode: str, rs: list, seeds: list, c_start: float, c_end: float) -> dict:
    """One locality setting's row from its runs (one eagle-sim JSON report per seed)."""
    mean = sim.mean
    all_rt_mean = mean([(r["short"]["mean"] * r["short"]["count"] + r["long"]["mean"] * r["long"]["count"]) /
                        (r["short"]["count"] + r["long"]["count"]) for r in rs])
    calm = [w for r in rs for t, w in r["locality"]["intervals"] if not c_start <= t < c_end]
    cong = [w for r in rs for t, w in r["locality"]["intervals"] if c_start <= t < c_end]
    return {
        "delay": name, "mode": mode, "seeds": seeds,
        "short": {p: mean([r["short"][p] for r in rs]) for p in STATS},
        "long": {p: mean([r["long"][p] for r in rs]) for p in STATS},
        "job_mean": all_rt_mean,
        "local_fraction": mean([r["locality"]["local_fraction"] for r in rs]),
        "remote_seconds": mean([r["locality"]["remote_seconds"] for r in rs]),
        "wait_calm": mean(calm), "wait_congested": mean(cong),
    }


def table(rows: list) -> list:
    base = {r["delay"]: r for r in rows}
    lines = [f"\n{'delay':10} {'short p50':>9} {'p90':>7} {'p99':>7} {'mean':>7} | {'long p50':>8} {'mean':>8} | "
             f"{'all mean':>8} {'vs 3s':>6} | {'local':>5} | wait calm / congested"]
    for r in rows:
        rel = r["job_mean"] / base["fixed-3s"]["job_mean"]
        lines.append(f"{r['delay']:10} {r['short']['p50']:9.1f} {r['short']['p90']:7.1f} {r['short']['p99']:7.1f} "
                     f"{r['short']['mean']:7.1f} | {r['long']['p50']:8.1f} {r['long']['mean']:8.1f} | "
                     f"{r['job_mean']:8.1f} {rel:6.3f} | {r['local_fraction']:5.3f} | "
                     f"{r['wait_calm']:.2f} / {r['wait_congested']:.2f}")
    return lines


def rolling_median(pts: list, parts: int = 60):
    """(times, waits): medians of consecutive windows of ``len // parts`` points (at least one)."""
    pts = sorted(pts)
    k = max(1, len(pts) // parts)
    xs = [statistics.median(t for t, _ in pts[i:i + k]) for i in range(0, len(pts), k)]
    ys = [statistics.median(w for _, w in pts[i:i + k]) for i in range(0, len(pts), k)]
    return xs, ys


def intervals_png(plt, dyn, args, congestion, seed, path):
    c_start, c_end, c_factor = congestion
    end = max(t for t, _ in dyn) if dyn else c_end
    fig, ax = plt.subplots(figsize=(10, 4.5))
    ax.scatter([t for t, _ in dyn], [w for _, w in dyn], s=4, alpha=0.35, color="tab:blue",
               label="dynamic: node-local wait of each job (at its end)")
    xs, ys = rolling_median(dyn)
    ax.plot(xs, ys, color="tab:blue", lw=2, label="dynamic: rolling median")
    pen_x = [0, c_start, c_start, c_end, c_end, end]
    pen_y = [args.penalty, args.penalty, args.penalty * c_factor, args.penalty * c_factor, args.penalty, args.penalty]
    ax.plot(pen_x, pen_y, color="tab:red", lw=2, drawstyle="steps-post", label="remote-read penalty")
    for w, style in ((3, "--"), (10, ":")):
        ax.axhline(w, color="gray", ls=style, lw=1, label=f"fixed {w} s")
    ax.set_xlabel("seconds since the first submission")
    ax.set_ylabel("seconds")
    ax.set_title(f"Dynamic Delay Scheduling in eagle-sim: YH2_sub, Eagle, {args.nodes} nodes (seed {seed})")
    ax.set_ylim(0, max(args.penalty * c_factor, 10) * 1.15)
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def summary_png(plt, rows, seeds, path):
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.8))
    names = [r["delay"] for r in rows]
    colors = ["#999999", "#4c72b0", "#55a868", "#c44e52"]
    for ax, (title, vals) in zip(axes, [
            ("mean job running time (s)", [r["job_mean"] for r in rows]),
            ("short jobs p90 (s)", [r["short"]["p90"] for r in rows]),
            ("tasks node-local (fraction)", [r["local_fraction"] for r in rows])]):
        ax.bar(names, vals, color=colors)
        for i, v in enumerate(vals):
            ax.text(i, v, f"{v:.3g}", ha="center", va="bottom", fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.tick_params(axis="x", labelsize=8)
    fig.suptitle(f"fixed vs dynamic locality wait across a congestion phase (mean of {len(seeds)} seed(s))", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None, root=sim.ROOT) -> int:
    args = parse_args(argv, root)
    seeds = sim.seed_list(args.quick, args.seeds)
    binary = sim.binary(root)
    path = trace.find(root, "YH2_sub")
    if path is None:
        sys.exit("sim-dds: YH2_sub not found in traces/ or ../shared/traces")
    c_start, c_end, c_factor = parse_congestion(args.congestion)

    tasks = [(name, mode, s) for name, mode in MODES for s in seeds]
    print(f"sim-dds: {len(tasks)} runs of YH2_sub on {args.nodes} nodes, penalty {args.penalty}s x{c_factor:g} "
          f"in [{c_start:g}, {c_end:g})s", flush=True)
    results = {}
    t0 = time.time()

    def run(name, mode, s):
        return sim.run_json(command(binary, path, args, mode, s), "sim-dds")

    for i, ((name, _, s), r) in enumerate(sim.pool(run, tasks), 1):
        results[(name, s)] = r
        print(sim.runs_done("sim-dds", i, len(tasks), f"{name} seed {s}", time.time() - t0), flush=True)

    rows = [summarise(name, mode, [results[(name, s)] for s in seeds], seeds, c_start, c_end) for name, mode in MODES]
    for line in table(rows):
        print(line)

    os.makedirs(args.out, exist_ok=True)
    dyn = results[("dynamic", seeds[0])]["locality"]["intervals"]
    sim.write_results(args.out, {
        "scenario": "sim-dds", "trace": os.path.basename(path), "nodes": args.nodes, "penalty": args.penalty,
        "congestion": [c_start, c_end, c_factor], "runs": rows, "dynamic_intervals_seed1": dyn})
    plt = sim.pyplot()
    if plt is None:
        print("sim-dds: matplotlib missing, no plots")
        return 0
    intervals_png(plt, dyn, args, (c_start, c_end, c_factor), seeds[0], os.path.join(args.out, "intervals.png"))
    summary_png(plt, rows, seeds, os.path.join(args.out, "summary.png"))
    print(f"\nsim-dds: wrote {args.out}/results.json, intervals.png, summary.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
