/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle.ui

import scala.util.control.NonFatal
import scala.xml.Node

import org.json4s.{JObject, JString, JValue}

import org.apache.spark.internal.Logging
// Spark 4 serves its UI with the Jakarta servlet API, Spark 3.5 with javax.servlet: the
// line's Shims say which.
import org.apache.spark.scheduler.eagle.Shims.HttpServletRequest
import org.apache.spark.scheduler.eagle.events.EagleLiveStatus
import org.apache.spark.ui.{SparkUI, SparkUITab, UIUtils, WebUIPage}

/**
 * The "Eagle" tab of the Spark UI (`/eagle/`, and `/eagle/json`): what the Eagle scheduler
 * is doing and did. `live` gives the scheduler's current reading in a running application
 * (none in the History Server, which shows the last snapshot of the event log).
 */
private[spark] class EagleTab(
    parent: SparkUI,
    val store: EagleUIStore,
    val live: () => Option[EagleLiveStatus])
  extends SparkUITab(parent, "eagle") {

  attachPage(new EaglePage(this))
}

/** The tab's page: the servlet-facing shell around [[EagleRender]]. */
private[spark] class EaglePage(tab: EagleTab) extends WebUIPage("") with Logging {

  private def reading: Option[EagleLiveStatus] =
    try tab.live() catch { case NonFatal(_) => None }

  override def render(request: HttpServletRequest): Seq[Node] = {
    val content = try EagleRender.html(tab.store, reading) catch {
      case NonFatal(e) =>
        logWarning(s"Eagle UI: could not render the tab: ${e.getMessage}", e)
        <p>The Eagle tab could not be rendered: {e.toString}</p>
    }
    UIUtils.headerSparkPage(request, "Eagle scheduler", content, tab)
  }

  override def renderJson(request: HttpServletRequest): JValue =
    try EagleRender.json(tab.store, reading) catch {
      case NonFatal(e) => JObject("error" -> JString(e.toString))
    }
}
