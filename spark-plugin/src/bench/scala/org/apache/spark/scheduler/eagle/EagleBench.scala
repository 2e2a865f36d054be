/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import org.apache.spark.{SparkConf, SparkContext}

/**
 * Benchmarks run by `scripts/bench-plugin` (not tests; in the benchmark jar, not the plugin jar).
 *
 *  - `jni [calls]`: the cost of one JNI round trip (`Native.noop`) next to a plain,
 *    non-inlined JVM call, and of one `offer` through JNI on a busy engine.
 *  - `wall [tasks] [master]`: wall time of `sc.parallelize(1 to tasks, tasks).count()` under
 *    `spark-eagle:<master>` and under the stock `<master>`, in the same JVM, after a warm-up
 *    job in each; prints both and their ratio.
 */
private[spark] object EagleBench {

  def main(args: Array[String]): Unit = args.toList match {
    case "jni" :: rest => jni(rest.headOption.map(_.toInt).getOrElse(5000000))
    case "wall" :: rest =>
      wall(rest.headOption.map(_.toInt).getOrElse(100000), rest.lift(1).getOrElse("local[2]"))
    case _ =>
      System.err.println("usage: EagleBench jni [calls] | wall [tasks] [local-master]")
      sys.exit(2)
  }

  /** A plain JVM call the JIT may not inline, for comparison with `Native.noop`. */
  final class Plain { @noinline def same(x: Long): Long = x }

  private def perCall(n: Int)(f: => Long): Double = {
    val t0 = System.nanoTime()
    var acc = 0L
    var i = 0
    while (i < n) { acc += f; i += 1 }
    val ns = (System.nanoTime() - t0).toDouble / n
    if (acc == 42) println("") // keep `acc` alive
    ns
  }

  private def jni(calls: Int): Unit = {
    NativeLibrary.load(sys.props.get("eagle.native.path"))
    val native = new Native
    val conf = EagleConf.fromSparkConf(new SparkConf(false))
    val h = native.create(conf.engine.toJson)
    val plain = new Plain
    var x = h
    // warm up both paths (JIT) before measuring
    perCall(calls / 5)(native.noop(h)); perCall(calls / 5)(plain.same(x))
    val noopNs = perCall(calls)(native.noop(h))
    val plainNs = perCall(calls) { x = plain.same(x); x }
    println(f"JNI call overhead: Native.noop $noopNs%.1f ns/call, plain JVM call $plainNs%.2f ns/call " +
      f"(overhead ${noopNs - plainNs}%.1f ns)")

    // offer() through JNI in the steady state of examples/offer_latency.rs: 100 executors x 8
    // slots, 50 live task sets (1 in 5 long); each step ends one running task, replaces a
    // drained task set, and times one offer(node, 1).
    val nodes = (0 until 100).map(_ => native.addNode(h, 0, 8)).toArray
    var now = 0L
    val rnd = new scala.util.Random(7)
    val pending = scala.collection.mutable.HashMap[Int, Int]()
    var sig = 0L
    def submitOne(): Unit = {
      sig += 1
      val long = rnd.nextInt(5) == 0
      val tasks = if (long) 200 + rnd.nextInt(800) else 4 + rnd.nextInt(60)
      val j = native.submit(h, now, tasks, if (long) 1 else 0, if (long) 60000L else 500L, sig, -1L, 1, 1, false, Array.emptyIntArray)
      native.setPending(h, now, j, tasks, 0)
      pending(j) = tasks
    }
    (0 until 50).foreach(_ => submitOne())
    val running = scala.collection.mutable.ArrayBuffer[(Int, Int)]()
    def launched(n: Int, j: Int): Unit = {
      running += ((n, j))
      pending.get(j).foreach { p =>
        pending(j) = math.max(0, p - 1)
        native.setPending(h, now, j, pending(j), 0)
      }
    }
    nodes.foreach(n => native.offer(h, now, n, 8, Array.emptyIntArray).foreach(j => launched(n, j)))
    val empty = Array.emptyIntArray
    val samples = 200000
    val lat = new Array[Long](samples)
    var i = 0
    while (i < samples && running.nonEmpty) {
      now += 1
      val k = rnd.nextInt(running.size)
      val (n, j) = running(k)
      running(k) = running(running.size - 1); running.remove(running.size - 1)
      native.taskFinished(h, now, n, j, 500)
      if (pending.get(j).contains(0) && !running.exists(_._2 == j)) {
        pending.remove(j)
        native.removeJob(h, now, j)
        submitOne()
      }
      val t0 = System.nanoTime()
      val plan = native.offer(h, now, n, 1, empty)
      lat(i) = System.nanoTime() - t0
      plan.foreach(p => launched(n, p))
      i += 1
    }
    val sorted = lat.take(i).sorted
    println(s"offer() through JNI (100 executors x 8 slots, 50 live task sets, $i offers): " +
      s"median ${sorted(i / 2)} ns, p99 ${sorted((i * 99) / 100)} ns")
    native.destroy(h)
  }

  private def wall(tasks: Int, master: String): Unit = {
    def run(m: String): Double = {
      val sc = new SparkContext(new SparkConf().setMaster(m).setAppName(s"eagle-bench $m")
        .set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "false"))
      sc.setLogLevel("ERROR")
      try {
        sc.parallelize(1 to 1000, 100).count() // warm-up
        val t0 = System.nanoTime()
        val n = sc.parallelize(1 to tasks, tasks).count()
        val s = (System.nanoTime() - t0) / 1e9
        require(n == tasks)
        println(f"$m%-24s sc.parallelize(1 to $tasks, $tasks).count(): $s%.2f s")
        s
      } finally {
        sc.stop()
      }
    }
    val stock = run(master)
    val eagle = run("spark-eagle:" + master)
    println(f"wall-time ratio eagle/stock: ${eagle / stock}%.3f")
  }
}
