"""Structured Streaming under the plugin: a query's micro-batches share one history.

A streaming query runs its plan again at every trigger, as a new SQL execution whose job
description Spark sets to the query's name, id, run id and *batch number*. The history
signature of a SQL query's stage carries the job description (see test_sql_signatures.py),
so every micro-batch's stages were new signatures: no micro-batch ever took its estimate
from the batches before it (each started on the default estimate), and each one added its
stages to the history, a stream of one batch a second pushing every other application's
stage out of a 10,000-entry history within an hour and a half. A micro-batch's signature
now carries the streaming query's id instead (`sql.streaming.queryId`), which stays the
same across batches and across restarts from the checkpoint.

Real executors: `spark-eagle:local-cluster[2,2,1024]`, a rate source aggregated into the
memory sink, run to ten batches, then restarted from its checkpoint.

The second test runs the same stream beside a batch job of many multi-second tasks, under
stock FIFO and under the plugin with default keys and no hints: under FIFO a micro-batch
that arrives waits for every task of the batch job to launch; under the plugin it waits at
most for running tasks to end, and the stream keeps going. The batch job then pays for the
stream's tasks (their slot time, from the event log), and for little else.

The third runs a query in continuous processing mode (`trigger(continuous=...)`), whose
tasks never end: one per source partition, holding its slot for as long as the query runs.
Batch jobs beside it must get the other slots (neither waiting for the query's tasks nor
falling back to stock scheduling), the query must keep committing epochs, and at its stop
its slots must come back to the engine.
"""
import concurrent.futures
import datetime
import json
import re
import time

import pytest

from bench import eventlog
from conftest import assert_each_end_recorded_once, sleep_task, spark
from interactive import event_conf

MASTER = "spark-eagle:local-cluster[2,2,1024]"
BATCH = re.compile(r"\nbatch = (\d+)$")


def _wait_for_executors(sc, want=2, timeout=120):
    deadline = time.time() + timeout
    while len(sc._jsc.sc().statusTracker().getExecutorInfos()) - 1 < want and time.time() < deadline:
        time.sleep(0.5)


def _run_stream(s, checkpoint, batches, timeout=240):
    """Runs the counting query until `batches` more micro-batches have ended; returns
    (its progress reports, the memory table's counts, the id of the query)."""
    df = (s.readStream.format("rate").option("rowsPerSecond", 100).option("numPartitions", 4).load()
          .selectExpr("value % 10 AS k").groupBy("k").count())
    q = (df.writeStream.outputMode("complete").format("memory").queryName("counts")
         .option("checkpointLocation", str(checkpoint))
         .trigger(processingTime="300 milliseconds").start())
    try:
        deadline = time.time() + timeout
        while len(q.recentProgress) < batches and time.time() < deadline:
            assert q.exception() is None, q.exception()
            time.sleep(0.2)
        progress = list(q.recentProgress)
        assert len(progress) >= batches, f"{len(progress)} of {batches} micro-batches in {timeout} s"
    finally:
        q.stop()
    counts = {r["k"]: r["count"] for r in s.sql("SELECT k, count FROM counts").collect()}
    return progress, counts, q.id


def _micro_batches(summary, query_id):
    """batch number -> the task sets of that micro-batch of the query."""
    out = {}
    desc = {j["jobId"]: j.get("description") or "" for j in summary["jobs"]}
    for t in summary["taskSets"]:
        d = desc.get(t["jobId"], "")
        m = BATCH.search(d)
        if m and f"id = {query_id}" in d:
            out.setdefault(int(m.group(1)), []).append(t)
    return out


@pytest.mark.full
def test_micro_batches_share_one_history_across_batches_and_restarts(tmp_path):
    history = tmp_path / "history.json"
    checkpoint = tmp_path / "checkpoint"
    conf = {"spark.scheduler.eagle.history.path": str(history),
            "spark.sql.shuffle.partitions": "4"}
    runs = []
    for run in range(2):
        summary_path = tmp_path / f"summary-{run}.json"
        with spark(MASTER, conf, summary_path=summary_path, app=f"eagle-stream-{run}") as (s, res):
            _wait_for_executors(s.sparkContext)
            progress, counts, qid = _run_stream(s, checkpoint, batches=10)
        summary = res["summary"]
        assert summary["fallback"] is False, summary.get("fallbackReason")
        # The complete-mode counts are every row the query has read, over both runs.
        total = sum(counts.values())
        assert total > 0 and set(counts) <= set(range(10)), counts
        runs.append((summary, _micro_batches(summary, qid), qid, progress))
        with open(history) as f:
            entries = json.load(f)["entries"]
        # One entry per distinct stage, not per micro-batch: the executors' first job and the
        # query's few stage shapes. 2 x 10 or more when each micro-batch was new.
        assert len(entries) <= 8, f"run {run}: {len(entries)} history entries after {len(progress)} micro-batches"

    # The restart resumes the same query (same id) from its checkpoint.
    assert runs[0][2] == runs[1][2]
    for run, (summary, batches, _, _) in enumerate(runs):
        numbered = sorted(batches)
        assert len(numbered) >= 8, f"run {run}: micro-batches seen {numbered}"
        # From the third batch of the first run on (the first two learn the stages), and for
        # every batch of the restarted run (the history was saved at the first one's stop),
        # each stage's estimate at submission comes from the history of the batches before.
        later = [t for b in numbered[(2 if run == 0 else 0):] for t in batches[b]]
        assert later, f"run {run}: no task set of the later micro-batches"
        sources = sorted({t["submitEstimateSource"] for t in later})
        assert sources == ["history"], f"run {run}: estimate sources {sources} over {len(later)} task sets"
        # And every micro-batch's stages share signatures: as many as the plan has stages.
        sigs = {t["signature"] for b in numbered for t in batches[b]}
        per_batch = max(len(batches[b]) for b in numbered)
        assert len(sigs) <= per_batch + 1, f"run {run}: {len(sigs)} signatures over {len(numbered)} batches"


BIG_TASKS, BIG_S = 32, 3.0  # eight waves on 4 slots: 24 s under FIFO


def _ended_at(p):
    """A progress report's end, epoch seconds: its timestamp (the trigger) plus its duration."""
    t = datetime.datetime.fromisoformat(p["timestamp"].replace("Z", "+00:00")).timestamp()
    return t + p["durationMs"].get("triggerExecution", 0) / 1000.0


def _stream_beside_batch(master, label, events):
    """(batch job seconds, durations of the micro-batches that overlapped it, how many of
    them ended while it ran, the slot-seconds other tasks held while it ran)."""
    conf = dict(event_conf(events), **{"spark.sql.shuffle.partitions": "4"})
    with spark(master, conf, app=f"eagle-stream-{label}") as (s, _):
        sc = s.sparkContext
        _wait_for_executors(sc)
        sc.parallelize(range(4), 4).map(sleep_task(0.3)).count()
        df = (s.readStream.format("rate").option("rowsPerSecond", 100).option("numPartitions", 4).load()
              .selectExpr("value % 10 AS k").groupBy("k").count())
        q = (df.writeStream.outputMode("complete").format("memory").queryName(f"beside_{label}")
             .trigger(processingTime="500 milliseconds").start())
        try:
            deadline = time.time() + 120
            while len(q.recentProgress) < 5 and time.time() < deadline:
                time.sleep(0.2)
            assert len(q.recentProgress) >= 5, f"{label}: the stream did not start"
            sc.setJobGroup("batch", "the batch job")
            t0 = time.time()
            n = sc.parallelize(range(BIG_TASKS), BIG_TASKS).map(sleep_task(BIG_S)).count()
            t1 = time.time()
            assert n == BIG_TASKS
            (batch_job,) = sc.statusTracker().getJobIdsForGroup("batch")
            # Let the micro-batch the job held back end (under FIFO it ends after the job).
            deadline = time.time() + 60
            while time.time() < deadline and not any(_ended_at(p) > t1 for p in q.recentProgress):
                time.sleep(0.2)
            progress = list(q.recentProgress)
            assert q.exception() is None, q.exception()
        finally:
            q.stop()
    overlapping = [p for p in progress if _ended_at(p) > t0 and _ended_at(p) - p["durationMs"]["triggerExecution"] / 1000.0 < t1]
    durations = [p["durationMs"]["triggerExecution"] / 1000.0 for p in overlapping]
    ended_during = sum(1 for p in progress if t0 < _ended_at(p) <= t1)
    log = eventlog.find_log(str(events))
    batch_stages = set(eventlog.parse(log)["jobs"][batch_job]["stages"])
    others = sum(max(0.0, min(f / 1000.0, t1) - max(la / 1000.0, t0))
                 for stage, la, f in eventlog.task_spans(log) if stage not in batch_stages)
    return t1 - t0, durations, ended_during, others


# Micro-batches every 500 ms against a batch job: timings that other applications running
# beside them on two cores would distort (scripts/test.sh runs it after the others).
@pytest.mark.alone
def test_micro_batches_do_not_wait_for_a_batch_job(tmp_path):
    runs = {}
    for label, master in (("fifo", "local-cluster[2,2,1024]"), ("eagle", MASTER)):
        runs[label] = _stream_beside_batch(master, label, tmp_path / label)
    (fifo_big, fifo_d, fifo_n, _), (eagle_big, eagle_d, eagle_n, eagle_others) = runs["fifo"], runs["eagle"]
    msg = (f"FIFO: job {fifo_big:.1f} s, micro-batches {fifo_d}; eagle: job {eagle_big:.1f} s, "
           f"micro-batches {eagle_d}, other tasks' slot time during the job {eagle_others:.1f} s")
    assert fifo_d and eagle_d, msg
    # FIFO holds a micro-batch until all 32 tasks have launched (seven waves, 21 s); under
    # the plugin its two stages each wait at most for a wave to end (2 x 3 s), and the
    # stream keeps its pace: several micro-batches end while the job runs, against FIFO's 1.
    assert max(eagle_d) <= 0.6 * max(fifo_d), msg
    assert eagle_n >= 2, msg
    # The job pays for the stream's tasks (up to 1 - longShare of the slots while the stream
    # goes on, docs/policies/adaptive.md) and for little else: no slot sits idle for long.
    assert eagle_big <= 1.3 * fifo_big + eagle_others / 4, msg


def _timed_sleep(seconds):
    """sleep_task's map function, returning (x, start, end) in epoch seconds."""

    def f(x):
        import time as _t

        t0 = _t.time()
        _t.sleep(seconds)
        return x, t0, _t.time()

    return f


def _most_at_once(rows):
    """The most tasks running at once, from (x, start, end) rows."""
    cur = most = 0
    for _, k in sorted([(r[1], 1) for r in rows] + [(r[2], -1) for r in rows]):
        cur += k
        most = max(most, cur)
    return most


def _running_tasks(sc):
    return sum(e.numRunningTasks() for e in sc._jsc.sc().statusTracker().getExecutorInfos())


@pytest.mark.full
def test_continuous_query_holds_two_slots_and_batch_jobs_use_the_rest(tmp_path):
    """A continuous query's 2 never-ending tasks (rate source of 2 partitions) hold 2 of
    the 4 slots. Two batch jobs of 8 one-second tasks beside it must run on the other 2 (the
    plugin neither waits for the long tasks to end nor falls back), while the query keeps
    writing rows; once it stops, its 2 slots must come back: 4 tasks run at once again,
    those of a stage with no hint whose estimate is far too low. (The memory sink is used: foreachBatch is refused with a continuous trigger, Python's
    foreach fails its tasks, and a continuous query reports no recentProgress.)"""
    with spark(MASTER, summary_path=tmp_path / "summary.json", app="eagle-stream-continuous") as (s, res):
        sc = s.sparkContext
        _wait_for_executors(sc)
        df = s.readStream.format("rate").option("rowsPerSecond", 10).option("numPartitions", 2).load()
        q = df.writeStream.format("memory").queryName("cont").trigger(continuous="1 second").start()
        try:
            deadline = time.time() + 120
            while s.table("cont").count() == 0 and time.time() < deadline:
                assert q.exception() is None, q.exception()
                time.sleep(0.5)
            before, t0 = s.table("cont").count(), time.time()
            assert before > 0, "no row reached the memory sink in 120 s"
            batch = lambda: [sc.parallelize(range(8), 8).map(_timed_sleep(1.0)).collect() for _ in range(2)]
            jobs = concurrent.futures.ThreadPoolExecutor(1).submit(batch).result(timeout=300)
            took, after = time.time() - t0, s.table("cont").count()
            assert q.isActive and q.exception() is None, q.exception()
        finally:
            q.stop()
        assert q.exception() is None, q.exception()
        deadline = time.time() + 60  # the query's killed tasks give their cores back to Spark
        while _running_tasks(sc) and time.time() < deadline:
            time.sleep(0.2)
        # No hint: the stage comes in at the application's typical task, tens of ms (the
        # count queries above), and its tasks run 6 s. By the estimate the warm slots are
        # about to free, so the warm-executor rule alone would keep it off the executor it
        # has not warmed for the whole wave (2 at once); the cold executor is taken once the
        # first two have overrun the estimate by two warm-ups.
        freed = sc.parallelize(range(4), 4).map(_timed_sleep(6.0)).collect()
    summary = res["summary"]
    assert summary["fallback"] is False, summary.get("fallbackReason")
    msg = f"batch jobs {took:.1f} s, rows {before} -> {after}, after the stop {freed}"
    for rows in jobs:
        assert sorted(r[0] for r in rows) == list(range(8)), rows
    assert after > before, msg  # the query kept writing while the jobs ran
    # At most 2 batch tasks at once (the query held 2 slots), and the other 2 were used.
    assert _most_at_once(jobs[0] + jobs[1]) == 2, msg
    assert _most_at_once(freed) == 4, msg  # no slot of the query's tasks was leaked
    cont = {j["jobId"] for j in summary["jobs"] if f"id = {q.id}" in (j["description"] or "")}
    assert [t["tasks"] for t in summary["taskSets"] if t["jobId"] in cont] == [2], summary["taskSets"]
    assert all(j["result"] == "succeeded" for j in summary["jobs"] if j["jobId"] not in cont), summary["jobs"]
    # Every launch was an engine decision, and the summary kept every task set, once.
    assert summary["taskSetsDropped"] == 0
    assert_each_end_recorded_once(summary)
    assert summary["counters"]["decisions"] >= sum(t["tasks"] for t in summary["taskSets"])
