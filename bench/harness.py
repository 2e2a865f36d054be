"""The orchestrator's machinery, shared by :mod:`bench.run` (replay, tpch, sort) and
:mod:`bench.dds`: the log, the testbed (``scripts/testbed.sh``), waiting for an idle machine,
the driver processes (``python -m bench.driver``) and the results files. Imports neither
bench.run nor bench.dds.
"""
from __future__ import annotations

import fcntl
import json
import os
import shlex
import signal
import subprocess
import sys
import time

from . import trace
from .progress import fmt_seconds

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
T0 = time.time()
TESTBED_STATE = None
DRIVERS = []      # driver processes started, stopped on a signal
SHARED_CPU = []   # times at which a run started next to other Spark processes
SILENT_S = 60     # a line at least this often while a driver runs


def log(msg: str) -> None:
    el = time.time() - T0
    print(f"[bench {int(el) // 60:02d}:{int(el) % 60:02d}] {msg}", flush=True)


# ---------------------------------------------------------------- testbed

class Testbed:
    def __init__(self, args):
        global TESTBED_STATE
        self.args = args
        self.state = TESTBED_STATE = os.path.join(args.out, "testbed")
        self.up_done = False
        self.env = {}

    def _cmd(self, action):
        a = self.args
        cmd = ["bash", os.path.join(ROOT, "scripts", "testbed.sh"), action,
               "--workers", str(a.workers), "--cores", str(a.cores), "--memory", a.worker_memory,
               "--network", a.network, "--rate", a.rate, "--state", self.state]
        if a.local:
            cmd.append("--local")
        if action == "up" and getattr(a, "host_cpu", "shared") != "shared":
            cmd += ["--host-cpu", a.host_cpu]
        if getattr(a, "cores_list", None):     # heterogeneous hosts (bench/lotes.py)
            cmd += ["--cores-list", a.cores_list]
        if action == "up":
            cmd += list(getattr(a, "testbed_extra", None) or [])   # e.g. --eagle-daemons (bench/cluster.py)
        return cmd

    def up(self):
        os.makedirs(self.state, exist_ok=True)
        log(f"testbed up: {self.args.workers} hosts x {self.args.cores} cores, network {self.args.network}")
        self.up_done = True        # so that a partial bring-up is torn down too
        r = subprocess.run(self._cmd("up"), stdout=subprocess.PIPE, text=True, **lock_passing())
        if r.returncode != 0:
            raise SystemExit(f"testbed failed to come up (exit {r.returncode}); see {self.state}/logs")
        self.env = read_env(os.path.join(self.state, "testbed.env"))
        if self.env.get("TB_MODE") != "netns":
            log(self.env.get("TB_NOTE", "fallback to local-cluster"))
        return self.info()

    def info(self):
        e = self.env
        return {"mode": e["TB_MODE"], "master": e["TB_MASTER"], "driver_host": e["TB_DRIVER_HOST"],
                "hosts": int(e["TB_HOSTS"]), "cores": int(e["TB_CORES"]), "slots": int(e["TB_SLOTS"]),
                "network": e["TB_NETWORK"], "note": e.get("TB_NOTE", ""),
                "host_cpu": e.get("TB_HOST_CPU", "shared"),
                "executor_memory": self.args.executor_memory,
                "executor_java_options": getattr(self.args, "executor_java_options", None),
                "driver_java_options": getattr(self.args, "driver_java_options", None),
                "eagle_central": e.get("TB_EAGLE_CENTRAL"), "eagle_secret": e.get("TB_EAGLE_SECRET"),
                "eagle_short_partition": e.get("TB_EAGLE_SHORT_PARTITION"),
                "worker_memory": e.get("TB_WORKER_MEMORY")}

    def down(self):
        if not self.up_done:
            return
        self.up_done = False
        log("testbed down")
        subprocess.run(self._cmd("down"), stdout=subprocess.DEVNULL, **lock_passing())


def read_env(path):
    env = {}
    with open(path) as f:
        for line in f:
            line = line.strip()
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                env[k] = shlex.split(v)[0] if v.strip() else ""
    return env


def own_pids(state):
    """The testbed's own processes: its pid file and whatever runs in its namespaces."""
    pids = set()
    try:
        with open(os.path.join(state, "pids")) as f:
            pids |= {l.split()[0] for l in f if l.strip()}
    except OSError:
        pass
    r = subprocess.run(["ip", "netns", "list"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in r.stdout.splitlines():
        ns = line.split()[0] if line.split() else ""
        if ns.startswith("eb-w"):
            q = subprocess.run(["ip", "netns", "pids", ns], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True)
            pids |= set(q.stdout.split())
    return pids


BENCH_LOCK = os.environ.get("EAGLE_BENCH_LOCK", "/tmp/eagle-spark-bench.lock")
_HELD = []        # the lock file of hold_machine, open for the life of the process


def hold_machine(args, path=None, poll=5.0):
    """One ``scripts/bench`` at a time on a machine. The testbed's namespaces, bridge and cgroups
    have fixed names, so a second bench's ``up`` tears down the first one's testbed mid-run
    (and :func:`wait_idle` cannot tell the other's testbed processes from its own). Takes an
    exclusive ``flock`` on ``path`` (``$EAGLE_BENCH_LOCK``, default ``/tmp/eagle-spark-bench.lock``)
    for the life of this process, released by the kernel when it exits however it ends. While
    another bench holds it: waits, at most ``--max-idle-wait``, then fails; with
    ``--no-wait-idle`` fails at once. The error names the holder (its pid, start and command)."""
    path = path or BENCH_LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o666)
    except OSError as e:
        raise SystemExit(f"bench: cannot open the bench lock {path}: {e.strerror}; set EAGLE_BENCH_LOCK "
                         "to a file this user may write (every bench on this machine must use the same one)")
    try:
        os.fchmod(fd, 0o666)     # any user's bench may take it after this one (not under the umask)
    except OSError:
        pass                     # another user's file: its owner set its mode
    f = os.fdopen(fd, "a+")
    t0, said = time.time(), 0.0
    while True:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            f.seek(0)
            other = f"another scripts/bench holds {path} ({f.read().strip() or 'holder unknown'})"
            if args.no_wait_idle or time.time() - t0 > args.max_idle_wait:
                f.close()
                raise SystemExit(f"bench: {other}; two benches cannot share this machine's testbed "
                                 "(its namespaces have fixed names): wait for it, or stop it")
            if time.time() - said > 60:
                log(f"waiting: {other}")
                said = time.time()
            time.sleep(poll)
    f.seek(0)
    f.truncate()
    f.write(f"pid {os.getpid()}, since {time.strftime('%Y-%m-%d %H:%M:%S')}, "
            f"scripts/bench {' '.join(sys.argv[1:])}\n")
    f.flush()
    _HELD.append(f)
    return f


def lock_passing():
    """``subprocess`` arguments that hand this bench's lock (:func:`hold_machine`) to
    ``scripts/testbed.sh``: its open file, named by ``EAGLE_BENCH_LOCK_FD``. The script takes
    it again at once and so knows the call is the lock holder's; run by anyone else, it stops
    instead of tearing down this bench's testbed. Nothing when no lock is held."""
    if not _HELD:
        return {}
    fd = _HELD[0].fileno()
    return {"pass_fds": (fd,), "env": {**os.environ, "EAGLE_BENCH_LOCK_FD": str(fd)}}


def wait_idle(args, state=None):
    """Do not share the machine with another Spark cluster: wait while one runs (ours, the
    testbed's master and workers, do not count)."""
    if args.no_wait_idle:
        return
    said = 0.0
    t0 = time.time()
    while True:
        r = subprocess.run(["pgrep", "-f", "org.apache.spark"], stdout=subprocess.PIPE, text=True)
        mine = own_pids(state) if state else set()
        pids = [p for p in r.stdout.split() if p and int(p) != os.getpid() and p not in mine]
        if not pids:
            return
        if time.time() - t0 > args.max_idle_wait:
            log(f"WARNING: other Spark processes still running after {args.max_idle_wait:.0f}s "
                f"(pids {' '.join(pids)}); going on, results share the CPU with them")
            SHARED_CPU.append(time.strftime("%H:%M:%S"))
            return
        if time.time() - said > 60:
            log(f"waiting: other Spark processes are running (pids {' '.join(pids)}); "
                "--no-wait-idle to skip")
            said = time.time()
        time.sleep(5)


# ---------------------------------------------------------------- runs

def on_signals(teardown=None) -> None:
    """SIGTERM, SIGINT and SIGHUP stop every driver started (their process groups), run
    ``teardown`` (e.g. the testbed's ``down``) and exit with 128 + the signal at once."""
    def handler(signum, _frame):
        log(f"signal {signum}: tearing down")
        for proc in DRIVERS:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except OSError:
                    pass
        if teardown is not None:
            teardown()
        # Not sys.exit: the interpreter would wait at exit for threads still blocked on the
        # servers just stopped (a SQL client's gRPC threads), holding the machine's lock.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(128 + signum)
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, handler)


def run_driver(run_dir: str, cfg: dict, timeout: float) -> dict:
    os.makedirs(run_dir, exist_ok=True)
    cfg_path = os.path.join(run_dir, "config.json")
    with open(cfg_path, "w") as f:
        json.dump(cfg, f, indent=1)
    env = dict(os.environ)
    env.setdefault("SPARK_HOME", spark_home())
    env["SPARK_SCALA_VERSION"] = "2.13"
    env["PYSPARK_PIN_THREAD"] = "true"
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    if cfg["testbed"].get("mode") == "netns":
        env["SPARK_LOCAL_IP"] = cfg["testbed"]["driver_host"]
        env["SPARK_LOCAL_HOSTNAME"] = cfg["testbed"]["driver_host"]
    log_path = os.path.join(run_dir, "driver.log")
    with open(log_path, "w") as logf:
        proc = subprocess.Popen([sys.executable, "-m", "bench.driver", cfg_path], cwd=ROOT, env=env,
                                stdout=logf, stderr=subprocess.STDOUT, start_new_session=True)
        DRIVERS.append(proc)
        # Echo the driver's own progress lines; when it has printed none for a minute (a
        # long sort, the executors starting), say that it still runs and for how long.
        pos = 0
        t0 = last = time.time()
        while proc.poll() is None:
            time.sleep(1)
            new_pos = echo_progress(log_path, pos)
            now = time.time()
            if new_pos != pos:
                last = now
            elif now - last >= SILENT_S:
                log(f"    (driver still running: {fmt_seconds(now - t0)} elapsed, "
                    f"stopped after {fmt_seconds(timeout)})")
                last = now
            pos = new_pos
            if time.time() - t0 > timeout:
                log(f"run exceeded {timeout:.0f}s: stopping driver pid {proc.pid}")
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
        echo_progress(log_path, pos)
    res_path = os.path.join(run_dir, "result.json")
    if not os.path.exists(res_path):
        return {"ok": False, "error": f"driver exited {proc.returncode} without a result; see {log_path}"}
    with open(res_path) as f:
        return json.load(f)


def echo_progress(path, pos):
    with open(path, errors="replace") as f:
        f.seek(pos)
        chunk = f.read()
        pos = f.tell()
    for line in chunk.splitlines():
        if line.startswith("[driver"):
            print("    " + line, flush=True)
    return pos


def spark_home():
    return os.environ.get("SPARK_HOME") or os.path.join(
        ROOT, ".venv", "lib", "python3.11", "site-packages", "pyspark")


def testbed_json(tb):
    return {"hosts": tb["hosts"], "slots": tb["slots"], "network": tb["network"], "mode": tb["mode"],
            "cores_per_host": tb["cores"], "note": tb["note"], "host_cpu": tb.get("host_cpu", "shared")}


def write_results(out_root, results):
    from . import report
    d = os.path.join(out_root, results["scenario"])
    os.makedirs(d, exist_ok=True)
    if SHARED_CPU:
        results["warnings"] = [f"runs started next to other Spark processes at {', '.join(SHARED_CPU)}"]
    with open(os.path.join(d, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    html = report.write_report(d, results)
    log(f"wrote {os.path.join(d, 'results.json')} and {html}")


# ---------------------------------------------------------------- traces

def shared_dir():
    try:
        top = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=ROOT, check=True,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout.strip()
    except Exception:
        top = ROOT
    d = trace.shared_dir(top)
    if not os.path.isdir(os.path.join(d, "traces")):
        raise SystemExit(f"trace folder {d}/traces not found: the replay needs the shared traces "
                         "(YH2_sub.tr.xz, GOOG_subtrace.tr.xz) next to the repository")
    return d


def resolve_trace(args, out_dir, slots):
    path = args.trace
    if not os.path.exists(path):
        path = os.path.join(shared_dir(), "traces", args.trace)
    if not os.path.exists(path):
        raise SystemExit(f"trace {args.trace} not found (looked in {os.path.dirname(path)})")
    cutoff = args.cutoff or trace.cutoff_for(path)
    if args.synth:
        sim = os.path.join(ROOT, "target", "release", "eagle-sim")
        if not os.path.exists(sim):
            raise SystemExit("--synth needs target/release/eagle-sim: cargo build --release -p eagle-sim")
        synth = os.path.join(out_dir, "synth-" + os.path.basename(path).replace(".xz", ""))
        subprocess.run([sim, "gen", "--like", path, "--jobs", str(max(1000, args.jobs * 5)),
                        "--nodes", str(slots), "--load", "0.8", "--seed", "1", "--out", synth], check=True)
        path = synth
    return path, cutoff
