"""Where the testbed's CPU goes, per application and per JVM thread kind, from ``/proc``.

The event log says what each task cost its own thread (``bench.work``), but not what the
executor JVMs spend beside the tasks: JIT compilation, GC, RPC. On a 2-core testbed running 16
executor JVMs that is most of their CPU, and a JVM's compiler threads compete with every
task on the machine. :class:`Sampler` reads, every ``period_s``, each Spark JVM's threads'
CPU time and run-queue wait (``/proc/<pid>/task/<tid>/schedstat``: time on a CPU, time
runnable but waiting for one), and :meth:`Sampler.mark` snapshots them at a plan's start, so
that :func:`window` gives each application's figures over one plan:

``{app: {"executor" | "driver": {"jvms", "cpu_s", "wait_s", "by": {kind: {"cpu_s", "wait_s"}}}}}``

with ``kind`` one of :data:`KINDS`: ``jit`` (the C1/C2 compiler threads), ``gc`` (GC and VM
threads), ``task`` (Spark's task threads) and ``other`` (RPC, shuffle, heartbeats, the
driver's scheduler threads). ``wait_s`` over ``cpu_s`` is how long a thread of that kind
waited for a core per second it ran. The cluster bench puts it in every run's ``threads``.
"""
from __future__ import annotations

import os
import re
import threading

KINDS = ("jit", "gc", "task", "other")
_EXECUTOR = "CoarseGrainedExecutorBackend"


def kind_of(comm: str) -> str:
    """A JVM thread's kind from its name as ``/proc`` shows it (15 characters at most)."""
    if re.match(r"C\d CompilerThre", comm):
        return "jit"
    if comm.startswith(("GC Thread", "G1 ", "VM Thread", "GC ")):
        return "gc"
    if comm.startswith("Executor task"):
        return "task"
    return "other"


def _cmdline(pid) -> list:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def _ppid(pid) -> str | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
        return stat[stat.rindex(")") + 2:].split()[1]
    except (OSError, ValueError, IndexError):
        return None


def identify(pid) -> tuple | None:
    """``("executor", app_id)`` for a Spark executor JVM, ``("driver", run_dir)`` for a bench
    driver's JVM (its parent runs ``bench.driver <run_dir>/config.json``), else None."""
    args = _cmdline(pid)
    if not args or not args[0].endswith("java"):
        return None
    if any(a.endswith(_EXECUTOR) for a in args):
        return ("executor", args[args.index("--app-id") + 1]) if "--app-id" in args[:-1] else None
    parent = _cmdline(_ppid(pid))
    if "bench.driver" in parent and parent[-1].endswith("config.json"):
        return ("driver", os.path.dirname(parent[-1]))
    return None


def read_proc() -> dict:
    """``{pid: (who, {tid: (comm, cpu_ns, wait_ns)})}`` for every JVM :func:`identify` knows."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        who = identify(pid)
        if who is None:
            continue
        threads = {}
        try:
            tids = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/comm") as f:
                    comm = f.read().strip()
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    cpu, wait = f.read().split()[:2]
                threads[tid] = (comm, int(cpu), int(wait))
            except (OSError, ValueError):
                pass
        out[pid] = (who, threads)
    return out


class Sampler:
    """Samples ``read`` (default :func:`read_proc`) every ``period_s`` on a daemon thread, keeping
    each thread's last reading, so a thread or JVM that ends between marks still counts up to
    its last sample. ``mark(name)`` takes a sample at once and snapshots the readings."""

    def __init__(self, period_s: float = 2.0, read=read_proc):
        self.period_s, self.read = period_s, read
        self.last: dict = {}            # (pid, tid) -> (who, comm, cpu_ns, wait_ns)
        self.marks: dict = {}           # name -> {(pid, tid): (cpu_ns, wait_ns)}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None

    @staticmethod
    def available() -> bool:
        """Whether this kernel reports run-queue waits (``CONFIG_SCHEDSTATS``-free since 2.6.23,
        but not on every OS)."""
        return os.path.exists("/proc/self/schedstat")

    def sample(self):
        readings = self.read()
        with self._lock:
            for pid, (who, threads) in readings.items():
                for tid, (comm, cpu, wait) in threads.items():
                    self.last[(pid, tid)] = (who, comm, cpu, wait)

    def mark(self, name: str):
        self.sample()
        with self._lock:
            self.marks[name] = {k: (v[2], v[3]) for k, v in self.last.items()}

    def start(self):
        def loop():
            while not self._stop.wait(self.period_s):
                try:
                    self.sample()
                except Exception:   # a JVM exiting mid-read: the next sample sees it gone
                    pass
        self._thread = threading.Thread(target=loop, name="bench-threads", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stop.set()
        if self._thread:
            self._thread.join(5)

    def window(self, start: str, end: str, app_of) -> dict:
        """Each application's figures (module doc) between marks ``start`` and ``end``.
        ``app_of(who)`` names the application of ``("executor", app_id)`` or ``("driver",
        run_dir)``, or None to leave that JVM out. Threads born after ``start`` count from 0."""
        if start not in self.marks or end not in self.marks:
            return {}
        a, b = self.marks[start], self.marks[end]
        out, jvms = {}, {}
        with self._lock:
            names = {k: (v[0], v[1]) for k, v in self.last.items()}
        for k, (cpu1, wait1) in b.items():
            who, comm = names[k]
            app = app_of(who)
            if app is None:
                continue
            cpu0, wait0 = a.get(k, (0, 0))
            role = who[0]
            fig = out.setdefault(app, {}).setdefault(role, {
                "jvms": 0, "cpu_s": 0.0, "wait_s": 0.0, "by": {x: {"cpu_s": 0.0, "wait_s": 0.0} for x in KINDS}})
            jvms.setdefault((app, role), set()).add(k[0])
            d_cpu, d_wait = (cpu1 - cpu0) / 1e9, (wait1 - wait0) / 1e9
            fig["cpu_s"] += d_cpu
            fig["wait_s"] += d_wait
            by = fig["by"][kind_of(comm)]
            by["cpu_s"] += d_cpu
            by["wait_s"] += d_wait
        for (app, role), pids in jvms.items():
            fig = out[app][role]
            fig["jvms"] = len(pids)
            for d in [fig] + list(fig["by"].values()):
                d["cpu_s"], d["wait_s"] = round(d["cpu_s"], 2), round(d["wait_s"], 2)
        return out


def app_ids(events_dir: str) -> set:
    """The application ids of the event logs in ``events_dir`` (``app-...`` in their names)."""
    try:
        names = os.listdir(events_dir)
    except OSError:
        return set()
    return {m.group(1) for n in names for m in [re.search(r"(app-\d+-\d+)", n)] if m}
