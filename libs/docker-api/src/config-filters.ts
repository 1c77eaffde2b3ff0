/**
 * Docker's config filters: `id` (prefix), `name` (prefix), `names` (exact), `label` (key or
 * key=value). Values of one filter are alternatives; every filter given must match.
 */
import type { Config } from '@shoal/domain';
import { labelMatches } from './filters';
import type { Filters } from './filters';

export const CONFIG_FILTERS = ['id', 'label', 'name', 'names'] as const;

const any = (filters: Filters, key: string, matches: (value: string) => boolean): boolean => {
  const values = filters.get(key);
  return !values || values.length === 0 || values.some(matches);
};

/** SwarmKit reads `key=` as `key` (a label with any value). */
const swarmLabel = (filter: string): string => (filter.indexOf('=') === filter.length - 1 ? filter.slice(0, -1) : filter);

export const configMatches = (filters: Filters, config: Config): boolean =>
  any(filters, 'id', (id) => config.id.startsWith(id)) &&
  any(filters, 'name', (name) => config.spec.name.startsWith(name)) &&
  any(filters, 'names', (name) => config.spec.name === name) &&
  (filters.get('label') ?? []).every((label) => labelMatches(config.spec.labels, swarmLabel(label)));
