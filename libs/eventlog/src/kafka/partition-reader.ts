/**
 * Reads one partition by explicit offsets with plain Fetch requests: no consumer group, no
 * join, no committed offsets (kafkajs #139, #1363), so a read or a follower starts at once
 * and stops exactly where it is told.
 *
 * kafkajs exposes no fetch of its own, but it hands every partition assigner the
 * consumer's `Cluster` (a public type), and `Cluster`/`Broker.fetch` are public types too.
 * A consumer that is never connected serves only to make that cluster; each reader has its
 * own, so a long poll never holds up anyone else's requests on the connection.
 *
 * Every attempt has a deadline (its long poll plus STALL_MS): past it the attempt is given
 * up and the reader starts over on a cluster of its own made afresh, new connections and
 * metadata, rather than wait on whatever kafkajs state a broker's restart left behind.
 */
import { AssignerProtocol } from 'kafkajs';
import type { Cluster, Kafka } from 'kafkajs';
import type { LogRecord, RecordHeaders } from '../port';

export interface FetchOptions {
  /** How long the broker may wait for the first byte when there is nothing to read (long poll). */
  readonly maxWaitMs: number;
}

export interface FetchResult {
  /** Records at or after the requested offset, in order. */
  readonly records: LogRecord[];
  /** The offset after the last record looked at (records and control records alike). */
  readonly next: number;
  /** The partition's high-water mark when the broker answered. */
  readonly highWatermark: number;
}

export interface PartitionReaderOptions {
  /** Upper bound on one fetch response (the broker still returns one whole batch if it is bigger). */
  readonly maxBytes: number;
}

/** What a Fetch v11 response carries for a partition, as kafkajs decodes it. */
interface FetchedMessage {
  readonly offset: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers?: Readonly<Record<string, Buffer | readonly Buffer[] | undefined>>;
  readonly isControlRecord?: boolean;
}
interface FetchedPartition {
  readonly partition: number;
  readonly highWatermark: string;
  readonly messages: readonly FetchedMessage[];
}
interface FetchResponse {
  readonly responses: readonly { readonly topicName: string; readonly partitions: readonly FetchedPartition[] }[];
}

/**
 * A fetched record's headers as text, or undefined when it has none (most records: no
 * object is made for them). A header repeated under one name keeps its first value.
 */
export const headersOf = (fetched: FetchedMessage['headers']): RecordHeaders | undefined => {
  if (!fetched) return undefined;
  let headers: Record<string, string> | undefined;
  for (const name in fetched) {
    const raw = fetched[name];
    const first = Array.isArray(raw) ? (raw as readonly Buffer[])[0] : (raw as Buffer | undefined);
    if (!first) continue;
    (headers ??= {})[name] = first.toString('utf8');
  }
  return headers;
};

const READ_COMMITTED = 1;
const RETRIES = 8;
/** An attempt with no answer this long after its long poll is given up (a fetch answers in milliseconds). */
export const STALL_MS = 10_000;
/** After this many failed attempts in a row, the next starts on fresh connections. */
const FRESH_AFTER = 3;

/** Errors after which fresh metadata (a new leader, a topic just created) may help. */
const STALE_METADATA = new Set([
  'NOT_LEADER_FOR_PARTITION',
  'NOT_LEADER_OR_FOLLOWER',
  'LEADER_NOT_AVAILABLE',
  'UNKNOWN_TOPIC_OR_PARTITION',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
]);

const typeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null && 'type' in error ? String((error as { type: unknown }).type) : undefined;

const isRetriable = (error: unknown): boolean =>
  typeof error === 'object' && error !== null && (error as { retriable?: unknown }).retriable === true;

/** The broker refused the offset: it is past the end of the partition (or before its start). */
export const isOffsetOutOfRange = (error: unknown): boolean => typeOf(error) === 'OFFSET_OUT_OF_RANGE';

/** An attempt that had no answer by its deadline. */
export class FetchStalledError extends Error {
  readonly type = 'FETCH_STALLED';
  readonly retriable = true;
  constructor(offset: number, ms: number) {
    super(`a fetch from offset ${offset} had no answer in ${ms} ms`);
    this.name = 'FetchStalledError';
  }
}

/** `work`, or a FetchStalledError once `ms` have passed without it settling (it is left to settle unheard). */
const withinDeadline = <T>(work: Promise<T>, ms: number, offset: number): Promise<T> => {
  work.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new FetchStalledError(offset, ms)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Makes a kafkajs `Cluster` of its own, by way of an assigner of a consumer that never connects. */
const clusterOf = (kafka: Kafka): Cluster => {
  let captured: Cluster | undefined;
  kafka.consumer({
    groupId: 'shoal.unused-reader',
    allowAutoTopicCreation: false,
    partitionAssigners: [
      ({ cluster }) => {
        captured = cluster;
        return {
          name: 'ShoalReaderUnused',
          version: 1,
          assign: async () => [],
          protocol: ({ topics }) => ({ name: 'ShoalReaderUnused', metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }) }),
        };
      },
    ],
  });
  if (!captured) throw new Error('kafkajs did not hand its cluster to the partition assigner (is kafkajs still 2.2.x?)');
  return captured;
};

export class PartitionReader {
  private cluster: Cluster;
  private connecting?: Promise<void>;
  /** Attempts that failed in a row, across fetches. */
  private failures = 0;
  private freshClusters = 0;

  constructor(
    private readonly kafka: Kafka,
    private readonly topic: string,
    private readonly partition: number,
    private readonly options: PartitionReaderOptions,
  ) {
    this.cluster = clusterOf(kafka);
  }

  /** How many times the reader started over on fresh connections. */
  get restarts(): number {
    return this.freshClusters;
  }

  /** Fetches what the partition holds from `offset` on (possibly nothing), with retries on transient errors. */
  async fetch(offset: number, options: FetchOptions): Promise<FetchResult> {
    for (let attempt = 0; ; attempt++) {
      try {
        const attempted = (async () => {
          await this.connect();
          return this.fetchOnce(offset, options);
        })();
        const result = await withinDeadline(attempted, options.maxWaitMs + STALL_MS, offset);
        this.failures = 0;
        return result;
      } catch (error) {
        this.failures++;
        const stalled = error instanceof FetchStalledError;
        if (stalled || this.failures >= FRESH_AFTER) this.startAfresh();
        if (attempt >= RETRIES || !(isRetriable(error) || STALE_METADATA.has(typeOf(error) ?? ''))) throw error;
        await sleep(Math.min(2_000, 100 * 2 ** attempt));
        // Fresh metadata after any failure: a leader that stopped answering (killed, cut off)
        // is no error about metadata, yet its partition has a new leader the old metadata does
        // not name (kafkajs would refresh it only at metadataMaxAge, 5 minutes).
        if (!stalled) await withinDeadline(this.cluster.refreshMetadata(), STALL_MS, offset).catch(() => undefined);
      }
    }
  }

  async disconnect(): Promise<void> {
    const connecting = this.connecting;
    this.connecting = undefined;
    if (connecting) await withinDeadline(connecting, STALL_MS, -1).catch(() => undefined);
    await withinDeadline(this.cluster.disconnect(), STALL_MS, -1).catch(() => undefined);
  }

  /** Drops this reader's cluster (left to disconnect on its own) for a new one: new connections, new metadata. */
  private startAfresh(): void {
    const old = this.cluster;
    this.cluster = clusterOf(this.kafka);
    this.connecting = undefined;
    this.failures = 0;
    this.freshClusters++;
    void old.disconnect().catch(() => undefined);
  }

  private connect(): Promise<void> {
    this.connecting ??= (async () => {
      await this.cluster.connect();
      await this.cluster.addTargetTopic(this.topic);
    })().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  private async fetchOnce(offset: number, options: FetchOptions): Promise<FetchResult> {
    const leaders = this.cluster.findLeaderForPartitions(this.topic, [this.partition]);
    const nodeId = Object.keys(leaders).find((id) => leaders[id]?.includes(this.partition));
    if (nodeId === undefined) {
      throw Object.assign(new Error(`no leader known for ${this.topic}[${this.partition}]`), { type: 'LEADER_NOT_AVAILABLE' });
    }
    const broker = await this.cluster.findBroker({ nodeId });
    const response = (await broker.fetch({
      replicaId: -1,
      isolationLevel: READ_COMMITTED,
      maxWaitTime: options.maxWaitMs,
      minBytes: 1,
      maxBytes: this.options.maxBytes,
      topics: [{ topic: this.topic, partitions: [{ partition: this.partition, fetchOffset: String(offset), maxBytes: this.options.maxBytes }] }],
    })) as FetchResponse;
    const data = response.responses
      .find((response) => response.topicName === this.topic)
      ?.partitions.find((partition) => partition.partition === this.partition);
    if (!data) throw Object.assign(new Error(`the broker answered without ${this.topic}[${this.partition}]`), { type: 'LEADER_NOT_AVAILABLE' });
    const records: LogRecord[] = [];
    let next = offset;
    for (const message of data.messages) {
      const at = Number(message.offset);
      // A fetch starts at the batch holding `offset`, so it may begin earlier.
      if (at < offset) continue;
      next = at + 1;
      if (message.isControlRecord) continue;
      const headers = headersOf(message.headers);
      const key = message.key?.toString('utf8') ?? '';
      const value = message.value?.toString('utf8') ?? '';
      records.push(headers ? { offset: at, key, value, headers } : { offset: at, key, value });
    }
    return { records, next, highWatermark: Number(data.highWatermark) };
  }
}
