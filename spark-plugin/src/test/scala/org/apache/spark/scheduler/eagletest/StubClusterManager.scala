/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagletest

import java.util.concurrent.ConcurrentLinkedQueue
import java.util.concurrent.atomic.AtomicLong

import org.apache.spark.{SparkContext, SparkException}
import org.apache.spark.deploy.LocalSparkCluster
import org.apache.spark.scheduler.{ExternalClusterManager, SchedulerBackend, TaskScheduler, TaskSchedulerImpl}
import org.apache.spark.scheduler.cluster.StandaloneSchedulerBackend
import org.apache.spark.scheduler.local.LocalSchedulerBackend

/**
 * TEST ONLY (build/libs/eagle-spark-tests-<version>.jar, never the plugin jar): an external
 * cluster manager standing in for YARN or Kubernetes, so that `spark-eagle:<inner>`
 * delegation runs real jobs here. Like theirs, its manager builds its own scheduler
 * subclass, and its backend takes whatever scheduler it is handed:
 *
 *  - `stub://N`: a LocalSchedulerBackend with N task threads;
 *  - `stub://cluster[W,C,M]`: a LocalSparkCluster (W workers of C cores and M MiB, real
 *    executor JVMs) with a StandaloneSchedulerBackend;
 *  - `strict://N`: as `stub://N`, but the backend insists on [[StubTaskScheduler]] (a
 *    ClassCastException otherwise), as a manager whose backend cannot take another scheduler;
 *  - `dup://...`: claimed by this manager and by [[StubRivalManager]].
 *
 * Its scheduler, [[StubTaskScheduler]], puts every host on rack [[StubClusterManager.Rack]]
 * (as YARN's resolves racks), counts its start hook (as YARN cluster mode's) and has
 * `maxTaskFailures` [[StubClusterManager.MaxFailures]]. Every call is recorded in
 * [[StubClusterManager.events]] for the tests to read over py4j.
 */
class StubClusterManager extends ExternalClusterManager {
  import StubClusterManager._

  override def canCreate(masterURL: String): Boolean =
    masterURL.startsWith("stub://") || masterURL.startsWith("strict://") || masterURL.startsWith("dup://")

  override def createTaskScheduler(sc: SparkContext, masterURL: String): TaskScheduler = {
    record(s"createTaskScheduler $masterURL")
    new StubTaskScheduler(sc)
  }

  override def createSchedulerBackend(
      sc: SparkContext,
      masterURL: String,
      scheduler: TaskScheduler): SchedulerBackend = {
    record(s"createSchedulerBackend $masterURL ${scheduler.getClass.getName}")
    masterURL match {
      case ClusterRe(w, c, m) =>
        val cluster = LocalSparkCluster(w.toInt, c.toInt, m.toInt, sc.conf)
        val backend = new StandaloneSchedulerBackend(
          scheduler.asInstanceOf[TaskSchedulerImpl], sc, cluster.start())
        backend.shutdownCallback = (_: StandaloneSchedulerBackend) => cluster.stop()
        backend
      case ThreadsRe(n) =>
        new LocalSchedulerBackend(sc.getConf, scheduler.asInstanceOf[TaskSchedulerImpl], n.toInt)
      case StrictRe(n) =>
        new LocalSchedulerBackend(sc.getConf, scheduler.asInstanceOf[StubTaskScheduler], n.toInt)
      case other => throw new SparkException(s"stub: cannot serve '$other'")
    }
  }

  override def initialize(scheduler: TaskScheduler, backend: SchedulerBackend): Unit = {
    record(s"initialize ${scheduler.getClass.getName} ${backend.getClass.getName}")
    scheduler.asInstanceOf[TaskSchedulerImpl].initialize(backend)
  }
}

/** TEST ONLY: a second manager claiming `dup://`, for the several-claimants error. */
class StubRivalManager extends StubClusterManager {
  override def canCreate(masterURL: String): Boolean = masterURL.startsWith("dup://")
}

/** TEST ONLY: the stub manager's own scheduler (see [[StubClusterManager]]). */
class StubTaskScheduler(sc: SparkContext)
  extends TaskSchedulerImpl(sc, StubClusterManager.MaxFailures) {

  override def getRacksForHosts(hosts: Seq[String]): Seq[Option[String]] = {
    StubClusterManager.rackCalls.incrementAndGet()
    hosts.map(_ => Some(StubClusterManager.Rack))
  }

  override def postStartHook(): Unit = {
    StubClusterManager.record("postStartHook")
    super.postStartHook()
  }

  override def stop(exitCode: Int): Unit = {
    StubClusterManager.record("stop")
    super.stop(exitCode)
  }
}

object StubClusterManager {
  val Rack = "/stub-rack"
  val MaxFailures = 7

  private val ThreadsRe = """stub://([0-9]+)""".r
  private val StrictRe = """strict://([0-9]+)""".r
  private val ClusterRe = """stub://cluster\[([0-9]+),([0-9]+),([0-9]+)\]""".r

  private val log = new ConcurrentLinkedQueue[String]
  val rackCalls = new AtomicLong

  def record(event: String): Unit = log.add(event)

  /** The calls so far, oldest first. */
  def events(): java.util.List[String] = new java.util.ArrayList[String](log)

  def rackCallCount(): Long = rackCalls.get()

  def reset(): Unit = {
    log.clear()
    rackCalls.set(0)
  }
}
