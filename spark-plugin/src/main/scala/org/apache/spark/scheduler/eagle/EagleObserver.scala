/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.concurrent.{Executors, ThreadFactory, TimeUnit}
import java.util.concurrent.atomic.AtomicLong

import scala.collection.mutable
import scala.util.control.NonFatal

import org.apache.spark.SparkContext
import org.apache.spark.internal.Logging
import org.apache.spark.scheduler.{SparkListenerEvent, TaskSet}
import org.apache.spark.scheduler.eagle.events._
import org.apache.spark.scheduler.eagle.ui.{EagleTab, EagleUIListener, EagleUIStore}
import org.apache.spark.status.ElementTrackingStore

/**
 * Makes what the scheduler does visible while it runs, in Spark's own channels:
 *  - the `eagle` metrics source ([[EagleMetricsSource]]: JMX, CSV, Prometheus servlet...),
 *    with `cluster.*` gauges (grants, leases, hand-backs) under cluster mode;
 *  - Eagle events on the listener bus (`events/EagleEvents.scala`), hence in the event log
 *    and in the History Server;
 *  - the Eagle tab of the live Spark UI (`ui/`), fed by the same events.
 *
 * It decides nothing: it reads the engine through the read-only, uncounted native `status`
 * call (never under the scheduler lock, at most every [[EagleObserver.RefreshMs]] ms; a
 * one-second reporter thread posts reservation changes and counter snapshots) and forwards
 * what the scheduler tells it. Every entry point catches its own failures (logged once per
 * kind): observing can never break scheduling.
 */
private[eagle] class EagleObserver(
    sc: SparkContext,
    conf: EagleConf,
    engine: EagleEngine,
    summary: EagleSummary,
    master: String,
    engineNowMs: () => Long) extends Logging {
  import EagleObserver._

  private val engineNames: Seq[String] = Native.CounterNames ++ Native.StatusNames
  /** Cluster mode only: the grants, leases and hand-backs of [[Native.ClusterStatusNames]]. */
  private val clusterNames: Seq[String] = if (conf.cluster.isDefined) Native.ClusterStatusNames else Nil
  private val pluginNames: Seq[String] = summary.pluginCounters.map(_._1)

  /** Metric names, in the order of every reading's values. */
  val names: Array[String] = (engineNames ++ clusterNames.map("cluster." + _) ++ pluginNames.map("plugin." + _) ++
    Seq("taskSetsSubmittedShort", "taskSetsSubmittedLong", "fallback", "engineClosedCalls")).toArray

  private val submittedShort = new AtomicLong
  private val submittedLong = new AtomicLong

  // ---- failures -------------------------------------------------------------------------

  private val failed = mutable.Set.empty[String]

  /** Runs `f`; a failure is logged (a warning the first time for `what`) and swallowed. */
  private def safely[T](what: String)(f: => T): Option[T] = {
    try Some(f) catch {
      case NonFatal(e) =>
        val first = failed.synchronized(failed.add(what))
        if (first) logWarning(s"Eagle: $what failed (scheduling is not affected): ${e.getMessage}", e)
        else logDebug(s"Eagle: $what failed again: ${e.getMessage}")
        None
    }
  }

  private def post(e: SparkListenerEvent): Unit = safely("posting an Eagle event")(sc.listenerBus.post(e))

  // ---- the reading ----------------------------------------------------------------------

  @volatile private var engineValues: Array[Long] = Array.fill(engineNames.size)(-1L)
  @volatile private var clusterValues: Array[Long] = Array.fill(clusterNames.size)(-1L)
  /** True once `engineValues` holds a real reading. */
  @volatile private var engineRead = false
  @volatile private var last: EagleLiveStatus = _
  @volatile private var lastNanos = 0L
  private val refreshLock = new Object

  /**
   * The current reading, at most [[RefreshMs]] ms old (`maxAgeMs` 0: fresh). The engine part
   * keeps its last values once the engine is gone (fallback, stop). Never throws.
   */
  def status(maxAgeMs: Long = RefreshMs): EagleLiveStatus = {
    val cur = last
    if (cur != null && System.nanoTime() - lastNanos < maxAgeMs * 1000000L) cur
    else refreshLock.synchronized {
      val again = last
      if (again != null && System.nanoTime() - lastNanos < maxAgeMs * 1000000L) again
      else safely("reading the engine's status")(read()).getOrElse(
        Option(last).getOrElse(compose()))
    }
  }

  private def read(): EagleLiveStatus = {
    engine.observe("status")(_.status(_)).filter(_.length == engineNames.size).foreach { v =>
      engineValues = v
      engineRead = true
    }
    if (clusterNames.nonEmpty) {
      engine.observe("clusterStatus")(_.clusterStatus(_)).filter(_.length == clusterNames.size)
        .foreach(clusterValues = _)
    }
    val s = compose()
    last = s
    lastNanos = System.nanoTime()
    s
  }

  private def compose(): EagleLiveStatus = {
    val plugin = summary.pluginCounters.toMap
    val values = engineValues ++ clusterValues ++ pluginNames.map(n => plugin.getOrElse(n, 0L)) ++
      Seq(submittedShort.get, submittedLong.get, if (engine.failureReason.isDefined) 1L else 0L,
        engine.closedCalls)
    EagleLiveStatus(System.currentTimeMillis(), engineNowMs(), names, values,
      engine.failureReason.isDefined, engine.failureReason.orNull)
  }

  // ---- start / stop ---------------------------------------------------------------------

  @volatile private var metrics: Option[EagleMetricsSource] = None
  @volatile private var stopped = false
  private val reporter = Executors.newSingleThreadScheduledExecutor(new ThreadFactory {
    override def newThread(r: Runnable): Thread = {
      val t = new Thread(r, "eagle-observer")
      t.setDaemon(true)
      t
    }
  })

  /** Task sets end with their interval history fetched only when someone will look at it. */
  lazy val wantsDelayHistory: Boolean =
    sc.conf.getBoolean("spark.eventLog.enabled", defaultValue = false) || sc.ui.isDefined

  /** Once the SparkContext is up (`postStartHook`): UI tab, start event, metrics, reporter. */
  def start(): Unit = {
    sc.ui.foreach { ui =>
      safely("attaching the Eagle tab to the Spark UI") {
        val kv = sc.statusStore.store.asInstanceOf[ElementTrackingStore]
        sc.listenerBus.addToStatusQueue(new EagleUIListener(kv))
        ui.attachTab(new EagleTab(ui, new EagleUIStore(kv), () => Some(status())))
      }
    }
    val cfg = conf.asMap
    post(EagleSchedulerStarted(System.currentTimeMillis(), conf.policy, master,
      cfg.map(_._1).toArray, cfg.map { case (_, v) => if (v == null) null else v.toString }.toArray))
    safely("registering the eagle metrics source") {
      val src = new EagleMetricsSource(this)
      sc.env.metricsSystem.registerSource(src)
      metrics = Some(src)
    }
    safely("starting the eagle-observer thread") {
      reporter.scheduleWithFixedDelay(() => tick(), ReportMs, ReportMs, TimeUnit.MILLISECONDS)
    }
  }

  private var ticks = 0L

  private def tick(): Unit = if (!stopped) safely("reporting the engine's status") {
    val s = status(maxAgeMs = 0)
    postReservationIfChanged(s)
    ticks += 1
    if (ticks % SnapshotEveryTicks == 0) postSnapshotIfChanged(s, atStop = false)
  }

  /** At stop, while the engine is still open: final events; the metrics source goes. */
  def stop(): Unit = {
    stopped = true
    safely("stopping the eagle-observer thread")(reporter.shutdownNow())
    val s = status(maxAgeMs = 0)
    safely("posting the final Eagle events") {
      postReservationIfChanged(s)
      postSnapshotIfChanged(s, atStop = true)
    }
    metrics.foreach(m => safely("removing the eagle metrics source")(sc.env.metricsSystem.removeSource(m)))
    metrics = None
  }

  // ---- events ---------------------------------------------------------------------------

  private var postedReservation: Option[(Long, Long)] = None
  private var postedSnapshot: Option[Seq[Long]] = None

  private def postReservationIfChanged(s: EagleLiveStatus): Unit = synchronized {
    if (engineRead) {
      val r = s.get("reservedSlots").getOrElse(-1L)
      val c = s.get("cutoffMs").getOrElse(-1L)
      val known = r >= 0 || c >= 0
      if (postedReservation.exists(_ != ((r, c))) || (postedReservation.isEmpty && known)) {
        postedReservation = Some((r, c))
        post(EagleReservationChanged(s.time, s.atMs, r.toInt, c))
      }
    }
  }

  private def postSnapshotIfChanged(s: EagleLiveStatus, atStop: Boolean): Unit = synchronized {
    val v = s.values.toSeq
    if (atStop || !postedSnapshot.contains(v)) {
      postedSnapshot = Some(v)
      post(EagleCountersSnapshot(s.time, s.atMs, atStop, s.names, s.values, s.fallback, s.fallbackReason))
    }
  }

  private def source(code: Long): String =
    if (code >= 0 && code < Native.EstimateSources.size) Native.EstimateSources(code.toInt) else null

  private def className(code: Long): String = Option(Native.className(code)).getOrElse("none")

  /** A task set was submitted; `info` is the engine's `[class, estimateMs, source]`. */
  def taskSetSubmitted(ts: TaskSet, stageName: String, eagleJob: Int, info: Array[Long]): Unit =
    safely("posting EagleJobClassified") {
      info(0) match {
        case 0 => submittedShort.incrementAndGet()
        case 1 => submittedLong.incrementAndGet()
        case _ =>
      }
      post(EagleJobClassified(System.currentTimeMillis(), ts.priority, ts.stageId, ts.stageAttemptId,
        eagleJob, stageName, ts.tasks.length, className(info(0)), info(1), source(info(2))))
    }

  /**
   * A task set ended. `info`: the engine's view at the end (None when it had none);
   * `launches`: launches per locality level; `history`: its DDS interval history.
   */
  def taskSetEnded(
      ts: TaskSet, eagleJob: Int, info: Option[Array[Long]], launches: Array[Long],
      history: Option[Array[Double]]): Unit = safely("posting EagleTaskSetFinished") {
    val i = info.filter(a => a.length >= 3 && a(0) >= 0)
    val now = System.currentTimeMillis()
    post(EagleTaskSetFinished(now, ts.priority, ts.stageId, ts.stageAttemptId, eagleJob,
      i.map(a => className(a(0))).orNull, i.map(_(1)).getOrElse(-1L), i.map(a => source(a(2))).orNull,
      launches.clone()))
    history.filter(_.nonEmpty).foreach { h =>
      post(EagleDelayIntervals(now, ts.priority, ts.stageId, ts.stageAttemptId, h.clone()))
    }
  }
}

private[eagle] object EagleObserver {
  /** Longest the cached reading behind the metrics and the UI is reused (ms). */
  val RefreshMs = 500L
  /** Period of the reporter thread: reservation changes are sampled this often (ms). */
  val ReportMs = 1000L
  /** A counters snapshot goes to the listener bus every this many reports, if it changed. */
  val SnapshotEveryTicks = 10L
}
