"""One benchmark run: a Spark application under one scheduler, in its own process.

    python -m bench.driver RUN_DIR/config.json

config.json (written by :mod:`bench.run`): ``{"workload": "replay"|"tpch", "scheduler",
"spark_conf": {...}, "testbed": {...}, ...}``. Writes ``RUN_DIR/result.json``.

Every job is submitted from its own Python thread (PySpark's pinned-thread mode gives each one
its own JVM thread, so local properties such as ``spark.scheduler.pool`` or
``spark.scheduler.eagle.job.class`` apply to that thread's jobs only).
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import threading
import time
import traceback

from . import eventlog, work
from .jobs import (input_checksum, log, query_stream, set_props, sort_checks, sort_input,
                   timed_sort, wait_quiet)
from .schedulers import job_properties


def start_spark(conf: dict):
    from pyspark.sql import SparkSession
    b = SparkSession.builder
    for k, v in conf.items():
        b = b.config(k, v)
    spark = b.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def wait_executors(spark, n: int, timeout: float = 180.0) -> int:
    sc = spark.sparkContext
    t0 = time.time()
    have = 0
    while time.time() - t0 < timeout:
        # getExecutorMemoryStatus counts the driver's block manager too.
        have = sc._jsc.sc().getExecutorMemoryStatus().size() - 1
        if have >= n:
            return have
        time.sleep(0.5)
    raise RuntimeError(f"only {have} of {n} executors registered within {timeout:.0f}s")


def sleep_job(spark, durations_ms) -> int:
    """A job of len(durations_ms) tasks, task i sleeping durations_ms[i] ms: the plugin jar's
    JVM-side ``SleepJob`` (no Python worker, no SQL plan per job), submitted from the calling
    thread so that its local properties apply. Returns the number of tasks that ran."""
    sc = spark.sparkContext
    # Looked up once per context: py4j resolves `_jvm.a.b.C` a name at a time, and each of
    # `org`, `org.apache`, ... is a failed Class.forName that searches every jar on the
    # driver's classpath (JFR: 8 % of an interactive driver's CPU samples during a plan when
    # it was done for every job, on the cores the executors need too).
    job = getattr(sc, "_eagle_bench_sleep_job", None)
    if job is None:
        job = sc._eagle_bench_sleep_job = sc._jvm.org.apache.spark.scheduler.eagle.SleepJob
    return int(job.run(sc._jsc.sc(), ",".join(str(int(d)) for d in durations_ms)))


def eagle_counters(spark) -> dict | None:
    """The Eagle scheduler's counters now (the bench jar's ``EagleCounters``: the metrics
    source's reading, ``cluster.*`` under cluster mode), or None when they cannot be read. An
    application not under ``spark-eagle:`` has none: {}."""
    sc = spark.sparkContext
    try:
        return json.loads(sc._jvm.org.apache.spark.scheduler.eagle.EagleCounters.read(sc._jsc.sc()))
    except Exception as e:
        log(f"eagle counters not read: {e}")
        return None


def driver_cpu(spark) -> float | None:
    """The driver JVM's CPU time so far (s): the scheduler's own cost lives there (with
    Spark's), and on a shared machine it is CPU the executors do not get."""
    try:
        pid = spark.sparkContext._jvm.java.lang.ProcessHandle.current().pid()
    except Exception:
        return None
    return work.process_cpu_seconds(pid)


def cpu_since(spark, before: float | None) -> float | None:
    now = driver_cpu(spark)
    return None if now is None or before is None else round(now - before, 2)


def warm_up(spark, slots: int) -> None:
    sc = spark.sparkContext
    set_props(sc, {"bench.class": "warmup"})
    for _ in range(2):
        sleep_job(spark, [5] * slots)
    sc.setLocalProperty("bench.class", None)


# ---------------------------------------------------------------- trace replay

def replay_one(spark, sched: str, plan: dict, tag: str, t0: float | None = None,
               pass_class: bool = False) -> dict:
    """Replays ``plan``'s jobs at their arrival times from ``t0`` (epoch seconds; default one
    second from now); each job is a thread. ``pass_class``: eagle jobs carry the plan's class
    as a hint too (cluster mode: the class decides probes or the central)."""
    sc = spark.sparkContext
    jobs = plan["jobs"]
    records = [None] * len(jobs)

    def one(job, t_arrival):
        props = job_properties(sched, job["class"], job["estimate_ms"], pass_class=pass_class)
        props["spark.job.description"] = f"replay {tag} job {job['id']} ({job['class']})"
        props["bench.plan"] = tag
        set_props(sc, props)
        start = time.time()
        err = None
        try:
            n = sleep_job(spark, job["durations_ms"])
            if n != len(job["durations_ms"]):
                err = f"{n} of {len(job['durations_ms'])} tasks ran"
        except Exception as e:  # a failed job is reported, not fatal to the run
            err = str(e).splitlines()[0][:300]
        end = time.time()
        records[job["id"]] = {
            "id": job["id"], "class": job["class"], "tasks": len(job["durations_ms"]),
            "estimate_ms": job["estimate_ms"], "arrival": t_arrival, "start": start,
            "end": end, "latency": end - t_arrival, "submit_lag": start - t_arrival,
            "ok": err is None, "error": err,
        }

    threads = []
    cpu0 = driver_cpu(spark)
    t0 = time.time() + 1.0 if t0 is None else t0
    span = jobs[-1]["arrival_s"]
    log(f"{tag}: replaying {len(jobs)} jobs over {span:.1f}s")
    last_progress = time.time()

    def progress(what):
        done = sum(1 for r in records if r)
        log(f"{tag}: {len(threads)}/{len(jobs)} jobs submitted, {done} done, "
            f"{time.time() - t0:.0f}s elapsed; {what}")

    for job in jobs:
        at = t0 + job["arrival_s"]
        delay = at - time.time()
        if delay > 0:
            time.sleep(delay)
        th = threading.Thread(target=one, args=(job, at), name=f"job-{job['id']}", daemon=True)
        th.start()
        threads.append(th)
        if time.time() - last_progress > 15:
            progress(f"arrivals end in {t0 + span - time.time():.0f}s")
            last_progress = time.time()
    for th in threads:
        while th.is_alive():
            th.join(5)
            if time.time() - last_progress > 15:
                progress("draining")
                last_progress = time.time()
    wall = time.time() - t0
    ok = all(r and r["ok"] for r in records)
    log(f"{tag}: done in {wall:.1f}s")
    return {"tag": tag, "jobs": records, "wall_seconds": wall, "correct": ok,
            "meta": plan.get("meta", {}), "driver_cpu_s": cpu_since(spark, cpu0)}


def run_replay(spark, cfg: dict) -> dict:
    """Every plan of cfg["plans"] in turn (one application per scheduler; the cluster drains
    between plans)."""
    out = []
    for p in cfg["plans"]:
        with open(p["path"]) as f:
            plan = json.load(f)
        wait_quiet(spark)
        out.append(replay_one(spark, cfg["scheduler"], plan, p["tag"]))
    return {"replays": out, "correct": all(r["correct"] for r in out)}


# ---------------------------------------------------------------- cluster mode

def run_cluster(spark, cfg: dict) -> dict:
    """bench/cluster.py's applications: for each plan of ``cfg["plans"]`` in turn, writes its
    ``ready`` file, waits for its ``go`` file (the common start of the four applications,
    epoch seconds) and replays this application's share of the plan."""
    sched = "eagle" if cfg["system"] in ("eagle", "eagle-adaptive", "hawk", "sparrow") else "fifo"
    out = []
    # Read again after each plan, so the orchestrator reports each plan's counters.
    at_start = eagle_counters(spark)
    for p in cfg["plans"]:
        with open(p["path"]) as f:
            plan = json.load(f)
        with open(p["ready"], "w") as f:
            f.write(str(time.time()))
        deadline = time.time() + 1800
        while not os.path.exists(p["go"]):
            if time.time() > deadline:
                raise RuntimeError(f"{p['tag']}: no start signal from the orchestrator")
            time.sleep(0.05)
        with open(p["go"]) as f:
            t0 = float(f.read().strip())
        if plan["jobs"]:
            out.append(replay_one(spark, sched, plan, f"{cfg['app']} {p['tag']}", t0=t0, pass_class=True))
        else:
            out.append({"jobs": [], "wall_seconds": 0.0, "correct": True})
        out[-1]["tag"] = p["tag"]
        out[-1]["counters"] = eagle_counters(spark)
    return {"replays": out, "counters_at_start": at_start, "correct": all(r["correct"] for r in out)}


# ---------------------------------------------------------------- TPC-H and sort

def register_tpch(spark, data: str) -> None:
    from .tpch_queries import TABLES
    for t in TABLES:
        spark.read.parquet(os.path.join(data, t)).createOrReplaceTempView(t)


def run_tpch(spark, cfg: dict) -> dict:
    """Phases (each optional): "alone" = the sort alone; "stream" = the 22 queries as
    interactive jobs arriving every ``gap_s`` seconds, starting ``lead_s`` after the sort
    (the batch job)."""
    sched = cfg["scheduler"]
    t_cfg = cfg["tpch"]
    answers = {}
    if cfg.get("stream", True):  # the tables and answers serve the queries only
        with open(t_cfg["answers"]) as f:
            answers = {int(k): v for k, v in json.load(f).items()}
        register_tpch(spark, t_cfg["data"])
    sc = spark.sparkContext
    set_props(sc, {"bench.class": "setup", "spark.job.description": "sort input"})
    t = time.time()
    rows = cfg["sort"]["rows"]
    df = sort_input(spark, rows, cfg["sort"]["parts"])
    checksum = input_checksum(spark, df)
    log(f"sort input: {rows} rows cached in {time.time() - t:.1f}s")
    run_dir = cfg["run_dir"]

    def check(rec):
        set_props(sc, {"bench.class": "check", "spark.job.description": "sort check",
                       "spark.scheduler.pool": None, "spark.scheduler.eagle.job.class": None})
        ok, msg = sort_checks(spark, rec["out"], rows, checksum) if rec["ok"] else (False, rec["error"])
        shutil.rmtree(rec["out"], ignore_errors=True)
        log(f"sort check ({rec['id']}): {msg}")
        rec["ok"] = rec["ok"] and ok
        rec["check"] = msg
        return msg
    phases = {}
    t_all = time.time()
    if cfg.get("sort_alone"):
        rec = {}
        cpu0 = driver_cpu(spark)
        timed_sort(spark, df, sched, rec, "sort-alone", os.path.join(run_dir, "sort-alone"))
        cpu = cpu_since(spark, cpu0)
        log(f"sort alone: {rec['latency']:.1f}s (driver CPU {cpu} s)")
        check(rec)
        phases["alone"] = {"jobs": [rec], "correct": rec["ok"], "driver_cpu_s": cpu}
    if cfg.get("stream", True):
        batch = {}
        cpu0 = driver_cpu(spark)
        th = threading.Thread(target=timed_sort,
                              args=(spark, df, sched, batch, "sort-batch", os.path.join(run_dir, "sort-batch")),
                              name="batch", daemon=True)
        th.start()
        time.sleep(t_cfg.get("lead_s", 3.0))
        queries: list = []
        qt = threading.Thread(target=query_stream, args=(spark, cfg, answers, queries, th.is_alive),
                              name="interactive", daemon=True)
        qt.start()
        qt.join()
        th.join()
        cpu = cpu_since(spark, cpu0)
        log(f"batch sort: {batch['latency']:.1f}s; queries: {sum(q['latency'] for q in queries):.1f}s "
            f"in total (driver CPU {cpu} s)")
        check(batch)
        phases["stream"] = {"jobs": queries + [batch],
                            "correct": all(q["ok"] for q in queries) and batch["ok"],
                            "answers_correct": all(q["ok"] for q in queries), "driver_cpu_s": cpu}
    wall = time.time() - t_all
    for ph in phases.values():
        ph["correct"] = all(j["ok"] for j in ph["jobs"])
    msgs = [j.get("check") for ph in phases.values() for j in ph["jobs"] if j.get("class") == "long"]
    return {"phases": phases, "wall_seconds": wall, "sort_check": "; ".join(m for m in msgs if m),
            "correct": all(p["correct"] for p in phases.values())}


def main(argv) -> int:
    cfg_path = argv[1]
    with open(cfg_path) as f:
        cfg = json.load(f)
    run_dir = os.path.dirname(os.path.abspath(cfg_path))
    cfg["run_dir"] = run_dir
    result = {"scheduler": cfg["scheduler"], "workload": cfg["workload"], "ok": False}
    spark = None
    try:
        t = time.time()
        spark = start_spark(cfg["spark_conf"])
        n = wait_executors(spark, int(cfg.get("executors", cfg["testbed"]["hosts"])))
        log(f"{cfg['scheduler']}: {n} executors up after {time.time() - t:.1f}s "
            f"(master {cfg['spark_conf']['spark.master']})")
        warm_up(spark, int(cfg["testbed"]["slots"]))
        if cfg["workload"] == "replay":
            result.update(run_replay(spark, cfg))
        elif cfg["workload"] == "tpch":
            result.update(run_tpch(spark, cfg))
        elif cfg["workload"] == "lotes":   # mixed resource profiles (bench/lotes.py)
            from .lotes import run_lotes
            result.update(run_lotes(spark, cfg))
        elif cfg["workload"] == "dds":     # Dynamic Delay Scheduling (bench/dds.py)
            from .dds import run_dds
            result.update(run_dds(spark, cfg))
        elif cfg["workload"] == "cluster":  # applications sharing the hosts (bench/cluster.py)
            result.update(run_cluster(spark, cfg))
        elif cfg["workload"] == "eirene":  # Eirene's SATC (bench/eirene.py)
            from .eirene import run_eirene
            result.update(run_eirene(spark, cfg))
        else:
            raise ValueError(f"unknown workload {cfg['workload']}")
        result["ok"] = True
        result["app_id"] = spark.sparkContext.applicationId
    except Exception as e:
        result["error"] = f"{type(e).__name__}: {e}"
        traceback.print_exc()
    finally:
        if spark is not None:
            try:
                spark.stop()
            except Exception:
                traceback.print_exc()
    log_path = eventlog.find_log(os.path.join(run_dir, "events"))
    if log_path:
        try:
            ev = eventlog.parse(log_path)
            result["locality"] = ev["locality"]
            result["locality_by_class"] = ev["locality_by_class"]
            result["locality_by_plan"] = ev["locality_by_plan"]
            result["slot_ms_by_plan"] = ev["slot_ms_by_plan"]
            result["tasks"] = ev["tasks"]
            result["task_hosts"] = ev["hosts"]
            result["work"] = work.summarize(log_path)
        except Exception as e:
            result["eventlog_error"] = str(e)
    summ = os.path.join(run_dir, "eagle-summary.json")
    if os.path.exists(summ):
        result["eagle_summary"] = summ
    with open(os.path.join(run_dir, "result.json"), "w") as f:
        json.dump(result, f, indent=1, default=str)
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
