/**
 * The embedded log: the same port in one process, one partition, kept in a file of
 * newline-delimited JSON frames {"k": key, "v": value}. Offsets are 0, 1, 2, … It is
 * reloaded on open, so it survives a restart; a torn last frame (a crash mid-write) is cut
 * off. A LOCK file keeps a second process off the same directory.
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync, ftruncateSync, unlinkSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
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
import { Signal } from '../signal';
import { LocalLeases } from './local-leases';

export interface EmbeddedEventLogOptions {
  readonly dir: string;
  /** fsync every appended batch (default true); tests may trade durability for speed. */
  readonly sync?: boolean;
}

const FOLLOW_BATCH = 2_000;

const processAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

export class EmbeddedEventLog implements EventLog {
  readonly description: string;
  /** Set when opening cut off a torn last frame. */
  readonly recovered?: string;
  private readonly records: { readonly key: string; readonly value: string }[] = [];
  private readonly appended = new Signal();
  private readonly leases = new LocalLeases();
  private readonly followers = new Set<Subscription>();
  private writing: Promise<unknown> = Promise.resolve();
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly file: FileHandle,
    private readonly sync: boolean,
    loaded: { records: { key: string; value: string }[]; recovered?: string },
  ) {
    this.description = `embedded ${resolve(dir)}`;
    this.records = loaded.records;
    if (loaded.recovered) this.recovered = loaded.recovered;
  }

  static async open(options: EmbeddedEventLogOptions): Promise<EmbeddedEventLog> {
    const dir = options.dir;
    mkdirSync(dir, { recursive: true });
    EmbeddedEventLog.lock(dir);
    try {
      const path = join(dir, 'events.log');
      const loaded = EmbeddedEventLog.load(path);
      const file = await open(path, 'a');
      return new EmbeddedEventLog(dir, file, options.sync ?? true, loaded);
    } catch (error) {
      unlinkSync(join(dir, 'LOCK'));
      throw error;
    }
  }

  private static lock(dir: string): void {
    const path = join(dir, 'LOCK');
    if (existsSync(path)) {
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new Error(`the embedded log in ${resolve(dir)} is in use by process ${pid}; stop it first, or set SHOAL_DATA_DIR to another directory`);
      }
      if (pid === process.pid) throw new Error(`the embedded log in ${resolve(dir)} is already open in this process`);
    }
    writeFileSync(path, `${process.pid}\n`);
  }

  /** Reads every whole frame; cuts the file back to the last whole frame if the tail is torn. */
  private static load(path: string): { records: { key: string; value: string }[]; recovered?: string } {
    const records: { key: string; value: string }[] = [];
    if (!existsSync(path)) return { records };
    const buffer = readFileSync(path);
    let start = 0;
    let good = 0;
    let recovered: string | undefined;
    while (start < buffer.length) {
      const end = buffer.indexOf(0x0a, start);
      const line = buffer.subarray(start, end < 0 ? buffer.length : end).toString('utf8');
      let frame: { k?: unknown; v?: unknown } | undefined;
      try {
        frame = end < 0 ? undefined : (JSON.parse(line) as { k?: unknown; v?: unknown });
      } catch {
        frame = undefined;
      }
      if (!frame || typeof frame.k !== 'string' || typeof frame.v !== 'string') {
        recovered = `cut a torn frame of ${buffer.length - start} bytes at byte ${start} (after record ${records.length - 1})`;
        break;
      }
      records.push({ key: frame.k, value: frame.v });
      start = end + 1;
      good = start;
    }
    if (recovered) {
      const fd = openSync(path, 'r+');
      try {
        ftruncateSync(fd, good);
      } finally {
        closeSync(fd);
      }
    }
    return recovered ? { records, recovered } : { records };
  }

  append(records: readonly AppendRecord[]): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('the embedded log is closed'));
    const frames = records.map((record) => `${JSON.stringify({ k: record.key, v: record.value })}\n`).join('');
    const write = this.writing.then(async () => {
      await this.file.write(frames);
      if (this.sync) await this.file.datasync();
      const first = this.records.length;
      for (const record of records) this.records.push({ key: record.key, value: record.value });
      this.appended.notify();
      return { first, last: this.records.length - 1 };
    });
    this.writing = write.catch(() => undefined);
    return write;
  }

  async read(from: number, options: ReadOptions = {}): Promise<LogRecord[]> {
    const to = Math.min(options.to ?? this.records.length, this.records.length);
    const end = options.max === undefined ? to : Math.min(to, from + options.max);
    return this.slice(Math.max(0, from), end);
  }

  follow(from: number, handler: (batch: readonly LogRecord[]) => Promise<void> | void, options: FollowOptions = {}): Subscription {
    let stopped = false;
    const stopSignal = new Signal();
    let position = Math.max(0, from);
    const loop = (async () => {
      let caughtUp = false;
      while (!stopped) {
        if (position < this.records.length) {
          caughtUp = false;
          const batch = this.slice(position, Math.min(this.records.length, position + FOLLOW_BATCH));
          position += batch.length;
          await handler(batch);
          continue;
        }
        if (!caughtUp) {
          caughtUp = true;
          options.onCaughtUp?.();
          continue;
        }
        await Promise.race([this.appended.wait(), stopSignal.wait()]);
      }
    })();
    const subscription: Subscription = {
      stop: async () => {
        stopped = true;
        stopSignal.notify();
        this.followers.delete(subscription);
        await loop;
      },
    };
    this.followers.add(subscription);
    return subscription;
  }

  async highWaterMark(): Promise<number> {
    return this.records.length;
  }

  acquire(component: string, instance: string, options?: AcquireOptions): Promise<OwnershipLease> {
    if (this.closed) return Promise.reject(new Error('the embedded log is closed'));
    return this.leases.acquire(component, instance, options);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.followers].map((follower) => follower.stop()));
    this.leases.releaseAll('the log was closed');
    await this.writing;
    await this.file.close();
    try {
      unlinkSync(join(this.dir, 'LOCK'));
    } catch {
      // already gone
    }
  }

  private slice(from: number, to: number): LogRecord[] {
    const out: LogRecord[] = [];
    for (let offset = from; offset < to; offset++) {
      const record = this.records[offset]!;
      out.push({ offset, key: record.key, value: record.value });
    }
    return out;
  }
}
