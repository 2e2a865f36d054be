"""The applications tests/test_cluster_mode.py runs side by side under cluster mode, each with
spark-submit in a JVM of its own (one SparkContext per process):

    spark-submit --master spark-eagle:spark://... cluster_app.py SPEC.json

SPEC: {"name", "out", "executors" (to wait for; 1), "go" (optional: a file to wait for before the first job), "jobs":
[{"class": "short"|"long", "ms": task ms, "tasks": n, "cpus": cores per task (optional, 1; more is a
TaskResourceProfile), "barrier": a barrier stage (optional, false)}]}. The jobs run one after the other;
every task sleeps its ms and reports (partition, start, end, executor host). After each job
the output file is rewritten: {"name", "app" (the application id), "started", "jobs": [{"submitted",
"done", "rows"}]}.
"""
import json
import os
import sys
import time

from pyspark.sql import SparkSession


def sleeper(seconds):
    def f(it):
        import os as _os
        import time as _t

        s = _t.time()
        _t.sleep(seconds)
        return [(x, s, _t.time(), _os.environ.get("SPARK_LOCAL_IP")) for x in it]

    return f


def write(path, out):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f)
    os.replace(tmp, path)


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
        sc.setLocalProperty("spark.scheduler.eagle.job.class", j["class"])
        sc.setLocalProperty("spark.scheduler.eagle.job.estimatedTaskMs", str(j["ms"]))
        t0 = time.time()
        rdd = sc.parallelize(range(j["tasks"]), j["tasks"])
        if j.get("cpus", 1) > 1:
            from pyspark.resource import ResourceProfileBuilder, TaskResourceRequests
            rdd = rdd.withResources(ResourceProfileBuilder().require(TaskResourceRequests().cpus(j["cpus"])).build)
        if j.get("barrier"):
            rdd = rdd.barrier()  # Spark launches all its tasks at once or none
        rows = rdd.mapPartitions(sleeper(j["ms"] / 1000.0)).collect()
        out["jobs"].append({"submitted": t0, "done": time.time(), "rows": rows})
        write(spec["out"], out)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1])
