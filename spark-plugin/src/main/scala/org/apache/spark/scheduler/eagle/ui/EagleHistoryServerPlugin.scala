/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle.ui

import org.apache.spark.SparkConf
import org.apache.spark.scheduler.SparkListener
import org.apache.spark.status.{AppHistoryServerPlugin, ElementTrackingStore}
import org.apache.spark.ui.SparkUI

/**
 * Rebuilds the Eagle tab in the History Server from the Eagle events of an application's
 * event log (registered in META-INF/services; the plugin jar must be on the History
 * Server's class path, e.g. `SPARK_DAEMON_CLASSPATH`). Applications without Eagle events
 * get no tab.
 */
class EagleHistoryServerPlugin extends AppHistoryServerPlugin {
  override def createListeners(conf: SparkConf, store: ElementTrackingStore): Seq[SparkListener] =
    Seq(new EagleUIListener(store))

  override def setupUI(ui: SparkUI): Unit = {
    val store = new EagleUIStore(ui.store.store)
    if (store.app.isDefined || store.taskSets.nonEmpty) {
      ui.attachTab(new EagleTab(ui, store, () => None))
    }
  }
}
