/**
 * Poison on the topic, written as an outsider would, with a raw kafkajs producer beside
 * Shoal's writers: records no build of Shoal reads (not JSON, empty, not UTF-8, wrong
 * types, an unknown type, one near the topic's largest record), each with the cluster id
 * as its key so that it lands among the cluster's own records. And, apart, a record of a
 * version newer than this build reads: not poison — a reader stops there and says so.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { EVENT_TYPES } from '@shoal/contracts';

/** One kind of poison: what it is, and its value. */
export interface PoisonKind {
  readonly name: string;
  readonly value: Buffer | string | null;
}

/** The topic's max.message.bytes as Shoal creates it (libs/eventlog: 16 MiB); a poison record a little under it. */
const TOPIC_MAX_BYTES = 16 * 1024 * 1024;
const OVERSIZED_BYTES = TOPIC_MAX_BYTES - 64 * 1024;

/** A writer as envelopes name one, for records that look like Shoal's own. */
const by = { component: 'api', instance: 'chaos-poisoner', term: 0 };

const envelope = (cluster: string, fields: Record<string, unknown>): string =>
  JSON.stringify({ id: randomUUID(), type: 'ServiceRemoved', v: 1, cluster, at: new Date().toISOString(), by, seq: 0, data: { id: 'no-such-service' }, ...fields });

/** Every kind of poison a run writes. */
export const poisonKinds = (cluster: string): readonly PoisonKind[] => [
  { name: 'not JSON', value: '{"type": "ServiceCreated", "data": ' },
  { name: 'empty value', value: '' },
  { name: 'no value (a tombstone)', value: null },
  { name: 'not UTF-8', value: Buffer.from([0xff, 0xfe, 0x00, 0xc3, 0x28]) },
  { name: 'JSON but not an object', value: '[1, 2, 3]' },
  { name: 'wrong types in the envelope', value: envelope(cluster, { v: '1', seq: -1, by: 'api' }) },
  { name: 'wrong types in the data', value: envelope(cluster, { type: 'ServiceCreated', data: { id: 42, spec: 'nginx' } }) },
  { name: 'unknown type', value: envelope(cluster, { type: 'ServiceTeleported', data: { id: 'x', to: 'mars' } }) },
  { name: `oversized (${(OVERSIZED_BYTES / 1024 / 1024).toFixed(2)} MiB, near the topic's max.message.bytes)`, value: envelope(cluster, { type: 'ServiceCreated', data: { id: 'huge', spec: 'x'.repeat(OVERSIZED_BYTES - 300) } }) },
  { name: 'nested 10,000 deep', value: `${'['.repeat(10_000)}${']'.repeat(10_000)}` },
];

/** A record of a known type at a version newer than this build reads. */
export const futureRecord = (cluster: string): string => {
  const next = EVENT_TYPES.ServiceRemoved.v + 1;
  return envelope(cluster, { v: next, data: { id: 'no-such-service', reason: `a field of version ${next}` } });
};

/** Writes records onto the topic with a producer of its own; resolves with the offset each got. */
export const writeRaw = async (brokers: readonly string[], topic: string, key: string, values: readonly (Buffer | string | null)[]): Promise<number[]> => {
  const kafka = new Kafka({ clientId: 'chaos-poisoner', brokers: [...brokers], logLevel: logLevel.NOTHING, retry: { retries: 10 } });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  try {
    const offsets: number[] = [];
    // One send each: an oversized value is a batch of its own.
    for (const value of values) {
      const [written] = await producer.send({ topic, messages: [{ key, value }] });
      offsets.push(Number(written!.baseOffset));
    }
    return offsets;
  } finally {
    await producer.disconnect();
  }
};
