/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import scala.collection.mutable
import scala.util.Try

import org.apache.spark.resource.ResourceProfile
import org.apache.spark.scheduler.{TaskSet, WorkerOffer}

/**
 * `spark.scheduler.eagle.placement=lotes`: describes executors and task sets to the engine's
 * LoTES placement (`rust/eagle-core/src/hetero/lotes/executors.rs`) and asks it, per offer, which
 * task sets to keep off that executor. No policy here: the engine plans (configurations,
 * classes, bins, re-planning when executors come or go) and decides.
 *
 * Resource vectors are `[cores, memoryMiB, custom…]`; custom resources take the next index
 * the first time any executor or task set names them (the engine reads a shorter vector as
 * zero of the rest). Memory is the executor's (its resource profile's, else
 * `spark.executor.memory`); Spark does not hand memory out per task, so tasks ask 0 of it
 * and an offer's free memory is the executor's. A custom resource's amount is its number of
 * addresses (on an offer: those with something left), a task's its request amount.
 *
 * Called under the scheduler lock (the callers in [[EagleTaskScheduler]] hold it).
 */
private[eagle] class LotesPlacement(sched: EagleTaskScheduler) {
  private val customNames = new mutable.ArrayBuffer[String]

  private def index(name: String): Int = {
    val i = customNames.indexOf(name)
    if (i >= 0) i + 2 else { customNames += name; customNames.size + 1 }
  }

  private def vector(cores: Double, memoryMiB: Double, custom: Iterable[(String, Double)]): Array[Double] = {
    val idx = custom.map { case (n, a) => index(n) -> a }.toSeq
    val v = Array.fill(2 + customNames.size)(0.0)
    v(0) = cores
    v(1) = memoryMiB
    idx.foreach { case (i, a) => v(i) = a }
    v
  }

  /** `Int` cpus (Spark 3.5, 4.0) or `BigDecimal` cpus (4.3) as a double. */
  private def number(x: Any): Double = x match {
    case b: BigDecimal => b.toDouble
    case b: java.math.BigDecimal => b.doubleValue
    case n: java.lang.Number => n.doubleValue
    case _ => 0.0
  }

  private def memoryMiB(o: WorkerOffer): Double = {
    val rp = sched.sc.resourceProfileManager.resourceProfileFromId(o.resourceProfileId)
    rp.executorResources.get(ResourceProfile.MEMORY).map(_.amount.toDouble)
      .getOrElse(sched.sc.executorMemory.toDouble)
  }

  /**
   * Custom resources of an offer: addresses per resource name. Spark 3.5 offers a map of
   * address buffers; 4.x an `ExecutorResourcesAmounts` (read by name, so one source builds
   * against every line).
   */
  private def custom(o: WorkerOffer): Seq[(String, Double)] = (o.resources: Any) match {
    case m: scala.collection.Map[_, _] =>
      m.toSeq.map { case (k, v) => k.toString -> (v match { case b: Iterable[_] => b.size.toDouble; case x => number(x) }) }
    case r if r != null =>
      Try(r.getClass.getMethod("resourceAddressAmount").invoke(r).asInstanceOf[scala.collection.Map[String, Any]])
        .toOption.map(_.toSeq.map { case (k, v) => k -> number(v) }).getOrElse(Seq.empty)
    case _ => Seq.empty
  }

  /** A new executor, at its first offer (its free resources then are its total). */
  def executorAdded(o: WorkerOffer, node: Int): Unit = {
    val cap = vector(number(o.cores), memoryMiB(o), custom(o))
    sched.engine.call("lotesExecutor")(_.lotesExecutor(_, node, cap))
  }

  /** A task set the engine took as `job`: its tasks' cpus and custom resource requests. */
  def taskSetAdded(taskSet: TaskSet, job: Int): Unit = {
    val rp = sched.sc.resourceProfileManager.resourceProfileFromId(taskSet.resourceProfileId)
    val cpus = number(ResourceProfile.getTaskCpusOrDefaultForProfile(rp, sched.sc.conf))
    val demand = vector(cpus, 0.0, rp.taskResources.collect {
      case (n, r) if n != ResourceProfile.CPUS => n -> r.amount
    })
    sched.engine.call("lotesTaskSet")(_.lotesTaskSet(_, job, demand, taskSet.tasks.length))
  }

  /** Jobs LoTES keeps off this offer (empty when the engine call fails: the engine is then dropped). */
  def exclude(o: WorkerOffer, node: Int): Array[Int] = {
    val free = vector(number(o.cores), memoryMiB(o), custom(o))
    sched.engine.call("lotesExclude")(_.lotesExclude(_, node, free)).getOrElse(Array.empty[Int])
  }
}
