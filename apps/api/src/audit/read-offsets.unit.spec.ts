import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from '@shoal/eventlog';
import type { EventLog, LogRecord, ReadOptions } from '@shoal/eventlog';
import { readOffsets } from './read-offsets';

describe('readOffsets', () => {
  let dir: string;
  let log: EmbeddedEventLog;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoal-read-offsets-'));
    log = await EmbeddedEventLog.open({ dir, sync: false });
    await log.append(Array.from({ length: 1_000 }, (_, i) => ({ key: 'c1', value: `r${i}` })));
  });
  afterAll(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('gives the records at the offsets, in order, once each, reading close offsets as one range', async () => {
    const reads: [number, ReadOptions | undefined][] = [];
    const counting: EventLog = Object.create(log, {
      read: { value: (from: number, options?: ReadOptions): Promise<LogRecord[]> => (reads.push([from, options]), log.read(from, options)) },
    }) as EventLog;
    const records = await readOffsets(counting, [900, 3, 10, 3, 12, 990, 5_000], 16);
    expect(records.map((r) => [r.offset, r.value])).toEqual([[3, 'r3'], [10, 'r10'], [12, 'r12'], [900, 'r900'], [990, 'r990']]);
    expect(reads).toEqual([
      [3, { to: 13 }],
      [900, { to: 901 }],
      [990, { to: 991 }],
      [5_000, { to: 5_001 }],
    ]);
  });
});
