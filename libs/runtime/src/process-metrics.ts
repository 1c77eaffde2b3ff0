/**
 * One process's metrics: its own prom-client registry (Node's process metrics and
 * Shoal's), the views it holds (ViewMetrics), and the ticks of the components it runs.
 * Every part of a process registers on the one instance it is handed, so that the
 * all-in-one, which runs them all, answers one /metrics with each family once.
 */
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Verdict } from '@shoal/domain';
import { newMetricsRegistry } from './prometheus';
import { ViewMetrics } from './view-metrics';

/** A tick's duration: from a millisecond (nothing to do) to a minute (an append during a broker outage). */
export const TICK_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/**
 * A core's decisions, the synchronous part of a tick: nothing else runs in the process
 * meanwhile, so these are pauses, from 100 µs to the seconds a core must never take.
 */
export const DECIDE_BUCKETS = [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Proposals in a tick's batch. */
export const BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 5000];

/** A component as /metrics reads it at each scrape. */
export interface ComponentSource {
  readonly component: string;
  readonly state: string;
  /** The partition it serves, when its process serves several: its metrics carry a `partition` label. */
  readonly partition?: number;
}

/**
 * A component's labels: `partition` only from a process that serves several partitions, so
 * that one serving one writes the same series as before, and one serving several writes one
 * series a partition rather than folding them into one (or, for a gauge, keeping the last).
 */
const componentLabels = (component: string, partition: number | undefined): { component: string; partition?: string } =>
  partition === undefined ? { component } : { component, partition: String(partition) };

export class ProcessMetrics {
  readonly registry: Registry;
  readonly views: ViewMetrics;
  private readonly components = new Set<ComponentSource>();
  private readonly tickSeconds: Histogram<'component' | 'partition'>;
  private readonly decideSeconds: Histogram<'component' | 'partition'>;
  private readonly batchSize: Histogram<'component' | 'partition'>;
  private readonly decisions: Counter<'component' | 'partition' | 'type' | 'verdict'>;

  constructor(registry: Registry = newMetricsRegistry()) {
    this.registry = registry;
    this.views = new ViewMetrics(registry);
    this.tickSeconds = new Histogram({
      name: 'shoal_component_tick_duration_seconds',
      help: 'How long an active component took to decide, append its proposals and see them ruled on (ticks that proposed something).',
      labelNames: ['component', 'partition'],
      buckets: TICK_BUCKETS,
      registers: [registry],
    });
    this.decideSeconds = new Histogram({
      name: 'shoal_component_decide_duration_seconds',
      help: "How long an active component's core took to decide, every tick: the part of a tick that holds the process's event loop (the rest of a tick waits on the log).",
      labelNames: ['component', 'partition'],
      buckets: DECIDE_BUCKETS,
      registers: [registry],
    });
    this.batchSize = new Histogram({
      name: 'shoal_component_batch_size',
      help: 'Proposals an active component appended in one tick.',
      labelNames: ['component', 'partition'],
      buckets: BATCH_BUCKETS,
      registers: [registry],
    });
    this.decisions = new Counter({
      name: 'shoal_component_decisions_total',
      help: "Proposals components appended, by record type and evolve's verdict on them.",
      labelNames: ['component', 'partition', 'type', 'verdict'],
      registers: [registry],
    });
    const components = this.components;
    new Gauge({
      name: 'shoal_component_active',
      help: 'Whether this instance of a component is the active one (1), acting for its part, or not (0: starting, standby or stopped).',
      labelNames: ['component', 'partition'],
      registers: [registry],
      collect() {
        this.reset();
        for (const source of components) this.set(componentLabels(source.component, source.partition), source.state === 'active' ? 1 : 0);
      },
    });
  }

  /** Reports whether `source` is active, from now on; the returned function stops reporting it. */
  addComponent(source: ComponentSource): () => void {
    this.components.add(source);
    return () => void this.components.delete(source);
  }

  /** One tick of `component` (of `partition`, when the process serves several) that appended `types` (one per proposal) and got `verdicts`, in `seconds`. */
  tick(component: string, seconds: number, types: readonly string[], verdicts: readonly Verdict[], partition?: number): void {
    const labels = componentLabels(component, partition);
    this.tickSeconds.observe(labels, seconds);
    this.batchSize.observe(labels, types.length);
    types.forEach((type, index) => this.decisions.inc({ ...labels, type, verdict: verdicts[index]?.status ?? 'unknown' }));
  }

  /** One decision of `component`'s core (of `partition`, when the process serves several), in `seconds`, whether it proposed anything or not. */
  decided(component: string, seconds: number, partition?: number): void {
    this.decideSeconds.observe(componentLabels(component, partition), seconds);
  }

  /** The /metrics answer: Prometheus' text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  /** The value of one sample (undefined when there is none), as /metrics would write it. */
  async sample(name: string, labels: Readonly<Record<string, string>> = {}): Promise<number | undefined> {
    const metric = this.registry.getSingleMetric(name);
    if (!metric) return undefined;
    const { values } = await metric.get();
    const wanted = Object.entries(labels);
    const found = values.find(
      (value) => Object.keys(value.labels).length === wanted.length && wanted.every(([key, label]) => String(value.labels[key]) === label) && !('metricName' in value && value.metricName !== name),
    );
    return found?.value;
  }
}

/** Injection token: the process's ProcessMetrics. */
export const PROCESS_METRICS = Symbol('PROCESS_METRICS');
