/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.Locale

import scala.util.Try

import org.apache.spark.SparkConf

/**
 * The validated `spark.scheduler.eagle.*` configuration.
 *
 * Validation happens once, when the cluster manager creates the scheduler: an unknown key
 * under the prefix or a value out of range throws an `IllegalArgumentException` naming the
 * key, so a typo fails the application at start-up instead of being silently ignored.
 */
private[eagle] case class EagleConf(
    cutoffMs: Long,
    shortPartition: Double,
    minProbes: Int,
    probeRatio: Int,
    starvationFactor: Double,
    defaultClass: String,
    defaultEstimateMs: Long,
    historyPath: Option[String],
    summaryPath: Option[String],
    nativePath: Option[String],
    fallback: Boolean,
    seed: Long,
    failAfterCalls: Long,
    throwInRound: Long = -1L,
    ddsEnabled: Boolean = true,
    ddsMinWaitMs: Long = 0L,
    ddsMaxWaitMs: Long = 10000L,
    ddsWindow: Double = 2.0,
    ddsInherit: Boolean = true,
    localityWaitProcessMs: Long = 3000L,
    localityWaitNodeMs: Long = 3000L,
    localityWaitRackMs: Long = 3000L,
    historyMaxEntries: Int = 10000,
    summaryMaxTaskSets: Int = 1000,
    holdCallMs: Long = 0L,
    policy: String = "adaptive",
    reservationWindowMs: Long = 60000L,
    reservationHeadroom: Double = 1.0,
    reservationMaxFraction: Double = 0.5,
    reservationIdleMs: Long = 30000L,
    reservationBaseFraction: Double = 0.1,
    longShare: Double = 0.5,
    deadlineFactor: Double = 5.0,
    holdMaxMs: Long = 2000L,
    holdFraction: Double = 0.05,
    order: String = "srpt",
    placement: String = "slots",
    eireneSatc: Boolean = false,
    eireneCcdm: Boolean = false,
    ccdmCm: Int = 1,
    ccdmMpp: Int = 2,
    ccdmMaxBytes: Long = 128L << 20,
    cluster: Option[ClusterConf] = None) {

  /** `placement=lotes`: LoTES decides which executors serve which task sets. */
  def lotes: Boolean = placement == "lotes"

  /** `policy=adaptive` (the default) rather than the paper's Eagle. */
  def adaptive: Boolean = policy == "adaptive"

  /** The `Native.enableDelay` parameter array, in the layout of [[Native.DelayParamNames]]. */
  def toDelayParams: Array[Double] = Array(
    localityWaitProcessMs.toDouble,
    localityWaitNodeMs.toDouble,
    localityWaitRackMs.toDouble,
    ddsMinWaitMs.toDouble,
    ddsMaxWaitMs.toDouble,
    ddsWindow,
    if (ddsInherit) 1.0 else 0.0)

  /** The `Native.create` parameter array, in the layout of [[Native.ParamNames]]. */
  def toNativeParams: Array[Double] = Array(
    cutoffMs.toDouble,
    shortPartition,
    minProbes.toDouble,
    probeRatio.toDouble,
    starvationFactor,
    if (defaultClass == "long") 1.0 else 0.0,
    defaultEstimateMs.toDouble,
    seed.toDouble,
    failAfterCalls.toDouble,
    historyMaxEntries.toDouble,
    holdCallMs.toDouble,
    if (adaptive) 1.0 else 0.0,
    reservationWindowMs.toDouble,
    reservationHeadroom,
    reservationMaxFraction,
    reservationIdleMs.toDouble,
    reservationBaseFraction,
    longShare,
    if (lotes) 1.0 else 0.0,
    deadlineFactor,
    if (order == "fsp") 1.0 else 0.0,
    holdMaxMs.toDouble,
    holdFraction)

  /** For the summary file. */
  def asMap: Seq[(String, Any)] = Seq(
    "policy" -> policy,
    "cutoffMs" -> (if (cutoffMs > 0) cutoffMs else "learned"),
    "reservation.windowMs" -> reservationWindowMs,
    "reservation.headroom" -> reservationHeadroom,
    "reservation.maxFraction" -> reservationMaxFraction,
    "reservation.idleMs" -> reservationIdleMs,
    "reservation.baseFraction" -> reservationBaseFraction,
    "longShare" -> longShare,
    "deadlineFactor" -> deadlineFactor,
    "hold.maxMs" -> holdMaxMs,
    "hold.fraction" -> holdFraction,
    "order" -> order,
    "placement" -> placement,
    "shortPartition" -> shortPartition,
    "minProbes" -> minProbes,
    "probeRatio" -> probeRatio,
    "starvationFactor" -> starvationFactor,
    "defaultClass" -> defaultClass,
    "defaultEstimateMs" -> defaultEstimateMs,
    "history.path" -> historyPath.orNull,
    "history.maxEntries" -> historyMaxEntries,
    "summary.path" -> summaryPath.orNull,
    "summary.maxTaskSets" -> summaryMaxTaskSets,
    "native.path" -> nativePath.orNull,
    "fallback" -> fallback,
    "seed" -> seed,
    "debug.failAfterCalls" -> failAfterCalls,
    "debug.holdCallMs" -> holdCallMs,
    "debug.throwInRound" -> throwInRound,
    "dds.enabled" -> ddsEnabled,
    "dds.minWaitMs" -> ddsMinWaitMs,
    "dds.maxWaitMs" -> ddsMaxWaitMs,
    "dds.window" -> ddsWindow,
    "dds.inherit" -> ddsInherit,
    "dds.initialWaitMs.process" -> localityWaitProcessMs,
    "dds.initialWaitMs.node" -> localityWaitNodeMs,
    "dds.initialWaitMs.rack" -> localityWaitRackMs,
    "eirene.satc" -> eireneSatc,
    "eirene.ccdm" -> eireneCcdm,
    "eirene.ccdm.cm" -> ccdmCm,
    "eirene.ccdm.mpp" -> ccdmMpp,
    "eirene.ccdm.maxBytes" -> ccdmMaxBytes,
    "cluster.central" -> cluster.map(_.central).orNull,
    "cluster.nodePort" -> cluster.map(_.nodePort).getOrElse(null),
    "cluster.pingMs" -> cluster.map(_.pingMs).getOrElse(null),
    "cluster.warmGrants" -> cluster.map(_.warmGrants).getOrElse(null),
    "cluster.affinity" -> cluster.map(_.affinity).getOrElse(null))
}

/**
 * Cluster mode: where the daemons are and the shared secret (never printed). The secret
 * comes from `cluster.secretFile` (trailing whitespace ignored, as the daemons read it),
 * else `cluster.secret`, else `spark.authenticate.secret`.
 */
private[eagle] case class ClusterConf(
    central: String, nodePort: Int, secret: Array[Byte], pingMs: Long, warmGrants: Boolean = true,
    affinity: Boolean = true) {
  override def toString: String =
    s"ClusterConf($central, nodePort=$nodePort, pingMs=$pingMs, warmGrants=$warmGrants, affinity=$affinity)"
}

private[eagle] object EagleConf {
  val Prefix = "spark.scheduler.eagle."

  /** Upper bounds of minProbes / probeRatio (mirror MAX_MIN_PROBES / MAX_PROBE_RATIO in
   *  rust/eagle-core/src/driver.rs): the engine allocates probes per task set. */
  val MaxMinProbes = 10000
  val MaxProbeRatio = 100
  /** Upper bound of history.maxEntries (MAX_HISTORY_ENTRIES in rust/eagle-core/src/estimate.rs). */
  val MaxHistoryEntries = 1000000

  /** Per-job local properties (set with `sc.setLocalProperty`), not configuration keys. */
  val JobClassProperty: String = Prefix + "job.class"
  val JobEstimateProperty: String = Prefix + "job.estimatedTaskMs"

  /**
   * One documented key: name (after the prefix), default, type, accepted range, meaning.
   * `typ` and `range` restate, for the reader, what [[fromSparkConf]] accepts for the key
   * (and [[jobHints]] for a local property; tests/test_config_docs.py checks the edges of
   * every interval and list against fromSparkConf); docs/guide/configuration.md is generated
   * from these by [[EagleConfDoc]] (scripts/gen-config-docs).
   */
  case class Key(name: String, default: String, typ: String, range: String, doc: String)

  /** The per-job local properties, documented like the keys (read by [[jobHints]]). */
  val JobProperties: Seq[Key] = Seq(
    Key("job.class", "(none)", "enum", "short, long",
      "Class of the task sets of the jobs the current thread submits (a set cutoffMs comes " +
        "first; the history and running means after); a malformed value is logged and ignored."),
    Key("job.estimatedTaskMs", "(none)", "integer (ms)", "> 0",
      "Estimated mean task duration of the task sets of the jobs the current thread submits; " +
        "a malformed value is logged and ignored."))

  val Keys: Seq[Key] = Seq(
    Key("policy", "adaptive", "enum", "adaptive, paper",
      "adaptive: exact SRPT over each query's remaining work with a load-sized short " +
        "reservation of slots and a learned short/long split; paper: Eagle as published " +
        "(short-only executors, probes, SSS, LWL, sticky batch probing)."),
    Key("cutoffMs", "(learned)", "integer (ms)", ">= 1; unset: learned (adaptive)",
      "Task sets whose estimated mean task duration exceeds this (ms) are long. Unset: " +
        "adaptive learns the split from the application's task durations; paper uses 10000."),
    Key("reservation.windowMs", "60000", "integer (ms)", ">= 1",
      "adaptive: sliding window (ms) over which the slots busy with short work are observed."),
    Key("reservation.headroom", "1.0", "number", "> 0",
      "adaptive: the reservation is this multiple of the short demand observed over the window (mean slots busy with short work plus one standard deviation of its bucket averages; > 0)."),
    Key("reservation.maxFraction", "0.5", "number", "[0, 1]",
      "adaptive: upper bound of the reservation as a fraction of all slots, in [0, 1]."),
    Key("reservation.idleMs", "30000", "integer (ms)", ">= 0",
      "adaptive: with no short work arriving for this long (ms), the reservation drops to 0 " +
        "and long work may use every slot."),
    Key("reservation.baseFraction", "0.1", "number", "[0, 1]",
      "adaptive: while short work is arriving, up to this fraction of all slots (floored) stays " +
        "reserved for it even when long work frees slots often, so a wave of long tasks cannot " +
        "hold every slot; in [0, 1], 0 turns the base off."),
    Key("longShare", "0.5", "number", "[0, 1]",
      "adaptive: while long work waits for a slot, short work starts new tasks only while it " +
        "holds fewer than max(reservation, floor((1 - longShare) x all slots)), so long work keeps " +
        "this share of the cluster under a stream of short work that alone would fill it, while " +
        "short queries or jobs keep arriving (within reservation.windowMs), then while the short " +
        "backlog exceeds starvationFactor times the long work left; in [0, 1], 0 turns it off."),
    Key("hold.maxMs", "2000", "integer (ms)", "[0, 3600000]",
      "adaptive: when a small job ends beside larger waiting work, its slots stay free for the " +
        "next submission for the 0.9 quantile of the observed end-to-next-submission gaps, at " +
        "least 200 ms and at most this long (ms); 0 turns the hold off."),
    Key("hold.fraction", "0.05", "number", "[0, 1]",
      "adaptive: the hold's budget: over any reservation.windowMs, held slot-seconds stay at " +
        "most this fraction of the cluster's slot-seconds; 0 turns the hold off."),
    Key("deadlineFactor", "5", "number", "> 0",
      "adaptive: a task set whose tasks waited this multiple of its fair time (its waiting work " +
        "shared with the task sets waiting beside it, at least its task estimate and 1 s) goes " +
        "first, at full width until none of its tasks wait (> 0)."),
    Key("order", "srpt", "enum", "srpt, fsp",
      "adaptive: which waiting task set a free slot serves. srpt: the least remaining work of its " +
        "query or job first, with the deadlineFactor bound; fsp (Fair Sojourn Protocol): the one " +
        "fair sharing would finish first, so none ends later than under fair sharing."),
    Key("shortPartition", "0.1", "number", "[0, 1)",
      "paper: fraction of executors reserved for short task sets, in [0, 1); at least one " +
        "when there are two or more executors."),
    Key("minProbes", "20", "integer", s"[1, $MaxMinProbes]",
      s"paper: K, minimum number of probes per short task set (integer in [1, $MaxMinProbes])."),
    Key("probeRatio", "2", "integer", s"[1, $MaxProbeRatio]",
      s"paper: probes per task of a short task set (integer in [1, $MaxProbeRatio])."),
    Key("starvationFactor", "5", "number", "> 0",
      "SRPT starvation cap (> 0). paper: a task set may be bypassed for at most this multiple " +
        "of its own estimated task duration. adaptive: once short jobs stop arriving, the long " +
        "share holds only while the short backlog exceeds this multiple of the long work left " +
        "(see deadlineFactor for the adaptive deadline)."),
    Key("defaultClass", "short", "enum", "short, long", "Class when nothing is known: short or long."),
    Key("defaultEstimateMs", "1000", "integer (ms)", ">= 1",
      "Estimated mean task duration (ms) when nothing is known (> 0)."),
    Key("history.path", "(none)", "path", "non-empty",
      "JSON file of past stage runs (mean task duration per stage signature), loaded at " +
        "start-up and saved at stop."),
    Key("history.maxEntries", "10000", "integer", s"[1, $MaxHistoryEntries]",
      s"Most stage signatures the history keeps (integer in [1, $MaxHistoryEntries]); the least " +
        "recently used is evicted first."),
    Key("summary.path", "(none)", "path", "non-empty",
      "Where to write the JSON run summary when the SparkContext stops."),
    Key("summary.maxTaskSets", "1000", "integer", s"[1, ${Int.MaxValue}]",
      "Most task sets (and Spark jobs) the run summary lists in detail (integer >= 1); older ones " +
        "are dropped first, totals stay exact."),
    Key("native.path", "(none)", "path", "non-empty", "Load libeagle_jni from this file instead of the bundled one."),
    Key("fallback", "true", "boolean", "true, false",
      "On a native error, log once and continue with stock TaskSchedulerImpl scheduling; " +
        "false aborts the running jobs instead."),
    Key("seed", "42", "integer", "[0, 2^53)", "Seed of the engine's random choices (integer in [0, 2^53))."),
    Key("debug.failAfterCalls", "-1", "integer", ">= -1",
      "Test hook: the native side panics on every call after this many (-1 = never)."),
    Key("debug.holdCallMs", "0", "integer (ms)", "[0, 60000]",
      "Test hook: every native taskFinished call holds the engine this long (ms, integer in " +
        "[0, 60000]; 0 = off), so that stop() races with a call in flight."),
    Key("debug.throwInRound", "-1", "integer", ">= -1",
      "Test hook: the N-th offer round (1-based) whose plan gave out a slot throws inside " +
        "the stock round, after the plan (-1 = never)."),
    Key("dds.enabled", "true", "boolean", "true, false",
      "Dynamic Delay Scheduling: adaptive per-stage, per-level locality waits replace Spark's " +
        "fixed spark.locality.wait* for task sets under the plugin (initial intervals: " +
        "spark.locality.wait.process/.node/.rack)."),
    Key("dds.minWaitMs", "0", "integer (ms)", ">= 0",
      "Lower bound of every adaptive locality wait (ms, integer >= 0)."),
    Key("dds.maxWaitMs", "10000", "integer (ms)", ">= dds.minWaitMs",
      "Upper bound of every adaptive locality wait (ms, integer >= dds.minWaitMs); a task set " +
        "that launched nothing for this long may launch at any level."),
    Key("dds.window", "2", "number", ">= 1",
      "Averaging window of the update interval <- interval + (t_netOH - interval) / window " +
        "(a number >= 1; 2 = the paper's rule)."),
    Key("dds.inherit", "true", "boolean", "true, false",
      "A new stage starts from the intervals the application has learned so far (every " +
        "finished task updates them by the same rule; the first stage starts from " +
        "spark.locality.wait*), rather than from spark.locality.wait* itself."),
    Key("placement", "slots", "enum", "slots, lotes",
      "slots: every executor slot is alike (task cpus only); lotes: LoTES (multi-resource, " +
        "heterogeneous executors) decides which executors serve which task sets from the " +
        "executors' cores, memory and custom resources and the task sets' resource profiles; " +
        "Eagle's order still decides which task set goes first."),
    Key("eirene.satc", "false", "boolean", "true, false",
      "Eirene's Scheduler-Aware Task Cloning: a short task set whose tasks have all started " +
        "gets one clone per running task in idle slots, launched as a Spark speculative copy " +
        "(the first copy to finish wins, Spark kills the other)."),
    Key("eirene.ccdm", "false", "boolean", "true, false",
      "Eirene's Coordinated Cold Data Migration: while a short task set waits for slots, the " +
        "cached input blocks of its not-started tasks are copied into the memory of executors " +
        "where they may run (a probe per executor, eirene.ccdm.mpp tasks each, the fast lane " +
        "on every launch), and a slot prefers a task whose input it holds. Needs " +
        "spark.plugins to include " + CcdmPluginClass + "."),
    Key("eirene.ccdm.cm", "1", "integer", "[1, 1000]",
      "CCDM: migrations from one executor's queue running at once (Eirene's CM; integer in " +
        "[1, 1000]). Keep CM x input size / copy time under the executor's link rate: Table V's " +
        "10 is sized for a disk, and one copy of a block alone fills a 100 mbit link."),
    Key("eirene.ccdm.mpp", "2", "integer", "[0, 1000]",
      "CCDM: migration requests a probe queues on an executor (Eirene's MPP; integer in [0, 1000])."),
    Key("eirene.ccdm.maxBytes", "128m", "size", "> 0 bytes",
      "CCDM: memory one executor may hold in migrated inputs (a size such as 128m); the oldest " +
        "migrated input goes first when a new one needs room, and an input larger than this is " +
        "not migrated."),
    Key("cluster.central", "(none)", "host:port", "port in [1, 65535]",
      "Cluster mode: host:port of eagle-central. Set, the application shares the worker hosts " +
        "with other applications at task level: every host's eagle-node grants its slots, short " +
        "task sets probe the hosts, long ones go to the central (see docs/guide/cluster-mode.md)."),
    Key("cluster.nodePort", "7101", "integer", "[1, 65535]",
      "Cluster mode: the port of every host's eagle-node (integer in [1, 65535])."),
    Key("cluster.secretFile", "(none)", "path", "readable, non-empty secret",
      "Cluster mode: file holding the daemons' shared secret (trailing whitespace ignored); " +
        "else cluster.secret, else spark.authenticate.secret."),
    Key("cluster.secret", "(none)", "string", "non-empty",
      "Cluster mode: the daemons' shared secret itself (prefer cluster.secretFile)."),
    Key("cluster.pingMs", "900", "integer (ms)", "[10, 60000]",
      "Cluster mode: keep-alive period towards every daemon (ms, integer in [10, 60000]); keep it " +
        "under a third of the daemons' --lease-ms (default 3000). Short jobs also probe again, at this " +
        "period, the hosts that rejected them (not under policy=paper)."),
    Key("cluster.warmGrants", "true", "boolean", "true, false",
      "Cluster mode, policy=adaptive: a short task set hands back a slot granted on a host where it " +
        "has not warmed an executor yet when its own running tasks' slots would drain its waiting " +
        "tasks sooner than a new executor's warm-up pays for (the warm-executors rule); false takes " +
        "every grant."),
    Key("cluster.affinity", "true", "boolean", "true, false",
      "Cluster mode, policy=adaptive: a short task set's first probes go only to the hosts where " +
        "the application has run the most short tasks (at most probeRatio x its tasks), and to the " +
        "others only if it still has tasks without a slot after what a task costs more there (measured; " +
        "at least the warm-up, warmupMs); " +
        "this keeps an application's short work on as few executor JVMs as its load needs. false " +
        "probes every host at once, as the paper does."))

  private val known: Set[String] = Keys.map(k => Prefix + k.name).toSet

  private def bad(key: String, value: String, expected: String): Nothing =
    throw new IllegalArgumentException(
      s"Invalid Eagle configuration: $Prefix$key = '$value': expected $expected")

  def fromSparkConf(conf: SparkConf): EagleConf = {
    conf.getAll.map(_._1).filter(_.startsWith(Prefix)).sorted.foreach { key =>
      if (!known(key)) {
        val hint =
          if (key == JobClassProperty || key == JobEstimateProperty) {
            " (it is a per-job local property: use sc.setLocalProperty)"
          } else {
            ""
          }
        throw new IllegalArgumentException(
          s"Unknown Eagle configuration key: $key$hint. Known keys: " +
            Keys.map(Prefix + _.name).mkString(", "))
      }
    }
    def raw(name: String): Option[String] = conf.getOption(Prefix + name).map(_.trim)
    def default(name: String): String = Keys.find(_.name == name).get.default
    def long(name: String, min: Long, max: Long = Long.MaxValue): Long = {
      val v = raw(name).getOrElse(default(name))
      Try(v.toLong).toOption.filter(x => x >= min && x <= max)
        .getOrElse(bad(name, v, if (max == Long.MaxValue) s"an integer >= $min"
          else s"an integer in [$min, $max]"))
    }
    def double(name: String, ok: Double => Boolean, expected: String): Double = {
      val v = raw(name).getOrElse(default(name))
      Try(v.toDouble).toOption.filter(x => !x.isNaN && !x.isInfinite && ok(x))
        .getOrElse(bad(name, v, expected))
    }
    def path(name: String): Option[String] = raw(name).map { v =>
      if (v.isEmpty) bad(name, v, "a non-empty path")
      v
    }
    val defaultClass = {
      val v = raw("defaultClass").getOrElse("short").toLowerCase(Locale.ROOT)
      if (v != "short" && v != "long") bad("defaultClass", v, "short or long")
      v
    }
    val fallback = raw("fallback").getOrElse("true").toLowerCase(Locale.ROOT) match {
      case "true" => true
      case "false" => false
      case v => bad("fallback", v, "true or false")
    }
    def bool(key: String, default: Boolean): Boolean =
      raw(key).getOrElse(default.toString).toLowerCase(Locale.ROOT) match {
        case "true" => true
        case "false" => false
        case v => bad(key, v, "true or false")
      }
    val ddsEnabled = bool("dds.enabled", default = true)
    val ddsInherit = bool("dds.inherit", default = true)
    val ddsMin = long("dds.minWaitMs", 0)
    val ddsMax = long("dds.maxWaitMs", 0)
    if (ddsMax < ddsMin) {
      bad("dds.maxWaitMs", ddsMax.toString, s"an integer >= ${Prefix}dds.minWaitMs ($ddsMin)")
    }
    val ddsWindow = double("dds.window", _ >= 1, "a number >= 1")
    // Spark's own locality waits: the initial adaptive intervals.
    def sparkWait(key: String): Long = {
      val v = conf.get(key, conf.get("spark.locality.wait", "3s"))
      Try(conf.getTimeAsMs(key, conf.get("spark.locality.wait", "3s"))).toOption.filter(_ >= 0)
        .getOrElse(throw new IllegalArgumentException(
          s"Invalid configuration: $key = '$v': expected a time >= 0 (e.g. 3s)"))
    }
    val policy = raw("policy").getOrElse("adaptive").toLowerCase(Locale.ROOT)
    if (policy != "adaptive" && policy != "paper") bad("policy", policy, "adaptive or paper")
    val placement = raw("placement").getOrElse("slots").toLowerCase(Locale.ROOT)
    if (placement != "slots" && placement != "lotes") bad("placement", placement, "slots or lotes")
    val order = raw("order").getOrElse("srpt").toLowerCase(Locale.ROOT)
    if (order != "srpt" && order != "fsp") bad("order", order, "srpt or fsp")
    EagleConf(
      policy = policy,
      placement = placement,
      order = order,
      cutoffMs = if (raw("cutoffMs").isEmpty) 0L else long("cutoffMs", 1),
      reservationWindowMs = long("reservation.windowMs", 1),
      reservationHeadroom = double("reservation.headroom", _ > 0, "a number > 0"),
      reservationMaxFraction = double("reservation.maxFraction", x => x >= 0 && x <= 1, "a number in [0, 1]"),
      reservationIdleMs = long("reservation.idleMs", 0),
      reservationBaseFraction = double("reservation.baseFraction", x => x >= 0 && x <= 1, "a number in [0, 1]"),
      longShare = double("longShare", x => x >= 0 && x <= 1, "a number in [0, 1]"),
      deadlineFactor = double("deadlineFactor", _ > 0, "a number > 0"),
      holdMaxMs = long("hold.maxMs", 0, 3600000L),
      holdFraction = double("hold.fraction", x => x >= 0 && x <= 1, "a number in [0, 1]"),
      shortPartition = double("shortPartition", x => x >= 0 && x < 1, "a number in [0, 1)"),
      minProbes = long("minProbes", 1, MaxMinProbes).toInt,
      probeRatio = long("probeRatio", 1, MaxProbeRatio).toInt,
      starvationFactor = double("starvationFactor", _ > 0, "a number > 0"),
      defaultClass = defaultClass,
      defaultEstimateMs = long("defaultEstimateMs", 1),
      historyPath = path("history.path"),
      summaryPath = path("summary.path"),
      nativePath = path("native.path"),
      fallback = fallback,
      seed = long("seed", 0, (1L << 53) - 1),
      failAfterCalls = long("debug.failAfterCalls", -1),
      throwInRound = long("debug.throwInRound", -1),
      ddsEnabled = ddsEnabled,
      ddsMinWaitMs = ddsMin,
      ddsMaxWaitMs = ddsMax,
      ddsWindow = ddsWindow,
      ddsInherit = ddsInherit,
      localityWaitProcessMs = sparkWait("spark.locality.wait.process"),
      localityWaitNodeMs = sparkWait("spark.locality.wait.node"),
      localityWaitRackMs = sparkWait("spark.locality.wait.rack"),
      historyMaxEntries = long("history.maxEntries", 1, MaxHistoryEntries).toInt,
      summaryMaxTaskSets = long("summary.maxTaskSets", 1, Int.MaxValue).toInt,
      holdCallMs = long("debug.holdCallMs", 0, 60000),
      eireneSatc = bool("eirene.satc", default = false),
      eireneCcdm = ccdmOn(conf, bool("eirene.ccdm", default = false)),
      ccdmCm = long("eirene.ccdm.cm", 1, 1000).toInt,
      ccdmMpp = long("eirene.ccdm.mpp", 0, 1000).toInt,
      ccdmMaxBytes = {
        val v = raw("eirene.ccdm.maxBytes").getOrElse(default("eirene.ccdm.maxBytes"))
        Try(org.apache.spark.network.util.JavaUtils.byteStringAsBytes(v)).toOption.filter(_ > 0)
          .getOrElse(bad("eirene.ccdm.maxBytes", v, "a size > 0 such as 128m"))
      },
      cluster = clusterConf(conf, raw, long, bool))
  }

  /** The executor side of CCDM: a SparkPlugin (see EireneCcdmPlugin). A constant (`final`),
   *  so that `Keys`, initialised before this line, reads it rather than null. */
  final val CcdmPluginClass = "org.apache.spark.scheduler.eagle.EireneCcdmPlugin"

  /** `eirene.ccdm=true` needs the executor plugin loaded: without it nothing could migrate. */
  private def ccdmOn(conf: SparkConf, on: Boolean): Boolean = {
    val plugins = conf.get("spark.plugins", "").split(",").map(_.trim)
    if (on && !plugins.contains(CcdmPluginClass)) {
      throw new IllegalArgumentException(
        s"Invalid Eagle configuration: ${Prefix}eirene.ccdm = true needs spark.plugins to include " +
          s"$CcdmPluginClass (the executors' side of the migrations); spark.plugins = '${conf.get("spark.plugins", "")}'")
    }
    on
  }

  /** `cluster.*`: None unless `cluster.central` is set; bad values name their key. */
  private def clusterConf(
      conf: SparkConf,
      raw: String => Option[String],
      long: (String, Long, Long) => Long,
      bool: (String, Boolean) => Boolean): Option[ClusterConf] = {
    val others = Seq("cluster.nodePort", "cluster.secretFile", "cluster.secret", "cluster.pingMs", "cluster.warmGrants",
      "cluster.affinity")
      .filter(k => raw(k).isDefined)
    val central = raw("cluster.central") match {
      case None =>
        if (others.nonEmpty) bad(others.head, raw(others.head).get, s"nothing unless ${Prefix}cluster.central is set")
        return None
      case Some(v) => v
    }
    val hostPort = "^(.+):([0-9]{1,5})$".r
    central match {
      case hostPort(h, p) if h.nonEmpty && p.toInt >= 1 && p.toInt <= 65535 =>
      case _ => bad("cluster.central", central, "host:port of eagle-central (e.g. master:7100)")
    }
    val nodePort = long("cluster.nodePort", 1, 65535).toInt
    val pingMs = long("cluster.pingMs", 10, 60000)
    val secret: Array[Byte] = raw("cluster.secretFile") match {
      case Some(f) =>
        val bytes = Try(java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(f))).getOrElse(
          bad("cluster.secretFile", f, "a readable file holding the daemons' shared secret"))
        var n = bytes.length
        while (n > 0 && Character.isWhitespace(bytes(n - 1).toChar)) n -= 1
        if (n == 0) bad("cluster.secretFile", f, "a file holding a non-empty secret")
        bytes.take(n)
      case None =>
        raw("cluster.secret").orElse(conf.getOption("spark.authenticate.secret").map(_.trim)) match {
          case Some(s) if s.nonEmpty => s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
          case _ => throw new IllegalArgumentException(
            s"Invalid Eagle configuration: ${Prefix}cluster.central is set but no shared secret is: " +
              s"set ${Prefix}cluster.secretFile (the daemons' --secret-file), ${Prefix}cluster.secret " +
              "or spark.authenticate.secret")
        }
    }
    Some(ClusterConf(central, nodePort, secret, pingMs, bool("cluster.warmGrants", true),
      bool("cluster.affinity", true)))
  }

  /**
   * Reads the per-job hints of a task set. A bad value is not fatal: it is reported
   * (through `onBad`, which names the property) and ignored.
   * Returns (class code -1/0/1, estimate ms or -1).
   */
  def jobHints(props: java.util.Properties, onBad: String => Unit): (Int, Long) = {
    if (props == null) return (-1, -1L)
    val cls = Option(props.getProperty(JobClassProperty)).map(_.trim.toLowerCase(Locale.ROOT)) match {
      case None | Some("") => -1
      case Some("short") => 0
      case Some("long") => 1
      case Some(v) =>
        onBad(s"ignoring local property $JobClassProperty = '$v': expected short or long")
        -1
    }
    val est = Option(props.getProperty(JobEstimateProperty)).map(_.trim) match {
      case None | Some("") => -1L
      case Some(v) =>
        Try(v.toLong).toOption.filter(_ > 0).getOrElse {
          onBad(s"ignoring local property $JobEstimateProperty = '$v': expected an integer > 0 (ms)")
          -1L
        }
    }
    (cls, est)
  }
}
