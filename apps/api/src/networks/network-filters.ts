/**
 * Docker's network filters: for lists id (prefix), name, driver, label, scope, type,
 * dangling; for prune label, label!, until. A swarm network's name matches exactly: Docker
 * asks SwarmKit for its networks by their names (a part of a name matches only the
 * engine's local networks, and Shoal has none).
 */
import type { ClusterState, Network } from '@shoal/domain';
import { FilterError, labelMatches, servicesUsing } from '@shoal/docker-api';
import type { Filters } from '@shoal/docker-api';
import { parseEventTime } from '../events/event-time';

export const NETWORK_FILTERS = ['id', 'name', 'driver', 'label', 'scope', 'type', 'dangling'] as const;

const any = (filters: Filters, key: string, matches: (value: string) => boolean): boolean => {
  const values = filters.get(key);
  return !values || values.length === 0 || values.some(matches);
};

/** Checks values that have a fixed set up front: type (custom, builtin), dangling (true, false). */
export const checkNetworkFilters = (filters: Filters): void => {
  for (const value of filters.get('type') ?? []) {
    if (value !== 'custom' && value !== 'builtin') throw new FilterError(`invalid filter: 'type' must be one of custom, builtin, not '${value}'`);
  }
  for (const value of filters.get('dangling') ?? []) {
    if (!/^(true|false|1|0)$/i.test(value)) throw new FilterError(`invalid filter 'dangling=${value}'`);
  }
};

export const networkMatches = (state: ClusterState, filters: Filters, network: Network): boolean =>
  any(filters, 'id', (id) => network.id.startsWith(id)) &&
  any(filters, 'name', (name) => network.spec.name === name) &&
  any(filters, 'driver', (driver) => driver === network.spec.driver) &&
  (filters.get('label') ?? []).every((label) => labelMatches(network.spec.labels, label)) &&
  any(filters, 'scope', (scope) => scope === 'swarm') &&
  any(filters, 'type', (type) => type === 'custom') &&
  any(filters, 'dangling', (value) => /^(true|1)$/i.test(value) === (servicesUsing(state, network).length === 0));

// ── prune: label, label!, until ─────────────────────────────────────────────
export const PRUNE_FILTERS = ['label', 'label!', 'until'] as const;

/** `until` as ms since the epoch (Unix seconds or RFC 3339); only networks created before it are pruned. */
export const pruneUntil = (filters: Filters): number | undefined => {
  const values = filters.get('until') ?? [];
  if (values.length > 1) throw new FilterError("invalid filter 'until': give one time");
  if (values.length === 0) return undefined;
  const parsed = parseEventTime('until', values[0]!);
  if (!parsed.ok) throw new FilterError(`invalid filter 'until=${values[0]}': expected Unix seconds or an RFC 3339 time`);
  return Number(parsed.ns / 1_000_000n);
};

/** Unused by every service, not the ingress network, and matching the prune filters. */
export const prunable = (state: ClusterState, filters: Filters, network: Network, until: number | undefined): boolean =>
  !network.spec.ingress &&
  servicesUsing(state, network).length === 0 &&
  (filters.get('label') ?? []).every((label) => labelMatches(network.spec.labels, label)) &&
  (filters.get('label!') ?? []).every((label) => !labelMatches(network.spec.labels, label)) &&
  (until === undefined || Date.parse(network.createdAt) < until);
