/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.Locale

import scala.util.Try
import scala.util.control.NonFatal

import org.apache.spark.SparkConf

/**
 * The validated `spark.scheduler.eagle.*` configuration.
 *
 * Validation happens once, when the cluster manager creates the scheduler: an unknown key
 * under the prefix or a value out of range throws an `IllegalArgumentException` naming the
 * key, so a typo fails the application at start-up instead of being silently ignored. The
 * engine's keys are defined, defaulted and validated by the Rust key table (eagle-core's
 * `settings`, through [[EngineConf]]); this class reads the strings from SparkConf and
 * keeps only the plugin's own keys.
 */
private[eagle] case class EagleConf(
    engine: EngineConf,
    historyPath: Option[String],
    summaryPath: Option[String],
    nativePath: Option[String],
    fallback: Boolean,
    throwInRound: Long = -1L,
    localityWaitProcessMs: Long = 3000L,
    localityWaitNodeMs: Long = 3000L,
    localityWaitRackMs: Long = 3000L,
    summaryMaxTaskSets: Int = 1000,
    eireneSatc: Boolean = false,
    eireneCcdm: Boolean = false,
    ccdmCm: Int = 1,
    ccdmMpp: Int = 2,
    ccdmMaxBytes: Long = 128L << 20,
    cluster: Option[ClusterConf] = None) {

  /** `policy`, as the Spark key spells it (adaptive or paper). */
  def policy: String = engine.word("policy")

  /** `placement=lotes`: LoTES decides which executors serve which task sets. */
  def lotes: Boolean = engine.word("placement") == "lotes"

  /** `policy=adaptive` (the default) rather than the paper's Eagle. */
  def adaptive: Boolean = policy == "adaptive"

  /** `dds.enabled`: Dynamic Delay Scheduling. */
  def ddsEnabled: Boolean = engine.flag("dds.enabled")

  /** `preempt.afterMs` and `preempt.fraction` above 0 under the adaptive policy, in driver
   *  mode (cluster mode's slots are the hosts' daemons'): the engine may name a long attempt
   *  to kill. */
  def preempting: Boolean =
    adaptive && cluster.isEmpty && engine.number("preempt.afterMs") > 0 && engine.number("preempt.fraction") > 0

  /** For the summary file: the engine's keys (values in force), then the plugin's. */
  def asMap: Seq[(String, Any)] = engine.values ++ Seq(
    "history.path" -> historyPath.orNull,
    "summary.path" -> summaryPath.orNull,
    "summary.maxTaskSets" -> summaryMaxTaskSets,
    "native.path" -> nativePath.orNull,
    "fallback" -> fallback,
    "debug.throwInRound" -> throwInRound,
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
 * The engine's keys: what was set (sent to `Native.create` as JSON) and every engine key's
 * value in force, as the Rust key table (eagle-core's `settings`) decoded, validated and
 * defaulted them. The plugin never restates an engine key's default or range.
 */
private[eagle] case class EngineConf(set: Seq[(String, String)], values: Seq[(String, Any)]) {
  private lazy val byName: Map[String, Any] = values.toMap

  def word(name: String): String = byName.get(name).map(String.valueOf).getOrElse("")

  def flag(name: String): Boolean = byName.get(name).contains(true)

  /** A numeric key's value in force (0 when it is not numeric). */
  def number(name: String): Double = byName.get(name) match {
    case Some(n: java.lang.Number) => n.doubleValue
    case _ => 0.0
  }

  /** `Native.create`'s configuration: the keys set, as UTF-8 JSON. */
  def toJson: Array[Byte] = EngineConf.json(set)
}

private[eagle] object EngineConf {
  import org.json4s._
  import org.json4s.jackson.JsonMethods

  def json(pairs: Seq[(String, String)]): Array[Byte] =
    JsonMethods.compact(JsonMethods.render(JObject(pairs.map { case (k, v) => k -> JString(v) }.toList)))
      .getBytes(java.nio.charset.StandardCharsets.UTF_8)

  private def plain(v: JValue): Any = v match {
    case JString(s) => s
    case JBool(b) => b
    case JInt(i) => i.toLong
    case JLong(l) => l
    case JDouble(d) => d
    case JDecimal(d) => d.toDouble
    case _ => null
  }

  /** Validates `set` with the engine's key table (the library must be loaded); a bad value
   *  throws an `IllegalArgumentException` naming the key. */
  def check(set: Seq[(String, String)]): EngineConf = {
    val out = try new Native().configCheck(json(set)) catch {
      case e: EagleNativeException =>
        throw new IllegalArgumentException(
          "Invalid Eagle configuration: " + e.getMessage.stripPrefix("eagle-jni configCheck: "), e)
    }
    val values = JsonMethods.parse(new String(out, java.nio.charset.StandardCharsets.UTF_8)) match {
      case JObject(fields) => fields.map { case (k, v) => k -> plain(v) }
      case other => throw new IllegalStateException(s"configCheck returned $other")
    }
    EngineConf(set, values)
  }

  /** The engine's keys, from the loaded library's table. */
  def keys(): Seq[EagleConf.Key] = {
    val text = new String(new Native().configKeys(), java.nio.charset.StandardCharsets.UTF_8)
    JsonMethods.parse(text) match {
      case JArray(rows) => rows.map { r =>
        def f(name: String): String = r \ name match {
          case JString(s) => s
          case other => throw new IllegalStateException(s"configKeys: $name = $other")
        }
        EagleConf.Key(f("name"), f("default"), f("type"), f("range"), f("doc"))
      }
      case other => throw new IllegalStateException(s"configKeys returned $other")
    }
  }
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

  /** The plugin's own keys (the engine's come from its key table: [[EngineConf.keys]]). */
  val SparkKeys: Seq[Key] = Seq(
    Key("history.path", "(none)", "path", "non-empty",
      "JSON file of past stage runs (mean task duration per stage signature), loaded at " +
        "start-up and saved at stop."),
    Key("summary.path", "(none)", "path", "non-empty",
      "Where to write the JSON run summary when the SparkContext stops."),
    Key("summary.maxTaskSets", "1000", "integer", s"[1, ${Int.MaxValue}]",
      "Most task sets (and Spark jobs) the run summary lists in detail (integer >= 1); older ones " +
        "are dropped first, totals stay exact."),
    Key("native.path", "(none)", "path", "non-empty", "Load libeagle_jni from this file instead of the bundled one."),
    Key("fallback", "true", "boolean", "true, false",
      "On a native error, log once and continue with stock TaskSchedulerImpl scheduling; " +
        "false aborts the running jobs instead."),
    Key("debug.throwInRound", "-1", "integer", ">= -1",
      "Test hook: the N-th offer round (1-based) whose plan gave out a slot throws inside " +
        "the stock round, after the plan (-1 = never)."),
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

  /**
   * Every key: the engine's, as the loaded library's key table defines them (so their
   * defaults and ranges are the ones the engine decodes), then the plugin's.
   */
  lazy val Keys: Seq[Key] = {
    NativeLibrary.load(None)
    EngineConf.keys() ++ SparkKeys
  }

  private lazy val sparkKnown: Set[String] = SparkKeys.map(_.name).toSet

  private def bad(key: String, value: String, expected: String): Nothing =
    throw new IllegalArgumentException(
      s"Invalid Eagle configuration: $Prefix$key = '$value': expected $expected")

  def fromSparkConf(conf: SparkConf): EagleConf = {
    def raw(name: String): Option[String] = conf.getOption(Prefix + name).map(_.trim)
    def path(name: String): Option[String] = raw(name).map { v =>
      if (v.isEmpty) bad(name, v, "a non-empty path")
      v
    }
    val nativePath = path("native.path")
    // The engine's keys are the library's: without it (a missing or broken native.path or
    // bundled library) they cannot be checked, and the engine fails at start as before
    // (the fallback, or the jobs' abort with fallback=false).
    val loaded =
      try { NativeLibrary.load(nativePath); true }
      catch { case e: Throwable if NonFatal(e) || e.isInstanceOf[LinkageError] => false }
    val set = conf.getAll.map(_._1).filter(_.startsWith(Prefix)).sorted.map(_.stripPrefix(Prefix))
    set.foreach { name =>
      if (loaded && !Keys.exists(_.name == name)) {
        val key = Prefix + name
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
    val engineSet = set.filterNot(sparkKnown).map(n => n -> raw(n).get)
    val engine = if (loaded) EngineConf.check(engineSet) else EngineConf(engineSet, engineSet)
    def default(name: String): String = SparkKeys.find(_.name == name).get.default
    def long(name: String, min: Long, max: Long = Long.MaxValue): Long = {
      val v = raw(name).getOrElse(default(name))
      Try(v.toLong).toOption.filter(x => x >= min && x <= max)
        .getOrElse(bad(name, v, if (max == Long.MaxValue) s"an integer >= $min"
          else s"an integer in [$min, $max]"))
    }
    def bool(key: String, default: Boolean): Boolean =
      raw(key).getOrElse(default.toString).toLowerCase(Locale.ROOT) match {
        case "true" => true
        case "false" => false
        case v => bad(key, v, "true or false")
      }
    // Spark's own locality waits: the initial adaptive intervals.
    def sparkWait(key: String): Long = {
      val v = conf.get(key, conf.get("spark.locality.wait", "3s"))
      Try(conf.getTimeAsMs(key, conf.get("spark.locality.wait", "3s"))).toOption.filter(_ >= 0)
        .getOrElse(throw new IllegalArgumentException(
          s"Invalid configuration: $key = '$v': expected a time >= 0 (e.g. 3s)"))
    }
    EagleConf(
      engine = engine,
      historyPath = path("history.path"),
      summaryPath = path("summary.path"),
      nativePath = nativePath,
      fallback = bool("fallback", default = true),
      throwInRound = long("debug.throwInRound", -1),
      localityWaitProcessMs = sparkWait("spark.locality.wait.process"),
      localityWaitNodeMs = sparkWait("spark.locality.wait.node"),
      localityWaitRackMs = sparkWait("spark.locality.wait.rack"),
      summaryMaxTaskSets = long("summary.maxTaskSets", 1, Int.MaxValue).toInt,
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
