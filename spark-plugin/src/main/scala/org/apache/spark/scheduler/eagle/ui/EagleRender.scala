/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle.ui

import scala.xml.Node

import org.json4s._

import org.apache.spark.scheduler.eagle.events.EagleLiveStatus
import org.apache.spark.ui.UIUtils

/**
 * The Eagle tab's content, as HTML and as JSON (`/eagle/json`), from the status store and,
 * in a live application, the scheduler's current reading. Nothing here touches the servlet
 * API (see [[EaglePage]] for the one servlet-facing class).
 */
private[spark] object EagleRender {
  import EagleUIModel._

  /** The figures shown under "now": live reading, else the last snapshot in the store. */
  private case class Figures(label: String, time: Long, names: Array[String], values: Array[Long]) {
    def get(n: String): Option[Long] = {
      val i = names.indexOf(n)
      if (i >= 0 && i < values.length) Some(values(i)) else None
    }
  }

  private def figures(store: EagleUIStore, live: Option[EagleLiveStatus]): Option[Figures] =
    live.map(l => Figures("now (live)", l.time, l.names, l.values)).orElse(
      store.app.filter(_.snapshotTime > 0).map { a =>
        Figures(if (a.snapshotAtStop) "at stop" else "last snapshot", a.snapshotTime, a.counterNames, a.counterValues)
      })

  /** A Spark job's class: long if any of its task sets is long, else short if any is short. */
  def jobClass(classes: Iterable[String]): String =
    if (classes.exists(_ == "long")) "long" else if (classes.exists(_ == "short")) "short" else "none"

  /** Spark jobs (most recent first): (jobId, class, its task sets, oldest first). */
  def jobs(rows: Seq[EagleTaskSetRow]): Seq[(Int, String, Seq[EagleTaskSetRow])] =
    rows.groupBy(_.jobId).toSeq
      .map { case (id, rs) => (id, jobClass(rs.map(_.jobClass)), rs.sortBy(_.seq)) }
      .sortBy { case (_, _, rs) => -rs.map(_.seq).max }

  private def ms(v: Long): String = if (v < 0) "-" else s"$v ms"
  private def msD(v: Double): String = if (v < 0) "-" else f"$v%.0f ms"
  private def date(t: Long): String = if (t <= 0) "-" else UIUtils.formatDate(t)
  private def str(s: String): String = if (s == null) "-" else s

  private def table(headers: Seq[String], rows: Seq[Seq[Node]], id: String): Seq[Node] =
    <table class="table table-bordered table-sm table-striped" id={id}>
      <thead><tr>{headers.map(h => <th>{h}</th>)}</tr></thead>
      <tbody>{rows.map(r => <tr>{r}</tr>)}</tbody>
    </table>

  private def cell(v: Any): Node = <td>{v.toString}</td>

  def html(store: EagleUIStore, live: Option[EagleLiveStatus]): Seq[Node] = {
    val app = store.app
    val fig = figures(store, live)
    val rows = store.taskSets
    val points = store.reservations
    def f(n: String): String = fig.flatMap(_.get(n)).map(_.toString).getOrElse("-")
    def fms(n: String): String = fig.flatMap(_.get(n)).map(ms).getOrElse("-")
    val fallback = live.map(_.fallback).orElse(app.map(_.fallback)).getOrElse(false)
    val reason = live.map(_.fallbackReason).orElse(app.map(_.fallbackReason)).orNull

    val overview =
      <div id="eagle-overview">
        <ul class="list-unstyled">
          <li><strong>Policy:</strong> {app.map(a => str(a.policy)).getOrElse("-")}</li>
          <li><strong>Master:</strong> {app.map(a => str(a.master)).getOrElse("-")}</li>
          <li><strong>Started:</strong> {app.map(a => date(a.startTime)).getOrElse("-")}</li>
          <li><strong>Fallback to stock scheduling:</strong> {
            if (fallback) s"yes: ${str(reason)}" else "no"}</li>
        </ul>
      </div>

    val now = fig match {
      case None => <p>No reading yet.</p>
      case Some(g) =>
        <div id="eagle-now">
          <h4>Scheduler {g.label}, {date(g.time)}</h4>
          {table(Seq("reserved slots", "cutoff", "busy / total slots", "short task sets", "long task sets"),
            Seq(Seq(cell(f("reservedSlots")), cell(fms("cutoffMs")),
              cell(s"${f("busySlots")} / ${f("totalSlots")}"), cell(f("shortTaskSets")),
              cell(f("longTaskSets")))), "eagle-now-table")}
          <h5>Dynamic Delay Scheduling: locality waits of the live task sets</h5>
          {table(Seq("level", "mean", "max", "learned (where a new stage starts)"),
            Seq(("process", "Process"), ("node", "Node"), ("rack", "Rack")).map { case (l, c) =>
              Seq(cell(l), cell(fms(s"dds${c}WaitMeanMs")), cell(fms(s"dds${c}WaitMaxMs")),
                cell(fms(s"ddsLearned${c}WaitMs")))
            }, "eagle-dds-table")}
        </div>
    }

    val history =
      <div id="eagle-reservation">
        <h4>Reservation and cutoff over time (latest {math.min(points.size, 50)} of {points.size} changes)</h4>
        {table(Seq("time", "engine time", "reserved slots", "cutoff"),
          points.reverse.take(50).map(p => Seq(cell(date(p.time)), cell(ms(p.atMs)),
            cell(if (p.reservedSlots < 0) "-" else p.reservedSlots.toString), cell(ms(p.cutoffMs)))),
          "eagle-reservation-table")}
      </div>

    val counters = fig.toSeq.flatMap { g =>
      <div id="eagle-counters">
        <h4>Counters ({g.label})</h4>
        {table(Seq("counter", "value"), g.names.toSeq.zip(g.values.toSeq).map { case (n, v) =>
          Seq(cell(n), cell(v)) }, "eagle-counters-table")}
      </div>
    }

    val jobTable =
      <div id="eagle-jobs">
        <h4>Spark jobs (class: long if any of its task sets is long)</h4>
        {table(Seq("job", "class", "stages", "tasks"),
          jobs(rows).take(200).map { case (id, cls, rs) =>
            Seq(cell(id), <td class={s"eagle-class-$cls"}>{cls}</td>,
              cell(rs.map(r => s"${r.stageId}.${r.stageAttemptId}").mkString(", ")),
              cell(rs.map(_.tasks).sum))
          }, "eagle-jobs-table")}
      </div>

    val taskSetTable =
      <div id="eagle-tasksets">
        <h4>Task sets (latest {math.min(rows.size, 500)} of {rows.size})</h4>
        {table(Seq("job", "stage", "name", "tasks", "submitted", "class at submission",
            "estimate at submission", "class", "estimate", "ended", "launches by locality",
            "DDS waits process / node / rack (first → last)"),
          rows.take(500).map { r =>
            Seq(cell(r.jobId), cell(s"${r.stageId}.${r.stageAttemptId}"), cell(str(r.stageName)),
              cell(r.tasks), cell(date(r.submitTime)), cell(str(r.submitClass)),
              cell(s"${ms(r.submitEstimateMs)} (${str(r.submitSource)})"),
              <td class={s"eagle-class-${r.jobClass}"}>{str(r.jobClass)}</td>,
              cell(s"${ms(r.estimateMs)} (${str(r.source)})"),
              cell(if (r.endTime > 0) date(r.endTime) else "running"),
              cell(LevelNames.zip(r.localityLaunches.toSeq).filter(_._2 > 0)
                .map { case (l, n) => s"$l $n" }.mkString(", ")),
              cell(if (r.ddsSamples == 0) "-" else r.ddsFirstMs.toSeq.zip(r.ddsLastMs.toSeq)
                .map { case (a, b) => s"${msD(a)} → ${msD(b)}" }.mkString(" / ")))
          }, "eagle-tasksets-table")}
      </div>

    val config = app.toSeq.flatMap { a =>
      <div id="eagle-config">
        <h4>Configuration (as validated; the keys are under spark.scheduler.eagle.)</h4>
        {table(Seq("key", "value"), a.configKeys.toSeq.zip(a.configValues.toSeq).map { case (k, v) =>
          Seq(cell(k), cell(str(v))) }, "eagle-config-table")}
      </div>
    }

    overview ++ now ++ history ++ jobTable ++ taskSetTable ++ counters ++ config
  }

  private def num(v: Long): JValue = JInt(BigInt(v))
  private def jstr(s: String): JValue = if (s == null) JNull else JString(s)

  def json(store: EagleUIStore, live: Option[EagleLiveStatus]): JValue = {
    val app = store.app
    val fig = figures(store, live)
    val rows = store.taskSets
    JObject(
      "policy" -> app.map(a => jstr(a.policy)).getOrElse(JNull),
      "master" -> app.map(a => jstr(a.master)).getOrElse(JNull),
      "startTime" -> app.map(a => num(a.startTime)).getOrElse(JNull),
      "fallback" -> JBool(live.map(_.fallback).orElse(app.map(_.fallback)).getOrElse(false)),
      "fallbackReason" -> jstr(live.map(_.fallbackReason).orElse(app.map(_.fallbackReason)).orNull),
      "config" -> app.map(a => JObject(a.configKeys.toList.zip(a.configValues.toList).map {
        case (k, v) => k -> jstr(v) })).getOrElse(JNull),
      "status" -> fig.map { g =>
        JObject(
          "label" -> JString(g.label),
          "time" -> num(g.time),
          "values" -> JObject(g.names.toList.zip(g.values.toList).map { case (k, v) => k -> num(v) }))
      }.getOrElse(JNull),
      "reservationHistory" -> JArray(store.reservations.toList.map { p =>
        JObject("time" -> num(p.time), "atMs" -> num(p.atMs), "reservedSlots" -> JInt(p.reservedSlots),
          "cutoffMs" -> (if (p.cutoffMs < 0) JNull else num(p.cutoffMs)))
      }),
      "jobs" -> JArray(jobs(rows).toList.map { case (id, cls, rs) =>
        JObject("jobId" -> JInt(id), "class" -> JString(cls),
          "stages" -> JArray(rs.toList.map(r => JString(s"${r.stageId}.${r.stageAttemptId}"))))
      }),
      "taskSets" -> JArray(rows.toList.map { r =>
        JObject(
          "jobId" -> JInt(r.jobId),
          "stageId" -> JInt(r.stageId),
          "stageAttemptId" -> JInt(r.stageAttemptId),
          "eagleJob" -> JInt(r.eagleJob),
          "stageName" -> jstr(r.stageName),
          "tasks" -> JInt(r.tasks),
          "submitTime" -> num(r.submitTime),
          "submitClass" -> jstr(r.submitClass),
          "submitEstimateMs" -> num(r.submitEstimateMs),
          "submitSource" -> jstr(r.submitSource),
          "endTime" -> (if (r.endTime > 0) num(r.endTime) else JNull),
          "class" -> jstr(r.jobClass),
          "estimateMs" -> num(r.estimateMs),
          "source" -> jstr(r.source),
          "localityLaunches" -> JObject(LevelNames.toList.zip(r.localityLaunches.toList).map {
            case (l, n) => l -> num(n) }),
          "dds" -> (if (r.ddsSamples == 0) JNull else JObject(
            DdsLevelNames.toList.zipWithIndex.map { case (l, i) =>
              l -> JObject("firstMs" -> JDouble(r.ddsFirstMs(i)), "lastMs" -> JDouble(r.ddsLastMs(i)))
            } :+ ("samples" -> JInt(r.ddsSamples)))))
      }))
  }
}
