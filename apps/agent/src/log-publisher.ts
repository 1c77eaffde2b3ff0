/**
 * A session's log subscriptions (SwarmKit's agent answers ListenSubscriptions the same
 * way): each new one gets its own PublishLogs call carrying the output of the node's tasks
 * it selects; a following one takes in the tasks the node is given later. A subscription
 * whose id is being published already is taken once; one that says `close` ends its
 * call. A call that fails is dropped; the session ending cancels them all.
 */
import type { LogSelectorMessage, LogSubscriptionMessage } from '@shoal/protocol';
import { LogPublication } from './log-publication';
import type { LogCall, Publisher } from './log-publication';
import type { Timers } from './timers';
import { selects } from './worker';
import type { LoggedTask } from './worker';

/** Where the tasks and their logs are (the worker). */
export interface LogSource {
  logsOf(selector: LogSelectorMessage): LoggedTask[];
  onTaskAdded(listener: (task: LoggedTask) => void): () => void;
}

/** Opens a PublishLogs call; `done` hears how it ended: an error, or null when the dispatcher answered. */
export type OpenLogCall = (done: (error: Error | null) => void) => LogCall;

export interface LogPublisherOptions {
  readonly source: LogSource;
  readonly open: OpenLogCall;
  readonly timers: Timers;
  /** Lines worth telling an operator (a call that failed). */
  readonly log?: (line: string) => void;
}

interface Open {
  readonly publication: LogPublication;
  readonly selector: LogSelectorMessage;
}

const selectorOf = (subscription: LogSubscriptionMessage): LogSelectorMessage => ({
  serviceIds: subscription.selector?.serviceIds ?? [],
  taskIds: subscription.selector?.taskIds ?? [],
});

export class LogPublisher {
  private readonly publications = new Map<string, Open>();

  constructor(private readonly options: LogPublisherOptions) {
    options.source.onTaskAdded((task) => {
      for (const { publication, selector } of this.publications.values()) if (publication.following && selects(selector, task)) publication.include(task);
    });
  }

  /** Subscriptions being published now. */
  get size(): number {
    return this.publications.size;
  }

  /** Takes the subscriptions a session message carried, for the session `publisher`. */
  handle(subscriptions: readonly LogSubscriptionMessage[], publisher: Publisher): void {
    for (const subscription of subscriptions) {
      const open = this.publications.get(subscription.id);
      if (subscription.close) {
        open?.publication.close();
        this.publications.delete(subscription.id);
      } else if (!open) {
        this.publish(subscription, publisher);
      }
    }
  }

  /** Cancels every call (the session is over). */
  cancelAll(): void {
    const open = [...this.publications.values()];
    this.publications.clear();
    for (const { publication } of open) publication.cancel();
  }

  private publish(subscription: LogSubscriptionMessage, publisher: Publisher): void {
    const selector = selectorOf(subscription);
    // The call's answer comes later, never while the call is being opened.
    const call = this.options.open((error) => this.callOver(subscription.id, publication, error));
    const publication = new LogPublication(subscription, publisher, call, this.options.timers);
    this.publications.set(subscription.id, { publication, selector });
    publication.start(this.options.source.logsOf(selector));
    if (publication.over) this.publications.delete(subscription.id);
  }

  /** The dispatcher answered a call, or it failed: unless the publication is over already (closed or cancelled), it is dropped. */
  private callOver(id: string, publication: LogPublication, error: Error | null): void {
    if (publication.over) return;
    if (error) this.options.log?.(`log subscription ${id}: publishing failed (${error.message}); it gets no more lines from this node`);
    publication.stop();
    if (this.publications.get(id)?.publication === publication) this.publications.delete(id);
  }
}
