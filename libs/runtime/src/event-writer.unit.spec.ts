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

  it("refuses another record's verdict when the log reports a wrong offset for the append, already applied or not yet", async () => {
    const view = new LiveView(log);
    await view.start();
    const other = new EventWriter(log, 'c1', 'dispatcher', 'd-0');
    await other.appendAndWait(view, [other.propose('NodeRegistered', { id: 'n0', role: 'worker', description: nodeDescription('n0') })]);
    // A log that says each batch landed `shift` offsets from where it did.
    const misreporting = (shift: number): EventLog =>
      Object.assign(Object.create(log) as EventLog, {
        append: async (records: readonly AppendRecord[]): Promise<AppendResult> => {
          const { first, last } = await log.append(records);
          return { first: first + shift, last: last + shift };
        },
      });

    // One offset early: the record there (n0's) is applied already, and is not this writer's.
    const early = new EventWriter(misreporting(-1), 'c1', 'dispatcher', 'd-1');
    const n1 = early.propose('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') });
    await expect(early.appendAndWait(view, [n1])).rejects.toThrow(`where it said event ${n1.id} was appended: the append's outcome is unknown`);

    // One offset late: the record that lands there next is someone else's.
    const late = new EventWriter(misreporting(1), 'c1', 'dispatcher', 'd-2');
    const n2 = late.propose('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') });
    const waiting = late.appendAndWait(view, [n2]);
    const n3 = other.propose('NodeRegistered', { id: 'n3', role: 'worker', description: nodeDescription('n3') });
    await other.append([n3]);
    await expect(waiting).rejects.toThrow(`the log holds event ${n3.id} at offset 3, where it said event ${n2.id} was appended`);
    await view.stop();
  });
});
