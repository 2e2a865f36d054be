"""Spark features that need a real standalone cluster with two hosts: a master on 127.0.0.1
and two workers bound to 127.0.0.2 and 127.0.0.3 (Spark never runs a speculative copy on the
host of the running attempt, so one host cannot test speculation), started with SPARK_HOME's
sbin/spark-daemon.sh (what start-master.sh / start-worker.sh run; the pyspark package ships
only that script) for this module and stopped in the fixture's finalizer.

- speculation: the first attempt of one task hangs; the job finishes because the copy wins;
- dynamic allocation with shuffle tracking: executors are added for a burst and removed
  when idle, and later jobs still complete.
Eagle (`spark-eagle:spark://...`) and stock (`spark://...`) alike.
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import pytest

import features as ft
from conftest import spark

SPARK_HOME = os.environ["SPARK_HOME"]
HOSTS = ["127.0.0.2", "127.0.0.3"]
DAEMON = f"{SPARK_HOME}/sbin/spark-daemon.sh"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


def free_port(host="127.0.0.1"):
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def pids_in(piddir):
    out = []
    for p in os.listdir(piddir):
        try:
            out.append(int(open(os.path.join(piddir, p)).read().strip()))
        except (OSError, ValueError):
            pass
    return out


def alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:  # a zombie is dead for our purpose
        return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def cluster():
    tmp = tempfile.mkdtemp(prefix="eagle-standalone-")
    port, ui = free_port(), free_port()
    base = dict(os.environ, SPARK_HOME=SPARK_HOME, SPARK_PID_DIR=f"{tmp}/pid",
                SPARK_CONF_DIR=f"{tmp}/conf")
    base.pop("SPARK_NO_DAEMONIZE", None)
    os.makedirs(f"{tmp}/conf")
    envs = []
    menv = dict(base, SPARK_LOCAL_IP="127.0.0.1", SPARK_MASTER_HOST="127.0.0.1",
                SPARK_LOG_DIR=f"{tmp}/log-master", SPARK_IDENT_STRING="eagle-master")
    url = f"spark://127.0.0.1:{port}"
    try:  # a failed start is cleaned up too
        envs.append(("master", menv))
        subprocess.run([DAEMON, "start", MASTER_CLASS, "1", "--host", "127.0.0.1", "--port", str(port),
                        "--webui-port", str(ui)], env=menv, check=True, capture_output=True)
        for i, h in enumerate(HOSTS):
            wenv = dict(base, SPARK_LOCAL_IP=h, SPARK_WORKER_DIR=f"{tmp}/work-{i}",
                        SPARK_LOG_DIR=f"{tmp}/log-w{i}", SPARK_IDENT_STRING=f"eagle-w{i}")
            envs.append((f"worker{i}", wenv))
            subprocess.run([DAEMON, "start", WORKER_CLASS, "1", url, "--host", h, "--cores", "2",
                            "--memory", "1500m", "--webui-port", str(free_port())],
                           env=wenv, check=True, capture_output=True)
        yield url
    finally:
        daemons = pids_in(f"{tmp}/pid") if os.path.isdir(f"{tmp}/pid") else []
        for name, env in reversed(envs):
            cls = MASTER_CLASS if name == "master" else WORKER_CLASS
            subprocess.run([DAEMON, "stop", cls, "1"], env=env, capture_output=True)

        def ours():  # the daemons, and anything started in their directories (executors)
            return [int(d) for d in os.listdir("/proc") if d.isdigit() and alive(int(d))
                    and (int(d) in daemons or tmp.encode() in _cmdline(d))]

        deadline = time.time() + 60
        while time.time() < deadline and ours():
            time.sleep(0.5)
        still = ours()
        for p in still:
            os.kill(p, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
        # nothing of this cluster (master, workers, their executors) is left running
        assert not still, f"processes of the test cluster still running after stop: {still}"


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def common(extra):
    conf = {"spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1"}
    conf.update(extra)
    return conf


SPECULATION = common({
    "spark.speculation": "true",
    "spark.speculation.quantile": "0.5",
    "spark.speculation.multiplier": "2",
    "spark.speculation.minTaskRuntime": "1s",
})


def straggler_job(sc):
    def f(x):
        import time as _t

        from pyspark import TaskContext

        ctx = TaskContext.get()
        _t.sleep(600 if (ctx.partitionId() == 0 and ctx.attemptNumber() == 0) else 1.0)
        return x

    return sc.parallelize(range(8), 8).map(f).sum()


@pytest.mark.parametrize("eagle", [True, False], ids=["eagle", "stock"])
def test_speculative_copy_finishes_the_job(cluster, eagle, tmp_path):
    master = ("spark-eagle:" if eagle else "") + cluster
    with spark(master, SPECULATION, summary_path=(tmp_path / "s.json") if eagle else None) as (s, r):
        sc = s.sparkContext
        ft.wait_for_executors(sc, 2)
        hosts = {e.host() for e in sc._jsc.sc().statusTracker().getExecutorInfos()} - {"127.0.0.1"}
        assert hosts == set(HOSTS), hosts
        t0 = time.time()
        assert ft.bounded(sc, lambda: straggler_job(sc), 150) == sum(range(8))
        assert time.time() - t0 < 120  # the hung first attempt sleeps 600 s
        if eagle:
            deadline = time.time() + 30
            while time.time() < deadline and sc._jsc.sc().taskScheduler().engineBusySlots() != 0:
                time.sleep(0.5)
            assert sc._jsc.sc().taskScheduler().engineBusySlots() == 0
    if eagle:
        assert r["summary"]["fallback"] is False, r["summary"]["fallbackReason"]


DYNAMIC = common({
    "spark.dynamicAllocation.enabled": "true",
    "spark.dynamicAllocation.shuffleTracking.enabled": "true",
    "spark.dynamicAllocation.minExecutors": "0",
    "spark.dynamicAllocation.initialExecutors": "0",
    "spark.dynamicAllocation.maxExecutors": "2",
    "spark.dynamicAllocation.executorIdleTimeout": "3s",
    "spark.dynamicAllocation.schedulerBacklogTimeout": "1s",
    "spark.dynamicAllocation.shuffleTracking.timeout": "5s",
    "spark.decommission.enabled": "true",
    "spark.executor.cores": "2",
})


def wait_count(sc, pred, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if pred(ft.executor_count(sc)):
            return True
        time.sleep(0.5)
    return False


@pytest.mark.parametrize("eagle", [True, False], ids=["eagle", "stock"])
def test_dynamic_allocation_adds_and_removes_executors(cluster, eagle, tmp_path):
    master = ("spark-eagle:" if eagle else "") + cluster
    with spark(master, DYNAMIC, summary_path=(tmp_path / "s.json") if eagle else None) as (s, r):
        sc = s.sparkContext
        assert ft.executor_count(sc) == 0
        burst = sc.parallelize(range(16), 16).map(ft._sleep(1.5))
        assert ft.bounded(sc, burst.count, 150) == 16
        assert ft.executor_count(sc) >= 1 or wait_count(sc, lambda n: n >= 1, 1)
        # idle: every executor is decommissioned and removed
        assert wait_count(sc, lambda n: n == 0, 90), ft.executor_count(sc)
        # later jobs get executors again, including a shuffle
        pairs = sc.parallelize(range(1000), 8).map(lambda x: (x % 7, x))
        got = ft.bounded(sc, lambda: sorted(pairs.reduceByKey(lambda a, b: a + b).collect()), 150)
        assert got == sorted({k: sum(x for x in range(1000) if x % 7 == k) for k in range(7)}.items())
    if eagle:
        assert r["summary"]["fallback"] is False, r["summary"]["fallbackReason"]
