import { encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import type { EmbeddedEventLog, EventLog, FollowOptions, LogRecord } from '@shoal/eventlog';
import { EventBuilder, clusterInit, nodeDescription, openEmbeddedTestLog } from '@shoal/testing';
import { LiveView } from './live-view';

describe('LiveView', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-view-')));
  afterEach(() => closeLog());

  it('lets the event loop run while it applies a large batch, and applies every record once, in order', async () => {
    const b = new EventBuilder();
    const events = [clusterInit(b), ...Array.from({ length: 4_999 }, (_, i) => b.event('NodeRegistered', { id: `n${i}`, role: 'worker', description: nodeDescription(`n${i}`) }))];
    await log.append(events.map((e) => ({ key: 'c1', value: encode(e) })));

    // What happened, in order: chunks applied, and turns of the event loop in between.
    const seen: string[] = [];
    let spinning = true;
    const spin = (): void => {
      seen.push('turn');
      if (spinning) setImmediate(spin);
    };
    const view = new LiveView(log, { onApplied: (records) => seen.push(`applied ${records.length}`) });
    setImmediate(spin);
    await view.start();
    spinning = false;
    await view.stop();

    const chunks = seen.filter((s) => s.startsWith('applied'));
    expect(chunks).toEqual(['applied 2000', 'applied 2000', 'applied 1000']);
    // Between any two chunks of the one batch the log delivered, something else ran.
    const at = seen.map((s, i) => (s.startsWith('applied') ? i : -1)).filter((i) => i >= 0);
    for (let k = 1; k < at.length; k++) expect(seen.slice(at[k - 1]! + 1, at[k]!)).toContain('turn');
    expect(view.position).toBe(5_000);
    expect(view.projection.tally.applied).toBe(5_000);
    expect([...view.state.nodes.keys()].slice(0, 3)).toEqual(['n0', 'n1', 'n2']);
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
