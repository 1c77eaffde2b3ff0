/**
 * The point of the log a wall time names: the offset just past the last record written at
 * or before it, found by bisection over the records' own times (each record's `at`, its
 * writer's clock), reading one record per step. Records' times rise with their offsets but
 * for the writers' clock skew: a point found by time is as exact as those clocks.
 */
import type { EventLog, LogRecord } from '@shoal/eventlog';

/** A record's time in ms, or undefined when it carries none that reads (poison). */
const timeOf = (record: LogRecord): number | undefined => {
  try {
    const at = (JSON.parse(record.value) as { at?: unknown }).at;
    const ms = typeof at === 'string' ? Date.parse(at) : NaN;
    return Number.isNaN(ms) ? undefined : ms;
  } catch {
    return undefined;
  }
};

/** The first record at or after `from` (before `end`) that carries a time. */
const timedAt = async (log: EventLog, from: number, end: number): Promise<{ offset: number; at: number } | undefined> => {
  for (let offset = from; offset < end; ) {
    const [record] = await log.read(offset, { to: end, max: 1 });
    if (!record) return undefined;
    const at = timeOf(record);
    if (at !== undefined) return { offset: record.offset, at };
    offset = record.offset + 1;
  }
  return undefined;
};

/** The offset to replay up to (exclusive) for the state as it was at `time` (ms since the epoch). */
export const offsetAtTime = async (log: EventLog, time: number): Promise<number> => {
  let low = 0;
  let high = await log.highWaterMark();
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    const found = await timedAt(log, middle, high);
    if (found && found.at <= time) low = found.offset + 1;
    else high = middle;
  }
  return low;
};
