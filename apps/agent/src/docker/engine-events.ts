/**
 * The engine's event stream for one node's containers (`GET /events`, filtered by the
 * node's label and the actions an executor follows: start, die, oom, health_status),
 * handed to whoever listens for each container. A stream that ends is opened again from
 * the time of the last event it gave (`since`), so no event is lost to a reconnect.
 */
import type { EngineClient } from './engine-client';
import { readJsonLines } from './engine-client';
import { LABELS } from './container-config';

/** One container event, as the executor reads it. */
export interface ContainerEvent {
  /** start, die, oom, health_status: healthy|unhealthy|starting, … */
  readonly action: string;
  readonly containerId: string;
  readonly attributes: Readonly<Record<string, string>>;
}

export type ContainerListener = (event: ContainerEvent) => void;

interface RawEvent {
  Type?: string;
  Action?: string;
  Actor?: { ID?: string; Attributes?: Record<string, string> };
  timeNano?: number;
}

const RECONNECT_MS = 500;

export class EngineEvents {
  private readonly listeners = new Map<string, Set<ContainerListener>>();
  private readonly controller = new AbortController();
  private opened: Promise<void> | undefined;
  /** The last event's time, "seconds.nanoseconds", to reopen the stream from. */
  private since: string | undefined;
  private closed = false;

  constructor(
    private readonly engine: EngineClient,
    private readonly nodeId: string,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** Resolves once the stream is open: events from then on reach the listeners. */
  ready(): Promise<void> {
    this.opened ??= this.open();
    return this.opened;
  }

  /** Listens to one container's events; returns what stops it. */
  listen(containerId: string, listener: ContainerListener): () => void {
    let set = this.listeners.get(containerId);
    if (!set) this.listeners.set(containerId, (set = new Set()));
    set.add(listener);
    return () => {
      set!.delete(listener);
      if (set!.size === 0 && this.listeners.get(containerId) === set) this.listeners.delete(containerId);
    };
  }

  close(): void {
    this.closed = true;
    this.controller.abort();
  }

  private async open(): Promise<void> {
    const filters = JSON.stringify({ type: ['container'], label: [`${LABELS.nodeId}=${this.nodeId}`], event: ['start', 'die', 'oom', 'health_status'] });
    const since = this.since ?? `${Math.floor(Date.now() / 1000) - 1}`;
    const stream = await this.engine.open('GET', '/events', { query: { filters, since }, signal: this.controller.signal });
    void readJsonLines(stream, (object) => this.dispatch(object as RawEvent))
      .catch(() => undefined)
      .then(() => this.reopen());
  }

  private reopen(): void {
    if (this.closed) return;
    this.log(`the engine's event stream ended: opening it again`);
    const retry = (): void => {
      if (this.closed) return;
      this.open().catch((error: unknown) => {
        this.log(`the engine's event stream: ${error instanceof Error ? error.message : String(error)}; trying again`);
        setTimeout(retry, RECONNECT_MS).unref();
      });
    };
    setTimeout(retry, RECONNECT_MS).unref();
  }

  private dispatch(event: RawEvent): void {
    // timeNano is past 2^53, so read to the ms; a ms early, an event may come twice (listeners take it so) but none is missed.
    if (event.timeNano) {
      const ms = Math.floor(event.timeNano / 1e6) - 1;
      this.since = `${Math.floor(ms / 1000)}.${String(ms % 1000).padStart(3, '0')}`;
    }
    const containerId = event.Actor?.ID;
    if (event.Type !== 'container' || !containerId || !event.Action) return;
    const listeners = this.listeners.get(containerId);
    if (!listeners) return;
    const parsed: ContainerEvent = { action: event.Action, containerId, attributes: event.Actor?.Attributes ?? {} };
    for (const listener of [...listeners]) listener(parsed);
  }
}
