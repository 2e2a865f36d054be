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
"""
import json
import re
import time

from conftest import spark

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
