/**
 * Docker's config and secret filters: `id` (prefix), `name` (prefix), `names` (exact),
 * `label` (key or key=value). Values of one filter are alternatives; every filter given must match.
 */
import { labelMatches } from './filters';
import type { Filters } from './filters';

export const CONFIG_FILTERS = ['id', 'label', 'name', 'names'] as const;
export const SECRET_FILTERS = CONFIG_FILTERS;

/** A config or a secret, as the filters see it. */
interface Named {
  readonly id: string;
  readonly spec: { readonly name: string; readonly labels?: Readonly<Record<string, string>> };
}

const any = (filters: Filters, key: string, matches: (value: string) => boolean): boolean => {
  const values = filters.get(key);
  return !values || values.length === 0 || values.some(matches);
};

/** SwarmKit reads `key=` as `key` (a label with any value). */
const swarmLabel = (filter: string): string => (filter.indexOf('=') === filter.length - 1 ? filter.slice(0, -1) : filter);

export const configMatches = (filters: Filters, config: Named): boolean =>
  any(filters, 'id', (id) => config.id.startsWith(id)) &&
  any(filters, 'name', (name) => config.spec.name.startsWith(name)) &&
  any(filters, 'names', (name) => config.spec.name === name) &&
  (filters.get('label') ?? []).every((label) => labelMatches(config.spec.labels, swarmLabel(label)));

/** Secrets are filtered as configs are. */
export const secretMatches = configMatches;
