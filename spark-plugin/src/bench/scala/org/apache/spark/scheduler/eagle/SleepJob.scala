/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.apache.spark.SparkContext

/**
 * The trace replay's job (`scripts/bench replay`, bench/driver.py): one task per entry of
 * `durationsMs` (comma-separated milliseconds), task i sleeping for entry i. Built here, on
 * the JVM, rather than as a PySpark DataFrame so that a job costs the scheduler and nothing
 * else: a SQL plan per job made every replay task pay for class generation and a plan-sized
 * closure (a 13 ms trace task took ~0.45 s launch to finish on the testbed), which turned
 * the trace's nominal load into an overload under every scheduler alike.
 *
 * Called through py4j from the submitting thread, so that thread's local properties
 * (pool, `spark.scheduler.eagle.job.*`) apply. Returns the number of tasks that ran.
 */
object SleepJob {
  def run(sc: SparkContext, durationsMs: String): Long = {
    val ms = durationsMs.split(',').iterator.map(_.trim).filter(_.nonEmpty).map(_.toLong).toArray
    require(ms.nonEmpty && ms.forall(_ >= 0), s"durations must be non-negative integers: $durationsMs")
    sc.parallelize(ms.toIndexedSeq, ms.length).map { d => Thread.sleep(d); 1L }.reduce(_ + _)
  }
}
