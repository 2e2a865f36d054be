/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.apache.spark.{SparkContext, TaskContext}
import org.apache.spark.rdd.RDD
import org.apache.spark.storage.StorageLevel

/**
 * The Eirene benchmark's job with cold input (`scripts/bench eirene`, bench/eirene.py): a
 * dataset of `partitions` blocks of `mb` MiB each is cached in the executors' memory once
 * ([[prepare]]); each short job's task i reads block `parts(i)` and then sleeps like
 * [[StragglerSleepJob]] (`durationsMs(i) x slowdowns(i)` on its first attempt).
 *
 * A block is in the memory of one executor. A task that runs anywhere else reads it over the
 * testbed's shaped links (the block manager's remote read): that is the cold read, on a
 * store reached over the network, which Eirene's CCDM hides by copying the block into the
 * memory of the executor where the task will run while the task waits for its slot.
 *
 * Returns "count,indexSum,bytes" over the results Spark took: a result taken twice or lost,
 * or a block read short, changes one of them.
 */
object ColdInputJob {
  @volatile private var data: RDD[Array[Byte]] = _

  /** Caches the dataset (`partitions` blocks of `mb` MiB) and returns the cached block count. */
  def prepare(sc: SparkContext, partitions: Int, mb: Int): Long = {
    require(partitions > 0 && mb > 0, s"partitions and mb must be > 0: $partitions, $mb")
    val size = mb << 20
    val rdd = sc.parallelize(0 until partitions, partitions)
      .map { p =>
        // Random bytes: Spark compresses blocks on the wire, and a constant block would
        // cross the shaped links as a few kilobytes.
        val a = new Array[Byte](size)
        new java.util.Random(p.toLong).nextBytes(a)
        a
      }
      .persist(StorageLevel.MEMORY_ONLY)
    rdd.setName("eirene cold input")
    val n = rdd.count()
    data = rdd
    n
  }

  def run(sc: SparkContext, parts: String, durationsMs: String, slowdowns: String): String = {
    val d = data
    require(d != null, "ColdInputJob.prepare was not called")
    def parse[T: scala.reflect.ClassTag](s: String, f: String => T): Array[T] =
      s.split(',').iterator.map(_.trim).filter(_.nonEmpty).map(f).toArray
    val ps = parse(parts, _.toInt)
    val ms = parse(durationsMs, _.toLong)
    val slow = parse(slowdowns, _.toDouble)
    require(ps.nonEmpty && ps.length == ms.length && ps.length == slow.length,
      s"one partition, duration and slowdown per task expected: $parts / $durationsMs / $slowdowns")
    require(ps.forall(p => p >= 0 && p < d.getNumPartitions) && ps.distinct.length == ps.length,
      s"distinct partitions in [0, ${d.getNumPartitions}) expected: $parts")
    val byPart = ps.indices.map(i => ps(i) -> (i, ms(i), slow(i))).toMap
    val rdd = d.mapPartitionsWithIndex { (p, it) =>
      val bytes = it.map(_.length.toLong).sum
      val (i, dur, f) = byPart(p)
      val first = Option(TaskContext.get()).forall(_.attemptNumber() == 0)
      Thread.sleep(if (first) math.round(dur * f) else dur)
      Iterator((1L, i.toLong, bytes))
    }
    val out = sc.runJob(rdd, (it: Iterator[(Long, Long, Long)]) => it.next(), ps.toSeq)
    s"${out.map(_._1).sum},${out.map(_._2).sum},${out.map(_._3).sum}"
  }
}
