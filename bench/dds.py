"""Dynamic Delay Scheduling on the testbed: ``scripts/bench dds [--quick]``.

For each network profile (fast, then congested: the testbed is brought up once per profile
and always torn down) and each delay setting, ONE Spark application under the eagle scheduler:

* ``fixed-0s``  — ``spark.scheduler.eagle.dds.enabled=false``, ``spark.locality.wait=0s``
* ``fixed-3s``  — ``spark.scheduler.eagle.dds.enabled=false``, ``spark.locality.wait=3s``
* ``dynamic``   — ``spark.scheduler.eagle.dds.enabled=true`` (initial waits = Spark's 3 s
  default, ``dds.maxWaitMs`` 10 s unless ``--dds-max-wait-ms``)

(with ``dds.enabled=false`` the plugin leaves Spark's own ``spark.locality.wait*`` in force).
The order of the settings rotates from one profile to the next, so that drift of the
machine's load does not always favour the same one.

Inside each application (workload ``dds`` of :mod:`bench.driver`, code here):

1. setup (not timed): the TPC-H tables are read and cached on the executors (memory, then
   disk) and registered as views, so that the queries' scans read cached blocks and have
   PROCESS_LOCAL preferences; the sort input (:func:`bench.jobs.sort_input`) is cached too,
   and its checksum taken;
2. ``tpch``: the queries arrive one every ``--gap`` seconds, each from its own thread
   (:func:`bench.jobs.query_stream`; concurrency keeps local slots busy, so waits matter),
   every answer checked against DuckDB; wall time = first submission to last completion;
3. ``sort``: the integer sort of the cached input (:func:`bench.jobs.timed_sort`), checked
   by reading the output back (:func:`bench.jobs.sort_checks`).

The phases run one after the other, and bench.jobs' helpers label the queries' jobs
``bench.class=short`` and the sort's ``long`` (checks ``check``, setup ``setup``): so the event
log's locality mix per class is the mix per workload (:data:`PHASE_CLASS`).

Writes ``<out>/dds/results.json`` and ``report.html`` (see docs/benchmarks.md), and runs
``scripts/sim-dds`` (the simulator part) into ``<out>/dds/sim/``.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DELAYS = ("fixed-0s", "fixed-3s", "dynamic")
NETWORKS = ("fast", "congested")
WORKLOADS = ("tpch", "sort")
LEVELS = ("PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY")
# bench.class of each workload's jobs (set by bench.jobs.query_stream / timed_sort).
PHASE_CLASS = {"tpch": "short", "sort": "long"}
# The order of the first profile; profile i runs it rotated left by i.
BASE_ORDER = ("fixed-3s", "dynamic", "fixed-0s")
# Dynamic Delay Scheduling's targets, on total (tpch + sort) wall time.
TARGET_VS_FIXED_3S = 0.85        # dynamic <= 0.85 x fixed-3s on the fast network
TARGET_VS_BEST_FIXED = 1.05      # dynamic <= 1.05 x min(fixed-0s, fixed-3s) on every network
CRIT_3S = f"dynamic <= {TARGET_VS_FIXED_3S:g} x fixed-3s"
CRIT_BEST = f"dynamic <= {TARGET_VS_BEST_FIXED:g} x min(fixed-0s, fixed-3s)"


# ---------------------------------------------------------------- configuration (pure)

def delay_conf(delay: str, max_wait_ms: int | None = None) -> tuple[dict, dict]:
    """``(eagle, extra)`` for :func:`bench.schedulers.spark_conf`: the ``spark.scheduler.eagle.*``
    settings (without the prefix) and the other SparkConf keys of one delay setting."""
    if delay == "fixed-0s":
        return {"dds.enabled": "false"}, {"spark.locality.wait": "0s"}
    if delay == "fixed-3s":
        return {"dds.enabled": "false"}, {"spark.locality.wait": "3s"}
    if delay == "dynamic":
        eagle = {"dds.enabled": "true"}
        if max_wait_ms is not None:
            eagle["dds.maxWaitMs"] = str(int(max_wait_ms))
        return eagle, {}
    raise ValueError(f"unknown delay setting {delay!r}; expected one of {', '.join(DELAYS)}")


def order_for(profile_index: int, delays=DELAYS) -> list:
    """The delay settings in the order profile number ``profile_index`` runs them: BASE_ORDER
    rotated left by the index (fast: fixed-3s, dynamic, fixed-0s; congested: dynamic,
    fixed-0s, fixed-3s), restricted to ``delays``."""
    base = [d for d in BASE_ORDER if d in delays] + [d for d in delays if d not in BASE_ORDER]
    k = profile_index % len(base) if base else 0
    return base[k:] + base[:k]


def add_arguments(p) -> None:
    """The dds scenario's own options (added to scripts/bench's parser)."""
    g = p.add_argument_group("dds (Dynamic Delay Scheduling)")
    g.add_argument("--networks", default=",".join(NETWORKS),
                   help="dds: comma list of network profiles, in order (default fast,congested)")
    g.add_argument("--delays", default=",".join(DELAYS),
                   help="dds: comma list of delay settings (default fixed-0s,fixed-3s,dynamic)")
    g.add_argument("--dds-max-wait-ms", type=int,
                   help="dds: spark.scheduler.eagle.dds.maxWaitMs of the dynamic setting (default: the plugin's, 10000)")
    g.add_argument("--no-sim", action="store_true", help="dds: do not run scripts/sim-dds")


# ---------------------------------------------------------------- inside the application

def setup(spark, data: str, rows: int, parts: int):
    """Not timed. Reads every TPC-H table, caches it on the executors (memory, then disk),
    materialises the cache and registers the cached DataFrame as the table's view; builds and
    caches the sort input (:func:`bench.jobs.sort_input`) and takes its checksum. The tables
    and the sort input are prepared from a few threads at once (mostly small jobs, whose
    driver-side planning would otherwise run one after the other). Returns (table row counts,
    sort input DataFrame, checksum)."""
    from concurrent.futures import ThreadPoolExecutor

    from pyspark import StorageLevel

    from .jobs import input_checksum, set_props, sort_input
    from .tpch_queries import TABLES
    sc = spark.sparkContext

    def table(t):
        set_props(sc, {"bench.class": "setup", "spark.job.description": f"setup: cache {t}"})
        df = spark.read.parquet(os.path.join(data, t)).persist(StorageLevel.MEMORY_AND_DISK)
        return t, df, df.count()

    def sort_in():
        set_props(sc, {"bench.class": "setup", "spark.job.description": "setup: sort input"})
        df = sort_input(spark, rows, parts)
        return df, input_checksum(spark, df)

    with ThreadPoolExecutor(4, thread_name_prefix="setup") as ex:
        sorted_in = ex.submit(sort_in)
        tables = list(ex.map(table, TABLES))
        df, checksum = sorted_in.result()
    for t, tdf, _ in tables:
        tdf.createOrReplaceTempView(t)
    return {t: n for t, _, n in tables}, df, checksum


def run_dds(spark, cfg: dict) -> dict:
    """Setup (cache the tables and the sort input), then the TPC-H stream, then the sort."""
    from .jobs import log, query_stream, set_props, sort_checks, timed_sort
    sc = spark.sparkContext
    sched = cfg["scheduler"]
    t_cfg = cfg["tpch"]
    with open(t_cfg["answers"]) as f:
        answers = {int(k): v for k, v in json.load(f).items()}
    t = time.time()
    rows = cfg["sort"]["rows"]
    table_rows, df, checksum = setup(spark, t_cfg["data"], rows, cfg["sort"]["parts"])
    setup_s = time.time() - t
    log(f"setup: {len(table_rows)} TPC-H tables ({sum(table_rows.values()):,} rows) and "
        f"{rows:,} sort integers cached in {setup_s:.1f}s")
    set_props(sc, {"bench.class": None, "spark.job.description": None})

    # tpch: the query stream (each query from its own thread, checked against DuckDB).
    queries: list = []
    query_stream(spark, cfg, answers, queries)
    wall_q = (max(q["end"] for q in queries) - min(q["arrival"] for q in queries)) if queries else None
    q_ok = len(queries) == len(t_cfg["queries"]) and all(q["ok"] for q in queries)
    bad = [f"Q{q['query']}: {q['check']}" for q in queries if not q["ok"]]
    log(f"tpch: {len(queries)} queries in {wall_q or 0:.1f}s, "
        + ("all answers match DuckDB" if q_ok else "WRONG: " + "; ".join(bad)))

    # sort: timed, then checked (the check is not timed).
    rec: dict = {}
    timed_sort(spark, df, sched, rec, "dds", os.path.join(cfg["run_dir"], "sort-out"))
    set_props(sc, {"bench.class": "check", "spark.job.description": "sort check",
                   "spark.scheduler.pool": None, "spark.scheduler.eagle.job.class": None})
    ok, msg = sort_checks(spark, rec["out"], rows, checksum) if rec["ok"] else (False, rec["error"])
    shutil.rmtree(rec["out"], ignore_errors=True)
    rec["ok"] = bool(rec["ok"] and ok)
    rec["check"] = msg
    log(f"sort: {rec['latency']:.1f}s; check: {msg}")
    phases = {
        "tpch": {"wall_seconds": wall_q, "correct": q_ok,
                 "error": None if q_ok else ("; ".join(bad) or f"{len(queries)} of {len(t_cfg['queries'])} queries answered"),
                 "queries": [{"query": q["query"], "latency": round(q["latency"], 3), "ok": q["ok"],
                              "check": q.get("check")} for q in queries]},
        "sort": {"wall_seconds": rec["latency"], "correct": rec["ok"], "check": msg,
                 "error": None if rec["ok"] else f"sort: {msg}"},
    }
    return {"phases": phases, "setup_seconds": setup_s, "table_rows": table_rows,
            "correct": q_ok and rec["ok"]}


# ---------------------------------------------------------------- results (pure)

def interval_stats(summary: dict | None, workload: str) -> dict | None:
    """From an eagle summary: the DDS intervals of the task sets of ``workload``'s jobs (by
    job description: "TPC-H Q.." for tpch, "sort (..)" for sort). Per level: ``updates``
    (history points after each task set's initial interval), ``mean_ms`` (of those points),
    ``final_mean_ms`` (mean over task sets of the last interval), ``max_ms``; plus the number
    of task sets. None when the summary has no interval history (dds disabled, fallback)."""
    if not summary or not summary.get("taskSets"):
        return None
    prefix = {"tpch": "TPC-H Q", "sort": "sort ("}[workload]
    jobs = {j.get("jobId") for j in summary.get("jobs") or []
            if str(j.get("description") or "").startswith(prefix)}
    sets = [t for t in summary["taskSets"] if t.get("jobId") in jobs and t.get("delayHistory")]
    if not sets:
        return None
    per = {}
    for lvl in ("PROCESS_LOCAL", "NODE_LOCAL", "RACK_LOCAL"):
        updates, finals = [], []
        for t in sets:
            pts = [h["intervalMs"] for h in t["delayHistory"] if h.get("level") == lvl]
            if not pts:
                continue
            updates += pts[1:]
            finals.append(pts[-1])
        if not finals:
            continue
        per[lvl] = {"updates": len(updates),
                    "mean_ms": round(sum(updates) / len(updates), 1) if updates else None,
                    "final_mean_ms": round(sum(finals) / len(finals), 1),
                    "max_ms": round(max(updates), 1) if updates else None}
    return {"task_sets": len(sets), "levels": per}


def run_entries(network: str, delay: str, order: int, res: dict, summary: dict | None) -> list:
    """The two runs (tpch, sort) of one application's driver result."""
    out = []
    phases = res.get("phases") or {}
    by_class = res.get("locality_by_class") or {}
    for wl in WORKLOADS:
        ph = phases.get(wl) or {}
        correct = bool(res.get("ok") and ph.get("correct"))
        err = None if correct else (ph.get("error") or res.get("error")
                                    or f"no {wl} result; see the run's driver.log")
        e = {"delay": delay, "network": network, "workload": wl, "order": order,
             "wall_seconds": ph.get("wall_seconds"), "correct": correct, "error": err,
             "locality": by_class.get(PHASE_CLASS[wl]) or {},
             "dds_intervals": interval_stats(summary, wl) if delay == "dynamic" else None,
             "app_id": res.get("app_id"), "setup_seconds": res.get("setup_seconds"),
             "fallback": (summary or {}).get("fallback")}
        if wl == "tpch":
            e["queries"] = ph.get("queries") or []
        else:
            e["check"] = ph.get("check")
        out.append(e)
    return out


def _ratio(a, b):
    return None if a is None or b in (None, 0) else round(a / b, 4)


def summarise(runs: list, networks=NETWORKS, delays=DELAYS) -> dict:
    """Per network: wall seconds per workload and delay, total (tpch + sort) per delay (None
    unless both runs are correct), the ratios dynamic / fixed-3s and dynamic / min(fixed-0s,
    fixed-3s) of the totals, and the done criteria (``met``: True/False, None when a total is
    missing). The fixed-3s target applies to the fast network only."""
    out = {"networks": {}}
    all_met = []
    for net in networks:
        by_wl = {wl: {} for wl in WORKLOADS}
        total = {}
        for d in delays:
            rs = {r["workload"]: r for r in runs if r["network"] == net and r["delay"] == d}
            for wl in WORKLOADS:
                r = rs.get(wl)
                by_wl[wl][d] = r["wall_seconds"] if r and r["correct"] else None
            vals = [by_wl[wl][d] for wl in WORKLOADS]
            total[d] = round(sum(vals), 3) if all(v is not None for v in vals) else None
        fixed = {d: total.get(d) for d in ("fixed-0s", "fixed-3s") if total.get(d) is not None}
        best = min(fixed, key=fixed.get) if len(fixed) == 2 else None
        dyn = total.get("dynamic")
        row = {"total_seconds": total, "by_workload": by_wl,
               "ratio_dynamic_vs_fixed_3s": _ratio(dyn, total.get("fixed-3s")),
               "best_fixed": best,
               "ratio_dynamic_vs_best_fixed": _ratio(dyn, fixed[best]) if best else None,
               "met": {}}
        if net == "fast":
            r3 = row["ratio_dynamic_vs_fixed_3s"]
            row["met"][CRIT_3S] = None if r3 is None else r3 <= TARGET_VS_FIXED_3S
        rb = row["ratio_dynamic_vs_best_fixed"]
        row["met"][CRIT_BEST] = None if rb is None else rb <= TARGET_VS_BEST_FIXED
        all_met += list(row["met"].values())
        out["networks"][net] = row
    out["all_met"] = bool(all_met) and all(m is True for m in all_met)
    return out


def sim_summary(path: str) -> dict:
    """The simulator's results.json without its long interval series (the PNG shows it)."""
    with open(path) as f:
        sim = json.load(f)
    sim.pop("dynamic_intervals_seed1", None)
    return sim


def fmt_locality(loc: dict | None) -> str:
    if not loc:
        return "-"
    short = {"PROCESS_LOCAL": "P", "NODE_LOCAL": "N", "NO_PREF": "np", "RACK_LOCAL": "R", "ANY": "A"}
    return " ".join(f"{short[k]} {loc[k]:.0%}" for k in LEVELS if loc.get(k))


# ---------------------------------------------------------------- the scenario

def run_sim(args, out_dir: str, log) -> dict:
    sim_dir = os.path.join(out_dir, "sim")
    cmd = ["bash", os.path.join(ROOT, "scripts", "sim-dds"), "--out", sim_dir] + (["--quick"] if args.quick else [])
    log(f"simulator: {' '.join(cmd[1:])}")
    t = time.time()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(out_dir, "sim-dds.log"), "w") as f:
        f.write(r.stdout)
    if r.returncode != 0:
        tail = " | ".join(r.stdout.strip().splitlines()[-3:])
        return {"error": f"scripts/sim-dds exited {r.returncode}: {tail} (see {out_dir}/sim-dds.log)"}
    sim = sim_summary(os.path.join(sim_dir, "results.json"))
    sim["images"] = [os.path.join("sim", p) for p in ("intervals.png", "summary.png")
                     if os.path.exists(os.path.join(sim_dir, p))]
    sim["seconds"] = round(time.time() - t, 1)
    for row in sim.get("runs", []):
        log(f"  sim {row['delay']:9}: mean job {row['job_mean']:.1f}s, short p90 {row['short']['p90']:.1f}s, "
            f"local {row['local_fraction']:.3f}, wait calm/congested {row['wait_calm']:.2f}/{row['wait_congested']:.2f}s")
    return sim


def wait_group_gone(pgid: int, timeout: float = 60.0) -> None:
    """Until every process of a finished driver's process group (its Spark JVM shuts down
    after the Python driver exits) is gone, so that the next application does not start next
    to it (and wait_idle does not mistake it for someone else's Spark)."""
    t0 = time.time()
    while time.time() - t0 < timeout and group_alive(pgid):
        time.sleep(0.2)


def group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` is alive (zombies waiting to be reaped do not count)."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


def snapshot_jar(out_dir: str, bench: bool = False) -> dict:
    """Copies build/libs/eagle-spark-<version>.jar (``bench``: eagle-spark-bench-<version>.jar,
    SleepJob for the driver's warm-up) to ``out_dir/plugin/`` for this invocation."""
    from .schedulers import find_bench_jar, find_jar
    src = (find_bench_jar if bench else find_jar)(ROOT)
    if not src:
        raise SystemExit(f"no build/libs/eagle-spark-{'bench-' if bench else ''}<version>.jar: "
                         "run `bash scripts/build.sh`")
    d = os.path.join(out_dir, "plugin")
    os.makedirs(d, exist_ok=True)
    dst = os.path.join(d, os.path.basename(src))
    for attempt in range(10):          # a jar being rewritten right now reads as a bad zip
        shutil.copyfile(src, dst)
        try:
            with zipfile.ZipFile(dst) as z:
                if z.testzip() is None:
                    break
        except zipfile.BadZipFile:
            pass
        time.sleep(6)
    else:
        raise SystemExit(f"{src} is not a valid jar (being rebuilt?); run `bash scripts/build.sh`")
    return {"path": dst, "source": src, "bytes": os.path.getsize(dst),
            "built": time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(os.path.getmtime(src)))}


def main(args) -> int:
    """``scripts/bench dds``: the runs, results.json, report.html. Exit 1 when any run is
    incorrect (or the simulator failed)."""
    from . import harness, tpch
    from .progress import Steps
    from .schedulers import jar_conf, spark_conf
    log = harness.log
    networks = [n.strip() for n in args.networks.split(",") if n.strip()]
    delays = [d.strip() for d in args.delays.split(",") if d.strip()]
    for n in networks:
        if n not in NETWORKS:
            raise SystemExit(f"dds: unknown network profile {n!r} (fast, congested)")
    for d in delays:
        delay_conf(d)      # names an unknown setting
    out_dir = os.path.join(args.out, "dds")
    os.makedirs(out_dir, exist_ok=True)
    failed = []
    # Every application runs the same plugin build, even if the jar is rebuilt meanwhile (a
    # jar replaced under a running driver fails its class loading).
    jar = snapshot_jar(out_dir)
    bench_jar = snapshot_jar(out_dir, bench=True)
    for what, j in (("plugin", jar), ("benchmark jar", bench_jar)):
        log(f"{what}: {j['path']} (copy of {j['source']}, {j['bytes']:,} bytes, built {j['built']})")

    sim = {"skipped": "--no-sim"} if args.no_sim else run_sim(args, out_dir, log)
    if sim.get("error"):
        log(f"FAILED: simulator: {sim['error']}")
        failed.append("simulator")

    d = tpch.ensure_data(os.path.join(args.out, "data"), args.sf, args.parts, log=log)
    tpch.duckdb_answers(d, args.sf, log=log)
    rows = int(args.sort_gb * 1e9 / 8)
    log(f"dds: networks {','.join(networks)}, delays {','.join(delays)}; TPC-H SF {args.sf:g} "
        f"({args.parts} files per table), queries {','.join(map(str, args.queries))} every {args.gap:g}s; "
        f"sort {rows:,} integers ({args.sort_gb:g} GB)")

    tbed = None

    harness.on_signals(lambda: tbed.down() if tbed is not None else None)

    runs, testbeds = [], {}
    tb = None
    steps = Steps(len(networks) * len(delays), log, "application")
    for pi, net in enumerate(networks):
        args.network = net
        harness.wait_idle(args)
        tbed = harness.Testbed(args)
        try:
            tb = tbed.up()
            testbeds[net] = harness.testbed_json(tb)
            sort_parts = max(2 * tb["slots"], int(args.sort_gb * 1e9 / 32e6))
            log(f"testbed: {tb['mode']}, master {tb['master']}, {tb['hosts']} hosts, {tb['slots']} slots, "
                f"network {tb['network']}")
            for i, delay in enumerate(order_for(pi, delays)):
                harness.wait_idle(args, harness.TESTBED_STATE)
                run_dir = os.path.join(out_dir, "runs", f"{net}-{delay}")
                shutil.rmtree(run_dir, ignore_errors=True)
                os.makedirs(run_dir)
                eagle, extra = delay_conf(delay, args.dds_max_wait_ms)
                cfg = {"workload": "dds", "scheduler": "eagle", "testbed": tb, "delay": delay,
                       "tpch": {"data": d, "sf": args.sf, "answers": os.path.join(d, "duckdb-answers.json"),
                                "queries": args.queries, "gap_s": args.gap},
                       "sort": {"rows": rows, "parts": sort_parts},
                       "spark_conf": spark_conf("eagle", tb, run_dir, ROOT, eagle=eagle, extra=extra)}
                cfg["spark_conf"].update(jar_conf(jar["path"], bench_jar["path"]))
                steps.start(f"{net} / {delay}")
                log(f"  {net} / {delay} ({i + 1}/{len(delays)}): "
                    + ", ".join(f"{k}={v}" for k, v in sorted(
                        {**{'spark.scheduler.eagle.' + k: v for k, v in eagle.items()}, **extra}.items())))
                res = harness.run_driver(run_dir, cfg, timeout=600 if args.quick else 3600)
                wait_group_gone(harness.DRIVERS[-1].pid)
                summary = None
                spath = os.path.join(run_dir, "eagle-summary.json")
                if os.path.exists(spath):
                    with open(spath) as f:
                        summary = json.load(f)
                entries = run_entries(net, delay, i, res, summary)
                runs += entries
                for e in entries:
                    iv = (e.get("dds_intervals") or {}).get("levels") or {}
                    ivs = ", ".join(f"{k.split('_')[0].lower()} {v['final_mean_ms'] / 1000:.2f}s"
                                    for k, v in iv.items())
                    log(f"  {net} / {delay} {e['workload']:4}: {e['wall_seconds'] or 0:6.1f}s, "
                        f"locality {fmt_locality(e['locality'])}"
                        + (f", final waits {ivs}" if ivs else "")
                        + ("" if e["correct"] else f" | FAILED: {e['error']}"))
                    if not e["correct"]:
                        failed.append(f"{net}/{delay}/{e['workload']}")
                if summary and summary.get("fallback"):
                    log(f"  WARNING: {net} / {delay}: the plugin fell back to stock scheduling: "
                        f"{summary.get('fallbackReason')}")
        finally:
            tbed.down()

    steps.finish()
    tb_json = dict(testbeds.get(networks[0]) or {}) if testbeds else {}
    if tb_json:
        tb_json["network"] = ",".join(networks)
        tb_json["networks"] = testbeds
        tb_json["rate"] = args.rate
    results = {"scenario": "dds", "testbed": tb_json,
               "workload": {"sf": args.sf, "parts": args.parts, "queries": args.queries,
                            "gap_s": args.gap, "sort_gb": args.sort_gb, "sort_rows": rows,
                            "delays": delays, "networks": networks,
                            "dds_max_wait_ms": args.dds_max_wait_ms or 10000,
                            "order": {n: order_for(i, delays) for i, n in enumerate(networks)},
                            "plugin_jar": jar, "bench_jar": bench_jar},
               "runs": runs, "summary": summarise(runs, networks, delays), "sim": sim}
    harness.write_results(args.out, results)
    for net, row in results["summary"]["networks"].items():
        tot = ", ".join(f"{k} {v:.1f}s" if v is not None else f"{k} -" for k, v in row["total_seconds"].items())
        log(f"{net}: total (tpch + sort) {tot}; dynamic/fixed-3s {row['ratio_dynamic_vs_fixed_3s']}, "
            f"dynamic/best fixed ({row['best_fixed']}) {row['ratio_dynamic_vs_best_fixed']}; "
            + ", ".join(f"{k}: {v}" for k, v in row["met"].items()))
    if failed:
        log(f"FAILED: {', '.join(failed)}")
    log("done" + (" (some runs failed or gave wrong answers)" if failed else ""))
    return 1 if failed else 0
