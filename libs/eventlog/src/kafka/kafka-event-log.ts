/**
 * The event log on Kafka: one (topic, partition) of a topic with infinite retention.
 * - append: one produce request per batch, through an idempotent producer with one request
 *   in flight (kafkajs #1005); the batch's offsets come from the broker's base offset.
 * - read / follow: plain fetches from explicit offsets (partition-reader.ts), never
 *   consumer-group commits (kafkajs #139, #1363).
 * - acquire: membership of the consumer group `<groupPrefix>.<component>` (kafka-lease.ts), on a
 *   thread of its own (lease-thread.ts), so that a busy main thread does not cost the lease.
 * - partitionLog: the log of another partition of the topic (another cluster's), on the same
 *   client: a process that serves many clusters keeps one connection, one producer and one
 *   leases' thread for all of them.
 */
import { Kafka, Partitioners } from 'kafkajs';
import type { Admin, logLevel as LogLevel, Producer } from 'kafkajs';
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
import { LogUnavailableError } from '../log-unavailable';
import type { WrittenWhenUnavailable } from '../log-unavailable';
import { ensureTopic } from './ensure-topic';
import { kafkajsConnection } from './connection-settings';
import type { KafkaConnectionSettings } from './connection-settings';
import { checkTopics } from './topic-check';
import { requiredDurability } from './topic-durability';
import type { DurabilitySettings, ProducerFacts } from './topic-durability';
import { KafkaFollower } from './kafka-follower';
import { LeaseHost } from './lease-thread';
import type { LeaseThread } from './lease-thread';
import type { LeaseKafkaConfig } from './lease-thread';
import { isBrokerUnreachable } from './kafka-unavailable';
import { DEFAULT_KAFKA_LOG_LEVEL, quietLogCreator } from './kafka-logger';
import { isOffsetOutOfRange, PartitionReader } from './partition-reader';
import type { FetchResult } from './partition-reader';

export interface KafkaEventLogOptions {
  /** Bootstrap brokers, `host:port`. */
  readonly brokers: readonly string[];
  /** Default `shoal.events`. */
  readonly topic?: string;
  /** The partition this log is (one cluster's total order). Default 0. */
  readonly partition?: number;
  /** Partitions to create the topic with if it does not exist. Default 1. */
  readonly partitions?: number;
  /** Lease groups are `<groupPrefix>.<component>`. Default: the topic without `.events` (`shoal`). */
  readonly groupPrefix?: string;
  /**
   * How long a lease's holder may go unheard before a standby is given the partition: the
   * lease group's session timeout (group-timing.ts). Default SHOAL_LEASE_TIMEOUT_MS's, 2 s.
   */
  readonly leaseTimeoutMs?: number;
  /** Default `shoal`. */
  readonly clientId?: string;
  /** kafkajs's log level. Default ERROR. */
  readonly logLevel?: LogLevel;
  /** Upper bound on one fetch response. Default 16 MiB. */
  readonly fetchMaxBytes?: number;
  /** The topic's max.message.bytes when this log creates it: the largest batch one append may write. Default 16 MiB. */
  readonly maxMessageBytes?: number;
  /**
   * The replicas and min.insync.replicas the topics must have (and the events topic is
   * created with); unset: 3 and 2 on more than one broker, 1 and 1 on one. The topics are
   * checked at open, which refuses one that could lose the log (topic-check.ts).
   */
  readonly durability?: DurabilitySettings;
  /** TLS and SASL to the brokers (connection-settings.ts); PLAINTEXT without. */
  readonly connection?: KafkaConnectionSettings;
}

export const DEFAULT_TOPIC = 'shoal.events';

/** How every append is written: acknowledged by all in-sync replicas, once however often it is retried. */
export const PRODUCER_DURABILITY: ProducerFacts = { acks: -1, idempotent: true };
const MIB = 1024 * 1024;

const groupPrefixOf = (options: KafkaEventLogOptions): string => options.groupPrefix ?? (options.topic ?? DEFAULT_TOPIC).replace(/\.events$/, '');

/** What the logs of one client share (the partitions of one topic): the client, its admin and producer, the leases' host, and the logs opened on them. */
interface SharedClient {
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly producer: Producer;
  /** The thread and client every lease of these logs runs on. */
  readonly leaseHost: LeaseHost;
  /** The logs on this client, by partition (the one `open` made among them). */
  readonly logs: Map<number, KafkaEventLog>;
}

export class KafkaEventLog implements EventLog {
  readonly description: string;
  readonly topic: string;
  readonly partition: number;
  readonly groupPrefix: string;
  /** What the log runs with (acks, idempotence, replicas, min.insync.replicas): the start-up check's line. */
  readonly durability: string;
  /** What it was opened with: the stores beside the log (data keys) reach the same brokers the same way. */
  readonly openedWith: KafkaEventLogOptions;
  private readonly reader: PartitionReader;
  private readonly followers = new Set<KafkaFollower>();
  private readonly leases = new Set<LeaseThread>();
  private readonly fetchMaxBytes: number;
  /** The last fetch of `read`: a fetch answers with up to fetchMaxBytes, often more than the read asked for. */
  private readAhead?: FetchResult;
  private appending: Promise<unknown> = Promise.resolve();
  private closing?: Promise<void>;

  private constructor(
    private readonly shared: SharedClient,
    options: KafkaEventLogOptions,
    durability: string,
    partition: number,
    /** Whether this log closes the shared client (the one `open` made) or only what is its own. */
    private readonly ownsClient: boolean,
  ) {
    this.openedWith = options;
    this.topic = options.topic ?? DEFAULT_TOPIC;
    this.partition = partition;
    this.groupPrefix = groupPrefixOf(options);
    this.fetchMaxBytes = options.fetchMaxBytes ?? 16 * MIB;
    this.durability = durability;
    this.description = `kafka ${this.topic}[${this.partition}] @ ${options.brokers.join(',')} (${durability})`;
    this.reader = this.newReader();
    shared.logs.set(partition, this);
  }

  private get kafka(): Kafka {
    return this.shared.kafka;
  }

  private get admin(): Admin {
    return this.shared.admin;
  }

  private get producer(): Producer {
    return this.shared.producer;
  }

  /**
   * Connects, creates the topic if needed and waits until its partition has a leader; then
   * checks the topics and the producer, and refuses (TopicRefusedError, saying what to
   * change) a setting that could lose the log.
   */
  static async open(options: KafkaEventLogOptions): Promise<KafkaEventLog> {
    if (options.brokers.length === 0) throw new Error('KafkaEventLog needs at least one broker');
    const config: LeaseKafkaConfig = {
      clientId: options.clientId ?? 'shoal',
      brokers: [...options.brokers],
      ...(options.connection ? kafkajsConnection(options.connection) : {}),
      logLevel: options.logLevel ?? DEFAULT_KAFKA_LOG_LEVEL,
      retry: { retries: 8, initialRetryTime: 100, maxRetryTime: 3_000 },
    };
    // kafkajs keeps its SASL mechanism (a function) on the options it is given: it gets a copy
    // of its own, so that `config` stays plain data for the lease's thread to be sent.
    const kafka = new Kafka({ ...config, ...(config.sasl ? { sasl: { ...config.sasl } } : {}), logCreator: quietLogCreator });
    const admin = kafka.admin();
    // Records name their partition, so the partitioner is never asked; naming one keeps kafkajs quiet about its v2 default.
    const producer = kafka.producer({
      idempotent: PRODUCER_DURABILITY.idempotent,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    let durability: string;
    try {
      await admin.connect();
      const topic = options.topic ?? DEFAULT_TOPIC;
      const required = requiredDurability((await admin.describeCluster()).brokers.length, options.durability);
      await ensureTopic(admin, {
        topic,
        partitions: options.partitions ?? 1,
        partition: options.partition ?? 0,
        maxMessageBytes: options.maxMessageBytes ?? 16 * MIB,
        required,
      });
      durability = await checkTopics(admin, { topic, groupPrefix: groupPrefixOf(options), required, producer: PRODUCER_DURABILITY });
      await producer.connect();
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      await admin.disconnect().catch(() => undefined);
      throw error;
    }
    return new KafkaEventLog({ kafka, admin, producer, leaseHost: new LeaseHost(config), logs: new Map() }, options, durability, options.partition ?? 0, true);
  }

  /** The partitions of the topic, in order: one cluster's log each. */
  async partitions(): Promise<number[]> {
    if (this.closing) throw this.closedError();
    const { topics } = await this.admin.fetchTopicMetadata({ topics: [this.topic] }).catch((error: unknown) => {
      throw this.unreachable(error);
    });
    return (topics[0]?.partitions ?? []).map((partition) => partition.partitionId).sort((a, b) => a - b);
  }

  /**
   * The log of `partition` of the same topic, on this log's client (the same one each time
   * it is asked for); closed with the log `open` made, or on its own.
   */
  async partitionLog(partition: number): Promise<KafkaEventLog> {
    if (this.closing) throw this.closedError();
    const open = this.shared.logs.get(partition);
    if (open && !open.closing) return open;
    const partitions = await this.partitions();
    if (!partitions.includes(partition)) throw new Error(`topic ${this.topic} has ${partitions.length} partition(s); there is no partition ${partition}`);
    return this.shared.logs.get(partition) ?? new KafkaEventLog(this.shared, this.openedWith, this.durability, partition, false);
  }

  /** One produce request for the whole batch: Kafka writes it as one record batch, at consecutive offsets. */
  append(records: readonly AppendRecord[]): Promise<AppendResult> {
    if (this.closing) return Promise.reject(this.closedError());
    if (records.length === 0) return this.highWaterMark().then((end) => ({ first: end, last: end - 1 }));
    // One append at a time from this log: the idempotent producer's sequence numbers stay in order.
    const sent = this.appending.then(() => this.send(records));
    this.appending = sent.catch(() => undefined);
    return sent;
  }

  async read(from: number, options: ReadOptions = {}): Promise<LogRecord[]> {
    if (this.closing) throw this.closedError();
    const out: LogRecord[] = [];
    const max = options.max ?? Number.POSITIVE_INFINITY;
    let end = options.to ?? Number.POSITIVE_INFINITY;
    let next = Math.max(0, Math.floor(from));
    let first = true;
    while (next < end && out.length < max) {
      const kept = this.readAhead;
      let fetched: FetchResult;
      if (kept && kept.records.length > 0 && kept.records[0]!.offset <= next && next < kept.next && end <= kept.highWatermark) {
        // What the last read fetched and did not return (a replay in chunks reads on from
        // there), below a `to` that was already below the high-water mark then.
        fetched = { ...kept, records: kept.records.filter((record) => record.offset >= next) };
      } else {
        try {
          fetched = await this.reader.fetch(next, { maxWaitMs: 0 });
        } catch (error) {
          if (isOffsetOutOfRange(error)) break; // `from` is past the end
          throw this.unreachable(error);
        }
        // Without `to`, a read stops at the high-water mark it found at its start.
        if (first) end = Math.min(end, fetched.highWatermark);
        first = false;
        this.readAhead = fetched;
      }
      for (const record of fetched.records) {
        if (record.offset >= end || out.length >= max) break;
        out.push(record);
      }
      if (fetched.next <= next) {
        if (next < end) throw new Error(`${this.description}: no record at offset ${next}, below the high-water mark ${end}`);
        break;
      }
      next = fetched.next;
    }
    return out;
  }

  follow(from: number, handler: (batch: readonly LogRecord[]) => Promise<void> | void, options: FollowOptions = {}): Subscription {
    if (this.closing) throw this.closedError();
    const follower = new KafkaFollower(this.newReader(), from, handler, options, (ended) => this.followers.delete(ended));
    this.followers.add(follower);
    return follower;
  }

  async highWaterMark(): Promise<number> {
    if (this.closing) throw this.closedError();
    const offsets = await this.admin.fetchTopicOffsets(this.topic).catch((error: unknown) => {
      throw this.unreachable(error);
    });
    const mine = offsets.find((offset) => offset.partition === this.partition);
    if (!mine) throw new Error(`${this.description}: the broker reported no offsets for the partition`);
    return Number(mine.high);
  }

  acquire(component: string, instance: string, options: AcquireOptions = {}): Promise<OwnershipLease> {
    if (this.closing) return Promise.reject(this.closedError());
    const lease = this.shared.leaseHost.start({
      groupId: `${this.groupPrefix}.${component}`,
      topic: this.topic,
      partition: this.partition,
      component,
      instance,
      ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      ...(this.openedWith.leaseTimeoutMs === undefined ? {} : { leaseTimeoutMs: this.openedWith.leaseTimeoutMs }),
    });
    this.leases.add(lease);
    void lease.lost.then(() => this.leases.delete(lease));
    return lease.granted;
  }

  /**
   * Stops followers, releases leases (standbys take over at once), disconnects. Safe to call
   * twice. The log `open` made closes every other partition's log on its client, then the client.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.ownsClient) await Promise.all([...this.shared.logs.values()].filter((log) => log !== this).map((log) => log.close()));
      const followers = [...this.followers];
      await Promise.all(followers.map((follower) => follower.stop()));
      await Promise.all(followers.map((follower) => follower.finished));
      await Promise.all([...this.leases].map((lease) => lease.release()));
      if (this.ownsClient) await this.shared.leaseHost.close();
      await this.appending;
      if (this.shared.logs.get(this.partition) === this) this.shared.logs.delete(this.partition);
      const disconnecting = this.ownsClient ? [this.reader.disconnect(), this.producer.disconnect(), this.admin.disconnect()] : [this.reader.disconnect()];
      await Promise.all(disconnecting.map((done) => done.catch(() => undefined)));
    })();
    return this.closing;
  }

  /**
   * A send that fails because the broker is out of reach is a LogUnavailableError whose
   * batch may have been written: kafkajs retries, and reports only the last attempt, so an
   * earlier one may have reached the broker before it timed out or lost its connection.
   */
  /** A broker out of reach as LogUnavailableError (`written`: what the failed call may have written); any other error as it is. */
  private unreachable(error: unknown, written: WrittenWhenUnavailable = 'no'): unknown {
    return isBrokerUnreachable(error) ? new LogUnavailableError(`${this.description}: ${(error as Error).message}`, written) : error;
  }

  private async send(records: readonly AppendRecord[]): Promise<AppendResult> {
    const [metadata] = await this.producer
      .send({
        topic: this.topic,
        acks: PRODUCER_DURABILITY.acks,
        messages: records.map((record) =>
          record.headers ? { key: record.key, value: record.value, partition: this.partition, headers: { ...record.headers } } : { key: record.key, value: record.value, partition: this.partition },
        ),
      })
      .catch((error: unknown) => {
        throw this.unreachable(error, 'unknown');
      });
    const first = Number(metadata?.baseOffset);
    if (metadata?.partition !== this.partition || !Number.isSafeInteger(first)) {
      throw new Error(`${this.description}: the broker did not answer with the batch's offset`);
    }
    return { first, last: first + records.length - 1 };
  }

  private newReader(): PartitionReader {
    return new PartitionReader(this.kafka, this.topic, this.partition, { maxBytes: this.fetchMaxBytes });
  }

  private closedError(): Error {
    return new LogUnavailableError(`${this.description} is closed`, 'no');
  }
}
