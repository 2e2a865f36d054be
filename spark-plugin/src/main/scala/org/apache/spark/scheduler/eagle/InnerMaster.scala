/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.{ServiceConfigurationError, ServiceLoader}

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer
import scala.util.control.NonFatal

import org.apache.spark.{SparkContext, SparkException}
import org.apache.spark.internal.{config, Logging}
import org.apache.spark.resource.{ResourceProfile, ResourceProfileManager}
import org.apache.spark.scheduler.{ExternalClusterManager, LiveListenerBus, TaskSchedulerImpl}
import org.apache.spark.util.Utils

/**
 * The inner master of `spark-eagle:<inner>` when an external cluster manager serves it
 * (YARN, Kubernetes, a third party): the manager that claims `url`, and the task scheduler
 * that manager built for it. That scheduler never schedules anything — [[EagleTaskScheduler]]
 * takes its place in front of the manager's backend — but it is kept, uninitialized and
 * unstarted, for the little a manager's scheduler subclass adds on top of
 * `TaskSchedulerImpl`: its rack resolution (`getRacksForHosts`, e.g. YARN's topology
 * script) and its `postStartHook` (e.g. YARN cluster mode tells its ApplicationMaster there
 * that the SparkContext is up). Its `maxTaskFailures` and local flag are carried over too.
 */
private[spark] case class InnerScheduler(
    manager: ExternalClusterManager,
    url: String,
    scheduler: TaskSchedulerImpl)

private[spark] object InnerMaster extends Logging {

  /** What a `spark-eagle:` master may wrap without an external cluster manager. */
  val BuiltIn = "local, local[N], local[*], local[N,F], local-cluster[workers,cores,memoryMb], " +
    "spark://host:port[,host:port]"

  /**
   * The external cluster managers registered with `java.util.ServiceLoader` on the context
   * class loader (where `SparkContext` looks for them), without Eagle's own; and a
   * description of every provider that could not be loaded.
   */
  def managers(): (Seq[ExternalClusterManager], Seq[String]) = {
    val found = new ArrayBuffer[ExternalClusterManager]
    val broken = new ArrayBuffer[String]
    val it = ServiceLoader.load(classOf[ExternalClusterManager], Utils.getContextOrSparkClassLoader)
      .iterator()
    // A provider that fails to load throws from hasNext/next; the iterator moves on to the
    // next one. The bound stops a loader that keeps throwing the same error.
    var more = true
    while (more && broken.size < 100) {
      try {
        more = it.hasNext
        if (more) {
          val m = it.next()
          if (m.getClass.getName != classOf[EagleClusterManager].getName) found += m
        }
      } catch {
        case e: ServiceConfigurationError => broken += e.getMessage
      }
    }
    (found.toSeq, broken.toSeq)
  }

  /**
   * The one external cluster manager that claims `inner` (its `canCreate`), or a
   * SparkException naming the master, the inner URL and the candidates.
   */
  def claimant(masterUrl: String, inner: String): ExternalClusterManager = {
    if (inner.startsWith(EagleClusterManager.Prefix)) {
      throw new SparkException(s"Eagle master URL '$masterUrl': the inner master '$inner' is " +
        s"itself an Eagle master; ${EagleClusterManager.Prefix} cannot be nested")
    }
    val (all, broken) = managers()
    val refused = new ArrayBuffer[String]
    val claims = all.filter { m =>
      try m.canCreate(inner) catch {
        case NonFatal(e) =>
          refused += s"${m.getClass.getName}.canCreate threw ${e.getClass.getSimpleName}: ${e.getMessage}"
          false
      }
    }
    def names(ms: Seq[ExternalClusterManager]) =
      if (ms.isEmpty) "none" else ms.map(_.getClass.getName).mkString(", ")
    def notes = (refused ++ broken.map("could not load: " + _)).map("; " + _).mkString
    claims match {
      case Seq(one) => one
      case Seq() =>
        throw new SparkException(s"Eagle master URL '$masterUrl': no cluster manager claims the " +
          s"inner master '$inner'. Built in: $BuiltIn; external cluster managers on the driver's " +
          s"class path: ${names(all)}$notes")
      case several =>
        throw new SparkException(s"Eagle master URL '$masterUrl': several cluster managers claim " +
          s"the inner master '$inner': ${names(several)}. Keep only one of them on the driver's " +
          "class path")
    }
  }

  /** The `isLocal` flag the inner manager gave its scheduler (false if it cannot be read). */
  def isLocal(s: TaskSchedulerImpl): Boolean = {
    try {
      val f = classOf[TaskSchedulerImpl].getDeclaredField("isLocal")
      f.setAccessible(true)
      f.getBoolean(s)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Eagle: could not read the inner scheduler's local flag (${e.getMessage}); " +
          "assuming a cluster")
        false
    }
  }

  /** ResourceProfileManager fields that Spark derives from `spark.master`. */
  private val MasterFields = Seq("master", "isYarn", "isK8s", "isStandaloneOrLocalCluster")

  /**
   * Spark derives two things from `spark.master` before any cluster manager runs, and our
   * `spark-eagle:` prefix hides the inner master from both:
   *  - the default resource profile: for `spark://` and `local-cluster` masters an unset
   *    `spark.executor.cores` means "all the worker's cores", for any other master 1, so
   *    standalone executors would get a single core each;
   *  - the ResourceProfileManager's idea of the cluster (YARN, Kubernetes, standalone), which
   *    decides whether stage-level scheduling (non-default profiles) is allowed: with
   *    `spark-eagle:yarn` it would be refused.
   * Both are recomputed by Spark's own code for the inner master — a default profile, and a
   * throwaway ResourceProfileManager whose master fields are copied — and put in place in
   * the live manager (private fields, hence reflection). If that fails, say what is lost.
   */
  def useInnerMasterProfiles(sc: SparkContext, inner: String): Unit = {
    val innerConf = sc.conf.clone.set("spark.master", inner)
    val rpm = sc.resourceProfileManager
    def field(name: String) = {
      val f = classOf[ResourceProfileManager].getDeclaredField(name)
      f.setAccessible(true)
      f
    }
    try {
      val probe = new ResourceProfileManager(innerConf, new LiveListenerBus(innerConf))
      MasterFields.foreach(n => field(n).set(rpm, field(n).get(probe)))
    } catch {
      case NonFatal(e) =>
        logWarning(s"Eagle: could not tell Spark's resource profile manager that the inner " +
          s"master is '$inner' (${e.getMessage}); stage-level scheduling (non-default resource " +
          "profiles) may be refused")
    }
    if (sc.conf.contains(config.EXECUTOR_CORES.key)) return // explicit: both agree already
    try {
      val fresh = ResourceProfile.reInitDefaultProfile(innerConf)
      field("defaultProfile").set(rpm, fresh)
      field("resourceProfileIdToResourceProfile").get(rpm)
        .asInstanceOf[mutable.HashMap[Int, ResourceProfile]]
        .put(ResourceProfile.DEFAULT_RESOURCE_PROFILE_ID, fresh)
    } catch {
      case NonFatal(e) =>
        logWarning(s"Eagle: could not give '$inner' executors Spark's default executor cores " +
          s"for that master (${e.getMessage}); set ${config.EXECUTOR_CORES.key} explicitly")
    }
  }
}
