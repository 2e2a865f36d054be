"""bench/threads.py: which JVM and thread kind each /proc reading belongs to, and the per-plan
window over the sampler's marks."""
import os
import threading
import time

from bench import threads


def test_thread_kinds_from_their_proc_names():
    assert threads.kind_of("C2 CompilerThre") == "jit"
    assert threads.kind_of("C1 CompilerThre") == "jit"
    assert threads.kind_of("GC Thread#3") == "gc"
    assert threads.kind_of("G1 Young RemSet") == "gc"
    assert threads.kind_of("VM Thread") == "gc"
    assert threads.kind_of("Executor task l") == "task"
    assert threads.kind_of("dispatcher-Exec") == "other"
    assert threads.kind_of("rpc-client-3-1") == "other"


def test_executors_by_app_id_and_drivers_by_their_bench_parent(monkeypatch):
    cmd = {
        "10": ["/usr/bin/java", "-cp", "x", "org.apache.spark.executor.CoarseGrainedExecutorBackend",
               "--driver-url", "u", "--app-id", "app-20261128-0001", "--hostname", "h"],
        "11": ["/usr/bin/java", "-cp", "x", "org.apache.spark.deploy.SparkSubmit", "pyspark-shell"],
        "12": ["/venv/bin/python", "-m", "bench.driver", "/out/runs/eagle/batch-0/config.json"],
        "13": ["/usr/bin/java", "org.apache.spark.deploy.worker.Worker"],
        "14": ["/usr/bin/python3", "x.py"],
        "15": ["/usr/bin/java", "org.apache.spark.executor.CoarseGrainedExecutorBackend", "--app-id"],
    }
    monkeypatch.setattr(threads, "_cmdline", lambda pid: cmd.get(pid, []))
    monkeypatch.setattr(threads, "_ppid", lambda pid: {"11": "12", "13": "1"}.get(pid))
    assert threads.identify("10") == ("executor", "app-20261128-0001")
    assert threads.identify("11") == ("driver", "/out/runs/eagle/batch-0")
    assert threads.identify("13") is None, "a worker JVM is neither"
    assert threads.identify("14") is None, "not a JVM"
    assert threads.identify("15") is None, "an executor whose app id cannot be read is left out"
    assert threads.identify("99") is None, "a process gone"


class Script:
    """A fake ``read_proc``: each call returns the next reading."""

    def __init__(self, readings):
        self.readings = list(readings)

    def __call__(self):
        return self.readings.pop(0)


EX_A = ("executor", "app-1")
EX_B = ("executor", "app-2")
DRV = ("driver", "/b/interactive-0")


def test_a_window_counts_each_thread_from_the_start_mark_to_the_end_mark():
    s = 10 ** 9  # ns
    script = Script([
        # mark "p1": one executor of app-1 with a compiler and a task thread; the driver.
        {"1": (EX_A, {"1a": ("C2 CompilerThre", 5 * s, 1 * s), "1b": ("Executor task l", 2 * s, 0)}),
         "9": (DRV, {"9a": ("dispatcher-Coar", 1 * s, 0)})},
        # a sample: a second JVM of app-1 is born; app-2's executor shows up.
        {"1": (EX_A, {"1a": ("C2 CompilerThre", 6 * s, 2 * s), "1b": ("Executor task l", 3 * s, 1 * s)}),
         "2": (EX_A, {"2a": ("C1 CompilerThre", 4 * s, 8 * s)}),
         "3": (EX_B, {"3a": ("Executor task l", 1 * s, 0)}),
         "9": (DRV, {"9a": ("dispatcher-Coar", 2 * s, 1 * s)})},
        # mark "end": JVM 2 has exited (its last reading stands); thread 1b too.
        {"1": (EX_A, {"1a": ("C2 CompilerThre", 9 * s, 3 * s)}),
         "9": (DRV, {"9a": ("dispatcher-Coar", 4 * s, 1 * s)})},
    ])
    sm = threads.Sampler(read=script)
    sm.mark("p1")
    sm.sample()
    sm.mark("end")
    app_of = {EX_A: "interactive-0", DRV: "interactive-0"}.get
    w = sm.window("p1", "end", app_of)
    assert set(w) == {"interactive-0"}, "app-2 has no application here: left out"
    ex = w["interactive-0"]["executor"]
    assert ex["jvms"] == 2
    # 1a: 9-5 CPU, 3-1 wait; 1b: 3-2, 1-0; 2a (born in the window): 4, 8.
    assert ex["by"]["jit"] == {"cpu_s": 8.0, "wait_s": 10.0}
    assert ex["by"]["task"] == {"cpu_s": 1.0, "wait_s": 1.0}
    assert ex["cpu_s"] == 9.0 and ex["wait_s"] == 11.0
    drv = w["interactive-0"]["driver"]
    assert drv["jvms"] == 1 and drv["cpu_s"] == 3.0 and drv["by"]["other"]["wait_s"] == 1.0
    assert sm.window("p1", "p2", app_of) == {}, "an unknown mark gives nothing"


def test_the_sampler_thread_samples_until_stopped():
    seen = threading.Event()
    calls = []

    def read():
        calls.append(1)
        if len(calls) >= 3:
            seen.set()
        return {}
    sm = threads.Sampler(period_s=0.01, read=read).start()
    assert seen.wait(30), "the sampler thread ran"
    sm.stop()
    n = len(calls)
    assert not sm._thread.is_alive()
    assert len(calls) == n, "no sample after stop"


def test_read_proc_sees_only_spark_jvms_and_app_ids_come_from_event_log_names(tmp_path):
    # This machine's own processes: pytest is no JVM, so it is never among them.
    assert str(os.getpid()) not in threads.read_proc()
    (tmp_path / "app-20261128231200-0003.inprogress").write_text("")
    (tmp_path / "eventlog_v2_app-20261128231300-0004").mkdir()
    (tmp_path / "notes.txt").write_text("")
    assert threads.app_ids(str(tmp_path)) == {"app-20261128231200-0003", "app-20261128231300-0004"}
    assert threads.app_ids(str(tmp_path / "missing")) == set()


def test_the_cluster_bench_names_each_jvm_by_its_application_and_windows_plans_mark_to_mark(tmp_path):
    from bench import cluster
    base = tmp_path / "runs" / "eagle-adaptive-on-4"
    for i, app in enumerate(cluster.APPS):
        (base / app / "events").mkdir(parents=True)
        (base / app / "events" / f"app-20261128000000-000{i}").write_text("")
    s = 10 ** 9
    ex = ("executor", "app-20261128000000-0000")          # interactive-0's executor
    other = ("executor", "app-20261128000000-0009")       # no application of this run
    drv = ("driver", str(base / "batch-1"))
    stranger = ("driver", str(tmp_path / "elsewhere" / "batch-1"))
    reading = lambda k: {"1": (ex, {"a": ("Executor task l", k * s, k * s)}),
                         "2": (other, {"a": ("Executor task l", k * s, 0)}),
                         "3": (drv, {"a": ("C2 CompilerThre", 2 * k * s, 0)}),
                         "4": (stranger, {"a": ("C2 CompilerThre", k * s, 0)})}
    sm = threads.Sampler(read=Script([reading(1), reading(3), reading(7)]))
    tags = ["warmup", "r1.2-s1"]
    sm.mark("warmup")
    sm.mark("r1.2-s1")
    sm.mark(cluster.END)
    first = cluster.thread_cpu(sm, str(base), tags, "warmup")
    last = cluster.thread_cpu(sm, str(base), tags, "r1.2-s1")
    assert set(first) == {"interactive-0", "batch-1"}, "JVMs of other runs are left out"
    assert first["interactive-0"]["executor"]["cpu_s"] == 2.0 and last["interactive-0"]["executor"]["cpu_s"] == 4.0
    assert first["batch-1"]["driver"]["by"]["jit"]["cpu_s"] == 4.0 and last["batch-1"]["driver"]["cpu_s"] == 8.0
    assert cluster.fmt_threads(last["interactive-0"]["executor"]) == "4.0 (0.0 JIT; 1.0) on 1"
    assert cluster.fmt_threads(None) == "-"
    assert cluster.thread_cpu(None, str(base), tags, "warmup") == {}
    assert cluster.thread_cpu(sm, str(base), tags, "r2-s1") == {}


def test_the_machine_window_splits_the_busy_time_by_group_and_leaves_the_rest_to_other():
    # Three samples of the whole machine: 2 CPUs, busy seconds since boot, and processes'
    # CPU seconds keyed by (pid, start time).
    readings = [
        {"busy_s": 100.0, "cpus": 2, "procs": {("1", "5"): 10.0, ("2", "6"): 4.0, ("3", "7"): 1.0}},
        {"busy_s": 130.0, "cpus": 2, "procs": {("1", "5"): 20.0, ("2", "6"): 5.0, ("3", "7"): 2.0,
                                                ("4", "90"): 3.0}},
        # pid 4 ended (its last reading stands); pid 2 was reused by a new process.
        {"busy_s": 150.0, "cpus": 2, "procs": {("1", "5"): 26.0, ("2", "95"): 1.5, ("3", "7"): 9.0}},
    ]
    groups = {"1": "executors", "2": "eagle-node", "3": None, "4": "drivers"}
    clock = iter([10.0, 30.0])
    sm = threads.Sampler(read=lambda: {}, read_machine=lambda: readings.pop(0),
                         group_of=groups.get, clock=lambda: next(clock))
    sm.mark("r1.2-s1")
    sm.sample()
    sm.mark("end")
    m = sm.machine("r1.2-s1", "end")
    assert m["cpus"] == 2 and m["wall_s"] == 20.0 and m["capacity_cpu_s"] == 40.0
    assert m["used_cpu_s"] == 50.0 and m["busy"] == 1.25
    by = m["by"]
    assert by["executors"] == 16.0, "26 - 10"
    assert by["drivers"] == 3.0, "born in the window: counted from 0, up to its last sample"
    assert by["eagle-node"] == 2.5, "the old pid 2's 1 s, then the new process's 1.5 s from its birth"
    assert by["other"] == 50.0 - 16.0 - 3.0 - 2.5, "an unnamed process and the rest of the busy time"
    assert set(by) == set(threads.GROUPS)
    assert sm.machine("r1.2-s1", "r2-s1") == {}, "an unknown mark gives nothing"
    assert threads.Sampler(read=lambda: {}, read_machine=None).machine("a", "b") == {}

    def unreadable():
        raise OSError("no /proc/stat")
    sm = threads.Sampler(read=lambda: {}, read_machine=unreadable)
    sm.mark("a")
    sm.mark("b")
    assert sm.machine("a", "b") == {} and "a" in sm.marks, "the threads' marks still stand"


def test_each_process_of_the_testbed_has_its_group(monkeypatch):
    cmd = {
        "10": ["/usr/bin/java", "-cp", "x", "org.apache.spark.executor.CoarseGrainedExecutorBackend",
               "--app-id", "app-1"],
        "11": ["/usr/bin/java", "-cp", "x", "org.apache.spark.deploy.worker.Worker", "spark://m:7077"],
        "12": ["/work/rust/target/release/eagle-node", "--slots", "2"],
        "13": ["/work/rust/target/release/eagle-central", "--port", "7090"],
        "14": ["/venv/bin/python3", "-m", "bench.driver", "/out/runs/x/batch-0/config.json"],
        "15": ["/venv/bin/python3", "-m", "bench", "cluster", "--quick"],
        "16": ["/usr/bin/python3", "-m", "pytest"],
        "17": ["/bin/bash", "-c", "bench"],
    }
    monkeypatch.setattr(threads, "_cmdline", lambda pid: cmd.get(pid, []))
    monkeypatch.setattr(threads, "_ppid", lambda pid: None)
    assert threads.group_of("10") == "executors"
    assert threads.group_of("11") == "spark-daemons"
    assert threads.group_of("12") == "eagle-node"
    assert threads.group_of("13") == "eagle-central"
    assert threads.group_of("14") == "bench" and threads.group_of("15") == "bench"
    assert threads.group_of("16") is None and threads.group_of("17") is None, "other"
    assert threads.group_of("99") is None, "a process gone"


def test_read_machine_reads_this_machine():
    a = threads.read_machine()
    me = [k for k in a["procs"] if k[0] == str(os.getpid())]
    assert a["cpus"] >= 1 and a["busy_s"] > 0
    t = time.process_time()
    while time.process_time() - t < 0.3:  # burn CPU so that this process's reading moves
        pass
    b = threads.read_machine()
    assert b["busy_s"] > a["busy_s"]
    mine = [k for k in b["procs"] if k[0] == str(os.getpid())]
    assert mine and b["procs"][mine[0]] >= (a["procs"][me[0]] if me else 0.0) + 0.2


def test_the_cluster_bench_windows_the_machine_as_it_windows_the_threads():
    from bench import cluster
    readings = [{"busy_s": b, "cpus": 2, "procs": {("7", "1"): p}} for b, p in [(0.0, 0.0), (30.0, 20.0), (50.0, 26.0)]]
    clock = iter([0.0, 20.0, 40.0])
    sm = threads.Sampler(read=lambda: {}, read_machine=lambda: readings.pop(0),
                         group_of=lambda pid: "executors", clock=lambda: next(clock))
    tags = ["warmup", "r1.2-s1"]
    for t in tags + [cluster.END]:
        sm.mark(t)
    m = cluster.machine_cpu(sm, tags, "r1.2-s1")
    assert (m["used_cpu_s"], m["capacity_cpu_s"], m["by"]["executors"], m["by"]["other"]) == (20.0, 40.0, 6.0, 14.0)
    assert cluster.machine_cpu(sm, tags, "warmup")["by"]["executors"] == 20.0
    assert cluster.fmt_machine(m) == "machine CPU-s 20.0 used of 40.0 (2 CPUs x 20.0 s; busy 50 %): other 14.0, executors 6.0"
    assert cluster.machine_cpu(None, tags, "warmup") == {} and cluster.machine_cpu(sm, tags, "r2-s1") == {}
