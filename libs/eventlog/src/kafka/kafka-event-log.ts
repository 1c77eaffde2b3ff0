/**
 * The event log on Kafka: one (topic, partition) of a topic with infinite retention.
 * Appends go through an idempotent producer with one request in flight (kafkajs #1005);
 * reads and follows seek to explicit offsets (never group commits, kafkajs #139/#1363);
 * ownership is membership of the consumer group `<prefix>.<component>`.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel as LogLevel } from 'kafkajs';
import type { Admin, EachBatchPayload, Producer } from 'kafkajs';
import type {
  AcquireOptions,
  AppendRecord,
  AppendResult,
  EventLog,
  FollowOptions,
  LogRecord,
  OwnershipLease,
  ReadOptions,
  Subscription,
} from '../port';
import { KafkaLease } from './kafka-lease';
import { GROUP_TIMING } from './group-timing';

export interface KafkaEventLogOptions {
  readonly brokers: readonly string[];
  readonly topic?: string;
  readonly partition?: number;
  /** Partitions to create the topic with (one per cluster). */
  readonly partitions?: number;
  /** Consumer groups are named `<groupPrefix>.<component>`. */
  readonly groupPrefix?: string;
  readonly clientId?: string;
  readonly logLevel?: LogLevel;
}

export const DEFAULT_TOPIC = 'shoal.events';


export class KafkaEventLog implements EventLog {
  readonly description: string;
  readonly topic: string;
  readonly partition: number;
  private readonly groupPrefix: string;
  private readonly followers = new Set<Subscription>();
  private readonly leases = new Set<KafkaLease>();
  private closed = false;

  private constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly producer: Producer,
    options: KafkaEventLogOptions,
  ) {
    this.topic = options.topic ?? DEFAULT_TOPIC;
    this.partition = options.partition ?? 0;
    this.groupPrefix = options.groupPrefix ?? this.topic.replace(/\.events$/, '');
    this.description = `kafka ${this.topic}[${this.partition}] @ ${options.brokers.join(',')}`;
  }

  static async open(options: KafkaEventLogOptions): Promise<KafkaEventLog> {
    const kafka = new Kafka({
      clientId: options.clientId ?? 'shoal',
      brokers: [...options.brokers],
      logLevel: options.logLevel ?? LogLevel.NOTHING,
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 3_000 },
    });
    const admin = kafka.admin();
    await admin.connect();
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    try {
      await KafkaEventLog.ensureTopic(admin, options.topic ?? DEFAULT_TOPIC, options.partitions ?? 1);
      await producer.connect();
    } catch (error) {
      await admin.disconnect();
      throw error;
    }
    return new KafkaEventLog(kafka, admin, producer, options);
  }

  /** Creates the topic with infinite retention if it does not exist, and waits for its leader. */
  private static async ensureTopic(admin: Admin, topic: string, partitions: number): Promise<void> {
    const { brokers } = await admin.describeCluster();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: partitions,
          replicationFactor: Math.min(3, brokers.length),
          configEntries: [
            { name: 'retention.ms', value: '-1' },
            { name: 'retention.bytes', value: '-1' },
            { name: 'cleanup.policy', value: 'delete' },
            { name: 'max.message.bytes', value: String(8 * 1024 * 1024) },
          ],
        },
      ],
    });
    // createTopics answers false when it already exists; make sure metadata has it either way.
    await admin.fetchTopicMetadata({ topics: [topic] });
  }

  async append(records: readonly AppendRecord[]): Promise<AppendResult> {
    if (this.closed) throw new Error('the Kafka event log is closed');
    if (records.length === 0) {
      const end = await this.highWaterMark();
      return { first: end, last: end - 1 };
    }
    const [metadata] = await this.producer.send({
      topic: this.topic,
      acks: -1,
      messages: records.map((record) => ({ key: record.key, value: record.value, partition: this.partition })),
    });
    const first = Number(metadata?.baseOffset ?? NaN);
    if (!Number.isSafeInteger(first)) throw new Error(`Kafka did not answer with an offset for ${this.topic}[${this.partition}]`);
    return { first, last: first + records.length - 1 };
  }

  async highWaterMark(): Promise<number> {
    const offsets = await this.admin.fetchTopicOffsets(this.topic);
    const mine = offsets.find((offset) => offset.partition === this.partition);
    return Number(mine?.high ?? 0);
  }

  async read(from: number, options: ReadOptions = {}): Promise<LogRecord[]> {
    const end = options.to ?? (await this.highWaterMark());
    const limit = options.max === undefined ? end : Math.min(end, from + options.max);
    const out: LogRecord[] = [];
    if (from >= limit) return out;
    let done!: () => void;
    let fail!: (error: Error) => void;
    const finished = new Promise<void>((resolve, reject) => {
      done = resolve;
      fail = reject;
    });
    const subscription = this.follow(
      from,
      (batch) => {
        for (const record of batch) if (record.offset < limit) out.push(record);
        if ((batch[batch.length - 1]?.offset ?? -1) >= limit - 1) done();
      },
      { onError: fail },
    );
    try {
      await finished;
    } finally {
      await subscription.stop();
    }
    return out;
  }

  follow(from: number, handler: (batch: readonly LogRecord[]) => Promise<void> | void, options: FollowOptions = {}): Subscription {
    const consumer = this.kafka.consumer({
      groupId: `${this.groupPrefix}.reader.${randomUUID()}`,
      ...GROUP_TIMING,
      maxBytes: 64 * 1024 * 1024,
      maxBytesPerPartition: 32 * 1024 * 1024,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: false,
    });
    let next = Math.max(0, from);
    let stopped = false;
    const started = (async () => {
      await consumer.connect();
      await consumer.subscribe({ topic: this.topic, fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: async ({ batch, heartbeat, isRunning, isStale }: EachBatchPayload) => {
          if (batch.partition !== this.partition) return;
          const records: LogRecord[] = [];
          for (const message of batch.messages) {
            const offset = Number(message.offset);
            if (offset < next) continue;
            records.push({ offset, key: message.key?.toString('utf8') ?? '', value: message.value?.toString('utf8') ?? '' });
          }
          if (records.length > 0 && !stopped && isRunning() && !isStale()) {
            next = records[records.length - 1]!.offset + 1;
            await handler(records);
            await heartbeat();
          }
          if (!stopped && next >= Number(batch.highWatermark)) options.onCaughtUp?.();
        },
      });
      consumer.seek({ topic: this.topic, partition: this.partition, offset: String(next) });
    })().catch((error: Error) => options.onError?.(error));
    const subscription: Subscription = {
      stop: async () => {
        if (stopped) return;
        stopped = true;
        this.followers.delete(subscription);
        await started;
        await consumer.disconnect().catch(() => undefined);
      },
    };
    this.followers.add(subscription);
    return subscription;
  }

  async acquire(component: string, instance: string, options: AcquireOptions = {}): Promise<OwnershipLease> {
    if (this.closed) throw new Error('the Kafka event log is closed');
    const lease = await KafkaLease.acquire(this.kafka, {
      groupId: `${this.groupPrefix}.${component}`,
      topic: this.topic,
      partition: this.partition,
      component,
      instance,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    });
    this.leases.add(lease);
    void lease.lost.then(() => this.leases.delete(lease));
    return lease;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.followers].map((follower) => follower.stop()));
    await Promise.all([...this.leases].map((lease) => lease.release()));
    await this.producer.disconnect().catch(() => undefined);
    await this.admin.disconnect().catch(() => undefined);
  }
}
