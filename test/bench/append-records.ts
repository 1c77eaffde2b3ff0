/** Writes a benchmark's records to its log in appends of APPEND_CHUNK: the bytes written. */
import type { EventLog } from '@shoal/eventlog';

const APPEND_CHUNK = 2_000;

export const appendRecords = async (log: EventLog, values: Iterable<string>): Promise<number> => {
  let bytes = 0;
  let chunk: { key: string; value: string }[] = [];
  for (const value of values) {
    bytes += value.length;
    chunk.push({ key: 'bench', value });
    if (chunk.length === APPEND_CHUNK) {
      await log.append(chunk);
      chunk = [];
    }
  }
  if (chunk.length > 0) await log.append(chunk);
  return bytes;
};
