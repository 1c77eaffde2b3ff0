/**
 * Heartbeats: an agent calls in every period; a node silent for period × grace is DOWN.
 * The period comes from the cluster spec (SwarmKit's default, 5 s; grace multiplier 3).
 */
import type { ClusterState } from '../state';
import type { SessionTable } from './session-table';

export const DEFAULT_HEARTBEAT_PERIOD_MS = 5_000;
export const GRACE_MULTIPLIER = 3;

export const heartbeatPeriodMs = (state: ClusterState): number => {
  const period = state.cluster?.spec.dispatcher.heartbeatPeriodMs;
  return period !== undefined && period > 0 ? period : DEFAULT_HEARTBEAT_PERIOD_MS;
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
