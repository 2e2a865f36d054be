/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle.events

import org.apache.spark.scheduler.SparkListenerEvent

/*
 * What the Eagle scheduler did, as Spark listener events. The plugin posts them on the
 * SparkContext's listener bus, so they reach every listener, the event log
 * (`spark.eventLog.enabled`; each is one JSON line whose "Event" is the class name) and,
 * replayed from the log, the History Server (the Eagle tab, see
 * `org.apache.spark.scheduler.eagle.ui`). They carry plain values only (no Option, no
 * Scala Map: Jackson writes and reads them back as they are).
 *
 * Conventions: `time` is epoch ms (as in Spark's own events); `atMs` is engine time, ms
 * since the scheduler started (as in the run summary); -1 means "none". `jobId` is the
 * Spark job that submitted the stage; `jobClass` is "short" or "long", or "none" for a
 * task set outside the engine (a barrier stage, or after the fallback); `source` is where
 * the estimate came from: "hint", "history", "runningMean", "default" (null when none).
 */

/** The scheduler is running: its policy, master URL and the validated configuration. */
case class EagleSchedulerStarted(
    time: Long,
    policy: String,
    master: String,
    configKeys: Array[String],
    configValues: Array[String]) extends SparkListenerEvent

/** A task set (stage attempt) was submitted: the class and estimate the engine gave it. */
case class EagleJobClassified(
    time: Long,
    jobId: Int,
    stageId: Int,
    stageAttemptId: Int,
    eagleJob: Int,
    stageName: String,
    tasks: Int,
    jobClass: String,
    estimateMs: Long,
    source: String) extends SparkListenerEvent

/**
 * A task set ended: its class and estimate at the end (the running mean may have revised
 * them) and its launches per locality level (`TaskLocality` order: PROCESS_LOCAL,
 * NODE_LOCAL, NO_PREF, RACK_LOCAL, ANY).
 */
case class EagleTaskSetFinished(
    time: Long,
    jobId: Int,
    stageId: Int,
    stageAttemptId: Int,
    eagleJob: Int,
    jobClass: String,
    estimateMs: Long,
    source: String,
    localityLaunches: Array[Long]) extends SparkListenerEvent

/**
 * The adaptive state changed: slots reserved for short work (-1 under `policy=paper`) and
 * the short/long cutoff in force (-1 while no split is known). Sampled about once a second
 * and at stop.
 */
case class EagleReservationChanged(
    time: Long,
    atMs: Long,
    reservedSlots: Int,
    cutoffMs: Long) extends SparkListenerEvent

/**
 * Dynamic Delay Scheduling: a finished task set's locality-wait intervals over time,
 * flattened `(atMs, level, intervalMs)` triples, oldest first (level as a `TaskLocality`
 * id; at most 256 samples, as in the summary's `delayHistory`).
 */
case class EagleDelayIntervals(
    time: Long,
    jobId: Int,
    stageId: Int,
    stageAttemptId: Int,
    samples: Array[Double]) extends SparkListenerEvent

/**
 * The engine's and the plugin's counters and the current status (the metric names of the
 * `eagle` source, same values), every 10 s while they change and once at stop
 * (`atStop`).
 */
case class EagleCountersSnapshot(
    time: Long,
    atMs: Long,
    atStop: Boolean,
    names: Array[String],
    values: Array[Long],
    fallback: Boolean,
    fallbackReason: String) extends SparkListenerEvent

/**
 * A live reading of the scheduler (not an event): the `eagle` metrics, by name, as of
 * `time` (epoch ms) / `atMs` (engine time).
 */
case class EagleLiveStatus(
    time: Long,
    atMs: Long,
    names: Array[String],
    values: Array[Long],
    fallback: Boolean,
    fallbackReason: String) {
  def get(name: String): Option[Long] = {
    val i = names.indexOf(name)
    if (i >= 0 && i < values.length) Some(values(i)) else None
  }
}
