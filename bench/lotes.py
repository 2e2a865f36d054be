"""LoTES on the testbed: ``scripts/bench lotes [--quick]``.

Heterogeneous hosts (``scripts/testbed.sh --cores-list``: workers with different core
counts; the tasks sleep, so the cores need not be real) and a mixed-profile replay: jobs
whose stage asks 1, 2 or 4 cpus per task (a TaskResourceProfile, stage-level scheduling),
arriving as a Poisson stream at ``--lotes-load`` of the cluster's cores. Every job returns
its partition numbers, checked exactly. Schedulers: stock FIFO, stock FAIR, eagle, and
eagle with ``spark.scheduler.eagle.placement=lotes``; the metric is the job wait, from the
job's submission to its first task's launch (the LoTES paper's response time), read from
the event log. Writes ``target/bench/lotes/results.json``.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import threading
import time

SCHEDULERS = ("fifo", "fair", "eagle", "eagle-lotes")
PROFILES = ((1, 0.5), (2, 0.3), (4, 0.2))       # (cpus per task, share of jobs)
TASKS = {1: (2, 6), 2: (1, 3), 4: (1, 2)}       # tasks per job, uniform in [lo, hi]


def add_arguments(p):
    p.add_argument("--lotes-load", type=float, default=0.9,
                   help="lotes: offered cpu-seconds per second / total cores (default 0.9)")
    p.add_argument("--cores-list", help="lotes: cores of each host (default 4,4,2,2,1,1; quick 4,2,1,1)")


def workload(seed: int, n_jobs: int, cores: int, load: float) -> list:
    """Jobs: arrival (s), cpus per task, tasks, task duration (s); deterministic per seed."""
    rng = random.Random(seed)
    jobs = []
    for i in range(n_jobs):
        u, acc, cpus = rng.random(), 0.0, PROFILES[-1][0]
        for c, share in PROFILES:
            acc += share
            if u < acc:
                cpus = c
                break
        lo, hi = TASKS[cpus]
        jobs.append({"id": i, "cpus": cpus, "tasks": rng.randint(lo, hi),
                     "duration_s": round(rng.uniform(1.0, 3.0), 3)})
    work = sum(j["cpus"] * j["tasks"] * j["duration_s"] for j in jobs) / n_jobs
    rate = load * cores / work                    # jobs per second
    t, at = 0.0, []
    for _ in jobs:
        at.append(t)
        t += rng.expovariate(rate)
    # Stretch the sampled arrivals so that the offered load over their span is `load` exactly
    # (a short Poisson sample can be far off: seed 1's 40 jobs came out at 1.4).
    total = sum(j["cpus"] * j["tasks"] * j["duration_s"] for j in jobs)
    stretch = total / (load * cores) / at[-1] if at[-1] > 0 else 1.0
    for j, a in zip(jobs, at):
        j["arrival_s"] = round(a * stretch, 3)
    return jobs


def offered(jobs: list, cores: int) -> float:
    """Cpu-seconds the jobs ask per second of their arrival span, over the cores."""
    span = jobs[-1]["arrival_s"] or 1.0
    return sum(j["cpus"] * j["tasks"] * j["duration_s"] for j in jobs) / span / cores


# ---------------------------------------------------------------- in the driver (bench.driver)

def _sleeper(seconds):
    def f(it):
        import time as _t
        _t.sleep(seconds)
        return list(it)
    return f


def run_lotes(spark, cfg: dict) -> dict:
    """Replays every plan of ``cfg["plans"]`` in turn (draining in between)."""
    from pyspark.resource import ResourceProfileBuilder, TaskResourceRequests

    from .jobs import log, set_props, wait_quiet
    from .schedulers import job_properties
    sc = spark.sparkContext
    profiles = {c: ResourceProfileBuilder().require(TaskResourceRequests().cpus(c)).build
                for c, _ in PROFILES if c > 1}
    out = []
    for plan in cfg["plans"]:
        jobs, tag = plan["jobs"], plan["tag"]
        records = [None] * len(jobs)

        def one(job, at):
            props = job_properties(cfg["scheduler"], "short", pass_class=False)
            props["bench.plan"] = tag
            props["bench.job"] = str(job["id"])
            set_props(sc, props)
            err = None
            try:
                n = job["tasks"]
                rdd = sc.parallelize(range(n), n)
                if job["cpus"] > 1:
                    rdd = rdd.withResources(profiles[job["cpus"]])
                got = sorted(rdd.mapPartitions(_sleeper(job["duration_s"])).collect())
                if got != list(range(n)):
                    err = f"wrong result {got[:10]}"
            except Exception as e:  # reported, not fatal
                err = str(e).splitlines()[0][:300]
            records[job["id"]] = {"id": job["id"], "cpus": job["cpus"], "arrival": at, "end": time.time(),
                                  "ok": err is None, "error": err}

        t0 = time.time() + 1.0
        threads = []
        log(f"{tag}: {len(jobs)} jobs over {jobs[-1]['arrival_s']:.0f}s")
        for job in jobs:
            delay = t0 + job["arrival_s"] - time.time()
            if delay > 0:
                time.sleep(delay)
            th = threading.Thread(target=one, args=(job, t0 + job["arrival_s"]), daemon=True)
            th.start()
            threads.append(th)
        for th in threads:
            th.join()
        log(f"{tag}: done in {time.time() - t0:.1f}s")
        out.append({"tag": tag, "jobs": records, "correct": all(r and r["ok"] for r in records)})
        wait_quiet(spark)
    return {"replays": out}


def job_waits(events_paths) -> dict:
    """``{(plan, job): wait s}`` from an event log: first task launch minus job submission."""
    from .eventlog import events
    sub, stage_job, first = {}, {}, {}
    for ev in events(events_paths):
        kind = ev.get("Event")
        if kind == "SparkListenerJobStart":
            p = ev.get("Properties") or {}
            if "bench.job" not in p:
                continue
            key = (p.get("bench.plan"), int(p["bench.job"]))
            sub[key] = ev.get("Submission Time")
            for s in ev.get("Stage IDs", []):
                stage_job[s] = key
        elif kind == "SparkListenerTaskStart":
            key = stage_job.get(ev.get("Stage ID"))
            t = (ev.get("Task Info") or {}).get("Launch Time")
            if key is not None and t is not None:
                first[key] = min(first.get(key, t), t)
    return {k: (first[k] - sub[k]) / 1000.0 for k in sub if k in first and sub[k] is not None}


# ---------------------------------------------------------------- orchestration

def main(args) -> int:
    from . import harness, stats
    from .eventlog import find_log
    from .schedulers import spark_conf
    log = harness.log
    q = args.quick
    args.cores_list = args.cores_list or ("4,2,1,1" if q else "4,4,2,2,1,1")
    cores = [int(c) for c in args.cores_list.split(",")]
    args.workers = len(cores)
    args.cores = max(cores)
    n_jobs = 40 if q else 60
    seeds = args.seeds
    out_dir = os.path.join(args.out, "lotes")
    os.makedirs(out_dir, exist_ok=True)
    plans = [{"tag": f"s{s}", "seed": s, "jobs": workload(s, n_jobs, sum(cores), args.lotes_load)}
             for s in seeds]
    scheds = list(SCHEDULERS)
    tbed = harness.Testbed(args)
    runs, failed = [], False
    try:
        tb = tbed.up()
        tb["slots"] = sum(cores)
        log(f"lotes: hosts with {args.cores_list} cores, {n_jobs} jobs per seed {seeds}, load {args.lotes_load}")
        for sched in scheds:
            harness.wait_idle(args, harness.TESTBED_STATE)
            run_dir = os.path.join(out_dir, "runs", sched)
            shutil.rmtree(run_dir, ignore_errors=True)
            os.makedirs(run_dir)
            base = "eagle" if sched.startswith("eagle") else sched
            conf = spark_conf(base, tb, run_dir, harness.ROOT,
                              eagle={"placement": "lotes"} if sched == "eagle-lotes" else None)
            conf.pop("spark.executor.cores", None)   # one executor per worker, all its cores
            cfg = {"workload": "lotes", "scheduler": base, "testbed": tb, "plans": plans, "spark_conf": conf}
            span = sum(p["jobs"][-1]["arrival_s"] for p in plans)
            res = harness.run_driver(run_dir, cfg, timeout=span * 8 + 900)
            ev = find_log(os.path.join(run_dir, "events"))
            waits = job_waits(ev) if ev else {}
            by_tag = {r["tag"]: r for r in res.get("replays") or []}
            for p in plans:
                rr = by_tag.get(p["tag"]) or {}
                w = [waits[(p["tag"], j["id"])] for j in p["jobs"] if (p["tag"], j["id"]) in waits]
                ok = bool(res.get("ok") and rr.get("correct") and len(w) == len(p["jobs"]))
                failed |= not ok
                s = stats.summary(w)
                runs.append({"scheduler": sched, "seed": p["seed"], "correct": ok, "error": res.get("error"),
                             "wait": s, "mean_wait": (sum(w) / len(w)) if w else None,
                             "wait_by_cpus": {str(c): (lambda x: sum(x) / len(x) if x else None)(
                                 [waits[(p["tag"], j["id"])] for j in p["jobs"]
                                  if j["cpus"] == c and (p["tag"], j["id"]) in waits]) for c, _ in PROFILES},
                             "short": s, "long": stats.summary([]), "latencies": {"short": w, "long": []}})
                r = runs[-1]
                log(f"  {sched} {p['tag']}: mean wait {r['mean_wait'] if r['mean_wait'] is not None else float('nan'):.2f}s "
                    f"p99 {s.get('p99') or 0:.2f}s{'' if ok else ' | FAILED: ' + str(res.get('error'))}")
    finally:
        tbed.down()
    summary = {}
    for sched in scheds:
        ms = [r["mean_wait"] for r in runs if r["scheduler"] == sched and r["correct"]]
        summary[sched] = {"runs": len(ms), "mean_wait": sum(ms) / len(ms) if ms else None}
    lw = (summary.get("eagle-lotes") or {}).get("mean_wait")
    ratios = {f"lotes_vs_{s}": stats.ratio(lw, (summary.get(s) or {}).get("mean_wait"))
              for s in ("fifo", "fair", "eagle") if s in summary}
    results = {"scenario": "lotes", "testbed": dict(harness.testbed_json(tb), cores_list=cores) if runs else {},
               "load": args.lotes_load, "jobs_per_seed": n_jobs, "seeds": seeds, "profiles": PROFILES,
               "offered_load": {p["tag"]: round(offered(p["jobs"], sum(cores)), 3) for p in plans},
               "runs": runs, "summary": summary, "ratios": ratios}
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    log(f"wrote {os.path.join(out_dir, 'results.json')}: " +
        ", ".join(f"{s} {v['mean_wait']:.2f}s" if v["mean_wait"] is not None else f"{s} -" for s, v in summary.items()) +
        f"; {ratios}")
    return 1 if failed else 0
