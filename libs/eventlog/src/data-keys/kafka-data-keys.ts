/**
 * Data keys on a compacted Kafka topic beside the log (`<prefix>.secret-keys`): one record
 * per secret, keyed by its id; destroying a key writes a tombstone. Every reader drops the
 * key as it reads the tombstone, and the log cleaner then removes the key's record from
 * every broker's disk. The topic is made for that: compacted, segments rolled after
 * `segmentMs` and cleaned at once (dirty ratio 0, no compaction lag), and the store appends
 * a marker once a segment's time is up after a destroy, so the segment holding the tombstone
 * is rolled (Kafka never cleans the active segment) even when nothing else is written.
 * Replicated as the log is (same durability settings, acks=all, idempotent producer).
 *
 * A follower keeps the store's copy fresh (peek); get() first reads up to the end.
 */
import { Kafka, Partitioners } from 'kafkajs';
import type { Admin, Producer } from 'kafkajs';
import { kafkajsConnection } from '../kafka/connection-settings';
import type { KafkaConnectionSettings } from '../kafka/connection-settings';
import { ensureTopic } from '../kafka/ensure-topic';
import { requiredDurability } from '../kafka/topic-durability';
import type { DurabilitySettings } from '../kafka/topic-durability';
import { DEFAULT_KAFKA_LOG_LEVEL, quietLogCreator } from '../kafka/kafka-logger';
import { PartitionReader } from '../kafka/partition-reader';
import type { LogRecord } from '../port';
import { decodeStoredKey, encodeStoredKey } from './data-key-store';
import type { DataKeyStore, StoredDataKey } from './data-key-store';

export interface KafkaDataKeysOptions {
  readonly brokers: readonly string[];
  /** `<prefix>.secret-keys`. */
  readonly topic: string;
  readonly clientId?: string;
  readonly connection?: KafkaConnectionSettings;
  readonly durability?: DurabilitySettings;
  /** How long a segment stays open (segment.ms); default 10 minutes. */
  readonly segmentMs?: number;
}

/** The key of the marker that rolls a segment after a destroy: not a secret id (those are base36). */
export const ROLL_MARKER = '~roll';
const DEFAULT_SEGMENT_MS = 10 * 60_000;
const FOLLOW_WAIT_MS = 1_000;

export const dataKeyTopicConfig = (minInsync: number, segmentMs: number): Record<string, string> => ({
  'cleanup.policy': 'compact',
  'min.insync.replicas': String(minInsync),
  'unclean.leader.election.enable': 'false',
  'segment.ms': String(segmentMs),
  'min.cleanable.dirty.ratio': '0.0001',
  'min.compaction.lag.ms': '0',
  'max.compaction.lag.ms': String(segmentMs),
  // A tombstone itself may go a day after it is cleaned: it carries nothing.
  'delete.retention.ms': String(24 * 60 * 60_000),
});

export class KafkaDataKeys implements DataKeyStore {
  private readonly keys = new Map<string, StoredDataKey>();
  private position = 0;
  private reading: Promise<void> | undefined;
  private following = true;
  private readonly follower: Promise<void>;
  private rollTimer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly admin: Admin,
    private readonly producer: Producer,
    /** One reader reads up to the end on demand, the other long-polls: neither waits on the other's request. */
    private readonly reader: PartitionReader,
    private readonly followReader: PartitionReader,
    private readonly topic: string,
    private readonly segmentMs: number,
  ) {
    this.follower = this.follow();
  }

  get description(): string {
    return `kafka ${this.topic}`;
  }

  static async open(options: KafkaDataKeysOptions): Promise<KafkaDataKeys> {
    const kafka = new Kafka({
      clientId: options.clientId ?? 'shoal-secret-keys',
      brokers: [...options.brokers],
      ...(options.connection ? kafkajsConnection(options.connection) : {}),
      logLevel: DEFAULT_KAFKA_LOG_LEVEL,
      logCreator: quietLogCreator,
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 3_000 },
    });
    const admin = kafka.admin();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false, createPartitioner: Partitioners.DefaultPartitioner });
    const segmentMs = options.segmentMs ?? DEFAULT_SEGMENT_MS;
    try {
      await admin.connect();
      const required = requiredDurability((await admin.describeCluster()).brokers.length, options.durability);
      await ensureTopic(admin, { topic: options.topic, partitions: 1, partition: 0, maxMessageBytes: 1024 * 1024, required, config: dataKeyTopicConfig(required.minInsync, segmentMs) });
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
      throw error;
    }
    const reader = (): PartitionReader => new PartitionReader(kafka, options.topic, 0, { maxBytes: 1024 * 1024 });
    const store = new KafkaDataKeys(admin, producer, reader(), reader(), options.topic, segmentMs);
    await store.catchUp();
    return store;
  }

  async put(id: string, wrapped: Buffer): Promise<void> {
    await this.send(id, encodeStoredKey({ wrapped, at: Date.now() }));
    await this.catchUp();
  }

  async get(id: string): Promise<StoredDataKey | undefined> {
    await this.catchUp();
    return this.keys.get(id);
  }

  peek(id: string): StoredDataKey | undefined {
    return this.keys.get(id);
  }

  async list(): Promise<ReadonlyMap<string, StoredDataKey>> {
    await this.catchUp();
    return new Map(this.keys);
  }

  async destroy(id: string): Promise<void> {
    await this.send(id, null);
    await this.catchUp();
    this.scheduleRoll();
  }

  async close(): Promise<void> {
    this.following = false;
    if (this.rollTimer) clearTimeout(this.rollTimer);
    await this.follower.catch(() => undefined);
    await this.reader.disconnect();
    await this.followReader.disconnect();
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }

  private async send(key: string, value: string | null): Promise<void> {
    await this.producer.send({ topic: this.topic, acks: -1, messages: [{ key, value, partition: 0 }] });
  }

  /** After a destroy, once the segment's time is up: a marker that makes the broker roll it, so the cleaner can take the key. */
  private scheduleRoll(): void {
    if (this.rollTimer) return;
    this.rollTimer = setTimeout(() => {
      this.rollTimer = undefined;
      void this.send(ROLL_MARKER, null).catch(() => undefined);
    }, this.segmentMs + 1_000);
    this.rollTimer.unref();
  }

  /** Reads every record up to the high-water mark as it is now. */
  private catchUp(): Promise<void> {
    this.reading ??= (async () => {
      try {
        for (;;) {
          const from = this.position;
          const { records, next, highWatermark } = await this.reader.fetch(from, { maxWaitMs: 0 });
          this.apply(records, next);
          // Nothing more to read (or nothing the broker would hand out below its mark): caught up.
          if (this.position >= highWatermark || next <= from) return;
        }
      } finally {
        this.reading = undefined;
      }
    })();
    return this.reading;
  }

  /** Applies what a read returned; records before the position were applied already (the other reader got there first). */
  private apply(records: readonly LogRecord[], next: number): void {
    for (const { offset, key, value } of records) {
      if (offset < this.position || key === ROLL_MARKER) continue;
      const stored = value === '' ? undefined : decodeStoredKey(value);
      if (stored) this.keys.set(key, stored);
      else this.keys.delete(key);
    }
    this.position = Math.max(this.position, next);
  }

  /** Long-polls for what other processes put and destroy, so peek() knows it. */
  private async follow(): Promise<void> {
    while (this.following) {
      try {
        const { records, next } = await this.followReader.fetch(this.position, { maxWaitMs: FOLLOW_WAIT_MS });
        this.apply(records, next);
      } catch {
        if (this.following) await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }
}
