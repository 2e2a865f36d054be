"""spark-eagle:<inner> served by an external cluster manager (YARN, Kubernetes, a third party).

No YARN or Kubernetes cluster is reachable here, so the delegation runs against a stub
external cluster manager from the test-only jar (build/libs/eagle-spark-tests-<version>.jar,
spark-plugin/src/test): its `stub://N` master is a LocalSchedulerBackend with N task threads,
`stub://cluster[W,C,M]` a local standalone cluster with real executor JVMs. Like YARN's, its
manager builds its own scheduler subclass with its own racks, start hook and maxTaskFailures,
and its backend takes whatever scheduler it is handed.

Each case runs tests/inner_master_app.py with spark-submit (a JVM of its own, so that the
stub manager is on the driver class path from the start, as --driver-class-path puts a
cluster manager there), with the plugin's master as spark-submit's --master.
In the shared test JVM (the Spark distribution's own YARN and Kubernetes managers, no stub):
which manager claims `yarn` and `k8s://...`, and the error for an unclaimed inner master.
"""
import glob
import json
import os
import subprocess
import sys

import pytest

from conftest import JAR, ROOT, builder, spark

EAGLE = "org.apache.spark.scheduler.eagle.EagleTaskScheduler"
STUB = "org.apache.spark.scheduler.eagletest.StubClusterManager"
RIVAL = "org.apache.spark.scheduler.eagletest.StubRivalManager"
YARN = "org.apache.spark.scheduler.cluster.YarnClusterManager"
K8S = "org.apache.spark.scheduler.cluster.k8s.KubernetesClusterManager"


def stub_jar():
    jars = sorted(glob.glob(os.path.join(ROOT, "build/libs/eagle-spark-tests-*.jar")), key=os.path.getmtime)
    if not jars:
        pytest.fail("build/libs/eagle-spark-tests-*.jar is missing: run scripts/build.sh (gradle testJar)")
    return jars[-1]


def submit(tmp_path, master, error_masters=(), conf=None, timeout=600):
    """spark-submit tests/inner_master_app.py under `master`; returns (app output, summary)."""
    out = tmp_path / "out.json"
    summary = tmp_path / "summary.json"
    spark_home = os.environ["SPARK_HOME"]
    cmd = [
        os.path.join(spark_home, "bin", "spark-submit"),
        "--master", master,
        "--driver-class-path", JAR + os.pathsep + stub_jar(),
        "--driver-memory", "1g",
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.ui.showConsoleProgress=false",
        "--conf", "spark.executor.memory=768m",
        "--conf", "spark.scheduler.eagle.summary.path=%s" % summary,
    ]
    for k, v in (conf or {}).items():
        cmd += ["--conf", "%s=%s" % (k, v)]
    cmd += [os.path.join(ROOT, "tests", "inner_master_app.py"), str(out)] + list(error_masters)
    env = dict(os.environ, PYSPARK_PYTHON=sys.executable, PYSPARK_DRIVER_PYTHON=sys.executable)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=timeout)
    assert p.returncode == 0, p.stdout[-6000:]
    with open(out) as f:
        result = json.load(f)
    return result, result["summary"]


def expected_sum():
    return sum(x * 3 for x in range(20000))


def expected_reduce():
    acc = {}
    for x in range(20000):
        acc[x % 17] = acc.get(x % 17, 0) + x
    return sorted([k, v] for k, v in acc.items())


YARN_MASTER = "spark-eagle:yarn"
K8S_MASTER = "spark-eagle:k8s://https://127.0.0.1:1"
ERRORS = [
    "spark-eagle:nosuch://x",
    "spark-eagle:dup://2",
    "spark-eagle:strict://2",
    "spark-eagle:spark-eagle:local[2]",
    YARN_MASTER,
    K8S_MASTER,
]
# No cluster listens: YARN's client and Kubernetes' fail fast at their first call.
UNREACHABLE = {
    "spark.hadoop.yarn.resourcemanager.address": "127.0.0.1:1",
    "spark.hadoop.yarn.resourcemanager.connect.max-wait.ms": "3000",
    "spark.hadoop.yarn.resourcemanager.connect.retry-interval.ms": "1000",
    "spark.hadoop.ipc.client.connect.max.retries": "0",
    "spark.kubernetes.container.image": "none",
}


@pytest.fixture(scope="module")
def stub_threads(tmp_path_factory):
    return submit(tmp_path_factory.mktemp("stub_threads"), "spark-eagle:stub://4", ERRORS,
                  conf=UNREACHABLE)


def check_delegated_run(r, summary, master, inner, backend):
    assert r["master"] == master
    # the Eagle scheduler stands in the stub manager's own scheduler ...
    assert r["scheduler"] == EAGLE
    # ... and the stub manager built its backend around it and initialized it with it
    ev = r["eventsBeforeStop"]
    assert ev[:3] == [
        "createTaskScheduler " + inner,
        "createSchedulerBackend %s %s" % (inner, EAGLE),
        "initialize %s %s" % (EAGLE, backend),
    ], ev
    # the stub scheduler's start hook ran (YARN cluster mode's tells its ApplicationMaster)
    assert ev.count("postStartHook") == 1, ev
    # its own scheduler was stopped with the application (timers, thread pools), once
    assert "stop" not in ev and r["eventsAfterStop"].count("stop") == 1, r["eventsAfterStop"]
    # results are exact
    assert r["sum"] == expected_sum()
    assert r["reduceByKey"] == expected_reduce()
    # the stub scheduler's racks are ours: its resolver was asked, and hosts sit on its rack
    assert r["rackCalls"] > 0 and r["stubRackAlive"] is True
    # its maxTaskFailures (7) is ours: 5 failed attempts of one task, then success (the
    # default of 4 attempts would have failed the job)
    assert r["maxTaskFailures"] == 7
    assert r["stubborn"] == sum(range(1000))
    # the engine made the decisions
    assert summary["master"] == master
    assert summary["fallback"] is False, summary["fallbackReason"]
    assert summary["counters"]["decisions"] > 0
    assert summary["taskSets"] and all(t["eagleJob"] >= 0 for t in summary["taskSets"])
    tasks = sum(t["tasks"] for t in summary["taskSets"])
    assert summary["counters"]["decisions"] >= tasks


def test_stub_threads_job_runs_under_eagle(stub_threads):
    r, summary = stub_threads
    check_delegated_run(r, summary, "spark-eagle:stub://4", "stub://4",
                        "org.apache.spark.scheduler.local.LocalSchedulerBackend")


def test_unclaimed_inner_master_names_url_and_candidates(stub_threads):
    msg = stub_threads[0]["errors"]["spark-eagle:nosuch://x"]
    assert msg is not None
    assert "no cluster manager claims the inner master 'nosuch://x'" in msg, msg
    assert "spark-eagle:nosuch://x" in msg
    # the candidates: the stub jar's managers and the distribution's YARN and K8s managers,
    # not Eagle's own
    for name in (STUB, RIVAL, YARN, K8S):
        assert name in msg, (name, msg)
    assert "external cluster managers on the driver's class path: " in msg
    assert "EagleClusterManager" not in msg.split("class path: ")[1].split("\n")[0]


def test_several_claimants_are_named(stub_threads):
    msg = stub_threads[0]["errors"]["spark-eagle:dup://2"]
    assert msg is not None
    assert "several cluster managers claim the inner master 'dup://2'" in msg, msg
    assert STUB in msg and RIVAL in msg


def test_backend_that_needs_its_own_scheduler_is_explained(stub_threads):
    msg = stub_threads[0]["errors"]["spark-eagle:strict://2"]
    assert msg is not None
    assert "requires that manager's own task scheduler class" in msg, msg
    assert "org.apache.spark.scheduler.eagletest.StubTaskScheduler" in msg


def test_nested_eagle_master_is_refused(stub_threads):
    msg = stub_threads[0]["errors"]["spark-eagle:spark-eagle:local[2]"]
    assert msg is not None and "cannot be nested" in msg, msg


def test_no_summary_from_a_backend_that_could_not_be_built(stub_threads):
    # the strict:// failure happens before SparkContext holds the scheduler: it is discarded
    # without a summary (and without overwriting the application's)
    assert stub_threads[0]["errorSummaries"]["spark-eagle:strict://2"] is None


@pytest.mark.parametrize("master,backend", [
    (YARN_MASTER, "org.apache.spark.scheduler.cluster.YarnClientSchedulerBackend.start"),
    (K8S_MASTER, "org.apache.spark.scheduler.cluster.k8s.KubernetesClusterSchedulerBackend.start"),
])
def test_real_yarn_and_k8s_backends_start_under_eagle(stub_threads, master, backend):
    # Spark's own YARN and Kubernetes managers build and start their backends around the Eagle
    # scheduler; with no cluster listening the start fails at the first connection.
    r = stub_threads[0]
    msg = r["errors"][master]
    assert msg is not None and backend in msg and "Connection refused" in msg, msg
    # the Eagle scheduler ran in front of that backend and was stopped with the context
    summary = r["errorSummaries"][master]
    assert summary is not None and summary["master"] == master


@pytest.mark.full
def test_stub_cluster_real_executors(tmp_path):
    # Real executor JVMs under the stub manager's standalone backend: a non-local scheduler
    # whose offers come from executors on 127.0.0.1 / this host, racks still the stub's.
    r, summary = submit(tmp_path, "spark-eagle:stub://cluster[2,1,1024]",
                        conf={"spark.executor.cores": "1"})
    check_delegated_run(r, summary, "spark-eagle:stub://cluster[2,1,1024]", "stub://cluster[2,1,1024]",
                        "org.apache.spark.scheduler.cluster.StandaloneSchedulerBackend")


# ---- the distribution's own managers, in the shared test JVM ----------------------------

def claimant_of(inner):
    with spark("spark-eagle:local[1]") as (s, _):
        m = s.sparkContext._jvm.org.apache.spark.scheduler.eagle.InnerMaster.claimant(
            "spark-eagle:" + inner, inner)
        return m.getClass().getName()


def test_yarn_and_k8s_are_claimed_by_their_managers():
    assert claimant_of("yarn") == YARN
    assert claimant_of("k8s://https://127.0.0.1:6443") == K8S


def test_unclaimed_inner_master_in_shared_jvm():
    with pytest.raises(Exception) as info:
        builder("spark-eagle:mesos://host:5050").getOrCreate().stop()
    msg = str(info.value)
    assert "no cluster manager claims the inner master 'mesos://host:5050'" in msg, msg
    assert YARN in msg and K8S in msg
    assert "local-cluster[workers,cores,memoryMb]" in msg


def test_stage_level_profiles_follow_the_inner_master():
    # Spark allows a task-only resource profile without dynamic allocation on YARN,
    # Kubernetes and standalone only, judging by spark.master. Under spark-eagle:local[1]
    # Spark refuses it; once the plugin has told Spark that the inner master is `yarn` (what
    # createTaskScheduler does for spark-eagle:yarn), Spark accepts it.
    from pyspark.resource import ResourceProfileBuilder, TaskResourceRequests

    with spark("spark-eagle:local[1]") as (s, _):
        sc = s.sparkContext
        jsc = sc._jsc.sc()
        rp = ResourceProfileBuilder().require(TaskResourceRequests().cpus(1)).build
        jrp = rp._java_resource_profile
        assert jrp.getClass().getSimpleName() == "TaskResourceProfile"
        rpm = jsc.resourceProfileManager()
        with pytest.raises(Exception) as info:
            rpm.isSupported(jrp)
        assert "TaskResourceProfiles are only supported for Standalone, Yarn and Kubernetes" in str(info.value)
        sc._jvm.org.apache.spark.scheduler.eagle.InnerMaster.useInnerMasterProfiles(jsc, "yarn")
        assert rpm.isSupported(jrp) is True
