/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import scala.collection.mutable

/**
 * Per SQL execution, its query key, and the rank of each of its stages among its stages of
 * the same kind (`map` or `result`) and width, in submission order: the parts of a query
 * stage's history signature that tell queries and a query's stages apart (their call sites
 * are all alike).
 *
 * A stage keeps its ordinal when Spark resubmits it (a retry is the same work). Only the
 * `capacity` executions seen last are kept, so a long-lived application holds a bounded
 * map; an execution evicted while still running would count its next stages from zero
 * again, which only makes their signatures collide as before. Not thread-safe: the
 * scheduler calls it under its own lock.
 */
private[eagle] final class SqlStageOrdinals(capacity: Int) {
  require(capacity > 0, "capacity must be positive")

  private final class Query {
    val byStage = new mutable.HashMap[Int, Int]
    val counts = new mutable.HashMap[(String, Int), Int]
    var key: Option[String] = None
  }

  private val queries = new java.util.LinkedHashMap[Long, Query](16, 0.75f, true) {
    override def removeEldestEntry(e: java.util.Map.Entry[Long, Query]): Boolean = size() > capacity
  }

  private def query(id: Long): Query = Option(queries.get(id)).getOrElse {
    val fresh = new Query
    queries.put(id, fresh)
    fresh
  }

  /** The query key of execution `id`: `compute`'s, computed the first time it is asked for
   *  (a query's key does not change while it runs, and computing it may print its plan). */
  def key(id: Long)(compute: => String): String = {
    val q = query(id)
    q.key.getOrElse {
      val k = compute
      q.key = Some(k)
      k
    }
  }

  /** The ordinal of `stage` of execution `id`, assigning the next one of its `kind` if new. */
  def ordinal(id: Long, stage: Int, kind: (String, Int)): Int = {
    val q = query(id)
    q.byStage.getOrElseUpdate(stage, {
      val n = q.counts.getOrElse(kind, 0)
      q.counts(kind) = n + 1
      n
    })
  }

  /** Whether `stage` of execution `id` has its ordinal already. */
  def known(id: Long, stage: Int): Boolean = Option(queries.get(id)).exists(_.byStage.contains(stage))

  /**
   * The ordinal `stage` has, or will have if it is submitted after `ahead` other new stages
   * of its kind (a stage still waiting for its parents). Assigns nothing.
   */
  def peek(id: Long, stage: Int, kind: (String, Int), ahead: Int): Int =
    Option(queries.get(id)) match {
      case Some(q) => q.byStage.getOrElse(stage, q.counts.getOrElse(kind, 0) + ahead)
      case None => ahead
    }
}
