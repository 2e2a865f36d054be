"""The testbed script end to end: up (2 hosts in network namespaces), one Spark job that runs
on both hosts, down; then nothing of it is left: no namespace, no interface, no process.

Skipped, with the reason, when network namespaces cannot be created (not root, no iproute2,
or a container without CAP_SYS_ADMIN/CAP_NET_ADMIN). Takes about a minute on a loaded
2-core machine; every wait has a generous timeout.
"""
import inspect
import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "testbed.sh")
PREFIX = "ebt"          # not the benchmark's own "eb", so a test never touches a bench testbed
SUBNET = "78"
SPARK_HOME = os.environ.get("SPARK_HOME") or os.path.join(
    ROOT, ".venv", "lib", "python3.11", "site-packages", "pyspark")


def _netns_reason():
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add); not root here"
    if subprocess.run(["which", "ip"], stdout=subprocess.DEVNULL).returncode != 0:
        return "iproute2 (ip) is not installed"
    probe = f"{PREFIX}-probe{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", probe], stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        return f"ip netns add is not permitted here: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", probe])
    return None


def _ours_left():
    ns = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, text=True).stdout
    links = subprocess.run(["ip", "-o", "link", "show"], stdout=subprocess.PIPE, text=True).stdout
    left_ns = [l.split()[0] for l in ns.splitlines() if l.startswith(f"{PREFIX}-")]
    left_links = [l.split(": ")[1].split("@")[0] for l in links.splitlines()
                  if l.split(": ")[1].startswith(f"{PREFIX}-")]
    return left_ns, left_links


def _tb(action, state, *extra):
    return subprocess.run(["bash", SCRIPT, action, "--workers", "2", "--cores", "1", "--memory", "768m",
                           "--prefix", PREFIX, "--subnet", SUBNET, "--state", state, *extra],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=300)


JOB = textwrap.dedent("""
    import json, sys
    from pyspark.sql import SparkSession
    master, host = sys.argv[1], sys.argv[2]
    spark = (SparkSession.builder.master(master).appName("testbed-test")
             .config("spark.driver.host", host).config("spark.driver.bindAddress", host)
             .config("spark.executor.memory", "512m").config("spark.ui.enabled", "false")
             .getOrCreate())
    sc = spark.sparkContext
    import time
    t0 = time.time()
    while sc._jsc.sc().getExecutorMemoryStatus().size() - 1 < 2 and time.time() - t0 < 180:
        time.sleep(0.5)
    rows = spark.range(0, 4, 1, 4).selectExpr(
        "reflect('java.lang.Thread', 'sleep', cast(300 as bigint)) as s").collect()
    hosts = sorted(e.host() for e in sc._jsc.sc().statusTracker().getExecutorInfos())
    # The cpu cgroup each task ran in (the test's _cpu_cgroup, passed in as source): its Python
    # worker is a child of the executor, so in its group.
    exec(sys.argv[3])
    cgroups = sorted(set(sc.parallelize(range(8), 8).map(lambda _: _cpu_cgroup("self")).collect()))
    spark.stop()
    print(json.dumps({"rows": len(rows), "hosts": hosts, "cgroups": cgroups}))
""")


def _cpu_cgroup(pid):
    """The cpu cgroup of ``pid``, by the rule the job's tasks use (cgroup v1's cpu line, else v2's)."""
    with open(f"/proc/{pid}/cgroup") as f:
        lines = [l.strip().split(":", 2) for l in f]
    v1 = [p for _, ctl, p in lines if "cpu" in ctl.split(",")]
    return v1[0] if v1 else [p for _, ctl, p in lines if ctl == ""][0]


def _cpu_cgroup_reason():
    if os.access("/sys/fs/cgroup/cpu/cgroup.procs", os.W_OK):
        return None
    try:
        with open("/sys/fs/cgroup/cgroup.controllers") as f:
            return None if "cpu" in f.read().split() else "cgroup v2 without the cpu controller"
    except OSError:
        return "no writable cpu cgroup"


@pytest.mark.full
@pytest.mark.parametrize("host_cpu", ["shared", "isolated"])
def test_up_one_job_down_leaves_nothing(tmp_path, host_cpu):
    reason = _netns_reason() or (host_cpu == "isolated" and _cpu_cgroup_reason())
    if reason:
        pytest.skip(reason)
    state = str(tmp_path / "tb")
    assert _ours_left() == ([], []), "a previous test testbed was not cleaned up"
    pids = []
    try:
        r = _tb("up", state, "--host-cpu", host_cpu)
        assert r.returncode == 0, r.stderr[-3000:]
        env = dict(l.split("=", 1) for l in r.stdout.splitlines() if "=" in l)
        assert env["TB_MODE"] == "netns" and env["TB_HOST_CPU"] == host_cpu
        assert env["TB_HOSTS"] == "2" and env["TB_SLOTS"] == "2"
        with open(os.path.join(state, "pids")) as f:
            pids = [int(l.split()[0]) for l in f if l.strip()]
        assert len(pids) == 3                      # master + 2 workers
        ns, links = _ours_left()
        assert sorted(ns) == [f"{PREFIX}-w1", f"{PREFIX}-w2"]
        assert f"{PREFIX}-br" in links
        master = env["TB_MASTER"].strip("'")
        host = env["TB_DRIVER_HOST"]
        penv = dict(os.environ, SPARK_HOME=SPARK_HOME, SPARK_SCALA_VERSION="2.13",
                    SPARK_LOCAL_IP=host, SPARK_LOCAL_HOSTNAME=host, PYSPARK_PYTHON=sys.executable)
        job = subprocess.run([sys.executable, "-c", JOB, master, host, inspect.getsource(_cpu_cgroup)], env=penv,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=400)
        assert job.returncode == 0, job.stderr[-3000:]
        out = [l for l in job.stdout.splitlines() if l.startswith("{")][-1]
        res = json.loads(out)
        assert res["rows"] == 4
        # The driver and one executor per namespace, each with its own address.
        net = f"10.{SUBNET}.0."
        assert res["hosts"] == [net + "1", net + "11", net + "12"], res
        if host_cpu == "isolated":
            # Every task ran in its host's group (the executors inherit the worker's), and every
            # process of each namespace is in that namespace's group.
            assert res["cgroups"] == [f"/{PREFIX}-w1", f"/{PREFIX}-w2"], res
            for i in (1, 2):
                ps = subprocess.run(["ip", "netns", "pids", f"{PREFIX}-w{i}"], stdout=subprocess.PIPE,
                                    text=True).stdout.split()
                assert ps, f"no process in {PREFIX}-w{i}"
                for p in ps:
                    assert _cpu_cgroup(p) == f"/{PREFIX}-w{i}", p
        else:
            assert len(res["cgroups"]) == 1, res    # every task where the testbed was started
    finally:
        d = _tb("down", state)
    assert d.returncode == 0, d.stderr[-2000:]
    deadline = time.time() + 30
    while time.time() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.5)
    assert [p for p in pids if _alive(p)] == [], "testbed processes still running after down"
    assert _ours_left() == ([], []), "namespaces or interfaces left behind"
    left = [d for root in ("/sys/fs/cgroup/cpu", "/sys/fs/cgroup") if os.path.isdir(root)
            for d in os.listdir(root) if d.startswith(f"{PREFIX}-")]
    assert left == [], f"cpu cgroups left behind: {left}"


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def test_fallback_to_local_cluster_is_announced(tmp_path):
    r = subprocess.run(["bash", SCRIPT, "up", "--local", "--workers", "2", "--cores", "1",
                        "--memory", "512m", "--prefix", PREFIX, "--state", str(tmp_path)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "TB_MODE=local-cluster" in r.stdout
    assert "TB_MASTER='local-cluster[2,1,512]'" in r.stdout
    assert "FALLBACK" in r.stderr


def test_up_clears_an_empty_testbed_left_behind_and_refuses_a_live_one(tmp_path):
    """What a killed bring-up or a half teardown leaves (namespaces and interfaces with our
    names, no state file, no bridge) does not stop the next `up`: empty leftovers are removed,
    with a line naming them. A namespace that still has a process in it is someone's live
    testbed: `up` refuses, names it, and touches nothing."""
    reason = _netns_reason()
    if reason:
        pytest.skip(reason)
    state = str(tmp_path / "state")
    subprocess.run(["ip", "netns", "add", f"{PREFIX}-w1"], check=True)
    subprocess.run(["ip", "link", "add", f"{PREFIX}-v2", "type", "veth", "peer", "name", f"{PREFIX}-p2"],
                   check=True)
    sleeper = None
    try:
        # A live one first: a process inside the namespace.
        sleeper = subprocess.Popen(["ip", "netns", "exec", f"{PREFIX}-w1", "sleep", "300"])
        deadline = time.time() + 30
        while time.time() < deadline and not subprocess.run(
                ["ip", "netns", "pids", f"{PREFIX}-w1"], stdout=subprocess.PIPE, text=True).stdout.strip():
            time.sleep(0.2)
        r = _tb("up", state)
        assert r.returncode == 3, (r.returncode, r.stderr[-2000:])
        assert f"{PREFIX}-w1" in r.stderr and "process" in r.stderr, r.stderr[-2000:]
        assert sleeper.poll() is None, "up killed a process of a live namespace"
        assert f"{PREFIX}-w1" in _ours_left()[0]
        sleeper.kill()
        sleeper.wait()
        sleeper = None
        # Now empty: up removes the leftovers and comes up.
        r = _tb("up", state)
        assert r.returncode == 0, r.stderr[-3000:]
        assert "stale" in r.stderr and f"{PREFIX}-w1" in r.stderr and f"{PREFIX}-v2" in r.stderr, r.stderr[-3000:]
        ns, links = _ours_left()
        assert sorted(ns) == [f"{PREFIX}-w1", f"{PREFIX}-w2"]
        assert f"{PREFIX}-br" in links
    finally:
        if sleeper is not None:
            sleeper.kill()
        _tb("down", state)
    assert _ours_left() == ([], []), "namespaces or interfaces left behind"
