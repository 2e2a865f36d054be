/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.spark.{SparkContext, SparkException}
import org.apache.spark.deploy.LocalSparkCluster
import org.apache.spark.internal.{config, Logging}
import org.apache.spark.scheduler.{ExternalClusterManager, SchedulerBackend, TaskScheduler, TaskSchedulerImpl}
import org.apache.spark.scheduler.cluster.StandaloneSchedulerBackend
import org.apache.spark.scheduler.local.LocalSchedulerBackend

/**
 * Serves masters `spark-eagle:<inner>` (registered in
 * `META-INF/services/org.apache.spark.scheduler.ExternalClusterManager`); the task scheduler
 * is always an [[EagleTaskScheduler]], the backend is the one `<inner>` would get:
 *  - `local`, `local[N]`, `local[*]`, `local[N,F]`,
 *    `local-cluster[workers,coresPerWorker,memoryPerWorkerMb]` and
 *    `spark://host:port[,host:port]`, which Spark serves itself (no external cluster
 *    manager exists for them): built here as `SparkContext.createTaskScheduler` does;
 *  - any other `<inner>` (`yarn`, `k8s://...`, a third party's): the external cluster
 *    manager that claims it (see [[InnerMaster.claimant]]) builds its own backend around the
 *    Eagle scheduler and initializes it; the scheduler it built for itself is kept for rack
 *    resolution and its start hook (see [[InnerScheduler]]).
 * (`spark-submit` only accepts masters that start with spark/k8s/local/yarn, hence the
 * `spark-` prefix; it treats `spark-eagle:` masters as standalone ones.)
 *
 * Unlike stock local masters, `spark-eagle:local[N]` honours `spark.task.maxFailures`
 * (default 4), so a failing task is retried as on a cluster; `local[N,F]` sets F explicitly.
 */
private[spark] class EagleClusterManager extends ExternalClusterManager with Logging {
  import EagleClusterManager._

  /** Ours: `spark-eagle:` masters, in the Spark line the jar was built for (else it throws). */
  override def canCreate(masterURL: String): Boolean = {
    val ours = masterURL.startsWith(Prefix)
    if (ours) EagleVersionGuard.check()
    ours
  }

  override def createTaskScheduler(sc: SparkContext, masterURL: String): TaskScheduler = {
    val eagle = EagleConf.fromSparkConf(sc.conf)
    poolsNotice(sc.conf.get("spark.scheduler.mode", "FIFO"), sc.conf.getOption("spark.scheduler.allocation.file"))
      .foreach(logWarning(_))
    val maxFailures = sc.conf.get(config.TASK_MAX_FAILURES)
    parse(masterURL) match {
      case Local(_, failures) =>
        new EagleTaskScheduler(sc, failures.getOrElse(maxFailures), isLocal = true, eagle, masterURL)
      case External(inner) =>
        val manager = InnerMaster.claimant(masterURL, inner)
        logInfo(s"Eagle: inner master '$inner' is served by ${manager.getClass.getName}")
        InnerMaster.useInnerMasterProfiles(sc, inner)
        manager.createTaskScheduler(sc, inner) match {
          case own: TaskSchedulerImpl =>
            try {
              new EagleTaskScheduler(sc, own.maxTaskFailures, InnerMaster.isLocal(own), eagle,
                masterURL, Some(InnerScheduler(manager, inner, own)))
            } catch {
              case NonFatal(e) =>
                Try(own.stop()) // its timers: nobody else will stop it
                throw e
            }
          case other =>
            Try(other.stop())
            throw new SparkException(s"Eagle master URL '$masterURL': ${manager.getClass.getName} " +
              s"serves '$inner' with its own task scheduler ${other.getClass.getName}, which is not " +
              "a TaskSchedulerImpl: Eagle cannot take its place")
        }
      case _ =>
        InnerMaster.useInnerMasterProfiles(sc, masterURL.substring(Prefix.length).trim)
        new EagleTaskScheduler(sc, maxFailures, isLocal = false, eagle, masterURL)
    }
  }

  override def createSchedulerBackend(
      sc: SparkContext,
      masterURL: String,
      scheduler: TaskScheduler): SchedulerBackend = {
    val sched = scheduler.asInstanceOf[EagleTaskScheduler]
    parse(masterURL) match {
      case Local(threads, _) =>
        new LocalSchedulerBackend(sc.getConf, sched, threads)
      case LocalCluster(workers, cores, memoryMb) =>
        // Mirrors SparkContext.createTaskScheduler for local-cluster.
        if (sc.executorMemory > memoryMb) {
          throw new SparkException(s"Asked to launch cluster with $memoryMb MiB/worker but " +
            s"requested ${sc.executorMemory} MiB/executor")
        }
        sc.conf.setIfMissing(config.SHUFFLE_HOST_LOCAL_DISK_READING_ENABLED, false)
        val cluster = LocalSparkCluster(workers, cores, memoryMb, sc.conf)
        val masterUrls = cluster.start()
        val backend = new StandaloneSchedulerBackend(sched, sc, masterUrls)
        backend.shutdownCallback = (_: StandaloneSchedulerBackend) => cluster.stop()
        backend
      case Standalone(urls) =>
        new StandaloneSchedulerBackend(sched, sc, urls)
      case External(_) =>
        val inner = innerOf(sched, masterURL)
        try inner.manager.createSchedulerBackend(sc, inner.url, sched) catch {
          case NonFatal(e) =>
            // SparkContext never sees this scheduler: stop its engine and threads here.
            Try(sched.discard())
            e match {
              case _: ClassCastException =>
                throw new SparkException(s"Eagle master URL '$masterURL': the backend of " +
                  s"${inner.manager.getClass.getName} for '${inner.url}' requires that manager's " +
                  s"own task scheduler class (${inner.scheduler.getClass.getName}); Eagle cannot " +
                  s"take its place (${e.getMessage})", e)
              case _ => throw e
            }
        }
    }
  }

  override def initialize(scheduler: TaskScheduler, backend: SchedulerBackend): Unit = {
    val sched = scheduler.asInstanceOf[EagleTaskScheduler]
    sched.inner match {
      case Some(inner) =>
        // The manager's own initialize (YARN's and Kubernetes' call TaskSchedulerImpl.initialize);
        // one that does something else must still leave the Eagle scheduler initialized.
        inner.manager.initialize(sched, backend)
        if (sched.backend == null) sched.initialize(backend)
      case None =>
        sched.initialize(backend)
    }
  }

  private def innerOf(sched: EagleTaskScheduler, masterURL: String): InnerScheduler =
    sched.inner.getOrElse(throw new SparkException(
      s"Eagle master URL '$masterURL': the scheduler was created without its inner cluster manager"))
}

private[spark] object EagleClusterManager {
  /** A constant, inlined into canCreate: no Scala code runs before the version guard. */
  final val Prefix = "spark-eagle:"

  /**
   * The warning for an application that asks for Spark's FAIR scheduler under an Eagle master
   * (often a `spark-defaults.conf` left from before): Spark still builds the pools, but the
   * engine chooses the task set of every slot, so the pools' weights and minShares do not
   * apply. None under FIFO.
   */
  def poolsNotice(mode: String, allocationFile: Option[String]): Option[String] =
    if (mode.trim.equalsIgnoreCase("FAIR")) {
      val file = allocationFile.map(f => s" (from $f)").getOrElse("")
      Some(s"Eagle: spark.scheduler.mode=FAIR is set, but Spark's FAIR pools$file are not applied " +
        s"under a $Prefix master: the Eagle policy chooses the task set of every slot (pools' " +
        "weights and minShares, and spark.scheduler.pool, have no effect; barrier stages still " +
        "take their slots in pool order). To mark interactive and batch jobs, set the local " +
        "property spark.scheduler.eagle.job.class to short or long.")
    } else {
      None
    }

  sealed trait Inner
  case class Local(threads: Int, maxFailures: Option[Int]) extends Inner
  case class LocalCluster(workers: Int, coresPerWorker: Int, memoryMb: Int) extends Inner
  case class Standalone(masterUrls: Array[String]) extends Inner
  /** Served by the external cluster manager that claims it (YARN, Kubernetes, ...). */
  case class External(url: String) extends Inner

  private val LocalN = """local\[([0-9]+|\*)\]""".r
  private val LocalNF = """local\[([0-9]+|\*)\s*,\s*([0-9]+)\]""".r
  private val LocalClusterRe = """local-cluster\[\s*([0-9]+)\s*,\s*([0-9]+)\s*,\s*([0-9]+)\s*\]""".r
  private val SparkRe = """spark://(.*)""".r

  private def threads(n: String, url: String): Int = {
    val t = if (n == "*") Runtime.getRuntime.availableProcessors() else n.toInt
    if (t <= 0) throw new SparkException(s"Asked to run locally with $t threads ($url)")
    t
  }

  def parse(masterURL: String): Inner = {
    if (!masterURL.startsWith(Prefix)) {
      throw new SparkException(s"Not an Eagle master URL: '$masterURL'")
    }
    masterURL.substring(Prefix.length).trim match {
      case "local" => Local(1, None)
      case LocalN(n) => Local(threads(n, masterURL), None)
      case LocalNF(n, f) => Local(threads(n, masterURL), Some(f.toInt))
      case LocalClusterRe(w, c, m) => LocalCluster(w.toInt, c.toInt, m.toInt)
      case SparkRe(hosts) if hosts.nonEmpty => Standalone(hosts.split(",").map("spark://" + _.trim))
      case "" =>
        throw new SparkException(s"Eagle master URL '$masterURL' has no inner master: " +
          s"expected one of ${InnerMaster.BuiltIn}, or a master an external cluster manager " +
          "serves (yarn, k8s://https://host:port, ...)")
      case other if other.startsWith("local") || other.startsWith("spark://") =>
        throw new SparkException(s"Could not parse Eagle master URL '$masterURL': inner master " +
          s"'$other' is not one of ${InnerMaster.BuiltIn}")
      case other => External(other)
    }
  }
}
