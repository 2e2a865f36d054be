"""``scripts/bench eirene [--quick]``: Eirene's schemes in real Spark against Eagle alone.

Short jobs of sleeping tasks (the plugin's benchmark jar, ``StragglerSleepJob``) arrive as a
Poisson stream at a heavy and at a light load. A fraction of the tasks straggle: their first
attempt sleeps x3 to x10 its duration (the paper's straggler statistics, §II-D / Table I: 4.4%
to 10.7% of short tasks are stragglers, "up to 8 times longer than the mean"; default 10.7%,
Yahoo's, factors uniform in [3, 10]). A straggler is slow where its attempt runs, so a clone
started elsewhere is not (see StragglerSleepJob).

Cold input (``--eirene-input-mb``, default 8; 0 = none): before the plans, each application
caches a dataset of ``--eirene-partitions`` blocks (default 64) of that size in its executors'
memory, one block per partition, spread over the executors as Spark places them; each task of
a short job first reads one block (distinct per job, drawn by the plan) and then sleeps
(``ColdInputJob``). A block lives in one executor's memory, so a task running anywhere else
reads it over the testbed's shaped links: the network is ``congested`` (tbf at ``--rate``,
100 mbit by default, both ways per host) whenever there is input, so that a cold read costs
real transfer time (8 MiB: about 0.7 s alone on the link). That is Eirene's cold data on a
store reached over the network; CCDM copies a waiting task's block into the memory of an
executor where it may run, as the paper's worker migrates cold input into its RamDisk.

Variants, each its own Spark application per load on the same testbed: ``eagle`` (the
plugin's defaults), ``eagle+satc`` (``eirene.satc=true``), ``eagle+ccdm`` (``eirene.ccdm=true``
and the executors' plugin) and ``eagle+both``.

Writes ``target/bench/eirene/results.json``: per load and variant, short-job latency
p50/p90/p99 (mean over the seeds' runs), the ratio to ``eagle`` measured in the same
invocation, the clone counters of the run summary, and whether every job's output was exact
(each task's result taken once).
"""
from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time

VARIANTS = {"eagle": {}, "eagle+satc": {"eirene.satc": "true"}, "eagle+ccdm": {"eirene.ccdm": "true"},
            "eagle+both": {"eirene.satc": "true", "eirene.ccdm": "true"}}
CCDM_PLUGIN = "org.apache.spark.scheduler.eagle.EireneCcdmPlugin"
LOADS = {"heavy": 1.0, "light": 0.3}


def add_arguments(p) -> None:
    g = p.add_argument_group("eirene")
    g.add_argument("--eirene-jobs", type=int, help="short jobs per run (default 60; quick 24)")
    g.add_argument("--eirene-tasks", type=int, default=4, help="tasks per short job (default 4)")
    g.add_argument("--eirene-task-ms", type=int, default=1000, help="normal task duration, ms (default 1000)")
    g.add_argument("--straggler-fraction", type=float, default=0.107,
                   help="fraction of tasks whose first attempt straggles (default 0.107, Yahoo's)")
    g.add_argument("--slowdown", default="3,10", help="straggler slowdown range lo,hi (default 3,10)")
    g.add_argument("--loads", default="heavy=1.0,light=0.3",
                   help="name=offered load per level (default heavy=1.0,light=0.3)")
    g.add_argument("--variants", default=",".join(VARIANTS), help=f"comma list of {','.join(VARIANTS)}")
    g.add_argument("--eirene-input-mb", type=int, default=8,
                   help="MiB of cached input each task reads first (default 8; 0 = sleep only)")
    g.add_argument("--eirene-partitions", type=int, default=64,
                   help="blocks in the cached input dataset (default 64)")


def parse_loads(s: str) -> dict:
    out = {}
    for part in s.split(","):
        name, _, v = part.partition("=")
        try:
            x = float(v)
        except ValueError:
            raise SystemExit(f"eirene: bad --loads entry {part!r} (expected name=number)")
        if not name or not 0 < x <= 4:
            raise SystemExit(f"eirene: bad --loads entry {part!r} (load must be in (0, 4])")
        out[name] = x
    return out


def build_plan(seed: int, load: float, slots: int, jobs: int, tasks: int, task_ms: int,
               fraction: float, slowdown: tuple, partitions: int = 0) -> dict:
    """Jobs with Poisson arrivals sized so that the offered work (stragglers' first attempts
    included; the input reads are not counted) over the arrival span is ``load`` x the slots.
    With ``partitions``, each job's tasks read distinct random blocks of the cached input."""
    rng = random.Random(seed * 7919 + int(load * 1000))
    lo, hi = slowdown
    plan = []
    work_ms = 0.0
    for j in range(jobs):
        slow = [round(rng.uniform(lo, hi), 2) if rng.random() < fraction else 1.0 for _ in range(tasks)]
        durs = [task_ms] * tasks
        work_ms += sum(d * f for d, f in zip(durs, slow))
        job = {"id": j, "durations_ms": durs, "slowdowns": slow}
        if partitions:
            job["parts"] = rng.sample(range(partitions), tasks)
        plan.append(job)
    mean_gap = work_ms / jobs / 1000.0 / (slots * load)
    t = 0.0
    for job in plan:
        job["arrival_s"] = round(t, 3)
        t += rng.expovariate(1.0 / mean_gap)
    stragglers = sum(1 for job in plan for f in job["slowdowns"] if f > 1)
    return {"jobs": plan, "meta": {"seed": seed, "load": load, "mean_interarrival_s": mean_gap,
                                   "tasks": jobs * tasks, "straggler_tasks": stragglers}}


# ---------------------------------------------------------------- inside the driver process

def run_eirene(spark, cfg: dict) -> dict:
    """Every plan of cfg["plans"] in turn (drained in between)."""
    from .jobs import log, set_props, wait_quiet
    from .schedulers import job_properties
    sc = spark.sparkContext
    job_cls = sc._jvm.org.apache.spark.scheduler.eagle.StragglerSleepJob
    cold = sc._jvm.org.apache.spark.scheduler.eagle.ColdInputJob
    inp = cfg.get("input") or {}
    if inp.get("mb"):
        n = cold.prepare(sc._jsc.sc(), inp["partitions"], inp["mb"])
        log(f"cached input: {n} blocks of {inp['mb']} MiB")
    out = []
    for p in cfg["plans"]:
        with open(p["path"]) as f:
            plan = json.load(f)
        wait_quiet(spark)
        jobs = plan["jobs"]
        records = [None] * len(jobs)
        task_ms = jobs[0]["durations_ms"][0]

        def one(job, at):
            props = job_properties(cfg["scheduler"], "short", task_ms, pass_class=True)
            props["spark.job.description"] = f"eirene {p['tag']} job {job['id']}"
            set_props(sc, props)
            start = time.time()
            err = None
            try:
                durs = ",".join(map(str, job["durations_ms"]))
                slows = ",".join(map(str, job["slowdowns"]))
                k = len(job["durations_ms"])
                if "parts" in job:
                    n, s, b = (int(x) for x in cold.run(sc._jsc.sc(), ",".join(map(str, job["parts"])),
                                                        durs, slows).split(","))
                    want_b = k * (inp["mb"] << 20)
                else:
                    n, s = (int(x) for x in job_cls.run(sc._jsc.sc(), durs, slows).split(","))
                    b = want_b = 0
                if (n, s, b) != (k, k * (k - 1) // 2, want_b):
                    err = f"output not exact: {n} results (index sum {s}, {b} bytes) for {k} tasks"
            except Exception as e:  # a failed job is reported, not fatal to the run
                err = str(e).splitlines()[0][:300]
            end = time.time()
            records[job["id"]] = {"id": job["id"], "class": "short", "tasks": len(job["durations_ms"]),
                                  "stragglers": sum(1 for f in job["slowdowns"] if f > 1),
                                  "latency": end - at, "submit_lag": start - at, "ok": err is None,
                                  "error": err}

        threads = []
        t0 = time.time() + 1.0
        log(f"{p['tag']}: {len(jobs)} jobs over {jobs[-1]['arrival_s']:.1f}s")
        for job in jobs:
            at = t0 + job["arrival_s"]
            delay = at - time.time()
            if delay > 0:
                time.sleep(delay)
            th = threading.Thread(target=one, args=(job, at), daemon=True)
            th.start()
            threads.append(th)
        for th in threads:
            th.join()
        wall = time.time() - t0
        out.append({"tag": p["tag"], "jobs": records, "wall_seconds": wall,
                    "correct": all(r and r["ok"] for r in records)})
        log(f"{p['tag']}: done in {wall:.1f}s")
    return {"plans_run": out, "correct": all(r["correct"] for r in out)}


# ---------------------------------------------------------------- the orchestrator

def summarise(results_runs: list, loads: dict, variants: list) -> dict:
    from . import stats
    out = {}
    for load in loads:
        row = {}
        for v in variants:
            rs = [r for r in results_runs if r["load"] == load and r["variant"] == v and r["correct"]]
            row[v] = {"runs": len(rs),
                      "short": {k: stats.mean_of([r["short"] for r in rs], k) for k in ("p50", "p90", "p99")}}
        base = row.get("eagle")
        for v in variants:
            if v != "eagle" and base:
                row[v]["vs_eagle"] = {k: stats.ratio(row[v]["short"][k], base["short"][k])
                                      for k in ("p50", "p90", "p99")}
        out[load] = row
    return out


def main(args) -> int:
    from . import harness, stats
    from .progress import Steps
    from .schedulers import spark_conf
    log = harness.log
    q = args.quick
    loads = parse_loads(args.loads)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    for v in variants:
        if v not in VARIANTS:
            raise SystemExit(f"eirene: unknown variant {v!r} (known: {', '.join(VARIANTS)})")
    if args.eirene_input_mb < 0 or args.eirene_partitions < args.eirene_tasks:
        raise SystemExit(f"eirene: --eirene-input-mb must be >= 0 and --eirene-partitions >= --eirene-tasks "
                         f"({args.eirene_tasks}), got {args.eirene_input_mb} and {args.eirene_partitions}")
    parts = args.eirene_partitions if args.eirene_input_mb else 0
    if parts and args.network != "congested":
        log(f"eirene: cold input over the shaped network: --network congested (tbf {args.rate} per host)")
        args.network = "congested"
    try:
        lo, hi = (float(x) for x in args.slowdown.split(","))
        assert 1 <= lo <= hi
    except (ValueError, AssertionError):
        raise SystemExit(f"eirene: bad --slowdown {args.slowdown!r} (expected lo,hi with 1 <= lo <= hi)")
    if not 0 <= args.straggler_fraction <= 1:
        raise SystemExit(f"eirene: --straggler-fraction must be in [0, 1], got {args.straggler_fraction}")
    n_jobs = args.eirene_jobs or (24 if q else 60)
    out_dir = os.path.join(args.out, "eirene")
    os.makedirs(out_dir, exist_ok=True)
    tbed = harness.Testbed(args)

    harness.on_signals(tbed.down)

    runs, failed = [], []
    harness.wait_idle(args)
    try:
        tb = tbed.up()
        log(f"testbed: {tb['mode']}, master {tb['master']}, {tb['hosts']} hosts, {tb['slots']} slots")
        steps = Steps(len(loads) * len(variants), log, "application")
        for load, level in loads.items():
            plans = []
            for seed in args.seeds:
                plan = build_plan(seed, level, tb["slots"], n_jobs, args.eirene_tasks, args.eirene_task_ms,
                                  args.straggler_fraction, (lo, hi), parts)
                tag = f"{load}-s{seed}"
                path = os.path.join(out_dir, f"plan-{tag}.json")
                with open(path, "w") as f:
                    json.dump(plan, f)
                plans.append({"tag": tag, "path": path, "seed": seed, "meta": plan["meta"]})
                m = plan["meta"]
                log(f"{tag}: load {level:g}, {m['tasks']} tasks ({m['straggler_tasks']} stragglers), "
                    f"mean inter-arrival {m['mean_interarrival_s']:.2f}s")
            for v in variants:
                steps.start(f"{load} / {v}")
                harness.wait_idle(args, harness.TESTBED_STATE)
                run_dir = os.path.join(out_dir, "runs", f"{load}-{v}")
                shutil.rmtree(run_dir, ignore_errors=True)
                os.makedirs(run_dir)
                conf = spark_conf("eagle", tb, run_dir, harness.ROOT, eagle={**dict(args.eagle_conf), **VARIANTS[v]})
                if "eirene.ccdm" in VARIANTS[v]:
                    conf["spark.plugins"] = CCDM_PLUGIN
                cfg = {"workload": "eirene", "scheduler": "eagle", "testbed": tb,
                       "plans": [{"tag": p["tag"], "path": p["path"]} for p in plans],
                       "input": {"mb": args.eirene_input_mb, "partitions": parts},
                       "spark_conf": conf}
                res = harness.run_driver(run_dir, cfg, timeout=1800 if q else 5400)
                summary = {}
                try:
                    with open(os.path.join(run_dir, "eagle-summary.json")) as f:
                        summary = json.load(f)
                except (OSError, ValueError):
                    pass
                by_tag = {r["tag"]: r for r in res.get("plans_run") or []}
                for p in plans:
                    rr = by_tag.get(p["tag"]) or {}
                    lat = [j["latency"] for j in rr.get("jobs") or [] if j]
                    ok = bool(res.get("ok") and rr.get("correct"))
                    runs.append({"load": load, "offered_load": level, "variant": v, "seed": p["seed"],
                                 "short": stats.summary(lat), "correct": ok,
                                 "wall_seconds": rr.get("wall_seconds"), "error": res.get("error"),
                                 "straggler_tasks": p["meta"]["straggler_tasks"],
                                 "latencies": [round(x, 4) for x in lat]})
                    r = runs[-1]
                    log(f"  {load} / {v} seed {p['seed']}: short p50/p90/p99 = "
                        + "/".join(f"{(r['short'].get(k) or 0):.2f}" for k in ("p50", "p90", "p99"))
                        + ("" if ok else f" | FAILED: {r['error'] or 'output not exact'}"))
                    if not ok:
                        failed.append(f"{load}/{v}/s{p['seed']}")
                # clone counters of the application (all seeds of this load)
                for r in runs:
                    if r["load"] == load and r["variant"] == v:
                        r["eirene_app_counters"] = summary.get("eirene")
                        r["fallback"] = summary.get("fallback")
                if summary.get("eirene"):
                    log(f"  {load} / {v}: {summary['eirene']}")
        steps.finish()
    finally:
        tbed.down()
    results = {"scenario": "eirene", "testbed": harness.testbed_json(tb) if runs else None,
               "workload": {"jobs": n_jobs, "tasks_per_job": args.eirene_tasks, "task_ms": args.eirene_task_ms,
                            "straggler_fraction": args.straggler_fraction, "slowdown": [lo, hi],
                            "input_mb": args.eirene_input_mb, "input_partitions": parts, "network": args.network,
                            "loads": loads, "seeds": args.seeds, "variants": variants},
               "runs": runs, "summary": summarise(runs, loads, variants)}
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    log(f"wrote {os.path.join(out_dir, 'results.json')}")
    for load, row in results["summary"].items():
        for v, x in row.items():
            log(f"{load} {v}: short p50/p90/p99 "
                + "/".join(f"{(x['short'][k] or 0):.2f}" for k in ("p50", "p90", "p99"))
                + (f"  vs eagle {x['vs_eagle']}" if "vs_eagle" in x else ""))
    if failed:
        log(f"FAILED: {', '.join(failed)}")
    return 1 if failed else 0
