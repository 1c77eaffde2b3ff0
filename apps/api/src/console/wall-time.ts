/** The writer's clock on a record (its envelope's `at`), and on the last record before a point of the log. */
import type { EventLog } from '@shoal/eventlog';

/** The `at` of a stored record; undefined for a record that has none (poison). */
export const wallTimeOf = (value: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(value);
    const at = typeof parsed === 'object' && parsed !== null ? (parsed as { at?: unknown }).at : undefined;
    return typeof at === 'string' ? at : undefined;
  } catch {
    return undefined;
  }
};

/** The `at` of the last record before `position` (the state at `position` ends with it); undefined at 0. */
export const wallTimeBefore = async (log: EventLog, position: number): Promise<string | undefined> => {
  if (position <= 0) return undefined;
  // Kafka offsets may skip (control records): look a little further back for the last record there is.
  const from = Math.max(0, position - 16);
  const records = await log.read(from, { to: position });
  for (let i = records.length - 1; i >= 0; i--) {
    const at = wallTimeOf(records[i]!.value);
    if (at !== undefined) return at;
  }
  return undefined;
};
