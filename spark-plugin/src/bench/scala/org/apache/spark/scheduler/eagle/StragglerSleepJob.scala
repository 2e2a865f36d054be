/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.apache.spark.{SparkContext, TaskContext}

/**
 * The Eirene benchmark's job (`scripts/bench eirene`, bench/eirene.py): task i sleeps
 * `durationsMs(i) x slowdowns(i)` on its first attempt and `durationsMs(i)` on any other.
 *
 * A straggler here is a property of the attempt, not of the data: Eirene's sources of
 * stragglers (§II-D: transient hardware errors, resource contention, congested links, JIT
 * warm-up of the first task) slow one copy where it happens to run, so a clone started
 * elsewhere runs at the normal speed, which is what task cloning (Dolly, Eirene's SATC)
 * relies on. Data skew, which slows every copy alike, is out of this model.
 *
 * Returns "count,indexSum" over the results Spark took: a result taken twice, or lost,
 * changes one of them (the caller checks both against the task count).
 */
object StragglerSleepJob {
  def run(sc: SparkContext, durationsMs: String, slowdowns: String): String = {
    def parse[T: scala.reflect.ClassTag](s: String, f: String => T): Array[T] =
      s.split(',').iterator.map(_.trim).filter(_.nonEmpty).map(f).toArray
    val ms = parse(durationsMs, _.toLong)
    val slow = parse(slowdowns, _.toDouble)
    require(ms.nonEmpty && ms.forall(_ >= 0), s"durations must be non-negative integers: $durationsMs")
    require(slow.length == ms.length && slow.forall(x => x >= 1 && !x.isInfinite),
      s"one slowdown >= 1 per task expected: $slowdowns")
    val tasks = ms.indices.map(i => (i, ms(i), slow(i)))
    val (n, sum) = sc.parallelize(tasks, tasks.length).map { case (i, d, f) =>
      val first = Option(TaskContext.get()).forall(_.attemptNumber() == 0)
      Thread.sleep(if (first) math.round(d * f) else d)
      (1L, i.toLong)
    }.reduce((a, b) => (a._1 + b._1, a._2 + b._2))
    s"$n,$sum"
  }
}
