"""The Spark jobs of the benchmark workloads, run inside a benchmark application (a
``python -m bench.driver`` process): the sort and its checks, the TPC-H query stream, and the
helpers they share. Used by :mod:`bench.driver` (the tpch workload) and :mod:`bench.dds` (the
dds workload); imports neither, so that neither imports the other's module back.
"""
from __future__ import annotations

import os
import sys
import threading
import time

from .schedulers import job_properties


def log(msg: str) -> None:
    print(f"[driver {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def set_props(sc, props: dict) -> None:
    """Sets (or, for None, clears) local properties of the calling thread."""
    for k, v in props.items():
        sc.setLocalProperty(k, v)


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


def input_checksum(spark, df):
    from pyspark.sql import functions as F
    return df.agg(F.sum(F.col("v").cast("decimal(38,0)")).alias("s")).collect()[0]["s"]


def sort_checks(spark, out_dir: str, rows: int, checksum) -> tuple[bool, str]:
    """Reads the sort's output files back: one file per range partition; the files, in
    partition order, hold disjoint ascending ranges, and their row counts and sum equal the
    input's. (Order inside a file is Spark's own SortExec and is not re-checked.)"""
    from pyspark.sql import functions as F
    parts = (spark.read.parquet(out_dir).withColumn("f", F.input_file_name())
             .groupBy("f").agg(F.min("v").alias("lo"), F.max("v").alias("hi"),
                               F.count("v").alias("n"),
                               F.sum(F.col("v").cast("decimal(38,0)")).alias("s"))
             .collect())
    parts = sorted(parts, key=lambda r: os.path.basename(r["f"]).split("-")[1])
    total = sum(r["n"] for r in parts)
    if total != rows:
        return False, f"{total} rows out, {rows} in"
    if sum(r["s"] for r in parts) != checksum:
        return False, "checksum differs"
    for a, b in zip(parts, parts[1:]):
        if a["hi"] > b["lo"]:
            return False, f"output files overlap: {os.path.basename(a['f'])} / {os.path.basename(b['f'])}"
    return True, f"{rows} rows in {len(parts)} ordered range partitions, checksum equal"


def timed_sort(spark, df, sched: str, out: dict, label: str, out_dir: str) -> None:
    """The sort: the cached integers, ordered, written as parquet (one file per range
    partition). Timed from submission to the last file."""
    sc = spark.sparkContext
    props = job_properties(sched, "long", None, pass_class=True)
    props["spark.job.description"] = f"sort ({label})"
    set_props(sc, props)
    t = time.time()
    err = None
    try:
        df.orderBy("v").write.mode("overwrite").option("compression", "none").parquet(out_dir)
    except Exception as e:
        err = str(e).splitlines()[0][:300]
    end = time.time()
    out.update({"id": label, "class": "long", "arrival": t, "start": t, "end": end,
                "latency": end - t, "ok": err is None, "error": err, "out": out_dir})


def query_stream(spark, cfg: dict, answers: dict, results: list, batch_alive=None) -> None:
    """The queries arrive one every ``gap_s`` seconds, each submitted from its own thread
    (interactive users do not wait for each other), and each answer is checked."""
    from .tpch import check_answer
    from .tpch_queries import query
    sc = spark.sparkContext
    sched = cfg["scheduler"]
    sf = cfg["tpch"]["sf"]
    gap = cfg["tpch"].get("gap_s", 1.0)

    def one(q):
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

    threads = []
    t0 = time.time()
    for i, q in enumerate(cfg["tpch"]["queries"]):
        delay = t0 + i * gap - time.time()
        if delay > 0:
            time.sleep(delay)
        th = threading.Thread(target=one, args=(q,), name=f"Q{q}", daemon=True)
        th.start()
        threads.append(th)
    for th in threads:
        th.join()
    results.sort(key=lambda r: r["query"])


def wait_quiet(spark, settle: float = 2.0, timeout: float = 600.0) -> None:
    """Until no job is active (the previous replay has drained), then ``settle`` seconds."""
    tracker = spark.sparkContext.statusTracker()
    t0 = time.time()
    while tracker.getActiveJobsIds() and time.time() - t0 < timeout:
        time.sleep(0.5)
    time.sleep(settle)
