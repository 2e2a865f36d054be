"""Eirene in eagle-sim against the paper (``scripts/sim-eirene``): short-job P50/P75/P90 of
Eagle with CCDM, with SATC and with both (Eirene), each normalised to plain Eagle run with
the same seeds, on YH2_sub, GOOG_subtrace and a Facebook-like trace (``eagle-sim gen --like
fb``), each at an overloaded and a light cluster size. Prints a table, writes
``results.json`` to ``--out``.

- A run's percentiles come from its ``--jobs-out`` file (one job a line, the class third,
  the running time fourth), linear between ranks (:func:`bench.stats.percentile`); the file
  is removed once read. A run without short jobs has NaN percentiles.
- A normalised figure is the seed-mean percentile over Eagle's seed-mean percentile (1.00 =
  no change; NaN where Eagle's is not positive). Counters are seed means; ``wall s`` is the
  slowest seed's.
- The Facebook-like trace is generated once per ``--fb-jobs`` into ``--out`` and reused.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

from . import sim, stats, trace

# Paper (Table V, Figs. 7 and 8): Yahoo overloaded 3500, light 6000; Google 12000 and
# 20000; Facebook 50000 and 90000. The sub-traces carry less work per second than the
# full traces, so their sizes are scaled to keep the paper's load (docs/policies/eirene.md).
FB_NODES = (50000, 90000)
SIZES = {"YH2_sub": (3500, 6000), "GOOG_subtrace": (4400, 7500)}
VARIANTS = [("eagle", []), ("ccdm", ["--ccdm"]), ("satc", ["--satc"]), ("eirene", ["--ccdm", "--satc"])]
QUANTILES = (50, 75, 90)
COUNTERS = ("ccdm_helped", "migrations", "clones_launched", "clones_won", "clones_wasted")


def parse_args(argv=None, root=sim.ROOT):
    ap = argparse.ArgumentParser(prog="sim-eirene")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="one seed")
    ap.add_argument("--only", choices=["yahoo", "google", "fb"])
    ap.add_argument("--google-sizes", help="GOOG_subtrace cluster sizes, comma list (default 4400,7500; the README's sweep uses more)")
    ap.add_argument("--fb-jobs", type=int, default=30000, help="jobs of the Facebook-like trace (default 30000)")
    ap.add_argument("--jobs", type=int, default=2, help="parallel simulations (at most 2)")
    ap.add_argument("--out", default=os.path.join(root, "target", "sim-eirene"))
    ap.add_argument("--bin", default=sim.binary(root))
    return ap.parse_args(argv)


def google_sizes(text: str | None) -> list:
    """``--google-sizes``: a comma list of node counts >= 1 (the defaults without it)."""
    if not text:
        return SIZES["GOOG_subtrace"]
    try:
        sizes = [int(x) for x in text.split(",")]
    except ValueError:
        sys.exit(f"sim-eirene: --google-sizes must be a comma list of node counts, got '{text}'")
    if any(n < 1 for n in sizes):
        sys.exit(f"sim-eirene: --google-sizes must be node counts >= 1, got '{text}'")
    return sizes


def trace_path(root: str, name: str) -> str:
    path = trace.find(root, name)
    if path is None:
        sys.exit(f"sim-eirene: trace {name} not found in traces/ or {os.path.join(trace.shared_dir(root), 'traces')}")
    return path


def experiments(args, root: str) -> list:
    """``[(name, trace path, nodes, extra flags)]``; generates the Facebook-like trace if missing."""
    out = []
    if args.only in (None, "yahoo"):
        out += [("YH2_sub", trace_path(root, "YH2_sub"), n, []) for n in SIZES["YH2_sub"]]
    if args.only in (None, "google"):
        sizes = google_sizes(args.google_sizes)
        out += [("GOOG_subtrace", trace_path(root, "GOOG_subtrace"), n, []) for n in sizes]
    if args.only in (None, "fb"):
        fb = os.path.join(args.out, f"fb_like_{args.fb_jobs}.tr")
        if not os.path.exists(fb):
            # Load 1.0 at the overloaded size; the light size then runs at 50000/90000 = 0.56.
            subprocess.run([args.bin, "-q", "gen", "--like", "fb", "--jobs", str(args.fb_jobs), "--nodes", str(FB_NODES[0]),
                            "--load", "1.0", "--seed", "1", "--out", fb], check=True)
        out += [("FB-like", fb, n, ["--cutoff", "76.6"]) for n in FB_NODES]
    return out


def short_percentiles(lines) -> list:
    """P50, P75 and P90 of the short jobs' running times in a ``--jobs-out`` file's lines."""
    short = [float(line.split()[3]) for line in lines if line.split()[2] == "short"]
    ps = [stats.percentile(short, q) for q in QUANTILES]
    return [float("nan") if p is None else p for p in ps]


def run(args, name, path, nodes, extra, variant, flags, seed) -> dict:
    jobs_out = os.path.join(args.out, f"{name}_{nodes}_{variant}_{seed}.jobs")
    cmd = [args.bin, "-q", "run", "--trace", path, "--system", "eagle", "--nodes", str(nodes), "--seed", str(seed),
           "--json", "--jobs-out", jobs_out] + extra + flags
    t = time.time()
    rep = sim.run_json(cmd, "sim-eirene")
    with open(jobs_out) as f:
        p = short_percentiles(f)
    os.remove(jobs_out)
    c = rep["counters"]
    return {"p": p, "util": rep["utilization"], "wall": time.time() - t, "counters": {k: c.get(k, 0) for k in COUNTERS}}


def summarise(name, nodes, base_runs, variant, rs) -> dict:
    """One row: a variant's runs (one per seed) against plain Eagle's on the same experiment."""
    base = [statistics.mean(r["p"][i] for r in base_runs) for i in range(3)]
    util = statistics.mean(r["util"] for r in base_runs)
    p = [statistics.mean(r["p"][i] for r in rs) for i in range(3)]
    norm = [p[i] / base[i] if base[i] > 0 else float("nan") for i in range(3)]
    cnt = {k: statistics.mean(r["counters"][k] for r in rs) for k in rs[0]["counters"]}
    wall = max(r["wall"] for r in rs)
    return {"trace": name, "nodes": nodes, "scheme": variant, "eagle_util": util, "eagle_short": base,
            "short": p, "normalised": norm, "counters": cnt, "max_wall_seconds": wall}


def row_line(r: dict) -> str:
    norm, cnt = r["normalised"], r["counters"]
    return (f"{r['trace']:<14} {r['nodes']:>6} {r['eagle_util']:>5.2f} {r['scheme']:<7} {norm[0]:>6.3f} {norm[1]:>6.3f} "
            f"{norm[2]:>6.3f}  {cnt['ccdm_helped']:>8.0f} {cnt['clones_launched']:>8.0f} {cnt['clones_won']:>7.0f} "
            f"{cnt['clones_wasted']:>7.0f} {r['max_wall_seconds']:>7.1f}")


def base_line(base: list) -> str:
    return f"{'':<14} {'':>6} {'':>5} eagle short P50/P75/P90 = {base[0]:.1f} / {base[1]:.1f} / {base[2]:.1f} s"


def main(argv=None, root=sim.ROOT) -> int:
    args = parse_args(argv, root)
    seeds = sim.seed_list(args.quick, args.seeds)
    os.makedirs(args.out, exist_ok=True)
    exps = experiments(args, root)

    tasks = [(e, v, s) for e in exps for v in VARIANTS for s in seeds]
    results = {}
    t0 = time.time()

    def one(e, v, s):
        return run(args, e[0], e[1], e[2], e[3], v[0], v[1], s)

    for i, ((e, v, s), r) in enumerate(sim.pool(one, tasks, max(1, min(2, args.jobs))), 1):
        results[(e[0], e[2], v[0], s)] = r
        print(f"\r{i}/{len(tasks)} runs, {time.time() - t0:.0f} s", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)

    rows = []
    print(f"Short-job latency normalised to Eagle (seed-mean percentile / Eagle's), {len(seeds)} seed(s)")
    print(f"{'trace':<14} {'nodes':>6} {'util':>5} {'scheme':<7} {'P50':>6} {'P75':>6} {'P90':>6}  "
          f"{'helped':>8} {'clones':>8} {'won':>7} {'wasted':>7} {'wall s':>7}")
    for (name, _, nodes, _) in exps:
        base_runs = [results[(name, nodes, "eagle", s)] for s in seeds]
        for variant, _ in VARIANTS:
            row = summarise(name, nodes, base_runs, variant, [results[(name, nodes, variant, s)] for s in seeds])
            rows.append(row)
            print(row_line(row))
        print(base_line(row["eagle_short"]))
    path = sim.write_results(args.out, {"seeds": seeds, "rows": rows})
    print(f"(also in {path})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
