/**
 * Decoding at the boundary: bytes off the log → a current-version ShoalEvent, or a
 * poison verdict with its reason. Never throws.
 */
import type { Envelope } from './envelope';
import { COMPONENTS } from './envelope';
import { EVENT_TYPES, isEventType } from './events';
import type { ClusterInitialized, LogLevelRaised, ShoalEvent } from './events';
import { LOG_LEVEL } from './log-level';
import { EVENT_SHAPES } from './event-shapes';
import { int, isPlainObject, nonEmptyStr, nonNegInt, object, oneOf, optional, recordOf, str } from './shape';
import { upcast } from './upcasters';

export type Decoded =
  | { readonly ok: true; readonly event: ShoalEvent; readonly upcastFrom?: number }
  | {
      readonly ok: false;
      readonly reason: string;
      readonly envelope?: Partial<Envelope>;
      /**
       * A known type at a version newer than this build reads, or a log level above the
       * build's (LogLevelRaised): a newer build wrote it. Not
       * poison: skipping it would leave this reader's state apart from newer readers', so a
       * reader stops there (see Projection.halted) until it runs a build that reads it.
       */
      readonly future?: true;
    };

const envelopeShape = object({
  id: nonEmptyStr,
  type: nonEmptyStr,
  v: (v, p) => (Number.isSafeInteger(v) && (v as number) >= 1 ? undefined : `${p}: expected a version ≥ 1`),
  cluster: nonEmptyStr,
  at: nonEmptyStr,
  by: object({ component: oneOf(COMPONENTS), instance: nonEmptyStr, term: nonNegInt }),
  seq: nonNegInt,
  causation: optional(str),
  correlation: optional(str),
  expect: optional(
    object({
      serviceVersions: optional(recordOf(int)),
      nodeVersions: optional(recordOf(int)),
      clusterVersion: optional(int),
      configVersions: optional(recordOf(int)),
      secretVersions: optional(recordOf(int)),
    }),
  ),
});

/** Checks an already-parsed value: envelope, type, version (upcasting old ones), data shape. */
export const decodeValue = (value: unknown): Decoded => {
  if (!isPlainObject(value)) return { ok: false, reason: 'not an envelope: expected a JSON object' };
  const envelope = value as Partial<Envelope>;
  const problem = envelopeShape(value, '');
  if (problem) return { ok: false, reason: `bad envelope: ${problem}`, envelope };
  if (!('data' in value)) return { ok: false, reason: 'bad envelope: data: missing', envelope };
  const type = value.type as string;
  if (!isEventType(type)) return { ok: false, reason: `unknown event type "${type}"`, envelope };
  const v = value.v as number;
  const current = EVENT_TYPES[type].v;
  if (v > current) return { ok: false, reason: `unknown version ${v} of ${type} (this build knows up to ${current})`, envelope, future: true };
  const up = upcast(type, v, value.data);
  if (!up.ok) return { ok: false, reason: up.reason, envelope };
  const dataProblem = EVENT_SHAPES[type](up.data, 'data');
  if (dataProblem) return { ok: false, reason: `invalid ${type}: ${dataProblem}`, envelope };
  const level = type === 'LogLevelRaised' ? (up.data as LogLevelRaised).level : type === 'ClusterInitialized' ? (up.data as ClusterInitialized).logLevel : undefined;
  if (level !== undefined && level > LOG_LEVEL) {
    return { ok: false, reason: `log level ${level} (this build reads up to level ${LOG_LEVEL})`, envelope, future: true };
  }
  // A record of the current version is the event as parsed (no copy: the caller owns it).
  if (v === current) return { ok: true, event: value as unknown as ShoalEvent };
  return { ok: true, event: { ...value, v: current, data: up.data } as ShoalEvent, upcastFrom: v };
};

/** Decodes one record's value as stored on the log. */
export const decode = (raw: string): Decoded => {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { ok: false, reason: `unparseable: ${error instanceof Error ? error.message : String(error)}` };
  }
  return decodeValue(value);
};

export const encode = (event: Envelope): string => JSON.stringify(event);

