/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.nio.charset.StandardCharsets
import java.util.UUID

import scala.util.Try

import org.json4s._

import org.apache.spark.internal.Logging
import org.apache.spark.scheduler.TaskDescription

/**
 * Cluster mode in the driver (`spark.scheduler.eagle.cluster.central`; Eagle SoCC'16
 * §5): the application shares the worker hosts with other applications at task level. Every
 * host's `eagle-node` owns the host's slots and grants them to the applications' drivers;
 * `eagle-central` places every application's long task sets.
 *
 * The decisions are native (rust/eagle-client/src/grants.rs): this class
 * only forwards. The engine's `offer` plans a slot only under a grant of the executor's host,
 * so Spark launches only under grants, and TaskSetManagers still pick the task (retries,
 * speculation, locality). After each offer round the launches go back with `roundEnd` (each
 * takes its grant; grants left over are returned at once), and every task's final status
 * ends its lease by task id (`taskEnded`), whatever became of its task set.
 *
 * A thread waits natively for grants and asks Spark for an offer round when one arrives
 * (`reviveOffers`), so a granted slot is used without waiting for a task event.
 */
private[eagle] final class ClusterMode(
    engine: EagleEngine,
    conf: ClusterConf,
    appName: String,
    revive: () => Unit) extends Logging {

  /** This application's id for the daemons (their status lines and logs show it). */
  val appId: String = {
    val base = appName.replaceAll("[^A-Za-z0-9._-]", "_").take(40)
    s"$base-${UUID.randomUUID().toString.take(8)}"
  }

  @volatile private var running = true

  private val waiter = new Thread("eagle-cluster-grants") {
    override def run(): Unit = {
      var seen = 0L
      while (running && engine.active) {
        engine.call("awaitGrants")(_.awaitGrants(_, seen, 1000L)) match {
          case Some(n) if n > seen =>
            seen = n
            Try(revive())
          case Some(n) if n < 0 => running = false
          case Some(_) =>
          case None => running = false
        }
      }
    }
  }
  waiter.setDaemon(true)

  /** Links to the central; the hosts come with the executors. */
  def start(): Unit = {
    engine.call("clusterStart")(_.clusterStart(_, conf.central.getBytes(StandardCharsets.UTF_8),
      conf.nodePort, conf.secret, appId.getBytes(StandardCharsets.UTF_8), conf.pingMs, conf.warmGrants, conf.affinity))
    if (engine.active) {
      logInfo(s"Eagle cluster mode: application $appId, central ${conf.central}, " +
        s"eagle-node on port ${conf.nodePort} of every executor host")
      waiter.start()
    }
  }

  /** This offer round's answers of [[outOfReach]], by task set (the scheduler's lock guards it). */
  private val reach = new scala.collection.mutable.HashMap[Int, Set[Int]]

  /** An offer round starts: the short-only hosts are asked afresh. */
  def roundStart(): Unit = reach.clear()

  /**
   * The executors (engine nodes) where task set `job` cannot get a slot (empty: none), asked
   * once per offer round: Spark offers a task set every executor at every locality level.
   */
  def outOfReach(job: Int): Set[Int] = reach.getOrElseUpdate(job,
    engine.call("clusterOutOfReach")(_.clusterOutOfReach(_, job)).fold(Set.empty[Int])(_.toSet))

  def executorAdded(node: Int, host: String): Unit =
    engine.call("executorHost")(_.executorHost(_, node, host.getBytes(StandardCharsets.UTF_8)))

  /** The round's launches: each is bound to its grant, the rest of the grants go back. */
  def roundEnd(nowMs: Long, launched: Seq[TaskDescription], nodeOf: String => Option[Int], jobOf: Long => Int): Unit = {
    val rows = launched.flatMap(t => nodeOf(t.executorId).map(n => (t.taskId, n, jobOf(t.taskId))))
      .filter(_._3 >= 0)
    engine.call("roundEnd")(_.roundEnd(_, nowMs, rows.map(_._1).toArray, rows.map(_._2).toArray, rows.map(_._3).toArray))
  }

  def taskEnded(tid: Long): Unit = engine.call("taskEnded")(_.taskEnded(_, tid))

  /** Grants waiting for an offer round that can use them (0 when the engine is gone). */
  def heldGrants: Long = engine.observe("clusterStatus")(_.clusterStatus(_))
    .collect { case v if v.length > ClusterMode.HeldGrants => v(ClusterMode.HeldGrants) }
    .getOrElse(0L)

  /** The run summary's `cluster` section. */
  def json: JValue = {
    val v = engine.observe("clusterStatus")(_.clusterStatus(_)).getOrElse(Array.empty[Long])
    JObject(
      ("app" -> JString(appId)) :: ("central" -> JString(conf.central)) :: ("nodePort" -> JInt(conf.nodePort)) ::
        Native.ClusterStatusNames.zip(v).map { case (k, x) => k -> (JInt(BigInt(x)): JValue) }.toList)
  }

  def stop(): Unit = {
    running = false
    waiter.interrupt()
  }
}

private[eagle] object ClusterMode {
  private val HeldGrants = Native.ClusterStatusNames.indexOf("heldGrants")
}
