/**
 * Docker's event stream, from the log: every record is replayed from offset 0 into a
 * projection of its own (so a remove still knows the name of what it removed), turned
 * into Docker's event messages, filtered by time and by `filters`, and written to the
 * sink. Durable: `--since` reaches back to the cluster's first record, not to a buffer.
 *
 * - no since, no until: only what is appended from now on, until the client goes;
 * - since and/or until: the past that matches, then (unless until has passed) the live
 *   tail, until `until`.
 */
import { decode } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import type { EventLog, LogRecord, Subscription } from '@shoal/eventlog';
import { captureBefore, dockerEventsOf, encodeDockerEvent } from './docker-event';
import { matchesEventFilters } from './event-filters';
import type { EventFilters } from './event-filters';

/** Most messages in one write to the sink (each a line of about 300 bytes). */
const WRITE_MESSAGES = 1_000;

export interface EventStreamOptions {
  /** Nanoseconds since the epoch. */
  readonly since?: bigint;
  readonly until?: bigint;
  readonly filters: EventFilters;
  /** The clock, in ms (tests pin it). */
  readonly now?: () => number;
}

export interface EventSink {
  /** Takes one or more messages, each a line; resolves when the sink can take more. */
  write(chunk: string): Promise<void>;
  end(): void;
}

export interface EventStream {
  /** Resolves once the stream has ended (until reached, stopped, or the log failed). */
  readonly done: Promise<void>;
  stop(): void;
}

export const streamDockerEvents = async (log: EventLog, options: EventStreamOptions, sink: EventSink): Promise<EventStream> => {
  const now = options.now ?? Date.now;
  const start = await log.highWaterMark();
  const wantsPast = options.since !== undefined || options.until !== undefined;
  const untilMs = options.until === undefined ? undefined : Number(options.until / 1_000_000n);
  const onlyPast = untilMs !== undefined && untilMs <= now();
  const projection = new Projection(undefined, 0, { keepRefusals: 0 });

  let finished = false;
  let resolveDone!: () => void;
  const done = new Promise<void>((resolve) => (resolveDone = resolve));
  const following: { subscription?: Subscription } = {};
  let timer: NodeJS.Timeout | undefined;
  /** Whether an until that was ahead at the request has come. */
  let untilPassed = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    if (timer) clearTimeout(timer);
    sink.end();
    // Not awaited: finish may run inside the follower's own handler.
    void Promise.resolve()
      .then(() => following.subscription?.stop())
      .finally(resolveDone);
  };

  /** Ends the stream once until has passed and the past (the log as it was at the request) is delivered. */
  const finishOnceDone = (): void => {
    if ((onlyPast || untilPassed) && projection.position >= start) finish();
  };

  /** Applies `record` and adds its messages that match to `out`, one line each. */
  const deliver = (record: LogRecord, out: string[]): void => {
    const decoded = decode(record.value);
    if (!decoded.ok) {
      projection.applyDecoded(record.offset, decoded);
      return;
    }
    const before = captureBefore(projection.state, decoded.event);
    const verdict = projection.applyDecoded(record.offset, decoded);
    if (!verdict) return; // halted on a record a newer build wrote: nothing past it is known
    if (record.offset < start && !wantsPast) return;
    for (const message of dockerEventsOf(decoded.event, verdict, before, projection.state)) {
      if (options.since !== undefined && message.timeNano < options.since) continue;
      if (options.until !== undefined && message.timeNano > options.until) continue;
      if (!matchesEventFilters(options.filters, message)) continue;
      out.push(encodeDockerEvent(message));
    }
  };

  // The messages of a fetched batch go out together, a write per WRITE_MESSAGES of them: a
  // write (and a wait for the client) per message was most of the cost of a replay of the
  // past, a batch of ten task updates being ten messages.
  following.subscription = log.follow(
    0,
    async (batch) => {
      const out: string[] = [];
      for (const record of batch) {
        if (finished) return;
        if (record.offset < projection.position) continue;
        deliver(record, out);
        if (out.length >= WRITE_MESSAGES) {
          await sink.write(out.join(''));
          out.length = 0;
        }
      }
      if (out.length > 0 && !finished) await sink.write(out.join(''));
    },
    {
      onCaughtUp: () => finishOnceDone(),
      onError: () => finish(),
    },
  );
  // An until ahead ends the live tail, not the past: what was on the log at the request is all delivered first, however long reading it takes.
  if (untilMs !== undefined && !onlyPast) {
    timer = setTimeout(() => {
      untilPassed = true;
      finishOnceDone();
    }, untilMs - now());
  }
  return { done, stop: finish };
};
