/**
 * The data-key store on a real broker: keys put by one process are read by another, a
 * destroyed key is gone for every reader at once, and the log cleaner then removes the
 * key's record from the topic itself (crypto-shredding needs the bytes gone, not hidden).
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { testBrokers } from '@shoal/testing';
import { PartitionReader } from '../kafka/partition-reader';
import { KafkaDataKeys } from './kafka-data-keys';

const brokers = testBrokers();

/** Every record the topic holds now, from its first offset: key and whether it has a value. */
const rawRecords = async (topic: string): Promise<{ key: string; value: string }[]> => {
  const kafka = new Kafka({ brokers, clientId: 'data-keys-raw', logLevel: logLevel.NOTHING });
  const reader = new PartitionReader(kafka, topic, 0, { maxBytes: 1024 * 1024 });
  try {
    const out: { key: string; value: string }[] = [];
    for (let offset = 0; ; ) {
      const { records, next, highWatermark } = await reader.fetch(offset, { maxWaitMs: 0 });
      out.push(...records.map(({ key, value }) => ({ key, value })));
      if (next >= highWatermark || next <= offset) return out;
      offset = next;
    }
  } finally {
    await reader.disconnect();
  }
};

describe('KafkaDataKeys on a real broker', () => {
  const stores: KafkaDataKeys[] = [];
  const open = async (topic: string, segmentMs?: number): Promise<KafkaDataKeys> => {
    const store = await KafkaDataKeys.open({ brokers, topic, clientId: 'data-keys-int', ...(segmentMs ? { segmentMs } : {}) });
    stores.push(store);
    return store;
  };
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
  });

  it("shares keys between processes: one's put is the other's get, and a destroy is seen by both", async () => {
    const topic = `shoal-test-${randomUUID()}.secret-keys`;
    const writer = await open(topic);
    const reader = await open(topic);
    await writer.put('x1', Buffer.from('wrapped-1'));
    expect((await reader.get('x1'))?.wrapped.toString()).toBe('wrapped-1');
    await writer.destroy('x1');
    expect(await reader.get('x1')).toBeUndefined();
    // The follower brings what others wrote to peek() without a get.
    await writer.put('x2', Buffer.from('wrapped-2'));
    for (let waited = 0; reader.peek('x2') === undefined && waited < 10_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reader.peek('x2')?.wrapped.toString()).toBe('wrapped-2');
    const late = await open(topic);
    expect([...(await late.list()).keys()]).toEqual(['x2']);
  });

  it('removes a destroyed key from the topic itself once its segment is rolled and cleaned', async () => {
    const topic = `shoal-test-${randomUUID()}.secret-keys`;
    const store = await open(topic, 1_000);
    await store.put('x1', Buffer.from('wrapped-1'));
    await store.put('x2', Buffer.from('wrapped-2'));
    await store.destroy('x1');
    expect((await rawRecords(topic)).filter((record) => record.key === 'x1' && record.value !== '')).toHaveLength(1);
    // The store rolls the segment after its time (a marker); the cleaner then compacts it.
    const deadline = Date.now() + 90_000;
    let held = await rawRecords(topic);
    while (held.some((record) => record.key === 'x1' && record.value !== '') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      held = await rawRecords(topic);
    }
    expect(held.filter((record) => record.key === 'x1' && record.value !== '')).toEqual([]);
    expect(held.filter((record) => record.key === 'x2').map((record) => JSON.parse(record.value).wrapped)).toEqual([Buffer.from('wrapped-2').toString('base64')]);
  }, 120_000);
});
