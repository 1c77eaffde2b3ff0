/**
 * A follower on Kafka: fetches from an explicit offset, hands each fetched batch to the
 * handler and waits for it before handing over the next, so batches arrive in order with
 * no gap and no repeat. Below the high-water mark the next fetch is under way while the
 * handler works; once caught up it long-polls: the broker answers as soon as a record lands.
 */
import type { FollowOptions, LogRecord, Subscription } from '../port';
import { eventLogSay } from '../log-sink';
import { isOffsetOutOfRange } from './partition-reader';
import type { FetchResult, PartitionReader } from './partition-reader';

/** How long an idle follower's fetch waits at the broker before it asks again. */
const LONG_POLL_MS = 500;
/** A follower that cannot fetch for this long gives up and reports it through onError. */
const GIVE_UP_MS = 120_000;
/** While fetches fail, the follower says so at most this often. */
const SAY_EVERY_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

export class KafkaFollower implements Subscription {
  /** Settles once the follower has let go of its connection, after it stopped or failed. */
  readonly finished: Promise<void>;
  private stopped = false;
  private handling?: Promise<void> | void;

  constructor(
    private readonly reader: PartitionReader,
    from: number,
    private readonly handler: (batch: readonly LogRecord[]) => Promise<void> | void,
    private readonly options: FollowOptions,
    private readonly onEnd: (follower: KafkaFollower) => void,
  ) {
    this.finished = this.run(Math.max(0, Math.floor(from)));
  }

  /** Stops delivery; resolves once the handler is not running (a fetch in flight is dropped). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.resolve(this.handling).catch(() => undefined);
  }

  private async run(from: number): Promise<void> {
    let next = from;
    let caughtUp = false;
    let failingSince: number | undefined;
    let saidAt = 0;
    /** The fetch from `next` on, started while the handler worked on the batch before. */
    let ahead: Promise<FetchResult> | undefined;
    try {
      while (!this.stopped) {
        let fetched: FetchResult;
        try {
          const fetching = ahead ?? this.reader.fetch(next, { maxWaitMs: caughtUp ? LONG_POLL_MS : 0 });
          ahead = undefined;
          fetched = await fetching;
          if (failingSince !== undefined) {
            eventLogSay('info', `a follower of the Kafka log reads again from offset ${next}, after ${Math.round((Date.now() - failingSince) / 1_000)} s of failed fetches`);
          }
          failingSince = undefined;
        } catch (error) {
          if (this.stopped) break;
          if (isOffsetOutOfRange(error)) {
            // Following from beyond the end: nothing to deliver until the log gets there.
            if (!caughtUp) {
              caughtUp = true;
              this.options.onCaughtUp?.();
            }
            await sleep(LONG_POLL_MS);
            continue;
          }
          failingSince ??= Date.now();
          if (Date.now() - failingSince > GIVE_UP_MS) throw error;
          if (Date.now() - saidAt >= SAY_EVERY_MS) {
            saidAt = Date.now();
            const reconnected = this.reader.restarts > 0 ? ` (on fresh connections ${this.reader.restarts} times so far)` : '';
            eventLogSay('warn', `a follower of the Kafka log cannot fetch from offset ${next} (for ${Math.round((Date.now() - failingSince) / 1_000)} s): ${asError(error).message}${reconnected}`);
          }
          await sleep(1_000);
          continue;
        }
        if (this.stopped) break;
        if (fetched.records.length > 0) {
          caughtUp = false;
          if (fetched.next < fetched.highWatermark) {
            // More is there: fetch it while the handler works (a failure shows when awaited).
            ahead = this.reader.fetch(fetched.next, { maxWaitMs: 0 });
            ahead.catch(() => undefined);
          }
          this.handling = this.handler(fetched.records);
          try {
            await this.handling;
          } finally {
            this.handling = undefined;
          }
        }
        const moved = fetched.next > next;
        next = Math.max(next, fetched.next);
        if (!caughtUp && next >= fetched.highWatermark && !this.stopped) {
          caughtUp = true;
          this.options.onCaughtUp?.();
        } else if (!moved && !caughtUp) {
          await sleep(100); // below the high-water mark yet nothing came back: do not spin
        }
      }
    } catch (error) {
      this.stopped = true;
      const failure = asError(error);
      if (this.options.onError) this.options.onError(failure);
      else eventLogSay('error', `a follower of the Kafka log stopped: ${failure.message}`);
    } finally {
      await ahead?.catch(() => undefined);
      await this.reader.disconnect().catch(() => undefined);
      this.onEnd(this);
    }
  }
}
