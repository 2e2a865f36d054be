"""Short-behind-long with default keys: policy=adaptive, no cutoffMs.

A job of many multi-second tasks (four waves on every master) starts first; one second
later small jobs arrive, one a second, each from its own thread. Each case runs FIFO
(stock master) and eagle in the same test and asserts, with wide margins:

- the small jobs' mean latency under eagle is <= 0.3x FIFO's;
- the big job under eagle takes <= 1.3x its FIFO time.

Variants: only `estimatedTaskMs` hints (no `job.class`), and no hints at all on the second
of two runs sharing a `history.path`. Masters: local-cluster[2,2,1024],
local-cluster[3,2,1024] and local[4]. The tasks sleep, so two loaded cores still give
stable durations.
"""
import json
import threading
import time

import pytest

from conftest import sleep_task, spark
from interactive import wait_for_slots

BIG_S, SMALL_S, SMALL_TASKS, SMALL_JOBS = 2.0, 0.1, 2, 5
CASES = [("local-cluster[2,2,1024]", 4), ("local-cluster[3,2,1024]", 6), ("local[4]", 4)]
# The default tier runs the FSP case; tests/test_small_clusters.py covers hints and history
# on every master there, and these variants are in the second tier.
HINT_CASES = [pytest.param(*c, marks=pytest.mark.full) for c in CASES]
HISTORY_CASES = [pytest.param(*c, marks=pytest.mark.full) for c in CASES]


def big_job(sc, slots, hints):
    if hints:
        sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(int(BIG_S * 1000)))
    n = 4 * slots
    return sc.parallelize(range(n), n).map(sleep_task(BIG_S)).count()


def small_job(sc, hints):
    if hints:
        sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(int(SMALL_S * 1000)))
    return sc.parallelize(range(SMALL_TASKS), SMALL_TASKS).map(sleep_task(SMALL_S)).count()


def scenario(sc, slots, hints):
    """Returns (big job seconds, [small job latencies])."""
    out = {"small": []}
    lock = threading.Lock()

    def big():
        t0 = time.time()
        big_job(sc, slots, hints)
        out["big"] = time.time() - t0

    def small():
        t0 = time.time()
        small_job(sc, hints)
        with lock:
            out["small"].append(time.time() - t0)

    tb = threading.Thread(target=big)
    tb.start()
    threads = []
    time.sleep(1.0)
    for _ in range(SMALL_JOBS):
        t = threading.Thread(target=small)
        t.start()
        threads.append(t)
        time.sleep(1.0)
    for t in threads:
        t.join(120)
    tb.join(300)
    assert "big" in out and len(out["small"]) == SMALL_JOBS, out
    return out["big"], out["small"]


def run(master, slots, conf=None, hints=False, summary=None):
    with spark(master if conf is None else "spark-eagle:" + master, conf, summary_path=summary) as (s, res):
        sc = s.sparkContext
        wait_for_slots(sc, master, slots)
        big, small = scenario(sc, slots, hints)
    return big, small, res.get("summary")


def check(label, fifo, eagle):
    (fb, fs, _), (eb, es, _) = fifo, eagle
    fm, em = sum(fs) / len(fs), sum(es) / len(es)
    print(f"{label}: small mean fifo {fm:.2f}s eagle {em:.2f}s ({em / fm:.2f}x); big fifo {fb:.1f}s eagle {eb:.1f}s ({eb / fb:.2f}x)")
    assert em <= 0.3 * fm, f"{label}: small jobs {em:.2f}s under eagle vs {fm:.2f}s under FIFO"
    assert eb <= 1.3 * fb, f"{label}: big job {eb:.1f}s under eagle vs {fb:.1f}s under FIFO"


@pytest.mark.parametrize("master,slots", HINT_CASES)
def test_estimate_hints_only(master, slots, tmp_path):
    fifo = run(master, slots, hints=True)
    eagle = run(master, slots, conf={}, hints=True, summary=tmp_path / "s.json")
    check(f"{master} hints", fifo, eagle)
    summary = eagle[2]
    assert summary["config"]["policy"] == "adaptive" and summary["config"]["cutoffMs"] == "learned"
    assert not summary["fallback"]
    history = summary["adaptive"]["history"]
    assert history, "the reservation is recorded over time"
    # Whether a split is learned depends on how many task sets each side had (the Rust
    # tests pin the rule); one that is learned lies between the two groups of hints.
    learned = [p["cutoffMs"] for p in history if p["cutoffMs"] is not None]
    assert all(SMALL_S * 1000 < c < BIG_S * 1000 for c in learned), history


@pytest.mark.parametrize("master,slots", HISTORY_CASES)
def test_no_hints_second_run_with_history(master, slots, tmp_path):
    hist = str(tmp_path / "history.json")
    conf = {"spark.scheduler.eagle.history.path": hist}
    run(master, slots, conf=conf)  # the first run only teaches the history
    with open(hist) as f:
        assert len(json.load(f)["entries"]) >= 2
    fifo = run(master, slots)
    eagle = run(master, slots, conf=conf, summary=tmp_path / "s.json")
    check(f"{master} history", fifo, eagle)
    big = [t for t in eagle[2]["taskSets"] if t["tasks"] == 4 * slots]
    assert big and big[0]["estimateSource"] == "history", big


# Second tier: FSP is not the default order, and on a loaded machine its big job has come in
# at the margin (1.33x FIFO's against the 1.3x bound, one fresh-clone run).
@pytest.mark.full
def test_fair_sojourn_order_keeps_the_guarantees(tmp_path):
    # order=fsp (the Fair Sojourn Protocol, docs/policies/adaptive.md): the same short-behind-long
    # case on real executors, with the same margins as the default SRPT order.
    master, slots = CASES[0]
    fifo = run(master, slots, hints=True)
    eagle = run(master, slots, conf={"spark.scheduler.eagle.order": "fsp"}, hints=True, summary=tmp_path / "s.json")
    check(f"{master} fsp", fifo, eagle)
    summary = eagle[2]
    assert summary["config"]["order"] == "fsp" and not summary["fallback"], summary["config"]
