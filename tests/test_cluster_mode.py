"""Cluster mode on real Spark: applications, each a spark-submit of
tests/cluster_app.py in a JVM of its own, share two worker hosts (127.0.0.2 and 127.0.0.3) at
task level through each host's eagle-node (2 slots, one port on both) and an eagle-central that
keeps one host of two for short work (--short-fraction 0.5), as the standalone recipe of
docs/guide/cluster-mode.md says: every worker advertises slots x 2 applications = 4 cores, and
each application takes one executor of 2 cores on every host.

Each test's docstring says what it asserts. The subjects: two applications sharing the hosts
(no host runs more tasks than its slots, long work on the general host only); tasks of 2 cores;
a driver and an executor killed with SIGKILL; barrier stages as gangs; failed attempts,
speculative copies and cancelled jobs; exclusion on failure; dynamic allocation; shuffles and
lost map output; locality of cached partitions; a low estimate widened by the warm-executors
rule; bad cluster keys; a central that refuses the driver (the plugin falls back, naming the
key). After each, the nodes hold no lease, probe or reservation of a stopped application.

The daemons are the workspace's binaries (conftest.daemon_bin_dir). Waits are bounded generously;
no timing is asserted. The two tests marked `smoke` (two applications sharing the hosts, and
failed attempts run again) also run on the other Spark lines (scripts/test.sh): the hooks
cluster mode uses (offer rounds, `reviveOffers`, task ends and retries) move between lines.
"""
import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from bench import eventlog
from conftest import JAR, ROOT, daemon_bin_dir
from test_config import start_fails
from standalone import free_port, standalone

HOSTS = ["127.0.0.2", "127.0.0.3"]
SLOTS = 2


def _cargo_bin(name):
    return os.path.join(daemon_bin_dir(), name)


@contextlib.contextmanager
def cluster_daemons(tmp, hosts, central_flags):
    """An eagle-node of SLOTS slots on each of `hosts` (one port on all) and an eagle-central
    over them run with `central_flags`, the workspace's binaries, logging under `tmp`;
    yields what the helpers below take as `d` (`d["nodes"]`: each host's node address)."""
    secret = tmp / "secret"
    secret.write_text(os.urandom(16).hex() + "\n")
    node_port, central_port = free_port(*hosts), free_port()
    nodes = {h: f"{h}:{node_port}" for h in hosts}
    central_addr = f"127.0.0.1:{central_port}"
    env = dict(os.environ, RUST_LOG="info")
    logs = []
    procs = []
    for name, args in [(f"node-{h}", [_cargo_bin("eagle-node"), "--slots", str(SLOTS), "--listen", a,
                                      "--secret-file", str(secret), "--lease-ms", "3000"])
                       for h, a in nodes.items()] + [
        ("central", [_cargo_bin("eagle-central"), "--listen", central_addr, "--secret-file", str(secret),
                     "--nodes", ",".join(f"{h}={a}" for h, a in nodes.items()), *central_flags]),
    ]:
        log = open(tmp / f"{name}.log", "w")
        logs.append(log)
        procs.append(subprocess.Popen(args, env=env, stdout=log, stderr=subprocess.STDOUT))
    d = {"nodes": nodes, "node_port": node_port, "central": central_addr, "secret": str(secret), "tmp": tmp}
    try:
        for h in hosts:
            _until(f"the node of {h} to answer", lambda: node_status(d, h) is not None, 60)
        yield d
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
        for log in logs:
            log.close()


@pytest.fixture(scope="module")
def daemons(tmp_path_factory):
    with cluster_daemons(tmp_path_factory.mktemp("eagle-cluster"), HOSTS, ["--short-fraction", "0.5"]) as d:
        yield d


@pytest.fixture(scope="module")
def shared_hosts():
    # slots x 2 applications on every host
    with standalone({h: SLOTS * 2 for h in HOSTS}, "cluster", memory="1500m") as url:
        yield url


def node_status(d, host):
    """The node's status line as a dict of its key=value fields, or None when it does not answer."""
    p = subprocess.run([_cargo_bin("eagle-node"), "--status", d["nodes"][host], "--secret-file", d["secret"]],
                       capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        return None
    return dict(re.findall(r"(\w+)=(\S+)", p.stdout))


def _until(what, f, timeout):
    deadline = time.time() + timeout
    while True:
        v = f()
        if v:
            return v
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.3)


def launch(d, master, tmp_path, name, jobs, go=None, executors=None, conf=None, hold=None):
    """Starts cluster_app.py under cluster mode (in a session of its own), with `conf` added to
    its SparkConf and an executor on each of the daemons' hosts (waiting for `executors` of
    them, all by default); with `hold`, it stops only once that file exists. Returns
    (process, out path)."""
    executors = len(d["nodes"]) if executors is None else executors
    spec = {"name": name, "out": str(tmp_path / f"{name}.json"), "go": go and str(go), "jobs": jobs,
            "executors": executors, "hold": hold and str(hold)}
    spec_path = tmp_path / f"{name}.spec.json"
    spec_path.write_text(json.dumps(spec))
    events = tmp_path / f"{name}.events"
    events.mkdir()
    conf = {
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.executor.memory": "600m",
        "spark.executor.cores": str(SLOTS),
        "spark.cores.max": str(SLOTS * len(d["nodes"])),
        "spark.scheduler.eagle.cluster.central": d["central"],
        "spark.scheduler.eagle.cluster.nodePort": str(d["node_port"]),
        "spark.scheduler.eagle.cluster.secretFile": d["secret"],
        "spark.scheduler.eagle.cluster.pingMs": "500",
        "spark.scheduler.eagle.summary.path": str(tmp_path / f"{name}.summary.json"),
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": str(events),
        "spark.eventLog.compress": "false",
        **(conf or {}),
    }
    cmd = [os.path.join(os.environ["SPARK_HOME"], "bin", "spark-submit"), "--master", "spark-eagle:" + master,
           "--driver-class-path", JAR, "--driver-memory", "700m"]
    for k, v in conf.items():
        cmd += ["--conf", f"{k}={v}"]
    cmd += [os.path.join(ROOT, "tests", "cluster_app.py"), str(spec_path)]
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    log = open(tmp_path / f"{name}.log", "w")
    p = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    p.log_path = tmp_path / f"{name}.log"
    return p, tmp_path / f"{name}.json"


def finish(p, timeout):
    try:
        rc = p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        pytest.fail(f"application did not finish in {timeout} s; its log ends:\n" + p.log_path.read_text()[-6000:])
    assert rc == 0, p.log_path.read_text()[-6000:]


def read(path):
    with open(path) as f:
        return json.load(f)


def most_at_once(intervals):
    events = sorted([(s, 1) for s, _ in intervals] + [(e, -1) for _, e in intervals], key=lambda x: (x[0], x[1]))
    cur = best = 0
    for _, k in events:
        cur += k
        best = max(best, cur)
    return best


def final_counters(tmp_path, name):
    """The counters of the application's last EagleCountersSnapshot (posted at stop), by name,
    from its event log."""
    log = eventlog.find_log(str(tmp_path / f"{name}.events"))
    snaps = [e for e in eventlog.events(log)
             if e["Event"] == "org.apache.spark.scheduler.eagle.events.EagleCountersSnapshot"]
    assert snaps and snaps[-1]["atStop"], (name, len(snaps))
    return dict(zip(snaps[-1]["names"], snaps[-1]["values"]))


def leased(d):
    """Leases held on every node, by host (None for a node that does not answer)."""
    return {h: (node_status(d, h) or {}).get("leased") for h in d["nodes"]}


@pytest.mark.smoke
def test_two_applications_share_the_hosts_slots_at_task_level(daemons, shared_hosts, tmp_path):
    # The daemons run without --policy: the default is the adaptive node policy, as the
    # plugin's default is policy=adaptive.
    assert {node_status(daemons, h)["policy"] for h in HOSTS} == {"eagle-adaptive"}
    go, batch_go = tmp_path / "go", tmp_path / "batch-go"
    batch, batch_out = launch(daemons, shared_hosts, tmp_path, "batch", [{"class": "long", "ms": 2500, "tasks": 24}],
                              go=batch_go)
    inter, inter_out = launch(daemons, shared_hosts, tmp_path, "interactive",
                              [{"class": "short", "ms": 300, "tasks": 2}] * 3, go=go)
    # Every executor up before the long job starts: while no application has short work, the
    # central's short-only host is the one that covers the most applications' executors, so
    # it may move while they register (then long work already placed stays where it runs).
    _until("both applications' executors", lambda: os.path.exists(batch_out) and os.path.exists(inter_out), 240)
    batch_go.write_text("go")
    # The batch job runs on the general host (long work: the central's placements).
    _until("the batch job to hold a host's slots", lambda: str(SLOTS) in leased(daemons).values(), 240)
    go.write_text("go")
    finish(inter, 300)
    finish(batch, 300)
    b, i = read(batch_out), read(inter_out)
    assert sorted(r[0] for r in b["jobs"][0]["rows"]) == list(range(24))
    for j in i["jobs"]:
        assert sorted(r[0] for r in j["rows"]) == [0, 1]
    # Long work stays off the short partition: the central keeps one host of two for short work.
    assert len({r[3] for r in b["jobs"][0]["rows"]}) == 1, b["jobs"][0]["rows"]
    rows = b["jobs"][0]["rows"] + [r for j in i["jobs"] for r in j["rows"]]
    # Each host's 2 slots are shared by both applications: never more tasks at once on a host
    # (each application has an executor of 2 cores there, so ungated Spark would run 4).
    for h in HOSTS:
        assert most_at_once([(r[1], r[2]) for r in rows if r[3] == h]) <= SLOTS, h
    # Short work does not wait for the long job: the interactive jobs all end before it does.
    assert max(j["done"] for j in i["jobs"]) < b["jobs"][0]["done"]
    _until("no lease left on the nodes", lambda: set(leased(daemons).values()) == {"0"}, 60)
    for name, tasks in (("batch", 24), ("interactive", 6)):
        sm = read(tmp_path / f"{name}.summary.json")
        c = sm["cluster"]
        assert c["launched"] == tasks and c["taskEnds"] == tasks, c
        # Application affinity's counters reach the summary; only jobs held back spread late.
        assert 0 <= c["spreadLate"] <= c["warmFirst"], c
        # A round ends with free cores while tasks wait for grants; that alone asks for no
        # other round (the next grant brings one). Only a grant held past its round does.
        assert sm["plugin"]["reviveRequests"] <= tasks, (name, sm["plugin"])
        # Spark's own rounds go through the executors a round planned slots on (a launch needs
        # a grant), plus each executor's first offer, which registers it: not every executor
        # in every round. (Before, every grant's round offered both hosts' executors.)
        p = sm["plugin"]
        assert 0 < p["offersToSpark"] <= p["plannedSlots"] + len(HOSTS) * (1 + p["declineRounds"]), (name, p)
        # The same counters reach the event log (and the metrics source, the live tab) while
        # the application runs, as cluster.* gauges, not only the summary written at stop.
        ev = final_counters(tmp_path, name)
        assert {k[len("cluster."):] for k in ev if k.startswith("cluster.")} == set(c) - {"app", "central", "nodePort"}
        assert ev["cluster.launched"] == ev["cluster.taskEnds"] == tasks, ev
        assert ev["cluster.runningLeases"] == 0 and ev["cluster.hostsUp"] == len(HOSTS), ev


@pytest.mark.full
def test_a_wide_task_holds_as_many_slots_as_its_cores(daemons, shared_hosts, tmp_path):
    go, go_narrow = tmp_path / "go", tmp_path / "go-narrow"
    wide, wide_out = launch(daemons, shared_hosts, tmp_path, "wide",
                            [{"class": "short", "ms": 3000, "tasks": 8, "cpus": 2}], go=go)
    narrow, narrow_out = launch(daemons, shared_hosts, tmp_path, "narrow",
                                [{"class": "short", "ms": 1500, "tasks": 4}] * 2, go=go_narrow)
    _until("both applications' executors", lambda: os.path.exists(wide_out) and os.path.exists(narrow_out), 240)
    go.write_text("go")
    # A running wide task holds both slots of its node (one lease of 2 slots).
    _until("a node to lease both its slots to the wide job", lambda: str(SLOTS) in leased(daemons).values(), 120)
    go_narrow.write_text("go")  # the narrow jobs now compete with the running wide tasks
    finish(wide, 300)
    finish(narrow, 300)
    w, n = read(wide_out), read(narrow_out)
    assert sorted(r[0] for r in w["jobs"][0]["rows"]) == list(range(8))
    for j in n["jobs"]:
        assert sorted(r[0] for r in j["rows"]) == [0, 1, 2, 3]
    # Cores at once per host: each wide task counts 2. Ungated, each application's 2-core
    # executor could run its tasks beside the other's (4 cores on a 2-slot host).
    for h in HOSTS:
        starts = [(r[1], 2) for r in w["jobs"][0]["rows"] if r[3] == h] + \
                 [(r[1], 1) for j in n["jobs"] for r in j["rows"] if r[3] == h]
        ends = [(r[2], -2) for r in w["jobs"][0]["rows"] if r[3] == h] + \
               [(r[2], -1) for j in n["jobs"] for r in j["rows"] if r[3] == h]
        cur = most = 0
        for _, k in sorted(starts + ends, key=lambda x: (x[0], x[1])):
            cur += k
            most = max(most, cur)
        assert most <= SLOTS, (h, most)
    _until("no lease left on the nodes", lambda: set(leased(daemons).values()) == {"0"}, 60)
    c = read(tmp_path / "wide.summary.json")["cluster"]
    assert c["launched"] == 8 and c["taskEnds"] == 8, c


def test_a_killed_driver_frees_its_slots_for_the_other_application(daemons, shared_hosts, tmp_path):
    go = tmp_path / "go"
    slots = SLOTS * len(HOSTS)
    doomed, _ = launch(daemons, shared_hosts, tmp_path, "doomed",
                       [{"class": "short", "ms": 600000, "tasks": slots}], executors=len(HOSTS))
    other, other_out = launch(daemons, shared_hosts, tmp_path, "other", [{"class": "short", "ms": 300, "tasks": 4}],
                              go=go, executors=len(HOSTS))
    _until("the doomed application to hold every slot",
           lambda: set(leased(daemons).values()) == {str(SLOTS)}, 240)
    _until("the other application's executors", lambda: os.path.exists(other_out), 240)
    os.killpg(doomed.pid, signal.SIGKILL)  # the driver dies without a goodbye
    doomed.wait(timeout=60)
    go.write_text("go")
    # Its tasks run for 10 minutes: the other job can finish only on slots the nodes took back.
    finish(other, 300)
    o = read(other_out)
    assert sorted(r[0] for r in o["jobs"][0]["rows"]) == [0, 1, 2, 3]
    _until("no lease left on the nodes", lambda: set(leased(daemons).values()) == {"0"}, 120)

@pytest.mark.full
def test_a_barrier_stage_launches_whole_under_a_grant_for_each_task(daemons, shared_hosts, tmp_path):
    go, gang_go = tmp_path / "go", tmp_path / "gang-go"
    slots = SLOTS * len(HOSTS)
    other, other_out = launch(daemons, shared_hosts, tmp_path, "other",
                              [{"class": "short", "ms": 2500, "tasks": 2}] * 4, go=go)
    gang, gang_out = launch(daemons, shared_hosts, tmp_path, "gang",
                            [{"class": "long", "ms": 3000, "tasks": slots, "barrier": True}] * 2, go=gang_go)
    _until("both applications' executors", lambda: os.path.exists(other_out) and os.path.exists(gang_out), 240)
    go.write_text("go")
    # The barrier stage (one task per slot of the cluster) is submitted while the other
    # application's tasks hold slots: it must wait for all of them to be free.
    _until("the other application to hold slots", lambda: any(v not in (None, "0") for v in leased(daemons).values()),
           120)
    gang_go.write_text("go")
    finish(gang, 300)
    finish(other, 300)
    g, o = read(gang_out), read(other_out)
    for j in g["jobs"]:
        assert sorted(r[0] for r in j["rows"]) == list(range(slots))
    for j in o["jobs"]:
        assert sorted(r[0] for r in j["rows"]) == [0, 1]
    rows = [r for j in g["jobs"] + o["jobs"] for r in j["rows"]]
    # Each host's 2 slots: never more tasks at once, whatever ran beside the barrier stage.
    for h in HOSTS:
        assert most_at_once([(r[1], r[2]) for r in rows if r[3] == h]) <= SLOTS, h
    # Every task of a barrier stage ran at the same time as all the others (launched together).
    for j in g["jobs"]:
        assert most_at_once([(r[1], r[2]) for r in j["rows"]]) == slots, j["rows"]
    _until("no lease left on the nodes", lambda: set(leased(daemons).values()) == {"0"}, 60)
    c = read(tmp_path / "gang.summary.json")["cluster"]
    assert c["launched"] == c["taskEnds"] == 2 * slots, c
    assert c["runningLeases"] == 0, c


def task_events(tmp_path, name):
    """The application's SparkListenerTaskStart and SparkListenerTaskEnd events: every
    attempt, failed, killed and speculative ones included."""
    log = eventlog.find_log(str(tmp_path / f"{name}.events"))
    evs = list(eventlog.events(log))
    return ([e for e in evs if e["Event"] == "SparkListenerTaskStart"],
            [e for e in evs if e["Event"] == "SparkListenerTaskEnd"])


def hang_report(d, app, lines=60):
    """Each node's status, then the tails of the application's log (Spark's task lines and
    every warning) and of the daemons' logs."""
    out = [f"node {h}: {node_status(d, h)}" for h in d["nodes"]]
    log = app.log_path.read_text().splitlines()
    keep = [ln for ln in log if re.search(r"Eagle|eagle|Starting task|Lost task|Finished task|WARN|ERROR", ln)]
    out += ["-- application log --"] + keep[-lines:]
    for f in sorted(d["tmp"].glob("*.log")):
        out += [f"-- {f.name} --"] + f.read_text().splitlines()[-lines // 3:]
    return "\n".join(out)


def run_held(daemons, shared_hosts, tmp_path, name, jobs, conf=None, executors=None):
    """Runs the application's jobs, then, while it is still alive (its driver still linked to
    the nodes, so nothing is cleaned up by its going), waits until no node holds a lease,
    probe or reservation, and lets it stop. Then checks what every such run must show: each
    job that was not cancelled returned each of its partitions once, no host ran more tasks at
    once than its slots (each task's own start and end: the event log marks an attempt over
    after the executor freed its slot, in the result getter's thread), and every attempt
    (failed, killed and speculative ones included) launched under a grant and gave it back at
    its end. Returns (its output, its task starts, its task ends) from the event log."""
    go, hold = tmp_path / "go", tmp_path / "hold"
    app, out = launch(daemons, shared_hosts, tmp_path, name, jobs, go=go, conf=conf, hold=hold, executors=executors)

    def idle():
        st = [node_status(daemons, h) or {} for h in daemons["nodes"]]
        return all(s.get("leased") == "0" and s.get("probes") == "0" and s.get("reservations") == "0" for s in st)
    try:
        _until("the application's executors", lambda: os.path.exists(out), 240)
        go.write_text("go")
        _until("the application's jobs", lambda: len(read(out)["jobs"]) == len(jobs) or app.poll() is not None, 300)
        assert app.poll() is None, "the application stopped early:\n" + app.log_path.read_text()[-6000:]
        _until("no lease, probe or reservation left on the nodes with the application alive", idle, 60)
    except BaseException:
        # What a hang left behind, for the report (CI keeps no files): what every node holds,
        # and the last lines of the driver's and the daemons' logs.
        print(hang_report(daemons, app))
        # A hung application must not outlive its test (it would hold the hosts' slots).
        os.killpg(app.pid, signal.SIGKILL)
        app.wait(timeout=60)
        raise
    hold.write_text("go")
    finish(app, 120)
    o = read(out)
    done = [(j, spec) for j, spec in zip(o["jobs"], jobs) if not j["cancelled"]]
    for j, spec in done:
        assert sorted(r[0] for r in j["rows"]) == list(range(spec["tasks"])), j["rows"]
    for h in daemons["nodes"]:
        spans = [(r[1], r[2]) for j, _ in done for r in j["rows"] if r[3] == h]
        assert most_at_once(spans) <= SLOTS, h
    starts, ends = task_events(tmp_path, name)
    c = read(tmp_path / f"{name}.summary.json")["cluster"]
    assert c["launched"] == c["taskEnds"] == len(starts) == len(ends), (c, len(starts), len(ends))
    return o, starts, ends


@pytest.mark.smoke
def test_failed_tasks_run_again_under_fresh_grants(daemons, shared_hosts, tmp_path):
    # Every task's first attempt raises: Spark retries it (spark.task.maxFailures), and under
    # cluster mode the retry needs a slot again: for a short job from its probes, for a long
    # one from a new central placement (the driver tells the client its waiting tasks grew).
    # (A retry queued right after a launch must still ask for a slot, or the job waits for
    # good.)
    jobs = [{"class": "short", "ms": 300, "tasks": 4, "fail_first": True},
            {"class": "long", "ms": 600, "tasks": 6, "fail_first": True}]
    _, starts, ends = run_held(daemons, shared_hosts, tmp_path, "retries", jobs)
    failed = [e for e in ends if e["Task End Reason"]["Reason"] != "Success"]
    assert len(failed) == 10 and all(e["Task End Reason"]["Reason"] == "ExceptionFailure" for e in failed), \
        [e["Task End Reason"] for e in failed]
    assert all(e["Task Info"]["Attempt"] == 0 for e in failed)
    by_stage = {}
    for e in ends:
        if e["Task End Reason"]["Reason"] == "Success":
            by_stage.setdefault(e["Stage ID"], []).append(e["Task Info"]["Index"])
    assert sorted(sorted(v) for v in by_stage.values()) == [list(range(4)), list(range(6))], by_stage
    assert len(starts) == 20

@pytest.mark.full
def test_a_speculative_copy_runs_under_a_grant_on_the_other_host(daemons, shared_hosts, tmp_path):
    # The first attempt of partition 0 sleeps 10 minutes; Spark marks it speculatable and the
    # plugin asks a slot for the copy, which Spark runs only on another host than the
    # attempt's. The job ends when the copy does, and Spark kills the straggler, whose slot
    # comes back with its end.
    conf = {"spark.speculation": "true", "spark.speculation.quantile": "0.5",
            "spark.speculation.multiplier": "2", "spark.speculation.minTaskRuntime": "1s"}
    _, starts, ends = run_held(daemons, shared_hosts, tmp_path, "speculation",
                               [{"class": "short", "ms": 1000, "tasks": 8, "straggle_ms": 600000}], conf=conf)
    first = [e for e in starts if e["Task Info"]["Index"] == 0 and not e["Task Info"]["Speculative"]]
    copies = [e for e in ends if e["Task Info"]["Speculative"]]
    assert any(e["Task End Reason"]["Reason"] == "Success" and e["Task Info"]["Index"] == 0 for e in copies), \
        [(e["Task Info"], e["Task End Reason"]) for e in copies]
    assert len(first) == 1
    assert {e["Task Info"]["Host"] for e in copies if e["Task Info"]["Index"] == 0} == \
        set(HOSTS) - {first[0]["Task Info"]["Host"]}
    straggler = [e for e in ends if e["Task Info"]["Task ID"] == first[0]["Task Info"]["Task ID"]]
    assert [e["Task End Reason"]["Reason"] for e in straggler] == ["TaskKilled"], straggler


def test_a_cancelled_job_gives_its_slots_back_and_the_next_job_runs(daemons, shared_hosts, tmp_path):
    # Jobs of more tasks than slots are cancelled while their tasks run and others wait for
    # grants (probes or central placements queued on the nodes): their running tasks are
    # killed, their waiting ones dropped, and every lease, probe and placement of theirs goes
    # back while the application lives on; the next job then runs.
    slots = SLOTS * len(HOSTS)
    jobs = [{"class": "short", "ms": 600000, "tasks": 2 * slots, "cancel_after_s": 8},
            {"class": "long", "ms": 600000, "tasks": 2 * slots, "cancel_after_s": 8},
            {"class": "short", "ms": 300, "tasks": slots}]
    o, _, ends = run_held(daemons, shared_hosts, tmp_path, "cancelled", jobs)
    assert [j["cancelled"] for j in o["jobs"]] == [True, True, False], o["jobs"]
    killed = {e["Stage ID"] for e in ends if e["Task End Reason"]["Reason"] == "TaskKilled"}
    assert killed == {0, 1}, "both cancelled jobs had tasks running, and they were killed"

@pytest.mark.full
def test_a_long_task_excluded_from_its_host_runs_on_another(daemons, shared_hosts, tmp_path):
    # With Spark's exclusion on failure, a task that failed on a host may not run there again.
    # The central places long tasks on the general host only (the other is short-only), so
    # the retry of a long task that failed there can run only on the short-only host.
    conf = {"spark.excludeOnFailure.enabled": "true",
            "spark.excludeOnFailure.task.maxTaskAttemptsPerExecutor": "1",
            "spark.excludeOnFailure.task.maxTaskAttemptsPerNode": "1"}
    jobs = [{"class": "long", "ms": 500, "tasks": 2, "fail_first": True}]
    _, _, ends = run_held(daemons, shared_hosts, tmp_path, "excluded", jobs, conf=conf)
    for e in ends:
        i = e["Task Info"]
        if e["Task End Reason"]["Reason"] == "Success":
            failed_on = {x["Task Info"]["Host"] for x in ends
                         if x["Task Info"]["Index"] == i["Index"] and x["Task End Reason"]["Reason"] != "Success"}
            assert failed_on and i["Host"] not in failed_on, (i, failed_on)


@pytest.mark.full
def test_dynamic_allocation_adds_and_removes_executors_and_their_hosts(daemons, shared_hosts, tmp_path):
    # Under dynamic allocation the application starts with no executor, gets them for a
    # backlog, loses them when idle (its node links go with them) and gets them again for
    # the next jobs, short and long: each launches under a grant of a host it then has.
    conf = {"spark.dynamicAllocation.enabled": "true",
            "spark.dynamicAllocation.shuffleTracking.enabled": "true",
            "spark.dynamicAllocation.minExecutors": "0",
            "spark.dynamicAllocation.initialExecutors": "0",
            "spark.dynamicAllocation.maxExecutors": str(len(HOSTS)),
            "spark.dynamicAllocation.executorIdleTimeout": "3s",
            "spark.dynamicAllocation.schedulerBacklogTimeout": "1s"}
    jobs = [{"class": "short", "ms": 1000, "tasks": 8},
            {"class": "long", "ms": 1000, "tasks": 4, "idle_first": True},
            {"class": "short", "ms": 300, "tasks": 4, "idle_first": True}]
    _, starts, _ = run_held(daemons, shared_hosts, tmp_path, "dynamic", jobs, conf=conf, executors=0)
    evs = list(eventlog.events(eventlog.find_log(str(tmp_path / "dynamic.events"))))
    added = [e for e in evs if e["Event"] == "SparkListenerExecutorAdded"]
    removed = [e for e in evs if e["Event"] == "SparkListenerExecutorRemoved"]
    # Idle twice, so executors came three times and went at least twice.
    assert len(added) >= 3 and len(removed) >= 2, (len(added), len(removed))
    assert len(starts) == 16

@pytest.mark.full
def test_a_shuffle_runs_both_stages_under_grants(daemons, shared_hosts, tmp_path):
    # Two stages, short and long: the reduce tasks prefer the hosts holding their map
    # output (Spark's reduce locality), so they wait for a grant of the right host under
    # delay scheduling, or take another after the locality wait.
    jobs = [{"class": "short", "ms": 200, "tasks": 8, "shuffle": True},
            {"class": "long", "ms": 500, "tasks": 6, "shuffle": True}]
    _, starts, ends = run_held(daemons, shared_hosts, tmp_path, "shuffle", jobs)
    assert len({e["Stage ID"] for e in ends}) == 4
    assert len(starts) == 28


@pytest.mark.full
def test_a_streaming_query_runs_its_micro_batches_under_grants(daemons, shared_hosts, tmp_path):
    # A Structured Streaming query, with no class or estimate hint, runs a new SQL execution
    # of two stages at every trigger: each micro-batch's tasks must launch under grants and
    # give them back, batch after batch, and the query's state must come out whole.
    jobs = [{"class": "short", "ms": 0, "tasks": 5, "stream": 8}]
    _, starts, ends = run_held(daemons, shared_hosts, tmp_path, "stream", jobs,
                               conf={"spark.sql.shuffle.partitions": "4"})
    assert len({e["Stage ID"] for e in ends}) >= 8
    assert len(starts) >= 8 * 4
    # The query's stop interrupts the micro-batch in flight: its tasks end killed.
    assert {e["Task End Reason"]["Reason"] for e in ends} <= {"Success", "TaskKilled"}, \
        [e["Task End Reason"] for e in ends if e["Task End Reason"]["Reason"] != "Success"]

@pytest.mark.full
def test_a_stage_far_longer_than_its_estimate_widens_to_the_other_host(daemons, shared_hosts, tmp_path):
    # The warm-executors rule hands back a grant of a host where the stage is cold while its
    # own slots, by the estimate, drain it sooner; the hand-back drops the stage's probe there.
    # A stage of 3 s tasks estimated at 35 ms (as one with no hint comes in at the
    # application's typical task) filled one host's slots and handed the other host's grant
    # back. Once its first tasks overrun the estimate the rule says yes, and the other host
    # must be probed again (judged without launch times, or not probed again, the stage ran
    # 2 at a time on one host, 4 slots free beside it for its whole first wave, where stock
    # Spark runs it 4 at once). The first job starts the executors
    # (an executor's own start gives no warm-up sample), the second measures the warm-up, so
    # that the rule is on. The rule turns once the first tasks have run two warm-ups past the
    # estimate (tens of ms each here; the tasks are long enough for several hundred).
    jobs = [{"class": "short", "ms": 100, "tasks": 16},
            {"class": "short", "ms": 100, "tasks": 16},
            {"class": "short", "ms": 6000, "hint_ms": 35, "tasks": 4}]
    o, starts, _ = run_held(daemons, shared_hosts, tmp_path, "low-estimate", jobs)
    rows = o["jobs"][2]["rows"]
    s = read(tmp_path / "low-estimate.summary.json")
    c, w = s["cluster"], s["adaptive"]["warmupMs"]
    assert w > 0, s["adaptive"]  # the rule is on
    assert most_at_once([(r[1], r[2]) for r in rows]) == 4, (rows, w, c)
    assert len({r[3] for r in rows}) == 2, (rows, w, c)
    assert len(starts) == 36

@pytest.mark.full
def test_cached_partitions_run_where_their_blocks_are(daemons, shared_hosts, tmp_path):
    # Each cached job first caches its partitions (a job of its own), then reads them: a
    # task over a cached block prefers the executor holding it (PROCESS_LOCAL), and Spark's
    # delay scheduling keeps it off other executors for spark.locality.wait (3 s). Under
    # cluster mode a round offers only the executors granted a slot, so a read runs where its
    # block is only if the driver takes that host's grant. A first job of many tasks starts
    # the executors, and the caching job measures the warm-up, so that the warm-executors
    # rule is on for the reads: it must not hand back a grant of a host where the reading
    # stage is cold although its blocks are there, or those reads wait the locality wait and
    # then run on the other host, reading remotely.
    # The long job runs on the general host only (its blocks and its reads).
    jobs = [{"class": "short", "ms": 200, "tasks": 16},
            {"class": "short", "ms": 5, "tasks": 8, "cached": True, "cache_ms": 2000},
            {"class": "long", "ms": 300, "tasks": 8, "cached": True}]
    _, starts, ends = run_held(daemons, shared_hosts, tmp_path, "cached", jobs)
    by_stage = {}
    for e in ends:
        by_stage.setdefault(e["Stage ID"], []).append(e["Task Info"])
    assert sorted(by_stage) == [0, 1, 2, 3, 4], sorted(by_stage)  # warm-up; cache, read; cache, read
    c = read(tmp_path / "cached.summary.json")["cluster"]
    for reads in (2, 4):
        where = {}
        for t in by_stage[reads]:
            where.setdefault(t["Locality"], []).append(t["Host"])
        # Wide margin: a read may still go elsewhere once the locality wait has passed.
        assert len(where.get("PROCESS_LOCAL", [])) >= 6, (reads, where, c)
    assert len({t["Host"] for t in by_stage[3] + by_stage[4]}) == 1, by_stage[4]  # long: the general host
    assert len(starts) == 48


@pytest.mark.full
@pytest.mark.parametrize("dds", ["true", "false"])
def test_a_long_stage_whose_blocks_are_on_the_short_only_host_does_not_wait_for_them(daemons, shared_hosts, tmp_path,
                                                                                      dds):
    # A short job caches 8 partitions on both hosts; a long job then reads them. The central
    # places long tasks on the general host only, so the reads whose blocks are on the
    # short-only host can never run where their blocks are: waiting for that (Spark's delay
    # scheduling, here spark.locality.wait = 10 s, the start of the adaptive waits) only
    # idles the general host. They start at once, as the general host's slots free (4 waves
    # of 300 ms), not a whole locality wait after the stage's first reads. With Dynamic
    # Delay Scheduling off, Spark's own waits decide, and they must not hold those reads back
    # for the whole wait either.
    jobs = [{"class": "short", "ms": 200, "tasks": 16},
            {"class": "long", "ms": 300, "tasks": 8, "cached": True, "cache_class": "short", "cache_ms": 2000}]
    _, starts, ends = run_held(daemons, shared_hosts, tmp_path, "remote", jobs,
                               conf={"spark.locality.wait": "10s", "spark.scheduler.eagle.dds.enabled": dds})
    by_stage = {}
    for e in ends:
        by_stage.setdefault(e["Stage ID"], []).append(e["Task Info"])
    assert sorted(by_stage) == [0, 1, 2], sorted(by_stage)  # warm-up; cache; read
    cached_on = {t["Host"] for t in by_stage[1]}
    reads = by_stage[2]
    assert len({t["Host"] for t in reads}) == 1, reads  # long: the general host
    remote = [t for t in reads if t["Locality"] not in ("PROCESS_LOCAL", "NODE_LOCAL")]
    # The test needs blocks on both hosts (the short job ran on both).
    assert len(cached_on) == 2 and remote, (cached_on, [(t["Host"], t["Locality"]) for t in reads])
    first = min(t["Launch Time"] for t in reads)
    late = max(t["Launch Time"] for t in remote) - first
    print(f"remote reads: {len(remote)} of {len(reads)}, the last launched {late} ms after the first read")
    # Wide margin: 8 reads of 300 ms on 2 slots; the wait was 10 s.
    assert late < 5000, (late, [(t["Host"], t["Locality"], t["Launch Time"] - first) for t in reads])


def _executor_pids(app_id, host):
    """The pids of the application's executor JVMs on `host` (the standalone worker's launch
    command names both)."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                args = f.read().decode(errors="replace").split("\0")
        except OSError:
            continue
        if "org.apache.spark.executor.CoarseGrainedExecutorBackend" in args and \
                _arg(args, "--app-id") == app_id and _arg(args, "--hostname") == host:
            pids.append(int(pid))
    return pids


def _arg(args, flag):
    return args[args.index(flag) + 1] if flag in args[:-1] else None


@pytest.mark.full
@pytest.mark.parametrize("cls", ["short", "long"])
def test_a_lost_executor_is_replaced_and_its_successor_runs_tasks_under_grants(daemons, shared_hosts, tmp_path, cls):
    go = tmp_path / "go"
    tasks = 40 if cls == "short" else 16
    app, out = launch(daemons, shared_hosts, tmp_path, "survivor", [{"class": cls, "ms": 1500, "tasks": tasks}],
                      go=go)
    _until("the application's executors", lambda: os.path.exists(out), 240)
    app_id = read(out)["app"]
    go.write_text("go")
    # SIGKILL the executor on one host while its tasks hold that host's slots: they fail with
    # the executor, and the standalone master starts another executor in its place, which
    # the driver has never offered to Spark (its first offer registers it). Short tasks run
    # on both hosts; long ones only on the general host, so that host's executor goes: its
    # node link drops with it (the host's last executor), taking the central's placements
    # queued there, which are placed again.
    busy = _until("tasks running", lambda: [h for h, v in leased(daemons).items() if v not in (None, "0")], 120)
    victim = HOSTS[1] if cls == "short" or HOSTS[1] in busy else busy[0]
    _until(f"tasks running on {victim}", lambda: leased(daemons)[victim] not in (None, "0"), 120)
    pids = _until(f"the executor on {victim}", lambda: _executor_pids(app_id, victim), 60)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    finish(app, 300)
    rows = read(out)["jobs"][0]["rows"]
    # Every partition in the result once: the lost tasks ran again, none twice in the result.
    assert sorted(r[0] for r in rows) == list(range(tasks))
    log = eventlog.find_log(str(tmp_path / "survivor.events"))
    evs = list(eventlog.events(log))
    added = [e["Executor ID"] for e in evs if e["Event"] == "SparkListenerExecutorAdded"]
    removed = {e["Executor ID"] for e in evs if e["Event"] == "SparkListenerExecutorRemoved"}
    assert len(removed) == 1 and len(added) == len(HOSTS) + 1, (added, removed)
    successor = added[-1]
    ends = [e for e in evs if e["Event"] == "SparkListenerTaskEnd"]
    lost = [e for e in ends if e["Task Info"]["Executor ID"] in removed]
    assert any(e["Task End Reason"]["Reason"] != "Success" for e in lost), "the killed executor had tasks running"
    ran = [e for e in ends if e["Task Info"]["Executor ID"] == successor and e["Task End Reason"]["Reason"] == "Success"]
    assert ran, f"the replacement executor {successor} ran no task"
    # Each partition succeeded once (Spark's accounting: no speculation here).
    ok = [e["Task Info"]["Index"] for e in ends if e["Task End Reason"]["Reason"] == "Success"]
    assert sorted(ok) == list(range(tasks)), sorted(ok)
    # The failed tasks' leases came back with their task ends, and the successor's were
    # granted and returned like any other: no slot leaks.
    _until("no lease left on the nodes", lambda: set(leased(daemons).values()) == {"0"}, 60)
    c = read(tmp_path / "survivor.summary.json")["cluster"]
    assert c["launched"] == c["taskEnds"] >= tasks, c


@pytest.mark.full
@pytest.mark.parametrize("cls", ["short", "long"])
def test_lost_map_output_is_computed_again_under_grants(daemons, shared_hosts, tmp_path, cls):
    # A shuffle whose reduce tasks hold their slots (waiting on a gate) when the executor of a
    # host that ran map tasks is killed: its reduce tasks fail with it, and their next attempts
    # find that host's map output gone (FetchFailed), so Spark resubmits the map stage (a
    # second attempt, a new task set) and then the reduce stage, while the first reduce
    # attempt's tasks on the other host are still running (a zombie task set). Every attempt
    # of both runs under a grant: the answer is exact and no lease is left.
    go, gate, marks = tmp_path / "go", tmp_path / "gate", tmp_path / "marks"
    marks.mkdir()
    tasks = 8 if cls == "short" else 4
    app, out = launch(daemons, shared_hosts, tmp_path, "refetch",
                      [{"class": cls, "ms": 300, "tasks": tasks, "shuffle": True, "marks": str(marks),
                        "gate": str(gate)}], go=go)
    _until("the application's executors", lambda: os.path.exists(out), 240)
    app_id = read(out)["app"]
    go.write_text("go")

    def started():
        return [n.split("-", 3) for n in os.listdir(marks)]  # stage, partition, attempt, host

    _until("the reduce stage's tasks", lambda: len({m[0] for m in started()}) == 2, 180)
    stages = sorted({int(m[0]) for m in started()})
    mapped = {m[3] for m in started() if int(m[0]) == stages[0]}
    reducing = {m[3] for m in started() if int(m[0]) == stages[1]}
    victim = sorted(mapped & reducing)[0]
    pids = _until(f"the executor on {victim}", lambda: _executor_pids(app_id, victim), 60)
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    # The gate opens once the driver has seen the loss, so the other host's reduce tasks
    # end in the first attempt's zombie task set (and the victim's reduce tasks, failed
    # with it, run again).
    events = str(tmp_path / "refetch.events")
    _until("the executor's loss in the event log", lambda: any(
        e["Event"] == "SparkListenerExecutorRemoved" for e in eventlog.events(eventlog.find_log(events))), 120)
    gate.write_text("open")
    finish(app, 300)
    rows = read(out)["jobs"][0]["rows"]
    assert sorted(r[0] for r in rows) == list(range(tasks))
    evs = list(eventlog.events(eventlog.find_log(events)))
    attempts = {}
    for e in evs:
        if e["Event"] == "SparkListenerStageSubmitted":
            i = e["Stage Info"]
            attempts.setdefault(i["Stage ID"], []).append(i["Stage Attempt ID"])
    assert max(attempts.get(stages[0], [0])) >= 1, ("the map stage was not computed again", attempts)
    ends = [e for e in evs if e["Event"] == "SparkListenerTaskEnd"]
    reasons = {e["Task End Reason"]["Reason"] for e in ends}
    assert "FetchFailed" in reasons or "ExecutorLostFailure" in reasons, reasons
    _until("no lease left on the nodes", lambda: set(leased(daemons).values()) == {"0"}, 60)
    c = read(tmp_path / "refetch.summary.json")["cluster"]
    assert c["launched"] == c["taskEnds"] >= 2 * tasks + 1, c


def test_a_driver_the_central_refuses_falls_back_to_stock_scheduling_naming_why(daemons, shared_hosts, tmp_path):
    other = tmp_path / "another-secret"
    other.write_text("not the daemons' secret\n")
    p, out = launch(dict(daemons, secret=str(other)), shared_hosts, tmp_path, "refused",
                    [{"class": "short", "ms": 100, "tasks": 4}])
    finish(p, 300)
    assert sorted(r[0] for r in read(out)["jobs"][0]["rows"]) == [0, 1, 2, 3], "the job ran, unscheduled by eagle"
    summary = read(tmp_path / "refused.summary.json")
    reason = summary["fallbackReason"] or ""
    assert summary["fallback"] and f"spark.scheduler.eagle.cluster.central={daemons['central']}" in reason, reason
    assert "refused the driver" in reason, reason
    assert set(leased(daemons).values()) == {"0"}, "no node ever leased it a slot"


@pytest.mark.parametrize("key,value,needle", [
    ("spark.scheduler.eagle.cluster.central", "nohostport", "cluster.central"),
    ("spark.scheduler.eagle.cluster.nodePort", "0", "cluster.nodePort"),
    ("spark.scheduler.eagle.cluster.secretFile", "/nonexistent/secret", "cluster.secretFile"),
    ("spark.scheduler.eagle.cluster.warmGrants", "maybe", "cluster.warmGrants"),
    ("spark.scheduler.eagle.cluster.affinity", "maybe", "cluster.affinity"),
])
def test_bad_cluster_keys_fail_the_start_naming_the_key(key, value, needle):
    conf = {"spark.scheduler.eagle.cluster.central": "127.0.0.1:7100",
            "spark.scheduler.eagle.cluster.secret": "s", key: value}
    assert needle in start_fails("spark-eagle:local[2]", conf)
