/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.lang.management.ManagementFactory
import java.nio.charset.StandardCharsets
import java.nio.file.{Files, Paths}
import java.util.concurrent.atomic.AtomicLong

import scala.util.Try

import org.apache.spark.{SparkConf, SparkContext}
import org.apache.spark.scheduler.{SparkListener, SparkListenerTaskEnd}

/**
 * Reliability benchmarks run by `scripts/stress` (and, with small sizes, by
 * tests/test_stress.py). Each prints one JSON object per line; the last line is the result.
 *
 *  - `stopcycles N [holdMs] [master]`: N SparkContexts under `spark-eagle:<master>` (default
 *    `local[4]`), each stopped while tasks are in flight (a thread keeps submitting jobs of
 *    sleeping tasks; the stop comes after the first task ends, at a random point of a
 *    `debug.holdCallMs = holdMs` native call). A cycle fails when the engine reports a native
 *    failure, or when a cycle takes more than 120 s (a hang: thread dump, exit 3).
 *  - `soak TASKS JOBS [maxTaskSets] [master] [threads] [summaryPath]`: TASKS tasks in JOBS
 *    jobs (cheap tasks, submitted from `threads` threads) on one SparkContext; at 10 %, 25 %,
 *    50 %, 75 % and 100 % of the jobs, submission pauses (no job in flight, listener bus
 *    drained) and it prints the driver heap used after GC (MemoryMXBean), the process RSS
 *    (/proc/self/status) and the sizes of the run summary.
 */
private[spark] object EagleStress {

  def main(args: Array[String]): Unit = args.toList match {
    case "stopcycles" :: n :: rest =>
      sys.exit(stopCycles(n.toInt, rest.headOption.map(_.toLong).getOrElse(50L),
        rest.lift(1).getOrElse("local[4]")))
    case "soak" :: tasks :: jobs :: rest =>
      sys.exit(soak(tasks.toLong, jobs.toInt, rest.headOption.map(_.toInt).getOrElse(1000),
        rest.lift(1).getOrElse("local[4]"), rest.lift(2).map(_.toInt).getOrElse(2),
        rest.lift(3).filter(_.nonEmpty)))
    case _ =>
      System.err.println("usage: EagleStress stopcycles N [holdMs] [master] | " +
        "soak TASKS JOBS [maxTaskSets] [master] [threads] [summaryPath]")
      sys.exit(2)
  }

  private def conf(master: String, app: String): SparkConf = new SparkConf()
    .setMaster("spark-eagle:" + master).setAppName(app)
    .set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false")

  private def scheduler(sc: SparkContext): EagleTaskScheduler =
    sc.taskScheduler.asInstanceOf[EagleTaskScheduler]

  private def json(kv: (String, Any)*): String = kv.map { case (k, v) =>
    val s = v match {
      case s: String => "\"" + s.replace("\"", "'") + "\""
      case d: Double => f"$d%.4f"
      case o => o.toString
    }
    "\"" + k + "\": " + s
  }.mkString("{", ", ", "}")

  private def stopCycles(n: Int, holdMs: Long, master: String): Int = {
    val rnd = new scala.util.Random(11)
    var failures = 0
    var closedCalls = 0L
    val t0 = System.nanoTime()
    for (cycle <- 1 to n) {
      val c0 = System.nanoTime()
      val watchdog = new Thread(() => {
        try {
          Thread.sleep(120000L)
          System.err.println(s"stopcycles: cycle $cycle hangs; thread dump:")
          Thread.getAllStackTraces.forEach { (t, st) =>
            System.err.println("\"" + t.getName + "\" " + t.getState) // (Scala 2.12: no \" inside s"")
            st.foreach(f => System.err.println(s"    at $f"))
          }
          println(json("cycle" -> cycle, "result" -> "hang"))
          Runtime.getRuntime.halt(3)
        } catch { case _: InterruptedException => }
      }, "stopcycles-watchdog")
      watchdog.setDaemon(true)
      watchdog.start()
      val sc = new SparkContext(conf(master, s"stopcycles-$cycle")
        .set(EagleConf.Prefix + "debug.holdCallMs", holdMs.toString))
      sc.setLogLevel("ERROR")
      val ended = new AtomicLong
      sc.addSparkListener(new SparkListener {
        override def onTaskEnd(e: SparkListenerTaskEnd): Unit = ended.incrementAndGet()
      })
      @volatile var stopping = false
      val submitter = new Thread(() => {
        while (!stopping) {
          Try(sc.parallelize(0 until 16, 16).map { i => Thread.sleep(5); i }.count())
        }
      }, "stopcycles-submitter")
      submitter.setDaemon(true)
      submitter.start()
      val deadline = System.nanoTime() + 60000000000L
      while (ended.get() < 2 && System.nanoTime() < deadline) Thread.sleep(5)
      Thread.sleep(rnd.nextInt(math.max(1, holdMs.toInt) + 20).toLong)
      val sched = scheduler(sc)
      stopping = true
      sc.stop()
      submitter.join(60000L)
      watchdog.interrupt()
      val failure = sched.engine.failureReason
      closedCalls += sched.engine.closedCalls
      if (failure.nonEmpty) failures += 1
      println(json("cycle" -> cycle, "tasksEnded" -> ended.get(), "closedCalls" -> sched.engine.closedCalls,
        "seconds" -> (System.nanoTime() - c0) / 1e9, "failure" -> failure.getOrElse("")))
    }
    println(json("result" -> (if (failures == 0) "ok" else "failed"), "cycles" -> n,
      "failedCycles" -> failures, "holdMs" -> holdMs, "closedCalls" -> closedCalls,
      "seconds" -> (System.nanoTime() - t0) / 1e9))
    if (failures == 0) 0 else 1
  }

  private def rssKb(): Long = Try {
    val lines = new String(Files.readAllBytes(Paths.get("/proc/self/status")), StandardCharsets.UTF_8)
    lines.split('\n').find(_.startsWith("VmRSS:")).get.split("\\s+")(1).toLong
  }.getOrElse(-1L)

  /**
   * The JVM's own committed memory in KiB (Native Memory Tracking total), or -1 when the JVM
   * runs without -XX:NativeMemoryTracking. RSS minus this is roughly what native libraries
   * (the Rust engine) and the C allocator hold.
   */
  private def nmtCommittedKb(): Long = Try {
    val server = ManagementFactory.getPlatformMBeanServer
    val name = new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand")
    val out = server.invoke(name, "vmNativeMemory", Array[AnyRef](Array("summary")),
      Array(classOf[Array[String]].getName)).toString
    val m = "Total: reserved=(\\d+)KB, committed=(\\d+)KB".r.findFirstMatchIn(out).get
    m.group(2).toLong
  }.getOrElse(-1L)

  private def heapAfterGc(): Long = {
    val mem = ManagementFactory.getMemoryMXBean
    (0 until 3).foreach { _ => System.gc(); Thread.sleep(200) }
    mem.getHeapMemoryUsage.getUsed
  }

  private def soak(
      tasks: Long, jobs: Int, maxTaskSets: Int, master: String, threads: Int,
      summaryPath: Option[String]): Int = {
    val perJob = math.max(1L, tasks / jobs).toInt
    val c = conf(master, "eagle-soak").set(EagleConf.Prefix + "summary.maxTaskSets", maxTaskSets.toString)
    summaryPath.foreach(p => c.set(EagleConf.Prefix + "summary.path", p))
    val sc = new SparkContext(c)
    sc.setLogLevel("ERROR")
    val sched = scheduler(sc)
    val done = new AtomicLong
    val next = new AtomicLong
    // Submitters take job indices below `limit`; at a checkpoint they wait for the next one.
    @volatile var limit = 0L
    val checkpoints = Seq(10, 25, 50, 75, 100).map(p => p -> math.max(1L, jobs.toLong * p / 100))
    val t0 = System.nanoTime()
    var points = Seq.empty[(Int, Long, Long)]
    try {
      val pool = (0 until threads).map { _ =>
        val t = new Thread(() => {
          var i = next.getAndIncrement()
          while (i < jobs) {
            while (i >= limit) Thread.sleep(2)
            val n = sc.parallelize(0 until perJob, perJob).map(i => i.toLong * 2).count()
            require(n == perJob)
            done.incrementAndGet()
            i = next.getAndIncrement()
          }
        }, "soak-submitter")
        t.start()
        t
      }
      for ((pct, at) <- checkpoints) {
        limit = at
        while (done.get() < at && pool.exists(_.isAlive)) Thread.sleep(20)
        Try(sc.listenerBus.waitUntilEmpty(10000L))
        val heap = heapAfterGc()
        val rss = rssKb()
        val nmt = nmtCommittedKb()
        val (jobsKept, taskSetsKept, taskSetsTotal) = sched.summary.sizes
        points :+= ((pct, heap, rss))
        println(json("progress" -> pct, "jobsDone" -> done.get(), "tasksDone" -> done.get() * perJob,
          "seconds" -> (System.nanoTime() - t0) / 1e9, "heapUsedAfterGcMb" -> heap / 1048576.0,
          "rssMb" -> rss / 1024.0, "jvmCommittedMb" -> nmt / 1024.0, "summaryJobs" -> jobsKept, "summaryTaskSets" -> taskSetsKept,
          "summaryTaskSetsTotal" -> taskSetsTotal, "engineFallback" -> sched.engine.failureReason.isDefined))
      }
      limit = Long.MaxValue
      pool.foreach(_.join())
    } finally {
      sc.stop()
    }
    val (_, h10, r10) = points.head
    val (_, h100, r100) = points.last
    val heapGrowth = (h100 - h10).toDouble / h10
    val rssGrowth = (r100 - r10).toDouble / r10
    val heapMax = points.map(_._2).max
    val rssMax = points.map(_._3).max
    println(json("result" -> "done", "tasks" -> done.get() * perJob, "jobs" -> done.get(),
      "seconds" -> (System.nanoTime() - t0) / 1e9,
      "heapGrowth10to100" -> heapGrowth, "rssGrowth10to100" -> rssGrowth,
      "heapMaxOver10" -> (heapMax - h10).toDouble / h10, "rssMaxOver10" -> (rssMax - r10).toDouble / r10))
    0
  }
}
