import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '@shoal/contracts';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, serviceSpec } from '@shoal/testing';
import { streamDockerEvents } from './event-stream';
import type { EventSink } from './event-stream';

describe('streamDockerEvents', () => {
  let dir: string;
  let log: EmbeddedEventLog;
  const b = new EventBuilder('c1');

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoal-event-stream-'));
    log = await EmbeddedEventLog.open({ dir, sync: false });
    await log.append([{ key: 'c1', value: encode(b.event('ServiceCreated', { id: 's1', spec: serviceSpec('web') })) }]);
  });
  afterEach(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });

  const sink = (): EventSink & { lines: string[]; writes: number; ended: boolean } => {
    const out = {
      lines: [] as string[],
      writes: 0,
      ended: false,
      write: async (chunk: string) => {
        out.writes++;
        out.lines.push(...chunk.split('\n').filter(Boolean));
      },
      end: () => {
        out.ended = true;
      },
    };
    return out;
  };

  it('ends once the past is delivered when until has passed', async () => {
    const out = sink();
    const stream = await streamDockerEvents(log, { since: 0n, until: 4_000_000_000n * 1_000_000_000n, filters: new Map(), now: () => 4_000_000_000_001 }, out);
    await stream.done;
    expect(out.ended).toBe(true);
    expect(out.lines.map((line) => (JSON.parse(line) as { Action: string }).Action)).toEqual(['create']);
  });

  it('follows until stopped, and stopping ends the sink and the follower', async () => {
    const out = sink();
    const stream = await streamDockerEvents(log, { since: 0n, filters: new Map() }, out);
    await log.append([{ key: 'c1', value: encode(b.event('ServiceRemoved', { id: 's1' })) }]);
    while (out.lines.length < 2) await new Promise((resolve) => setImmediate(resolve));
    stream.stop();
    await stream.done;
    expect(out.ended).toBe(true);
    await log.append([{ key: 'c1', value: encode(b.event('ServiceCreated', { id: 's2', spec: serviceSpec('api') })) }]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.lines).toHaveLength(2);
  });

  it('ends by itself when an until ahead is reached', async () => {
    const out = sink();
    const until = BigInt(Date.now() + 200) * 1_000_000n;
    const stream = await streamDockerEvents(log, { since: 0n, until, filters: new Map() }, out);
    await stream.done;
    expect(out.ended).toBe(true);
    expect(out.lines).toHaveLength(1);
  });

  it('writes the messages of the records read together in one chunk, a line each, in order, at most a thousand to a write', async () => {
    const created = Array.from({ length: 1_500 }, (_, i) => ({ key: 'c1', value: encode(b.event('ServiceCreated', { id: `m${i}`, spec: serviceSpec(`many${i}`) })) }));
    await log.append(created);
    const out = sink();
    const stream = await streamDockerEvents(log, { since: 0n, until: BigInt(Date.now()) * 1_000_000n, filters: new Map(), now: () => Date.now() + 1_000 }, out);
    await stream.done;
    const names = out.lines.map((line) => (JSON.parse(line) as { Actor: { Attributes: { name: string } } }).Actor.Attributes.name);
    expect(names).toEqual(['web', ...created.map((_, i) => `many${i}`)]);
    // 1,501 messages read in one batch of the embedded log: a thousand, then the rest.
    expect(out.writes).toBe(2);
  });

  it('delivers the whole past before an until ahead ends it, however long reading the past takes', async () => {
    for (let i = 2; i <= 5; i++) await log.append([{ key: 'c1', value: encode(b.event('ServiceCreated', { id: `s${i}`, spec: serviceSpec(`web${i}`) })) }]);
    // A log whose records come slowly (a broker far away, a long history): the past takes longer to read than until is ahead.
    const slow: EmbeddedEventLog = Object.create(log) as EmbeddedEventLog;
    slow.follow = (from, handler, options) =>
      log.follow(
        from,
        async (batch) => {
          for (const record of batch) {
            await new Promise((resolve) => setTimeout(resolve, 60));
            await handler([record]);
          }
        },
        options,
      );
    const out = sink();
    const stream = await streamDockerEvents(slow, { since: 0n, until: BigInt(Date.now() + 50) * 1_000_000n, filters: new Map() }, out);
    await stream.done;
    expect(out.ended).toBe(true);
    expect(out.lines.map((line) => (JSON.parse(line) as { Actor: { Attributes: { name: string } } }).Actor.Attributes.name)).toEqual(['web', 'web2', 'web3', 'web4', 'web5']);
  });
});
