/**
 * A component's view: a Projection kept up to date from the log. It starts from a
 * snapshot when one is usable, replays to the high-water mark, then follows. Writers wait
 * on it for the verdicts of their own proposals (read-your-writes).
 */
import { Projection } from '@shoal/domain';
import type { ProjectionOptions, Snapshot, Verdict } from '@shoal/domain';
import type { EventLog, LogRecord, Subscription } from '@shoal/eventlog';
import { shoalLogger } from './logger';

export interface LiveViewOptions {
  /** A snapshot to start from; ignored (with a reason in `snapshotRefused`) when it does not check out (its file's digest, or else its hash). */
  readonly snapshot?: Snapshot;
  /** How many refusals the projection remembers. */
  readonly keepRefusals?: number;
  /** Called after every applied batch (a component's tick trigger). */
  readonly onApplied?: (records: readonly LogRecord[]) => void;
  /** Told of every decoded event and its verdict (a component's watch list). */
  readonly onEvent?: ProjectionOptions['onEvent'];
  /** Told once when the view stops on a record a newer build wrote. Default: a line on stderr. */
  readonly onHalted?: (message: string) => void;
}

/** What a halted view says, loudly: where it stopped, on what, and what to do. */
export const haltMessage = (halted: { readonly offset: number; readonly reason: string }): string =>
  `the log at offset ${halted.offset} holds a record this build cannot read (${halted.reason}): this process applies nothing from there on, rather than skip it and disagree with processes that read it; run a build that reads it`;

/**
 * How many verdicts the view remembers, by offset: a ring indexed by offset, so keeping
 * them costs the same per record however long the log (a Map trimmed from its head does
 * not: each trim walks past the holes its earlier deletes left).
 */
const RECENT_VERDICTS = 16_384;
/**
 * The work the view applies before it lets the event loop run, in characters of the
 * records' values: a fetched batch can hold hundreds of thousands of records, and a process
 * must keep serving (heartbeats, its lease) while it applies them. A record costs about as
 * much as its value is long (decoded, then evolved item by item: a TasksCreated of 1,000
 * tasks is ~130,000 characters and milliseconds to apply, a heartbeat ~250 and
 * microseconds), plus RECORD_COST whatever its size. A chunk of 200,000 is ~5-10 ms of
 * TasksCreated and TasksAllocated in the scheduler's view on two cores, ~20 ms of the
 * records that cost most a character (TasksAssigned, ~80 ns).
 */
const APPLY_BUDGET = 200_000;
/** What a record costs beyond its value's length: the verdict kept, the waiters told, the core told. */
const RECORD_COST = 500;

/**
 * Where the chunk of `batch` that begins at `start` ends: after the record that spends the
 * budget, or at the batch's end. A chunk holds at least one record, however long.
 */
const chunkEnd = (batch: readonly LogRecord[], start: number): number => {
  let spent = 0;
  let end = start;
  while (end < batch.length && spent < APPLY_BUDGET) spent += batch[end++]!.value.length + RECORD_COST;
  return end;
};

/** How long after a follower gave up the view follows again. */
const REFOLLOW_AFTER_MS = 1_000;

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class LiveView {
  readonly projection: Projection;
  /** Why the given snapshot was not used, if it was not. */
  readonly snapshotRefused?: string;
  private subscription?: Subscription;
  private readonly recentOffsets = new Float64Array(RECENT_VERDICTS).fill(-1);
  private readonly recentVerdicts: (Verdict | undefined)[] = new Array<Verdict | undefined>(RECENT_VERDICTS).fill(undefined);
  /** The id of the event at each remembered offset (undefined: a record that decoded to none). */
  private readonly recentIds: (string | undefined)[] = new Array<string | undefined>(RECENT_VERDICTS).fill(undefined);
  /** The id of the event the projection applied last, read right after each record. */
  private appliedId: string | undefined;
  private readonly waiting = new Map<number, { readonly id?: string; readonly resolve: (verdict: Verdict) => void; readonly reject: (error: Error) => void }[]>();
  private haltReported = false;
  private stopped = false;
  private refollow?: NodeJS.Timeout;

  constructor(
    private readonly log: EventLog,
    private readonly options: LiveViewOptions = {},
  ) {
    const onEvent = options.onEvent;
    const keep: ProjectionOptions = {
      keepRefusals: options.keepRefusals ?? 1000,
      onEvent: (event, verdict, state) => {
        this.appliedId = event.id;
        onEvent?.(event, verdict, state);
      },
    };
    // A snapshot its store read intact (its file's SHA-256) is the one saved: not hashed again.
    const restored = options.snapshot ? Projection.fromSnapshot(options.snapshot, keep, 'file digest') : undefined;
    if (typeof restored === 'string') this.snapshotRefused = restored;
    this.projection = restored instanceof Projection ? restored : new Projection(undefined, 0, keep);
    this.startedAt = this.projection.position;
  }

  /** The offset the view started from: its snapshot's, or 0. */
  readonly startedAt: number;

  get state() {
    return this.projection.state;
  }

  get position(): number {
    return this.projection.position;
  }

  /** Where the view stopped, on a record a newer build wrote; undefined while it reads on. */
  get halted(): { readonly offset: number; readonly reason: string } | undefined {
    return this.projection.halted;
  }

  /** Replays up to the current high-water mark, then follows the log. Resolves once caught up. */
  async start(): Promise<void> {
    const target = await this.log.highWaterMark();
    this.stopped = false;
    await new Promise<void>((resolve) => {
      if (target <= this.projection.position) resolve();
      this.follow(target, resolve);
    });
  }

  /**
   * Follows the log from the view's position; `caughtUp` once it reaches `target`. A
   * follower that gives up (the log away longer than it waits) is followed by another from
   * where the view is: a view stops only when it is stopped, or on a record it cannot read.
   */
  private follow(target: number, caughtUp: () => void): void {
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      caughtUp();
    };
    this.subscription = this.log.follow(
      this.projection.position,
      async (batch) => {
        await this.apply(batch);
        if (this.projection.position >= target) settle();
      },
      {
        onCaughtUp: settle,
        onError: (error) => {
          if (this.stopped) return;
          shoalLogger().warn({ offset: this.projection.position }, `the view's follower of the log stopped (${error.message}): following again from offset ${this.projection.position}`);
          this.refollow = setTimeout(() => {
            if (!this.stopped) this.follow(target, settle);
          }, REFOLLOW_AFTER_MS);
        },
      },
    );
  }

  /**
   * The verdict on the record at `offset`, once the view has applied it. With `eventId`, the
   * record there must be that event: a writer asks for its own record's verdict at the offset
   * the log said it wrote it at, and another record's verdict would be a wrong answer.
   */
  verdictAt(offset: number, eventId?: string): Promise<Verdict> {
    const slot = offset % RECENT_VERDICTS;
    const known = this.recentAt(offset);
    if (known) {
      const mismatch = eventId === undefined ? undefined : this.notTheAppended(offset, eventId, this.recentIds[slot]);
      return mismatch ? Promise.reject(mismatch) : Promise.resolve(known);
    }
    if (offset < this.projection.position) {
      return Promise.reject(new Error(`the verdict on offset ${offset} is no longer remembered`));
    }
    const halted = this.projection.halted;
    if (halted) return Promise.reject(new Error(haltMessage(halted)));
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(offset) ?? [];
      list.push({ ...(eventId === undefined ? {} : { id: eventId }), resolve, reject });
      this.waiting.set(offset, list);
    });
  }

  /** The error for a writer whose event is not the one at `offset`; undefined when it is. */
  private notTheAppended(offset: number, eventId: string, found: string | undefined): Error | undefined {
    if (found === eventId) return undefined;
    return new Error(`the log holds ${found === undefined ? 'no event' : `event ${found}`} at offset ${offset}, where it said event ${eventId} was appended: the append's outcome is unknown`);
  }

  /** Resolves once every record before `offset` has been applied. */
  async waitFor(offset: number): Promise<void> {
    if (offset <= 0 || this.projection.position >= offset) return;
    await this.verdictAt(offset - 1).catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.refollow);
    await this.subscription?.stop();
    this.subscription = undefined;
  }

  private recentAt(offset: number): Verdict | undefined {
    const slot = offset % RECENT_VERDICTS;
    return this.recentOffsets[slot] === offset ? this.recentVerdicts[slot] : undefined;
  }

  /** Applies a batch in chunks of about APPLY_BUDGET's work each, letting the event loop run between them. */
  private async apply(batch: readonly LogRecord[]): Promise<void> {
    let start = 0;
    do {
      if (start > 0) await nextTurn();
      const end = chunkEnd(batch, start);
      this.applyChunk(start === 0 && end === batch.length ? batch : batch.slice(start, end));
      start = end;
    } while (start < batch.length);
  }

  private applyChunk(batch: readonly LogRecord[]): void {
    for (const record of batch) {
      this.appliedId = undefined;
      const verdict = this.projection.apply(record);
      if (!verdict) {
        if (this.projection.halted) return this.reportHalt(this.projection.halted);
        continue;
      }
      const slot = record.offset % RECENT_VERDICTS;
      this.recentOffsets[slot] = record.offset;
      this.recentVerdicts[slot] = verdict;
      this.recentIds[slot] = this.appliedId;
      const waiters = this.waiting.size > 0 ? this.waiting.get(record.offset) : undefined;
      if (waiters) {
        this.waiting.delete(record.offset);
        for (const waiter of waiters) {
          const mismatch = waiter.id === undefined ? undefined : this.notTheAppended(record.offset, waiter.id, this.appliedId);
          if (mismatch) waiter.reject(mismatch);
          else waiter.resolve(verdict);
        }
      }
    }
    this.options.onApplied?.(batch);
  }

  /** Says once that the view stopped, and fails everyone waiting on a verdict it will not reach. */
  private reportHalt(halted: { readonly offset: number; readonly reason: string }): void {
    if (this.haltReported) return;
    this.haltReported = true;
    const message = haltMessage(halted);
    if (this.options.onHalted) this.options.onHalted(message);
    else shoalLogger().warn({ offset: halted.offset }, message);
    for (const waiters of this.waiting.values()) for (const waiter of waiters) waiter.reject(new Error(message));
    this.waiting.clear();
  }
}
