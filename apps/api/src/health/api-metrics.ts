/**
 * What /metrics reports about the API's view: what every view reports (viewMetrics: the
 * records it read by verdict, where it is and started), how far behind the log it is, and
 * the cluster's objects by state — services by mode, tasks by observed and desired state, nodes by
 * state, availability and role, networks, and each component's ownership term.
 */
import { taskStateName } from '@shoal/contracts';
import type { Projection } from '@shoal/domain';
import { viewMetrics } from '@shoal/runtime';
import type { MetricFamily, Sample } from '@shoal/runtime';

/** Counts items by a key made of labels, in first-seen order. */
const countBy = <T>(items: Iterable<T>, labelsOf: (item: T) => Record<string, string>): Sample[] => {
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

/** `startedAt`: the offset the view started from (see viewMetrics). */
export const apiMetrics = (projection: Projection, highWaterMark: number, startedAt = 0): MetricFamily[] => {
  const { state } = projection;
  return [
    ...viewMetrics(projection, { whose: "the API's view", startedAt }),
    { name: 'shoal_log_high_water_mark', help: 'The offset the next record appended to the log will get.', type: 'gauge', samples: [{ value: highWaterMark }] },
    {
      name: 'shoal_view_lag_records',
      help: "How many records the API's view has yet to apply.",
      type: 'gauge',
      samples: [{ value: Math.max(0, highWaterMark - projection.position) }],
    },
    { name: 'shoal_services', help: 'Services, by mode.', type: 'gauge', samples: countBy(state.services.values(), (s) => ({ mode: s.spec.mode.kind })) },
    {
      name: 'shoal_tasks',
      help: 'Tasks in the store, by observed and desired state.',
      type: 'gauge',
      samples: countBy(state.tasks.values(), (t) => ({
        state: taskStateName(t.status.state).toLowerCase(),
        desired_state: taskStateName(t.desiredState).toLowerCase(),
      })),
    },
    {
      name: 'shoal_nodes',
      help: 'Nodes, by state, availability and role.',
      type: 'gauge',
      samples: countBy(state.nodes.values(), (n) => ({ state: n.status.state, availability: n.spec.availability, role: n.spec.role })),
    },
    { name: 'shoal_networks', help: 'Networks.', type: 'gauge', samples: [{ value: state.networks.size }] },
    {
      name: 'shoal_component_term',
      help: 'The ownership term each component acts under (OwnershipTaken).',
      type: 'gauge',
      samples: [...state.terms.entries()].map(([component, term]) => ({ labels: { component }, value: term })),
    },
  ];
};
