/**
 * The embedded log: the same port in one process, one partition, kept in `<dir>/events.log`
 * (log-file.ts) and in memory. Offsets are 0, 1, 2, … It is reloaded on open, so it
 * survives a restart; a torn tail left by a crash is cut off, with a warning. `<dir>/LOCK`
 * (lock-file.ts) keeps a second process off the directory. Followers sleep until an append
 * wakes them.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type {
  AcquireOptions,
  AppendRecord,
  AppendResult,
  EventLog,
  FollowOptions,
  LogRecord,
  OwnershipLease,
  ReadOptions,
  Subscription,
} from '../port';
import { eventLogSay } from '../log-sink';
import { LogUnavailableError } from '../log-unavailable';
import { Signal } from '../signal';
import { LocalLeases } from './local-leases';
import { LockFile } from './lock-file';
import { encodeBatch, LogFile } from './log-file';
import type { StoredRecord } from './log-file';

export interface EmbeddedEventLogOptions {
  readonly dir: string;
  /** fsync every appended batch (default true); tests may trade durability for speed. */
  readonly sync?: boolean;
  /** Told when opening had to cut a torn tail. Default: a line on stderr. */
  readonly onWarning?: (message: string) => void;
}

/** Most records handed to a follower at once. */
const FOLLOW_BATCH = 5_000;

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

export class EmbeddedEventLog implements EventLog {
  readonly description: string;
  /** What opening cut off the end of the file, if its tail was torn by a crash. */
  readonly recovered?: string;
  private readonly appended = new Signal();
  private readonly leases = new LocalLeases();
  private readonly followers = new Set<Subscription>();
  private writing: Promise<unknown> = Promise.resolve();
  private closing?: Promise<void>;

  private constructor(
    readonly dir: string,
    private readonly file: LogFile,
    private readonly lock: LockFile,
    private readonly records: StoredRecord[],
    recovered: string | undefined,
  ) {
    this.description = `embedded ${dir}`;
    if (recovered) this.recovered = recovered;
  }

  static async open(options: EmbeddedEventLogOptions): Promise<EmbeddedEventLog> {
    const dir = resolve(options.dir);
    await mkdir(dir, { recursive: true });
    const lock = LockFile.acquire(dir);
    try {
      const { file, loaded } = await LogFile.open(join(dir, 'events.log'), { sync: options.sync ?? true });
      if (loaded.torn) {
        const warn = options.onWarning ?? ((message: string) => eventLogSay('warn', message));
        warn(`embedded log ${dir}: ${loaded.torn}`);
      }
      return new EmbeddedEventLog(dir, file, lock, loaded.records, loaded.torn);
    } catch (error) {
      lock.release();
      throw error;
    }
  }

  /** Writes the batch's frames in one append and flushes them; only then do readers see it. */
  append(records: readonly AppendRecord[]): Promise<AppendResult> {
    if (this.closing) return Promise.reject(this.closedError());
    const batch: StoredRecord[] = records.map((record) => (record.headers ? { key: record.key, value: record.value, headers: record.headers } : { key: record.key, value: record.value }));
    const frames = encodeBatch(batch);
    const written = this.writing.then(async () => {
      if (batch.length > 0) await this.file.append(frames);
      const first = this.records.length;
      for (const record of batch) this.records.push(record);
      if (batch.length > 0) this.appended.notify();
      return { first, last: this.records.length - 1 };
    });
    this.writing = written.catch(() => undefined);
    return written;
  }

  async read(from: number, options: ReadOptions = {}): Promise<LogRecord[]> {
    if (this.closing) throw this.closedError();
    const start = Math.max(0, Math.floor(from));
    const end = Math.min(options.to ?? this.records.length, this.records.length, start + (options.max ?? Number.POSITIVE_INFINITY));
    return this.slice(start, end);
  }

  follow(from: number, handler: (batch: readonly LogRecord[]) => Promise<void> | void, options: FollowOptions = {}): Subscription {
    if (this.closing) throw this.closedError();
    let stopped = false;
    let wake: (() => void) | undefined;
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        wake?.();
        await running;
      },
    };
    const loop = async (): Promise<void> => {
      await Promise.resolve(); // deliver nothing before follow() has returned
      let position = Math.max(0, Math.floor(from));
      let caughtUp = false;
      try {
        while (!stopped) {
          if (position < this.records.length) {
            caughtUp = false;
            const batch = this.slice(position, Math.min(this.records.length, position + FOLLOW_BATCH));
            position += batch.length;
            await handler(batch);
          } else if (!caughtUp) {
            caughtUp = true;
            options.onCaughtUp?.();
          } else {
            // Sleep until the next append, or until stop().
            await new Promise<void>((resolve) => {
              wake = resolve;
              void this.appended.wait().then(resolve);
            });
            wake = undefined;
          }
        }
      } catch (error) {
        const failure = asError(error);
        if (options.onError) options.onError(failure);
        else eventLogSay('error', `a follower of the embedded log stopped: ${failure.message}`);
      } finally {
        stopped = true;
        this.followers.delete(subscription);
      }
    };
    const running = loop();
    this.followers.add(subscription);
    return subscription;
  }

  async highWaterMark(): Promise<number> {
    if (this.closing) throw this.closedError();
    return this.records.length;
  }

  acquire(component: string, instance: string, options?: AcquireOptions): Promise<OwnershipLease> {
    if (this.closing) return Promise.reject(this.closedError());
    return this.leases.acquire(component, instance, options);
  }

  /** Stops followers, ends leases, waits for the last append, closes the file and the lock. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.followers].map((follower) => follower.stop()));
      this.leases.close(`${this.description} was closed`);
      await this.writing;
      try {
        await this.file.close();
      } finally {
        this.lock.release();
      }
    })();
    return this.closing;
  }

  private slice(from: number, to: number): LogRecord[] {
    const out: LogRecord[] = [];
    for (let offset = from; offset < to; offset++) {
      const record = this.records[offset]!;
      out.push(record.headers ? { offset, key: record.key, value: record.value, headers: record.headers } : { offset, key: record.key, value: record.value });
    }
    return out;
  }

  private closedError(): Error {
    return new LogUnavailableError(`${this.description} is closed`, 'no');
  }
}
