/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.json4s.JsonAST.{JInt, JObject}
import org.json4s.jackson.JsonMethods.{compact, render}

import org.apache.spark.SparkContext

/**
 * The Eagle scheduler's counters now, for the cluster bench (bench/driver.py reads them after
 * each plan, so `scripts/bench cluster` reports a plan's grants and hand-backs rather than the
 * whole run's): the reading behind the `eagle` metrics source, taken fresh, as a JSON object
 * of name to value (`cluster.*` under cluster mode). `{}` when the application does not run
 * under `spark-eagle:` or its observer cannot read the engine.
 */
object EagleCounters {
  def read(sc: SparkContext): String = sc.taskScheduler match {
    case s: EagleTaskScheduler =>
      val st = s.observer.status(maxAgeMs = 0)
      compact(render(JObject(st.names.toList.zip(st.values.toList).map { case (k, v) => k -> JInt(BigInt(v)) })))
    case _ => "{}"
  }
}
