/**
 * What the dispatcher's /metrics reports: whether it is the active instance, its agents'
 * sessions by registration, the heartbeat period it asks of the fleet, its open
 * Heartbeats streams, and counters of what the agents sent since it started — heartbeats
 * by how they came (stream or unary call) and whether their session was one it knew, and
 * task statuses by what became of them. Heartbeats arriving as unary calls mean agents
 * older than the stream; unknown ones mean agents still calling in for a session that
 * expired or was replaced.
 */
import { heartbeatPeriodMs } from '@shoal/domain';
import type { SessionTable } from '@shoal/domain';
import type { ComponentRunner, MetricFamily } from '@shoal/runtime';

export type HeartbeatTransport = 'stream' | 'unary';

/** What the agents sent an instance since it started. */
export class AgentCounters {
  private readonly heartbeatCounts = { stream: { known: 0, unknown: 0 }, unary: { known: 0, unknown: 0 } };
  private readonly statusCounts = { taken: 0, invalid: 0, unknown_session: 0 };

  /** A heartbeat, for a session this instance knew (`known`) or not. */
  heartbeat(transport: HeartbeatTransport, known: boolean): void {
    this.heartbeatCounts[transport][known ? 'known' : 'unknown'] += 1;
  }

  /** Task statuses a report carried: queued for the log, refused as invalid, or sent for a session that is not the node's current one. */
  statuses(outcome: 'taken' | 'invalid' | 'unknown_session', count: number): void {
    this.statusCounts[outcome] += count;
  }

  families(): MetricFamily[] {
    return [
      {
        name: 'shoal_dispatcher_heartbeats_total',
        help: 'Heartbeats received, by transport (a message on a Heartbeats stream, or a unary call) and whether their session was one this instance knew.',
        type: 'counter',
        samples: (['stream', 'unary'] as const).flatMap((transport) =>
          (['known', 'unknown'] as const).map((session) => ({ labels: { transport, session }, value: this.heartbeatCounts[transport][session] })),
        ),
      },
      {
        name: 'shoal_dispatcher_task_statuses_total',
        help: "Task statuses agents reported: taken (queued; one for a task not on that node is still dropped before the log), invalid (refused), unknown_session (for a session that is not the node's current one).",
        type: 'counter',
        samples: (['taken', 'invalid', 'unknown_session'] as const).map((outcome) => ({ labels: { outcome }, value: this.statusCounts[outcome] })),
      },
    ];
  }
}

export interface DispatcherGauges {
  readonly runner: ComponentRunner | undefined;
  readonly sessions: SessionTable;
  readonly heartbeatStreams: number;
  readonly logSubscriptions: number;
}

/** Every family of the dispatcher's /metrics, as it is now. */
export const dispatcherMetrics = ({ runner, sessions, heartbeatStreams, logSubscriptions }: DispatcherGauges, counters: AgentCounters): MetricFamily[] => {
  const registrations = { pending: 0, proposed: 0, open: 0 };
  for (const session of sessions.all()) registrations[session.registration] += 1;
  return [
    {
      name: 'shoal_dispatcher_active',
      help: 'Whether this instance is the active dispatcher (1), serving agents, or not (0).',
      type: 'gauge',
      samples: [{ value: runner?.state === 'active' ? 1 : 0 }],
    },
    {
      name: 'shoal_dispatcher_sessions',
      help: 'Agent sessions, by registration: pending (NodeRegistered not yet proposed), proposed (appended), open (on the log).',
      type: 'gauge',
      samples: (['pending', 'proposed', 'open'] as const).map((registration) => ({ labels: { registration }, value: registrations[registration] })),
    },
    {
      name: 'shoal_dispatcher_nodes_awaited',
      help: 'Nodes READY on the log when this instance became active whose agents have not opened a session with it yet.',
      type: 'gauge',
      samples: [{ value: sessions.awaiting }],
    },
    {
      name: 'shoal_dispatcher_task_statuses_queued',
      help: 'Task statuses taken from agents and not on the log yet.',
      type: 'gauge',
      samples: [{ value: sessions.pendingStatuses }],
    },
    {
      name: 'shoal_dispatcher_heartbeat_period_seconds',
      help: "The heartbeat period asked of the fleet now: the cluster's, or longer for a large fleet. A node silent for three periods is DOWN.",
      type: 'gauge',
      samples: runner ? [{ value: heartbeatPeriodMs(runner.view.state, sessions.size) / 1000 }] : [],
    },
    {
      name: 'shoal_dispatcher_heartbeat_streams',
      help: 'Heartbeats streams open: one for each connection of an agent process, carrying the heartbeats of all its sessions.',
      type: 'gauge',
      samples: [{ value: heartbeatStreams }],
    },
    {
      name: 'shoal_dispatcher_log_subscriptions',
      help: 'Log subscriptions open (docker service logs, following or still gathering what the nodes send).',
      type: 'gauge',
      samples: [{ value: logSubscriptions }],
    },
    ...counters.families(),
  ];
};
