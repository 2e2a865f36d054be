import json
import time

from bench import report, work


def _job(job, stages, cls):
    return {"Event": "SparkListenerJobStart", "Job ID": job, "Stage IDs": stages,
            "Properties": {"bench.class": cls}}


def _task(stage, ex, t0, t1, cpu_ms=100, gc_ms=10, attempt=0):
    return {"Event": "SparkListenerTaskEnd", "Stage ID": stage, "Stage Attempt ID": attempt,
            "Task Info": {"Launch Time": t0 * 1000, "Finish Time": t1 * 1000, "Executor ID": ex},
            "Task Metrics": {"Executor CPU Time": cpu_ms * 1_000_000,
                             "Executor Deserialize CPU Time": 1_000_000,
                             "JVM GC Time": gc_ms, "Executor Run Time": (t1 - t0) * 1000}}


def _log(tmp_path, events):
    p = tmp_path / "events"
    p.write_text("\n".join(json.dumps(e) for e in events) + "\n{\"Event\": \"trunc")
    return str(p)


def test_each_cold_task_is_classified_by_what_ran_when_it_started(tmp_path):
    events = [
        _job(1, [1], "short"), _job(2, [2], "long"),
        # stage 1 (short), in launch order:
        _task(1, "A", 0, 10),   # the stage's first task
        _task(1, "B", 1, 5),    # a new executor while A runs: widen
        _task(1, "A", 2, 8),    # A still warming up (nothing ended there): warming
        _task(1, "B", 6, 7),    # after B's first end: warm
        _task(1, "A", 11, 12),  # after A's first end (8): warm
        _task(1, "C", 13, 14),  # nothing of the stage running (last end at 12): restart
        # stage 1 again (a resubmitted attempt): cold again on A, where attempt 0 was warm
        _task(1, "A", 20, 21, attempt=1),
        # stage 2 (long): one task
        _task(2, "B", 0, 30, cpu_ms=2000, gc_ms=500),
    ]
    w = work.summarize(_log(tmp_path, events))
    assert w["cold"]["short"] == {"first": 2, "widen": 1, "warming": 1, "restart": 1, "warm": 2}
    assert w["cold"]["long"] == {"first": 1, "widen": 0, "warming": 0, "restart": 0, "warm": 0}
    # (stage attempt, executor) pairs: A, B, C for attempt 0, A for attempt 1
    assert w["pairs"] == {"short": 4, "long": 1}
    short = w["by_class"]["short"]
    assert short["tasks"] == 7
    assert abs(short["cpu_s"] - 7 * 0.101) < 1e-9 and abs(short["gc_s"] - 0.07) < 1e-9
    assert w["by_class"]["long"]["cpu_s"] == 2.001 and w["by_class"]["long"]["run_s"] == 30.0


def test_the_report_shows_each_applications_work_once(tmp_path):
    w = {"by_class": {"short": {"tasks": 3, "cpu_s": 1.5, "gc_s": 0.5, "run_s": 9.0}},
         "cold": {"short": {"first": 1, "widen": 2, "warming": 0, "restart": 0, "warm": 0}},
         "pairs": {"short": 3}}
    runs = [{"scheduler": "eagle", "variant": v, "work": w} for v in ("alone", "under-tpch")]
    rows = report._work_table(runs)
    assert sum(r.count("<tr><td>eagle") for r in rows) == 1
    assert "<td>2</td>" in "".join(rows)
    assert report._work_table([{"scheduler": "fifo"}]) == []


def test_process_cpu_seconds_counts_this_process_and_grows_with_its_work():
    import os
    before = work.process_cpu_seconds(os.getpid())
    assert before is not None and before >= 0
    t = time.process_time()
    x = 0
    while time.process_time() - t < 0.3:   # burn about 0.3 s of CPU
        x += sum(range(1000))
    after = work.process_cpu_seconds(os.getpid())
    assert after - before >= 0.1, (before, after)


def test_process_cpu_seconds_is_none_for_a_process_that_is_not_there():
    assert work.process_cpu_seconds(2 ** 22 + 12345) is None
    assert work.process_cpu_seconds(-1) is None
