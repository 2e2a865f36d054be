"""Bounded waiting by preemption (`spark.scheduler.eagle.preempt.afterMs`, off by default),
with real executors.

A long job of two waves of 10 s tasks fills every slot; 1 s later one user submits five small
jobs of 2 x 0.1 s, one after another. FIFO (stock master), eagle with default keys and eagle
with `preempt.afterMs=500` run in the same test. Without preemption the first small job
waits for the first long wave to end (about 9 s: the floor tests/test_small_clusters.py
allows); with it, the bound, a reviver tick and the kill. Asserted with wide margins:

- with preemption, every small job's wait from submission to its first launch (event log)
  <= 3 s; with default keys the first one's > 5 s;
- with preemption, the small jobs' mean latency <= 0.3x FIFO's;
- the long job pays at most one task's time per kill over eagle without preemption (the
  killed task runs again, after the small jobs: with as many tasks as two waves fill, that
  is a third wave), plus 5 s of slack;
- the summary counts each kill and the run time it cost, within the 5 % budget, and the
  long job's answer is whole (the killed task ran again; a kill is no task failure, and
  local mode allows none).

The tasks are Python: Spark ends a killed Python task when `spark.python.task.killTimeout`
(2 s by default) has passed, so the test lowers it, as a user of preemption would.
The default tier runs local[4]; `scripts/test.sh --full` adds the local clusters.
"""
import pytest

from interactive import long_beside_small_jobs, run_app, waits_behind_long

LONG_S, WAVES, SMALL_S, SMALL_TASKS, SMALL_JOBS = 10.0, 2, 0.1, 2, 5
AFTER_MS = 500
PREEMPT = {"spark.scheduler.eagle.preempt.afterMs": str(AFTER_MS),
           "spark.python.task.killTimeout": "100ms"}
MASTERS = [pytest.param("local[4]", 4, id="local4"),
           pytest.param("local-cluster[2,2,1024]", 4, id="lc22", marks=pytest.mark.full),
           pytest.param("local-cluster[3,2,1024]", 6, id="lc32", marks=pytest.mark.full)]


def run(master, slots, conf, events, summary=None):
    """FIFO when `summary` is None, else eagle with `conf`."""
    def scenario(sc):
        return long_beside_small_jobs(sc, WAVES * slots, LONG_S, SMALL_JOBS, SMALL_TASKS, SMALL_S, True)

    (long_s, count, small), first_job, s = run_app(master, slots, None if summary is None else conf, scenario,
                                                   events, summary)
    return long_s, count, small, first_job, s


@pytest.mark.parametrize("master,slots", MASTERS)
def test_preemption_bounds_every_small_jobs_wait(master, slots, tmp_path):
    def small_waits(events, first_job):
        return [w for w, _ in waits_behind_long(events, first_job, range(first_job + 1, first_job + 1 + SMALL_JOBS))]

    fl, fc, fs, _, _ = run(master, slots, {}, tmp_path / "fifo")
    dl, dc, ds, d_first, d_summary = run(master, slots, {}, tmp_path / "default", tmp_path / "d.json")
    el, ec, es, first_job, summary = run(master, slots, PREEMPT, tmp_path / "eagle", tmp_path / "s.json")
    mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
    fm, dm, em = mean(fs), mean(ds), mean(es)
    c = summary["counters"]
    waits, d_waits = small_waits(tmp_path / "eagle", first_job), small_waits(tmp_path / "default", d_first)
    print(f"{master}: small mean fifo {fm:.2f}s, eagle {dm:.2f}s ({dm / fm:.2f}x), "
          f"preempt.afterMs={AFTER_MS} {em:.2f}s ({em / fm:.2f}x); long fifo {fl:.1f}s, eagle {dl:.1f}s, "
          f"preempting {el:.1f}s; waits eagle {d_waits} ms, preempting {waits} ms; "
          f"kills {c['preemptions']}, killed work {c['preemptedMs']} ms")
    assert not summary["fallback"] and summary["config"]["preempt.afterMs"] == AFTER_MS
    assert d_summary["counters"]["preemptions"] == 0, "off by default"
    assert fc == dc == ec == WAVES * slots, "the long job's answer is whole"
    assert d_waits[0] > 5000, f"without preemption the first small job waits for the long wave: {d_waits}"
    assert all(w <= 3000 for w in waits), f"a small job waited past the bound: {waits}"
    assert em <= 0.3 * fm, f"small jobs {em:.2f}s under eagle vs {fm:.2f}s under FIFO"
    assert c["preemptions"] >= 1
    assert el <= dl + c["preemptions"] * LONG_S + 5, f"long job {el:.1f}s preempting vs {dl:.1f}s without"
    assert 0 < c["preemptedMs"] <= 0.05 * slots * 60_000
