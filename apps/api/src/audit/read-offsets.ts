/**
 * Reads the records at a set of offsets with few requests: offsets close together (gap ≤
 * `span`) are read as one range, so an entity's scattered history costs a read per cluster
 * of records rather than one per record.
 */
import type { EventLog, LogRecord } from '@shoal/eventlog';

export const readOffsets = async (log: EventLog, offsets: readonly number[], span = 256): Promise<LogRecord[]> => {
  const wanted = [...new Set(offsets)].sort((a, b) => a - b);
  const found = new Map<number, LogRecord>();
  let i = 0;
  while (i < wanted.length) {
    const start = wanted[i]!;
    let end = start;
    while (i + 1 < wanted.length && wanted[i + 1]! - end <= span) end = wanted[++i]!;
    i++;
    let from = start;
    while (from <= end) {
      const batch = await log.read(from, { to: end + 1 });
      if (batch.length === 0) break;
      for (const record of batch) found.set(record.offset, record);
      from = batch[batch.length - 1]!.offset + 1;
    }
  }
  return wanted.flatMap((offset) => {
    const record = found.get(offset);
    return record ? [record] : [];
  });
};
