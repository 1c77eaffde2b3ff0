/**
 * The event log port: one ordered partition of records. Adapters: Kafka (real) and
 * embedded (in-process, file-backed). Records are opaque strings here; decoding,
 * poison handling and verdicts belong to the layers above.
 */

/** Injection token for the EventLog port. */
export const EVENT_LOG = Symbol('EVENT_LOG');

export interface AppendRecord {
  /** Kafka record key: the cluster id. */
  readonly key: string;
  /** The serialized envelope. */
  readonly value: string;
  /**
   * Kafka record headers (the embedded log keeps them too): only the W3C trace context
   * (`traceparent`, `tracestate`) of a record with a traced cause. Never part of the
   * event: evolve and the state hash see the value alone. Absent on most records.
   */
  readonly headers?: RecordHeaders;
}

/** A record's headers, by name; a record written without any has none (not an empty object). */
export type RecordHeaders = Readonly<Record<string, string>>;

export interface LogRecord {
  /** Position in the partition; starts at 0, consecutive in the embedded log, increasing in Kafka. */
  readonly offset: number;
  readonly key: string;
  readonly value: string;
  /** The headers it was appended with, if any (see AppendRecord.headers). */
  readonly headers?: RecordHeaders;
}

export interface AppendResult {
  /** Offset of the first record of the batch. */
  readonly first: number;
  /** Offset of the last record of the batch. */
  readonly last: number;
}

export interface ReadOptions {
  /** Stop before this offset (exclusive). Defaults to, and is never beyond, the high-water mark at call time. */
  readonly to?: number;
  /** At most this many records. */
  readonly max?: number;
}

export interface FollowOptions {
  /**
   * Called with no records each time the follower has delivered everything up to the
   * high-water mark; at least once after it starts, even on an empty log.
   */
  readonly onCaughtUp?: () => void;
  /** Called if the follower fails for good, its handler's error included (it then delivers nothing more). */
  readonly onError?: (error: Error) => void;
}

export interface Subscription {
  /** Stops delivery; resolves once no handler is running any more (so never await it inside the handler). */
  stop(): Promise<void>;
}

/** A lease on the partition for one component: held until released or lost. */
export interface OwnershipLease {
  readonly component: string;
  readonly instance: string;
  readonly partition: number;
  /**
   * The adapter's own generation of the grant (Kafka: the consumer group generation);
   * informative only. Fencing is by the term appended to the log (OwnershipTaken),
   * which the runtime chooses from its view.
   */
  readonly generation: number;
  /** Resolves, with a reason, when the lease is lost (rebalance, session expiry, close). */
  readonly lost: Promise<string>;
  isHeld(): boolean;
  release(): Promise<void>;
  /**
   * The instances in line for this lease, as last seen: its holder and the standbys
   * waiting for it, this one included, sorted. An instance that is gone may stay listed
   * until the adapter notices (Kafka: its group session expires).
   */
  members(): readonly string[];
  /** Calls `listener` with the members whenever they change, until the returned function is called. */
  onMembers(listener: (members: readonly string[]) => void): () => void;
}

export interface AcquireOptions {
  /** Give up (reject) after this long without being granted the partition. */
  readonly timeoutMs?: number;
}

export interface EventLog {
  /** A human-readable name: "kafka shoal.events[0] @ 127.0.0.1:9092" or "embedded /path". */
  readonly description: string;
  /**
   * Appends a batch in order; the records get consecutive positions in one write, all or
   * none. An empty batch writes nothing and answers { first: hwm, last: hwm - 1 }.
   */
  append(records: readonly AppendRecord[]): Promise<AppendResult>;
  /** Reads records from `from` (inclusive) up to options.to or the high-water mark. */
  read(from: number, options?: ReadOptions): Promise<LogRecord[]>;
  /** Delivers every record from `from` on, in order, in batches, until stopped; each handler call is awaited before the next. */
  follow(
    from: number,
    handler: (batch: readonly LogRecord[]) => Promise<void> | void,
    options?: FollowOptions,
  ): Subscription;
  /** The offset the next appended record will get. */
  highWaterMark(): Promise<number>;
  /** Waits until this instance owns the partition for `component` (one owner per component). */
  acquire(component: string, instance: string, options?: AcquireOptions): Promise<OwnershipLease>;
  /** Releases leases, stops followers, flushes and closes connections. */
  close(): Promise<void>;
}
