/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle.ui

import scala.collection.mutable
import scala.util.Try
import scala.util.control.NonFatal

import org.apache.spark.internal.Logging
import org.apache.spark.scheduler.{SparkListener, SparkListenerEvent}
import org.apache.spark.scheduler.eagle.events._
import org.apache.spark.status.ElementTrackingStore
import org.apache.spark.status.KVUtils.KVIndexParam
import org.apache.spark.util.kvstore.KVStore

/*
 * The Eagle tab's data: rows in the application's status store (the KVStore behind the
 * Spark UI), written by [[EagleUIListener]] from the Eagle events. The same listener runs
 * on the live listener bus (live UI) and on the History Server's replay of the event log
 * (EagleHistoryServerPlugin), so both UIs show the same thing. Rows are plain classes:
 * a disk-backed History Server store serializes them with Jackson.
 */

/** The application: policy, master, configuration, and the last counters snapshot. */
class EagleAppRow(
    @KVIndexParam val id: String,
    val policy: String,
    val master: String,
    val startTime: Long,
    val configKeys: Array[String],
    val configValues: Array[String],
    val snapshotTime: Long,
    val snapshotAtStop: Boolean,
    val counterNames: Array[String],
    val counterValues: Array[Long],
    val fallback: Boolean,
    val fallbackReason: String)

/** One task set (stage attempt): its class and estimate at submission and at the end. */
class EagleTaskSetRow(
    @KVIndexParam val key: String,
    val seq: Long,
    val jobId: Int,
    val stageId: Int,
    val stageAttemptId: Int,
    val eagleJob: Int,
    val stageName: String,
    val tasks: Int,
    val submitTime: Long,
    val submitClass: String,
    val submitEstimateMs: Long,
    val submitSource: String,
    val endTime: Long,
    val jobClass: String,
    val estimateMs: Long,
    val source: String,
    val localityLaunches: Array[Long],
    /** DDS: first and last interval (ms) per level (process, node, rack; -1 none), samples. */
    val ddsFirstMs: Array[Double],
    val ddsLastMs: Array[Double],
    val ddsSamples: Int)

/** One change of the reservation or the cutoff. */
class EagleReservationRow(
    @KVIndexParam val seq: Long,
    val time: Long,
    val atMs: Long,
    val reservedSlots: Int,
    val cutoffMs: Long)

private[spark] object EagleUIModel {
  val AppKey = "eagle"
  /** Most task sets and reservation changes the tab keeps (oldest dropped first). */
  val MaxTaskSets = 1000
  val MaxReservationPoints = 512
  /** The levels whose wait adapts (TaskLocality ids), in the order of the DDS arrays. */
  val DdsLevels: Seq[Int] = Seq(0, 1, 3)
  val DdsLevelNames: Seq[String] = Seq("process", "node", "rack")
  val LevelNames: Seq[String] = Seq("PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY")

  /** First and last interval per DDS level of flattened `(atMs, level, intervalMs)` triples. */
  def ddsEnds(samples: Array[Double]): (Array[Double], Array[Double], Int) = {
    val first = Array.fill(DdsLevels.size)(-1.0)
    val last = Array.fill(DdsLevels.size)(-1.0)
    var n = 0
    var i = 0
    while (i + 2 < samples.length) {
      val k = DdsLevels.indexOf(samples(i + 1).toInt)
      if (k >= 0) {
        if (first(k) < 0) first(k) = samples(i + 2)
        last(k) = samples(i + 2)
      }
      n += 1
      i += 3
    }
    (first, last, n)
  }
}

/**
 * Builds the Eagle tab's rows from the Eagle events (live or replayed). Bounded: the last
 * [[EagleUIModel.MaxTaskSets]] task sets and [[EagleUIModel.MaxReservationPoints]] changes.
 * A failure here is logged and never reaches the listener bus.
 */
private[spark] class EagleUIListener(store: ElementTrackingStore) extends SparkListener with Logging {
  import EagleUIModel._

  private val rows = new mutable.LinkedHashMap[String, EagleTaskSetRow]
  private val points = new mutable.Queue[Long]
  private var seq = 0L
  private var app: Option[EagleAppRow] = None

  override def onOtherEvent(event: SparkListenerEvent): Unit = event match {
    case e: EagleSchedulerStarted => safely(started(e))
    case e: EagleJobClassified => safely(classified(e))
    case e: EagleTaskSetFinished => safely(finished(e))
    case e: EagleDelayIntervals => safely(intervals(e))
    case e: EagleReservationChanged => safely(reservation(e))
    case e: EagleCountersSnapshot => safely(snapshot(e))
    case _ =>
  }

  private def safely(f: => Unit): Unit = synchronized {
    try f catch {
      case NonFatal(e) => logWarning(s"Eagle UI: could not record an event: ${e.getMessage}", e)
    }
  }

  private def writeApp(a: EagleAppRow): Unit = {
    app = Some(a)
    store.write(a)
  }

  private def started(e: EagleSchedulerStarted): Unit = {
    val old = app
    writeApp(new EagleAppRow(AppKey, e.policy, e.master, e.time, e.configKeys, e.configValues,
      old.map(_.snapshotTime).getOrElse(-1L), old.exists(_.snapshotAtStop),
      old.map(_.counterNames).getOrElse(Array.empty), old.map(_.counterValues).getOrElse(Array.empty),
      old.exists(_.fallback), old.map(_.fallbackReason).orNull))
  }

  private def snapshot(e: EagleCountersSnapshot): Unit = {
    val a = app.getOrElse(new EagleAppRow(AppKey, null, null, -1L, Array.empty, Array.empty,
      -1L, false, Array.empty, Array.empty, false, null))
    writeApp(new EagleAppRow(AppKey, a.policy, a.master, a.startTime, a.configKeys, a.configValues,
      e.time, e.atStop, e.names, e.values, e.fallback, e.fallbackReason))
  }

  private def key(stageId: Int, attempt: Int): String = s"$stageId.$attempt"

  private def put(r: EagleTaskSetRow): Unit = {
    rows(r.key) = r
    store.write(r)
    while (rows.size > MaxTaskSets) {
      val oldest = rows.head._1
      rows.remove(oldest)
      store.delete(classOf[EagleTaskSetRow], oldest)
    }
  }

  private def classified(e: EagleJobClassified): Unit = {
    seq += 1
    put(new EagleTaskSetRow(key(e.stageId, e.stageAttemptId), seq, e.jobId, e.stageId,
      e.stageAttemptId, e.eagleJob, e.stageName, e.tasks, e.time, e.jobClass, e.estimateMs,
      e.source, -1L, e.jobClass, e.estimateMs, e.source, Array.empty, Array.empty, Array.empty, 0))
  }

  private def finished(e: EagleTaskSetFinished): Unit = {
    rows.get(key(e.stageId, e.stageAttemptId)).foreach { r =>
      put(new EagleTaskSetRow(r.key, r.seq, r.jobId, r.stageId, r.stageAttemptId, r.eagleJob,
        r.stageName, r.tasks, r.submitTime, r.submitClass, r.submitEstimateMs, r.submitSource,
        e.time, Option(e.jobClass).getOrElse(r.jobClass),
        if (e.estimateMs >= 0) e.estimateMs else r.estimateMs, Option(e.source).getOrElse(r.source),
        Option(e.localityLaunches).getOrElse(Array.empty[Long]), r.ddsFirstMs,
        r.ddsLastMs, r.ddsSamples))
    }
  }

  private def intervals(e: EagleDelayIntervals): Unit = {
    rows.get(key(e.stageId, e.stageAttemptId)).foreach { r =>
      val (first, last, n) = ddsEnds(e.samples)
      put(new EagleTaskSetRow(r.key, r.seq, r.jobId, r.stageId, r.stageAttemptId, r.eagleJob,
        r.stageName, r.tasks, r.submitTime, r.submitClass, r.submitEstimateMs, r.submitSource,
        r.endTime, r.jobClass, r.estimateMs, r.source, r.localityLaunches, first, last, n))
    }
  }

  private var pointSeq = 0L

  private def reservation(e: EagleReservationChanged): Unit = {
    pointSeq += 1
    store.write(new EagleReservationRow(pointSeq, e.time, e.atMs, e.reservedSlots, e.cutoffMs))
    points.enqueue(pointSeq)
    while (points.size > MaxReservationPoints) {
      store.delete(classOf[EagleReservationRow], points.dequeue())
    }
  }
}

/** Reads the Eagle tab's rows from a status store (live or History Server). */
private[spark] class EagleUIStore(kv: KVStore) {
  import EagleUIModel._

  def app: Option[EagleAppRow] = Try(kv.read(classOf[EagleAppRow], AppKey)).toOption

  private def all[T](cls: Class[T]): Seq[T] = {
    val out = new mutable.ArrayBuffer[T]
    val it = kv.view(cls).closeableIterator()
    try {
      while (it.hasNext) out += it.next()
    } finally it.close()
    out.toSeq
  }

  /** Task sets, most recently submitted first. */
  def taskSets: Seq[EagleTaskSetRow] = all(classOf[EagleTaskSetRow]).sortBy(r => -r.seq)

  /** Reservation and cutoff changes, oldest first. */
  def reservations: Seq[EagleReservationRow] = all(classOf[EagleReservationRow]).sortBy(_.seq)
}
