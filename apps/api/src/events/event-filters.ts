/**
 * Docker's event filters (`docker events --filter`): the `filters` query parameter as
 * Docker sends it — `{"type":{"service":true}}`, or the older `{"type":["service"]}` —
 * and Docker's matching: every filter applies to every event; `type`, `event` and `scope`
 * match exactly; `service`, `node`, `network`, … match the actor's id or name by prefix
 * (so a service's name also matches its tasks, "web.1.<id>"); `label` matches attributes.
 * A key Docker does not know is ignored, as Docker 20.10 ignores it (it matches every event).
 */
import type { DockerEventMessage } from './docker-event';

export type EventFilters = ReadonlyMap<string, readonly string[]>;

/** The filter keys Docker's daemon matches events by; any other key is ignored, as Docker ignores it. */
export const EVENT_FILTER_KEYS: readonly string[] = [
  'config',
  'container',
  'daemon',
  'event',
  'image',
  'label',
  'network',
  'node',
  'plugin',
  'scope',
  'secret',
  'service',
  'type',
  'volume',
];

/** The keys that match an actor's id or name by prefix. */
const NAMED = ['config', 'container', 'daemon', 'image', 'network', 'node', 'plugin', 'secret', 'service', 'volume'];

export type ParsedFilters = { readonly ok: true; readonly filters: EventFilters } | { readonly ok: false; readonly message: string };

export const parseEventFilters = (raw: string | undefined): ParsedFilters => {
  const filters = new Map<string, string[]>();
  if (raw === undefined || raw.trim() === '') return { ok: true, filters };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, message: `filters: invalid JSON: ${(error as Error).message}` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, message: 'filters: expected a JSON object of filter names to values' };
  }
  for (const [key, values] of Object.entries(value as Record<string, unknown>)) {
    let list: string[];
    if (Array.isArray(values) && values.every((v) => typeof v === 'string')) list = values as string[];
    else if (values !== null && typeof values === 'object' && !Array.isArray(values) && Object.values(values).every((v) => typeof v === 'boolean')) {
      list = Object.entries(values as Record<string, boolean>).filter(([, on]) => on).map(([name]) => name);
    } else {
      return { ok: false, message: `filters: ${key}: expected a list of strings or an object of strings to true` };
    }
    if (list.length > 0 && EVENT_FILTER_KEYS.includes(key)) filters.set(key, list);
  }
  return { ok: true, filters };
};

const exact = (filters: EventFilters, key: string, source: string): boolean => {
  const values = filters.get(key);
  return values === undefined || values.includes(source);
};

const fuzzy = (filters: EventFilters, key: string, source: string | undefined): boolean => {
  const values = filters.get(key);
  return values === undefined || (source !== undefined && values.some((value) => source === value || source.startsWith(value)));
};

const labels = (filters: EventFilters, attributes: Readonly<Record<string, string>>): boolean => {
  const values = filters.get('label');
  if (values === undefined) return true;
  return values.every((label) => {
    const eq = label.indexOf('=');
    if (eq < 0) return Object.prototype.hasOwnProperty.call(attributes, label);
    return attributes[label.slice(0, eq)] === label.slice(eq + 1);
  });
};

export const matchesEventFilters = (filters: EventFilters, message: DockerEventMessage): boolean =>
  exact(filters, 'type', message.Type) &&
  exact(filters, 'event', message.Action) &&
  exact(filters, 'scope', message.scope) &&
  NAMED.every((key) => fuzzy(filters, key, message.Actor.ID) || fuzzy(filters, key, message.Actor.Attributes.name)) &&
  labels(filters, message.Actor.Attributes);
