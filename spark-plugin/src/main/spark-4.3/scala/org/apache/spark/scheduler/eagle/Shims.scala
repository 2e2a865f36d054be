/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

/**
 * The `private[spark]` scheduler API where Spark 4.3 differs from the common source: cpus
 * are fractional (SPARK-58192: `WorkerOffer.cores`, `CPUS_PER_TASK`, task cpus are `BigDecimal`s);
 * resources assigned to a task are amounts per address, as in 4.0.
 */
private[eagle] object Shims {
  /** Resources assigned to one task, as `TaskSetManager.resourceOffer` takes them. */
  type TaskResources = Map[String, Map[String, Long]]

  /** Cores of an offer, of a task (`WorkerOffer.cores`, `CPUS_PER_TASK`, `TaskDescription.cpus`). */
  type Cpus = BigDecimal
  val NoCpus: Cpus = BigDecimal(0)

  /** Tasks of `perTask` cpus that fit in `cores`: exact floor division, as Spark's slot math. */
  def fits(cores: Cpus, perTask: Cpus): Int = (cores quot perTask).toInt

  /** Slots of `perTask` cpus one task of `cpus` takes (at least 1): exact ceiling division. */
  def width(cpus: Cpus, perTask: Cpus): Int = {
    val q = cpus quot perTask
    math.max(1, (if (q * perTask < cpus) q + 1 else q).toInt)
  }

  /** The servlet request of the Spark UI's pages (Jakarta servlet API in this line). */
  type HttpServletRequest = jakarta.servlet.http.HttpServletRequest
}
