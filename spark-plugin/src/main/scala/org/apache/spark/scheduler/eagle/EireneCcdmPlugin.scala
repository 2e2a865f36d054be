/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import java.util.{Collections, LinkedHashMap => JLinkedHashMap, Map => JMap}
import java.util.concurrent.ConcurrentHashMap

import scala.reflect.ClassTag
import scala.util.control.NonFatal

import org.apache.spark.{SparkContext, SparkEnv}
import org.apache.spark.api.plugin.{DriverPlugin, ExecutorPlugin, PluginContext, SparkPlugin}
import org.apache.spark.internal.Logging
import org.apache.spark.rpc.{RpcEndpoint, RpcEndpointRef, RpcEnv}
import org.apache.spark.storage.{BlockId, StorageLevel}
import org.apache.spark.util.ThreadUtils

/**
 * The executors' side of Eirene's Coordinated Cold Data Migration (§III-B,
 * `spark.scheduler.eagle.eirene.ccdm`): a Spark plugin, enabled with
 * `spark.plugins=org.apache.spark.scheduler.eagle.EireneCcdmPlugin`.
 *
 * Each executor's half opens an RPC endpoint on the executor's RpcEnv and registers it with
 * the driver's half through the plugin channel. The driver (see [[EireneCcdm]]) sends it
 *
 *  - `Migrate`: copy a cached block into this executor's memory. A block already held here
 *    is reported at once; otherwise it is fetched from an executor holding it (the block
 *    manager's remote read: real network I/O) and stored `MEMORY_ONLY_SER`, told to the
 *    block manager master, so a task reading it here finds it local. The migrated bytes an
 *    executor holds stay within `eirene.ccdm.maxBytes`: the oldest migrated block goes first,
 *    and a block larger than the cap is not migrated.
 *  - `Drop`: the task set ended; the block goes if this half migrated it (blocks the
 *    application cached itself are never touched).
 *
 * Every migration is reported back (`Done`), so the driver's queue slot always frees. This
 * half holds no policy: what to migrate, where and when is the engine's.
 */
class EireneCcdmPlugin extends SparkPlugin {
  override def driverPlugin(): DriverPlugin = new EireneCcdmPlugin.DriverSide
  override def executorPlugin(): ExecutorPlugin = new EireneCcdmPlugin.ExecutorSide
}

object EireneCcdmPlugin extends Logging {
  /** Executor → driver: the executor's endpoint. */
  final case class Register(executorId: String, ref: RpcEndpointRef)
  /**
   * Driver → executor: copy `block` here (engine node `node`, for task `task` of `job`);
   * `elementClass` names the cached RDD's element class (it picks the block's serializer).
   * Sent as a tuple tagged [[MigrateTag]]: an executor's RPC layer deserialises with Spark's
   * own class loader, which does not see the application's jars.
   */
  final case class Migrate(job: Int, task: Int, node: Int, block: String, maxBytes: Long, elementClass: String) {
    def wire: AnyRef = (MigrateTag, job, task, node, block, maxBytes, elementClass)
  }
  /** Driver → executor: drop `block` if it was migrated here (sent as `(DropTag, block)`). */
  final case class Drop(block: String) {
    def wire: AnyRef = (DropTag, block)
  }
  val MigrateTag = "eagle-ccdm-migrate"
  val DropTag = "eagle-ccdm-drop"

  /** The class tag of a class name, primitives included (`int`, `byte`, ...). */
  private[eagle] def classTagOf(name: String): ClassTag[_] = name match {
    case "int" => ClassTag.Int
    case "long" => ClassTag.Long
    case "double" => ClassTag.Double
    case "float" => ClassTag.Float
    case "short" => ClassTag.Short
    case "byte" => ClassTag.Byte
    case "char" => ClassTag.Char
    case "boolean" => ClassTag.Boolean
    case "void" => ClassTag.Unit
    case n => ClassTag(org.apache.spark.util.Utils.classForName(n))
  }
  /** Executor → driver: a migration ended (`alreadyLocal`: nothing to copy, it was here). */
  final case class Done(
      executorId: String, job: Int, task: Int, node: Int, block: String, ok: Boolean, bytes: Long,
      alreadyLocal: Boolean, why: String = "")

  @volatile private var driverSide: DriverSide = _
  @volatile private var doneHandler: Done => Unit = (_: Done) => ()

  /** The driver's scheduler takes the executors' reports. */
  private[eagle] def onDone(f: Done => Unit): Unit = doneHandler = f

  /** The registered endpoint of executor `exec`, if its half is loaded. */
  private[eagle] def endpoint(exec: String): Option[RpcEndpointRef] =
    Option(driverSide).flatMap(d => Option(d.refs.get(exec)))

  final class DriverSide extends DriverPlugin {
    private[EireneCcdmPlugin] val refs = new ConcurrentHashMap[String, RpcEndpointRef]

    override def init(sc: SparkContext, ctx: PluginContext): JMap[String, String] = {
      driverSide = this
      Collections.emptyMap[String, String]
    }

    override def receive(message: AnyRef): AnyRef = {
      message match {
        case Register(e, ref) => refs.put(e, ref)
        case d: Done => doneHandler(d)
        case other => logWarning(s"Eagle CCDM: ignoring unexpected message $other")
      }
      null
    }

    override def shutdown(): Unit = {
      refs.clear()
      if (driverSide eq this) driverSide = null
    }
  }

  final class ExecutorSide extends ExecutorPlugin {
    @volatile private var rpcEnv: RpcEnv = _
    @volatile private var ref: RpcEndpointRef = _
    private val pool = ThreadUtils.newDaemonCachedThreadPool("eagle-ccdm", 32)
    /** Blocks migrated here, oldest first, with their sizes. Guarded by itself. */
    private val own = new JLinkedHashMap[BlockId, java.lang.Long]()
    private var ownBytes = 0L

    override def init(ctx: PluginContext, extraConf: JMap[String, String]): Unit = {
      rpcEnv = SparkEnv.get.rpcEnv
      val endpoint = new RpcEndpoint {
        override val rpcEnv: RpcEnv = ExecutorSide.this.rpcEnv
        override def receive: PartialFunction[Any, Unit] = {
          case (MigrateTag, job: Int, task: Int, node: Int, block: String, maxBytes: Long, cls: String) =>
            val m = Migrate(job, task, node, block, maxBytes, cls)
            pool.execute(() => ctx.send(migrate(ctx.executorID, m)))
          case (DropTag, block: String) => pool.execute(() => drop(BlockId(block)))
        }
      }
      ref = rpcEnv.setupEndpoint(s"eagle-ccdm-${ctx.executorID}", endpoint)
      ctx.send(Register(ctx.executorID, ref))
    }

    private def migrate(exec: String, m: Migrate): Done = {
      def done(ok: Boolean, bytes: Long, local: Boolean, why: String = "") =
        Done(exec, m.job, m.task, m.node, m.block, ok, bytes, local, why)
      try {
        val id = BlockId(m.block)
        val bm = SparkEnv.get.blockManager
        if (bm.getStatus(id).isDefined) {
          done(ok = true, 0L, local = true)
        } else {
          bm.getRemoteBytes(id) match {
            case None => done(ok = false, 0L, local = false, s"no executor could serve ${m.block}")
            case Some(buf) if buf.size > m.maxBytes =>
              buf.dispose()
              done(ok = false, buf.size, local = false, s"${m.block} (${buf.size} bytes) is larger than eirene.ccdm.maxBytes")
            case Some(buf) =>
              val size = buf.size
              makeRoom(size, m.maxBytes).foreach(v => bm.removeBlock(v, tellMaster = true))
              val put = bm.putBytes(id, buf, StorageLevel.MEMORY_ONLY_SER, tellMaster = true)(classTagOf(m.elementClass).asInstanceOf[ClassTag[Any]])
              if (put) {
                own.synchronized {
                  own.put(id, size)
                  ownBytes += size
                }
              }
              done(put, size, local = false, if (put) "" else s"the memory store refused ${m.block}")
          }
        }
      } catch {
        case NonFatal(e) =>
          logWarning(s"Eagle CCDM: could not migrate ${m.block}: ${e.getMessage}")
          done(ok = false, 0L, local = false, s"${e.getClass.getSimpleName}: ${e.getMessage}")
      }
    }

    /** Takes the oldest migrated blocks out of the books until `size` more fits in `cap`. */
    private def makeRoom(size: Long, cap: Long): Seq[BlockId] = own.synchronized {
      val out = Seq.newBuilder[BlockId]
      val it = own.entrySet.iterator
      while (ownBytes + size > cap && it.hasNext) {
        val e = it.next()
        out += e.getKey
        ownBytes -= e.getValue
        it.remove()
      }
      out.result()
    }

    private def drop(id: BlockId): Unit = {
      val mine = own.synchronized {
        Option(own.remove(id)).map { n => ownBytes -= n; true }.getOrElse(false)
      }
      if (mine) {
        try SparkEnv.get.blockManager.removeBlock(id, tellMaster = true)
        catch { case NonFatal(e) => logWarning(s"Eagle CCDM: could not drop $id: ${e.getMessage}") }
      }
    }

    override def shutdown(): Unit = {
      pool.shutdownNow()
      if (ref != null && rpcEnv != null) {
        try rpcEnv.stop(ref) catch { case NonFatal(_) => }
      }
    }
  }
}
