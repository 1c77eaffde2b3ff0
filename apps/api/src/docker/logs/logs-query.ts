/**
 * The query of Docker's GET /services/{id}/logs and /tasks/{id}/logs, read as Docker's
 * daemon reads it: booleans as its BoolValue does ("", "0", "no", "false", "none" are
 * false, anything else true); `since` as Unix seconds with an optional fraction (the docker
 * CLI turns "10m" and RFC 3339 times into that form before it asks); `tail` as "all" or a
 * number of lines. Bad input is answered 400 before the stream starts.
 */
import type { LogOptionsMessage } from '@shoal/protocol';
import { BadInputError } from '@shoal/docker-api';

export type RawLogsQuery = Readonly<Record<string, unknown>>;

export interface LogsQuery {
  /** What the dispatcher is asked for. */
  readonly options: LogOptionsMessage;
  /** Each line starts with its time (RFC 3339, nanoseconds). */
  readonly timestamps: boolean;
  /** Each line starts with its task's node, service and task ids, as Docker's log attributes. */
  readonly details: boolean;
}

export const NO_STREAM = 'Bad parameters: you must choose at least one stream';

/** The first value of a query parameter (Go's FormValue), or undefined. */
const first = (query: RawLogsQuery, name: string): string | undefined => {
  const value = query[name];
  const one = Array.isArray(value) ? value[0] : value;
  return typeof one === 'string' ? one : undefined;
};

/** Docker's BoolValue. */
export const dockerBool = (raw: string | undefined): boolean => !['', '0', 'no', 'false', 'none'].includes((raw ?? '').trim().toLowerCase());

const UNIX_SECONDS = /^([+-]?\d+)(?:\.(\d+))?$/;

/** `since` in ms since the epoch; 0 (every line) when it is absent, zero or before the epoch. */
export const parseSince = (raw: string | undefined): number => {
  if (raw === undefined || raw === '') return 0;
  const match = UNIX_SECONDS.exec(raw);
  if (!match || !Number.isSafeInteger(Number(match[1]) * 1000)) {
    throw new BadInputError(
      `invalid value for "since": "${raw}" is not a time: give Unix seconds, with an optional fraction (1700000000 or 1700000000.123456789)`,
    );
  }
  const seconds = Number(match[1]);
  const nanos = Number((match[2] ?? '').slice(0, 9).padEnd(9, '0'));
  if (seconds < 0) return 0;
  return seconds * 1000 + Math.floor(nanos / 1_000_000);
};

/** `tail`: the last n lines of each task, or -1 for all of them ("all", or absent). */
export const parseTail = (raw: string | undefined): number => {
  if (raw === undefined || raw.trim() === '' || raw.trim() === 'all') return -1;
  const text = raw.trim();
  if (/^-\d+$/.test(text)) throw new BadInputError(`invalid value for "tail": "${raw}": negative tail values are not supported; give a number of lines (0 or more) or "all"`);
  if (!/^\+?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
    throw new BadInputError(`invalid value for "tail": "${raw}": tail value must be a positive integer or "all"`);
  }
  return Number(text);
};

export const parseLogsQuery = (query: RawLogsQuery): LogsQuery => {
  const stdout = dockerBool(first(query, 'stdout'));
  const stderr = dockerBool(first(query, 'stderr'));
  if (!stdout && !stderr) throw new BadInputError(NO_STREAM);
  return {
    options: {
      stdout,
      stderr,
      follow: dockerBool(first(query, 'follow')),
      tail: parseTail(first(query, 'tail')),
      sinceMs: parseSince(first(query, 'since')),
    },
    timestamps: dockerBool(first(query, 'timestamps')),
    details: dockerBool(first(query, 'details')),
  };
};
