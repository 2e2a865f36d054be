/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths, StandardCopyOption}

import scala.collection.mutable

import org.json4s._
import org.json4s.jackson.JsonMethods

import org.apache.spark.scheduler._

/**
 * Collects what the run summary reports and writes it as JSON
 * (`spark.scheduler.eagle.summary.path`) when the SparkContext stops.
 *
 * Spark jobs come from the listener bus (id, description, job group, stage ids, submit and
 * end time in epoch ms); task sets come from the scheduler (stage, attempt, Spark job, engine
 * job, tasks, class and estimate at submission and at the end). Thread-safe.
 *
 * Bounded: at most `summary.maxTaskSets` task sets and as many Spark jobs are kept in detail
 * (oldest dropped first, like a ring); the counts (`taskSetsTotal`, `jobsTotal`) and the
 * overall locality mix stay exact. Each task set's `delayHistory` is the engine's, which is
 * capped (rust/eagle-core/src/locality/delay.rs, `MAX_HISTORY_SAMPLES`).
 */
private[eagle] class EagleSummary(conf: EagleConf, master: String) extends SparkListener {

  private case class JobRec(
      id: Int, description: String, group: String, stageIds: Seq[Int], submitMs: Long,
      var endMs: Long = -1L, var result: String = null)

  private case class TaskSetRec(
      stageId: Int, attempt: Int, sparkJobId: Int, eagleJob: Int, stageName: String,
      signature: Long, tasks: Int, hintClass: Int, hintEstimateMs: Long,
      submitClass: String, submitEstimateMs: Long, submitSource: String, submitMs: Long,
      var cls: String, var estimateMs: Long, var source: String, var endMs: Long = -1L,
      var launches: Array[Long] = null, var delayHistory: Array[Double] = null,
      tenant: Option[Tenant] = None)

  private val maxKept = math.max(1, conf.summaryMaxTaskSets)
  private val jobs = new mutable.LinkedHashMap[Int, JobRec]
  private val taskSets = new mutable.LinkedHashMap[(Int, Int), TaskSetRec]
  private var jobsTotal = 0L
  /** Launches per locality level over every task set, dropped ones included. */
  private val localityTotal = new Array[Long](Native.LevelNames.size)

  /** Drops the oldest entries beyond the bound. */
  private def trim[K, V](m: mutable.LinkedHashMap[K, V]): Unit =
    while (m.size > maxKept) m.remove(m.head._1)
  private var counters: Option[Array[Long]] = None
  private var fallbackReason: Option[String] = None
  // Plugin-side counters: offer rounds under a plan, slots planned, tasks launched in the
  // first pass, executors with declined slots, revive requests for idle slots, and the
  // executor offers Spark's own rounds went through.
  private val plugin = mutable.LinkedHashMap[String, Long](
    "rounds" -> 0L, "plannedSlots" -> 0L, "launchedFirstPass" -> 0L,
    "declineRounds" -> 0L, "reviveRequests" -> 0L, "offersToSpark" -> 0L)

  def round(planned: Int, launched: Int, declinedExecutors: Int): Unit = synchronized {
    plugin("rounds") += 1
    plugin("plannedSlots") += planned
    plugin("launchedFirstPass") += launched
    if (declinedExecutors > 0) plugin("declineRounds") += 1
  }

  /** (Spark jobs kept, task sets kept, task sets seen in total). */
  def sizes: (Int, Int, Long) = synchronized { (jobs.size, taskSets.size, taskSetsTotal) }
  private var taskSetsTotal = 0L

  def reviveRequested(): Unit = synchronized { plugin("reviveRequests") += 1 }

  def offeredToSpark(offers: Int): Unit = synchronized { plugin("offersToSpark") += offers }

  /** The plugin-side counters (names and values), as the summary's `plugin` object. */
  def pluginCounters: Seq[(String, Long)] = synchronized { plugin.toList }

  private def source(code: Long): String =
    if (code >= 0 && code < Native.EstimateSources.size) Native.EstimateSources(code.toInt) else null

  override def onJobStart(e: SparkListenerJobStart): Unit = synchronized {
    val p = Option(e.properties)
    jobsTotal += 1
    jobs(e.jobId) = JobRec(e.jobId,
      p.map(_.getProperty("spark.job.description")).orNull,
      p.map(_.getProperty("spark.jobGroup.id")).orNull,
      e.stageIds, e.time)
    trim(jobs)
  }

  override def onJobEnd(e: SparkListenerJobEnd): Unit = synchronized {
    jobs.get(e.jobId).foreach { j =>
      j.endMs = e.time
      j.result = e.jobResult match {
        case JobSucceeded => "succeeded"
        case _ => "failed"
      }
    }
  }

  def taskSetSubmitted(
      ts: TaskSet, stageName: String, signature: Long, eagleJob: Int,
      hintClass: Int, hintEstimateMs: Long, info: Array[Long],
      tenant: Option[Tenant] = None): Unit = synchronized {
    val cls = Native.className(info(0))
    taskSetsTotal += 1
    taskSets((ts.stageId, ts.stageAttemptId)) = TaskSetRec(ts.stageId, ts.stageAttemptId,
      ts.priority, eagleJob, stageName, signature, ts.tasks.length, hintClass, hintEstimateMs,
      cls, info(1), source(info(2)), System.currentTimeMillis(), cls, info(1), source(info(2)),
      tenant = tenant)
    trim(taskSets)
  }

  def taskSetEnded(ts: TaskSet, info: Option[Array[Long]]): Unit = synchronized {
    taskSets.get((ts.stageId, ts.stageAttemptId)).foreach { r =>
      r.endMs = System.currentTimeMillis()
      info.filter(_(0) >= 0).foreach { i =>
        r.cls = Native.className(i(0))
        r.estimateMs = i(1)
        r.source = source(i(2))
      }
    }
  }

  /**
   * A task set's launches per locality level (TaskLocality id) and, with DDS, its interval
   * history as flattened `(atMs, level, intervalMs)` triples (engine time: ms since the
   * scheduler started).
   */
  def taskSetLocality(ts: TaskSet, launches: Array[Long], history: Option[Array[Double]]): Unit =
    synchronized {
      launches.iterator.take(localityTotal.length).zipWithIndex.foreach { case (n, i) => localityTotal(i) += n }
      taskSets.get((ts.stageId, ts.stageAttemptId)).foreach { r =>
        r.launches = launches.clone()
        history.foreach(h => r.delayHistory = h.clone())
      }
    }

  private def localityJson(counts: Array[Long]): JValue = {
    val total = counts.sum
    JObject(Native.LevelNames.zip(counts).toList.map { case (k, n) =>
      k -> (if (total > 0) JDouble(n.toDouble / total) else JDouble(0.0))
    })
  }

  private def countsJson(counts: Array[Long]): JValue =
    JObject(Native.LevelNames.zip(counts).toList.map { case (k, n) => k -> num(n) })

  private def historyJson(h: Array[Double]): JValue =
    JArray(h.grouped(3).filter(_.length == 3).toList.map { t =>
      val lvl = t(1).toInt
      JObject(
        "atMs" -> num(math.round(t(0))),
        "level" -> JString(if (lvl >= 0 && lvl < Native.LevelNames.size) Native.LevelNames(lvl) else lvl.toString),
        "intervalMs" -> JDouble(t(2)))
    })

  def setCounters(c: Array[Long]): Unit = synchronized { counters = Some(c.clone()) }

  /** The engine's adaptive state over time: `(atMs, reservedSlots, cutoffMs)` triples. */
  private var adaptive: Array[Double] = Array.empty
  def setAdaptive(h: Array[Double]): Unit = synchronized { adaptive = h.clone() }

  /** The measured warm-up of a task set on a new executor, at the end (ms). */
  private var warmupMs: Option[Long] = None
  def setWarmupMs(ms: Long): Unit = synchronized { warmupMs = Some(ms) }

  private def adaptiveJson: JValue = JObject(
    "policy" -> JString(conf.policy),
    "warmupMs" -> warmupMs.map(num).getOrElse(JNull),
    "history" -> JArray(adaptive.grouped(3).filter(_.length == 3).toList.map { t =>
      JObject(
        "atMs" -> num(math.round(t(0))),
        "reservedSlots" -> JInt(t(1).toInt),
        "cutoffMs" -> (if (t(2) < 0) JNull else JDouble(t(2))))
    }))

  /** Extra top-level sections (e.g. `eirene`), in the order first set. */
  private val sections = mutable.LinkedHashMap.empty[String, JValue]
  def setSection(name: String, v: JValue): Unit = synchronized { sections(name) = v }

  def setFallback(reason: Option[String]): Unit = synchronized { fallbackReason = reason }

  private def str(s: String): JValue = if (s == null) JNull else JString(s)
  private def num(v: Long): JValue = JInt(BigInt(v))
  private def any(v: Any): JValue = v match {
    case null => JNull
    case s: String => JString(s)
    case b: Boolean => JBool(b)
    case i: Int => JInt(i)
    case l: Long => JInt(l)
    case d: Double => JDouble(d)
    case o => JString(o.toString)
  }

  def toJson: JValue = synchronized {
    // Classes per stage, once: O(jobs + task sets) rather than O(jobs x task sets).
    val stageClasses = new mutable.HashMap[Int, mutable.Set[String]]
    taskSets.values.foreach(t => stageClasses.getOrElseUpdate(t.stageId, mutable.Set.empty) += t.cls)
    def jobClass(j: JobRec): String = {
      val classes = j.stageIds.iterator.flatMap(s => stageClasses.getOrElse(s, Nil)).toSet
      if (classes.contains("long")) "long" else if (classes.contains("short")) "short" else null
    }
    JObject(
      "format" -> JString("eagle-summary/1"),
      "master" -> JString(master),
      "fallback" -> JBool(fallbackReason.isDefined),
      "fallbackReason" -> fallbackReason.map(JString(_)).getOrElse(JNull),
      "config" -> JObject(conf.asMap.map { case (k, v) => k -> any(v) }.toList),
      "counters" -> counters.map { c =>
        JObject(Native.CounterNames.zip(c).map { case (k, v) => k -> num(v) }.toList)
      }.getOrElse(JNull),
      "plugin" -> JObject(plugin.toList.map { case (k, v) => k -> num(v) }),
      "adaptive" -> adaptiveJson,
      "locality" -> JObject("launches" -> countsJson(localityTotal), "fractions" -> localityJson(localityTotal)),
      "jobsTotal" -> num(jobsTotal),
      "jobsDropped" -> num(jobsTotal - jobs.size),
      "taskSetsTotal" -> num(taskSetsTotal),
      "taskSetsDropped" -> num(taskSetsTotal - taskSets.size),
      "jobs" -> JArray(jobs.values.toList.map { j =>
        JObject(
          "jobId" -> JInt(j.id),
          "description" -> str(j.description),
          "jobGroup" -> str(j.group),
          "class" -> str(jobClass(j)),
          "stageIds" -> JArray(j.stageIds.toList.map(JInt(_))),
          "submitMs" -> num(j.submitMs),
          "endMs" -> (if (j.endMs >= 0) num(j.endMs) else JNull),
          "result" -> str(j.result))
      }),
      "taskSets" -> JArray(taskSets.values.toList.map { t =>
        JObject(
          "stageId" -> JInt(t.stageId),
          "attempt" -> JInt(t.attempt),
          "jobId" -> JInt(t.sparkJobId),
          "eagleJob" -> JInt(t.eagleJob),
          "stageName" -> JString(t.stageName),
          "signature" -> JString(f"${t.signature}%016x"),
          "tasks" -> JInt(t.tasks),
          "hintClass" -> str(Native.className(t.hintClass)),
          "hintEstimateMs" -> (if (t.hintEstimateMs >= 0) num(t.hintEstimateMs) else JNull),
          "submitClass" -> str(t.submitClass),
          "submitEstimateMs" -> (if (t.submitEstimateMs >= 0) num(t.submitEstimateMs) else JNull),
          "submitEstimateSource" -> str(t.submitSource),
          "class" -> str(t.cls),
          "estimateMs" -> (if (t.estimateMs >= 0) num(t.estimateMs) else JNull),
          "estimateSource" -> str(t.source),
          "submitMs" -> num(t.submitMs),
          "endMs" -> (if (t.endMs >= 0) num(t.endMs) else JNull),
          "localityLaunches" -> Option(t.launches).map(countsJson).getOrElse(JNull),
          "locality" -> Option(t.launches).map(localityJson).getOrElse(JNull),
          "delayHistory" -> Option(t.delayHistory).map(historyJson).getOrElse(JNull),
          "tenant" -> str(t.tenant.map(_.name).orNull),
          "user" -> str(t.tenant.flatMap(_.user).orNull),
          "tenantWeight" -> t.tenant.map(x => num(x.weight)).getOrElse(JNull),
          "tenantMinShare" -> t.tenant.map(x => num(x.minShare)).getOrElse(JNull))
      })) match {
      case JObject(fields) => JObject(fields ++ sections.toList)
      case other => other
    }
  }

  /**
   * Writes the summary atomically (temporary file + rename). The temporary name is unique to
   * this process and call, so applications sharing a path never write into one another's.
   */
  def write(path: String): Unit = {
    val text = JsonMethods.pretty(JsonMethods.render(toJson))
    val target = Paths.get(path).toAbsolutePath
    Option(target.getParent).foreach(Files.createDirectories(_))
    val tmp = target.resolveSibling(
      s"${target.getFileName}.${ProcessHandle.current().pid()}.${EagleSummary.writes.incrementAndGet()}.tmp")
    Files.write(tmp, text.getBytes(StandardCharsets.UTF_8))
    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE)
  }
}

private[eagle] object EagleSummary {
  private val writes = new java.util.concurrent.atomic.AtomicLong
}
