/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import scala.util.control.NonFatal

import org.apache.spark.TaskFailedReason
import org.apache.spark.TaskState.TaskState
import org.apache.spark.executor.TaskMetrics
import org.apache.spark.resource.ResourceProfile
import org.apache.spark.scheduler.{DirectTaskResult, ExecutorCacheTaskLocation, HDFSCacheTaskLocation, HealthTracker, TaskDescription, TaskLocality, TaskSet, TaskSetManager, WorkerOffer}

/**
 * A stock `TaskSetManager` that launches a task only where the engine's plan allows it.
 *
 * Spark's TaskSetManager stays in charge of its tasks (which task, locality, retries,
 * speculation, zombie state); this subclass only vetoes an offer when the current plan gives
 * this task set no slot on that executor. Outside a planned round (fallback, or the engine
 * never knew this task set: `eagleJob < 0`, as for barrier task sets outside cluster mode,
 * which need all their slots at once) it behaves exactly like the stock class. In cluster
 * mode a barrier task set is planned all at once, under a grant for each task, and vetoed
 * like any other.
 *
 * Dynamic Delay Scheduling (`spark.scheduler.eagle.dds.enabled`, see docs/policies/dds.md): while the
 * engine is healthy, Spark's own locality waits of this task set are zeroed
 * (`localityWaits`, which Spark computes from `spark.locality.wait*` at construction and in
 * `recomputeLocality`) and every offer is capped at `min(maxLocality, engine's allowed
 * level)`: Spark's `getAllowedLocalityLevel` then never holds a task back by itself, and the
 * engine's adaptive per-level intervals decide alone how long the task set waits for a
 * local slot. Spark still picks the task (`dequeueTask`), so retries, speculation and
 * zombie state are untouched. On a fallback the stock waits are restored before the next
 * offer. Each successful task reports its estimated network overhead
 * (`localityFeedback`, see [[netOverheadMs]]).
 */
private[eagle] class EagleTaskSetManager(
    eagleSched: EagleTaskScheduler,
    taskSet: TaskSet,
    maxTaskFailures: Int,
    healthTracker: Option[HealthTracker],
    val eagleJob: Int)
  extends TaskSetManager(eagleSched, taskSet, maxTaskFailures, healthTracker) {

  // ---- Dynamic Delay Scheduling ---------------------------------------------------------

  /** Spark's own waits (from spark.locality.wait*), restored whenever DDS is off. */
  private var sparkWaits: Array[Long] = localityWaits

  /** Tasks launched at each level (TaskLocality id), for the summary's locality mix. */
  private[eagle] val launchesByLevel = new Array[Long](5)

  /**
   * The task set's end is recorded (summary, listener bus). Spark may call `taskSetFinished`
   * more than once for one task set (its `maybeFinishTaskSet` has no guard: a zombie task
   * set is finished again when `abort` or a task end finds no task running); recorded
   * twice, a cancelled or continuous-processing task set counted its launches twice in the
   * summary's totals and posted two `EagleTaskSetFinished` events. Read and set under the
   * scheduler's lock.
   */
  private[eagle] var endRecorded = false

  /** Sum and count of (run time - fetch wait) of tasks that ran at their preferred level. */
  private var localComputeMsSum = 0.0
  private var localCount = 0L

  private def ddsOn: Boolean = eagleJob >= 0 && !isBarrier && eagleSched.ddsActive

  /**
   * Zero Spark's waits while the engine's adaptive waits are in charge; else Spark's own, less
   * the waits for input out of this task set's reach ([[reachableWaits]]).
   */
  private def syncWaits(): Unit = {
    val want = if (ddsOn) new Array[Long](sparkWaits.length) else reachableWaits()
    if (!java.util.Arrays.equals(localityWaits, want)) localityWaits = want
  }

  /**
   * Spark's own waits, with a level's wait zeroed while no task pending at it has its input
   * on an executor this task set can get a slot on: in cluster mode a long task set never
   * gets one on the central's short-only hosts (`ClusterMode.outOfReach`, the native rule).
   * Spark's delay scheduling then moves past that level at once, as it does past a level
   * with no pending task, instead of idling the general hosts' grants for a whole
   * `spark.locality.wait` (DDS does the same through [[pendingAt]]). A level with a
   * reachable pending task keeps its wait; outside cluster mode nothing changes.
   */
  private def reachableWaits(): Array[Long] = {
    val unreachable =
      if (eagleJob < 0) Set.empty[Int] else eagleSched.cluster.fold(Set.empty[Int])(_.outOfReach(eagleJob))
    if (unreachable.isEmpty) sparkWaits
    else sparkWaits.indices.map { i =>
      if (sparkWaits(i) > 0 && !pendingAt(myLocalityLevels(i), unreachable)) 0L else sparkWaits(i)
    }.toArray
  }
  syncWaits()

  override def recomputeLocality(): Unit = {
    super.recomputeLocality()
    sparkWaits = localityWaits
    syncWaits()
  }

  private def needsScheduling(i: Int): Boolean = copiesRunning(i) == 0 && !successful(i)

  /**
   * Whether tasks still wait at `level` (Spark's `moreTasksToRunIn`, on live locations), on
   * locations where this task set can get a slot: in cluster mode a long task set never gets
   * one on the central's short-only hosts (`unreachable`, engine nodes), so a task whose
   * input is only there does not hold the task set back for it.
   */
  private def pendingAt(level: TaskLocality.TaskLocality, unreachable: Set[Int]): Boolean = {
    def reachable(exec: String): Boolean =
      eagleSched.isExecutorAlive(exec) && !eagleSched.nodeOfExecutor(exec).exists(unreachable)
    level match {
      case TaskLocality.PROCESS_LOCAL => pendingTasks.forExecutor.exists { case (e, ts) =>
        ts.exists(needsScheduling) && reachable(e) }
      case TaskLocality.NODE_LOCAL => pendingTasks.forHost.exists { case (h, ts) =>
        ts.exists(needsScheduling) && (if (unreachable.isEmpty) eagleSched.hasExecutorsAliveOnHost(h)
          else eagleSched.getExecutorsAliveOnHost(h).exists(_.exists(reachable))) }
      case TaskLocality.NO_PREF => pendingTasks.noPrefs.exists(needsScheduling)
      case TaskLocality.RACK_LOCAL => pendingTasks.forRack.exists { case (r, ts) =>
        ts.exists(needsScheduling) && eagleSched.hasHostAliveOnRack(r) }
      case _ => pendingTasks.all.exists(needsScheduling)
    }
  }

  override def resourceOffer(
      execId: String,
      host: String,
      maxLocality: TaskLocality.TaskLocality,
      taskCpus: Shims.Cpus,
      taskResourceAssignments: Shims.TaskResources)
    : (Option[TaskDescription], Boolean, Int) = {
    syncWaits()
    if (eagleJob < 0 || !eagleSched.planActive) {
      offerWithDelay(execId, host, maxLocality, taskCpus, taskResourceAssignments)
    } else if (!eagleSched.takeAllowance(execId, eagleJob, slotWidth)) {
      (None, false, -1)
    } else {
      val r = offerWithDelay(execId, host, maxLocality, taskCpus, taskResourceAssignments)
      if (r._1.isEmpty) eagleSched.returnAllowance(execId, eagleJob, slotWidth)
      r
    }
  }

  /** Cores one task of this task set takes: its resource profile's cpus per task. */
  private[eagle] val taskCpus: Shims.Cpus = ResourceProfile.getTaskCpusOrDefaultForProfile(
    eagleSched.sc.resourceProfileManager.resourceProfileFromId(taskSet.resourceProfileId),
    eagleSched.sc.conf)

  /**
   * Engine slots (of `spark.task.cpus` cores each) one task of this task set occupies: 1 for
   * the default profile, more for a profile with more cpus per task. The engine counts every
   * task as `slotWidth` of its tasks (submitted, pending, launched and finished alike), so its
   * busy-slot count matches the cores Spark really hands out.
   */
  private[eagle] val slotWidth: Int = EagleTaskScheduler.slotWidth(eagleSched, taskSet)

  /**
   * Whether Spark could launch a task of this task set on the offer at all: the executor's
   * resource profile is compatible with the task set's, it has the cores of one task, and
   * neither it nor its host is excluded for this task set (excludeOnFailure). Planned slots
   * where this is false would only be declined, and would take the task set's pending count
   * away from executors it can use.
   */
  private[eagle] def canUse(o: WorkerOffer): Boolean = o.cores >= taskCpus && canRunOn(o)

  /** [[canUse]] whatever the executor's free cores: whether this task set may run there at all. */
  private[eagle] def canRunOn(o: WorkerOffer): Boolean =
    !isZombie &&
      eagleSched.sc.resourceProfileManager.canBeScheduled(taskSet.resourceProfileId, o.resourceProfileId) &&
      !taskSetExcludelistHelperOpt.exists { e =>
        e.isNodeExcludedForTaskSet(o.host) || e.isExecutorExcludedForTaskSet(o.executorId)
      }

  /**
   * The stock offer, capped at the engine's allowed level while DDS is on. Spark's NO_PREF
   * pass (maxLocality = NO_PREF) skips delay scheduling in stock Spark too, so it is not capped.
   */
  private def offerWithDelay(
      execId: String,
      host: String,
      maxLocality: TaskLocality.TaskLocality,
      taskCpus: Shims.Cpus,
      taskResourceAssignments: Shims.TaskResources)
    : (Option[TaskDescription], Boolean, Int) = {
    var cap = maxLocality
    if (ddsOn && maxLocality != TaskLocality.NO_PREF && myLocalityLevels.length > 1) {
      val valid = myLocalityLevels.map(_.id)
      val unreachable = eagleSched.cluster.fold(Set.empty[Int])(_.outOfReach(eagleJob))
      val pending = myLocalityLevels.map(l => if (pendingAt(l, unreachable)) 1 else 0)
      val now = eagleSched.engineNowMs
      eagleSched.engine.call("allowedLocality")(_.allowedLocality(_, now, eagleJob, valid, pending)) match {
        case Some(a) if a >= 0 && a < maxLocality.id => cap = TaskLocality(a)
        case Some(_) =>
        case None => syncWaits() // the engine failed: Spark's own waits from now on
      }
    }
    val r = super.resourceOffer(execId, host, cap, taskCpus, taskResourceAssignments)
    // A barrier task set's offer yields Some(null): TaskSchedulerImpl builds its task
    // descriptions only once every task of the set has a slot in the round.
    r._1.filter(_ != null).foreach { td =>
      eagleSched.satc.foreach(_.launchedTask(this, td))
      eagleSched.ccdm.foreach(_.launched(this, td))
      taskInfos.get(td.taskId).foreach { info =>
        val level = info.taskLocality.id
        if (level >= 0 && level < launchesByLevel.length) launchesByLevel(level) += 1
        if (ddsOn) {
          val valid = myLocalityLevels.map(_.id)
          val now = eagleSched.engineNowMs
          eagleSched.engine.call("launchedAt")(_.launchedAt(_, now, eagleJob, level, valid))
        }
      }
    }
    // As in stock Spark: an ANY offer refused by delay scheduling while tasks are pending.
    val delayReject = r._2 || (r._1.isEmpty && cap != maxLocality &&
      maxLocality == TaskLocality.ANY && pendingTasks.all.exists(needsScheduling))
    (r._1, delayReject, r._3)
  }

  /** The most local level task `index` could run at: where its preferences point. */
  private def preferredLevel(index: Int): TaskLocality.TaskLocality = {
    val locs = tasks(index).preferredLocations
    if (locs.exists(l => l.isInstanceOf[ExecutorCacheTaskLocation] || l.isInstanceOf[HDFSCacheTaskLocation])) {
      TaskLocality.PROCESS_LOCAL
    } else if (locs.nonEmpty) {
      TaskLocality.NODE_LOCAL
    } else {
      TaskLocality.NO_PREF
    }
  }

  /**
   * t_netOH, the time (ms) a successful task lost to running away from its data, estimated
   * from its TaskMetrics:
   *
   *   - 0 for a task that ran at its preferred level (the Dynamic Delay Scheduling paper's
   *     definition); such tasks also feed the stage's mean local compute time
   *     `L = mean(executorRunTime - shuffle fetchWaitTime)`;
   *   - otherwise `fetchWaitTime + max(0, (executorRunTime - fetchWaitTime) - L)`, where the
   *     second term (the run-time excess over same-stage local tasks) is counted only when L
   *     exists and the task shows evidence of reading data (remote shuffle bytes or input
   *     bytes, which include cached blocks fetched from another executor).
   *
   * Limits: skewed partitions, stragglers and GC look like network overhead in the excess
   * term; a stage whose tasks all run non-local has no L and only reports fetch waits;
   * remote reads of cached blocks are not timed by Spark, so they show only through the
   * excess term; fetch waits measure shuffle blocking, which may have causes other than
   * locality. The update rule averages over tasks, which damps these errors.
   */
  private[eagle] def netOverheadMs(index: Int, preferred: TaskLocality.TaskLocality,
      actual: TaskLocality.TaskLocality, m: TaskMetrics): Double = {
    val run = math.max(0L, m.executorRunTime).toDouble
    val fetchWait = math.max(0L, m.shuffleReadMetrics.fetchWaitTime).toDouble
    val compute = math.max(0.0, run - fetchWait)
    if (actual <= preferred) {
      localComputeMsSum += compute
      localCount += 1
      0.0
    } else {
      val evidence = m.shuffleReadMetrics.remoteBytesRead > 0 || m.inputMetrics.bytesRead > 0
      val excess =
        if (localCount > 0 && evidence) math.max(0.0, compute - localComputeMsSum / localCount) else 0.0
      fetchWait + excess
    }
  }

  /** Reports t_netOH of a successful task before Spark processes it (and maybe ends the set). */
  override def handleSuccessfulTask(tid: Long, result: DirectTaskResult[_]): Unit = {
    if (ddsOn) {
      try {
        taskInfos.get(tid).foreach { info =>
          val metrics = TaskMetrics.fromAccumulators(result.accumUpdates)
          val preferred = preferredLevel(info.index)
          val actual = info.taskLocality
          val oh = netOverheadMs(info.index, preferred, actual, metrics)
          val now = eagleSched.engineNowMs
          eagleSched.engine.call("localityFeedback")(
            _.localityFeedback(_, now, eagleJob, preferred.id, actual.id, oh))
        }
      } catch {
        case NonFatal(e) => logWarning(s"Eagle: no locality feedback for task $tid: ${e.getMessage}")
      }
    }
    eagleSched.satc.foreach(_.succeeded(this, tid))
    try super.handleSuccessfulTask(tid, result) finally fetching.remove(tid)
  }

  /**
   * Tasks whose success the backend has reported but whose result Spark is still fetching
   * (tid -> index): Spark no longer counts them running and not yet successful. Without this
   * the engine saw them as waiting and planned slots for them that Spark then declined (about
   * a quarter of all planned slots in a replay at 50% load).
   */
  private val fetching = new java.util.concurrent.ConcurrentHashMap[Long, Int]()

  /** Called by the scheduler when the backend reports `tid` FINISHED, before Spark handles it. */
  private[eagle] def resultPending(tid: Long): Unit =
    taskInfos.get(tid).foreach(info => fetching.put(tid, info.index))

  override def handleFailedTask(tid: Long, state: TaskState, reason: TaskFailedReason): Unit = {
    fetching.remove(tid)
    eagleSched.satc.foreach(_.failed(this, tid, state, reason))
    super.handleFailedTask(tid, state, reason)
  }

  /**
   * Spark's truth about this task set's tasks waiting to launch: neither successful, nor
   * running, nor finished with their result still being fetched. Without speculation each task
   * has at most one running copy, so a subtraction suffices; with speculation, count exactly.
   */
  def waitingTasks: Int =
    if (isZombie) {
      0
    } else if (speculationEnabled || satcOn) {
      var n = 0
      var i = 0
      while (i < numTasks) {
        if (!successful(i) && copiesRunning(i) == 0 && !fetching.containsValue(i)) n += 1
        i += 1
      }
      n
    } else {
      math.max(0, numTasks - tasksSuccessful - runningTasks - fetching.size)
    }

  /**
   * Tasks Spark has marked speculatable (`checkSpeculatableTasks`) that still run as a single
   * copy: each is one more launch Spark wants, on a host other than the running copy's. The
   * engine counts them as pending work, so a plan can give the copy a slot.
   */
  def speculatableWaiting: Int =
    if (isZombie || !(speculationEnabled || satcOn)) 0
    else speculatableTasks.count(i => !successful(i) && copiesRunning(i) == 1 && !fetching.containsValue(i))

  // ---- Eirene CCDM (see EireneCcdm) -----------------------------------------------------

  /**
   * Task `index`'s input is now in `execId`'s memory: it becomes the first task Spark's
   * dequeue hands that executor (its process-local list is read first, from the end).
   */
  private[eagle] def preferOn(execId: String, index: Int): Unit =
    if (index >= 0 && index < numTasks && needsScheduling(index)) {
      pendingTasks.forExecutor.getOrElseUpdate(execId, new scala.collection.mutable.ArrayBuffer[Int]) += index
    }

  // ---- Eirene SATC (see EireneSatc) ------------------------------------------------------

  /** SATC may give this task set speculative copies even with spark.speculation off. */
  private def satcOn: Boolean = eagleJob >= 0 && eagleSched.satc.isDefined

  /** Task indices running as a single copy (result not being fetched), earliest launched first. */
  private[eagle] def singleCopyRunning: Array[Int] =
    (0 until numTasks).iterator
      .filter(i => !successful(i) && copiesRunning(i) == 1 && !fetching.containsValue(i))
      .flatMap(i => taskAttempts(i).find(_.running).map(a => (a.launchTime, i)))
      .toArray.sortBy(_._1).map(_._2)

  /**
   * A copy of task `index` through Spark's speculative path, as `checkSpeculatableTasks` does
   * for a slow task: Spark then launches it on another host, the first copy to succeed wins
   * and Spark kills the other.
   */
  private[eagle] def requestCopy(index: Int): Unit = {
    if (!speculatableTasks.contains(index)) {
      speculatableTasks += index
      addPendingTask(index, resolveRacks = true, speculatable = true)
      Option(eagleSched.dagScheduler).foreach(_.speculativeTaskSubmitted(tasks(index), index))
    }
  }
}
