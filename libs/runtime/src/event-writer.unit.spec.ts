import type { AppendRecord, AppendResult, EmbeddedEventLog, EventLog } from '@shoal/eventlog';
import { nodeDescription, openEmbeddedTestLog } from '@shoal/testing';
import { EventWriter } from './event-writer';
import { LiveView } from './live-view';

describe('EventWriter.appendAndWait', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-writer-')));
  afterEach(() => closeLog());

  /** The log, with every append's size (in records) written down. */
  const counting = (appends: number[]): EventLog =>
    Object.assign(Object.create(log) as EventLog, {
      append: (records: readonly AppendRecord[]): Promise<AppendResult> => {
        appends.push(records.length);
        return log.append(records);
      },
    });

  it('keeps each append under its byte limit, in order, and returns every verdict in order', async () => {
    const appends: number[] = [];
    const view = new LiveView(log);
    await view.start();
    const writer = new EventWriter(counting(appends), 'c1', 'dispatcher', 'd-1', { maxAppendBytes: 2_000 });
    // Each registration encodes to a few hundred bytes: 20 of them do not fit in one append of 2,000.
    const events = Array.from({ length: 20 }, (_, i) => writer.propose('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`n${i}`) }));
    const verdicts = await writer.appendAndWait(view, events);
    await view.stop();

    expect(appends.length).toBeGreaterThan(1);
    expect(appends.reduce((a, b) => a + b, 0)).toBe(20);
    expect(verdicts.map((v) => v.status)).toEqual(Array(20).fill('applied'));
    expect([...view.state.nodes.keys()]).toEqual(events.map((_, i) => `n${i}`));
    const records = await log.read(0);
    for (const [i, record] of records.entries()) expect(JSON.parse(record.value).seq).toBe(i + 1);
  });

  it('sends a record larger than the limit on its own rather than refusing it', async () => {
    const appends: number[] = [];
    const view = new LiveView(log);
    await view.start();
    const writer = new EventWriter(counting(appends), 'c1', 'dispatcher', 'd-1', { maxAppendBytes: 10 });
    const events = [0, 1, 2].map((i) => writer.propose('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`n${i}`) }));
    const verdicts = await writer.appendAndWait(view, events);
    await view.stop();
    expect(appends).toEqual([1, 1, 1]);
    expect(verdicts.map((v) => v.status)).toEqual(['applied', 'applied', 'applied']);
  });
});
