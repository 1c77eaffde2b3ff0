/**
 * The live console's source: the cluster as the API's view holds it, pushed to every
 * listener when the log moves. One follower of the log for all listeners, started with the
 * first and stopped with the last; each batch it delivers is awaited in the view, then
 * one view is pushed for every batch that arrives within COALESCE_MS (a burst of records
 * becomes one push, not one per record). Nothing is polled.
 */
import { Inject, Injectable } from '@nestjs/common';
import type { OnModuleDestroy } from '@nestjs/common';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog, LogRecord, Subscription } from '@shoal/eventlog';
import type { LiveView } from '@shoal/runtime';
import { API_VIEW } from '../api.tokens';
import { consoleView } from './console-view';
import type { ConsoleView } from './console-wire';
import { wallTimeBefore, wallTimeOf } from './wall-time';

export const COALESCE_MS = 50;
/** How long after its follower of the log gave up the feed follows again. */
const REFOLLOW_MS = 1_000;

export type ConsoleListener = (view: ConsoleView) => void;

@Injectable()
export class ConsoleFeed implements OnModuleDestroy {
  private readonly listeners = new Set<ConsoleListener>();
  private subscription?: Subscription;
  private pending?: NodeJS.Timeout;
  private refollow?: NodeJS.Timeout;
  /** The writer's clock on the last record the view applied, once known. */
  private lastAt?: { readonly position: number; readonly at: string | undefined };

  constructor(
    @Inject(EVENT_LOG) private readonly log: EventLog,
    @Inject(API_VIEW) private readonly view: LiveView,
  ) {}

  /** The cluster now, as the API's view holds it. */
  async current(): Promise<ConsoleView> {
    const position = this.view.position;
    if (this.lastAt?.position !== position) {
      // The log away: the view still shows, without the time of its last record.
      const at = await wallTimeBefore(this.log, position).catch(() => undefined);
      this.lastAt = { position, at };
    }
    return this.snapshot();
  }

  /** Calls `listener` with the view now, then each time the log moves, until the returned function is called. */
  subscribe(listener: ConsoleListener): () => void {
    this.listeners.add(listener);
    if (!this.subscription) this.follow();
    void this.current().then((view) => {
      if (this.listeners.has(listener)) listener(view);
    });
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  get listening(): number {
    return this.listeners.size;
  }

  onModuleDestroy(): void {
    this.listeners.clear();
    this.stop();
  }

  private follow(): void {
    const subscription = this.log.follow(this.view.position, (batch) => this.onBatch(batch), {
      // The log away longer than the follower waits: follow again, from where the view is, while anyone listens.
      onError: () => {
        if (this.subscription !== subscription) return;
        this.subscription = undefined;
        this.refollow = setTimeout(() => {
          this.refollow = undefined;
          if (this.listeners.size > 0 && !this.subscription) this.follow();
        }, REFOLLOW_MS);
      },
    });
    this.subscription = subscription;
  }

  /** Records on the log: once the view has them, one push for this batch and any that follow within COALESCE_MS. */
  private async onBatch(batch: readonly LogRecord[]): Promise<void> {
    const last = batch[batch.length - 1];
    if (!last) return;
    await this.view.waitFor(last.offset + 1);
    for (let i = batch.length - 1; i >= 0; i--) {
      const at = wallTimeOf(batch[i]!.value);
      if (at !== undefined) {
        this.lastAt = { position: this.view.position, at };
        break;
      }
    }
    this.pending ??= setTimeout(() => this.push(), COALESCE_MS);
  }

  private push(): void {
    this.pending = undefined;
    if (this.listeners.size === 0) return;
    void this.current().then((view) => {
      for (const listener of this.listeners) listener(view);
    });
  }

  private snapshot(): ConsoleView {
    const position = this.view.position;
    const at = this.lastAt?.position === position ? this.lastAt.at : undefined;
    return consoleView(this.view.state, { position, highWaterMark: position, ...(at !== undefined ? { at } : {}) });
  }

  private stop(): void {
    clearTimeout(this.pending);
    clearTimeout(this.refollow);
    this.pending = undefined;
    this.refollow = undefined;
    const subscription = this.subscription;
    this.subscription = undefined;
    void subscription?.stop();
  }
}
