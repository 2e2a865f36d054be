"""LoTES in eagle-sim (``scripts/sim-lotes``): the paper's Table 1 machines (scaled by
``--machine-scale``) under a Google-like workload of single-task jobs whose demands follow
its Table 2 classes; lotes, tetris and greedy on the same traces, one trace per seed.
Prints the response times (submission to first task start) and LoTES's plan, writes
``results.json`` to ``--out``.

- The source of the synthetic traces is GOOG_subtrace with every task made a job of its
  own, in submission order (``goog-tasks.tr``: ``submit 1 d d`` a task), written once.
- A seed's trace is generated again only when its ``.args`` file (jobs, nodes, load) does
  not match the options; a run's JSON report is kept in ``runs/`` with its command and
  reused while the command is the same, so an interrupted comparison resumes.
- Figures are means over the seeds (NaN where there is none); ``wall s`` is the slowest
  seed's; ``lotes / X`` divides LoTES's mean and p99 by X's (the p99 by at least 1e-12).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from . import sim, trace

RESPONSE = ("mean", "p50", "p90", "p99")


def parse_args(argv=None, root=sim.ROOT):
    ap = argparse.ArgumentParser(prog="sim-lotes")
    ap.add_argument("--quick", action="store_true", help="one seed")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--jobs", type=int, default=1500000)
    ap.add_argument("--nodes", type=int, default=5000, help="gen --nodes (the load's unit: task-seconds per second per node)")
    ap.add_argument("--load", type=float, default=28.0, help="gen --load")
    ap.add_argument("--machine-scale", default="0.5")
    ap.add_argument("--systems", default="lotes,tetris,greedy")
    ap.add_argument("--out", default=os.path.join(root, "target", "sim-lotes"))
    return ap.parse_args(argv)


def single_task_jobs(lines):
    """A trace's lines -> one ``submit 1 d d`` line per task duration ``d``, in order."""
    for line in lines:
        p = line.split()
        if p:
            yield from (f"{p[0]} 1 {d} {d}\n" for d in p[3:])


def write_singles(src: str, dst: str) -> None:
    with trace.open_text(src) as f, open(dst + ".tmp", "w") as out:
        out.writelines(single_task_jobs(f))
    os.replace(dst + ".tmp", dst)


def gen_args(args) -> str:
    """What a seed's ``.args`` file holds: the gen options its trace was made with."""
    return f"{args.jobs} {args.nodes} {args.load}"


def traces(args, binary, like, classes, seeds) -> dict:
    """``{seed: trace path}``, generating each trace whose ``.args`` do not match."""
    out = {}
    for s in seeds:
        t = os.path.join(args.out, f"goog-lotes-s{s}.tr")
        out[s] = t
        if os.path.exists(t + ".demands") and os.path.exists(t + ".args"):
            with open(t + ".args") as f:
                if f.read() == gen_args(args):
                    continue
        sim.run([binary, "-q", "gen", "--like", like, "--jobs", str(args.jobs), "--nodes", str(args.nodes),
                 "--load", str(args.load), "--seed", str(s), "--classes", classes, "--out", t], "sim-lotes")
        with open(t + ".args", "w") as f:
            f.write(gen_args(args))
    return out


def cached_run(cmd: list, path: str) -> dict:
    """The report of ``cmd``, from ``path`` if that holds the same command's, else run and kept there."""
    if os.path.exists(path):
        with open(path) as f:
            r = json.load(f)
        if r.get("cmd") == cmd:
            return r
    t0 = time.time()
    r = sim.run_json(cmd, "sim-lotes")
    r["elapsed"] = time.time() - t0
    r["cmd"] = cmd
    with open(path + ".tmp", "w") as f:
        json.dump(r, f)
    os.replace(path + ".tmp", path)
    return r


def offered_line(results, systems, seeds) -> str:
    first = results[(systems[0], seeds[0])]
    offered = ", ".join(f"{n} {100 * sim.mean([results[(systems[0], s)]['offered'][i][1] for s in seeds]):.0f}%"
                        for i, (n, _) in enumerate(first["offered"]))
    return (f"\n{first['machine_count']} machines in {first['configs']} configurations; {first['jobs']} jobs, "
            f"{first['tasks']} tasks per trace; offered " + offered)


def summarise(sy: str, rs: list) -> dict:
    """One system's row from its runs (one report per seed)."""
    mean = sim.mean
    row = {k: mean([r["response"][k] for r in rs]) for k in RESPONSE}
    row["short_p50"] = mean([r["short"]["p50"] for r in rs])
    row["short_p99"] = mean([r["short"]["p99"] for r in rs])
    row["long_p50"] = mean([r["long"]["p50"] for r in rs if r["long"]["p50"] is not None])
    row["wall"] = max(r["elapsed"] for r in rs)
    row["per_seed_mean"] = [r["response"]["mean"] for r in rs]
    if sy == "lotes":
        row["plan_seconds"] = max(r["plan"]["seconds"] for r in rs)
        row["plan"] = rs[0]["plan"]
    return row


def row_line(sy: str, row: dict) -> str:
    return (f"{sy:8} {row['mean']:14.3f} {row['p99']:13.2f} {row['p50']:9.3f} | {row['short_p50']:9.1f} "
            f"{row['short_p99']:10.1f} {row['long_p50']:9.1f} | {row['wall']:7.1f}  "
            + " ".join(f"{v:.3g}" for v in row["per_seed_mean"]))


def times(a: float, b: float) -> str:
    """``a / b`` as ``1.2345x``; ``n/a`` when ``b`` is 0 (at a light load nothing waits under the
    baseline)."""
    return f"{a / b:.4f}x" if b else "n/a"


def lotes_lines(rows: dict) -> list:
    """LoTES against tetris and greedy, and its plan (nothing without a lotes row)."""
    if "lotes" not in rows:
        return []
    lines = []
    lo = rows["lotes"]
    for other in ("tetris", "greedy"):
        if other in rows:
            o = rows[other]
            seeds = [a / b for a, b in zip(lo["per_seed_mean"], o["per_seed_mean"]) if b]
            per_seed = times(sim.mean(seeds), 1.0) if seeds else "n/a"
            lines.append(f"lotes / {other}: mean response {times(lo['mean'], o['mean'])}, "
                         f"p99 {times(lo['p99'], o['p99'])} (mean of per-seed ratios {per_seed})")
    p = lo["plan"]
    lines.append(f"lotes plan: at most {lo['plan_seconds']:.3f} s (k-means + allocation LP + {p['bins']} bins + "
                 f"machine-assignment LP), lambda fluid {p['lambda_fluid']:.4f} / LP {p['lambda_lp']:.4f} / "
                 f"rounded {p['lambda_rounded']:.4f} tasks/s, |K^j| {p['classes_per_config']}")
    return lines


def main(argv=None, root=sim.ROOT) -> int:
    args = parse_args(argv, root)
    seeds = sim.seed_list(args.quick, args.seeds)
    systems = args.systems.split(",")
    binary = sim.binary(root)
    machines = os.path.join(root, "rust", "eagle-sim", "data", "lotes-table1.machines")
    classes = os.path.join(root, "rust", "eagle-sim", "data", "lotes-table2.classes")
    like = trace.find(root, "GOOG_subtrace")
    if like is None:
        sys.exit("sim-lotes: GOOG_subtrace not found in traces/ or ../shared/traces")
    os.makedirs(args.out, exist_ok=True)
    singles = os.path.join(args.out, "goog-tasks.tr")
    if not os.path.exists(singles):
        write_singles(like, singles)
    by_seed = traces(args, binary, singles, classes, seeds)
    runs_dir = os.path.join(args.out, "runs")
    os.makedirs(runs_dir, exist_ok=True)

    def run(system, s):
        cmd = [binary, "-q", "run", "--trace", by_seed[s], "--system", system, "--nodes", "1", "--machines", machines,
               "--machine-scale", args.machine_scale, "--seed", str(s), "--json"]
        return cached_run(cmd, os.path.join(runs_dir, f"{system}-s{s}.json"))

    tasks = [(sy, s) for s in seeds for sy in systems]
    print(f"sim-lotes: {len(tasks)} runs: {args.jobs} single-task jobs like GOOG_subtrace's tasks, gen --nodes {args.nodes} "
          f"--load {args.load}, Table 1 x {args.machine_scale}", flush=True)
    results = {}
    t0 = time.time()
    for i, ((sy, s), r) in enumerate(sim.pool(run, tasks), 1):
        results[(sy, s)] = r
        print(f"sim-lotes: {i}/{len(tasks)} ({sy} seed {s}: response mean {r['response']['mean']:.3f} s, "
              f"p99 {r['response']['p99']:.1f} s, {r['elapsed']:.1f} s wall), {time.time() - t0:.0f} s elapsed", flush=True)

    print(offered_line(results, systems, seeds))
    print(f"{'system':8} {'mean resp (s)':>14} {'p99 resp (s)':>13} {'p50 (s)':>9} | {'short p50':>9} {'short p99':>10} "
          f"{'long p50':>9} | {'wall s':>7}  per-seed mean")
    rows = {}
    for sy in systems:
        rows[sy] = summarise(sy, [results[(sy, s)] for s in seeds])
        print(row_line(sy, rows[sy]))
    for line in lotes_lines(rows):
        print(line)
    path = sim.write_results(args.out, {"args": vars(args), "seeds": seeds, "summary": rows,
                                        "runs": list(results.values())})
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
