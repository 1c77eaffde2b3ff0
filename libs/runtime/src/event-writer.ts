/**
 * The writer side of a component: it stamps proposals with the envelope (id, clock,
 * writer, term, seq), appends them to the log as one batch, and — for read-your-writes —
 * waits until its view has applied them and returns evolve's verdicts.
 */
import { randomUUID } from 'node:crypto';
import { EVENT_TYPES, encode } from '@shoal/contracts';
import type { Component, EventDataMap, EventOf, EventType, Expectations, ShoalEvent } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import type { Verdict } from '@shoal/domain';
import type { LiveView } from './live-view';

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

export class EventWriter {
  private seq = 0;
  private termValue: number;
  private readonly now: () => Date;

  constructor(
    private readonly log: EventLog,
    readonly cluster: string,
    readonly component: Component,
    readonly instance: string,
    options: { readonly term?: number; readonly now?: () => Date } = {},
  ) {
    this.termValue = options.term ?? 0;
    this.now = options.now ?? (() => new Date());
  }

  get term(): number {
    return this.termValue;
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

  /** Appends the events as one batch, in order. */
  async append(events: readonly ShoalEvent[]): Promise<Appended> {
    const { first, last } = await this.log.append(events.map((event) => ({ key: this.cluster, value: encode(event) })));
    return { events, first, last };
  }

  /** Appends and waits for the view to rule on every event: the verdicts, in order. */
  async appendAndWait(view: LiveView, events: readonly ShoalEvent[]): Promise<Verdict[]> {
    const appended = await this.append(events);
    const verdicts: Verdict[] = [];
    for (let offset = appended.first; offset <= appended.last; offset++) verdicts.push(await view.verdictAt(offset));
    return verdicts;
  }
}
