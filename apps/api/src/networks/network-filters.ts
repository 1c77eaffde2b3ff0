/** Docker's network list filters: id (prefix), name (substring), driver, label, scope, type, dangling. */
import type { ClusterState, Network } from '@shoal/domain';
import { FilterError, labelMatches } from '../docker/filters';
import type { Filters } from '../docker/filters';
import { servicesUsing } from './network-mapper';

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
  any(filters, 'name', (name) => network.spec.name.includes(name)) &&
  any(filters, 'driver', (driver) => driver === network.spec.driver) &&
  (filters.get('label') ?? []).every((label) => labelMatches(network.spec.labels, label)) &&
  any(filters, 'scope', (scope) => scope === 'swarm') &&
  any(filters, 'type', (type) => type === 'custom') &&
  any(filters, 'dangling', (value) => /^(true|1)$/i.test(value) === (servicesUsing(state, network).length === 0));
