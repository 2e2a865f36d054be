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

The same samples also read the whole machine (:func:`read_machine`): its busy CPU time from
``/proc/stat`` and each process's from ``/proc/<pid>/stat``, by :data:`GROUPS`, so that
:meth:`Sampler.machine` says whether a plan was bound by the machine's cores, and who used
them (the cluster bench's ``machine``):

``{"cpus", "wall_s", "capacity_cpu_s", "used_cpu_s", "busy", "by": {group: cpu_s}}``

``other`` is the machine's busy time less the named groups: the kernel (the testbed's
network), every other process, and what a process that ended between two samples ran after
the last one.
"""
from __future__ import annotations

import os
import re
import threading
import time

KINDS = ("jit", "gc", "task", "other")
GROUPS = ("executors", "drivers", "eagle-node", "eagle-central", "spark-daemons", "bench", "other")
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


def group_of(pid) -> str | None:
    """A process's :data:`GROUPS` entry (None: ``other``): Spark's executors and the bench's
    driver JVMs (:func:`identify`), the Eagle daemons, the standalone master and workers, and
    the bench's own Python processes."""
    who = identify(pid)
    if who is not None:
        return "executors" if who[0] == "executor" else "drivers"
    args = _cmdline(pid)
    if not args:
        return None
    exe = os.path.basename(args[0])
    if exe in ("eagle-node", "eagle-central"):
        return exe
    if exe == "java" and any(a.startswith("org.apache.spark.deploy.") for a in args):
        return "spark-daemons"
    if exe.startswith("python") and any(a == "bench" or a.startswith("bench.") for a in args):
        return "bench"
    return None


def _ncpu() -> int:
    try:
        with open("/proc/stat") as f:
            return sum(1 for line in f if re.match(r"cpu\d+ ", line)) or (os.cpu_count() or 1)
    except OSError:
        return os.cpu_count() or 1


def read_machine() -> dict:
    """``{"busy_s", "cpus", "procs": {(pid, start): (group, cpu_s)}}``: the machine's busy CPU
    seconds since boot (every state but idle and iowait), its CPUs, and each process's CPU
    seconds (user + system) in a :data:`GROUPS` entry other than ``other``."""
    hz = os.sysconf("SC_CLK_TCK")
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest time is already in user).
    busy = sum(fields[:8]) - fields[3] - fields[4]
    procs = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            rest = stat[stat.rindex(")") + 2:].split()
            key, ticks = (pid, rest[19]), int(rest[11]) + int(rest[12])
        except (OSError, ValueError, IndexError):
            continue
        if ticks:
            procs[key] = ticks / hz
    return {"busy_s": busy / hz, "cpus": _ncpu(), "procs": procs}


class Sampler:
    """Samples ``read`` (default :func:`read_proc`) every ``period_s`` on a daemon thread, keeping
    each thread's last reading, so a thread or JVM that ends between marks still counts up to
    its last sample. ``mark(name)`` takes a sample at once and snapshots the readings."""

    def __init__(self, period_s: float = 2.0, read=read_proc, read_machine=read_machine, group_of=group_of,
                 clock=time.monotonic):
        self.period_s, self.read = period_s, read
        self.read_machine, self.group_of, self.clock = read_machine, group_of, clock
        self.last: dict = {}            # (pid, tid) -> (who, comm, cpu_ns, wait_ns)
        self.marks: dict = {}           # name -> {(pid, tid): (cpu_ns, wait_ns)}
        self.groups: dict = {}          # (pid, start) -> group, or None for other
        self.procs: dict = {}           # (pid, start) -> last CPU s
        self.busy = None                # (cpus, busy_s) of the last sample
        self.machine_marks: dict = {}   # name -> (clock s, cpus, busy_s, {(pid, start): cpu_s})
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
        try:
            machine = self.read_machine() if self.read_machine else None
        except (OSError, ValueError, IndexError):  # a measurement aid: never what stops a mark
            machine = None
        if machine:
            # A process is classified once, when first seen (its command line stays).
            for key in machine["procs"]:
                if key not in self.groups:
                    self.groups[key] = self.group_of(key[0])
        with self._lock:
            for pid, (who, threads) in readings.items():
                for tid, (comm, cpu, wait) in threads.items():
                    self.last[(pid, tid)] = (who, comm, cpu, wait)
            if machine:
                self.busy = (machine["cpus"], machine["busy_s"])
                self.procs.update(machine["procs"])

    def mark(self, name: str):
        self.sample()
        with self._lock:
            self.marks[name] = {k: (v[2], v[3]) for k, v in self.last.items()}
            if self.busy is not None:
                self.machine_marks[name] = (self.clock(), self.busy[0], self.busy[1], dict(self.procs))

    def machine(self, start: str, end: str) -> dict:
        """The whole machine between marks ``start`` and ``end`` (module doc); {} when either
        mark has no machine reading. A process born after ``start`` counts from 0."""
        if start not in self.machine_marks or end not in self.machine_marks:
            return {}
        (t0, cpus, busy0, p0), (t1, _, busy1, p1) = self.machine_marks[start], self.machine_marks[end]
        by = {g: 0.0 for g in GROUPS}
        for key, cpu in p1.items():
            group = self.groups.get(key)
            if group is not None:
                by[group] += max(0.0, cpu - p0.get(key, 0.0))
        used = max(0.0, busy1 - busy0)
        by["other"] = max(0.0, used - sum(by.values()))
        wall = max(0.0, t1 - t0)
        cap = wall * cpus
        return {"cpus": cpus, "wall_s": round(wall, 2), "capacity_cpu_s": round(cap, 2),
                "used_cpu_s": round(used, 2), "busy": round(used / cap, 3) if cap else None,
                "by": {g: round(v, 2) for g, v in by.items()}}

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
