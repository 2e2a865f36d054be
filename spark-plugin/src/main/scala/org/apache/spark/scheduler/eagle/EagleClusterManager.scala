/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.{SparkContext, SparkException}
import org.apache.spark.deploy.LocalSparkCluster
import org.apache.spark.internal.{config, Logging}
import org.apache.spark.resource.{ResourceProfile, ResourceProfileManager}
import org.apache.spark.scheduler.{ExternalClusterManager, SchedulerBackend, TaskScheduler}
import org.apache.spark.scheduler.cluster.StandaloneSchedulerBackend
import org.apache.spark.scheduler.local.LocalSchedulerBackend

/**
 * Serves masters `spark-eagle:<inner>` (registered in
 * `META-INF/services/org.apache.spark.scheduler.ExternalClusterManager`).
 *
 * `<inner>` is any of `local`, `local[N]`, `local[*]`, `local[N,F]`,
 * `local-cluster[workers,coresPerWorker,memoryPerWorkerMb]` or
 * `spark://host:port[,host:port]`; the stock backend for it is wrapped unchanged and the
 * task scheduler is an [[EagleTaskScheduler]]. (`spark-submit` only accepts masters that
 * start with spark/k8s/local/yarn, hence the `spark-` prefix.)
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
    val maxFailures = sc.conf.get(config.TASK_MAX_FAILURES)
    parse(masterURL) match {
      case Local(_, failures) =>
        new EagleTaskScheduler(sc, failures.getOrElse(maxFailures), isLocal = true, eagle, masterURL)
      case _ =>
        useStandaloneDefaultProfile(sc, masterURL.substring(Prefix.length).trim)
        new EagleTaskScheduler(sc, maxFailures, isLocal = false, eagle, masterURL)
    }
  }

  /**
   * Spark derives the default resource profile from the master URL before any cluster
   * manager runs: for masters starting with `spark://` or `local-cluster` an unset
   * `spark.executor.cores` means "all the worker's cores", for any other master it means 1.
   * Our `spark-eagle:` prefix would thus give standalone executors a single core each.
   * Rebuild the default profile as Spark does for the inner master and put it in place of
   * the one the ResourceProfileManager cached (private fields, hence reflection). If that
   * fails, say how to get the same effect by configuration.
   */
  private def useStandaloneDefaultProfile(sc: SparkContext, inner: String): Unit = {
    if (sc.conf.contains(config.EXECUTOR_CORES.key)) return // explicit: both agree already
    try {
      val fresh = ResourceProfile.reInitDefaultProfile(sc.conf.clone.set("spark.master", inner))
      val rpm = sc.resourceProfileManager
      def field(name: String) = {
        val f = classOf[ResourceProfileManager].getDeclaredField(name)
        f.setAccessible(true)
        f
      }
      field("defaultProfile").set(rpm, fresh)
      field("isStandaloneOrLocalCluster").setBoolean(rpm, true)
      field("resourceProfileIdToResourceProfile").get(rpm)
        .asInstanceOf[mutable.HashMap[Int, ResourceProfile]]
        .put(ResourceProfile.DEFAULT_RESOURCE_PROFILE_ID, fresh)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Eagle: could not give '$inner' executors Spark's standalone default of all " +
          s"worker cores (${e.getMessage}); executors get 1 core unless you set " +
          s"${config.EXECUTOR_CORES.key}")
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
    }
  }

  override def initialize(scheduler: TaskScheduler, backend: SchedulerBackend): Unit =
    scheduler.asInstanceOf[EagleTaskScheduler].initialize(backend)
}

private[spark] object EagleClusterManager {
  /** A constant, inlined into canCreate: no Scala code runs before the version guard. */
  final val Prefix = "spark-eagle:"

  sealed trait Inner
  case class Local(threads: Int, maxFailures: Option[Int]) extends Inner
  case class LocalCluster(workers: Int, coresPerWorker: Int, memoryMb: Int) extends Inner
  case class Standalone(masterUrls: Array[String]) extends Inner

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
      case other =>
        throw new SparkException(s"Could not parse Eagle master URL '$masterURL': inner master " +
          s"'$other' is not one of local, local[N], local[*], local[N,F], " +
          "local-cluster[workers,cores,memoryMb], spark://host:port[,host:port]")
    }
  }
}
