"""The benchmark orchestrator behind ``scripts/bench``.

    scripts/bench {replay,tpch,sort,all,dds,cluster,lotes,eirene,server} [--quick] [options]

Brings the testbed up once (``scripts/testbed.sh``), runs every scheduler (fifo, fair, eagle)
on it, one Spark application at a time (``python -m bench.driver``), tears the testbed down
whatever happens, and writes ``target/bench/<scenario>/{results.json,report.html,*.png}``.
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import shutil
import sys

from . import harness, stats, trace
from .harness import (ROOT, Testbed, log, resolve_trace, run_driver, spark_home, testbed_json,
                      wait_idle, write_results)
from .progress import Steps
from .schedulers import SCHEDULERS, eagle_conf_item, eagle_keys, find_bench_jar, find_jar, spark_conf, split_conf

# ---------------------------------------------------------------- options

def parse_args(argv):
    p = argparse.ArgumentParser(prog="scripts/bench", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenario", choices=["replay", "tpch", "sort", "all", "dds", "lotes", "eirene", "cluster", "server"])
    p.add_argument("--quick", action="store_true", help="small sizes; finishes in a few minutes")
    p.add_argument("--schedulers", default=",".join(SCHEDULERS),
                   help="comma list of fifo,fair,eagle (default: all three); replay/tpch/sort also take "
                        "eagle+KEY=VALUE[+KEY=VALUE...], an eagle run with its own spark.scheduler.eagle.* keys "
                        "beside the others, e.g. fair,eagle,eagle+hold.maxMs=0")
    p.add_argument("--out", default=os.path.join(ROOT, "target", "bench"))
    p.add_argument("--eagle-conf", action="append", default=[], metavar="KEY=VALUE", type=eagle_conf_item,
                   help="replay/tpch/sort/server: a spark.scheduler.eagle.* key for the eagle runs (repeatable; "
                        "the prefix may be left out), e.g. --eagle-conf eirene.satc=true")
    # testbed
    p.add_argument("--workers", type=int, help="hosts (default 8; quick 4)")
    p.add_argument("--cores", type=int, help="slots per host (default 2)")
    p.add_argument("--worker-memory", default="1g")
    p.add_argument("--executor-memory", default="768m")
    p.add_argument("--executor-java-options", default=None, metavar="OPTS",
                   help="spark.executor.extraJavaOptions of every application under every scheduler "
                        "(e.g. '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC'; one option alone wants the = form, "
                        "--executor-java-options=-XX:+UseSerialGC; default: none)")
    p.add_argument("--driver-java-options", default=None, metavar="OPTS",
                   help="added to every driver's spark.driver.extraJavaOptions (after -XX:+UseParallelGC); "
                        "give it in the = form, since OPTS starts with a dash, e.g. a JFR recording: "
                        "--driver-java-options=-XX:StartFlightRecording=filename=/tmp/jfr/,settings=profile")
    p.add_argument("--network", choices=["fast", "congested"], default="fast")
    p.add_argument("--rate", default="100mbit", help="per-host bandwidth when congested")
    p.add_argument("--local", action="store_true", help="use local-cluster[...] instead of namespaces")
    p.add_argument("--host-cpu", choices=["shared", "isolated"], default="shared",
                   help="isolated: a cpu cgroup of equal weight for each testbed host (scripts/testbed.sh --host-cpu)")
    p.add_argument("--no-wait-idle", action="store_true",
                   help="do not wait for other Spark processes on this machine to finish first "
                        "(another scripts/bench is never shared with: then stop at once)")
    p.add_argument("--max-idle-wait", type=float, default=600,
                   help="wait at most this long (s) for other Spark processes, then go on, or for "
                        "another scripts/bench, then stop (default 600)")
    # replay
    p.add_argument("--trace", default="YH2_sub.tr.xz",
                   help="trace file, or a name in ../shared/traces (default YH2_sub.tr.xz)")
    p.add_argument("--synth", action="store_true",
                   help="replay a trace synthesized with `eagle-sim gen --like TRACE` instead")
    p.add_argument("--cutoff", type=float, help="short/long cutoff in trace seconds (default by trace family)")
    p.add_argument("--ratios", help="comma list of inter-arrival/task-runtime ratios (default 1.2,2.0; quick 1.2)")
    p.add_argument("--seeds", help="comma list of seeds, one run each (default 1,2,3; quick 1)")
    p.add_argument("--jobs", type=int, help="jobs per replay run (default 200; quick 60)")
    # tpch / sort
    p.add_argument("--sf", type=float, help="TPC-H scale factor (default 1; quick 0.05)")
    p.add_argument("--parts", type=int, help="parquet files per table (default 16; quick 8)")
    p.add_argument("--sort-gb", type=float, help="sort input size in GB of 8-byte integers (default 1; quick 0.08)")
    p.add_argument("--queries", help="comma list of TPC-H queries (default all 22; quick 1,3,5,6,10,12,14,19)")
    p.add_argument("--lead", type=float, default=3.0, help="seconds between the batch start and the first query")
    p.add_argument("--gap", type=float, default=1.5, help="seconds between query arrivals")
    p.add_argument("--sort-alone-only", action="store_true",
                   help="sort: the sort alone only, without the TPC-H stream after it (writes sort/ only)")
    from . import dds
    dds.add_arguments(p)       # the dds scenario's own options (bench/dds.py)
    from . import lotes
    lotes.add_arguments(p)     # the lotes scenario's own options (bench/lotes.py)
    from . import eirene
    eirene.add_arguments(p)    # the eirene scenario's own options (bench/eirene.py)
    from . import cluster
    cluster.add_arguments(p)   # the cluster scenario's own options (bench/cluster.py)
    from . import server
    server.add_arguments(p)    # the server scenario's own options (bench/server.py)
    a = p.parse_args(argv)
    if a.sort_alone_only and a.scenario != "sort":
        p.error(f"--sort-alone-only is an option of the sort scenario, not of {a.scenario}")
    a.out = os.path.abspath(a.out)   # Spark takes file:// + it (the event log, the sort's output)
    q = a.quick
    a.workers = a.workers or (4 if q else 8)
    a.cores = a.cores or 2
    a.ratios = [float(x) for x in (a.ratios or ("1.2" if q else "1.2,2.0")).split(",")]
    a.seeds = [int(x) for x in (a.seeds or ("1" if q else "1,2,3")).split(",")]
    a.jobs = a.jobs or (60 if q else 200)
    a.sf = a.sf or (0.05 if q else 1.0)
    a.parts = a.parts or (8 if q else 16)
    a.sort_gb = a.sort_gb or (0.08 if q else 1.0)
    a.queries = [int(x) for x in (a.queries or (
        "1,3,5,6,10,12,14,19" if q else ",".join(str(i) for i in range(1, 23)))).split(",")]
    a.schedulers = [s.strip() for s in a.schedulers.split(",") if s.strip()]
    for s in a.schedulers:
        base, keys = split_conf(s)
        if base not in SCHEDULERS:
            p.error(f"unknown scheduler {base!r} in {s!r} (known: {', '.join(SCHEDULERS)})")
        if keys and base != "eagle":
            p.error(f"{s!r}: only eagle takes its own keys (eagle+KEY=VALUE)")
        if keys and a.scenario not in ("replay", "tpch", "sort", "all"):
            p.error(f"{s!r}: a scheduler's own keys are for replay, tpch and sort (here: --eagle-conf)")
    if len(set(a.schedulers)) < len(a.schedulers):
        p.error(f"a scheduler is named twice in --schedulers {','.join(a.schedulers)}")
    return a


def wanted_results(args) -> list:
    """The results a replay/tpch/sort/all invocation writes. The sort scenario's second phase
    is the TPC-H stream, so it writes both, unless only the sort alone is asked for."""
    if args.sort_alone_only:
        return ["sort"]
    return {"all": ["replay", "tpch", "sort"], "sort": ["tpch", "sort"]}.get(args.scenario, [args.scenario])


# ---------------------------------------------------------------- runs

def summarise_jobs(jobs):
    short = [j["latency"] for j in jobs if j and j.get("class") == "short"]
    long_ = [j["latency"] for j in jobs if j and j.get("class") == "long"]
    return stats.summary(short), stats.summary(long_), short, long_


def scenario_replay(args, tb, out_dir):
    path, cutoff = resolve_trace(args, out_dir, tb["slots"])
    jobs = trace.load_trace(path)
    log(f"replay: {os.path.basename(path)} ({len(jobs)} jobs), cutoff {cutoff} s, "
        f"ratios {args.ratios}, seeds {args.seeds}, {args.jobs} jobs per run")
    plans, metas, span_total = [], {}, 0.0
    for ratio in args.ratios:
        for seed in args.seeds:
            plan = trace.build_workload(jobs, slots=tb["slots"], ratio=ratio, n_jobs=args.jobs,
                                        seed=seed, cutoff_s=cutoff)
            m = plan["meta"]
            tag = f"r{ratio:g}-s{seed}"
            plan_path = os.path.join(out_dir, f"plan-{tag}.json")
            with open(plan_path, "w") as f:
                json.dump(plan, f)
            plans.append({"tag": tag, "path": plan_path, "ratio": ratio, "seed": seed})
            metas[tag] = m
            span_total += plan["jobs"][-1]["arrival_s"]
            log(f"ratio {ratio:g} seed {seed}: {m['short_jobs']} short + {m['long_jobs']} long jobs, "
                f"{m['tasks']} tasks, task scale {m['task_scale']:.4f}, mean inter-arrival "
                f"{m['mean_interarrival_s'] * 1000:.0f} ms, load {m['nominal_load']:.2f}")
    runs, adaptive = [], None
    steps = Steps(len(args.schedulers), log, "application")
    for sched in args.schedulers:
        # One application per scheduler replays every plan in turn, draining in between.
        steps.start(f"{sched}, {len(plans)} replays")
        wait_idle(args, harness.TESTBED_STATE)
        run_dir = os.path.join(out_dir, "runs", sched)
        shutil.rmtree(run_dir, ignore_errors=True)
        os.makedirs(run_dir)
        # Default keys: the jobs carry the trace's class and estimate hints, as before;
        # the cutoff is not set (eagle-adaptive learns it).
        base = split_conf(sched)[0]
        cfg = {"workload": "replay", "scheduler": base, "testbed": tb, "plans": plans,
               "spark_conf": spark_conf(base, tb, run_dir, ROOT, eagle=eagle_keys(args, sched))}
        log(f"  {sched}: {len(plans)} replays in one application")
        res = run_driver(run_dir, cfg, timeout=span_total * 8 + 900)
        if sched == "eagle":
            adaptive = adaptive_state(run_dir)
        by_tag = {r["tag"]: r for r in res.get("replays") or []}
        for p in plans:
            rr = by_tag.get(p["tag"]) or {"ok": False}
            rr = dict(rr, ok=bool(res.get("ok")) and p["tag"] in by_tag,
                      locality=(res.get("locality_by_plan") or {}).get(p["tag"]),
                      slot_ms=(res.get("slot_ms_by_plan") or {}).get(p["tag"]),
                      error=res.get("error"))
            runs.append(replay_run_entry(sched, p["ratio"], p["seed"], rr, metas[p["tag"]]))
            r = runs[-1]
            log(f"  {sched} {p['tag']}: short p50/p90/p99 = {fmt(r['short'])} | long = {fmt(r['long'])} | "
                f"wall {r['wall_seconds'] or 0:.1f}s, driver CPU {r['driver_cpu_s']} s, "
                f"slot load {fmt_load(r['slot_load'])} for {r['sample_load']} planned"
                f"{'' if r['correct'] else ' | FAILED: ' + str(r.get('error'))}")
    steps.finish()
    results = {"scenario": "replay", "testbed": testbed_json(tb), "trace": os.path.basename(path),
               "cutoff_s": cutoff, "runs": runs, "summary": replay_summary(runs, args),
               "adaptive": adaptive}
    return results


def adaptive_state(run_dir):
    """The eagle run's reservation and learned cutoff over time (summary ``adaptive``)."""
    try:
        with open(os.path.join(run_dir, "eagle-summary.json")) as f:
            s = json.load(f)
    except (OSError, ValueError):
        return None
    a = s.get("adaptive") or {}
    return {"policy": a.get("policy") or (s.get("config") or {}).get("policy"),
            "history": a.get("history") or [], "fallback": s.get("fallback")}


def replay_run_entry(sched, ratio, seed, res, meta):
    jobs = res.get("jobs") or []
    s, l, sl, ll = summarise_jobs(jobs)
    return {"scheduler": sched, "ratio": ratio, "seed": seed, "short": s, "long": l,
            "wall_seconds": res.get("wall_seconds"), "driver_cpu_s": res.get("driver_cpu_s"),
            "correct": bool(res.get("ok") and res.get("correct")),
            "error": res.get("error"), "locality": res.get("locality"), "work": res.get("work"),
            "tasks": sum(j.get("tasks", 0) for j in jobs if j),
            "load": meta.get("nominal_load"), "task_scale": meta.get("task_scale"),
            "sample_load": meta.get("sample_load"), "slot_load": slot_load(res.get("slot_ms"), meta),
            "latencies": {"short": [round(x, 4) for x in sl], "long": [round(x, 4) for x in ll]},
            "max_submit_lag": max((j.get("submit_lag", 0) for j in jobs if j), default=None)}


def slot_load(slot_ms, meta):
    """The load a replay put on the slots: how long its tasks held them (launch to finish,
    ``slot_ms``) over its arrival span times the slots. The plan's ``sample_load`` is the
    same ratio with the trace's durations, so the two differ by what a slot pays per task
    beyond its duration (launch, deserialisation, result) on this machine; a slot load above
    1 is an overload, whatever the plan says."""
    work, load = meta.get("work_s"), meta.get("sample_load")
    if slot_ms is None or not work or load is None:
        return None
    return round(load * slot_ms / 1000.0 / work, 3)


def fmt_load(x):
    return "-" if x is None else f"{x:.2f}"


def replay_summary(runs, args):
    """Per ratio: each scheduler's percentiles averaged over seeds, and the done criteria."""
    out = []
    for ratio in args.ratios:
        row = {"ratio": ratio, "schedulers": {}}
        for sched in args.schedulers:
            rs = [r for r in runs if r["ratio"] == ratio and r["scheduler"] == sched and r["correct"]]
            row["schedulers"][sched] = {
                "runs": len(rs),
                "short": {k: stats.mean_of([r["short"] for r in rs], k) for k in ("p50", "p90", "p99")},
                "long": {k: stats.mean_of([r["long"] for r in rs], k) for k in ("p50", "p90", "p99")},
                "slot_load": stats.mean_of(rs, "slot_load"),
            }
        sc = row["schedulers"]
        if "eagle" in sc:
            e = sc["eagle"]
            crit = {}
            if "fifo" in sc:
                crit["short_p99_vs_fifo"] = stats.ratio(e["short"]["p99"], sc["fifo"]["short"]["p99"])
                crit["long_p50_vs_fifo"] = stats.ratio(e["long"]["p50"], sc["fifo"]["long"]["p50"])
            if "fair" in sc:
                crit["short_p99_vs_fair"] = stats.ratio(e["short"]["p99"], sc["fair"]["short"]["p99"])
            # The targets for the default (adaptive) policy (docs/benchmarks.md).
            crit["met"] = {
                "short_p99 <= 0.2 x fifo": _le(crit.get("short_p99_vs_fifo"), 0.2),
                "short_p99 <= 0.5 x fair": _le(crit.get("short_p99_vs_fair"), 0.5),
                "long_p50 <= 1.10 x fifo": _le(crit.get("long_p50_vs_fifo"), 1.10),
            }
            row["criteria"] = crit
        out.append(row)
    return out


def _le(x, lim):
    return None if x is None else x <= lim


def fmt(s):
    if not s or not s.get("count"):
        return "-"
    return "/".join(f"{s[k]:.2f}" for k in ("p50", "p90", "p99")) + f" s (n={s['count']})"


def scenario_tpch_sort(args, tb, out_root, want):
    """One application per scheduler: the sort alone if "sort" is wanted, then, if "tpch" is,
    the 22 queries as an interactive stream while the sort runs as the batch job. Writes the
    tpch and/or sort results."""
    from . import tpch
    rows = int(args.sort_gb * 1e9 / 8)
    sort_parts = max(2 * tb["slots"], int(args.sort_gb * 1e9 / 32e6))
    # The TPC-H data and DuckDB's answers serve the stream only: the sort alone needs neither.
    d = answers = None
    if "tpch" in want:
        d = tpch.ensure_data(os.path.join(out_root, "data"), args.sf, args.parts, log=log)
        tpch.duckdb_answers(d, args.sf, log=log)
        answers = os.path.join(d, "duckdb-answers.json")
        log(f"TPC-H SF {args.sf:g} ({args.parts} files per table); sort {rows:,} integers "
            f"({args.sort_gb:g} GB) in {sort_parts} partitions")
    else:
        log(f"sort {rows:,} integers ({args.sort_gb:g} GB) in {sort_parts} partitions, alone")
    tp_runs, sort_runs, adaptive = [], [], None
    steps = Steps(len(args.schedulers), log, "application")
    for sched in args.schedulers:
        steps.start(sched)
        wait_idle(args, harness.TESTBED_STATE)
        run_dir = os.path.join(out_root, "tpch" if "sort" not in want else "sort", "runs", sched)
        shutil.rmtree(run_dir, ignore_errors=True)
        os.makedirs(run_dir)
        base = split_conf(sched)[0]
        cfg = {"workload": "tpch", "scheduler": base, "testbed": tb,
               "tpch": {"data": d, "sf": args.sf, "answers": answers,
                        "queries": args.queries, "lead_s": args.lead, "gap_s": args.gap},
               "sort": {"rows": rows, "parts": sort_parts},
               "sort_alone": "sort" in want, "stream": "tpch" in want,
               "spark_conf": spark_conf(base, tb, run_dir, ROOT, eagle=eagle_keys(args, sched))}
        log(f"  {sched}: {'sort alone' if 'sort' in want else ''}"
            f"{', then ' if want == ['tpch', 'sort'] else ''}"
            f"{f'{len(args.queries)} queries during the batch sort' if 'tpch' in want else ''}")
        res = run_driver(run_dir, cfg, timeout=3600)
        if sched == "eagle":
            adaptive = adaptive_state(run_dir)
        phases = res.get("phases") or {}
        st = phases.get("stream") or {}
        jobs = st.get("jobs") or []
        queries = [j for j in jobs if j.get("class") == "short"]
        batch = [j for j in jobs if j.get("class") == "long"]
        s, l, sl, ll = summarise_jobs(jobs)
        answers_ok = len(queries) == len(args.queries) and all(q["ok"] for q in queries)
        tp_runs.append({
            "scheduler": sched, "short": s, "long": l,
            "wall_seconds": res.get("wall_seconds"), "correct": bool(res.get("ok") and answers_ok),
            "batch_seconds": batch[0]["latency"] if batch else None, "driver_cpu_s": st.get("driver_cpu_s"),
            "queries": [{"query": q["query"], "latency": round(q["latency"], 3), "ok": q["ok"],
                         "check": q.get("check"), "under_batch": q.get("under_batch")} for q in queries],
            "queries_under_batch": sum(1 for q in queries if q.get("under_batch")),
            "latencies": {"short": sl, "long": ll}, "locality": res.get("locality"),
            "work": res.get("work"), "error": res.get("error")})
        r = tp_runs[-1]
        if "tpch" in want:
            log(f"  {sched}: queries p50/p90/p99 = {fmt(s)}; batch {r['batch_seconds'] or 0:.1f}s; "
                f"answers {f'all {len(queries)} match DuckDB' if answers_ok else 'NOT all correct'}")
        if "sort" in want:
            alone = (phases.get("alone") or {}).get("jobs") or []
            sa = stats.summary([j["latency"] for j in alone])
            sort_runs.append({"scheduler": sched, "variant": "alone", "short": stats.summary([]),
                              "long": sa, "wall_seconds": alone[0]["latency"] if alone else None,
                              "driver_cpu_s": (phases.get("alone") or {}).get("driver_cpu_s"),
                              "correct": bool(res.get("ok") and alone and alone[0]["ok"]),
                              "sort_check": res.get("sort_check"),
                              "latencies": {"short": [], "long": [j["latency"] for j in alone]}})
            if "tpch" not in want:
                log(f"  {sched}: sort alone {sa.get('p50') or 0:.1f}s ({res.get('sort_check')}); "
                    f"driver CPU {(phases.get('alone') or {}).get('driver_cpu_s')} s")
                continue
            sort_runs.append({"scheduler": sched, "variant": "under-tpch", "short": s, "long": l,
                              "wall_seconds": r["batch_seconds"], "correct": r["correct"],
                              "driver_cpu_s": st.get("driver_cpu_s"),
                              "sort_check": res.get("sort_check"), "work": res.get("work"),
                              "latencies": {"short": sl, "long": ll}})
            log(f"  {sched}: sort alone {sa.get('p50') or 0:.1f}s, under the TPC-H stream "
                f"{r['batch_seconds'] or 0:.1f}s ({res.get('sort_check')}); driver CPU "
                f"{(phases.get('alone') or {}).get('driver_cpu_s')} s alone, {st.get('driver_cpu_s')} s under the stream")
    steps.finish()
    meta = {"sf": args.sf, "parts": args.parts, "queries": args.queries, "sort_rows": rows, "sort_gb": args.sort_gb,
            "sort_partitions": sort_parts, "lead_s": args.lead, "gap_s": args.gap}
    out = {}
    if "tpch" in want:
        out["tpch"] = {"scenario": "tpch", "testbed": testbed_json(tb), "workload": meta, "runs": tp_runs,
                       "adaptive": adaptive}
    if "sort" in want:
        out["sort"] = {"scenario": "sort", "testbed": testbed_json(tb), "workload": meta, "runs": sort_runs,
                       "adaptive": adaptive}
    return out


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    os.environ.setdefault("SPARK_HOME", spark_home())
    os.environ["SPARK_SCALA_VERSION"] = "2.13"
    if not find_jar(ROOT) or not find_bench_jar(ROOT):
        raise SystemExit("no build/libs/eagle-spark-<version>.jar or eagle-spark-bench-<version>.jar: "
                         "run `bash scripts/build.sh` (the eagle scheduler is in the first, the "
                         "replay's sleep job in the second)")
    os.makedirs(args.out, exist_ok=True)
    harness.hold_machine(args)
    if args.scenario == "dds":     # Dynamic Delay Scheduling: its own testbeds and runs (bench/dds.py)
        from . import dds
        return dds.main(args)
    if args.scenario == "lotes":   # LoTES on heterogeneous hosts (bench/lotes.py)
        from . import lotes
        return lotes.main(args)
    if args.scenario == "cluster":  # cluster mode: applications sharing the hosts (bench/cluster.py)
        from . import cluster
        return cluster.main(args)
    if args.scenario == "server":  # a shared SQL server's users beside ETL (bench/server.py)
        from . import server
        return server.main(args)
    if args.scenario == "eirene":  # Eirene's SATC against eagle (bench/eirene.py)
        from . import eirene
        return eirene.main(args)
    wanted = wanted_results(args)
    wait_idle(args)
    tbed = Testbed(args)
    atexit.register(tbed.down)

    harness.on_signals(tbed.down)
    failed = False
    try:
        tb = tbed.up()
        log(f"testbed: {tb['mode']}, master {tb['master']}, {tb['hosts']} hosts, {tb['slots']} slots")
        if "replay" in wanted:
            d = os.path.join(args.out, "replay")
            os.makedirs(d, exist_ok=True)
            res = scenario_replay(args, tb, d)
            write_results(args.out, res)
            failed |= not all(r["correct"] for r in res["runs"])
        want = [w for w in ("tpch", "sort") if w in wanted]
        if want:
            for res in scenario_tpch_sort(args, tb, args.out, want).values():
                write_results(args.out, res)
                failed |= not all(r["correct"] for r in res["runs"])
    finally:
        tbed.down()
    log("done" + (" (some runs failed or gave wrong answers)" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
