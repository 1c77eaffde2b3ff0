/**
 * What every process's /metrics says about its view of the log: the records it has read by
 * evolve's verdict — poison among them, so that an unreadable record on the topic shows
 * in every process, not only in the audit — those read at an older version, where the view
 * is, where it started (a snapshot's offset: the records before it are in no count), and
 * whether it has stopped on a record a newer build wrote.
 */
import type { Projection } from '@shoal/domain';
import type { MetricFamily } from './prometheus';

export interface ViewMetricsOptions {
  /** Whose view, for the help texts: "the API's view", "the scheduler's view". */
  readonly whose: string;
  /** The offset the view started from: its snapshot's, or 0. */
  readonly startedAt: number;
}

export const viewMetrics = (projection: Projection, { whose, startedAt }: ViewMetricsOptions): MetricFamily[] => [
  {
    name: 'shoal_records_total',
    help: `Records ${whose} has read from the log since it started, by evolve's verdict.`,
    type: 'counter',
    samples: (['applied', 'partial', 'rejected', 'poison'] as const).map((verdict) => ({ labels: { verdict }, value: projection.tally[verdict] })),
  },
  { name: 'shoal_records_upcast_total', help: 'Records read at an older schema version and upcast.', type: 'counter', samples: [{ value: projection.tally.upcast }] },
  { name: 'shoal_view_position', help: `The offset of the next record ${whose} will apply.`, type: 'gauge', samples: [{ value: projection.position }] },
  {
    name: 'shoal_view_started_at',
    help: `The offset ${whose} started from: its snapshot's, or 0 after a replay of the whole log. The records before it are in no count.`,
    type: 'gauge',
    samples: [{ value: startedAt }],
  },
  {
    name: 'shoal_view_halted',
    help: `1 when ${whose} has stopped on a record a newer build wrote (it applies nothing from there on), else 0.`,
    type: 'gauge',
    samples: [{ value: projection.halted ? 1 : 0 }],
  },
];
