/**
 * One line of task output as Docker writes it in a logs body (moby's WriteLogStream):
 * `[<time> ][<details> ]<line>` — the time (with `timestamps`) in RFC 3339 with nine
 * digits of fraction, in UTC; the details (with `details`) as `key=value` pairs, URL
 * query-escaped, sorted by key and joined by commas. For swarm logs those are the task's
 * context, in that order: com.docker.swarm.node.id, …service.id, …task.id. The docker CLI
 * always asks with details and splits the payload at its first spaces to print
 * `<service>.<slot>.<task>@<node> | <line>`.
 */
import type { LogMessage } from '@shoal/protocol';

export interface LineFormat {
  readonly timestamps: boolean;
  readonly details: boolean;
}

/** Go's time.Time zero value in that form: what a line whose time cannot be read shows. */
export const ZERO_TIME = '0001-01-01T00:00:00.000000000Z';

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/i;

/** An ISO 8601 time as Docker's RFC3339NanoFixed (`2006-01-02T15:04:05.000000000Z07:00`) in UTC. */
export const dockerTimestamp = (at: string): string => {
  const match = ISO.exec(at.trim());
  if (!match) return ZERO_TIME;
  const ms = Date.parse(`${match[1]}${match[3]!.toUpperCase()}`);
  if (!Number.isFinite(ms)) return ZERO_TIME;
  const seconds = new Date(ms).toISOString().slice(0, 19);
  return `${seconds}.${(match[2] ?? '').slice(0, 9).padEnd(9, '0')}Z`;
};

const UNRESERVED = /^[A-Za-z0-9\-_.~]*$/;

/** Go's url.QueryEscape: unreserved bytes as they are, a space as '+', every other byte %XX. */
export const queryEscape = (text: string): string => {
  // Ids are made of unreserved bytes: every line carries three, so they pass through whole.
  if (UNRESERVED.test(text)) return text;
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~]/.test(char)) out += char;
    else if (char === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
};

export const NODE_ID_KEY = 'com.docker.swarm.node.id';
export const SERVICE_ID_KEY = 'com.docker.swarm.service.id';
export const TASK_ID_KEY = 'com.docker.swarm.task.id';

/** The line's details: its task's context as Docker's swarm log attributes. */
export const detailsOf = (message: Pick<LogMessage, 'nodeId' | 'serviceId' | 'taskId'>): string =>
  [
    [NODE_ID_KEY, message.nodeId],
    [SERVICE_ID_KEY, message.serviceId],
    [TASK_ID_KEY, message.taskId],
  ]
    .map(([key, value]) => `${queryEscape(key!)}=${queryEscape(value ?? '')}`)
    .join(',');

/** The payload of the line's frame. */
export const linePayload = (message: LogMessage, format: LineFormat): Buffer => {
  const prefix = `${format.timestamps ? `${dockerTimestamp(message.at)} ` : ''}${format.details ? `${detailsOf(message)} ` : ''}`;
  const data = Buffer.isBuffer(message.data) ? message.data : Buffer.from(message.data ?? []);
  return prefix === '' ? data : Buffer.concat([Buffer.from(prefix, 'utf8'), data]);
};
