"""Spark-feature scenarios shared by the feature tests (tests/test_features*.py).

Each scenario runs real jobs on the given SparkContext and returns what the test asserts on.
A scenario that would hang under a broken scheduler is bounded: `bounded` runs the job in a
thread and cancels every job of the context after `timeout` seconds, so a hang becomes a
failed assertion instead of a stuck test session.
"""
import os
import shutil
import signal
import tempfile
import threading
import time


class Timeout(Exception):
    pass


def bounded(sc, fn, timeout):
    """fn() in a thread; its result, or raises its exception, or Timeout after `timeout` s
    (then every job of the context is cancelled so the next scenario starts clean)."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 (re-raised in the caller's thread)
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t0 = time.time()
    t.start()
    t.join(timeout)
    if t.is_alive():
        sc.cancelAllJobs()
        t.join(60)
        raise Timeout(f"did not finish in {timeout} s")
    out["seconds"] = time.time() - t0
    if "error" in out:
        raise out["error"]
    return out["value"]


def wait_for_executors(sc, n, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if executor_count(sc) >= n:
            return
        time.sleep(0.5)
    raise AssertionError(f"{n} executors did not register in {timeout}s")


def executor_count(sc):
    return len(sc._jsc.sc().statusTracker().getExecutorInfos()) - 1  # minus the driver


def executor_pids(app_id):
    pids = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if b"org.apache.spark.executor.CoarseGrainedExecutorBackend" in cmd and app_id.encode() in cmd:
            pids.append(int(d))
    return sorted(pids)


# ---- scenarios ---------------------------------------------------------------------------


def barrier_next_to_normal_job(sc, partitions=2, timeout=90):
    """A barrier stage (every task calls barrier()) and a normal job submitted at the same
    time. Returns (barrier result, normal result)."""

    def barrier_job():
        def f(it):
            from pyspark import BarrierTaskContext

            ctx = BarrierTaskContext.get()
            ctx.barrier()
            yield (ctx.partitionId(), sum(it))

        return sorted(sc.parallelize(range(100), partitions).barrier().mapPartitions(f).collect())

    def normal_job():
        return sc.parallelize(range(1000), 8).map(lambda x: x * 2).sum()

    res = {}

    def both():
        t = threading.Thread(target=lambda: res.__setitem__("normal", normal_job()), daemon=True)
        t.start()
        res["barrier"] = barrier_job()
        t.join()
        return res

    bounded(sc, both, timeout)
    return res["barrier"], res["normal"]


def barrier_expected(partitions):
    per = [0] * partitions
    n = 100
    for p in range(partitions):
        lo, hi = p * n // partitions, (p + 1) * n // partitions
        per[p] = sum(range(lo, hi))
    return [(p, per[p]) for p in range(partitions)]


def cpus2_profile_job(sc, probe=None, timeout=90):
    """Tasks of a stage-level TaskResourceProfile (2 cpus per task), each sleeping 2 s.
    Returns (sum, highest value of probe() sampled while the job ran, or None)."""
    from pyspark.resource import ResourceProfileBuilder, TaskResourceRequests

    rp = ResourceProfileBuilder().require(TaskResourceRequests().cpus(2)).build
    rdd = sc.parallelize(range(8), 4).map(_sleep(2.0)).map(lambda x: x * 3).withResources(rp)
    peak = [None]
    done = threading.Event()

    def sample():
        while not done.is_set():
            v = probe()
            peak[0] = v if peak[0] is None else max(peak[0], v)
            time.sleep(0.1)

    t = threading.Thread(target=sample, daemon=True)
    if probe is not None:
        t.start()
    try:
        total = bounded(sc, rdd.sum, timeout)
    finally:
        done.set()
    return total, peak[0]


def cancel_job_group(sc, timeout=60):
    """A long job in a group, cancelled after it started. Returns (error text, seconds until
    the job ended, result of the next job)."""
    out = {}

    def long_job():
        sc.setJobGroup("to-cancel", "cancel me", interruptOnCancel=True)
        t0 = time.time()
        try:
            sc.parallelize(range(4), 4).map(_sleep(120)).count()
            out["error"] = None
        except Exception as e:  # noqa: BLE001
            out["error"] = str(e)
        out["ended"] = time.time() - t0

    t = threading.Thread(target=long_job, daemon=True)
    t.start()
    deadline = time.time() + 30
    while time.time() < deadline and not sc.statusTracker().getActiveJobsIds():
        time.sleep(0.2)
    time.sleep(1.0)
    sc.cancelJobGroup("to-cancel")
    t.join(timeout)
    assert not t.is_alive(), "the cancelled job did not end"
    nxt = bounded(sc, lambda: sc.parallelize(range(100), 4).sum(), timeout)
    return out["error"], out["ended"], nxt


def max_failures_exhausted(sc, timeout=90):
    """Partition 1 always fails: the job fails once spark.task.maxFailures attempts failed.
    Returns (error text, attempts of partition 1, result of the next job). The attempts are
    counted with a marker file each (Spark 4.3's PySpark error text no longer carries
    "failed N times")."""
    import tempfile

    marks = tempfile.mkdtemp(prefix="eagle-maxfail-")

    def always_fails(it):
        import os as _os

        from pyspark import TaskContext

        tc = TaskContext.get()
        if tc.partitionId() == 1:
            open(_os.path.join(marks, f"attempt-{tc.attemptNumber()}"), "w").close()
            raise RuntimeError("always-failing task")
        return it

    err = None
    try:
        bounded(sc, lambda: sc.parallelize(range(40), 4).mapPartitions(always_fails).count(), timeout)
    except Timeout:
        shutil.rmtree(marks, ignore_errors=True)
        raise
    except Exception as e:  # noqa: BLE001
        err = str(e)
    attempts = len(os.listdir(marks))
    shutil.rmtree(marks, ignore_errors=True)
    nxt = bounded(sc, lambda: sc.parallelize(range(100), 4).sum(), timeout)
    return err, attempts, nxt


def fails_on_one_executor(sc, job_class=None, timeout=120):
    """Every task fails on the executor that runs partition 0's first attempt (recorded in a
    marker file); with excludeOnFailure the retries go to the other executor. Returns
    the sum. `job_class`: the plugin's job.class hint for the job."""
    import tempfile

    marker = tempfile.mktemp(prefix="eagle-bad-exec-")

    def f(it):
        import os as _os

        from pyspark import TaskContext

        ctx = TaskContext.get()
        me = _os.getcwd()  # the executor's own work directory
        if ctx.partitionId() == 0 and ctx.attemptNumber() == 0 and not _os.path.exists(marker):
            with open(marker, "w") as fh:
                fh.write(me)
        bad = open(marker).read() if _os.path.exists(marker) else None
        if bad == me:
            raise RuntimeError("bad executor")
        return [sum(it)]

    def job():
        # local properties are per thread: set the hint in the thread that submits the job
        sc.setLocalProperty("spark.scheduler.eagle.job.class", job_class)
        return sc.parallelize(range(400), 8).mapPartitions(f).sum()

    try:
        return bounded(sc, job, timeout)
    finally:
        if os.path.exists(marker):
            os.remove(marker)


def fetch_failed_resubmit(sc, app_id, timeout=240):
    """A map stage writes shuffle output; an executor JVM that ran map tasks is killed before
    the reduce stage reads it, so the reduce gets a FetchFailed (or the map output is lost
    with the executor) and the map stage is resubmitted. Returns (answer, killed pid).

    The map tasks record their executor's pid, and the killed executor is one of those: a
    scheduler may run the whole small map stage on one executor, and killing the other would
    lose no map output."""
    marks = tempfile.mkdtemp(prefix="eagle-fetch-maps-")

    def record_executor(it):
        # the nearest CoarseGrainedExecutorBackend ancestor of this Python worker
        import os as _os

        pid = _os.getpid()
        while pid > 1:
            try:
                with open("/proc/%d/cmdline" % pid, "rb") as f:
                    if b"CoarseGrainedExecutorBackend" in f.read():
                        open(_os.path.join(marks, str(pid)), "w").close()
                        break
                with open("/proc/%d/stat" % pid) as f:
                    pid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                break
        return it

    pairs = sc.parallelize(range(2000), 8).mapPartitions(record_executor).map(lambda x: (x % 10, x))
    gate = "/tmp/eagle-fetch-gate-%d" % os.getpid()
    if os.path.exists(gate):
        os.remove(gate)

    def reduce_side(it):
        import os as _os
        import time as _t

        deadline = _t.time() + 60
        while not _os.path.exists(gate) and _t.time() < deadline:
            _t.sleep(0.2)
        return it

    out = {}

    def job():
        sc.setJobGroup("fetch-failed", "map then reduce")
        out["v"] = sorted(pairs.reduceByKey(lambda a, b: a + b, 4).mapPartitions(reduce_side).collect())

    t = threading.Thread(target=job, daemon=True)
    t.start()
    try:
        # wait until the job's reduce stage (its last stage) runs tasks: the map output is written
        deadline = time.time() + 90
        while time.time() < deadline:
            st = sc.statusTracker()
            jobs = st.getJobIdsForGroup("fetch-failed")
            info = st.getJobInfo(jobs[0]) if jobs else None
            stage = st.getStageInfo(max(info.stageIds)) if info and info.stageIds else None
            if stage is not None and stage.numActiveTasks > 0:
                break
            time.sleep(0.2)
        pids = executor_pids(app_id)
        assert pids, "no executor process found"
        mapped = sorted(int(p) for p in os.listdir(marks) if int(p) in pids)
        assert mapped, ("no live executor ran a map task", os.listdir(marks), pids)
        os.kill(mapped[0], signal.SIGKILL)
        open(gate, "w").close()
        t.join(timeout)
    finally:
        if os.path.exists(gate):
            os.remove(gate)
        shutil.rmtree(marks, ignore_errors=True)
    assert not t.is_alive(), "the job did not finish after the executor was killed"
    return out.get("v"), mapped[0]


def fetch_expected():
    acc = {}
    for x in range(2000):
        acc[x % 10] = acc.get(x % 10, 0) + x
    return sorted(acc.items())


def _sleep(seconds):
    def f(x):
        import time as _t

        _t.sleep(seconds)
        return x

    return f
