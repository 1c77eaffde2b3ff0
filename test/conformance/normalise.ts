/**
 * The one place where an answer from Shoal and one from a Docker engine are made comparable.
 * Everything else in the differential suite compares what is left structurally; each rule
 * below says which values are expected to differ between two correct engines, and why.
 */

/**
 * Ids are made by each engine (random, 25 characters in SwarmKit, 25 in Shoal too); a
 * running task's ContainerID is the id its container was given by the engine that runs it.
 */
const ID_FIELDS = new Set(['ID', 'Id', 'NodeID', 'ServiceID', 'NetworkID', 'ConfigID', 'SecretID', 'ContainerID']);

/** A running task's container's PID is a process of the machine it runs on. */
const PROCESS_FIELDS = new Set(['PID']);

/** Times are each engine's clock. */
const TIME_FIELDS = new Set(['Created', 'CreatedAt', 'UpdatedAt', 'StartedAt', 'CompletedAt', 'Timestamp']);

/** An event message's `time` (seconds) and `timeNano`: each engine's clock, as numbers. */
const EVENT_TIME_FIELDS = new Set(['time', 'timeNano']);

/**
 * An object's Version.Index counts every raft write of the engine (SwarmKit's store is
 * shared by all objects), Shoal's counts the object's own writes: both only grow, and an
 * update must name the current one; the values differ.
 */
const VERSION_FIELDS = new Set(['Version']);

/** Join tokens are secrets each cluster makes for itself (same SWMTKN-1 format on both). */
const TOKEN_FIELDS = new Set(['Worker', 'Manager']);

/**
 * TLSInfo is the engine's own CA certificate. Shoal issues no certificates (its agents join
 * with a token over its dispatcher's transport), so it shows empty strings there; listed in
 * docs/docker-compatibility.md.
 */
const ENGINE_ONLY_FIELDS = new Set(['TLSInfo']);

/**
 * Addresses each allocator picks from its own pool: a VIP's address, a network's subnet and
 * gateway, inspected alone or in a list. Both allocate from 10.0.0.0/8 in /24s, each in its
 * own order. (A test that asks for a subnet compares the request, not these.)
 */
const ALLOCATED_PATHS = [/\.VirtualIPs\[\d+\]\.Addr$/, /^(\[\d+\]\.)?IPAM\.Config\[\d+\]\.(Subnet|Gateway)$/];

/**
 * A node's Description is the machine it runs on: its hostname, platform, CPUs and memory,
 * its engine's version and plugins are each side's own (a node inspected alone, or the
 * nodes of a list). Whether a field is there at all is still compared.
 */
const MACHINE_PATHS = [/^(\[\d+\]\.)?Description\.(Hostname|Platform\.(Architecture|OS)|Resources\.(NanoCPUs|MemoryBytes)|Engine\.(EngineVersion|Plugins))$/];

/**
 * A node's `Status.Addr` is the address its manager sees it connect from, on each side's
 * own network: a joined engine's end of the link between the engines' namespaces, a Shoal
 * agent's loopback to its dispatcher (inspected alone, or the nodes of a list). A test that
 * joins a node checks each side's own value.
 */
const NODE_ADDRESS_PATHS = [/^(\[\d+\]\.)?Status\.Addr$/];

/** An object id as both make them (a name in the same place is compared as it is). */
const SWARM_ID = /^[a-z0-9]{25}$/;

/** Where ids appear as values of other fields: a network attachment's Target, a VIP's NetworkID. */
const ID_VALUED_PATHS = [/\.Networks\[\d+\]\.Target$/];

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const normaliseAt = (value: unknown, path: string, key: string): unknown => {
  if (ID_FIELDS.has(key) && typeof value === 'string' && value !== '') return '<id>';
  if (TIME_FIELDS.has(key) && typeof value === 'string') return '<time>';
  if (EVENT_TIME_FIELDS.has(key) && typeof value === 'number') return '<time>';
  if (PROCESS_FIELDS.has(key) && typeof value === 'number') return '<pid>';
  if (TOKEN_FIELDS.has(key) && path.endsWith(`JoinTokens.${key}`) && typeof value === 'string') return '<token>';
  if (ENGINE_ONLY_FIELDS.has(key)) return '<engine-only>';
  if (VERSION_FIELDS.has(key) && isPlainObject(value) && typeof value.Index === 'number') return { Index: '<index>' };
  if (typeof value === 'string' && ALLOCATED_PATHS.some((pattern) => pattern.test(path))) return '<allocated>';
  if (MACHINE_PATHS.some((pattern) => pattern.test(path))) return '<machine>';
  if (typeof value === 'string' && NODE_ADDRESS_PATHS.some((pattern) => pattern.test(path))) return '<address>';
  if (typeof value === 'string' && SWARM_ID.test(value) && ID_VALUED_PATHS.some((pattern) => pattern.test(path))) return '<id>';
  if (Array.isArray(value)) return value.map((item, index) => normaliseAt(item, `${path}[${index}]`, ''));
  if (isPlainObject(value)) {
    return Object.fromEntries(Object.entries(value).map(([field, child]) => [field, normaliseAt(child, path ? `${path}.${field}` : field, field)]));
  }
  return value;
};

/** An answer with ids, times and versions replaced by placeholders (see the rules above). */
export const normalise = (value: unknown): unknown => normaliseAt(value, '', '');

const nameOf = (item: unknown): string => (isPlainObject(item) && isPlainObject(item.Spec) && typeof item.Spec.Name === 'string' ? item.Spec.Name : '');

/**
 * A list's order is each engine's own: SwarmKit lists from the index it reads (by id, and
 * its ids are its own, or by name for a name filter), Shoal in the order the objects were
 * created; the docker CLI sorts what it shows. A list of named objects (secrets, configs)
 * is compared in the order of their `Spec.Name`.
 */
export const inNameOrder = (list: unknown): unknown => (Array.isArray(list) ? [...list].sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0)) : list);

/**
 * Error messages are compared by shape only ({"message": string}): Docker's wording is Go's
 * (gRPC codes, field paths of its protobufs) and Shoal's names Docker's JSON fields.
 */
export const errorShape = (body: unknown): unknown =>
  isPlainObject(body) && typeof body.message === 'string' && Object.keys(body).length === 1 ? { message: '<message>' } : body;

/** Docker's RFC3339NanoFixed time (a log line's `timestamps`), each engine's clock. */
const LOG_TIME = /\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z\b/g;

/** The ids a swarm log line's details name (its task's context): each engine's own. */
const LOG_CONTEXT_IDS = /\b(com\.docker\.swarm\.(?:node|service|task)\.id)=[a-z0-9]+/g;

/**
 * One frame's payload of a logs body, comparable: its time (with `timestamps`) and the
 * node, service and task ids of its details (with `details`) are each engine's own; the
 * keys, their order and the line itself are compared.
 */
export const logPayload = (payload: string): string => payload.replace(LOG_TIME, '<time>').replace(LOG_CONTEXT_IDS, '$1=<id>');

/**
 * A time the docker CLI shows relative to now (`Running 7 seconds ago`, moby's
 * HumanDuration): when the two engines' tasks started is each one's own.
 */
const CLI_AGO = /\b(?:[Ll]ess than a second|[Aa]bout an? (?:minute|hour)|\d+ (?:second|minute|hour|day|week|month|year)s?) ago\b/g;

/** A task in the docker CLI's log lines, `<service>.<slot>.<task id>@<node>`: the task id (12 characters, or 25 untruncated) is each engine's. */
const CLI_TASK_ID = /(\.\d+)\.[a-z0-9]{12,25}@/g;

/** A line the docker CLI printed, comparable: its times (absolute or relative) and the task ids it names are each engine's own. */
export const cliLine = (line: string): string => line.replace(LOG_TIME, '<time>').replace(CLI_AGO, '<ago>').replace(CLI_TASK_ID, '$1.<id>@');
