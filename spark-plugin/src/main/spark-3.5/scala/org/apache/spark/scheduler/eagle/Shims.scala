/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.apache.spark.resource.ResourceInformation

/**
 * The `private[spark]` scheduler API where Spark 3.5 (Scala 2.12) differs from the common
 * source: resources assigned to a task are `ResourceInformation`s; cpus are whole numbers.
 */
private[eagle] object Shims {
  /** Resources assigned to one task, as `TaskSetManager.resourceOffer` takes them. */
  type TaskResources = Map[String, ResourceInformation]

  /** Cores of an offer, of a task (`WorkerOffer.cores`, `CPUS_PER_TASK`, `TaskDescription.cpus`). */
  type Cpus = Int
  val NoCpus: Cpus = 0

  /** Tasks of `perTask` cpus that fit in `cores`. */
  def fits(cores: Cpus, perTask: Cpus): Int = cores / perTask

  /** Slots of `perTask` cpus one task of `cpus` takes (at least 1). */
  def width(cpus: Cpus, perTask: Cpus): Int = math.max(1, (cpus + perTask - 1) / perTask)

  /** The servlet request of the Spark UI's pages (javax servlet API in this line). */
  type HttpServletRequest = javax.servlet.http.HttpServletRequest
}
