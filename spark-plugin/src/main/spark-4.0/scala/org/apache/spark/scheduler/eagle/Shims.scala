/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

/**
 * The `private[spark]` scheduler API where Spark 4.0, 4.1 and 4.2 differ from the common
 * source: resources assigned to a task are amounts per address; cpus are whole numbers.
 */
private[eagle] object Shims {
  /** Resources assigned to one task, as `TaskSetManager.resourceOffer` takes them. */
  type TaskResources = Map[String, Map[String, Long]]

  /** Cores of an offer, of a task (`WorkerOffer.cores`, `CPUS_PER_TASK`, `TaskDescription.cpus`). */
  type Cpus = Int
  val NoCpus: Cpus = 0

  /** Tasks of `perTask` cpus that fit in `cores`. */
  def fits(cores: Cpus, perTask: Cpus): Int = cores / perTask

  /** Slots of `perTask` cpus one task of `cpus` takes (at least 1). */
  def width(cpus: Cpus, perTask: Cpus): Int = math.max(1, (cpus + perTask - 1) / perTask)

  /** The servlet request of the Spark UI's pages (Jakarta servlet API in this line). */
  type HttpServletRequest = jakarta.servlet.http.HttpServletRequest
}
