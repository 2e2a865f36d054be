"""eagle-sim against the reference simulator (``scripts/sim-compare``): the paper's
experiments (YH2_sub at 3000/4000/5000 nodes, GOOG_subtrace at 5000/8000) for each system
over several seeds, three tables on stdout, ``results.json`` and a figure in ``--out``.

- Our figures are the means over the seeds of each run's short and long p50/p90/p99
  (percentiles the simulator did not report, None, are left out of the mean), its
  utilisation and its simulation time.
- The reference figures are parsed from ``../shared/docs/REFERENCE_RESULTS.md``: one line
  per single run, and for YH2_sub at 4000 nodes the means over the reference's seeds 1-3,
  which replace the single run's percentiles. Without that file the tables show ours alone.
- A ratio is None (printed ``-``) where either side is None or its denominator is 0; a
  ratio whose deviation from the reference's is above 15 % is starred and listed at the end.
- eagle-adaptive has no reference: it is compared with Hawk and with paper Eagle only.
"""
from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time

from . import sim, stats, trace

PCTS = ["p50", "p90", "p99"]
KINDS = ["short", "long"]
NAMES = {"eagle": "Eagle", "hawk": "Hawk", "sparrow": "Sparrow", "dlwl": "DLWL", "clwl": "CLWL",
         "eagle-adaptive": "Adaptive"}
FLAG = 0.15      # a deviation from the reference's ratio above this is flagged


def parse_args(argv=None, root=sim.ROOT):
    ap = argparse.ArgumentParser(prog="sim-compare")
    ap.add_argument("--seeds", type=int, default=5, help="seeds per configuration (default 5)")
    ap.add_argument("--quick", action="store_true", help="one seed")
    ap.add_argument("--clwl", action="store_true", help="also run CLWL")
    ap.add_argument("--jobs", type=int, default=2, help="parallel simulations (at most 2)")
    ap.add_argument("--only", choices=["yahoo", "google"], help="one trace family")
    ap.add_argument("--out", default=os.path.join(root, "target", "sim-compare"))
    ap.add_argument("--bin", default=sim.binary(root), help="eagle-sim binary to run")
    return ap.parse_args(argv)


def systems(clwl: bool) -> list:
    return ["eagle", "hawk", "sparrow", "dlwl"] + (["clwl"] if clwl else []) + ["eagle-adaptive"]


def experiments(only: str | None) -> list:
    """``[(trace, nodes)]`` of the trace families asked for."""
    out = []
    if only != "google":
        out += [("YH2_sub", n) for n in (3000, 4000, 5000)]
    if only != "yahoo":
        out += [("GOOG_subtrace", n) for n in (5000, 8000)]
    return out


def pairs(clwl: bool) -> list:
    return [("eagle", "hawk"), ("eagle", "sparrow"), ("eagle", "dlwl")] + ([("eagle", "clwl")] if clwl else [])


# ---------------------------------------------------------------- reference numbers

_NUM = r"([\d.]+)"
_RUN = re.compile(rf"^(\S+)\s+(\d+)\s+(\w+)\s+short\(n=\d+\) p50/90/99 =\s+{_NUM}\s+{_NUM}\s+{_NUM}\s+\|"
                  rf"\s+long\(n=\d+\) =\s+{_NUM}\s+{_NUM}\s+{_NUM}\s+\|\s+util {_NUM}%")
_MEAN = re.compile(rf"^(\S+)\s+(\w+)\s+short p50/90/99 = {_NUM} {_NUM} {_NUM}\s+\| long = {_NUM} {_NUM} {_NUM}\s*$")


def parse_reference(lines) -> dict:
    """``{(trace, nodes, system): {"short": [p50, p90, p99], "long": [...], "util": x, "src": ...}}``
    from REFERENCE_RESULTS.md's lines; a mean line (YH2_sub at 4000 over seeds 1-3) replaces
    the single run's percentiles and keeps its utilisation."""
    ref = {}
    for line in lines:
        m = _RUN.match(line)
        if m:
            t, n, s = m.group(1), int(m.group(2)), m.group(3).lower()
            v = [float(x) for x in m.groups()[3:]]
            ref[(t, n, s)] = {"short": v[0:3], "long": v[3:6], "util": v[6] / 100, "src": "1 run"}
            continue
        m = _MEAN.match(line)
        if m:
            t, s = m.group(1), m.group(2).lower()
            v = [float(x) for x in m.groups()[2:]]
            old = ref.get((t, 4000, s), {})
            ref[(t, 4000, s)] = {"short": v[0:3], "long": v[3:6], "util": old.get("util"), "src": "mean seeds 1-3"}
    return ref


def load_reference(root: str):
    """(the reference figures, the file's path), or ({}, None) without the file."""
    path = os.path.join(trace.shared_dir(root), "docs", "REFERENCE_RESULTS.md")
    if not os.path.exists(path):
        return {}, None
    with open(path) as f:
        return parse_reference(f), path


# ---------------------------------------------------------------- our figures

def mean_over_seeds(runs: list) -> dict:
    """One configuration's runs (eagle-sim JSON reports) -> the shape of a reference entry."""
    out = {k: [statistics.mean(r[k][p] for r in runs if r[k][p] is not None) for p in PCTS] for k in KINDS}
    out["util"] = statistics.mean(r["utilization"] for r in runs)
    out["sim_seconds"] = statistics.mean(r["perf"]["sim_seconds"] for r in runs)
    return out


def ratios(a: list, b: list) -> list:
    return [stats.ratio(x, y) for x, y in zip(a, b)]


def fmt(v, w=9, d=2):
    return f"{v:{w}.{d}f}" if v is not None else " " * (w - 1) + "-"


def _cells(o: dict, w: int, d: int) -> str:
    return " ".join(fmt(x, w, d) for x in o["short"]) + " | " + " ".join(fmt(x, w, d) for x in o["long"])


# ---------------------------------------------------------------- tables

def percentiles_table(exps, syss, ours, ref, seeds, ref_path) -> list:
    lines = [f"\n# Mean percentiles over seeds {seeds[0]}..{seeds[-1]} (ours) vs reference ({ref_path or 'not found'})",
             f"{'trace':14} {'nodes':>5} {'system':8} {'':4} {'short p50':>10} {'p90':>10} {'p99':>10} | "
             f"{'long p50':>10} {'p90':>10} {'p99':>10} | {'util':>5} {'sim s':>6}"]
    for (t, n) in exps:
        for s in syss:
            o = ours[(t, n, s)]
            lines.append(f"{t:14} {n:5} {NAMES[s]:8} {'ours':4} " + _cells(o, 10, 2)
                         + f" | {o['util']*100:4.1f}% {o['sim_seconds']:6.2f}")
            r = ref.get((t, n, s))
            if r:
                u = f"{r['util']*100:4.1f}%" if r.get("util") else "    -"
                lines.append(f"{'':14} {'':5} {'':8} {'ref':4} " + _cells(r, 10, 2) + f" | {u} ({r['src']})")
    return lines


def ratios_table(exps, prs, ours, ref):
    """(the lines of the ratio table, the flagged deviations)."""
    flagged = []
    lines = ["\n# Ratios: ours vs reference (dev = ours/ref - 1; * marks |dev| > 15%)",
             f"{'trace':14} {'nodes':>5} {'ratio':14} {'':4} {'short p50':>9} {'p90':>9} {'p99':>9} | "
             f"{'long p50':>9} {'p90':>9} {'p99':>9}"]
    for (t, n) in exps:
        for a, b in prs:
            o = {k: ratios(ours[(t, n, a)][k], ours[(t, n, b)][k]) for k in KINDS}
            label = f"{NAMES[a]}/{NAMES[b]}"
            lines.append(f"{t:14} {n:5} {label:14} {'ours':4} " + _cells(o, 9, 3))
            ra, rb = ref.get((t, n, a)), ref.get((t, n, b))
            if not (ra and rb):
                continue
            r = {k: ratios(ra[k], rb[k]) for k in KINDS}
            lines.append(f"{'':14} {'':5} {'':14} {'ref':4} " + _cells(r, 9, 3))
            devs = []
            for k in KINDS:
                for i, p in enumerate(PCTS):
                    if o[k][i] is None or r[k][i] is None:
                        devs.append(None)
                        continue
                    dv = o[k][i] / r[k][i] - 1
                    devs.append(dv)
                    if abs(dv) > FLAG:
                        flagged.append(f"{t} {n} {label} {k} {p}: ours {o[k][i]:.3f} ref {r[k][i]:.3f} ({dv:+.0%})")
            cells = [("    -    " if d is None else f"{d:+8.0%}{'*' if abs(d) > FLAG else ' '}") for d in devs]
            lines.append(f"{'':14} {'':5} {'':14} {'dev':4} " + " ".join(cells[:3]) + " | " + " ".join(cells[3:]))
    return lines, flagged


def adaptive_table(exps, ours) -> list:
    lines = ["\n# eagle-adaptive: ratios to Hawk and to paper Eagle (< 1 is better)",
             f"{'trace':14} {'nodes':>5} {'ratio':16} {'short p50':>9} {'p90':>9} {'p99':>9} | "
             f"{'long p50':>9} {'p90':>9} {'p99':>9}"]
    for (t, n) in exps:
        for b in ("hawk", "eagle"):
            o = {k: ratios(ours[(t, n, "eagle-adaptive")][k], ours[(t, n, b)][k]) for k in KINDS}
            lines.append(f"{t:14} {n:5} {'Adaptive/' + NAMES[b]:16} " + _cells(o, 9, 3))
    return lines


# ---------------------------------------------------------------- figure

def figure(plt, exps, syss, ours, ref, seeds, png):
    """Eagle normalised to Hawk and DLWL, a row per (trace, baseline), short and long jobs side
    by side; the reference's ratios as diamonds."""
    baselines = [b for b in ("hawk", "dlwl") if b in syss]
    traces = sorted({t for t, _ in exps}, key=lambda t: [e[0] for e in exps].index(t))
    fig, axes = plt.subplots(len(baselines) * len(traces), 2, figsize=(11, 3.2 * len(baselines) * len(traces)),
                             squeeze=False)
    colors = ["#4C72B0", "#DD8452", "#55A868"]
    for ti, t in enumerate(traces):
        sizes = [n for (tt, n) in exps if tt == t]
        for bi, b in enumerate(baselines):
            for ki, k in enumerate(KINDS):
                ax = axes[ti * len(baselines) + bi][ki]
                width = 0.25
                for pi, p in enumerate(PCTS):
                    xs = [i + (pi - 1) * width for i in range(len(sizes))]
                    ys = [ratios(ours[(t, n, "eagle")][k], ours[(t, n, b)][k])[pi] for n in sizes]
                    ax.bar(xs, [y or 0 for y in ys], width, color=colors[pi],
                           label=f"{p[1:]}th percentile" if (ti, bi, ki) == (0, 0, 0) else None)
                    for x, y in zip(xs, ys):
                        if y is not None:
                            ax.text(x, y, f"{y:.2f}", ha="center", va="bottom", fontsize=7)
                    for x, n in zip(xs, sizes):
                        ra, rb = ref.get((t, n, "eagle")), ref.get((t, n, b))
                        if ra and rb:
                            ry = ratios(ra[k], rb[k])[pi]
                            ax.plot([x], [ry], marker="D", color="black", markersize=4,
                                    label="reference" if (ti, bi, ki, pi) == (0, 0, 0, 0) and x == xs[0] else None)
                ax.axhline(1.0, color="grey", linewidth=0.8, linestyle="--")
                ax.set_xticks(range(len(sizes)))
                ax.set_xticklabels([f"{n} nodes" for n in sizes])
                ax.set_ylabel(f"Eagle / {NAMES[b]}")
                ax.set_title(f"{t}: {k} jobs, normalized to {NAMES[b]}", fontsize=10)
    handles, labels = [], []
    for row in axes:
        for ax in row:
            for h, label in zip(*ax.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(h)
                    labels.append(label)
    fig.suptitle(f"eagle-sim: Eagle normalized to Hawk and DLWL (mean over {len(seeds)} seed(s)); "
                 "diamonds: reference simulator", y=0.997, fontsize=10)
    fig.legend(handles, labels, loc="upper center", ncol=4, frameon=False, bbox_to_anchor=(0.5, 0.985))
    fig.tight_layout(rect=(0, 0, 1, 0.965))
    fig.savefig(png, dpi=110)


# ---------------------------------------------------------------- main

def main(argv=None, root=sim.ROOT) -> int:
    args = parse_args(argv, root)
    seeds = sim.seed_list(args.quick, args.seeds)
    jobs = max(1, min(2, args.jobs))
    syss, exps = systems(args.clwl), experiments(args.only)
    ref, ref_path = load_reference(root)
    shared = trace.shared_dir(root)

    def run_one(t, n, s, seed):
        path = trace.find(root, t)
        if path is None:
            sys.exit(f"sim-compare: trace {t} not found in traces/ or {shared}/traces (run scripts/traces.sh)")
        cmd = [args.bin, "run", "--trace", path, "--system", s, "--nodes", str(n), "--seed", str(seed), "--json"]
        return sim.run_json(cmd)

    tasks = [(t, n, s, seed) for (t, n) in exps for s in syss for seed in seeds]
    print(f"sim-compare: {len(tasks)} runs ({len(seeds)} seed(s)), {jobs} at a time", file=sys.stderr)
    t0 = time.time()
    results = {}
    for i, (key, d) in enumerate(sim.pool(run_one, tasks, jobs), 1):
        results[key] = d
        print(sim.runs_done("sim-compare", i, len(tasks), f"{key[0]} {key[1]} {key[2]} seed {key[3]}", time.time() - t0),
              file=sys.stderr, flush=True)
    wall = time.time() - t0
    ours = {(t, n, s): mean_over_seeds([results[(t, n, s, seed)] for seed in seeds]) for (t, n) in exps for s in syss}

    lines = percentiles_table(exps, syss, ours, ref, seeds, ref_path)
    table, flagged = ratios_table(exps, pairs(args.clwl), ours, ref)
    lines += table + adaptive_table(exps, ours)
    if flagged:
        lines += ["\n# Ratios off the reference by more than 15%:"] + ["  " + f for f in flagged]
    lines.append(f"\nsim-compare: {len(tasks)} runs in {wall:.1f} s wall")
    for line in lines:
        print(line)

    results_json = sim.write_results(args.out, {
        "seeds": seeds, "ours": {f"{t}/{n}/{s}": v for (t, n, s), v in ours.items()},
        "reference": {f"{t}/{n}/{s}": v for (t, n, s), v in ref.items()}})
    plt = sim.pyplot()
    if plt is None:
        print("sim-compare: matplotlib not available, no figure", file=sys.stderr)
        return 0
    png = os.path.join(args.out, "eagle-normalized.png")
    figure(plt, exps, syss, ours, ref, seeds, png)
    print(f"sim-compare: wrote {png} and {results_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
