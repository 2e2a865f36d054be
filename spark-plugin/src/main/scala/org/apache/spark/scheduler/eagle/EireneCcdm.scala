/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable
import scala.util.Try

import org.json4s._

import org.apache.spark.NarrowDependency
import org.apache.spark.internal.Logging
import org.apache.spark.rdd.RDD
import org.apache.spark.scheduler.{ExecutorCacheTaskLocation, TaskDescription}
import org.apache.spark.storage.{RDDBlockId, StorageLevel}

/**
 * Eirene's Coordinated Cold Data Migration (Eirene §III-B) carried out in Spark
 * (`spark.scheduler.eagle.eirene.ccdm`, off by default), the driver's half.
 *
 * The engine decides (`Native.ccdm`, rust/eagle-core/src/eirene/prefetch.rs): which
 * executors a waiting short task set probes, which of its tasks' inputs each probe migrates
 * (MPP), how many migrations an executor runs at once (CM), the fast lane on every launch,
 * and which inputs go when the task set ends. This class only finds each task's input and
 * carries the decisions out:
 *
 *  - A task's input is the cached block under its partition: the first persisted RDD reached
 *    from the stage's RDD through one-to-one narrow dependencies (`rdd_<id>_<partition>`),
 *    when the DAG scheduler found it cached on some executor. Tasks with no such block take
 *    no part.
 *  - A migration is a message to the target executor's side of [[EireneCcdmPlugin]], which
 *    copies the block into that executor's memory (`MEMORY_ONLY_SER`, registered with the
 *    block manager master, within `eirene.ccdm.maxBytes`) and reports back.
 *  - A migrated input makes its task the first one Spark's TaskSetManager hands that
 *    executor (it joins the executor's process-local pending list): the answer to a slot
 *    prefers a task whose input is there.
 *
 * Every call is under the scheduler lock except [[done]], which takes it.
 */
private[eagle] final class EireneCcdm(sched: EagleTaskScheduler, conf: EagleConf) extends Logging {
  import Native.{CcdmDone, CcdmForget, CcdmLaunched, CcdmProbe, CcdmRegister}

  /**
   * A registered task set: its task set manager and the input block of each task index;
   * `probed` once the engine has taken its one probe (so later rounds make no JNI call).
   */
  private final class Inputs(val tsm: EagleTaskSetManager, val blocks: Array[Option[RDDBlockId]], val elementClass: String) {
    var probed = false
  }

  private val jobs = new mutable.HashMap[Int, Inputs]
  private val sent = new AtomicLong
  private val local = new AtomicLong
  private val bytes = new AtomicLong
  private val dropped = new AtomicLong
  private val unreachable = new AtomicLong
  private val failuresLogged = new AtomicLong

  EireneCcdmPlugin.onDone(done)

  /**
   * A task set was created (on the DAG scheduler's thread, which owns the stage): its tasks'
   * input blocks go to the engine, which keeps the task set only if it is short.
   */
  def taskSetCreated(tsm: EagleTaskSetManager): Unit = if (tsm.eagleJob >= 0) {
    val found = Try(sched.dagScheduler.stageIdToStage.get(tsm.taskSet.stageId).map(_.rdd)).toOption.flatten
    found.foreach { rdd =>
      // Only blocks that exist: the DAG scheduler found them cached somewhere (a task that
      // computes and caches its partition has no input to migrate yet).
      val blocks = tsm.taskSet.tasks.map { t =>
        if (t.preferredLocations.exists(_.isInstanceOf[ExecutorCacheTaskLocation])) EireneCcdm.cachedInput(rdd, t.partitionId)
        else None
      }
      // (task, node already holding its input or -1) pairs: no executor migrates what it holds.
      val cold = blocks.indices.filter(i => blocks(i).isDefined).flatMap { i =>
        val holder = tsm.taskSet.tasks(i).preferredLocations.collectFirst {
          case l: ExecutorCacheTaskLocation if sched.nodeOfExecutor(l.executorId).isDefined => sched.nodeOfExecutor(l.executorId).get
        }
        Seq(i, holder.getOrElse(-1))
      }.toArray
      val cls = EireneCcdm.cachedRdd(rdd).map(_.elementClassTag.runtimeClass.getName).getOrElse("java.lang.Object")
      if (cold.nonEmpty && call("ccdmRegister", CcdmRegister, tsm.eagleJob +: cold).exists(_.headOption.contains(1))) {
        jobs(tsm.eagleJob) = new Inputs(tsm, blocks, cls)
      }
    }
  }

  /** After a round: every registered task set with tasks still waiting probes (once). */
  def roundEnded(nodes: Iterable[Int]): Unit = if (jobs.nonEmpty) {
    val ns = nodes.toArray
    for ((job, in) <- jobs.toSeq if ns.nonEmpty && !in.probed && in.tsm.waitingTasks > 0 && !in.tsm.isZombie) {
      in.probed = true
      call("ccdmProbe", CcdmProbe, Array(job, in.tsm.waitingTasks) ++ ns).foreach(start(_, 0))
    }
  }

  /** Spark launched `td` for `tsm`: the engine counts a helped task and feeds the fast lane. */
  def launched(tsm: EagleTaskSetManager, td: TaskDescription): Unit = if (jobs.contains(tsm.eagleJob)) {
    for (node <- sched.nodeOfExecutor(td.executorId); info <- tsm.taskInfos.get(td.taskId) if !info.speculative) {
      call("ccdmLaunched", CcdmLaunched, Array(node, tsm.eagleJob, info.index)).foreach(start(_, 1))
    }
  }

  /** The task set ended: the engine names the migrated inputs to drop. */
  def taskSetEnded(tsm: EagleTaskSetManager): Unit = jobs.remove(tsm.eagleJob).foreach { in =>
    call("ccdmForget", CcdmForget, Array(tsm.eagleJob)).foreach(_.grouped(2).foreach {
      case Array(node, task) => in.blocks.lift(task).flatten.foreach(b => drop(node, b.name))
      case _ =>
    })
  }

  /** An executor reported a migration (from the driver plugin's RPC thread). */
  private def done(d: EireneCcdmPlugin.Done): Unit = sched.synchronized {
    if (!d.ok && d.why.nonEmpty && failuresLogged.getAndIncrement() < 20) {
      logWarning(s"Eagle CCDM: migration for task ${d.task} of task set ${d.job} to executor ${d.executorId} failed: ${d.why}")
    }
    if (d.ok) {
      bytes.addAndGet(d.bytes)
      if (d.alreadyLocal) local.incrementAndGet()
    }
    call("ccdmDone", CcdmDone, Array(d.node, d.job, d.task, if (d.ok) 1 else 0)).foreach { r =>
      val keep = r.headOption.contains(1)
      if (keep) jobs.get(d.job).foreach(_.tsm.preferOn(d.executorId, d.task))
      // Not kept (the task set ended while it was copied): the copy goes at once.
      else if (d.ok && !d.alreadyLocal) drop(d.node, d.block)
      start(r, 1)
    }
  }

  /** Starts the `(node, job, task, fast)` quadruples of `r` after its `head` values. */
  private def start(r: Array[Int], head: Int): Unit =
    r.drop(head).grouped(4).foreach {
      case Array(node, job, task, _) =>
        val target = for {
          in <- jobs.get(job)
          block <- in.blocks.lift(task).flatten
          exec <- sched.executorOfNode(node)
          ref <- EireneCcdmPlugin.endpoint(exec)
        } yield (in, block, exec, ref)
        target match {
          case Some((in, block, exec, ref)) =>
            sent.incrementAndGet()
            ref.send(EireneCcdmPlugin.Migrate(job, task, node, block.name, conf.ccdmMaxBytes, in.elementClass).wire)
          case None =>
            // No executor side to ask (plugin missing there, executor gone): the migration
            // fails at once so that its queue slot frees.
            unreachable.incrementAndGet()
            val exec = sched.executorOfNode(node).getOrElse("")
            done(EireneCcdmPlugin.Done(exec, job, task, node, "", ok = false, 0L, alreadyLocal = false))
        }
      case _ =>
    }

  private def drop(node: Int, block: String): Unit =
    for (exec <- sched.executorOfNode(node); ref <- EireneCcdmPlugin.endpoint(exec)) {
      dropped.incrementAndGet()
      ref.send(EireneCcdmPlugin.Drop(block).wire)
    }

  private def call(what: String, op: Int, args: Array[Int]): Option[Array[Int]] =
    sched.engine.call(what)(_.ccdm(_, op, args))

  def json: List[(String, JValue)] = {
    val c = sched.engine.call("ccdmCounters")(_.ccdm(_, Native.CcdmCounters, Array.empty[Int])).getOrElse(Array.empty[Int])
    val names = Seq("probes", "migrationsStarted", "fastLane", "migrated", "migrationsFailed", "ccdmHelped")
    ("ccdm" -> (JBool(true): JValue)) ::
      names.zip(c).toList.map { case (k, v) => k -> (JInt(BigInt(v)): JValue) } ++
      List("migrationsSent" -> sent.get, "alreadyLocal" -> local.get, "bytesMigrated" -> bytes.get,
        "inputsDropped" -> dropped.get, "unreachable" -> unreachable.get).map { case (k, v) => k -> (JInt(BigInt(v)): JValue) }
  }
}

private[eagle] object EireneCcdm {
  /** The first persisted RDD under `rdd` through one-to-one narrow dependencies, if any. */
  def cachedRdd(rdd: RDD[_], depth: Int = 0): Option[RDD[_]] =
    if (rdd.getStorageLevel != StorageLevel.NONE) Some(rdd)
    else if (depth > 64) None
    else rdd.dependencies match {
      case Seq(n: NarrowDependency[_]) => cachedRdd(n.rdd, depth + 1)
      case _ => None
    }

  /** The cached block task partition `p` of `rdd` reads, following one-to-one dependencies. */
  def cachedInput(rdd: RDD[_], p: Int, depth: Int = 0): Option[RDDBlockId] =
    if (rdd.getStorageLevel != StorageLevel.NONE) Some(RDDBlockId(rdd.id, p))
    else if (depth > 64) None
    else rdd.dependencies match {
      case Seq(n: NarrowDependency[_]) =>
        n.getParents(p) match {
          case Seq(q) => cachedInput(n.rdd, q, depth + 1)
          case _ => None
        }
      case _ => None
    }
}
