/**
 * The log the audit commands read through, on a real embedded log: replayLog's reads show as
 * one pass towards its target (the high-water mark, or --to), verifyLog's as one pass each
 * time it goes over the log, each counted from where it began; records read are unchanged.
 */
import { encode } from '@shoal/contracts';
import { replayLog, verifyLog } from '@shoal/runtime';
import { EventBuilder, clusterInit, nodeDescription, openEmbeddedTestLog } from '@shoal/testing';
import type { EmbeddedTestLog } from '@shoal/testing';
import type { ProgressReporter } from './progress';
import { readProgress } from './read-progress';

/** Every start and update, as the line would name them. */
const recorder = () => {
  const seen: string[] = [];
  const reporter: ProgressReporter = {
    start: (verb) => seen.push(`start ${verb}`),
    update: (done, total) => seen.push(`${done}/${total}`),
    clear: () => seen.push('clear'),
  };
  return { seen, reporter };
};

describe('readProgress', () => {
  // More than two of replayLog's batches (5,000 records each).
  const RECORDS = 12_001;
  let test: EmbeddedTestLog;

  beforeAll(async () => {
    test = await openEmbeddedTestLog('shoal-read-progress-');
    const b = new EventBuilder('c1');
    const events = [clusterInit(b), ...Array.from({ length: RECORDS - 1 }, (_, i) => b.event('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`node-${i}`) }))];
    await test.log.append(events.map((event) => ({ key: 'c1', value: encode(event) })));
  });
  afterAll(() => test.close());

  it('shows a replay as one pass towards the end of the log, batch by batch', async () => {
    const { seen, reporter } = recorder();
    let passes = 0;
    const projection = await replayLog(readProgress(test.log, reporter, () => `replayed (pass ${++passes})`), { to: RECORDS });
    expect(projection.position).toBe(RECORDS);
    expect(seen).toEqual(['start replayed (pass 1)', `0/${RECORDS}`, `5000/${RECORDS}`, `10000/${RECORDS}`]);
  });

  it('aims at --to when the replay stops short of the end', async () => {
    const { seen, reporter } = recorder();
    await replayLog(readProgress(test.log, reporter, () => 'replayed'), { to: 7_000 });
    expect(seen).toEqual(['start replayed', '0/7000', '5000/7000']);
  });

  it('reaches the same state as the log read directly', async () => {
    const { reporter } = recorder();
    const observed = await replayLog(readProgress(test.log, reporter, () => 'replayed'), { to: RECORDS });
    const direct = await replayLog(test.log, { to: RECORDS });
    expect(observed.hash()).toBe(direct.hash());
  });

  it('shows each pass verify makes over the log, each counted from its own start', async () => {
    const { seen, reporter } = recorder();
    let passes = 0;
    const report = await verifyLog(readProgress(test.log, reporter, () => `pass ${++passes}`));
    expect(report.agree).toBe(true);
    const middle = Math.floor(RECORDS / 2);
    // Twice the whole log, then a snapshot made at the middle: the head, then the tail.
    expect(seen.filter((line) => line.startsWith('start'))).toEqual(['start pass 1', 'start pass 2', 'start pass 3', 'start pass 4']);
    const firstOfEachPass = seen.filter((_, i) => i > 0 && seen[i - 1]!.startsWith('start'));
    expect(firstOfEachPass).toEqual([`0/${RECORDS}`, `0/${RECORDS}`, `0/${middle}`, `0/${RECORDS - middle}`]);
  });

  it('passes the description and the high-water mark through', async () => {
    const { reporter } = recorder();
    const observed = readProgress(test.log, reporter, () => 'replayed');
    expect(observed.description).toBe(test.log.description);
    expect(await observed.highWaterMark()).toBe(RECORDS);
  });
});
