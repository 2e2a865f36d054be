"""Short-behind-long scenarios shared by the adaptive-policy tests: a long job of sleeping
tasks, small jobs beside it, and what the event log says about their waits.

The tasks sleep, so two loaded cores still give stable durations.
"""
import os
import time

from bench import eventlog
from conftest import sleep_task

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
