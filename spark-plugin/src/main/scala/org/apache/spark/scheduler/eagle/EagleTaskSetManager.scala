/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.apache.spark.scheduler.{HealthTracker, TaskDescription, TaskLocality, TaskSet, TaskSetManager}

/**
 * A stock `TaskSetManager` that launches a task only where the engine's plan allows it.
 *
 * Spark's TaskSetManager stays in charge of its tasks (which task, locality, retries,
 * speculation, zombie state); this subclass only vetoes an offer when the current plan gives
 * this task set no slot on that executor. Outside a planned round (fallback, or the engine
 * never knew this task set: `eagleJob < 0`) and for barrier task sets, which need all their
 * slots at once, it behaves exactly like the stock class.
 */
private[eagle] class EagleTaskSetManager(
    eagleSched: EagleTaskScheduler,
    taskSet: TaskSet,
    maxTaskFailures: Int,
    healthTracker: Option[HealthTracker],
    val eagleJob: Int)
  extends TaskSetManager(eagleSched, taskSet, maxTaskFailures, healthTracker) {

  override def resourceOffer(
      execId: String,
      host: String,
      maxLocality: TaskLocality.TaskLocality,
      taskCpus: Int,
      taskResourceAssignments: Map[String, Map[String, Long]])
    : (Option[TaskDescription], Boolean, Int) = {
    if (eagleJob < 0 || isBarrier || !eagleSched.planActive) {
      super.resourceOffer(execId, host, maxLocality, taskCpus, taskResourceAssignments)
    } else if (!eagleSched.takeAllowance(execId, eagleJob)) {
      (None, false, -1)
    } else {
      val r = super.resourceOffer(execId, host, maxLocality, taskCpus, taskResourceAssignments)
      if (r._1.isEmpty) eagleSched.returnAllowance(execId, eagleJob)
      r
    }
  }

  /**
   * Spark's truth about this task set's tasks waiting to launch: neither successful nor
   * running. Without speculation each task has at most one running copy, so a subtraction
   * suffices (it may briefly count a task whose success is still being fetched, which only
   * costs a decline); with speculation, count exactly.
   */
  def waitingTasks: Int =
    if (isZombie) {
      0
    } else if (speculationEnabled) {
      var n = 0
      var i = 0
      while (i < numTasks) {
        if (!successful(i) && copiesRunning(i) == 0) n += 1
        i += 1
      }
      n
    } else {
      math.max(0, numTasks - tasksSuccessful - runningTasks)
    }
}
