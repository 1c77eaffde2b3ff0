/**
 * The envelope every record on the log carries. The Kafka offset (the record's
 * position) orders events; nothing in here does.
 */

/** A component of the control plane, or an agent, or a person through the API. */
export type Component =
  | 'api'
  | 'allocator'
  | 'orchestrator'
  | 'scheduler'
  | 'dispatcher'
  | 'reaper'
  | 'agent'
  | 'cli';

export const COMPONENTS: readonly Component[] = [
  'api',
  'allocator',
  'orchestrator',
  'scheduler',
  'dispatcher',
  'reaper',
  'agent',
  'cli',
];

/** Who wrote a record: which component, which running instance of it, under which ownership term. */
export interface Writer {
  readonly component: Component;
  /** Unique per running process (host, pid and a random part); seq counts within it. */
  readonly instance: string;
  /** The ownership term the writer acts under; 0 for writers that never take ownership. */
  readonly term: number;
}

/**
 * Preconditions a writer attaches to a proposal. evolve checks every one of them
 * against the state at the record's position; one failure rejects the record.
 */
export interface Expectations {
  /** service id → the service version the writer decided from */
  readonly serviceVersions?: Readonly<Record<string, number>>;
  /** node id → the node version the writer decided from */
  readonly nodeVersions?: Readonly<Record<string, number>>;
  /** the cluster spec version the writer decided from */
  readonly clusterVersion?: number;
  /** config id → the config version the writer decided from */
  readonly configVersions?: Readonly<Record<string, number>>;
  readonly secretVersions?: Readonly<Record<string, number>>;
}

export interface Envelope<TType extends string = string, TData = unknown> {
  /** Unique id of this record (made by the writer). */
  readonly id: string;
  readonly type: TType;
  /** Schema version of `data` for this type. */
  readonly v: number;
  readonly cluster: string;
  /** The writer's clock, ISO 8601. evolve uses it as data, never as "now". */
  readonly at: string;
  readonly by: Writer;
  /** The writer instance's own counter, strictly increasing: (by, seq) identifies a record. */
  readonly seq: number;
  /** The id of the record this one reacts to, if any. */
  readonly causation?: string;
  /** The id shared by every record of one intent (an API call, a reconcile pass). */
  readonly correlation?: string;
  readonly expect?: Expectations;
  readonly data: TData;
}

/** A record as read back from the log: its position and the raw bytes' decoding. */
export interface Positioned<T> {
  /** The record's offset in its partition. */
  readonly offset: number;
  readonly record: T;
}

export const writerKey = (by: Writer): string => `${by.component}/${by.instance}`;
