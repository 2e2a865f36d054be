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
import sys
import threading
import time
import traceback

from . import eventlog
from .schedulers import job_properties


def log(msg: str) -> None:
    print(f"[driver {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


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


def set_props(sc, props: dict) -> None:
    for k, v in props.items():
        sc.setLocalProperty(k, v)


def sleep_job_df(spark, durations_ms):
    n = len(durations_ms)
    arr = ", ".join(str(int(d)) for d in durations_ms)
    # Thread.sleep runs in the executor JVM (reflect), so no Python worker is involved.
    return spark.range(0, n, 1, n).selectExpr(
        f"reflect('java.lang.Thread', 'sleep', cast(element_at(array({arr}), cast(id as int) + 1) as bigint)) as s")


def warm_up(spark, slots: int) -> None:
    sc = spark.sparkContext
    set_props(sc, {"bench.class": "warmup"})
    for _ in range(2):
        sleep_job_df(spark, [5] * slots).collect()
    sc.setLocalProperty("bench.class", None)


# ---------------------------------------------------------------- trace replay

def run_replay(spark, cfg: dict) -> dict:
    sc = spark.sparkContext
    with open(cfg["plan"]) as f:
        plan = json.load(f)
    sched = cfg["scheduler"]
    jobs = plan["jobs"]
    records = [None] * len(jobs)

    def one(job, t_arrival):
        props = job_properties(sched, job["class"], job["estimate_ms"], pass_class=False)
        props["spark.job.description"] = f"replay job {job['id']} ({job['class']})"
        set_props(sc, props)
        start = time.time()
        err = None
        try:
            sleep_job_df(spark, job["durations_ms"]).collect()
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
    t0 = time.time() + 1.0
    log(f"replaying {len(jobs)} jobs over {jobs[-1]['arrival_s']:.1f}s")
    for job in jobs:
        at = t0 + job["arrival_s"]
        delay = at - time.time()
        if delay > 0:
            time.sleep(delay)
        th = threading.Thread(target=one, args=(job, at), name=f"job-{job['id']}", daemon=True)
        th.start()
        threads.append(th)
    last_progress = time.time()
    for th in threads:
        while th.is_alive():
            th.join(5)
            if time.time() - last_progress > 15:
                done = sum(1 for r in records if r)
                log(f"{done}/{len(jobs)} jobs done")
                last_progress = time.time()
    wall = time.time() - t0
    ok = all(r and r["ok"] for r in records)
    return {"jobs": records, "wall_seconds": wall, "correct": ok, "meta": plan.get("meta", {})}


# ---------------------------------------------------------------- TPC-H and sort

def register_tpch(spark, data: str) -> None:
    from .tpch_queries import TABLES
    for t in TABLES:
        spark.read.parquet(os.path.join(data, t)).createOrReplaceTempView(t)


def sort_input(spark, rows: int, parts: int):
    """``rows`` random 64-bit integers in ``parts`` partitions, cached (memory, then disk) on
    the executors, so the sort's first stage reads blocks with a location (locality matters)."""
    from pyspark import StorageLevel
    df = spark.range(0, rows, 1, parts).selectExpr(
        "cast(floor((rand(42) - 0.5) * 9.0e18) as bigint) as v")
    df = df.persist(StorageLevel.MEMORY_AND_DISK)
    n = df.count()
    assert n == rows, (n, rows)
    return df


def sort_checks(spark, df, rows: int) -> tuple[bool, str]:
    """The sorted output's range partitions are ordered and disjoint, and their counts and sum
    equal the input's."""
    from pyspark.sql import functions as F
    parts = (df.orderBy("v").withColumn("p", F.spark_partition_id())
             .groupBy("p").agg(F.min("v").alias("lo"), F.max("v").alias("hi"),
                               F.count("v").alias("n"), F.sum(F.col("v").cast("decimal(38,0)")).alias("s"))
             .orderBy("p").collect())
    total = sum(r["n"] for r in parts)
    want = df.agg(F.sum(F.col("v").cast("decimal(38,0)")).alias("s")).collect()[0]["s"]
    if total != rows:
        return False, f"{total} rows out, {rows} in"
    if sum(r["s"] for r in parts) != want:
        return False, "checksum differs"
    for a, b in zip(parts, parts[1:]):
        if a["hi"] > b["lo"]:
            return False, f"partition {a['p']} overlaps partition {b['p']}"
    return True, f"{rows} rows in {len(parts)} ordered range partitions, checksum equal"


def timed_sort(spark, df, sched: str, out: dict, label: str) -> None:
    sc = spark.sparkContext
    props = job_properties(sched, "long", None, pass_class=True)
    props["spark.job.description"] = f"sort ({label})"
    set_props(sc, props)
    t = time.time()
    err = None
    try:
        df.orderBy("v").write.format("noop").mode("overwrite").save()
    except Exception as e:
        err = str(e).splitlines()[0][:300]
    end = time.time()
    out.update({"id": label, "class": "long", "arrival": t, "start": t, "end": end,
                "latency": end - t, "ok": err is None, "error": err})


def query_stream(spark, cfg: dict, answers: dict, results: list, batch_alive=None) -> None:
    from .tpch import check_answer
    from .tpch_queries import query
    sc = spark.sparkContext
    sched = cfg["scheduler"]
    sf = cfg["tpch"]["sf"]
    for q in cfg["tpch"]["queries"]:
        props = job_properties(sched, "short", None, pass_class=True)
        props["spark.job.description"] = f"TPC-H Q{q}"
        set_props(sc, props)
        t = time.time()
        err, rows = None, None
        try:
            rows = spark.sql(query(q, sf)).collect()
        except Exception as e:
            err = str(e).splitlines()[0][:300]
        end = time.time()
        ok, msg = (False, err) if err else check_answer(q, [tuple(r) for r in rows], answers)
        under = bool(batch_alive()) if batch_alive else False
        results.append({"id": f"Q{q}", "query": q, "class": "short", "arrival": t, "start": t,
                        "end": end, "latency": end - t, "ok": ok, "check": msg,
                        "under_batch": under})
        log(f"Q{q:<2} {end - t:6.2f}s {'ok' if ok else 'WRONG: ' + str(msg)}"
            f"{'' if under or not batch_alive else ' (batch already done)'}")


def run_tpch(spark, cfg: dict) -> dict:
    """Phases (each optional): "alone" = the sort alone; "stream" = the 22 queries as
    interactive jobs, one after another, starting ``lead_s`` after the sort (the batch job)."""
    sched = cfg["scheduler"]
    t_cfg = cfg["tpch"]
    with open(t_cfg["answers"]) as f:
        answers = {int(k): v for k, v in json.load(f).items()}
    register_tpch(spark, t_cfg["data"])
    sc = spark.sparkContext
    set_props(sc, {"bench.class": "setup", "spark.job.description": "sort input"})
    t = time.time()
    df = sort_input(spark, cfg["sort"]["rows"], cfg["sort"]["parts"])
    log(f"sort input: {cfg['sort']['rows']} rows cached in {time.time() - t:.1f}s")
    phases = {}
    t_all = time.time()
    if cfg.get("sort_alone"):
        rec = {}
        timed_sort(spark, df, sched, rec, "sort-alone")
        log(f"sort alone: {rec['latency']:.1f}s")
        phases["alone"] = {"jobs": [rec], "correct": rec["ok"]}
    if cfg.get("stream", True):
        batch = {}
        th = threading.Thread(target=timed_sort, args=(spark, df, sched, batch, "sort-batch"),
                              name="batch", daemon=True)
        th.start()
        time.sleep(t_cfg.get("lead_s", 3.0))
        queries: list = []
        qt = threading.Thread(target=query_stream, args=(spark, cfg, answers, queries, th.is_alive),
                              name="interactive", daemon=True)
        qt.start()
        qt.join()
        th.join()
        log(f"batch sort: {batch['latency']:.1f}s; queries: {sum(q['latency'] for q in queries):.1f}s in total")
        phases["stream"] = {"jobs": queries + [batch],
                            "correct": all(q["ok"] for q in queries) and batch["ok"],
                            "answers_correct": all(q["ok"] for q in queries)}
    wall = time.time() - t_all
    set_props(sc, {"bench.class": "check", "spark.job.description": "sort check"})
    sort_ok, sort_msg = sort_checks(spark, df, cfg["sort"]["rows"]) if cfg.get("check_sort", True) else (True, "skipped")
    log(f"sort check: {sort_msg}")
    for ph in phases.values():
        ph["correct"] = ph["correct"] and sort_ok
    return {"phases": phases, "wall_seconds": wall, "sort_check": sort_msg,
            "correct": all(p["correct"] for p in phases.values())}


def main(argv) -> int:
    cfg_path = argv[1]
    with open(cfg_path) as f:
        cfg = json.load(f)
    run_dir = os.path.dirname(os.path.abspath(cfg_path))
    result = {"scheduler": cfg["scheduler"], "workload": cfg["workload"], "ok": False}
    spark = None
    try:
        t = time.time()
        spark = start_spark(cfg["spark_conf"])
        n = wait_executors(spark, int(cfg["testbed"]["hosts"]))
        log(f"{cfg['scheduler']}: {n} executors up after {time.time() - t:.1f}s "
            f"(master {cfg['spark_conf']['spark.master']})")
        warm_up(spark, int(cfg["testbed"]["slots"]))
        if cfg["workload"] == "replay":
            result.update(run_replay(spark, cfg))
        elif cfg["workload"] == "tpch":
            result.update(run_tpch(spark, cfg))
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
            result["tasks"] = ev["tasks"]
            result["task_hosts"] = ev["hosts"]
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
