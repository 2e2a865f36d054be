/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import scala.util.control.NonFatal

import org.apache.spark.sql.execution.SQLExecution

/**
 * A SQL query's key from its plan: the analyzed logical plan as text, with the numbers Spark
 * draws per application (expression ids `#12`, `#12L`; CTE ids) taken out, hashed (FNV-1a 64).
 * The same query over the same tables has the same key in any session and application; two
 * queries that differ in a table, a column, an operator or a literal have different keys.
 *
 * A stage's history signature takes it for its query when the application names none: no job
 * description (a notebook's `spark.sql`), or one that names the session rather than the query
 * (every Spark Connect operation's is `Spark Connect - session_id: ...`, cut at 128
 * characters). Keyed by that, every query of a session shared its stages' signatures.
 * Tables of one schema read as files print alike and share a key; their stages still differ
 * by width and call site where those differ.
 */
private[eagle] object SqlPlanKey {
  private val Ids = "#\\d+L?|(?<=CTERelation(?:Def|Ref) )\\d+".r

  /** The key of the running SQL execution `id`, or None when Spark holds no plan for it. */
  def of(id: Long): Option[String] =
    try {
      Option(SQLExecution.getQueryExecution(id)).map { qe =>
        f"plan ${EagleTaskScheduler.fnv1a64(Ids.replaceAllIn(qe.analyzed.toString, "#"))}%016x"
      }
    } catch {
      case e: Throwable if NonFatal(e) || e.isInstanceOf[LinkageError] => None
    }
}
