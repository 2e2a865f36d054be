"""Seeing what Eagle does: the `eagle` metrics source (Prometheus servlet, CSV, JMX), the
Eagle events in the event log, the live Spark UI tab (/eagle/, /eagle/json) and the same
tab rebuilt by a real History Server from the event log.

One application on spark-eagle:local[4] runs hinted short jobs, a hinted long job (watched
live while it runs) and an unhinted job; every check compares what the channels show with
what Spark itself reports for the run (job ids, stage ids, task launches).
"""
import glob
import json
import os
import re
import subprocess
import threading
import time
import urllib.request

import pytest

from conftest import JAR, sleep_task, spark
from standalone import free_port

SHORT_JOBS = 3
SHORT_TASKS = 8  # per short job
LONG_TASKS = 4
LONG_TASK_S = 3.0
LONG_ESTIMATE_MS = 2900  # the long job's estimate hint


def fetch(url, timeout=30):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.read().decode("utf-8")


def wait_for(what, f, timeout=90, every=0.5):
    """Polls f() until it returns something truthy; fails naming `what` after `timeout` s."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = f()
            if last:
                return last
        except Exception as e:  # not up yet
            last = e
        time.sleep(every)
    pytest.fail(f"timed out waiting for {what}: {last!r}")


def prometheus_gauges(text):
    """{metric name after 'eagle_': value} from PrometheusServlet output."""
    out = {}
    for m in re.finditer(r"_driver_eagle_(\w+?)_Value\{type=\"gauges\"\} (-?\d+)", text):
        out[m.group(1)] = int(m.group(2))
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("observability")
    events, csv = d / "events", d / "csv"
    events.mkdir()
    csv.mkdir()
    conf = {
        "spark.ui.enabled": "true",
        "spark.ui.port": "0",
        "spark.ui.prometheus.enabled": "true",
        "spark.metrics.conf.*.sink.prometheusServlet.class": "org.apache.spark.metrics.sink.PrometheusServlet",
        "spark.metrics.conf.*.sink.prometheusServlet.path": "/metrics/prometheus",
        "spark.metrics.conf.*.sink.csv.class": "org.apache.spark.metrics.sink.CsvSink",
        "spark.metrics.conf.*.sink.csv.period": "1",
        "spark.metrics.conf.*.sink.csv.unit": "seconds",
        "spark.metrics.conf.*.sink.csv.directory": str(csv),
        "spark.metrics.conf.*.sink.jmx.class": "org.apache.spark.metrics.sink.JmxSink",
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + str(events),
        "spark.eventLog.compress": "false",
    }
    res = {"d": d, "events": events, "csv": csv, "groups": {}}
    with spark("spark-eagle:local[4]", conf, summary_path=d / "summary.json", app="eagle-observability") as (s, r):
        sc = s.sparkContext
        res["appId"] = sc.applicationId
        ui = sc.uiWebUrl
        assert ui, "the Spark UI is enabled"
        res["ui"] = ui

        def job(group, cls, n, secs, estimate_ms=None):
            sc.setJobGroup(group, group)
            sc.setLocalProperty("spark.scheduler.eagle.job.class", cls)
            if estimate_ms is not None:
                sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(estimate_ms))
            try:
                return sc.parallelize(range(n), n).map(sleep_task(secs)).count()
            finally:
                sc.setLocalProperty("spark.scheduler.eagle.job.class", None)
                sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", None)

        for i in range(SHORT_JOBS):
            assert job(f"short-{i}", "short", SHORT_TASKS, 0.05) == SHORT_TASKS

        # The long job runs in its own thread while the tab and the metrics are read live.
        long_result = {}
        t = threading.Thread(target=lambda: long_result.__setitem__(
            "n", job("long", "long", LONG_TASKS, LONG_TASK_S, LONG_ESTIMATE_MS)), daemon=True)
        t.start()

        def long_running():
            j = json.loads(fetch(ui + "/eagle/json"))
            running = [ts for ts in j["taskSets"] if ts["class"] == "long" and ts["endTime"] is None]
            live = j["status"]["values"] if j["status"] else {}
            # Live while it runs: its task set registered and its tasks holding slots (between the
            # task set's submission and its first launch the tab rightly shows no busy slot).
            busy = live.get("longTaskSets", 0) >= 1 and live.get("busySlots", 0) >= 1
            return (j, running) if running and busy else None

        res["live_json"], res["live_running"] = wait_for("the long task set live in /eagle/json", long_running)
        t.join(timeout=120)
        assert long_result.get("n") == LONG_TASKS
        # An unhinted job: the engine's own classification.
        sc.setJobGroup("plain", "plain")
        assert sc.parallelize(range(100), 4).sum() == sum(range(100))

        tracker = sc.statusTracker()
        for g in [f"short-{i}" for i in range(SHORT_JOBS)] + ["long", "plain"]:
            res["groups"][g] = list(tracker.getJobIdsForGroup(g))
        launched = SHORT_JOBS * SHORT_TASKS + LONG_TASKS + 4

        # Metrics of the running application (the cached reading is at most 0.5 s old).
        def prom():
            g = prometheus_gauges(fetch(ui + "/metrics/prometheus"))
            return g if g.get("decisions", 0) >= launched else None

        res["prometheus"] = wait_for("eagle gauges in /metrics/prometheus", prom, timeout=30)
        # The CSV sink writes every second: its last row may be older than the launches
        # the live gauges already count.
        wait_for("the CSV sink's decisions to reach the launches",
                 lambda: (csv_decisions(csv) or [0])[-1] >= launched or None, timeout=30)
        (d / "prometheus.txt").write_text(fetch(ui + "/metrics/prometheus/"))
        res["metrics_json"] = json.loads(fetch(ui + "/metrics/json/"))
        # JMX (JmxSink): through a typed proxy, as py4j cannot call the MBeanServer's class.
        jvm = sc._jvm
        server = jvm.java.lang.management.ManagementFactory.getPlatformMBeanServer()
        name = jvm.javax.management.ObjectName("metrics:name=%s.driver.eagle.decisions,type=gauges" % res["appId"])
        gauge = jvm.java.lang.Class.forName("com.codahale.metrics.jmx.JmxReporter$JmxGaugeMBean")
        res["jmx_decisions"] = [int(jvm.javax.management.JMX.newMBeanProxy(server, name, gauge).getValue())]
        res["launched"] = launched
        # A task set's end reaches the listener bus just after its job's end: wait for all.
        res["json"] = wait_for("every task set ended in /eagle/json", lambda: (
            lambda j: j if j["taskSets"] and all(t["endTime"] for t in j["taskSets"]) else None)(
            json.loads(fetch(ui + "/eagle/json"))), timeout=30)
        res["html"] = fetch(ui + "/eagle/")
        (d / "eagle.html").write_text(res["html"])  # for a look when a check fails
    res["summary"] = r["summary"]
    res["log"] = read_event_log(events)
    return res


def csv_decisions(csv):
    """The decisions gauge's values in the CSV sink's file, oldest first ([] before it exists)."""
    files = glob.glob(str(csv / "*.driver.eagle.decisions.csv"))
    if len(files) != 1:
        return []
    rows = [line.split(",") for line in open(files[0]).read().splitlines()[1:] if line.strip()]
    return [int(float(r[1])) for r in rows if len(r) > 1]


def read_event_log(events):
    """The events of the one application logged under `events`: a single file, or (Spark 4's
    default, rolling event logs) the directory eventlog_v2_<app> of events_<n>_<app> files."""
    (log,) = glob.glob(str(events / "*"))
    if os.path.isdir(log):
        parts = glob.glob(os.path.join(log, "events_*"))
        files = sorted(parts, key=lambda p: int(os.path.basename(p).split("_")[1]))
    else:
        files = [log]
    out = []
    for p in files:
        with open(p) as f:
            out += [json.loads(line) for line in f if line.strip()]
    assert out, files
    return out


def eagle_events(log, name):
    return [e for e in log if e["Event"] == "org.apache.spark.scheduler.eagle.events." + name]


def spark_events(log, name):
    return [e for e in log if e["Event"] == "SparkListener" + name]


def job_ids(res, group):
    ids = res["groups"][group]
    assert ids, group
    return ids


# ---- metrics -------------------------------------------------------------------------------


def test_prometheus_gauges_match_the_run(run):
    g = run["prometheus"]
    assert g["decisions"] >= run["launched"], "each launch is an engine decision"
    assert g["totalSlots"] == 4, "local[4]: four slots"
    assert 0 <= g["busySlots"] <= g["totalSlots"]
    assert g["taskSetsSubmittedShort"] >= SHORT_JOBS and g["taskSetsSubmittedLong"] >= 1
    assert g["fallback"] == 0
    assert g["plugin_rounds"] > 0 and g["plugin_plannedSlots"] >= run["launched"]
    # adaptive: a reservation is reported once decisions were made, within the slots
    assert 0 <= g["reservedSlots"] <= 4
    for k in ("probesPlaced", "srptBypasses", "shortTasksAfterHol", "probesBehindLong",
              "ddsNodeWaitMeanMs", "ddsLearnedNodeWaitMs", "cutoffMs", "shortTaskSets", "longTaskSets"):
        assert k in g, k
    # DDS is on by default: the learned intervals exist and lie within [minWaitMs, maxWaitMs]
    assert 0 <= g["ddsLearnedNodeWaitMs"] <= 10000


def test_metrics_json_servlet_and_jmx_carry_the_same_source(run):
    gauges = {k.split("driver.eagle.", 1)[1]: v["value"] for k, v in run["metrics_json"]["gauges"].items()
              if ".driver.eagle." in k}
    assert gauges["decisions"] >= run["launched"]
    assert gauges["totalSlots"] == 4
    assert run["jmx_decisions"] and run["jmx_decisions"][0] >= run["launched"]


def test_csv_sink_writes_the_eagle_gauges(run):
    files = glob.glob(str(run["csv"] / "*.driver.eagle.decisions.csv"))
    assert len(files) == 1, os.listdir(run["csv"])
    values = csv_decisions(run["csv"])
    assert values and values == sorted(values), "decisions never decrease"
    assert values[-1] >= run["launched"]
    assert glob.glob(str(run["csv"] / "*.driver.eagle.reservedSlots.csv"))


# ---- event log ------------------------------------------------------------------------------


def test_event_log_has_the_eagle_events_of_the_real_jobs(run):
    log = run["log"]
    started = eagle_events(log, "EagleSchedulerStarted")
    assert len(started) == 1 and started[0]["policy"] == "adaptive"
    assert "dds.enabled" in started[0]["configKeys"]
    spark_jobs = {e["Job ID"] for e in spark_events(log, "JobStart")}
    spark_stages = {(e["Stage Info"]["Stage ID"], e["Stage Info"]["Stage Attempt ID"])
                    for e in spark_events(log, "StageSubmitted")}
    classified = eagle_events(log, "EagleJobClassified")
    assert len(classified) == len(spark_stages), "one per task set"
    assert {(e["stageId"], e["stageAttemptId"]) for e in classified} == spark_stages
    assert {e["jobId"] for e in classified} <= spark_jobs
    assert all(e["jobClass"] in ("short", "long") for e in classified)
    by_job = {}
    for e in classified:
        by_job.setdefault(e["jobId"], []).append(e)
    for i in range(SHORT_JOBS):
        for j in job_ids(run, f"short-{i}"):
            assert [(e["jobClass"], e["tasks"]) for e in by_job[j]] == [("short", SHORT_TASKS)]
            assert by_job[j][0]["source"] in ("hint", "history", "runningMean", "default")
    (long_job,) = job_ids(run, "long")
    assert [(e["jobClass"], e["tasks"], e["estimateMs"], e["source"]) for e in by_job[long_job]] == [
        ("long", LONG_TASKS, LONG_ESTIMATE_MS, "hint")]
    finished = eagle_events(log, "EagleTaskSetFinished")
    assert {(e["stageId"], e["stageAttemptId"]) for e in finished} == spark_stages
    launches = {(e["stageId"], e["stageAttemptId"]): sum(e["localityLaunches"]) for e in finished}
    for e in classified:
        assert launches[(e["stageId"], e["stageAttemptId"])] >= e["tasks"]


def test_event_log_counters_reservation_and_intervals(run):
    log = run["log"]
    task_starts = len(spark_events(log, "TaskStart"))
    final = [e for e in eagle_events(log, "EagleCountersSnapshot") if e["atStop"]]
    assert len(final) == 1
    c = dict(zip(final[0]["names"], final[0]["values"]))
    assert c["decisions"] >= task_starts >= run["launched"]
    assert final[0]["fallback"] is False and c["fallback"] == 0
    # cluster.* counters are cluster mode's (tests/test_cluster_mode.py); none here
    assert not [n for n in c if n.startswith("cluster.")], c
    # the same counters as the run summary written at stop
    assert c["decisions"] == run["summary"]["counters"]["decisions"]
    assert c["srptBypasses"] == run["summary"]["counters"]["srptBypasses"]
    res = eagle_events(log, "EagleReservationChanged")
    assert res, "adaptive reports its reservation"
    assert all(0 <= e["reservedSlots"] <= 4 for e in res)
    assert [e["atMs"] for e in res] == sorted(e["atMs"] for e in res)
    pairs = [(e["reservedSlots"], e["cutoffMs"]) for e in res]
    assert all(a != b for a, b in zip(pairs, pairs[1:])), "only changes are posted"
    dds = eagle_events(log, "EagleDelayIntervals")
    finished = eagle_events(log, "EagleTaskSetFinished")
    assert len(dds) == len(finished), "every task set under DDS reports its intervals"
    for e in dds:
        s = e["samples"]
        assert len(s) % 3 == 0 and len(s) >= 9, "starts with the initial interval of 3 levels"
        assert {int(x) for x in s[1::3]} <= {0, 1, 3}
        assert all(0 <= x <= 10000 for x in s[2::3])


# ---- live UI --------------------------------------------------------------------------------


def test_live_tab_showed_the_long_job_while_it_ran(run):
    (long_job,) = job_ids(run, "long")
    assert {t["jobId"] for t in run["live_running"]} == {long_job}
    live = run["live_json"]
    assert live["status"]["label"] == "now (live)"
    assert live["status"]["values"]["busySlots"] >= 1
    assert live["policy"] == "adaptive" and live["fallback"] is False


def jobs_table(html):
    """{job id: class} from the tab's Spark jobs table."""
    m = re.search(r'id="eagle-jobs-table".*?</table>', html, re.S)
    assert m, "jobs table"
    return {int(a): b for a, b in re.findall(
        r'<tr>\s*<td>(\d+)</td>\s*<td class="eagle-class-(\w+)">', m.group(0))}


def check_tab(html, data, run):
    shown = jobs_table(html)
    for i in range(SHORT_JOBS):
        for j in job_ids(run, f"short-{i}"):
            assert shown[j] == "short", (j, shown)
    (long_job,) = job_ids(run, "long")
    assert shown[long_job] == "long"
    for j in job_ids(run, "plain"):
        assert shown[j] in ("short", "long")
    assert "Reservation and cutoff over time" in html and "Dynamic Delay Scheduling" in html
    by_id = {j["jobId"]: j["class"] for j in data["jobs"]}
    assert by_id == shown
    assert data["config"]["policy"] == "adaptive"
    assert data["reservationHistory"], "the reservation history"
    ts = data["taskSets"]
    assert all(t["endTime"] is not None for t in ts), "all ended"
    assert all(t["dds"] is not None and t["dds"]["samples"] >= 3 for t in ts)


def test_live_tab_lists_the_jobs_with_their_classes(run):
    check_tab(run["html"], run["json"], run)
    assert run["json"]["status"]["values"]["decisions"] >= run["launched"]


# ---- fallback -------------------------------------------------------------------------------


def test_fallback_shows_in_metrics_and_tab_and_jobs_still_complete(tmp_path):
    conf = {
        "spark.ui.enabled": "true",
        "spark.ui.port": "0",
        "spark.scheduler.eagle.debug.failAfterCalls": "30",
    }
    with spark("spark-eagle:local[2]", conf) as (s, _):
        sc = s.sparkContext
        for _ in range(3):
            assert sc.parallelize(range(100), 8).sum() == sum(range(100))
        data = wait_for("the fallback in /eagle/json", lambda: (lambda j: j if j["fallback"] else None)(
            json.loads(fetch(sc.uiWebUrl + "/eagle/json"))), timeout=30)
        assert "forced failure after 30 calls" in data["fallbackReason"]
        assert data["status"]["values"]["fallback"] == 1
        html = fetch(sc.uiWebUrl + "/eagle/")
        assert "Fallback to stock scheduling:</strong> yes" in html
        gauges = json.loads(fetch(sc.uiWebUrl + "/metrics/json/"))["gauges"]
        assert [v["value"] for k, v in gauges.items() if k.endswith("driver.eagle.fallback")] == [1]


def test_paper_policy_events_have_no_reservation_and_the_fixed_cutoff(tmp_path):
    events = tmp_path / "events"
    events.mkdir()
    conf = {
        "spark.scheduler.eagle.policy": "paper",
        "spark.eventLog.enabled": "true",
        "spark.eventLog.dir": "file://" + str(events),
        "spark.eventLog.compress": "false",
    }
    with spark("spark-eagle:local[2]", conf, summary_path=tmp_path / "s.json") as (s, r):
        assert s.sparkContext.parallelize(range(100), 4).sum() == sum(range(100))
    log = read_event_log(events)
    (started,) = eagle_events(log, "EagleSchedulerStarted")
    assert started["policy"] == "paper"
    res = eagle_events(log, "EagleReservationChanged")
    assert [(e["reservedSlots"], e["cutoffMs"]) for e in res] == [(-1, 10000)], "posted once: nothing changes"
    (final,) = [e for e in eagle_events(log, "EagleCountersSnapshot") if e["atStop"]]
    c = dict(zip(final["names"], final["values"]))
    assert c["probesPlaced"] == r["summary"]["counters"]["probesPlaced"] > 0, "paper places probes"
    assert c["decisions"] >= len(spark_events(log, "TaskStart")) == 4


# ---- History Server -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def history_server(run):
    # As the README says to run it (start-history-server.sh runs the same class through
    # spark-class, in the background): the jar through SPARK_DAEMON_CLASSPATH.
    spark_home = os.environ["SPARK_HOME"]
    port = free_port()
    log = open(run["d"] / "history-server.log", "w")
    env = dict(os.environ)
    env["SPARK_DAEMON_CLASSPATH"] = JAR
    env["SPARK_DAEMON_MEMORY"] = "512m"
    env["SPARK_HISTORY_OPTS"] = " ".join([
        "-Dspark.history.fs.logDirectory=file://" + str(run["events"]),
        "-Dspark.history.ui.port=%d" % port,
        "-Dspark.history.fs.update.interval=1s"])
    env.pop("SPARK_CONF_DIR", None)
    cmd = [os.path.join(spark_home, "bin", "spark-class"), "org.apache.spark.deploy.history.HistoryServer"]
    p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        yield "http://127.0.0.1:%d" % port, p
    finally:
        p.terminate()
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
        log.close()


def test_history_server_rebuilds_the_tab_from_the_event_log(run, history_server):
    url, p = history_server
    app = run["appId"]

    def listed():
        assert p.poll() is None, "the History Server exited: see history-server.log"
        apps = json.loads(fetch(url + "/api/v1/applications"))
        return any(a["id"] == app for a in apps)

    wait_for("the application in the History Server", listed, timeout=120, every=1)
    html = wait_for("the Eagle tab in the History Server",
                    lambda: (lambda h: h if "eagle-jobs-table" in h else None)(
                        fetch(url + "/history/%s/eagle/" % app, timeout=60)), timeout=120, every=2)
    data = json.loads(fetch(url + "/history/%s/eagle/json" % app))
    check_tab(html, data, run)
    # the replayed tab shows the final snapshot of the event log, not a live reading
    assert data["status"]["label"] == "at stop"
    assert data["status"]["values"]["decisions"] == run["summary"]["counters"]["decisions"]
    assert {(t["stageId"], t["class"]) for t in data["taskSets"]} == {
        (t["stageId"], t["class"]) for t in run["json"]["taskSets"]}
