/**
 * What the API adds to its process's /metrics: its view (as every view: ViewMetrics, as
 * `view="api"`), the log's end, the cluster's objects by state — services by mode, tasks by
 * observed and desired state, nodes by state, availability and role, networks, and each
 * component's ownership term — and the latency of its requests by route and status.
 */
import { Gauge, Histogram } from 'prom-client';
import { taskStateName } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { countBy } from '@shoal/runtime';
import type { LiveView, ProcessMetrics } from '@shoal/runtime';

/** A request's latency: from a millisecond (a read) to half a minute (an intent waiting on a slow log). */
export const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const labelled = (
  metrics: ProcessMetrics,
  name: string,
  help: string,
  labelNames: readonly string[],
  samples: () => readonly { labels: Record<string, string>; value: number }[],
): void =>
  void new Gauge({
    name,
    help,
    labelNames,
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const { labels, value } of samples()) this.set(labels, value);
    },
  });

/** Registers the API's families on `metrics`; the returned function stops reporting its view. */
export const registerApiMetrics = (metrics: ProcessMetrics, view: LiveView, log: EventLog): (() => void) => {
  const unreport = metrics.views.add('api', { view: () => view, logEnd: () => log.highWaterMark() });
  new Gauge({
    name: 'shoal_log_high_water_mark',
    help: 'The offset the next record appended to the log will get (the log\'s end).',
    registers: [metrics.registry],
    async collect() {
      this.reset();
      const end = await log.highWaterMark().catch(() => undefined);
      if (end !== undefined) this.set(end);
    },
  });
  const state = () => view.state;
  labelled(metrics, 'shoal_services', 'Services, by mode.', ['mode'], () => countBy(state().services.values(), (s) => ({ mode: s.spec.mode.kind })));
  labelled(metrics, 'shoal_tasks', 'Tasks in the store, by observed and desired state.', ['state', 'desired_state'], () =>
    countBy(state().tasks.values(), (t) => ({ state: taskStateName(t.status.state).toLowerCase(), desired_state: taskStateName(t.desiredState).toLowerCase() })),
  );
  labelled(metrics, 'shoal_nodes', 'Nodes, by status (state), availability and role.', ['state', 'availability', 'role'], () =>
    countBy(state().nodes.values(), (n) => ({ state: n.status.state, availability: n.spec.availability, role: n.spec.role })),
  );
  labelled(metrics, 'shoal_networks', 'Networks.', [], () => [{ labels: {}, value: state().networks.size }]);
  labelled(metrics, 'shoal_component_term', 'The ownership term each component acts under (OwnershipTaken).', ['component'], () =>
    [...state().terms.entries()].map(([component, term]) => ({ labels: { component }, value: term })),
  );
  return unreport;
};

/** The API's request latency histogram, by method, route (the path as routed, `:id` for ids) and status. */
export const requestDuration = (metrics: ProcessMetrics): Histogram<'method' | 'route' | 'status'> =>
  new Histogram({
    name: 'shoal_api_request_duration_seconds',
    help: 'How long the API took to answer, by method, route (as routed: /services/:id) and status code.',
    labelNames: ['method', 'route', 'status'],
    buckets: REQUEST_BUCKETS,
    registers: [metrics.registry],
  });
