/**
 * Upcasters turn an old record's data into the current shape, one version step at a
 * time, at the boundary: the domain only ever sees current shapes.
 */
import { EVENT_TYPES } from './events';
import type { EventType } from './events';
import { parseTaskState } from './task-state';

/** Turns data of version `from` into data of version `from + 1`; returns a problem string on bad input. */
export type Upcaster = (data: unknown) => { readonly data: unknown } | { readonly problem: string };

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** type → from-version → step to from + 1 */
export const UPCASTERS: { readonly [K in EventType]?: Readonly<Record<number, Upcaster>> } = {
  // v1 carried join tokens in the clear, which v2 still reads as they are (a token kept as a
  // string), so that an old log's state is the same, byte for byte; v2 adds the sealed form.
  ClusterInitialized: { 1: (data) => ({ data }) },
  JoinTokensRotated: { 1: (data) => ({ data }) },
  TaskStatusesReported: {
    // v1: { nodeId, statuses: [{ id, state: "RUNNING", ... }] } → v2: state as TaskState number
    1: (data) => {
      if (!isRecord(data) || !Array.isArray(data.statuses)) return { problem: 'statuses: expected an array' };
      const statuses: unknown[] = [];
      for (const [i, status] of data.statuses.entries()) {
        if (!isRecord(status) || typeof status.state !== 'string') {
          return { problem: `statuses[${i}].state: expected a state name` };
        }
        const state = parseTaskState(status.state);
        if (state === undefined) return { problem: `statuses[${i}].state: unknown state "${status.state}"` };
        statuses.push({ ...status, state });
      }
      return { data: { ...data, statuses } };
    },
  },
};

export type UpcastResult =
  | { readonly ok: true; readonly data: unknown }
  | { readonly ok: false; readonly reason: string };

/** Brings `data` of version `v` to the type's current version. */
export const upcast = (
  type: EventType,
  v: number,
  data: unknown,
  upcasters: typeof UPCASTERS = UPCASTERS,
): UpcastResult => {
  const current = EVENT_TYPES[type].v;
  if (v > current) return { ok: false, reason: `unknown version ${v} of ${type} (this build knows up to ${current})` };
  let value = data;
  for (let from = v; from < current; from++) {
    const step = upcasters[type]?.[from];
    if (!step) return { ok: false, reason: `no upcaster for ${type} v${from} → v${from + 1}` };
    const result = step(value);
    if ('problem' in result) return { ok: false, reason: `upcasting ${type} v${from}: ${result.problem}` };
    value = result.data;
  }
  return { ok: true, data: value };
};
