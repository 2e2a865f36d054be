"""The applications tests/test_cluster_mode.py runs side by side under cluster mode, each with
spark-submit in a JVM of its own (one SparkContext per process):

    spark-submit --master spark-eagle:spark://... cluster_app.py SPEC.json

SPEC: {"name", "out", "executors" (to wait for; 1), "go" (optional: a file to wait for before the first job),
"hold" (optional: a file to wait for after the last job, before the application stops), "jobs":
[{"class": "short"|"long", "ms": task ms, "tasks": n, "cpus": cores per task (optional, 1; more is a
TaskResourceProfile), "barrier": a barrier stage (optional, false), "fail_first": every task's first
attempt raises (optional, false), "straggle_ms": partition 0's first attempt sleeps this long instead
(optional), "cancel_after_s": the job is cancelled (its job group, interrupting its tasks) this long
after it starts (optional), "idle_first": before the job, wait (up to 120 s) until the application has no
executor, as dynamic allocation leaves it when idle (optional), "shuffle": the job is two stages, its tasks
shuffled by key to as many reduce tasks, which sleep the ms too and whose rows are the result
(optional), "cached": the job's partitions are cached first, by a job of their own (not reported,
its hint "cache_ms" if given, else the ms, and its class "cache_class" if given, else the job's),
so that its tasks prefer the executors holding their blocks (optional), "marks": a directory where every task, as it starts, creates a file named
STAGE-PARTITION-ATTEMPT-HOST (optional), "gate": with "shuffle", the reduce tasks wait (up to
120 s) for this file to exist before they sleep (optional), "stream": instead of the sleeping
tasks, a Structured Streaming query (a rate source aggregated by `value % tasks` in complete mode
into the memory sink, trigger every 300 ms, no class or estimate hint: the learned split
classes its stages) runs until this many micro-batches have ended; its rows are one per key,
(key, 0, 0, null) (optional), "hint_ms": the estimate hint given instead of the ms (optional: an estimate
far off the tasks' real length)}]}. The jobs run one after the other;
every task sleeps its ms and reports (partition, start, end, executor host). After each job
the output file is rewritten: {"name", "app" (the application id), "started", "jobs": [{"submitted",
"done", "rows"}]}; a cancelled job has "rows" null and "cancelled" true.
"""
import json
import os
import sys
import time

from pyspark.sql import SparkSession


def sleeper(seconds, fail_first=False, straggle_s=None, mark=None, gate=None):
    def f(it):
        import os as _os
        import time as _t

        from pyspark import TaskContext

        ctx = TaskContext.get()
        if mark:
            name = f"{ctx.stageId()}-{ctx.partitionId()}-{ctx.attemptNumber()}-{_os.environ.get('SPARK_LOCAL_IP')}"
            open(_os.path.join(mark, name), "w").close()
        if gate:
            by = _t.time() + 120
            while not _os.path.exists(gate) and _t.time() < by:
                _t.sleep(0.1)
        s = _t.time()
        first = ctx.attemptNumber() == 0
        if fail_first and first:
            raise RuntimeError(f"partition {ctx.partitionId()}: first attempt fails on purpose")
        _t.sleep(straggle_s if straggle_s is not None and first and ctx.partitionId() == 0 else seconds)
        return [(x, s, _t.time(), _os.environ.get("SPARK_LOCAL_IP")) for x in it]

    return f


def write(path, out):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f)
    os.replace(tmp, path)


def cancelled(sc, rdd, after_s):
    """Runs the job in a job group of its own and cancels the group `after_s` seconds after it
    starts; None once the job has failed with the cancellation, its rows if it ended first."""
    from pyspark import InheritableThread  # keeps the job's class and estimate properties

    group = "cancel-me"
    result = {}

    def run():
        sc.setJobGroup(group, "cancelled on purpose", interruptOnCancel=True)
        try:
            result["rows"] = rdd.collect()
        except Exception as e:  # the cancellation, as Spark reports it to the caller
            result["error"] = str(e)

    t = InheritableThread(target=run)
    t.start()
    t.join(after_s)
    sc.cancelJobGroup(group)
    t.join()
    if "rows" in result:
        return result["rows"]
    assert "cancel" in result["error"].lower(), result["error"]
    return None


def stream(spark, keys, batches):
    """Runs the streaming query of a "stream" job until `batches` micro-batches have ended."""
    sc = spark.sparkContext
    sc.setLocalProperty("spark.scheduler.eagle.job.class", None)
    sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", None)
    df = (spark.readStream.format("rate").option("rowsPerSecond", 50).option("numPartitions", 2).load()
          .selectExpr(f"value % {keys} AS k").groupBy("k").count())
    q = (df.writeStream.outputMode("complete").format("memory").queryName("counts")
         .trigger(processingTime="300 milliseconds").start())
    try:
        by = time.time() + 240
        while len(q.recentProgress) < batches and time.time() < by:
            if q.exception() is not None:
                raise RuntimeError(str(q.exception()))
            time.sleep(0.2)
        if len(q.recentProgress) < batches:
            raise RuntimeError(f"{len(q.recentProgress)} of {batches} micro-batches in 240 s")
    finally:
        q.stop()
    return [[r["k"], 0, 0, None] for r in spark.sql("SELECT k FROM counts").collect()]


def main(spec_path):
    with open(spec_path) as f:
        spec = json.load(f)
    spark = SparkSession.builder.appName(spec["name"]).getOrCreate()
    sc = spark.sparkContext
    deadline = time.time() + 180
    while sc._jsc.sc().getExecutorMemoryStatus().size() < 1 + spec.get("executors", 1) and time.time() < deadline:
        time.sleep(0.2)  # the driver plus the executors
    out = {"name": spec["name"], "app": sc.applicationId, "started": time.time(), "jobs": []}
    write(spec["out"], out)
    if spec.get("go"):
        while not os.path.exists(spec["go"]) and time.time() < deadline + 180:
            time.sleep(0.1)
    for j in spec["jobs"]:
        if j.get("idle_first"):
            idle_by = time.time() + 120
            while sc._jsc.sc().getExecutorMemoryStatus().size() > 1 and time.time() < idle_by:
                time.sleep(0.2)  # only the driver's block manager left
        if j.get("stream"):
            t0 = time.time()
            rows = stream(spark, j["tasks"], j["stream"])
            out["jobs"].append({"submitted": t0, "done": time.time(), "rows": rows, "cancelled": False})
            write(spec["out"], out)
            continue
        sc.setLocalProperty("spark.scheduler.eagle.job.class", j["class"])
        sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(j.get("hint_ms", j["ms"])))
        t0 = time.time()
        rdd = sc.parallelize(range(j["tasks"]), j["tasks"])
        if j.get("cached"):
            rdd = rdd.map(lambda x: x).cache()
            sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(j.get("cache_ms", j["ms"])))
            sc.setLocalProperty("spark.scheduler.eagle.job.class", j.get("cache_class", j["class"]))
            rdd.count()  # every block cached on the executor that computed it
            sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(j.get("hint_ms", j["ms"])))
            sc.setLocalProperty("spark.scheduler.eagle.job.class", j["class"])
            t0 = time.time()
        if j.get("cpus", 1) > 1:
            from pyspark.resource import ResourceProfileBuilder, TaskResourceRequests
            rdd = rdd.withResources(ResourceProfileBuilder().require(TaskResourceRequests().cpus(j["cpus"])).build)
        if j.get("barrier"):
            rdd = rdd.barrier()  # Spark launches all its tasks at once or none
        straggle = j["straggle_ms"] / 1000.0 if "straggle_ms" in j else None
        job = rdd.mapPartitions(sleeper(j["ms"] / 1000.0, j.get("fail_first", False), straggle, j.get("marks")))
        if j.get("shuffle"):
            n = j["tasks"]
            pairs = job.map(lambda r: (r[0] % n, r[0])).groupByKey(n).map(lambda kv: kv[0])
            # rows: (key, start, end, host)
            job = pairs.mapPartitions(sleeper(j["ms"] / 1000.0, mark=j.get("marks"), gate=j.get("gate")))
        if "cancel_after_s" in j:
            rows = cancelled(sc, job, j["cancel_after_s"])
        else:
            rows = job.collect()
        out["jobs"].append({"submitted": t0, "done": time.time(), "rows": rows, "cancelled": rows is None})
        write(spec["out"], out)
    if spec.get("hold"):
        while not os.path.exists(spec["hold"]) and time.time() < deadline + 600:
            time.sleep(0.1)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
