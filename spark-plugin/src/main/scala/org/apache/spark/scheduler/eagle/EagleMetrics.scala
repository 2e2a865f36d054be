/*
 * Licensed under the Apache License, Version 2.0.
 */
package org.apache.spark.scheduler.eagle

import com.codahale.metrics.{Gauge, MetricRegistry}

import org.apache.spark.metrics.source.Source

/**
 * The `eagle` metrics source of the driver: one gauge per name of [[EagleObserver.names]]
 * (engine counters, reservation, cutoff, slots, live task sets by class, DDS waits, cluster
 * mode's grants and leases, plugin counters, fallback). Every gauge reads the observer's
 * cached reading, which a native call refreshes at most every [[EagleObserver.RefreshMs]] ms
 * without the scheduler lock, so reporters (JMX, CSV, the metrics servlets) cost the
 * scheduler nothing.
 */
private[eagle] class EagleMetricsSource(observer: EagleObserver) extends Source {
  override val sourceName: String = "eagle"
  override val metricRegistry: MetricRegistry = new MetricRegistry

  observer.names.zipWithIndex.foreach { case (name, i) =>
    metricRegistry.register(name, new Gauge[Long] {
      override def getValue: Long = {
        val v = observer.status().values
        if (i < v.length) v(i) else -1L
      }
    })
  }
}
