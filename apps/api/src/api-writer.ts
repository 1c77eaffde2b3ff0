/**
 * The API's EventWriter. Many requests write at once; a writer's records must reach the
 * log in the order of their seq (evolve drops a seq lower than one already applied as a
 * duplicate), so appends go out one after the other, in the order they were called.
 * Callers propose and append in the same turn: `appendAndWait(view, [propose(…)])`.
 * Each record's key is its cluster.
 *
 * Its proposals carry the cluster the log names once it names one (the API may start on
 * a log that has none yet, and `docker swarm init` or another process create it).
 */
import type { Component, EventDataMap, EventOf, EventType, ShoalEvent } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { EventWriter, appendRecords, noteAppended } from '@shoal/runtime';
import type { Appended, LiveView, ProposeOptions } from '@shoal/runtime';

export class ApiEventWriter extends EventWriter {
  private queue: Promise<unknown> = Promise.resolve();

  private readonly view?: LiveView;

  constructor(
    private readonly target: EventLog,
    /** The cluster to write for while the log names none. */
    cluster: string,
    component: Component,
    instance: string,
    options: { readonly term?: number; readonly now?: () => Date; readonly view?: LiveView } = {},
  ) {
    super(target, cluster, component, instance, options);
    this.view = options.view;
  }

  /** The cluster proposals are for: the log's, or the one `docker swarm init` will create. */
  get currentCluster(): string {
    return this.view?.state.cluster?.id ?? this.cluster;
  }

  override propose<K extends EventType>(type: K, data: EventDataMap[K], options: ProposeOptions = {}): EventOf<K> {
    const event = super.propose(type, data, options);
    const cluster = this.currentCluster;
    return event.cluster === cluster ? event : ({ ...event, cluster } as EventOf<K>);
  }

  override append(events: readonly ShoalEvent[]): Promise<Appended> {
    // Taken now, in the request's turn: the records carry its span.
    const records = appendRecords(events, (event) => event.cluster);
    const next = this.queue.then(async () => {
      const { first, last } = await this.target.append(records);
      noteAppended(events, first, last);
      return { events, first, last };
    });
    this.queue = next.catch(() => undefined);
    return next;
  }
}
