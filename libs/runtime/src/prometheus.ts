/**
 * Each process's metrics registry (prom-client): Node's default process metrics
 * (process_cpu_seconds_total, nodejs_heap_size_used_bytes, nodejs_eventloop_lag_seconds, …)
 * and whatever the parts running in the process register on it. The default metrics are
 * collected once per Node process and shared by every registry made in it, so a process
 * that makes several (a test, the all-in-one's parts) watches the event loop once.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Metric } from 'prom-client';

/** The Content-Type of a /metrics answer (Prometheus' text format 0.0.4). */
export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

let processDefaults: Registry | undefined;

const defaultMetrics = (): Registry => {
  if (!processDefaults) {
    processDefaults = new Registry();
    collectDefaultMetrics({ register: processDefaults });
  }
  return processDefaults;
};

/** A new registry holding the process's default metrics. */
export const newMetricsRegistry = (): Registry => {
  const registry = new Registry();
  for (const metric of defaultMetrics().getMetricsAsArray()) registry.registerMetric(metric as unknown as Metric);
  return registry;
};

/** Counts items by a key made of labels (in the labels' order, as written out), in first-seen order. */
export const countBy = <T>(items: Iterable<T>, labelsOf: (item: T) => Record<string, string>): { labels: Record<string, string>; value: number }[] => {
  const counts = new Map<string, { labels: Record<string, string>; value: number }>();
  for (const item of items) {
    const labels = labelsOf(item);
    const key = JSON.stringify(labels);
    const entry = counts.get(key);
    if (entry) entry.value++;
    else counts.set(key, { labels, value: 1 });
  }
  return [...counts.values()];
};
