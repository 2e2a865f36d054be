/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

import org.json4s._

import org.apache.spark.{TaskKilled, TaskState}
import org.apache.spark.TaskState.TaskState
import org.apache.spark.scheduler.{TaskDescription, WorkerOffer}

/**
 * Eirene's Scheduler-Aware Task Cloning (Eirene §III-C) carried out in Spark
 * (`spark.scheduler.eagle.eirene.satc`, off by default).
 *
 * The engine decides (`Native.satcClone`, rust/eagle-core/src/eirene/clone_gate.rs): once per
 * resource-offer round, before the plan, every short task set whose tasks have all started is
 * offered the round's idle slots (free slots that no waiting task or pending speculative copy
 * needs); the engine answers with the earliest-launched running task that has never had a
 * clone, or nothing (a long task set, a task still waiting, no idle slot).
 *
 * This class carries the decision out through Spark's own speculative-task path, exactly
 * what `TaskSetManager.checkSpeculatableTasks` does for a slow task: the index joins
 * `speculatableTasks` and the speculative pending lists, and the DAG scheduler is told
 * (`speculativeTaskSubmitted`, which keeps dynamic allocation's accounting right). From there
 * it is stock Spark: the engine plans a slot for the copy (it counts in
 * `speculatableWaiting`), Spark launches it on a host other than the running attempt's, the
 * first copy to succeed completes the task and Spark kills the other ("another attempt
 * succeeded"); a second success is ignored, so no result is taken twice.
 *
 * Counters (summary JSON, section `eirene`): clones requested by the engine, launched,
 * won (the clone succeeded first), lost (the primary succeeded first) and copies killed by
 * Spark after the other copy won.
 */
private[eagle] final class EireneSatc(sched: EagleTaskScheduler) {
  /** Cloned task indices per (stage, stage attempt). */
  private val cloned = new ConcurrentHashMap[(Int, Int), java.util.Set[Int]]()
  private val requested = new AtomicLong
  private val launched = new AtomicLong
  private val won = new AtomicLong
  private val lost = new AtomicLong
  private val killed = new AtomicLong

  private def key(tsm: EagleTaskSetManager) = (tsm.taskSet.stageId, tsm.taskSet.stageAttemptId)

  private def isClone(tsm: EagleTaskSetManager, index: Int): Boolean =
    Option(cloned.get(key(tsm))).exists(_.contains(index))

  /**
   * One round's cloning, under the scheduler lock, before the plan. `freeSlots`: the engine
   * slots the round offers. Task sets are visited in engine job order (oldest first).
   */
  def round(freeSlots: Int, tsms: Iterable[(Int, EagleTaskSetManager)]): Unit = {
    var idle = freeSlots - tsms.iterator.map { case (_, t) => (t.waitingTasks + t.speculatableWaiting) * t.slotWidth }.sum
    // Never a barrier task set (cluster mode submits them to the engine): Spark runs no
    // copy of a barrier task, as it speculates none.
    for ((job, tsm) <- tsms.toSeq.sortBy(_._1)
         if idle >= tsm.slotWidth && !tsm.isZombie && !tsm.isBarrier && tsm.waitingTasks == 0) {
      val running = tsm.singleCopyRunning
      var more = running.nonEmpty
      while (more && idle >= tsm.slotWidth) {
        val idx = sched.engine.call("satcClone")(_.satcClone(_, job, 0, idle / tsm.slotWidth, running)).getOrElse(-1)
        if (idx >= 0) {
          requested.incrementAndGet()
          cloned.computeIfAbsent(key(tsm), _ => ConcurrentHashMap.newKeySet[Int]()).add(idx)
          tsm.requestCopy(idx)
          idle -= tsm.slotWidth
        } else {
          more = false
        }
      }
    }
  }

  /** A task description Spark launched for `tsm` (a clone when speculative and cloned). */
  def launchedTask(tsm: EagleTaskSetManager, td: TaskDescription): Unit =
    tsm.taskInfos.get(td.taskId).foreach { info =>
      if (info.speculative && isClone(tsm, info.index)) launched.incrementAndGet()
    }

  /** `tid` succeeded, before Spark handles it: the first success of a cloned task decides. */
  def succeeded(tsm: EagleTaskSetManager, tid: Long): Unit =
    tsm.taskInfos.get(tid).foreach { info =>
      val i = info.index
      if (isClone(tsm, i) && !tsm.successful(i) && tsm.taskAttempts(i).size > 1) {
        if (info.speculative) won.incrementAndGet() else lost.incrementAndGet()
      }
    }

  /** `tid` failed: a copy of a cloned task killed because the other one won. */
  def failed(tsm: EagleTaskSetManager, tid: Long, state: TaskState, reason: Any): Unit =
    tsm.taskInfos.get(tid).foreach { info =>
      val byWinner = reason match {
        case _: TaskKilled => state == TaskState.KILLED
        case _ => false
      }
      if (byWinner && isClone(tsm, info.index) && tsm.successful(info.index)) killed.incrementAndGet()
    }

  /** The task set ended: its clone column goes. */
  def taskSetEnded(tsm: EagleTaskSetManager): Unit = cloned.remove(key(tsm))

  def counters: Seq[(String, Long)] = Seq(
    "clonesRequested" -> requested.get, "clonesLaunched" -> launched.get, "clonesWon" -> won.get,
    "clonesLost" -> lost.get, "copiesKilled" -> killed.get)

  def fields: List[(String, JValue)] =
    ("satc" -> (JBool(true): JValue)) :: counters.toList.map { case (k, v) => k -> (JInt(BigInt(v)): JValue) }
}
