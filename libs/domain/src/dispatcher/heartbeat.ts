/**
 * Heartbeats: an agent calls in every period; a node silent for period × grace is DOWN.
 * The period comes from the cluster spec (SwarmKit's default, 5 s; grace multiplier 3),
 * and grows with the number of nodes so that a dispatcher answers at most
 * MAX_HEARTBEATS_PER_SECOND heartbeats a second (Nomad's max_heartbeats_per_second): at
 * 5,000 nodes a node calls in every 100 s. A large fleet is seen to fail later, and a
 * busy dispatcher does not declare healthy nodes DOWN because it could not answer them.
 */
import type { ClusterState } from '../state';
import type { SessionTable } from './session-table';

export const DEFAULT_HEARTBEAT_PERIOD_MS = 5_000;
export const GRACE_MULTIPLIER = 3;
export const MAX_HEARTBEATS_PER_SECOND = 50;

/** The period agents are told: the cluster's, or longer with `nodes` sessions to serve. */
export const heartbeatPeriodMs = (state: ClusterState, nodes = 0): number => {
  const period = state.cluster?.spec.dispatcher.heartbeatPeriodMs;
  const configured = period !== undefined && period > 0 ? period : DEFAULT_HEARTBEAT_PERIOD_MS;
  return Math.max(configured, Math.ceil((nodes * 1_000) / MAX_HEARTBEATS_PER_SECOND));
};

/** When a node last heard from at `lastSeen` is declared DOWN. */
export const expiresAt = (lastSeen: number, periodMs: number): number => lastSeen + periodMs * GRACE_MULTIPLIER;

/** The nodes silent for longer than the grace period at `now`. */
export const expiredNodes = (sessions: SessionTable, periodMs: number, now: number): string[] =>
  sessions.silentSince(now - periodMs * GRACE_MULTIPLIER);

/** When the next node may expire (never later than it will), if any is expected. */
export const nextExpiry = (sessions: SessionTable, periodMs: number): number | undefined => {
  const oldest = sessions.oldestLastSeen;
  return oldest === undefined ? undefined : expiresAt(oldest, periodMs);
};
