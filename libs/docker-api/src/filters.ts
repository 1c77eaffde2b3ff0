/**
 * Docker's list filters: the `filters` query parameter, JSON, either
 * `{"name":{"web":true}}` (current) or `{"name":["web"]}` (old), and the predicates each
 * list applies. An unknown filter key is Docker's 400 "Invalid filter".
 */
import { parseTaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { canonicalJson } from '@shoal/domain';
import type { ClusterState, Node, Service } from '@shoal/domain';
import { BadInputError } from './bad-input';
import { dockerDesiredState, taskName } from './task-mapper';

export type Filters = ReadonlyMap<string, readonly string[]>;

export class FilterError extends BadInputError {}

export const parseFilters = (raw: string | undefined, allowed: readonly string[]): Filters => {
  const filters = new Map<string, string[]>();
  if (raw === undefined || raw.trim() === '') return filters;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new FilterError(`invalid filters: not JSON: ${raw}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new FilterError('invalid filters: expected an object of filter names');
  for (const [key, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!allowed.includes(key)) throw new FilterError(`Invalid filter '${key}'`);
    const values = Array.isArray(value)
      ? value.map(String)
      : typeof value === 'object' && value !== null
        ? Object.entries(value as Record<string, unknown>).filter(([, on]) => on === true).map(([name]) => name)
        : undefined;
    if (!values) throw new FilterError(`invalid filter '${key}': expected a list or a map of values`);
    filters.set(key, values);
  }
  return filters;
};

/** No values for the key: everything passes; else at least one value must match. */
const any = (filters: Filters, key: string, matches: (value: string) => boolean): boolean => {
  const values = filters.get(key);
  return !values || values.length === 0 || values.some(matches);
};

/** `key` or `key=value` against a label map. */
export const labelMatches = (labels: Readonly<Record<string, string>> | undefined, filter: string): boolean => {
  const at = filter.indexOf('=');
  const key = at < 0 ? filter : filter.slice(0, at);
  if (!labels || !(key in labels)) return false;
  return at < 0 || labels[key] === filter.slice(at + 1);
};

/** Every label filter must match (Docker ANDs labels). */
const allLabels = (filters: Filters, key: string, labels: Readonly<Record<string, string>> | undefined): boolean =>
  (filters.get(key) ?? []).every((filter) => labelMatches(labels, filter));

// ── services: id, name, label, mode ────────────────────────────────────────
export const SERVICE_FILTERS = ['id', 'name', 'label', 'mode'] as const;

export const serviceMatches = (filters: Filters, service: Service): boolean =>
  any(filters, 'id', (id) => service.id.startsWith(id)) &&
  any(filters, 'name', (name) => service.spec.name.startsWith(name)) &&
  allLabels(filters, 'label', service.spec.labels) &&
  any(filters, 'mode', (mode) => mode === service.spec.mode.kind);

// ── nodes: id, name, label, node.label, role, membership ───────────────────
export const NODE_FILTERS = ['id', 'name', 'label', 'node.label', 'role', 'membership'] as const;

/** Docker's words for a role or membership it does not know (its daemon answers them 500; here 400). */
export const checkNodeFilters = (filters: Filters): void => {
  for (const [key, allowed] of [['role', ['worker', 'manager']], ['membership', ['accepted', 'pending']]] as const) {
    for (const value of filters.get(key) ?? []) if (!(allowed as readonly string[]).includes(value)) throw new FilterError(`Invalid ${key} filter: '${value}'`);
  }
};

export const nodeMatches = (filters: Filters, node: Node): boolean =>
  any(filters, 'id', (id) => node.id.startsWith(id)) &&
  any(filters, 'name', (name) => node.description.hostname.startsWith(name) || (node.spec.name ?? '').startsWith(name)) &&
  allLabels(filters, 'label', node.description.engine.labels) &&
  allLabels(filters, 'node.label', node.spec.labels) &&
  any(filters, 'role', (role) => role === node.spec.role) &&
  any(filters, 'membership', (membership) => membership === 'accepted');

// ── tasks: id, name, service, node, desired-state, label, _up-to-date ──────
/** `_up-to-date` is what the CLI's progress display asks for: tasks running the service's current spec. */
export const TASK_FILTERS = ['id', 'name', 'service', 'node', 'desired-state', 'label', '_up-to-date'] as const;

/** The task runs its service's current task spec: made from this version, or from one whose task spec is the same. */
export const taskUpToDate = (state: ClusterState, task: Task): boolean => {
  const service = state.services.get(task.serviceId);
  if (!service) return false;
  return task.specVersion === service.version || canonicalJson(task.spec) === canonicalJson(service.spec.task);
};

/**
 * The ids a service or node filter value names, resolved as Docker resolves them: an
 * exact id or name first, else every id it is a prefix of.
 */
const resolveIds = <T extends { readonly id: string }>(all: Iterable<T>, values: readonly string[] | undefined, named: (item: T, name: string) => boolean): Set<string> | undefined => {
  if (!values || values.length === 0) return undefined;
  const items = [...all];
  const ids = new Set<string>();
  for (const value of values) {
    const exact = items.filter((item) => item.id === value || named(item, value));
    for (const item of exact.length > 0 ? exact : items.filter((candidate) => candidate.id.startsWith(value))) ids.add(item.id);
  }
  return ids;
};

/** Checks desired-state values up front: the name of any task state, in any case, as Docker's daemon takes them. */
export const checkDesiredStates = (filters: Filters): void => {
  for (const value of filters.get('desired-state') ?? []) {
    if (parseTaskState(value) === undefined) throw new FilterError(`Invalid desired-state filter: '${value}'`);
  }
};

/** The predicate of a task list's filters; names of services and nodes are resolved once. */
export const taskFilter = (state: ClusterState, filters: Filters): ((task: Task) => boolean) => {
  const services = resolveIds(state.services.values(), filters.get('service'), (service, name) => service.spec.name === name);
  const nodes = resolveIds(state.nodes.values(), filters.get('node'), (node, name) => node.description.hostname === name || node.spec.name === name);
  return (task) =>
    any(filters, 'id', (id) => task.id.startsWith(id)) &&
    any(filters, 'name', (name) => taskName(state, task).startsWith(name)) &&
    (!services || services.has(task.serviceId)) &&
    (!nodes || (task.nodeId !== undefined && nodes.has(task.nodeId))) &&
    any(filters, 'desired-state', (value) => value.toLowerCase() === dockerDesiredState(task)) &&
    // SwarmKit matches a task's label filter on its service's labels, not the container's.
    allLabels(filters, 'label', state.services.get(task.serviceId)?.spec.labels) &&
    any(filters, '_up-to-date', (value) => !queryTrue(value) || taskUpToDate(state, task));
};

const queryTrue = (value: string): boolean => /^(1|true)$/i.test(value);
