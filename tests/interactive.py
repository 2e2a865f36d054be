"""Short-behind-long scenarios shared by the adaptive-policy tests: a long job of sleeping
tasks, small jobs beside it, and what the event log says about their waits.

The tasks sleep, so two loaded cores still give stable durations.
"""
import os
import threading
import time

from bench import eventlog
from conftest import sleep_task, spark

ESTIMATE = "spark.scheduler.eagle.job.estimatedTaskMs"


def wait_for_slots(sc, master, slots, timeout=120):
    """Waits for a local-cluster's executors, then starts the Python workers everywhere
    before anything is timed."""
    if master.startswith("local-cluster"):
        want = int(master.split("[")[1].split(",")[0])
        deadline = time.time() + timeout
        while time.time() < deadline:
            if len(sc._jsc.sc().statusTracker().getExecutorInfos()) - 1 >= want:
                break
            time.sleep(0.5)
    sc.parallelize(range(slots), slots).map(sleep_task(0.3)).count()


def sleeping_job(sc, tasks, seconds, hint):
    """`tasks` tasks of `seconds` each; with `hint`, the job's estimate is set first."""
    sc.setLocalProperty(ESTIMATE, str(int(seconds * 1000)) if hint else None)
    return sc.parallelize(range(tasks), tasks).map(sleep_task(seconds)).count()


def long_beside_small_jobs(sc, long_tasks, long_s, small_jobs, small_tasks, small_s, hints, think=0.0):
    """A long job of `long_tasks` x `long_s` starts; 1 s later one user submits `small_jobs` jobs
    of `small_tasks` x `small_s`, each `think` seconds after the previous one returned.
    Returns (the long job's seconds, its count, [the small jobs' latencies])."""
    out = {}

    def long_job():
        t0 = time.time()
        out["count"] = sleeping_job(sc, long_tasks, long_s, hints)
        out["long"] = time.time() - t0

    t = threading.Thread(target=long_job)
    t.start()
    time.sleep(1.0)
    small = []
    for _ in range(small_jobs):
        t0 = time.time()
        assert sleeping_job(sc, small_tasks, small_s, hints) == small_tasks
        small.append(time.time() - t0)
        time.sleep(think)
    t.join(300)
    assert "long" in out, "the long job did not end"
    return out["long"], out["count"], small


def run_app(master, slots, eagle_conf, scenario, events=None, summary=None):
    """One application on `master` (eagle's master when `eagle_conf` is not None, with those
    keys; else the stock one), its slots up: `scenario(sc)`'s result, the Spark id of its first
    job, and the Eagle summary (when `summary` names its path)."""
    c = dict(eagle_conf or {})
    if events is not None:
        c.update(event_conf(events))
    with spark(master if eagle_conf is None else "spark-eagle:" + master, c, summary_path=summary) as (s, res):
        sc = s.sparkContext
        wait_for_slots(sc, master, slots)
        before = sc.statusTracker().getJobIdsForGroup(None)
        first_job = max(before) + 1 if before else 0
        out = scenario(sc)
    return out, first_job, res.get("summary")


def event_conf(events_dir):
    os.makedirs(events_dir, exist_ok=True)
    return {"spark.eventLog.enabled": "true", "spark.eventLog.dir": "file://" + str(events_dir),
            "spark.eventLog.compress": "false"}


def waits_behind_long(events_dir, long_job, small_jobs, min_wait_ms=500):
    """For each small job (Spark job ids), its wait from submission to its first task's
    launch (ms), and whether it waited for a task of `long_job` to end: a wait of at least
    `min_wait_ms` that a long task's end fell into."""
    path = eventlog.find_log(str(events_dir))
    jobs = eventlog.parse(path)["jobs"]
    spans = eventlog.task_spans(path)
    long_stages = set(jobs[long_job]["stages"])
    long_ends = [f for s, _, f in spans if s in long_stages]
    out = []
    for j in small_jobs:
        stages = set(jobs[j]["stages"])
        submitted = jobs[j]["submitted_ms"]
        first = min(launch for s, launch, _ in spans if s in stages)
        wait = first - submitted
        behind = wait >= min_wait_ms and any(submitted <= f <= first for f in long_ends)
        out.append((wait, behind))
    return out
