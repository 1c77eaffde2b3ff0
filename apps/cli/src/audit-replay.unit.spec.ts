/**
 * `shoal audit replay` on the embedded log: at an offset or a time, from the newest
 * snapshot at or before the point (then the tail), to the same hash as a replay from the
 * first record; refusals of points that are not ones.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '@shoal/contracts';
import { EmbeddedEventLog, FileSnapshotStore } from '@shoal/eventlog';
import { replayLog } from '@shoal/runtime';
import { EventBuilder, clusterInit, serviceSpec } from '@shoal/testing';
import { auditReplay, parseReplayTime } from './audit-replay';

describe('shoal audit replay', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shoal-audit-replay-'));
  const b = new EventBuilder('c1');
  // One record a second on the builder's clock, from 2026-01-01T00:00:01Z.
  const history = [clusterInit(b), ...Array.from({ length: 9 }, (_, i) => b.event('ServiceCreated', { id: `s${i}`, spec: serviceSpec(`web-${i}`) }))];
  let out = '';
  const run = async (options: Parameters<typeof auditReplay>[0]): Promise<{ code: number; result: { offset: number; hash: string; from: { snapshot?: string; offset: number } } }> => {
    out = '';
    const code = await auditReplay({ ...options, json: true, snapshots: join(dataDir, 'snapshots') });
    return { code, result: JSON.parse(out) as never };
  };

  const saved = { dataDir: process.env.SHOAL_DATA_DIR, brokers: process.env.KAFKA_BROKERS };
  beforeAll(async () => {
    // The embedded log in dataDir, whatever broker the test run has.
    process.env.SHOAL_DATA_DIR = dataDir;
    delete process.env.KAFKA_BROKERS;
    const log = await EmbeddedEventLog.open({ dir: join(dataDir, 'log') });
    await log.append(history.map((event) => ({ key: 'c1', value: encode(event) })));
    // The scheduler's view was snapshotted at offset 4 and 8.
    for (const at of [4, 8]) await new FileSnapshotStore(join(dataDir, 'snapshots', 'scheduler')).save((await replayLog(log, { to: at })).snapshot());
    await log.close();
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  });
  afterAll(() => {
    jest.restoreAllMocks();
    if (saved.dataDir === undefined) delete process.env.SHOAL_DATA_DIR;
    else process.env.SHOAL_DATA_DIR = saved.dataDir;
    if (saved.brokers !== undefined) process.env.KAFKA_BROKERS = saved.brokers;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts from the newest snapshot at or before the offset, to the hash of a replay from the first record', async () => {
    const fromSnapshot = await run({ to: 7 });
    expect(fromSnapshot.result).toMatchObject({ offset: 7, from: { snapshot: 'scheduler', offset: 4 } });
    const fromScratch = await run({ to: 7, fromScratch: true });
    expect(fromScratch.result).toMatchObject({ offset: 7, from: { offset: 0 } });
    expect(fromSnapshot.result.hash).toBe(fromScratch.result.hash);
    expect((await run({})).result).toMatchObject({ offset: 10, from: { snapshot: 'scheduler', offset: 8 } });
    expect((await run({ to: 3 })).result.from).toEqual({ offset: 0 });
  });

  it('finds the point a time names: the records written at or before it', async () => {
    expect((await run({ at: '2026-01-01T00:00:05Z' })).result.offset).toBe(5);
    expect((await run({ at: '2026-01-01T00:00:05.500Z' })).result.offset).toBe(5);
    expect((await run({ at: String(Date.parse('2026-01-01T00:00:06Z') / 1000) })).result.offset).toBe(6);
    expect((await run({ at: '2025-12-31T00:00:00Z' })).result.offset).toBe(0);
    expect((await run({ at: '2027-01-01T00:00:00Z' })).result.offset).toBe(10);
    const atSix = await run({ at: '2026-01-01T00:00:06Z' });
    expect(atSix.result.hash).toBe((await run({ to: 6, fromScratch: true })).result.hash);
  });

  it('refuses a time that is not one, both --to and --at, and a point past the end', async () => {
    const errors: string[] = [];
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => (errors.push(String(chunk)), true));
    expect(await auditReplay({ at: 'yesterday' })).toBe(2);
    expect(await auditReplay({ at: '2026-01-01T00:00:05Z', to: 3 })).toBe(2);
    expect(await auditReplay({ to: 11 })).toBe(2);
    expect(errors).toEqual([
      'shoal: --at yesterday is not a time: give an ISO date (2026-11-26T15:00:00Z) or Unix seconds\n',
      'shoal: give --to or --at, not both\n',
      'shoal: --to 11 is past the end of the log (10 records); use --to 10 or less\n',
    ]);
    expect(parseReplayTime('1767225600')).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });
});
