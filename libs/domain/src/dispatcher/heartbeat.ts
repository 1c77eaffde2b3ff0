/**
 * Heartbeats: an agent calls in every period; a node silent for period × grace is DOWN.
 * The period comes from the cluster spec (SwarmKit's default, 5 s; grace multiplier 3),
 * and grows with the number of nodes so that a dispatcher takes at most
 * MAX_HEARTBEATS_PER_SECOND heartbeats a second (Nomad's max_heartbeats_per_second): at
 * 5,000 nodes a node calls in every 20 s. A large fleet is seen to fail later, and a
 * busy dispatcher does not declare healthy nodes DOWN because it could not keep up.
 *
 * A node is judged by the period it was told: each sign of life sets when it expires,
 * with the period of that moment, and nothing shortens that afterwards. A fleet that
 * shrinks asks for heartbeats more often, but a node still calling at the old period is
 * not declared DOWN for it.
 *
 * A node the dispatcher has not heard from since it took over (or since it could write to
 * the log again) is UNKNOWN, not yet DOWN: its agent may be on its way back from the
 * dispatcher that went. It has twice the usual grace, period × 6 (SwarmKit's
 * gracePeriodMultiplierUnknown), counted from that moment.
 */
import type { ClusterState } from '../state';

export const DEFAULT_HEARTBEAT_PERIOD_MS = 5_000;
export const GRACE_MULTIPLIER = 3;
/** The grace of a node UNKNOWN after a takeover, in periods: twice the usual. */
export const UNKNOWN_GRACE_MULTIPLIER = GRACE_MULTIPLIER * 2;
/**
 * What a dispatcher may be asked to take, sized by `npm run bench -- heartbeats`: on the
 * agents' Heartbeats stream, 250 a second cost it about what 50 unary calls a second did.
 */
export const MAX_HEARTBEATS_PER_SECOND = 250;

/**
 * The period agents are told: the cluster's, or, with more than `nodes` sessions than it
 * allows at the rate above, as many whole seconds as needed (whole seconds, so that a
 * growing fleet changes it now and then, not with every node that joins).
 */
export const heartbeatPeriodMs = (state: ClusterState, nodes = 0): number => {
  const period = state.cluster?.spec.dispatcher.heartbeatPeriodMs;
  const configured = period !== undefined && period > 0 ? period : DEFAULT_HEARTBEAT_PERIOD_MS;
  return Math.max(configured, Math.ceil(nodes / MAX_HEARTBEATS_PER_SECOND) * 1_000);
};

/** When a node last heard from at `lastSeen`, calling in every `periodMs`, is declared DOWN. */
export const expiresAt = (lastSeen: number, periodMs: number): number => lastSeen + periodMs * GRACE_MULTIPLIER;

/** When a node UNKNOWN since `since`, told to call in every `periodMs`, is declared DOWN if it has not come back. */
export const unknownExpiresAt = (since: number, periodMs: number): number => since + periodMs * UNKNOWN_GRACE_MULTIPLIER;
