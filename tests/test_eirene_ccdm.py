"""Eirene's Coordinated Cold Data Migration in real Spark (`spark.scheduler.eagle.eirene.ccdm`).

Real executors (`local-cluster[2,1,1024]`, one slot each). A cached RDD of 8 partitions
(1 MiB each) is spread over both executors. A short blocker job fills both slots, then a
short reader job of 8 tasks, one per cached partition, arrives and waits: it probes both
executors, whose sides of the plugin copy cached blocks into their own memory (remote block
reads), and the fast lane copies the next block on every launch.

Asserted, without timings:
- the reader's output is exact (each partition read once, every byte);
- migrations happened and each one was reported back (started + fast lane = migrated +
  failed), so no queue slot leaks;
- at least one task ran where its input had been migrated (ccdmHelped);
- after the job, the migrated copies are gone again: every block has exactly one location,
  and the application's own cached blocks were never touched;
- every engine slot comes back.
With CCDM off nothing is migrated and no `eirene` section is written. Without the plugin in
`spark.plugins`, or with a bad cap, the application does not start and the message names the key.
"""
import time

import features as ft
from conftest import spark
from test_config import start_fails

CCDM = "spark.scheduler.eagle.eirene.ccdm"
PLUGIN = "org.apache.spark.scheduler.eagle.EireneCcdmPlugin"
PARTS = 8
MIB = 1 << 20
MASTER = "local-cluster[2,1,1024]"


def block_locations(sc, rdd_id):
    """Executors holding each cached block, as the application's status store (fed by the
    block managers' updates, replicas included) has it."""
    sc._jsc.sc().listenerBus().waitUntilEmpty(10000)
    parts = sc._jsc.sc().statusStore().rdd(rdd_id).partitions().get()
    by_name = {parts.apply(i).blockName(): parts.apply(i).executors().size() for i in range(parts.size())}
    return [by_name.get(f"rdd_{rdd_id}_{p}", 0) for p in range(PARTS)]


def run(tmp_path, ccdm):
    conf = {CCDM: "true" if ccdm else "false", "spark.scheduler.eagle.cutoffMs": "10000"}
    if ccdm:
        conf["spark.plugins"] = PLUGIN
    with spark("spark-eagle:" + MASTER, conf, summary_path=tmp_path / "s.json") as (s, r):
        sc = s.sparkContext
        ft.wait_for_executors(sc, 2)
        data = sc.parallelize(range(PARTS), PARTS).map(lambda p: bytes([p % 256]) * MIB).cache()
        assert data.count() == PARTS
        rdd_id = data.id()
        before = block_locations(sc, rdd_id)

        def short(estimate_ms):
            sc.setLocalProperty("spark.scheduler.eagle.job.class", "short")
            sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(estimate_ms))

        def blocker():
            short(4000)
            return sc.parallelize(range(2), 2).map(lambda x: time.sleep(4) or x).collect()

        def reader():
            short(500)

            def f(it):
                import time as _t

                from pyspark import TaskContext

                total = sum(len(b) for b in it)
                _t.sleep(0.5)
                yield (TaskContext.get().partitionId(), total)

            return data.mapPartitions(f).collect()

        import threading

        t = threading.Thread(target=lambda: ft.bounded(sc, blocker, 120), daemon=True)
        t.start()
        time.sleep(1.5)  # the blocker holds both slots when the reader arrives
        out = ft.bounded(sc, reader, 150)
        t.join(150)
        # the drops travel asynchronously: wait until every block is back to one location
        deadline = time.time() + 30
        after = block_locations(sc, rdd_id)
        while time.time() < deadline and any(n != 1 for n in after):
            time.sleep(0.5)
            after = block_locations(sc, rdd_id)
        deadline = time.time() + 30
        while time.time() < deadline and sc._jsc.sc().taskScheduler().engineBusySlots() != 0:
            time.sleep(0.5)
        busy = sc._jsc.sc().taskScheduler().engineBusySlots()
    assert r["summary"]["fallback"] is False, r["summary"]["fallbackReason"]
    return out, before, after, busy, r["summary"]


def test_waiting_short_tasks_read_migrated_inputs_and_copies_are_dropped(tmp_path):
    out, before, after, busy, summary = run(tmp_path, True)
    assert sorted(out) == [(p, MIB) for p in range(PARTS)], out
    assert before == [1] * PARTS, before
    e = summary["eirene"]
    assert e["ccdm"] is True
    assert e["probes"] >= 1, e
    started = e["migrationsStarted"] + e["fastLane"]
    assert started >= 1, e
    assert started == e["migrated"] + e["migrationsFailed"], f"a migration was never reported: {e}"
    assert e["migrationsFailed"] == 0 and e["unreachable"] == 0, e
    assert e["ccdmHelped"] >= 1, e
    copied = e["migrated"] - e["alreadyLocal"]
    assert copied >= 1 and e["bytesMigrated"] > 0, e
    assert e["inputsDropped"] >= 1, e
    assert after == [1] * PARTS, f"migrated copies left behind, or the application's own blocks dropped: {after}"
    assert busy == 0


def test_nothing_migrates_with_ccdm_off(tmp_path):
    out, before, after, busy, summary = run(tmp_path, False)
    assert sorted(out) == [(p, MIB) for p in range(PARTS)], out
    assert "eirene" not in summary
    assert summary["config"]["eirene.ccdm"] is False
    assert after == before == [1] * PARTS
    assert busy == 0


def test_ccdm_without_the_plugin_names_spark_plugins():
    msg = start_fails("spark-eagle:local[2]", {CCDM: "true"})
    assert CCDM in msg and "spark.plugins" in msg and PLUGIN in msg, msg


def test_bad_ccdm_cap_names_the_key():
    msg = start_fails("spark-eagle:local[2]", {CCDM: "true", "spark.plugins": PLUGIN,
                                               "spark.scheduler.eagle.eirene.ccdm.maxBytes": "lots"})
    assert "spark.scheduler.eagle.eirene.ccdm.maxBytes" in msg and "lots" in msg, msg
