import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { testBrokers } from '@shoal/testing';
import { collect, describeEventLogContract, handOver } from '../contract/event-log.contract';
import { KafkaEventLog } from './kafka-event-log';
import { PartitionReader } from './partition-reader';
import type { KafkaEventLogOptions } from './kafka-event-log';

const brokers = testBrokers();

/** A topic of its own for every test, so tests never see each other's records or groups. */
const freshTopic = () => `shoal-test-${randomUUID()}.events`;
const open = (topic: string, options: Partial<KafkaEventLogOptions> = {}) =>
  KafkaEventLog.open({ brokers, topic, clientId: 'eventlog-int', ...options });

describeEventLogContract('kafka', async () => {
  const topic = freshTopic();
  return { log: await open(topic), reopen: () => open(topic), another: () => open(topic) };
});

describe('KafkaEventLog', () => {
  const opened: KafkaEventLog[] = [];
  const track = async (log: Promise<KafkaEventLog>) => {
    opened.push(await log);
    return opened[opened.length - 1]!;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((log) => log.close()));
  });

  it('creates its topic with infinite retention and no compaction', async () => {
    const topic = freshTopic();
    await track(open(topic));
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: 2 /* TOPIC */, name: topic, configNames: ['retention.ms', 'retention.bytes', 'cleanup.policy'] }],
      });
      const config = Object.fromEntries(resources[0]!.configEntries.map((entry) => [entry.configName, entry.configValue]));
      expect(config).toEqual({ 'retention.ms': '-1', 'retention.bytes': '-1', 'cleanup.policy': 'delete' });
    } finally {
      await admin.disconnect();
    }
  });

  it('opens a topic that already exists, and refuses a partition it does not have', async () => {
    const topic = freshTopic();
    const first = await track(open(topic, { partitions: 2, partition: 1 }));
    await first.append([{ key: 'c2', value: 'on partition 1' }]);
    const second = await track(open(topic, { partitions: 5, partition: 1 }));
    expect(await second.read(0)).toEqual([{ offset: 0, key: 'c2', value: 'on partition 1' }]);
    const zero = await track(open(topic, { partition: 0 }));
    expect(await zero.highWaterMark()).toBe(0);
    await expect(open(topic, { partition: 2 })).rejects.toThrow(/has 2 partition\(s\); there is no partition 2/);
  });

  it('keeps partitions apart: reads, follows and leases are per partition', async () => {
    const topic = freshTopic();
    const p0 = await track(open(topic, { partitions: 2, partition: 0 }));
    const p1 = await track(open(topic, { partition: 1 }));
    await p0.append([{ key: 'c0', value: 'zero' }]);
    await p1.append([{ key: 'c1', value: 'one' }, { key: 'c1', value: 'two' }]);
    expect((await p0.read(0)).map((r) => r.value)).toEqual(['zero']);
    expect((await p1.read(0)).map((r) => r.value)).toEqual(['one', 'two']);
    const follower = collect(p1, 0);
    await follower.received(2);
    // The same component owns each partition separately, in the same group.
    const owner0 = await p0.acquire('scheduler', 'a', { timeoutMs: 30_000 });
    const owner1 = await p1.acquire('scheduler', 'b', { timeoutMs: 30_000 });
    expect([owner0.partition, owner1.partition]).toEqual([0, 1]);
    expect(owner0.isHeld() && owner1.isHeld()).toBe(true);
    await follower.stop();
    expect(follower.seen.map((r) => r.value)).toEqual(['one', 'two']);
  });

  it('hands ownership to a standby in another process when the holder goes away, in seconds', async () => {
    const topic = freshTopic();
    const holder = await open(topic); // closed by the handover itself
    const standby = await track(open(topic));
    const { second, firstLost, handoverMs } = await handOver(holder, standby, { how: 'close' });
    expect(firstLost).toBe('released');
    expect(handoverMs).toBeLessThan(10_000);
    expect(second.generation).toBeGreaterThan(0);
  });

  it('follows and reads across many fetches when responses are small', async () => {
    const topic = freshTopic();
    const log = await track(open(topic, { fetchMaxBytes: 16 * 1024 }));
    const value = (i: number) => `${i}:${'v'.repeat(200)}`;
    for (let b = 0; b < 10; b++) await log.append(Array.from({ length: 300 }, (_, i) => ({ key: 'c1', value: value(b * 300 + i) })));
    const all = await log.read(0);
    expect(all.every((r, i) => r.offset === i && r.value === value(i))).toBe(true);
    expect(all).toHaveLength(3_000);
    expect((await log.read(1_234, { max: 500 })).map((r) => r.offset)).toEqual([...Array(500).keys()].map((i) => 1_234 + i));
    const follower = collect(log, 17);
    await follower.received(3_000 - 17);
    expect(follower.batches.length).toBeGreaterThan(1);
    expect(follower.seen.every((r, i) => r.offset === 17 + i)).toBe(true);
    await follower.stop();
  });

  it('fetches the next batch while the handler works on one, and still delivers every record once, in order', async () => {
    const topic = freshTopic();
    const log = await track(open(topic, { fetchMaxBytes: 16 * 1024 }));
    const value = (i: number) => `${i}:${'v'.repeat(200)}`;
    // Ten appends are ten record batches, and a fetch of 16 KiB brings one of them.
    for (let b = 0; b < 10; b++) await log.append(Array.from({ length: 100 }, (_, i) => ({ key: 'c1', value: value(b * 100 + i) })));
    const fetches = jest.spyOn(PartitionReader.prototype, 'fetch');
    try {
      const seen: number[] = [];
      const fetchesAtHandler: number[] = [];
      let done!: () => void;
      const all = new Promise<void>((resolve) => (done = resolve));
      const subscription = log.follow(0, async (batch) => {
        fetchesAtHandler.push(fetches.mock.calls.length);
        await new Promise((resolve) => setTimeout(resolve, 5));
        seen.push(...batch.map((r) => r.offset));
        if (seen.length >= 1_000) done();
      });
      await all;
      await subscription.stop();
      expect(seen).toEqual([...Array(1_000).keys()]);
      // The first batch's handler starts with its own fetch made and the next one asked for.
      expect(fetchesAtHandler.length).toBeGreaterThan(2);
      expect(fetchesAtHandler[0]).toBe(2);
    } finally {
      fetches.mockRestore();
    }
  });

  it('reads in chunks from what one fetch brought, and still reads records appended since', async () => {
    const topic = freshTopic();
    const log = await track(open(topic));
    const value = (i: number) => `${i}:${'v'.repeat(200)}`;
    await log.append(Array.from({ length: 3_000 }, (_, i) => ({ key: 'c1', value: value(i) })));
    const fetches = jest.spyOn(PartitionReader.prototype, 'fetch');
    try {
      const chunks: number[][] = [];
      for (let from = 0; from < 3_000; from += 500) chunks.push((await log.read(from, { to: 3_000, max: 500 })).map((r) => r.offset));
      expect(chunks.flat()).toEqual([...Array(3_000).keys()]);
      // 3,000 records of 200 bytes fit one fetch of 16 MiB: the other five chunks come from it.
      expect(fetches).toHaveBeenCalledTimes(1);

      await log.append(Array.from({ length: 10 }, (_, i) => ({ key: 'c1', value: value(3_000 + i) })));
      const tail = await log.read(2_990);
      expect(tail.map((r) => r.offset)).toEqual([...Array(20).keys()].map((i) => 2_990 + i));
      expect(tail.every((r) => r.value === value(r.offset))).toBe(true);
      expect((await log.read(2_995, { to: 3_005 })).map((r) => r.offset)).toEqual([...Array(10).keys()].map((i) => 2_995 + i));
    } finally {
      fetches.mockRestore();
    }
  });
});
