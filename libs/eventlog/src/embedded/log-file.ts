/**
 * The embedded log's file: newline-delimited JSON frames `{"k":key,"v":value}`, one per
 * record (`"h":{…}` too when the record has headers: its trace context). The first frame of a batch of more than one record also says how many records
 * the batch has (`"n":3`), so a batch cut short by a crash is cut off whole on load, as
 * Kafka would never have shown part of one either.
 *
 * Loading cuts a torn tail (a crash in the middle of an append) back to the last whole
 * batch. A bad frame with whole frames after it is not a torn tail but damage: the file is
 * left alone and opening fails.
 */
import { open, readFile, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import type { RecordHeaders } from '../port';

export interface StoredRecord {
  readonly key: string;
  readonly value: string;
  readonly headers?: RecordHeaders;
}

interface Frame {
  readonly k: string;
  readonly v: string;
  readonly n?: number;
  readonly h?: RecordHeaders;
}

/** A frame's headers when they are a flat object of strings; anything else is dropped, the record kept (headers are never the event). */
const headersOfFrame = (h: unknown): RecordHeaders | undefined => {
  if (typeof h !== 'object' || h === null || Array.isArray(h)) return undefined;
  let headers: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(h)) if (typeof value === 'string') (headers ??= {})[name] = value;
  return headers;
};

const NEWLINE = 0x0a;

const parseFrame = (line: string): Frame | undefined => {
  try {
    const frame = JSON.parse(line) as Partial<Frame> | null;
    if (typeof frame?.k !== 'string' || typeof frame.v !== 'string') return undefined;
    if (frame.n !== undefined && !(Number.isSafeInteger(frame.n) && frame.n > 1)) return undefined;
    return frame as Frame;
  } catch {
    return undefined;
  }
};

/** Frames for one batch, ready to be written in one go. */
export const encodeBatch = (records: readonly StoredRecord[]): string => {
  let out = '';
  records.forEach((record, index) => {
    const frame: Frame = {
      k: record.key,
      v: record.value,
      ...(index === 0 && records.length > 1 ? { n: records.length } : {}),
      ...(record.headers ? { h: record.headers } : {}),
    };
    out += `${JSON.stringify(frame)}\n`;
  });
  return out;
};

export interface Loaded {
  readonly records: StoredRecord[];
  /** Bytes of whole batches: where the next append goes. */
  readonly size: number;
  /** What was cut off, if the tail was torn. */
  readonly torn?: string;
}

/** Reads every whole batch of `buffer`; throws if the damage is not confined to the tail. */
export const decodeLog = (buffer: Buffer, name = 'the log'): Loaded => {
  const records: StoredRecord[] = [];
  let start = 0;
  // A batch in progress: where it began (bytes, records) and how many records it still owes.
  let batchStart = 0;
  let batchRecords = 0;
  let owed = 0;
  while (start < buffer.length) {
    const end = buffer.indexOf(NEWLINE, start);
    const frame = end < 0 ? undefined : parseFrame(buffer.toString('utf8', start, end));
    if (!frame || (owed > 0 && frame.n !== undefined)) {
      const rest = end < 0 ? -1 : buffer.indexOf(NEWLINE, end + 1);
      const wholeFramesFollow = end >= 0 && rest >= 0;
      if (wholeFramesFollow) {
        throw new Error(
          `${name} is damaged at byte ${start} (record ${records.length}) and whole frames follow, so this is no torn tail; ` +
            'Shoal will not cut it. Inspect the file or restore it from a copy.',
        );
      }
      break;
    }
    if (owed === 0) {
      batchStart = start;
      batchRecords = records.length;
      owed = frame.n ?? 1;
    }
    const headers = frame.h === undefined ? undefined : headersOfFrame(frame.h);
    records.push(headers ? { key: frame.k, value: frame.v, headers } : { key: frame.k, value: frame.v });
    owed--;
    start = end + 1;
  }
  if (owed > 0 || start < buffer.length) {
    const cutAt = owed > 0 ? batchStart : start;
    records.length = owed > 0 ? batchRecords : records.length;
    return {
      records,
      size: cutAt,
      torn: `cut a torn tail of ${buffer.length - cutAt} bytes at byte ${cutAt} (a crash during an append); kept ${records.length} records`,
    };
  }
  return { records, size: buffer.length };
};

export class LogFile {
  private broken?: Error;

  private constructor(
    private readonly handle: FileHandle,
    private size: number,
    private readonly sync: boolean,
  ) {}

  /** Opens (or creates) the file, loads it and cuts a torn tail off it. */
  static async open(path: string, options: { readonly sync: boolean }): Promise<{ file: LogFile; loaded: Loaded }> {
    const exists = await stat(path).then(
      () => true,
      () => false,
    );
    const loaded = exists ? decodeLog(await readFile(path), path) : { records: [], size: 0 };
    const handle = await open(path, 'a');
    try {
      if (loaded.torn) {
        await handle.truncate(loaded.size);
        await handle.sync();
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    return { file: new LogFile(handle, loaded.size, options.sync), loaded };
  }

  /** Appends the frames in one write and flushes them to disk; on failure cuts the file back. */
  async append(frames: string): Promise<void> {
    if (this.broken) throw this.broken;
    const bytes = Buffer.from(frames, 'utf8');
    try {
      await this.handle.appendFile(bytes);
      if (this.sync) await this.handle.datasync();
      this.size += bytes.length;
    } catch (error) {
      await this.handle.truncate(this.size).catch((cut: unknown) => {
        this.broken = new Error(`the log file could not be cut back after a failed append: ${String(cut)}`);
      });
      throw error;
    }
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
