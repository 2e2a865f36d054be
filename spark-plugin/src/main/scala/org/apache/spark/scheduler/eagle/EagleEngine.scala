/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.nio.charset.StandardCharsets

import scala.util.control.NonFatal

import org.apache.spark.internal.Logging

/**
 * The plugin's one handle on the Rust engine: loads the library, owns the native handle and
 * turns the first failure of any native call into the fallback.
 *
 * `call` runs a native call while the engine is healthy and returns `None` once it is not.
 * The first failure (an [[EagleNativeException]] for a Rust error or panic, or a
 * `LinkageError` for a missing/mismatched library) is logged once, with the cause; from then
 * on the scheduler behaves exactly like the stock `TaskSchedulerImpl`. With
 * `spark.scheduler.eagle.fallback=false` the scheduler sees [[hardFailed]] and aborts the
 * jobs instead. `call` itself never throws.
 */
private[eagle] final class EagleEngine(conf: EagleConf) extends Logging {
  private val native = new Native
  @volatile private var handle: Long = 0L
  @volatile private var failure: Option[Throwable] = None
  /** Native calls that found the engine already closed (a call racing with `close`). */
  @volatile private[eagle] var closedCalls = 0L

  /** Why the engine stopped deciding, if it did. */
  def failureReason: Option[String] = failure.map(e => s"${e.getClass.getName}: ${e.getMessage}")

  def active: Boolean = handle != 0L && failure.isEmpty && !closing

  /** Set when `close` begins: new calls are skipped, calls in flight may find the engine gone. */
  @volatile private var closing = false

  /** The engine failed and the configuration forbids the fallback. */
  def hardFailed: Boolean = failure.nonEmpty && !conf.fallback

  /** Loads the library and creates the engine. A failure here is handled like any other. */
  def start(): Unit = {
    try {
      NativeLibrary.load(conf.nativePath)
      handle = native.create(conf.engine.toJson)
      if (conf.ddsEnabled) {
        native.enableDelay(handle, conf.localityWaitProcessMs, conf.localityWaitNodeMs, conf.localityWaitRackMs)
      }
      if (conf.eireneSatc) native.enableSatc(handle)
      if (conf.eireneCcdm) native.ccdm(handle, Native.CcdmEnable, Array(conf.ccdmCm, conf.ccdmMpp))
    } catch {
      case e: Throwable if NonFatal(e) || e.isInstanceOf[LinkageError] => fail("create", e)
    }
    if (active) {
      conf.historyPath.foreach { p =>
        // A missing or unreadable history is not an engine failure: start without one.
        try {
          val n = native.historyLoad(handle, p.getBytes(StandardCharsets.UTF_8))
          if (n >= 0) logInfo(s"Eagle: loaded $n history entries from $p")
          else logInfo(s"Eagle: no history at $p yet; it will be created at stop")
        } catch {
          case NonFatal(e) => logWarning(s"Eagle: ignoring history file $p: ${e.getMessage}")
        }
      }
    }
  }

  /** Runs `f(native, handle)` unless the engine has failed; the first failure is the fallback. */
  def call[T](what: String)(f: (Native, Long) => T): Option[T] = {
    // One read of the handle: close() may zero it between a check and the call, and a
    // zero handle would reach the native side as a "null handle" failure, not a close.
    val h = handle
    if (h == 0L || !active) return None
    try {
      Some(f(native, h))
    } catch {
      case e: EagleEngineClosedException =>
        // Raced with close() (a status-update, task-result or DAG thread during stop): the
        // engine is gone, which is not a failure; no error, no fallback.
        closedCalls += 1
        logDebug(s"Eagle: native call '$what' after the engine closed: ${e.getMessage}")
        None
      case e: Throwable if NonFatal(e) || e.isInstanceOf[LinkageError] =>
        fail(what, e)
        None
    }
  }

  @volatile private var observeFailures = 0L

  /**
   * A read-only native call made only to observe the engine (metrics, the UI): like `call`,
   * but a failure is logged (the first one as a warning, later ones at debug) and never
   * turns into the fallback. Never throws.
   */
  def observe[T](what: String)(f: (Native, Long) => T): Option[T] = {
    val h = handle // once, as in `call`
    if (h == 0L || !active) return None
    try {
      Some(f(native, h))
    } catch {
      case e: Throwable if NonFatal(e) || e.isInstanceOf[LinkageError] =>
        observeFailures += 1
        if (observeFailures == 1 && !e.isInstanceOf[EagleEngineClosedException]) {
          logWarning(s"Eagle: could not read the engine's status ('$what') for metrics/UI: ${e.getMessage}")
        } else {
          logDebug(s"Eagle: native call '$what' (observation) failed: ${e.getMessage}")
        }
        None
    }
  }

  private def fail(what: String, e: Throwable): Unit = synchronized {
    if (failure.isEmpty) {
      failure = Some(e)
      if (conf.fallback) {
        logError(s"Eagle: native call '$what' failed; falling back to the stock Spark task " +
          s"scheduler (TaskSchedulerImpl, FIFO/FAIR as configured) for the rest of this " +
          s"application. Set ${EagleConf.Prefix}fallback=false to fail instead.", e)
      } else {
        logError(s"Eagle: native call '$what' failed and ${EagleConf.Prefix}fallback=false: " +
          "aborting the application's jobs", e)
      }
    }
  }

  /**
   * Saves the history (if configured and healthy), then frees the native state. Safe while
   * other threads are inside native calls: the native `destroy` waits for the call in
   * progress, and later calls end with [[EagleEngineClosedException]] (see `call`).
   */
  def close(): Unit = synchronized {
    closing = true
    if (handle != 0L) {
      if (failure.isEmpty) {
        conf.historyPath.foreach { p =>
          try {
            val n = native.historySave(handle, p.getBytes(StandardCharsets.UTF_8))
            logInfo(s"Eagle: saved $n history entries to $p")
          } catch {
            case NonFatal(e) => logWarning(s"Eagle: could not save history to $p: ${e.getMessage}")
          }
        }
      }
      val h = handle
      handle = 0L
      try native.destroy(h) catch {
        case NonFatal(e) => logWarning(s"Eagle: destroying the native engine failed: ${e.getMessage}")
      }
    }
  }

  /** For benchmarks: the bare JNI round trip. */
  private[eagle] def noop(): Long = native.noop(handle)
}
