"""placement=lotes on real executors of different sizes: a loopback standalone cluster whose
two workers have 4 and 1 cores (127.0.0.2 and 127.0.0.3, one executor each), and task sets
of different TaskResourceProfiles (stage-level scheduling: 1-cpu, 2-cpu and 4-cpu tasks) at
once. Every result is exact, and every task ran on an executor with the cores it asked for
(each task reports its worker's address and its cpus). The start-up check of the key is
here too.

The cluster is started as tests/test_features_standalone.py starts its own (master and
workers through spark-daemon.sh, everything stopped in the fixture's finalizer).
"""
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

import pytest

import features as ft
from conftest import spark
from test_config import start_fails
from test_features_standalone import DAEMON, MASTER_CLASS, WORKER_CLASS, _cmdline, alive, free_port, pids_in

SPARK_HOME = os.environ["SPARK_HOME"]
CORES = {"127.0.0.2": 4, "127.0.0.3": 1}


@pytest.fixture(scope="module")
def hetero_cluster():
    tmp = tempfile.mkdtemp(prefix="eagle-lotes-")
    port, ui = free_port(), free_port()
    base = dict(os.environ, SPARK_HOME=SPARK_HOME, SPARK_PID_DIR=f"{tmp}/pid", SPARK_CONF_DIR=f"{tmp}/conf")
    base.pop("SPARK_NO_DAEMONIZE", None)
    os.makedirs(f"{tmp}/conf")
    envs = []
    menv = dict(base, SPARK_LOCAL_IP="127.0.0.1", SPARK_MASTER_HOST="127.0.0.1",
                SPARK_LOG_DIR=f"{tmp}/log-master", SPARK_IDENT_STRING="eagle-lotes-master")
    url = f"spark://127.0.0.1:{port}"
    try:
        envs.append(("master", menv))
        subprocess.run([DAEMON, "start", MASTER_CLASS, "1", "--host", "127.0.0.1", "--port", str(port),
                        "--webui-port", str(ui)], env=menv, check=True, capture_output=True)
        for i, (h, cores) in enumerate(CORES.items()):
            wenv = dict(base, SPARK_LOCAL_IP=h, SPARK_WORKER_DIR=f"{tmp}/work-{i}",
                        SPARK_LOG_DIR=f"{tmp}/log-w{i}", SPARK_IDENT_STRING=f"eagle-lotes-w{i}")
            envs.append((f"worker{i}", wenv))
            subprocess.run([DAEMON, "start", WORKER_CLASS, "1", url, "--host", h, "--cores", str(cores),
                            "--memory", "1200m", "--webui-port", str(free_port())],
                           env=wenv, check=True, capture_output=True)
        yield url
    finally:
        daemons = pids_in(f"{tmp}/pid") if os.path.isdir(f"{tmp}/pid") else []
        for name, env in reversed(envs):
            cls = MASTER_CLASS if name == "master" else WORKER_CLASS
            subprocess.run([DAEMON, "stop", cls, "1"], env=env, capture_output=True)

        def ours():
            return [int(d) for d in os.listdir("/proc") if d.isdigit() and alive(int(d))
                    and (int(d) in daemons or tmp.encode() in _cmdline(d))]

        deadline = time.time() + 60
        while time.time() < deadline and ours():
            time.sleep(0.5)
        still = ours()
        for p in still:
            os.kill(p, signal.SIGKILL)
        shutil.rmtree(tmp, ignore_errors=True)
        assert not still, f"processes of the test cluster still running after stop: {still}"


CONF = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.executor.memory": "700m",
    "spark.scheduler.eagle.placement": "lotes",
}


def where(seconds):
    """Each task sleeps, then returns (x, worker address, cpus it was given)."""

    def f(it):
        import os as _os
        import time as _t

        from pyspark import TaskContext

        ctx = TaskContext.get()
        _t.sleep(seconds)
        return [(x, _os.environ.get("SPARK_LOCAL_IP"), ctx.cpus()) for x in it]

    return f


def profiled(sc, cpus):
    from pyspark.resource import ResourceProfileBuilder, TaskResourceRequests

    if cpus == 1:
        return None
    return ResourceProfileBuilder().require(TaskResourceRequests().cpus(cpus)).build


def test_mixed_profiles_on_unequal_executors(hetero_cluster, tmp_path):
    with spark("spark-eagle:" + hetero_cluster, CONF, summary_path=tmp_path / "s.json") as (s, r):
        sc = s.sparkContext
        ft.wait_for_executors(sc, 2)
        results = {}
        errors = []

        def run(name, cpus, n, seconds):
            try:
                rdd = sc.parallelize(range(n), n)
                rp = profiled(sc, cpus)
                if rp is not None:
                    rdd = rdd.withResources(rp)
                results[name] = (cpus, rdd.mapPartitions(where(seconds)).collect())
            except BaseException as e:  # noqa: BLE001
                errors.append(e)

        jobs = [("wide", 4, 4, 1.0), ("mid", 2, 6, 0.5), ("narrow-a", 1, 10, 0.3), ("narrow-b", 1, 10, 0.3)]
        threads = [threading.Thread(target=run, args=j) for j in jobs]
        for t in threads:
            t.start()
        for t in threads:
            t.join(240)
        assert not errors, errors
        assert set(results) == {j[0] for j in jobs}
        for name, cpus, n, _ in jobs:
            got_cpus, rows = results[name]
            assert sorted(x for x, _, _ in rows) == list(range(n)), name
            for _, host, given in rows:
                assert given == cpus, (name, given)
                assert CORES[host] >= cpus, f"{name}: a {cpus}-cpu task ran on {host} ({CORES[host]} cores)"
        # The wide tasks can only have run on the 4-core worker.
        assert {h for _, h, _ in results["wide"][1]} == {"127.0.0.2"}
        # A later shuffle with the default profile is exact too.
        pairs = sc.parallelize(range(2000), 8).map(lambda x: (x % 5, x))
        got = ft.bounded(sc, lambda: sorted(pairs.reduceByKey(lambda a, b: a + b).collect()), 150)
        assert got == sorted({k: sum(x for x in range(2000) if x % 5 == k) for k in range(5)}.items())
    summary = r["summary"]
    assert summary["fallback"] is False, summary.get("fallbackReason")
    assert summary["config"]["placement"] == "lotes", summary["config"]


def test_bad_placement_names_the_key():
    msg = start_fails("spark-eagle:local[2]", {"spark.scheduler.eagle.placement": "tetris"})
    assert "spark.scheduler.eagle.placement" in msg and "slots or lotes" in msg, msg
