/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

/**
 * The JNI surface of `libeagle_jni` (Rust: `rust/eagle-jni/src/jni_api.rs`).
 *
 * Ownership (see docs/design/ffi.md):
 *  - `create` returns a handle: a pointer to Rust-owned engine state. The caller owns the
 *    handle and must call `destroy` exactly once, after its last use. Nothing else frees it.
 *  - Every other argument is a primitive or a primitive array. Arrays are copied on the
 *    Rust side during the call; Rust keeps no reference to any JVM object and never calls
 *    back into the JVM. Returned arrays are fresh JVM arrays owned by the caller.
 *  - Times are milliseconds since the scheduler started (`nowMs`); the engine works in
 *    seconds and the bridge converts.
 *  - Any Rust error or panic surfaces as an [[EagleNativeException]] thrown from the call;
 *    nothing unwinds into the JVM. After such an exception the handle may be left in an
 *    unspecified (but memory-safe) state: the plugin stops using it except for `destroy`.
 *
 * Calls on one handle are serialized by a mutex on the Rust side, so any thread may call.
 * The handle is a key of a registry, not a pointer: a call during or after `destroy` throws
 * [[EagleEngineClosedException]] and never touches freed memory; `destroy` waits for the
 * call in progress and is idempotent.
 * Encodings: class -1 none/unknown, 0 short, 1 long; estimate source 0 hint, 1 history,
 * 2 running mean, 3 default.
 */
private[eagle] class Native {

  /**
   * A new engine. `config`: UTF-8 JSON, an object of the engine's `spark.scheduler.eagle.*`
   * keys (relative to the prefix) to their values as set; decoded and validated by the Rust
   * key table (an unknown or bad key throws, naming it). Returns the handle (owned by the
   * caller).
   */
  @native def create(config: Array[Byte]): Long

  /** The engine's keys as UTF-8 JSON: `[{"name", "default", "type", "range", "doc"}, ...]`. */
  @native def configKeys(): Array[Byte]

  /** Decodes and validates `config` as `create` does, without an engine; returns every engine
   *  key's value in force as UTF-8 JSON (an object; the run summary's `config`). */
  @native def configCheck(config: Array[Byte]): Array[Byte]

  /** Frees the engine behind `handle` once the call in progress (if any) returns; later
   *  calls with it throw [[EagleEngineClosedException]]. Idempotent. */
  @native def destroy(handle: Long): Unit

  /** A new executor with `slots` task slots (cores / spark.task.cpus); returns its node id. */
  @native def addNode(handle: Long, nowMs: Long, slots: Int): Int

  /** The executor behind `node` is gone (its running tasks with it). */
  @native def removeNode(handle: Long, nowMs: Long, node: Int): Unit

  /**
   * A task set of `tasks` tasks arrives. `hintClass`: -1 none, 0 short, 1 long;
   * `hintEstimateMs`: mean task duration hint, -1 for none; `signature`: stable hash of the
   * stage, the key of the history; `group`: the Spark job or SQL execution the task set
   * belongs to (query-aware SRPT), -1 for none. `tasks` counts engine slots, `width` of them
   * per task (a wider resource profile); a task takes `cpus` cores (in cluster mode, that many
   * slots of its host's eagle-node). `barrier`: a barrier stage, whose tasks Spark launches
   * all in one round or none (cluster mode gathers a grant for each first; outside cluster
   * mode the plugin does not submit barrier stages). `inputNodes`: the nodes holding input of
   * its tasks, one entry per slot a task takes (cached blocks on an executor; a host's
   * executors for a host preference), empty for none: the adaptive policy's warm executors
   * rule counts such a node worth the task set (see eagle-core's `warmup`), and in cluster mode
   * the central places a long task set's tasks near it. Returns the engine's job id.
   */
  @native def submit(
      handle: Long,
      nowMs: Long,
      tasks: Int,
      hintClass: Int,
      hintEstimateMs: Long,
      signature: Long,
      group: Long,
      width: Int,
      cpus: Int,
      barrier: Boolean,
      inputNodes: Array[Int]): Int

  /**
   * Query-aware SRPT: the stages of `group` not submitted yet, as parallel arrays of stage
   * signatures and task counts (their work is estimated from the history).
   */
  @native def groupFuture(handle: Long, group: Long, signatures: Array[Long], tasks: Array[Int]): Unit

  /**
   * The task set `job` runs for `tenant` (a hash of a Connect session or a scheduler pool's
   * name) at `weight` (> 0) with a minimum share of `minShare` slots (eagle-core `tenant`).
   */
  @native def setTenant(handle: Long, job: Int, tenant: Long, weight: Double, minShare: Int): Unit

  /**
   * The adaptive state over time, flattened `(atMs, reservedSlots, cutoffMs)` triples,
   * oldest first; cutoffMs is -1 while no split is known. Empty under `policy=paper`.
   */
  @native def adaptiveHistory(handle: Long): Array[Double]

  /**
   * Spark's truth about `job`'s launchable work: `pending` tasks wait to launch (no copy
   * running) and `speculatable` running tasks wait for a speculative copy. The engine plans
   * slots for both (in engine slots: a task of a profile with k slots' worth of cpus counts k).
   */
  @native def setPending(handle: Long, nowMs: Long, job: Int, pending: Int, speculatable: Int): Unit

  /**
   * Spark lets `job` run only on `nodes` (`restricted` = 1: executors excluded for it or of an
   * incompatible resource profile left out), or anywhere (`restricted` = 0). A long job that
   * may run only on short-only executors is then scheduled as short (see `Driver::restrict`).
   */
  @native def restrict(handle: Long, nowMs: Long, job: Int, restricted: Int, nodes: Array[Int]): Unit

  /** Slots the engine counts busy (planned or running) across live executors. Read-only. */
  @native def busySlots(handle: Long): Long

  /**
   * `free` slots of `node` are free: the plan, one job id per launch in order, never a job of
   * `exclude`. The returned array is owned by the caller.
   */
  @native def offer(handle: Long, nowMs: Long, node: Int, free: Int, exclude: Array[Int]): Array[Int]

  /** Spark did not launch the task of `job` the plan put on `node`. */
  @native def decline(handle: Long, nowMs: Long, node: Int, job: Int): Unit

  /** A task of `job` ended on `node`; `durationMs` < 0 means it failed or was killed. */
  @native def taskFinished(handle: Long, nowMs: Long, node: Int, job: Int, durationMs: Long): Unit

  /** The task set is gone; its observed mean goes into the history. */
  @native def removeJob(handle: Long, nowMs: Long, job: Int): Unit

  /** `[class, estimateMs, estimateSource]` of `job`, or `[-1, -1, -1]` if unknown. */
  @native def jobInfo(handle: Long, job: Int): Array[Long]

  /**
   * Preemption (`preempt.afterMs`): of the attempts running now (parallel arrays: engine job,
   * start in engine ms, whether the task was preempted before, 0 or 1), the index of the one
   * to kill for a short task set that waited past the bound, or -1. `killing`: kills decided
   * before whose attempts have not ended.
   */
  @native def preempt(
      handle: Long,
      nowMs: Long,
      jobs: Array[Int],
      startedMs: Array[Long],
      preempted: Array[Int],
      killing: Int): Int

  /** Engine counters in the fixed order [[Native.CounterNames]]. */
  @native def counters(handle: Long): Array[Long]

  /** Loads the history JSON at the UTF-8 path; entries loaded, or -1 if the file is absent. */
  @native def historyLoad(handle: Long, pathUtf8: Array[Byte]): Int

  /** Writes the history JSON to the UTF-8 path (atomically); returns the entry count. */
  @native def historySave(handle: Long, pathUtf8: Array[Byte]): Int

  /**
   * Turns on Dynamic Delay Scheduling for task sets submitted from now on, with the `dds.*`
   * keys of `create`'s configuration; the initial intervals are Spark's
   * spark.locality.wait.{process,node,rack} (ms).
   */
  @native def enableDelay(handle: Long, processWaitMs: Long, nodeWaitMs: Long, rackWaitMs: Long): Unit

  /**
   * The least local level (a `TaskLocality` id: 0 PROCESS_LOCAL, 1 NODE_LOCAL, 2 NO_PREF,
   * 3 RACK_LOCAL, 4 ANY) `job` may launch at now. `valid`: the task set's locality levels,
   * most local first (`myLocalityLevels` ids); `pending(i)`: 1 if tasks still wait at
   * `valid(i)`, else 0. Without delay scheduling, 4 (ANY).
   */
  @native def allowedLocality(handle: Long, nowMs: Long, job: Int, valid: Array[Int], pending: Array[Int]): Int

  /** `job` launched a task at `level` (a `TaskLocality` id): its locality timer resets. */
  @native def launchedAt(handle: Long, nowMs: Long, job: Int, level: Int, valid: Array[Int]): Unit

  /**
   * A task of `job` preferred level `preferred`, ran at `actual` (`TaskLocality` ids) and
   * lost `netOhMs` (>= 0) to non-locality: the update rule moves the intervals in between.
   */
  @native def localityFeedback(
      handle: Long, nowMs: Long, job: Int, preferred: Int, actual: Int, netOhMs: Double): Unit

  /**
   * The interval time series of `job`, oldest first, flattened as `(atMs, level,
   * intervalMs)` triples (empty without delay scheduling). Call it before `removeJob`.
   */
  @native def delayHistory(handle: Long, job: Int): Array[Double]

  /**
   * What the engine is doing now, for metrics and the UI: [[Native.CounterNames]] followed by
   * [[Native.StatusNames]] (ms; -1 for none). Read-only, and not counted as a call (neither
   * in `nativeCalls` nor by the `failAfterCalls` test hook).
   */
  @native def status(handle: Long): Array[Long]

  /** Returns `handle`; does nothing else. Measures the bare cost of a JNI call. */
  @native def noop(handle: Long): Long

  /**
   * `placement=lotes` (see [[LotesPlacement]]): the executor behind `node` has `capacity`,
   * `[cores, memoryMiB, custom…]` in the plugin's resource order (a shorter array is zero of
   * the rest). Throws under `placement=slots`.
   */
  @native def lotesExecutor(handle: Long, node: Int, capacity: Array[Double]): Unit

  /** `placement=lotes`: each of the `tasks` tasks of the submitted `job` asks `demand`. */
  @native def lotesTaskSet(handle: Long, job: Int, demand: Array[Double], tasks: Int): Unit

  /** `placement=lotes`: the jobs LoTES keeps off executor `node`'s offer of `free` resources. */
  @native def lotesExclude(handle: Long, node: Int, free: Array[Double]): Array[Int]

  /** Turns on Eirene's Scheduler-Aware Task Cloning (`spark.scheduler.eagle.eirene.satc`). */
  @native def enableSatc(handle: Long): Unit

  /**
   * SATC: the task index of `job` to clone now, or -1. `waiting`: its tasks with no copy
   * started; `idle`: engine slots no waiting task needs; `running`: its task indices running
   * as one copy, earliest launched first. At most one clone per task, short jobs only.
   */
  @native def satcClone(handle: Long, job: Int, waiting: Int, idle: Int, running: Array[Int]): Int

  /**
   * Eirene's Coordinated Cold Data Migration (`spark.scheduler.eagle.eirene.ccdm`): one call
   * into the engine's planner, `op` one of `Native.Ccdm*` with its `args`; see
   * rust/eagle-jni/src/eirene.rs for the layouts. Migrations to start come back as
   * `(node, job, task, fast)` quadruples after the op's head values.
   */
  @native def ccdm(handle: Long, op: Int, args: Array[Int]): Array[Int]

  /**
   * Cluster mode (`spark.scheduler.eagle.cluster.central`, see [[ClusterMode]]): from now on
   * the hosts' `eagle-node` daemons grant the slots. `central`, `app` UTF-8; the driver links
   * to `host:nodePort` of every executor host. Before any executor or task set.
   */
  @native def clusterStart(
      handle: Long, central: Array[Byte], nodePort: Int, secret: Array[Byte], app: Array[Byte],
      pingMs: Long, warmGrants: Boolean, affinity: Boolean): Unit

  /** Cluster mode: executor `node` (from `addNode`) runs on `host` (UTF-8). */
  @native def executorHost(handle: Long, node: Int, host: Array[Byte]): Unit

  /** Cluster mode: the launches of the offer round that just ended (task id, executor, job). */
  @native def roundEnd(handle: Long, nowMs: Long, tids: Array[Long], nodes: Array[Int], jobs: Array[Int]): Unit

  /** Cluster mode: Spark task `tid` reached a final state (its lease ends). */
  @native def taskEnded(handle: Long, tid: Long): Unit

  /**
   * Cluster mode: blocks (without the engine's lock) until more than `seen` grants have
   * arrived or `timeoutMs` passes; the grants so far, or -1 outside cluster mode or once closed.
   */
  @native def awaitGrants(handle: Long, seen: Long, timeoutMs: Long): Long

  /** Cluster mode: [[Native.ClusterStatusNames]]; empty outside cluster mode. */
  @native def clusterStatus(handle: Long): Array[Long]

  /**
   * Cluster mode: the executors (engine nodes) where task set `job` cannot get a slot, so
   * delay scheduling must not hold its tasks for them: those on the central's short-only
   * hosts while `job` is long and the central places it. Empty otherwise.
   */
  @native def clusterOutOfReach(handle: Long, job: Int): Array[Int]
}

private[eagle] object Native {
  /** `ccdm(handle, op, args)` operations; mirror `op` in rust/eagle-jni/src/eirene.rs. */
  val CcdmEnable = 0
  val CcdmRegister = 1
  val CcdmProbe = 2
  val CcdmLaunched = 3
  val CcdmDone = 4
  val CcdmForget = 6
  val CcdmCounters = 7

  /** `TaskLocality` names by id (the level codes of the delay calls). */
  val LevelNames: Seq[String] = Seq("PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY")

  /** Layout of `counters(handle)`; mirrors `COUNTER_NAMES` in rust/eagle-jni/src/layout.rs. */
  val CounterNames: Seq[String] = Seq(
    "decisions", "probesPlaced", "probesRejectedSss", "probesBehindLong",
    "shortTasksAfterHol", "rescheduledProbes", "fallbackProbes", "stolenProbes",
    "srptBypasses", "emptyFetches", "backfills", "declines", "preemptions", "preemptedMs", "nativeCalls")

  /** The slots of `status(handle)` after the counters; mirrors `STATUS_NAMES` in rust/eagle-jni/src/layout.rs. */
  val StatusNames: Seq[String] = Seq(
    "reservedSlots", "cutoffMs", "busySlots", "totalSlots", "shortTaskSets", "longTaskSets",
    "ddsProcessWaitMeanMs", "ddsProcessWaitMaxMs", "ddsNodeWaitMeanMs", "ddsNodeWaitMaxMs",
    "ddsRackWaitMeanMs", "ddsRackWaitMaxMs",
    "ddsLearnedProcessWaitMs", "ddsLearnedNodeWaitMs", "ddsLearnedRackWaitMs", "warmupMs")

  /** Layout of `clusterStatus(handle)`; mirrors `CLUSTER_STATUS_NAMES` in rust/eagle-jni/src/layout.rs. */
  val ClusterStatusNames: Seq[String] = Seq(
    "centralUp", "hostsUp", "heldGrants", "runningLeases", "grants", "launched", "returned",
    "revoked", "taskEnds", "hostDowns", "centralDowns", "surplusReturned",
    "coldReturned", "unplacedLong", "placedLocally", "warmFirst", "spreadLate", "gangReturned",
    "probedAgain")

  val EstimateSources: Seq[String] = Seq("hint", "history", "runningMean", "default")

  def className(code: Long): String = code match {
    case 0 => "short"
    case 1 => "long"
    case _ => null
  }
}

/** Thrown by the native side for any Rust error or panic (see [[Native]]). */
class EagleNativeException(message: String) extends RuntimeException(message)

/**
 * Thrown by a native call on a destroyed engine: a call that raced with `destroy` (at
 * `stop`, from a status-update, task-result or DAG thread). Not a failure: the engine is gone.
 */
class EagleEngineClosedException(message: String) extends EagleNativeException(message)
