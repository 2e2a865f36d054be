"""A loopback Spark standalone cluster for the integration tests: a master on 127.0.0.1 and
one worker per loopback address (127.0.0.2, 127.0.0.3, ...), each with its own cores, started
with spark-daemon.sh and stopped (every process of it, SIGKILL after 60 s) on exit.
"""
import contextlib
import glob
import json
import os
import random
import re
import socket
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

SPARK_HOME = os.environ["SPARK_HOME"]
DAEMON = f"{SPARK_HOME}/sbin/spark-daemon.sh"
MASTER_CLASS = "org.apache.spark.deploy.master.Master"
WORKER_CLASS = "org.apache.spark.deploy.worker.Worker"


_GIVEN = set()


def _ephemeral_floor():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def free_port(*hosts):
    """A port that binds on each of `hosts` (127.0.0.1 when none), drawn at random from below the
    kernel's ephemeral range and never the same twice in one process. A port the kernel handed out
    for a bind to port 0 could go to another test's process (Spark binds port 0 everywhere, and
    every outgoing connection takes one) between this probe and the daemon's own bind; a port
    below that range is taken only by a process that names it."""
    hosts = hosts or ("127.0.0.1",)
    draw = random.SystemRandom()
    for _ in range(500):
        port = draw.randrange(10000, _ephemeral_floor())
        if port in _GIVEN:
            continue
        try:
            for h in hosts:
                with socket.socket() as s:
                    s.bind((h, port))
        except OSError:
            continue
        _GIVEN.add(port)
        return port
    raise RuntimeError(f"no free port on {', '.join(hosts)}")


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


def _cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read()
    except OSError:
        return b""


def _wait_for_workers(ui_port, n, timeout=180):
    """Until the master counts `n` workers alive (its web UI's JSON). spark-daemon.sh returns
    once a worker's JVM is started, not registered: an application submitted before then gets
    every executor on the workers already there (on a loaded machine, both of an
    application's executors went to one host of two)."""
    deadline = time.time() + timeout
    seen = None
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{ui_port}/json/", timeout=10) as r:
                seen = sum(w.get("state") == "ALIVE" for w in json.load(r).get("workers", []))
            if seen >= n:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the test cluster's master counts {seen} of {n} workers alive after {timeout} s")


def _master_addresses(logdir, timeout=120):
    """(master URL, web UI port) as the master logged them once bound. It binds ports it picks
    itself (port 0): a port chosen here and passed in could be taken by another test's process
    in between, and Spark then binds the next port up, leaving this URL pointing elsewhere."""
    deadline = time.time() + timeout
    url = ui = None
    while time.time() < deadline:
        for out in glob.glob(f"{logdir}/*.out"):
            with open(out, errors="replace") as f:
                text = f.read()
            m = re.search(r"Starting Spark master at (spark://\S+)", text)
            w = re.search(r"MasterWebUI.*started at http://[^:\s]+:(\d+)", text)
            url, ui = m and m.group(1), w and int(w.group(1))
        if url and ui:
            return url, ui
        time.sleep(0.5)
    raise RuntimeError(f"the test cluster's master logged no address in {timeout} s (url {url}, web UI {ui}): "
                       f"see {logdir}")


@contextlib.contextmanager
def standalone(workers, prefix, memory="1200m"):
    """workers: {host: cores}. Yields the master URL."""
    tmp = tempfile.mkdtemp(prefix=f"eagle-{prefix}-")
    base = dict(os.environ, SPARK_HOME=SPARK_HOME, SPARK_PID_DIR=f"{tmp}/pid", SPARK_CONF_DIR=f"{tmp}/conf")
    base.pop("SPARK_NO_DAEMONIZE", None)
    os.makedirs(f"{tmp}/conf")
    envs = []
    menv = dict(base, SPARK_LOCAL_IP="127.0.0.1", SPARK_MASTER_HOST="127.0.0.1",
                SPARK_LOG_DIR=f"{tmp}/log-master", SPARK_IDENT_STRING=f"eagle-{prefix}-master")
    try:
        envs.append(("master", menv))
        subprocess.run([DAEMON, "start", MASTER_CLASS, "1", "--host", "127.0.0.1", "--port", "0",
                        "--webui-port", "0"], env=menv, check=True, capture_output=True)
        url, ui = _master_addresses(menv["SPARK_LOG_DIR"])
        for i, (h, cores) in enumerate(workers.items()):
            wenv = dict(base, SPARK_LOCAL_IP=h, SPARK_WORKER_DIR=f"{tmp}/work-{i}",
                        SPARK_LOG_DIR=f"{tmp}/log-w{i}", SPARK_IDENT_STRING=f"eagle-{prefix}-w{i}")
            envs.append((f"worker{i}", wenv))
            subprocess.run([DAEMON, "start", WORKER_CLASS, "1", url, "--host", h, "--cores", str(cores),
                            "--memory", memory, "--webui-port", "0"],
                           env=wenv, check=True, capture_output=True)
        _wait_for_workers(ui, len(workers))
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
