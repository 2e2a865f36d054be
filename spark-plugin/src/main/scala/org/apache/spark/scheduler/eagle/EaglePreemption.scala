/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import scala.collection.mutable

import org.apache.spark.internal.Logging

/**
 * Preemption in the driver (`spark.scheduler.eagle.preempt.afterMs`, off by default). The
 * rule is the engine's (rust/eagle-core/src/adaptive/preempt.rs): a short task set whose
 * tasks waited past the bound, while no short task runs and every slot holds long work,
 * gets the slot of the youngest long attempt, each task at most once, within a budget of
 * killed work. This class only gathers the facts and carries out the decision: on every
 * reviver tick it sends the running attempts of the engine's task sets (not barrier ones:
 * killing one fails its whole stage), and kills the one the engine names through Spark's own
 * task kill. The attempt re-runs; Spark does not count a kill as a task failure.
 *
 * Not thread-safe: the scheduler calls it under its own lock.
 */
private[eagle] final class EaglePreemption(engine: EagleEngine, kill: (Long, String) => Unit) extends Logging {

  /** Attempts killed whose end Spark has not processed yet. */
  private val killing = new mutable.HashSet[Long]
  /** Tasks preempted before, by stage: (stage id, partition index). */
  private val preempted = new mutable.HashSet[(Int, Int)]

  private var kills = 0L

  /** Kills carried out so far. */
  def count: Long = kills

  /**
   * One decision. `taskSets`: the engine's live task sets by engine job; `running(tid)`:
   * whether Spark still tracks task `tid`.
   */
  def tick(nowMs: Long, taskSets: Iterable[(Int, EagleTaskSetManager)], running: Long => Boolean): Unit = {
    killing.retain(running)
    val live = taskSets.iterator.filterNot(_._2.isBarrier).toSeq
    val stages = live.map(_._2.taskSet.stageId).toSet
    preempted.retain { case (stage, _) => stages(stage) }
    val wall = System.currentTimeMillis()
    val rows = (for {
      (job, tsm) <- live
      tid <- tsm.runningTasksSet.toSeq if !killing(tid)
      info <- tsm.taskInfos.get(tid)
    } yield (tid, job, nowMs - math.max(0L, wall - info.launchTime), (tsm.taskSet.stageId, info.index))).toIndexedSeq
    if (rows.isEmpty) return
    val victim = engine.call("preempt")(_.preempt(_, nowMs, rows.map(_._2).toArray, rows.map(_._3).toArray,
      rows.map(r => if (preempted(r._4)) 1 else 0).toArray, killing.size)).getOrElse(-1)
    if (victim >= 0 && victim < rows.size) {
      val (tid, _, started, key) = rows(victim)
      killing += tid
      preempted += key
      kills += 1
      val reason = s"preempted by Eagle after ${nowMs - started} ms of run time: a short task set " +
        s"waited past ${EagleConf.Prefix}preempt.afterMs with every slot running long work"
      logInfo(s"Eagle: killing task $tid (stage ${key._1}, partition ${key._2}): $reason")
      kill(tid, reason)
    }
  }
}
