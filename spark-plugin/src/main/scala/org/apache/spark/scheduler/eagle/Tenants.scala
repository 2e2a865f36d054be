/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.Properties

import scala.util.{Failure, Try}

import org.apache.spark.SparkContext
import org.apache.spark.scheduler.{FairSchedulableBuilder, Pool, SchedulingMode}

/**
 * Who a task set runs for, as the engine's tenants (eagle-core `tenant`): a scheduler pool
 * (`spark.scheduler.pool`, set by a thread, or by the Thrift server for a session that ran
 * `SET spark.sql.thriftserver.scheduler.pool=...`), else a Spark Connect session (from the
 * job tag the Connect server puts on every operation's jobs). A pool's `weight` and
 * `minShare` are read, as Spark's FAIR scheduler reads them, from
 * `spark.scheduler.allocation.file` (or `fairscheduler.xml` on the class path); a pool the
 * file does not name, and every Connect session, has weight 1 and no minimum share.
 */
private[eagle] final class Tenants(sc: SparkContext) {

  /** The pools of the allocation file, as Spark's FAIR scheduler would build them (read at
   *  start when `spark.scheduler.allocation.file` is set, so that a bad file stops the
   *  application naming it; else when a task set first names a pool). */
  private lazy val pools: Pool = {
    val root = new Pool("", SchedulingMode.FAIR, 0, 0)
    val file = sc.getConf.getOption("spark.scheduler.allocation.file")
    Try(new FairSchedulableBuilder(root, sc).buildPools()) match {
      case Failure(e) if file.isDefined =>
        throw new IllegalArgumentException(
          s"Eagle: spark.scheduler.allocation.file=${file.get} could not be read as a FAIR " +
            s"scheduler allocation file: ${e.getMessage}", e)
      case _ => root
    }
  }
  if (sc.getConf.contains("spark.scheduler.allocation.file")) pools

  /** The tenant of a task set with these local properties, if it has one. */
  def of(props: Properties): Option[Tenant] = Option(props).flatMap { p =>
    Option(p.getProperty("spark.scheduler.pool")).filter(_.nonEmpty).map { name =>
      val pool = Option(pools.getSchedulableByName(name))
      Tenant(s"pool $name", None, pool.map(_.weight).getOrElse(1), pool.map(_.minShare).getOrElse(0))
    }.orElse(Tenants.connectSession(p).map { case (user, session) =>
      Tenant(s"session $session", Some(user), 1, 0)
    })
  }
}

/** A tenant: its name (`pool NAME` or `session ID`), the user behind it if known, its share. */
private[eagle] case class Tenant(name: String, user: Option[String], weight: Int, minShare: Int) {
  def id: Long = EagleTaskScheduler.fnv1a64(name)

  /** The engine's weight: Spark allows a pool weight of 0; the engine ranks such a pool's
   *  work last (a thousandth of weight 1) and its deadline still bounds its wait. */
  def engineWeight: Double = math.max(weight.toDouble, 1e-3)
}

private[eagle] object Tenants {
  private val ConnectTag = "SparkConnect_OperationTag_User_(.*)_Session_(.*)_Operation_(.*)".r

  /** `(user, session)` of a Spark Connect operation, from its job tags (`spark.job.tags`). */
  def connectSession(p: Properties): Option[(String, String)] =
    Option(p.getProperty("spark.job.tags")).toSeq.flatMap(_.split(",")).collectFirst {
      case ConnectTag(user, session, _) => (user, session)
    }
}
