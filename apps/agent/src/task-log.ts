/**
 * One task's output, kept by the agent while it holds the task (Docker keeps a container's
 * log until the container is removed; the agent, until the task is removed from the
 * worker). What the task writes is cut into lines, per stream: a line waits for its
 * newline, and one longer than 16 KiB goes out in 16 KiB pieces, as Docker's log drivers
 * cut it (only the last piece ends with the newline, so the pieces put together are the
 * line). Only the newest lines are kept: at most KEPT_LINES of them and KEPT_BYTES in all.
 * The log is in memory; an exec agent with a state dir keeps a copy of each task's log
 * on disk too (task-log-file.ts), from which a restarted agent's log of the task begins.
 */
import type { OutputStream, TaskOutput, WrittenAt } from './executor';

/** The longest piece of a line kept as one entry (Docker's 16 KiB), newline aside. */
export const MAX_LINE_BYTES = 16 * 1024;
/** Lines kept per task: the oldest go first. */
export const KEPT_LINES = 10_000;
/** Bytes kept per task: the oldest lines go first. */
export const KEPT_BYTES = 1024 * 1024;

/** One line (or piece of a long one) as the task wrote it. */
export interface LogEntry {
  /** When it was written, in ms since the epoch. */
  readonly at: number;
  /**
   * When it was written, as its writer gave it, where it gave more than ms (an engine's
   * log: RFC 3339 with nanoseconds), kept whole; absent, `at` is all there is. (Only the
   * docker executor's tasks have it, and their logs are the engine's: the exec agent's log
   * files keep `at` alone.)
   */
  readonly time?: string;
  readonly stream: OutputStream;
  /** The line with its newline (a piece of a long line before its last has none). */
  readonly data: Buffer;
}

/** What a reader asks for: streams, the last `tail` lines (negative: all), lines written at or after `sinceMs` (0: all). */
export interface LogQuery {
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tail: number;
  readonly sinceMs: number;
}

export interface TaskLogOptions {
  readonly now?: () => number;
  readonly keptLines?: number;
  readonly keptBytes?: number;
}

const NEWLINE = 0x0a;

const DEFAULTS: Required<TaskLogOptions> = { now: () => Date.now(), keptLines: KEPT_LINES, keptBytes: KEPT_BYTES };

/** Options with the defaults filled in, once per options object (a worker makes every task's log with the same one). */
const filledIn = new WeakMap<TaskLogOptions, Required<TaskLogOptions>>();
const resolved = (options: TaskLogOptions | undefined): Required<TaskLogOptions> => {
  if (!options) return DEFAULTS;
  let full = filledIn.get(options);
  if (!full) filledIn.set(options, (full = { ...DEFAULTS, ...options }));
  return full;
};

export type LogListener = (entry: LogEntry) => void;

/**
 * A fleet's agent holds a log for each of tens of thousands of tasks, most of them a line
 * or two: what a log needs only once something uses it (an unfinished line, a follower)
 * is made then, and a whole line written as text becomes its entry without a copy.
 */
export class TaskLog implements TaskOutput {
  private entries: LogEntry[] = [];
  /** Entries before this index are dropped (compacted away now and then). */
  private first = 0;
  private bytes = 0;
  /** Each stream's unfinished line, while it has one. */
  private partial?: Partial<Record<OutputStream, Buffer>>;
  private listeners?: Set<LogListener>;
  private ended = false;
  /** The clock and bounds: one object shared by every log made with the same options. */
  private readonly options: Required<TaskLogOptions>;

  constructor(options?: TaskLogOptions) {
    this.options = resolved(options);
  }

  /** Lines kept now. */
  get size(): number {
    return this.entries.length - this.first;
  }

  /** `at`: when it was written, where the writer knows better than the clock (an engine's log). */
  write(stream: OutputStream, chunk: Buffer | string, at?: WrittenAt): void {
    if (this.ended) return;
    const unfinished = this.partial?.[stream];
    if (unfinished === undefined && typeof chunk === 'string' && chunk.indexOf('\n') === chunk.length - 1) {
      // One whole line, as text: its bytes are made here, so the entry can keep them as they are.
      const line = Buffer.from(chunk);
      if (line.length - 1 <= MAX_LINE_BYTES) return this.add(stream, line, true, at);
    }
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let pending = unfinished ? Buffer.concat([unfinished, bytes]) : bytes;
    for (let newline = pending.indexOf(NEWLINE); newline >= 0; newline = pending.indexOf(NEWLINE)) {
      this.line(stream, pending.subarray(0, newline + 1), at);
      pending = pending.subarray(newline + 1);
    }
    // A line that goes on and on: its full pieces need not wait for the newline.
    while (pending.length > MAX_LINE_BYTES) {
      this.add(stream, pending.subarray(0, MAX_LINE_BYTES), false, at);
      pending = pending.subarray(MAX_LINE_BYTES);
    }
    if (pending.length > 0) (this.partial ??= {})[stream] = Buffer.from(pending);
    else if (unfinished !== undefined) delete this.partial![stream];
  }

  /** The task writes no more: the lines it left unfinished are kept, with a newline. */
  end(): void {
    if (this.ended) return;
    for (const stream of ['stdout', 'stderr'] as const) {
      const unfinished = this.partial?.[stream];
      if (unfinished !== undefined) this.line(stream, Buffer.concat([unfinished, Buffer.from('\n')]));
    }
    this.partial = undefined;
    this.ended = true;
  }

  /**
   * The lines a reader asks for, oldest first. As Docker reads a log, `tail` counts the
   * task's last lines whatever their stream, and the streams and `sinceMs` choose among those.
   */
  read(query: LogQuery): LogEntry[] {
    if (query.tail === 0) return [];
    const start = query.tail < 0 ? this.first : Math.max(this.first, this.entries.length - query.tail);
    return this.entries.slice(start).filter((entry) => wanted(query, entry));
  }

  /**
   * Takes lines an earlier log of the task kept (read back from its file), oldest first,
   * as they were, before anything is written: followers do not hear them, the bounds apply.
   */
  restore(entries: readonly LogEntry[]): void {
    for (const entry of entries) this.keep(entry);
  }

  /** Calls `listener` with each line written from now on; returns what stops it. */
  follow(listener: LogListener): () => void {
    (this.listeners ??= new Set()).add(listener);
    return () => void this.listeners?.delete(listener);
  }

  /** A whole line, newline included: cut into pieces when it is too long. */
  private line(stream: OutputStream, line: Buffer, at?: WrittenAt): void {
    let rest = line;
    while (rest.length - 1 > MAX_LINE_BYTES) {
      this.add(stream, rest.subarray(0, MAX_LINE_BYTES), false, at);
      rest = rest.subarray(MAX_LINE_BYTES);
    }
    this.add(stream, rest, false, at);
  }

  /** Keeps a line; `own`: its bytes were made for it, else they are copied (the entry must not hold on to the whole chunk they came in). */
  private add(stream: OutputStream, data: Buffer, own = false, at?: WrittenAt): void {
    const bytes = own ? data : Buffer.from(data);
    const entry: LogEntry = at?.time === undefined ? { at: at?.at ?? this.options.now(), stream, data: bytes } : { at: at.at, stream, data: bytes, time: at.time };
    this.keep(entry);
    if (this.listeners) for (const listener of this.listeners) listener(entry);
  }

  /** Keeps an entry, dropping the oldest past the bounds. */
  private keep(entry: LogEntry): void {
    // Most logs hold a line or two: the first takes an array of its own size, not a grown one.
    if (this.entries.length === 0) this.entries = [entry];
    else this.entries.push(entry);
    this.bytes += entry.data.length;
    const { keptLines, keptBytes } = this.options;
    while (this.size > 0 && (this.size > keptLines || this.bytes > keptBytes)) {
      this.bytes -= this.entries[this.first]!.data.length;
      this.first += 1;
    }
    if (this.first > 1024 && this.first * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.first);
      this.first = 0;
    }
  }
}

/** Whether a line is of a stream the query asks for and written no earlier than it asks. */
export const wanted = (query: Pick<LogQuery, 'stdout' | 'stderr' | 'sinceMs'>, entry: LogEntry): boolean =>
  (entry.stream === 'stdout' ? query.stdout : query.stderr) && (query.sinceMs <= 0 || entry.at >= query.sinceMs);
