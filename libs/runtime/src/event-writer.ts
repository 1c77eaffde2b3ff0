/**
 * The writer side of a component: it stamps proposals with the envelope (id, clock,
 * writer, term, seq), appends them to the log as one batch, and — for read-your-writes —
 * waits until its view has applied them and returns evolve's verdicts.
 */
import { randomUUID } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { EVENT_TYPES, VERSION_LEVELS, encode, versionGateRefusal } from '@shoal/contracts';
import type { Component, EventDataMap, EventOf, EventType, Expectations, ShoalEvent, VersionLevels } from '@shoal/contracts';
import type { AppendRecord, EventLog } from '@shoal/eventlog';
import type { Verdict } from '@shoal/domain';
import type { LiveView } from './live-view';
import { activeTraceHeaders, tracingOn } from './tracing';

export interface ProposeOptions {
  readonly expect?: Expectations;
  readonly causation?: string;
  readonly correlation?: string;
}

export interface Appended {
  readonly events: readonly ShoalEvent[];
  readonly first: number;
  readonly last: number;
}

/**
 * The most one append carries, in bytes of encoded records. Kafka refuses a produce whose
 * record batch is over the topic's max.message.bytes (16 MiB for Shoal's topic), so a larger
 * proposal goes out as several appends, each record whole.
 */
export const MAX_APPEND_BYTES = 4 * 1024 * 1024;

/**
 * The records for `events`, each keyed by `keyOf`. Where a span is active (an API request,
 * a component's traced tick) each carries its trace context in its headers, one object
 * shared by the batch; elsewhere none has headers.
 */
export const appendRecords = (events: readonly ShoalEvent[], keyOf: (event: ShoalEvent) => string): AppendRecord[] => {
  const headers = activeTraceHeaders();
  return events.map((event) => (headers ? { key: keyOf(event), value: encode(event), headers } : { key: keyOf(event), value: encode(event) }));
};

/** Tells the active span (if any) what was appended: the record types and where they are on the log. */
export const noteAppended = (events: readonly ShoalEvent[], first: number, last: number): void => {
  if (!tracingOn()) return;
  const span = trace.getActiveSpan();
  if (!span?.isRecording()) return;
  span.setAttributes({ 'shoal.record.types': [...new Set(events.map((event) => event.type))], 'shoal.log.offset.first': first, 'shoal.log.offset.last': last });
};

export class EventWriter {
  private seq = 0;
  private termValue: number;
  private readonly now: () => Date;
  private readonly maxAppendBytes: number;
  private readonly versionLevels: VersionLevels;
  private readonly clusterOf: () => string;

  constructor(
    private readonly log: EventLog,
    /** The cluster its records are for (their key), or where to read it each time: a log's cluster may be created after the writer. */
    cluster: string | (() => string),
    readonly component: Component,
    readonly instance: string,
    options: {
      readonly term?: number;
      readonly now?: () => Date;
      readonly maxAppendBytes?: number;
      /** The level each record version needs (default the build's VERSION_LEVELS). */
      readonly versionLevels?: VersionLevels;
    } = {},
  ) {
    this.clusterOf = typeof cluster === 'string' ? () => cluster : cluster;
    this.termValue = options.term ?? 0;
    this.now = options.now ?? (() => new Date());
    this.maxAppendBytes = options.maxAppendBytes ?? MAX_APPEND_BYTES;
    this.versionLevels = options.versionLevels ?? VERSION_LEVELS;
  }

  get term(): number {
    return this.termValue;
  }

  get cluster(): string {
    return this.clusterOf();
  }

  /** Acts under a new term from now on (after OwnershipTaken). */
  useTerm(term: number): void {
    this.termValue = term;
  }

  /** Stamps an event; nothing is written until `append`. */
  propose<K extends EventType>(type: K, data: EventDataMap[K], options: ProposeOptions = {}): EventOf<K> {
    const event = {
      id: randomUUID(),
      type,
      v: EVENT_TYPES[type].v,
      cluster: this.cluster,
      at: this.now().toISOString(),
      by: { component: this.component, instance: this.instance, term: this.termValue },
      seq: ++this.seq,
      ...(options.causation ? { causation: options.causation } : {}),
      ...(options.correlation ? { correlation: options.correlation } : {}),
      ...(options.expect ? { expect: options.expect } : {}),
      data,
    };
    return event as unknown as EventOf<K>;
  }

  /** Appends the events as one batch, in order (one write: the caller keeps it under the log's limit). */
  async append(events: readonly ShoalEvent[]): Promise<Appended> {
    const { first, last } = await this.log.append(appendRecords(events, () => this.cluster));
    noteAppended(events, first, last);
    return { events, first, last };
  }

  /**
   * Appends in order — as one batch, or as consecutive batches of at most maxAppendBytes
   * when the events are larger than that — and waits for the view to rule on every event:
   * the verdicts, in order. If an append fails, the batches before it stay on the log.
   */
  async appendAndWait(view: LiveView, events: readonly ShoalEvent[]): Promise<Verdict[]> {
    // A version the log's level does not allow yet may have readers that cannot read it.
    const logLevel = view.state.cluster?.logLevel ?? 1;
    for (const event of events) {
      // A new cluster starts at the level its record names, and that record is written at it.
      const level = event.type === 'ClusterInitialized' && !view.state.cluster ? (event.data.logLevel ?? 1) : logLevel;
      const refusal = versionGateRefusal(event.type, event.v, level, this.versionLevels);
      if (refusal) throw new Error(refusal);
    }
    const verdicts: Verdict[] = [];
    for (const batch of this.batches(events)) {
      const { first, last } = await this.append(batch);
      // Each verdict is asked for as this writer's own event's: a record of another's at the offset the log gave is an error, not its verdict.
      for (let offset = first; offset <= last; offset++) verdicts.push(await view.verdictAt(offset, batch[offset - first]!.id));
    }
    return verdicts;
  }

  /** The events cut into batches of at most maxAppendBytes encoded (a larger event goes alone). */
  private batches(events: readonly ShoalEvent[]): (readonly ShoalEvent[])[] {
    if (events.length <= 1) return [events];
    const batches: ShoalEvent[][] = [];
    let batch: ShoalEvent[] = [];
    let bytes = 0;
    for (const event of events) {
      const size = Buffer.byteLength(encode(event));
      if (batch.length > 0 && bytes + size > this.maxAppendBytes) {
        batches.push(batch);
        batch = [];
        bytes = 0;
      }
      batch.push(event);
      bytes += size;
    }
    if (batch.length > 0) batches.push(batch);
    return batches;
  }
}
