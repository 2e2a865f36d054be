"""The application tests/test_inner_master.py runs with spark-submit, in a JVM of its own whose
driver class path holds the plugin jar and the test-only stub cluster manager
(build/libs/eagle-spark-tests-<version>.jar).

    spark-submit --master 'spark-eagle:stub://4' ... inner_master_app.py OUT.json [error masters...]

It runs real jobs under the master spark-submit gave it, records what the driver saw (the
scheduler class, its racks and task attempts, the stub manager's calls) and, after the stop,
the Eagle summary. Then it tries to start each of the error masters and records the error and
the summary that start left (an Eagle scheduler that was created and stopped writes one).
Everything goes to OUT.json.
"""
import json
import os
import sys

from pyspark.sql import SparkSession

FAILS_BEFORE_SUCCESS = 5  # more than the default spark.task.maxFailures (4), less than the stub's 7


def stubborn(it):
    """Partition 1 fails its first FAILS_BEFORE_SUCCESS attempts."""
    from pyspark import TaskContext

    tc = TaskContext.get()
    if tc.partitionId() == 1 and tc.attemptNumber() < FAILS_BEFORE_SUCCESS:
        raise RuntimeError("stubborn task: attempt %d fails on purpose" % tc.attemptNumber())
    return it


def read_summary(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def main(out_path, error_masters):
    out = {}
    spark = SparkSession.builder.appName("eagle-inner-master").getOrCreate()
    sc = spark.sparkContext
    jvm = sc._jvm
    stub = jvm.org.apache.spark.scheduler.eagletest.StubClusterManager
    ts = sc._jsc.sc().taskScheduler()
    out["master"] = sc.master
    out["scheduler"] = ts.getClass().getName()
    out["maxTaskFailures"] = ts.maxTaskFailures()
    out["executorsAtStart"] = sc._jsc.sc().getExecutorMemoryStatus().size()

    nums = sc.parallelize(range(20000), 8)
    out["sum"] = nums.map(lambda x: x * 3).sum()
    out["reduceByKey"] = sorted(nums.map(lambda x: (x % 17, x)).reduceByKey(lambda a, b: a + b).collect())
    out["stubborn"] = sc.parallelize(range(1000), 4).mapPartitions(stubborn).sum()

    out["stubRackAlive"] = ts.hasHostAliveOnRack("/stub-rack")
    out["rackCalls"] = stub.rackCallCount()
    out["eventsBeforeStop"] = list(stub.events())
    summary_path = sc.getConf().get("spark.scheduler.eagle.summary.path")
    spark.stop()
    out["eventsAfterStop"] = list(stub.events())
    out["summary"] = read_summary(summary_path)

    errors, summaries = {}, {}
    for m in error_masters:
        if os.path.exists(summary_path):
            os.remove(summary_path)
        try:
            s = SparkSession.builder.master(m).getOrCreate()
            s.stop()
            errors[m] = None
        except Exception as e:  # the Py4JJavaError text holds the Java exception's message
            errors[m] = str(e)
        summaries[m] = read_summary(summary_path)
    out["errors"] = errors
    out["errorSummaries"] = summaries
    out["eventsAtEnd"] = list(stub.events())
    with open(out_path, "w") as f:
        json.dump(out, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
