"""Deterministic workloads whose results must not depend on the scheduler."""
from pyspark import StorageLevel
from pyspark.sql import functions as F


def run_all(spark):
    sc = spark.sparkContext
    out = {}
    nums = sc.parallelize(range(20000), 4)
    # shuffle
    out["reduceByKey"] = sorted(nums.map(lambda x: (x % 97, x)).reduceByKey(lambda a, b: a + b).collect())
    # join (two shuffles into a third stage)
    left = nums.map(lambda x: (x % 500, 1))
    right = sc.parallelize([(k, k * k) for k in range(0, 500, 3)], 4)
    joined = left.join(right)
    out["join"] = sorted(joined.map(lambda kv: (kv[0], kv[1][1])).reduceByKey(lambda a, b: a + b).collect())
    # caching: the second and third jobs read the cached blocks
    cached = nums.map(lambda x: (x * 7) % 1013).persist(StorageLevel.MEMORY_ONLY)
    out["cache"] = [cached.count(), cached.sum(), cached.distinct().count(), cached.max()]
    cached.unpersist()
    # DataFrames: aggregation and join through Spark SQL
    df = spark.range(0, 50000, 1, 4).withColumn("k", F.col("id") % 13)
    agg = df.groupBy("k").agg(F.sum("id").alias("s"), F.count("*").alias("n")).orderBy("k")
    out["df_agg"] = [tuple(r) for r in agg.collect()]
    dim = spark.createDataFrame([(i, f"name{i}") for i in range(13)], ["k", "name"])
    j = df.join(dim, "k").groupBy("name").agg(F.max("id").alias("m")).orderBy("name")
    out["df_join"] = [tuple(r) for r in j.collect()]
    return out


def flaky_job(sc):
    """Partition 1 throws on its first attempt; the job must still succeed (sum 0..999)."""

    def flaky(it):
        from pyspark import TaskContext

        tc = TaskContext.get()
        if tc.partitionId() == 1 and tc.attemptNumber() == 0:
            raise RuntimeError("flaky task: first attempt fails on purpose")
        return it

    return sc.parallelize(range(1000), 4).mapPartitions(flaky).sum()


def history_job(sc):
    """A stage with a stable signature (same call site, same partitions) for the history test."""
    return sc.parallelize(range(400), 4).map(lambda x: x + 1).sum()
