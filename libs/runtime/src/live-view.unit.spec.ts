import { TaskState, encode } from '@shoal/contracts';
import type { NewTask, ShoalEvent } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import type { EmbeddedEventLog, EventLog, FollowOptions, LogRecord } from '@shoal/eventlog';
import { EventBuilder, clusterInit, nodeDescription, openEmbeddedTestLog, serviceSpec } from '@shoal/testing';
import { LiveView } from './live-view';
import type { LiveViewOptions } from './live-view';

/**
 * A view of `log`, caught up, and what happened meanwhile: the chunks it applied (the offsets
 * in each, in order), and whether the event loop turned between every two of them.
 */
const catchUp = async (log: EventLog, options: LiveViewOptions = {}): Promise<{ view: LiveView; chunks: (readonly number[])[]; turnedBetween: boolean }> => {
  const seen: (readonly number[] | 'turn')[] = [];
  const view = new LiveView(log, { ...options, onApplied: (records) => seen.push(records.map((r) => r.offset)) });
  let spinning = true;
  const spin = (): void => {
    seen.push('turn');
    if (spinning) setImmediate(spin);
  };
  setImmediate(spin);
  await view.start();
  spinning = false;
  const at = seen.map((s, i) => (s === 'turn' ? -1 : i)).filter((i) => i >= 0);
  return {
    view,
    chunks: at.map((i) => seen[i] as readonly number[]),
    turnedBetween: at.every((i, k) => k === 0 || seen.slice(at[k - 1]! + 1, i).includes('turn')),
  };
};

/**
 * A few records that carry many tasks each, as the orchestrator and allocator write them:
 * `services` services of 1,000 tasks, each created in one record and allocated in another,
 * then an allocation of a task that is not there (refused).
 */
const fewLargeRecords = (b: EventBuilder, services: number): ShoalEvent[] => {
  const events: ShoalEvent[] = [clusterInit(b), b.event('NodeRegistered', { id: 'n0', role: 'worker', description: nodeDescription('n0') })];
  for (let s = 0; s < services; s++) {
    const spec = serviceSpec(`web-${s}`, { kind: 'replicated', replicas: 1_000 });
    const tasks: NewTask[] = Array.from({ length: 1_000 }, (_, i) => ({ id: `t-${s}-${i}`, serviceId: `svc-${s}`, slot: i + 1, specVersion: 1, spec: spec.task, desiredState: TaskState.RUNNING }));
    events.push(
      b.event('ServiceCreated', { id: `svc-${s}`, spec }),
      b.event('TasksCreated', { tasks }),
      b.event('TasksAllocated', { tasks: tasks.map((t) => ({ id: t.id, attachments: [] })) }),
    );
  }
  events.push(b.event('TasksAllocated', { tasks: [{ id: 'nowhere', attachments: [] }] }));
  return events;
};

describe('LiveView', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-view-')));
  afterEach(() => closeLog());

  it('lets the event loop run while it applies a large batch, and applies every record once, in order', async () => {
    const b = new EventBuilder();
    const events = [clusterInit(b), ...Array.from({ length: 4_999 }, (_, i) => b.event('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`n${i}`) }))];
    await log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));

    const { view, chunks, turnedBetween } = await catchUp(log);
    await view.stop();

    // The one batch the log delivered, in chunks; between any two of them, something else ran.
    expect(chunks.length).toBeGreaterThan(2);
    expect(turnedBetween).toBe(true);
    expect(chunks.flat()).toEqual(Array.from({ length: 5_000 }, (_, i) => i));
    expect(view.position).toBe(5_000);
    expect(view.projection.tally.applied).toBe(5_000);
    expect([...view.state.nodes.keys()].slice(0, 3)).toEqual(['n0', 'n1', 'n2']);
  });

  it('applies a few records that carry many tasks in chunks of their work, the event loop turning between them, to the same end as applying them at once', async () => {
    const events = fewLargeRecords(new EventBuilder(), 6);
    await log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));
    const { view, chunks, turnedBetween } = await catchUp(log);
    await view.stop();

    // 20 records, far fewer than a chunk once held, yet 12,000 tasks: several chunks.
    expect(events).toHaveLength(21);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    expect(turnedBetween).toBe(true);
    expect(chunks.flat()).toEqual(events.map((_, i) => i));

    // The same verdicts, offsets, tally and state as one projection applying every record in one go.
    const whole = new Projection(undefined, 0, { keepRefusals: 1000 });
    const verdicts = (await log.read(0)).map((record) => whole.apply(record));
    expect(verdicts.map((v) => v?.status)).toEqual([...events.slice(1).map(() => 'applied'), 'rejected']);
    for (let offset = 0; offset < events.length; offset++) expect(await view.verdictAt(offset, events[offset]!.id)).toEqual(verdicts[offset]);
    expect(view.position).toBe(whole.position);
    expect(view.projection.tally).toEqual(whole.tally);
    expect(view.projection.hash()).toBe(whole.hash());
    expect(view.state.tasks.size).toBe(6_000);
  });

  it('answers a writer waiting on a record once the chunk that holds it is applied, not once the whole batch is', async () => {
    const events = fewLargeRecords(new EventBuilder(), 6);
    await log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));
    // Every offset waited on before the view starts: where the view was when each wait ended.
    const view = new LiveView(log);
    const endedAt: [number, number][] = [];
    const waits = events.map((_, i) => view.waitFor(i + 1).then(() => endedAt.push([i + 1, view.position])));
    const last = events.length - 1;
    const verdict = view.verdictAt(last, events[last]!.id);
    const wrongId = expect(view.verdictAt(3, 'someone-else')).rejects.toThrow(`the log holds event ${events[3]!.id} at offset 3, where it said event someone-else was appended`);
    await view.start();
    await Promise.all(waits);
    await view.stop();

    for (const [offset, position] of endedAt) expect(position).toBeGreaterThanOrEqual(offset);
    expect(endedAt.some(([, position]) => position < events.length)).toBe(true);
    expect((await verdict).status).toBe('rejected');
    await wrongId;
  });

  it('remembers the verdicts of at least the last 10,000 records and tells the older ones are forgotten', async () => {
    const b = new EventBuilder();
    const register = (i: number) => b.event('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`n${i}`) });
    const events: ShoalEvent[] = [clusterInit(b), ...Array.from({ length: 19_999 }, (_, i) => register(i))];
    // The last one removes a node that was never there: refused, and remembered as such.
    events.push(b.event('NodeRemoved', { id: 'nowhere' }));
    await log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));
    const view = new LiveView(log);
    await view.start();
    await view.stop();

    expect(view.position).toBe(20_001);
    expect((await view.verdictAt(20_000)).status).toBe('rejected');
    expect((await view.verdictAt(19_999)).status).toBe('applied');
    expect((await view.verdictAt(10_001)).status).toBe('applied');
    await expect(view.verdictAt(1)).rejects.toThrow('the verdict on offset 1 is no longer remembered');
  });
  it('says where it started: at 0 after a whole replay, at its snapshot\'s offset when it started from one', async () => {
    const b = new EventBuilder();
    await log.append([clusterInit(b), b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') })].map((e) => ({ key: 'c1', value: encode(e) })));
    const whole = new LiveView(log);
    await whole.start();
    expect(whole.startedAt).toBe(0);
    const fromSnapshot = new LiveView(log, { snapshot: whole.projection.snapshot() });
    await fromSnapshot.start();
    expect(fromSnapshot.startedAt).toBe(2);
    expect(fromSnapshot.projection.hash()).toBe(whole.projection.hash());
    await whole.stop();
    await fromSnapshot.stop();
  });

  it('follows again from where it is when its follower gives up, and keeps applying what the log gets', async () => {
    const b = new EventBuilder();
    const register = (i: number) => b.event('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`n${i}`) });
    await log.append([clusterInit(b), register(0), register(1)].map((e) => ({ key: 'c1', value: encode(e) })));
    // The first follower delivers the first record, then gives up (as one on Kafka does after a long outage).
    const follows: number[] = [];
    const failingOnce = new Proxy(log, {
      get(target, property, receiver) {
        if (property !== 'follow') {
          const value: unknown = Reflect.get(target, property, receiver);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
        }
        return (from: number, handler: (batch: readonly LogRecord[]) => Promise<void> | void, options: FollowOptions) => {
          follows.push(from);
          if (follows.length > 1) return target.follow(from, handler, options);
          const subscription = target.follow(from, (batch) => handler(batch.slice(0, 1)), {});
          setTimeout(() => void subscription.stop().then(() => options.onError?.(new Error('the broker is away'))), 20);
          return subscription;
        };
      },
    }) as EventLog;
    const view = new LiveView(failingOnce);
    await view.start();
    expect(follows).toEqual([0, 1]);
    expect(view.position).toBe(3);
    await log.append([register(2)].map((e) => ({ key: 'c1', value: encode(e) })));
    await view.waitFor(4);
    expect([...view.state.nodes.keys()]).toEqual(['n0', 'n1', 'n2']);
    await view.stop();
  });
});
