/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.nio.ByteBuffer
import java.nio.charset.StandardCharsets
import java.util.concurrent.{Executors, ThreadFactory, TimeUnit}

import scala.collection.mutable
import scala.util.Try
import scala.util.control.NonFatal

import org.json4s.JObject

import org.apache.spark.{SparkContext, SparkException, TaskState}
import org.apache.spark.TaskState.TaskState
import org.apache.spark.scheduler._

/**
 * `TaskSchedulerImpl` with the Rust Eagle engine choosing which task set gets each free slot.
 *
 * This class holds no policy. It forwards Spark's events to the engine and carries out its
 * plans:
 *  - a task set is submitted → `submit` (hints from the local properties
 *    `spark.scheduler.eagle.job.class` / `.job.estimatedTaskMs`, plus the stage signature);
 *  - an executor is first seen in an offer → `addNode` (its free cores at first sight are its
 *    total: nothing can run on an executor before it has been offered) / lost → `removeNode`;
 *  - a resource-offer round → `setPending` (Spark's counts of waiting tasks and of
 *    speculatable tasks without a copy, for every live task set), `restrict` (the executors a
 *    task set may run on, when exclusion or its resource profile rules some out), then
 *    `offer(node, freeSlots, exclude)` per executor gives the plan: job ids per slot. The
 *    stock round then runs with [[EagleTaskSetManager]] vetoing launches the plan does not
 *    allow; planned slots that Spark did not fill (delay scheduling, no task left, a
 *    speculative copy on its attempt's host) are reported with `decline` (also when the round
 *    throws), and the free slots of every executor are re-planned once without those task
 *    sets there. Barrier task sets are not given to the engine (stock behaviour); a task of
 *    a profile with more cpus than `spark.task.cpus` counts as several engine slots;
 *  - a task's final status update → `taskFinished` (duration on success); a task set ends →
 *    `removeJob`. Tasks that die with their executor are forgotten by `removeNode`.
 *
 * TaskSetManagers keep full charge of their tasks, so the engine can only pick *which* task
 * set launches next: no task can be lost or launched twice. If any native call fails, the
 * engine is dropped (one error logged) and every override below falls through to the stock
 * behaviour for the rest of the application.
 *
 * The JSON run summary and the history file are written when the SparkContext stops; while
 * it runs, [[EagleObserver]] shows what the engine does (the `eagle` metrics source, Eagle
 * events on the listener bus, the Eagle tab of the Spark UI).
 *
 * Under an external cluster manager (`spark-eagle:yarn`, `spark-eagle:k8s://...`), `inner`
 * holds the scheduler that manager built for itself: rack resolution and the start hook are
 * its (see [[InnerScheduler]]); everything else is this class.
 */
private[spark] class EagleTaskScheduler(
    sc: SparkContext,
    maxTaskFailures: Int,
    isLocal: Boolean,
    val eagleConf: EagleConf,
    val masterUrl: String,
    val inner: Option[InnerScheduler] = None)
  extends TaskSchedulerImpl(sc, maxTaskFailures, isLocal) {

  private val startNanos = System.nanoTime()

  /** Engine time: milliseconds since this scheduler was created. */
  private def nowMs: Long = (System.nanoTime() - startNanos) / 1000000L

  private[eagle] def engineNowMs: Long = nowMs

  private[eagle] val engine = new EagleEngine(eagleConf)
  engine.start()
  if (engine.hardFailed) {
    throw new SparkException(s"Eagle engine could not start " +
      s"(${EagleConf.Prefix}fallback=false): ${engine.failureReason.getOrElse("")}")
  }

  private[eagle] val summary = new EagleSummary(eagleConf, masterUrl)

  /** Eirene's task cloning, when `eirene.satc` is on (see EireneSatc). */
  private[eagle] val satc: Option[EireneSatc] = if (eagleConf.eireneSatc) Some(new EireneSatc(this)) else None

  /** Eirene's cold data migration, when `eirene.ccdm` is on (see EireneCcdm). */
  private[eagle] val ccdm: Option[EireneCcdm] = if (eagleConf.eireneCcdm) Some(new EireneCcdm(this, eagleConf)) else None
  sc.addSparkListener(summary)

  /** Metrics, Eagle events and the Spark UI tab (see EagleObserver); never throws. */
  private[eagle] val observer = new EagleObserver(sc, eagleConf, engine, summary, masterUrl, () => nowMs)

  /** Cluster mode: the hosts' eagle-node daemons grant the slots (see ClusterMode). */
  private[eagle] val cluster: Option[ClusterMode] = eagleConf.cluster.map { c =>
    val m = new ClusterMode(engine, c, sc.appName, () => if (backend != null) backend.reviveOffers())
    m.start()
    m
  }

  /** `placement=lotes`: LoTES keeps task sets off executors its plan does not give them. */
  private val lotes: Option[LotesPlacement] = if (eagleConf.lotes) Some(new LotesPlacement(this)) else None

  // All state below is guarded by `this` (the TaskSchedulerImpl lock).
  private val nodeOf = new mutable.HashMap[String, Int]
  private val tsmByJob = new mutable.HashMap[Int, EagleTaskSetManager]
  /**
   * Live task sets the engine does not plan (barrier ones outside cluster mode; one it
   * failed to take).
   */
  private val unplanned = new mutable.HashSet[TaskSetManager]
  /** Per executor, per engine job: launches the current plan still allows. */
  private val allowance = new mutable.HashMap[String, mutable.HashMap[Int, Int]]
  @volatile private var _planActive = false
  private var abortedForHardFailure = false

  /** True while the stock round runs under a plan (read by EagleTaskSetManager). */
  private[eagle] def planActive: Boolean = _planActive && engine.active

  /** Dynamic Delay Scheduling is in charge of the locality waits (see EagleTaskSetManager). */
  private[eagle] def ddsActive: Boolean = eagleConf.ddsEnabled && engine.active

  /** The engine node of executor `execId`, while it is alive. */
  private[eagle] def nodeOfExecutor(execId: String): Option[Int] = synchronized { nodeOf.get(execId) }

  /** The executor behind engine node `node`, while it is alive. */
  private[eagle] def executorOfNode(node: Int): Option[String] = synchronized {
    nodeOf.collectFirst { case (e, n) if n == node => e }
  }

  /** Takes `width` planned slots of `job` on `execId` for one launch, if the plan has them. */
  private[eagle] def takeAllowance(execId: String, job: Int, width: Int): Boolean = {
    allowance.get(execId).flatMap(_.get(job)) match {
      case Some(n) if n >= width =>
        allowance(execId)(job) = n - width
        true
      case _ => false
    }
  }

  private[eagle] def returnAllowance(execId: String, job: Int, width: Int): Unit = {
    val m = allowance.getOrElseUpdate(execId, new mutable.HashMap[Int, Int])
    m(job) = m.getOrElse(job, 0) + width
  }

  /** Rounds whose plan gave out at least one slot (for the `debug.throwInRound` test hook). */
  private var plannedRounds = 0L
  private var _planHasSlots = false

  // Local mode revives offers only on task events; when a plan leaves slots idle while tasks
  // wait (declines, or the engine holding a slot back), ask for another round shortly.
  @volatile private var needRevive = false
  private val reviver = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, "eagle-reviver")
      t.setDaemon(true)
      t
    }
  })
  /** Preemption (`preempt.afterMs`), when on: asked every reviver tick. */
  private val preemption: Option[EaglePreemption] =
    if (eagleConf.preempting) Some(new EaglePreemption(engine, (tid, why) => killTaskAttempt(tid, true, why)))
    else None

  reviver.scheduleWithFixedDelay(() => {
    preemption.foreach { p =>
      Try(synchronized {
        if (engine.active && backend != null) p.tick(nowMs, tsmByJob, tid => taskIdToTaskSetManager.containsKey(tid))
      })
    }
    if (needRevive && engine.active && backend != null) {
      needRevive = false
      Try(backend.reviveOffers())
    }
  }, 200, 200, TimeUnit.MILLISECONDS)

  // ---- task sets -------------------------------------------------------------------------

  /** The sessions and pools task sets run for (the engine's tenants). */
  private val tenants = new Tenants(sc)

  override private[scheduler] def createTaskSetManager(
      taskSet: TaskSet,
      maxTaskFailures: Int): TaskSetManager = {
    val (hintClass, hintEstimateMs) = EagleConf.jobHints(taskSet.properties,
      msg => logError(s"Eagle: $msg (stage ${taskSet.stageId})"))
    val (stageName, signature) = stageSignature(taskSet)
    val now = nowMs
    // Barrier task sets stay outside the engine: Spark launches one only when every task of
    // it gets a slot in the same round, which a plan handing out slots one by one cannot
    // promise. They run as in stock Spark (in the pool's order); the offers the engine plans
    // are what is left after them. In cluster mode the hosts' slots are the daemons', so a
    // barrier task set is a gang there: its grants are held until there is one for each of
    // its tasks, and then one round plans them all (ClusterSide::set_gang).
    val barrier = taskSet.tasks.nonEmpty && taskSet.tasks(0).isBarrier
    val width = EagleTaskScheduler.slotWidth(this, taskSet)
    val group = queryGroup(taskSet)
    // Where the tasks' input is: the adaptive policy's warm executors weigh it, and in cluster
    // mode the central places a long task set near it (under policy=paper: neither).
    val input = if (eagleConf.adaptive) inputNodes(taskSet, width) else Array.emptyIntArray
    val job = if (barrier && cluster.isEmpty) -1 else engine.call("submit")(
      _.submit(_, now, taskSet.tasks.length * width, hintClass, hintEstimateMs, signature, group, width,
        EagleTaskScheduler.taskCores(this, taskSet), barrier, input)).getOrElse(-1)
    if (job >= 0) lotes.foreach(_.taskSetAdded(taskSet, job))
    val tenant = if (job >= 0 && eagleConf.adaptive) tenants.of(taskSet.properties) else None
    tenant.foreach(t => engine.call("setTenant")(_.setTenant(_, job, t.id, t.engineWeight, t.minShare)))
    if (job >= 0 && eagleConf.adaptive) {
      val (sigs, counts) = futureStages(taskSet)
      engine.call("groupFuture")(_.groupFuture(_, group, sigs, counts))
    }
    val tsm = new EagleTaskSetManager(this, taskSet, maxTaskFailures, healthTrackerOpt, job)
    if (job < 0) unplanned += tsm
    val info = if (job >= 0) {
      tsmByJob(job) = tsm
      ccdm.foreach(_.taskSetCreated(tsm))
      engine.call("jobInfo")(_.jobInfo(_, job)).getOrElse(Array(-1L, -1L, -1L))
    } else {
      Array(-1L, -1L, -1L)
    }
    summary.taskSetSubmitted(taskSet, stageName, signature, job, hintClass, hintEstimateMs, info, tenant)
    observer.taskSetSubmitted(taskSet, stageName, job, info)
    tsm
  }

  /**
   * Where each task's input is, as engine nodes (`width` entries a task): the executor of a
   * cached block, else the live executors of a preferred host. Executors not registered yet
   * are left out.
   */
  private def inputNodes(taskSet: TaskSet, width: Int): Array[Int] = {
    val out = mutable.ArrayBuilder.make[Int]
    for (t <- taskSet.tasks) {
      val nodes = t.preferredLocations.flatMap {
        case l: ExecutorCacheTaskLocation => nodeOf.get(l.executorId).toSeq
        case l => getExecutorsAliveOnHost(l.host).toSeq.flatten.flatMap(nodeOf.get)
      }.distinct
      for (n <- nodes; _ <- 0 until width) out += n
    }
    out.result()
  }

  /** The SparkContext is up (listener bus, UI, metrics system): start observing. */
  override def submitTasks(taskSet: TaskSet): Unit = {
    super.submitTasks(taskSet)
    abortIfHardFailed()
  }

  override def taskSetFinished(manager: TaskSetManager): Unit = synchronized {
    super.taskSetFinished(manager)
    unplanned -= manager
    manager match {
      case m: EagleTaskSetManager if m.endRecorded => // finished again by Spark: recorded once
      case m: EagleTaskSetManager if m.eagleJob >= 0 && tsmByJob.get(m.eagleJob).exists(_ eq m) =>
        m.endRecorded = true
        tsmByJob.remove(m.eagleJob)
        restricted -= m.eagleJob
        satc.foreach(_.taskSetEnded(m))
        ccdm.foreach(_.taskSetEnded(m))
        val now = nowMs
        val info = engine.call("jobInfo")(_.jobInfo(_, m.eagleJob))
        // The interval history lives with the engine's job: fetch it before removeJob (only
        // when a summary will be written: it is kept for nothing else).
        val history =
          if (eagleConf.ddsEnabled && (eagleConf.summaryPath.isDefined || observer.wantsDelayHistory)) {
            engine.call("delayHistory")(_.delayHistory(_, m.eagleJob))
          } else {
            None
          }
        engine.call("removeJob")(_.removeJob(_, now, m.eagleJob))
        engine.call("counters")(_.counters(_)).foreach(summary.setCounters)
        summary.taskSetEnded(m.taskSet, info)
        summary.taskSetLocality(m.taskSet, m.launchesByLevel, history)
        observer.taskSetEnded(m.taskSet, m.eagleJob, info, m.launchesByLevel, history)
      case m: EagleTaskSetManager =>
        m.endRecorded = true
        summary.taskSetLocality(m.taskSet, m.launchesByLevel, None)
        observer.taskSetEnded(m.taskSet, m.eagleJob, None, m.launchesByLevel, None)
      case _ =>
    }
  }

  /**
   * The query a task set belongs to, for query-aware SRPT: its SQL execution
   * (`spark.sql.execution.id`, as `2·id + 1`) when there is one, else its Spark job
   * (`taskSet.priority` is the job id, as `2·id`).
   */
  private def queryGroup(taskSet: TaskSet): Long =
    sqlExecution(taskSet).map(_ * 2 + 1).getOrElse(math.max(0, taskSet.priority).toLong * 2)

  /** The task set's SQL execution id (`spark.sql.execution.id`), if it runs for a query. */
  private def sqlExecution(taskSet: TaskSet): Option[Long] =
    Option(taskSet.properties).flatMap(p => Option(p.getProperty("spark.sql.execution.id")))
      .flatMap(v => Try(v.trim.toLong).toOption).filter(_ >= 0)

  /**
   * The stages of this task set's Spark job still waiting for their parents: their
   * signatures and task counts (the engine estimates their work from the history).
   * Called from `submitTasks`, on the DAGScheduler's event thread that owns these maps.
   */
  private def futureStages(taskSet: TaskSet): (Array[Long], Array[Int]) = {
    val stages = Try {
      val dag = dagScheduler
      val ids = dag.jobIdToStageIds.getOrElse(taskSet.priority, Set.empty[Int])
      dag.waitingStages.toSeq.filter(st => ids.contains(st.id) && st.id != taskSet.stageId).sortBy(_.id)
    }.getOrElse(Seq.empty)
    val sql = sqlExecution(taskSet).map(id => (id, queryKey(taskSet, id)))
    // A waiting stage of a query gets the ordinal it will have when submitted (stage-id order).
    val ahead = new mutable.HashMap[(String, Int), Int]
    val sig = stages.map { st =>
      val ctx = sql.map { case (id, desc) =>
        val k = (stageKind(st), st.numPartitions)
        val n = sqlQueries.peek(id, st.id, k, ahead.getOrElse(k, 0))
        if (!sqlQueries.known(id, st.id)) ahead(k) = ahead.getOrElse(k, 0) + 1
        s"$desc|$n"
      }
      signatureOf(st, st.numPartitions, ctx)._2
    }
    (sig.toArray, stages.map(_.numPartitions).toArray)
  }

  /**
   * What tells SQL execution `id`'s stages from other queries' in their signatures: for a
   * micro-batch of a streaming query, the query's id (`sql.streaming.queryId`, the same at every
   * trigger and across restarts from its checkpoint); else the job description the application
   * set; else (none, or a Spark Connect operation's, which names its session) the query's plan
   * ([[SqlPlanKey]]). Spark sets a micro-batch's description to the query's name, id, run id
   * and batch number, so keyed by it every micro-batch's stages were new signatures: none took
   * its estimate from the batches before, and each added its stages to the history.
   */
  private def queryKey(taskSet: TaskSet, id: Long): String = sqlQueries.key(id) {
    val props = Option(taskSet.properties)
    def prop(k: String) = props.flatMap(p => Option(p.getProperty(k)))
    prop(EagleTaskScheduler.StreamingQueryIdKey).map(q => s"stream $q")
      .orElse(prop("spark.job.description").filter(_ => props.flatMap(Tenants.connectSession).isEmpty))
      .orElse(SqlPlanKey.of(id))
      .getOrElse("")
  }

  /** Per recent SQL execution, each stage's ordinal among its stages of the same kind and width. */
  private val sqlQueries = new SqlStageOrdinals(256)

  /**
   * A stable signature of a stage (the history key): FNV-1a 64 of
   * `"<map|result>|<stage name>|<partitions>"`, where the stage name is Spark's call site
   * (e.g. `count at job.py:12`), with a SQL query's suffix (see [[signatureOf]]).
   */
  private def stageSignature(taskSet: TaskSet): (String, Long) = {
    val stage = Try(Option(dagScheduler).flatMap(_.stageIdToStage.get(taskSet.stageId))).toOption.flatten
    stage match {
      case Some(st) =>
        val ctx = sqlExecution(taskSet).map { id =>
          s"${queryKey(taskSet, id)}|${sqlQueries.ordinal(id, st.id, (stageKind(st), st.numPartitions))}"
        }
        signatureOf(st, st.numPartitions, ctx)
      case None =>
        val name = s"stage ${taskSet.stageId}"
        (name, EagleTaskScheduler.fnv1a64(s"result|$name|${taskSet.tasks.length}"))
    }
  }

  private def stageKind(stage: Stage): String = stage match {
    case _: ShuffleMapStage => "map"
    case _ => "result"
  }

  /**
   * `<map|result>|<stage name>|<partitions>`, and for a stage of a SQL query
   * `|sql|<query key>|<ordinal>`: the query's stages all carry one generic call site
   * (adaptive execution submits them from its own threads, `$anonfun$withThreadLocalCaptured$1
   * at ...`), so without it every 32-partition map stage of every query shares one history
   * entry. The ordinal is the stage's rank among the query's stages of the same kind and
   * width, in submission order; the query key ([[queryKey]]: a streaming query's id, else
   * the description the application set, else the query's plan) tells queries apart.
   */
  private def signatureOf(stage: Stage, parts: Int, sql: Option[String]): (String, Long) = {
    val base = s"${stageKind(stage)}|${stage.name}|$parts"
    (stage.name, EagleTaskScheduler.fnv1a64(sql.fold(base)(c => s"$base|sql|$c")))
  }

  // ---- offers ----------------------------------------------------------------------------

  override def resourceOffers(
      offers: IndexedSeq[WorkerOffer],
      isAllFreeResources: Boolean): Seq[Seq[TaskDescription]] = synchronized {
    if (!engine.active) {
      val r = super.resourceOffers(offers, isAllFreeResources)
      abortIfHardFailed()
      return r
    }
    val now = nowMs
    // Executors that died without an executorLost call (e.g. a LOST status update).
    for (exec <- nodeOf.keys.toList if !isExecutorAlive(exec)) {
      nodeOf.remove(exec).foreach(node => engine.call("removeNode")(_.removeNode(_, now, node)))
    }
    for (o <- offers if !nodeOf.contains(o.executorId)) {
      val slots = Shims.fits(o.cores, CPUS_PER_TASK)
      if (slots > 0) {
        engine.call("addNode")(_.addNode(_, now, slots)).foreach { n =>
          nodeOf(o.executorId) = n
          cluster.foreach(_.executorAdded(n, o.host))
          lotes.foreach(_.executorAdded(o, n))
        }
      }
    }
    satc.foreach(_.round(offers.map(o => Shims.fits(o.cores, CPUS_PER_TASK)).sum, tsmByJob))
    for ((job, tsm) <- tsmByJob) {
      val w = tsm.slotWidth
      engine.call("setPending")(
        _.setPending(_, now, job, tsm.waitingTasks * w, tsm.speculatableWaiting * w))
    }
    // Only what Spark's round will offer: it drops executors and hosts excluded for the whole
    // application (excludeOnFailure) before any task set sees them.
    val usable = offers.filterNot(o => healthTrackerOpt.exists(h =>
      h.isNodeExcluded(o.host) || h.isExecutorExcluded(o.executorId)))
    if (isAllFreeResources) restrictJobs(offers, usable, now)
    allowance.clear()
    cluster.foreach(_.roundStart())
    plan(usable, now, Map.empty)
    val planned = allowance.valuesIterator.map(_.valuesIterator.sum).sum
    _planHasSlots = planned > 0
    if (planned > 0) plannedRounds += 1
    var declined = Map.empty[String, Set[Int]]
    // Whatever the stock round does (it may throw), every planned slot it did not fill goes
    // back to the engine: otherwise the engine would count those slots busy for good.
    var ran = false
    var result: Seq[Seq[TaskDescription]] = Seq.empty
    try {
      result = runPlanned(stockOffers(offers), isAllFreeResources, hook = true)
      ran = true
    } finally {
      declined = declineLeftovers(now)
      // Local mode revives offers only on task events: a round that threw before launching
      // anything would leave the waiting task sets with no next round.
      if (!ran) {
        needRevive = true
        roundEnd(result)
      }
    }
    summary.round(planned, result.map(_.size).sum, declined.size)
    if (declined.nonEmpty && engine.active) {
      // One retry over every executor with cores left: re-plan them without the task sets
      // that declined a slot there. Other executors take part because a declined plan used up
      // the task set's pending count (e.g. a speculative copy planned on the host of its
      // running attempt, which Spark refuses, can go to another host now).
      val usedCpus = result.flatten.groupBy(_.executorId).map { case (e, ts) => e -> ts.map(_.cpus).sum }
      val retry = offers
        .map(o => o.copy(cores = o.cores - usedCpus.getOrElse(o.executorId, Shims.NoCpus)))
        .filter(_.cores >= CPUS_PER_TASK)
      val usableIds = usable.iterator.map(_.executorId).toSet
      plan(retry.filter(o => usableIds.contains(o.executorId)), now, declined)
      if (allowance.nonEmpty) {
        var retried = false
        result = result ++ (try {
          val r = runPlanned(stockOffers(retry), isAllFreeResources = false, hook = false)
          retried = true
          r
        } finally {
          declineLeftovers(now)
          if (!retried) roundEnd(result) // the retry threw: bind the first phase's launches
        })
      }
    }
    roundEnd(result)
    allowance.clear()
    ccdm.foreach(_.roundEnded(nodeOf.values))
    val freeSlots = offers.map(o => Shims.fits(o.cores, CPUS_PER_TASK)).sum - result.map(_.size).sum
    if (log.isDebugEnabled) {
      logDebug(s"Eagle round: offers ${offers.map(o => s"${o.executorId}:${o.cores}").mkString(",")} " +
        s"planned $planned launched ${result.map(_.size).sum} declined $declined " +
        s"waiting ${tsmByJob.map { case (j, t) => s"$j:${t.waitingTasks}" }.mkString(",")}")
    }
    // Cluster mode: a slot is used only under a grant, and every grant that arrives asks for a
    // round of its own (ClusterMode's waiter). Free cores with no grant held wait for a grant;
    // another round would launch nothing (it asked for one after nearly every round before).
    if (freeSlots > 0 && tsmByJob.valuesIterator.exists(t => t.waitingTasks + t.speculatableWaiting > 0) &&
        cluster.forall(_.heldGrants > 0)) {
      needRevive = true
      summary.reviveRequested()
    }
    abortIfHardFailed()
    result
  }

  /** Engine jobs last reported as restricted to a subset of the executors. */
  private val restricted = new mutable.HashSet[Int]

  /**
   * Tells the engine which executors each task set may run on, when that is not all of them
   * (exclusion, resource profiles). Only in rounds that offer every executor, so the offers
   * are the whole cluster; a task set that is no longer restricted is reported once.
   */
  private def restrictJobs(offers: Seq[WorkerOffer], usable: Seq[WorkerOffer], now: Long): Unit = {
    for ((job, tsm) <- tsmByJob) {
      val ok = usable.filter(tsm.canRunOn)
      if (ok.size < offers.size || restricted(job)) {
        val nodes = ok.flatMap(o => nodeOf.get(o.executorId)).toArray
        val r = ok.size < offers.size
        engine.call("restrict")(_.restrict(_, now, job, if (r) 1 else 0, nodes))
        if (r) restricted += job else restricted -= job
      }
    }
  }

  /**
   * Asks the engine for a plan per offer and turns it into launch allowances. Task sets that
   * cannot use an offer at all (see [[EagleTaskSetManager.canUse]]) are excluded from its
   * plan, as are those in `exclude` (they declined a slot there this round).
   */
  private def plan(offers: Seq[WorkerOffer], now: Long, exclude: Map[String, Set[Int]]): Unit = {
    for (o <- offers; free = Shims.fits(o.cores, CPUS_PER_TASK) if free > 0; node <- nodeOf.get(o.executorId)) {
      val cannot = tsmByJob.collect { case (j, t) if !t.canUse(o) => j }
      val placed = lotes.map(_.exclude(o, node)).getOrElse(Array.empty[Int])
      val ex = (exclude.getOrElse(o.executorId, Set.empty[Int]) ++ cannot ++ placed).toArray
      engine.call("offer")(_.offer(_, now, node, free, ex)).foreach { jobs =>
        val m = allowance.getOrElseUpdate(o.executorId, new mutable.HashMap[Int, Int])
        jobs.foreach(j => m(j) = m.getOrElse(j, 0) + 1)
      }
    }
  }

  private def runPlanned(
      offers: IndexedSeq[WorkerOffer],
      isAllFreeResources: Boolean,
      hook: Boolean): Seq[Seq[TaskDescription]] = {
    _planActive = true
    try {
      if (hook && _planHasSlots && plannedRounds == eagleConf.throwInRound) {
        throw new SparkException(s"Eagle test hook: ${EagleConf.Prefix}debug.throwInRound = $plannedRounds")
      }
      super.resourceOffers(offers, isAllFreeResources)
    } finally _planActive = false
  }

  /**
   * The offers Spark's own round goes through. Cluster mode: only the executors the plan gave
   * slots (a task launches only under its host's grant, and a grant asks for a round of its
   * own, so most rounds plan one executor of many), and any executor Spark has not seen yet
   * (its first offer registers it with the scheduler); every offer while a task set outside
   * the plan is live (one the engine failed to take), since it launches without one. Spark's
   * round costs a pass over its offers per task set and locality level, all of them refused but the
   * planned ones (JFR of the cluster bench's drivers: Spark's round was half of their offer
   * rounds' CPU with every executor offered, on cores the executors share).
   */
  private def stockOffers(offers: IndexedSeq[WorkerOffer]): IndexedSeq[WorkerOffer] = {
    val stock =
      if (cluster.isEmpty || unplanned.nonEmpty) offers
      else offers.filter(o => !isExecutorAlive(o.executorId) ||
        allowance.get(o.executorId).exists(_.valuesIterator.exists(_ > 0)))
    summary.offeredToSpark(stock.size)
    stock
  }

  /** Cluster mode: the round's launches take their grants; the other grants go back. */
  private def roundEnd(result: Seq[Seq[TaskDescription]]): Unit = cluster.foreach { c =>
    c.roundEnd(nowMs, result.flatten, nodeOf.get, tid => Option(taskIdToTaskSetManager.get(tid)) match {
      case Some(m: EagleTaskSetManager) => m.eagleJob
      case _ => -1
    })
  }

  /** Declines every planned launch that did not happen; returns the declining jobs per executor. */
  private def declineLeftovers(now: Long): Map[String, Set[Int]] = {
    val declined = new mutable.HashMap[String, Set[Int]]
    for ((exec, m) <- allowance; (job, n) <- m if n > 0; node <- nodeOf.get(exec)) {
      (0 until n).foreach(_ => engine.call("decline")(_.decline(_, now, node, job)))
      declined(exec) = declined.getOrElse(exec, Set.empty[Int]) + job
    }
    allowance.clear()
    declined.toMap
  }

  // ---- task ends -------------------------------------------------------------------------

  /**
   * Reports a task end as soon as the backend does, before Spark frees the slot and asks for
   * the next offer round (which would otherwise find the engine still counting the slot
   * busy). Duration on success: from launch to the status update.
   */
  override def statusUpdate(tid: Long, state: TaskState, serializedData: ByteBuffer): Unit = {
    // Cluster mode: the task's lease ends, whatever became of its task set.
    if (TaskState.isFinished(state)) cluster.foreach(_.taskEnded(tid))
    if (TaskState.isFinished(state)) synchronized {
      Option(taskIdToTaskSetManager.get(tid)) match {
        case Some(m: EagleTaskSetManager)
            if m.eagleJob >= 0 && engine.active && tsmByJob.get(m.eagleJob).exists(_ eq m) =>
          for (info <- m.taskInfos.get(tid); node <- nodeOf.get(info.executorId)) {
            val duration =
              if (state == TaskState.FINISHED) math.max(0L, System.currentTimeMillis() - info.launchTime)
              else -1L
            val now = nowMs
            // A task of a wider profile holds slotWidth engine slots: free each of them.
            for (_ <- 0 until m.slotWidth) {
              engine.call("taskFinished")(_.taskFinished(_, now, node, m.eagleJob, duration))
            }
          }
          if (state == TaskState.FINISHED) m.resultPending(tid)
        case _ =>
      }
    }
    super.statusUpdate(tid, state, serializedData)
  }

  // ---- executors -------------------------------------------------------------------------

  override def executorLost(executorId: String, reason: ExecutorLossReason): Unit = {
    super.executorLost(executorId, reason)
    synchronized {
      nodeOf.remove(executorId).foreach { node =>
        val now = nowMs
        engine.call("removeNode")(_.removeNode(_, now, node))
      }
    }
  }

  // ---- the inner cluster manager's scheduler ----------------------------------------------

  /** The inner manager's racks (e.g. YARN's topology), used for RACK_LOCAL and `hostsByRack`. */
  override def getRacksForHosts(hosts: Seq[String]): Seq[Option[String]] = inner match {
    case Some(i) => i.scheduler.getRacksForHosts(hosts)
    case None => super.getRacksForHosts(hosts)
  }

  /**
   * The inner manager's start hook (YARN cluster mode's signals the ApplicationMaster that the
   * SparkContext exists, then waits for the backend as the stock hook does). It waits on
   * `backend`, so the inner scheduler is given ours for that; [[stop]] takes it back.
   */
  override def postStartHook(): Unit = {
    inner match {
      case Some(i) =>
        i.scheduler.backend = backend
        i.scheduler.postStartHook()
      case None => super.postStartHook()
    }
    observer.start()
  }

  // ---- failure without fallback ----------------------------------------------------------

  private def abortIfHardFailed(): Unit = {
    if (engine.hardFailed) synchronized {
      abortedForHardFailure = true
      val msg = s"Eagle scheduler failed (${EagleConf.Prefix}fallback=false): " +
        engine.failureReason.getOrElse("unknown error")
      rootPool.getSortedTaskSetQueue.foreach(tsm => Try(tsm.abort(msg)))
    }
  }

  // ---- stop ------------------------------------------------------------------------------

  /**
   * Status-update, task-result and DAG threads may still be inside native calls while this
   * runs (Spark does not stop them first). That is safe without the scheduler lock: the
   * native handle is a registry key, `engine.close()` → `destroy` waits for the call in
   * progress, and calls that come later end as "engine gone" (EagleEngineClosedException,
   * counted, not logged as errors). `scripts/stress stopcycles` exercises this.
   */
  override def stop(exitCode: Int): Unit = {
    reviver.shutdownNow()
    cluster.foreach(_.stop())
    try {
      super.stop(exitCode)
    } finally {
      try {
        // Final Eagle events and metrics removal, while the engine is still open.
        observer.stop()
        if (engine.active) {
          engine.call("counters")(_.counters(_)).foreach(summary.setCounters)
          engine.call("adaptiveHistory")(_.adaptiveHistory(_)).foreach(summary.setAdaptive)
          engine.call("status")(_.status(_)).foreach { v =>
            val i = Native.CounterNames.size + Native.StatusNames.indexOf("warmupMs")
            if (i < v.length) summary.setWarmupMs(v(i))
          }
        }
        if (satc.isDefined || ccdm.isDefined) {
          summary.setSection("eirene", JObject(satc.toList.flatMap(_.fields) ++ ccdm.toList.flatMap(_.json)))
        }
        cluster.foreach(c => summary.setSection("cluster", c.json))
        summary.setFallback(engine.failureReason)
        eagleConf.summaryPath.foreach { p =>
          // Job start/end events travel on the listener bus; let it drain first.
          Try(sc.listenerBus.waitUntilEmpty(10000L))
          summary.write(p)
          logInfo(s"Eagle: wrote run summary to $p")
        }
      } catch {
        case NonFatal(e) => logWarning(s"Eagle: could not write the run summary: ${e.getMessage}", e)
      } finally {
        engine.close()
        stopInner(exitCode)
      }
    }
  }

  /**
   * For a start that failed before SparkContext got this scheduler (its backend could not be
   * built): the engine, the threads and the inner scheduler go, no summary is written.
   */
  private[eagle] def discard(): Unit = {
    reviver.shutdownNow()
    cluster.foreach(_.stop())
    try super.stop(0) finally {
      engine.close()
      stopInner(0)
    }
  }

  /** The inner scheduler's timers and thread pools (never its backend: that one is ours). */
  private def stopInner(exitCode: Int): Unit = inner.foreach { i =>
    i.scheduler.backend = null
    Try(i.scheduler.stop(exitCode))
  }

  /** Slots the engine counts busy (running or planned), or -1 without a healthy engine. */
  private[eagle] def engineBusySlots(): Long = synchronized {
    engine.call("busySlots")(_.busySlots(_)).getOrElse(-1L)
  }

  /** For the JNI-overhead benchmark: one bare native round trip. */
  private[eagle] def nativeNoop(): Long = engine.noop()
}

private[spark] object EagleTaskScheduler {
  /** The local property Structured Streaming sets on a micro-batch's jobs (StreamExecution.QUERY_ID_KEY). */
  val StreamingQueryIdKey = "sql.streaming.queryId"

  /** Engine slots one task of `taskSet` takes (see [[EagleTaskSetManager.slotWidth]]). */
  def slotWidth(sched: TaskSchedulerImpl, taskSet: TaskSet): Int =
    Shims.width(taskCpus(sched, taskSet), sched.CPUS_PER_TASK)

  /** Whole cores one task of the task set takes (at least 1): its slots of an eagle-node. */
  def taskCores(sched: TaskSchedulerImpl, taskSet: TaskSet): Int = Shims.width(taskCpus(sched, taskSet), 1)

  private def taskCpus(sched: TaskSchedulerImpl, taskSet: TaskSet): Shims.Cpus =
    org.apache.spark.resource.ResourceProfile.getTaskCpusOrDefaultForProfile(
      sched.sc.resourceProfileManager.resourceProfileFromId(taskSet.resourceProfileId), sched.sc.conf)

  /** FNV-1a, 64 bits, over UTF-8: stable across JVMs and runs (unlike String.hashCode mixing). */
  def fnv1a64(s: String): Long = {
    var h = 0xcbf29ce484222325L
    for (b <- s.getBytes(StandardCharsets.UTF_8)) {
      h ^= (b & 0xff)
      h *= 0x100000001b3L
    }
    h
  }
}
