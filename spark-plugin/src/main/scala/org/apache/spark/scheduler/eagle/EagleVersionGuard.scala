/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.apache.spark.SparkException

/**
 * Refuses to start in a Spark line other than the one the jar was built for.
 *
 * Each jar is compiled against one Spark line (`eagle-spark-<line>_<scala>-<version>.jar`),
 * whose `private[spark]` scheduler API and Scala version differ from the others'; loaded
 * into another line it would fail later with a NoSuchMethodError or worse. The build writes
 * the line into `eagle-build.properties` next to this class; [[EagleClusterManager.canCreate]]
 * calls [[check]] before anything else of the plugin runs.
 *
 * Written against Java APIs only (no Scala collections, no string interpolation): this code
 * runs inside whatever Spark and Scala version the jar was loaded into.
 */
private[spark] object EagleVersionGuard {
  val Resource = "eagle-build.properties"

  /** Throws a SparkException naming both versions when this Spark is not the jar's line. */
  def check(): Unit = {
    val props = new java.util.Properties()
    val in = classOf[EagleClusterManager].getResourceAsStream(Resource)
    if (in == null) {
      throw new SparkException("eagle-spark: " + Resource + " is missing from the plugin jar " +
        "(build the jar with scripts/build.sh)")
    }
    try props.load(in) finally in.close()
    val built = props.getProperty("spark.line", "?")
    val running = org.apache.spark.SPARK_VERSION
    val message = mismatch(built, props.getProperty("scala.binary", "?"),
      props.getProperty("jar", "the eagle-spark jar"), running, runningScala())
    if (message != null) throw new SparkException(message)
  }

  /** `major.minor` of a Spark version such as `4.1.0` or `4.2.0-SNAPSHOT`. */
  def line(sparkVersion: String): String = {
    val parts = sparkVersion.split("[.-]")
    if (parts.length >= 2) parts(0) + "." + parts(1) else sparkVersion
  }

  /** The error message when `builtLine` is not `runningSpark`'s line, else null. */
  def mismatch(builtLine: String, builtScala: String, jar: String, runningSpark: String,
      runningScala: String): String = {
    val want = line(runningSpark)
    if (want.equals(builtLine)) return null
    val wanted = jar.replaceFirst("^eagle-spark-[^_]+_[^-]+-", "eagle-spark-" + want + "_" + runningScala + "-")
    jar + " was built for Spark " + builtLine + " (Scala " + builtScala + ") but runs in Spark " +
      runningSpark + " (Scala " + runningScala + "): use " + wanted + " instead (bash scripts/build.sh --spark " +
      want + ")"
  }

  private def runningScala(): String = {
    try line(scala.util.Properties.versionNumberString) catch { case _: Throwable => "?" }
  }
}
