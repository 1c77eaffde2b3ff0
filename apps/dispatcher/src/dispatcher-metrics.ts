/**
 * What the dispatcher adds to its process's /metrics: whether it is the active instance,
 * its agents' sessions by registration, the heartbeat period it asks of the fleet, its open
 * Heartbeats streams and log subscriptions, and counters of what the agents sent since it
 * started — heartbeats by how they came (stream or unary call) and whether their session
 * was one it knew, and task statuses by what became of them. Heartbeats arriving as unary
 * calls mean agents older than the stream; unknown ones mean agents still calling in for a
 * session that expired or was replaced.
 */
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import { heartbeatPeriodMs } from '@shoal/domain';
import type { SessionTable } from '@shoal/domain';
import type { ComponentRunner } from '@shoal/runtime';

export type HeartbeatTransport = 'stream' | 'unary';

/** What the agents sent an instance since it started. */
export class AgentCounters {
  private readonly heartbeats: Counter<'transport' | 'session'>;
  private readonly statusCounts: Counter<'outcome'>;

  constructor(registry: Registry) {
    this.heartbeats = new Counter({
      name: 'shoal_dispatcher_heartbeats_total',
      help: 'Heartbeats received, by transport (a message on a Heartbeats stream, or a unary call) and whether their session was one this instance knew.',
      labelNames: ['transport', 'session'],
      registers: [registry],
    });
    this.statusCounts = new Counter({
      name: 'shoal_dispatcher_task_statuses_total',
      help: "Task statuses agents reported: taken (queued; one for a task not on that node is still dropped before the log), invalid (refused), unknown_session (for a session that is not the node's current one).",
      labelNames: ['outcome'],
      registers: [registry],
    });
    // Every series from the start, at 0: a rate over a series that appears later misses its first count.
    for (const transport of ['stream', 'unary'] as const) for (const session of ['known', 'unknown'] as const) this.heartbeats.inc({ transport, session }, 0);
    for (const outcome of ['taken', 'invalid', 'unknown_session'] as const) this.statusCounts.inc({ outcome }, 0);
  }

  /** A heartbeat, for a session this instance knew (`known`) or not. */
  heartbeat(transport: HeartbeatTransport, known: boolean): void {
    this.heartbeats.inc({ transport, session: known ? 'known' : 'unknown' });
  }

  /** Task statuses a report carried: queued for the log, refused as invalid, or sent for a session that is not the node's current one. */
  statuses(outcome: 'taken' | 'invalid' | 'unknown_session', count: number): void {
    this.statusCounts.inc({ outcome }, count);
  }
}

/** The dispatcher as its gauges read it, at each scrape. */
export interface DispatcherGauges {
  readonly runner: ComponentRunner | undefined;
  readonly sessions: SessionTable;
  readonly heartbeatStreams: number;
  readonly logSubscriptions: number;
}

const gauge = (registry: Registry, name: string, help: string, read: () => number | undefined): void =>
  void new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      const value = read();
      if (value !== undefined) this.set(value);
    },
  });

/** Registers the dispatcher's gauges, read from `gauges()` at each scrape. */
export const registerDispatcherGauges = (registry: Registry, gauges: () => DispatcherGauges): void => {
  gauge(registry, 'shoal_dispatcher_active', 'Whether this instance is the active dispatcher (1), serving agents, or not (0).', () => (gauges().runner?.state === 'active' ? 1 : 0));
  new Gauge({
    name: 'shoal_dispatcher_sessions',
    help: 'Agent sessions, by registration: pending (NodeRegistered not yet proposed), proposed (appended), open (on the log).',
    labelNames: ['registration'],
    registers: [registry],
    collect() {
      const registrations = { pending: 0, proposed: 0, open: 0 };
      for (const session of gauges().sessions.all()) registrations[session.registration] += 1;
      for (const registration of ['pending', 'proposed', 'open'] as const) this.set({ registration }, registrations[registration]);
    },
  });
  gauge(registry, 'shoal_dispatcher_nodes_awaited', 'Nodes READY on the log when this instance became active whose agents have not opened a session with it yet.', () => gauges().sessions.awaiting);
  gauge(registry, 'shoal_dispatcher_task_statuses_queued', 'Task statuses taken from agents and not on the log yet.', () => gauges().sessions.pendingStatuses);
  gauge(
    registry,
    'shoal_dispatcher_heartbeat_period_seconds',
    "The heartbeat period asked of the fleet now: the cluster's, or longer for a large fleet. A node silent for three periods is DOWN.",
    () => {
      const { runner, sessions } = gauges();
      return runner ? heartbeatPeriodMs(runner.view.state, sessions.size) / 1000 : undefined;
    },
  );
  gauge(registry, 'shoal_dispatcher_heartbeat_streams', 'Heartbeats streams open: one for each connection of an agent process, carrying the heartbeats of all its sessions.', () => gauges().heartbeatStreams);
  gauge(registry, 'shoal_dispatcher_log_subscriptions', 'Log subscriptions open (docker service logs, following or still gathering what the nodes send).', () => gauges().logSubscriptions);
};
