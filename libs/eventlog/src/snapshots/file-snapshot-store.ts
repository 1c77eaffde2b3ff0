/**
 * Snapshots on disk: `<dir>/<offset>.json` holding {offset, hash, state}, written
 * atomically (temporary file, fsync, rename) so a crash never leaves half a snapshot
 * where a restore would find it. Keeps the newest few.
 *
 * Written in lines (snapshot-lines.ts: a header, the lists a chunk a line, the SHA-256 of
 * the file's bytes last) and read back a line at a time, the event loop running between
 * lines; a snapshot whose bytes match their digest is marked intact (readIntact), so a
 * restore need not hash its state again to know it is the one saved. Files of the older
 * formats (one JSON document) are still read, whole.
 */
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { readIntact } from '@shoal/domain';
import type { Snapshot } from '@shoal/domain';
import { LINES_PREFIX, SnapshotLineReader, snapshotLines } from './snapshot-lines';

const NAME = /^(\d{16})\.json$/;

export interface SnapshotStore {
  save(snapshot: Snapshot): Promise<void>;
  /** The newest snapshot that can be read, newest first among equals; undefined if none. */
  latest(options?: { readonly atOrBefore?: number }): Promise<Snapshot | undefined>;
  list(): Promise<number[]>;
}

/**
 * JSON.stringify(snapshot), a piece at a time: a long array (the tasks) is written
 * `perPiece` items at a time, so that a process saving a large view goes on serving
 * between the pieces instead of stopping for the whole of it. The pieces join to exactly
 * JSON.stringify's text.
 */
export function* snapshotJson(snapshot: Snapshot, perPiece = 1_000): Generator<string> {
  function* value(of: unknown, depth: number): Generator<string> {
    if (Array.isArray(of) && of.length > perPiece) {
      for (let i = 0; i < of.length; i += perPiece) {
        const piece = JSON.stringify(of.slice(i, i + perPiece));
        yield `${i === 0 ? '[' : ','}${piece.slice(1, -1)}`;
      }
      yield ']';
    } else if (depth < 2 && of !== null && typeof of === 'object' && !Array.isArray(of)) {
      let first = true;
      for (const [key, field] of Object.entries(of)) {
        if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
        yield `${first ? '{' : ','}${JSON.stringify(key)}:`;
        first = false;
        yield* value(field, depth + 1);
      }
      yield first ? '{}' : '}';
    } else yield JSON.stringify(of);
  }
  yield* value(snapshot, 0);
}

export class FileSnapshotStore implements SnapshotStore {
  constructor(
    readonly dir: string,
    private readonly keep = 3,
  ) {}

  async save(snapshot: Snapshot): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const name = `${String(snapshot.offset).padStart(16, '0')}.json`;
    const temporary = join(this.dir, `.${name}.${process.pid}.tmp`);
    const handle = await open(temporary, 'w');
    try {
      for (const line of snapshotLines(snapshot)) await handle.write(line);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, join(this.dir, name));
    const offsets = await this.list();
    for (const old of offsets.slice(0, Math.max(0, offsets.length - this.keep))) {
      await rm(join(this.dir, `${String(old).padStart(16, '0')}.json`), { force: true });
    }
  }

  async list(): Promise<number[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    return names
      .map((name) => NAME.exec(name)?.[1])
      .filter((digits): digits is string => digits !== undefined)
      .map(Number)
      .sort((a, b) => a - b);
  }

  async latest(options: { readonly atOrBefore?: number } = {}): Promise<Snapshot | undefined> {
    const offsets = (await this.list()).filter((offset) => options.atOrBefore === undefined || offset <= options.atOrBefore);
    for (const offset of offsets.reverse()) {
      try {
        const snapshot = await readSnapshotFile(join(this.dir, `${String(offset).padStart(16, '0')}.json`));
        if (typeof snapshot?.hash === 'string' && snapshot.offset === offset) return snapshot;
      } catch {
        // unreadable: try an older one
      }
    }
    return undefined;
  }
}

/** Bytes read from a snapshot file at a time. */
const READ_CHUNK = 1 << 20;

/** The lines of a file in lines, each handed to `line` with its newline; a turn of the event loop after each. */
const readLines = async (handle: FileHandle, line: (bytes: Buffer) => void): Promise<void> => {
  let rest = Buffer.alloc(0);
  const chunk = Buffer.allocUnsafe(READ_CHUNK);
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, READ_CHUNK, null);
    if (bytesRead === 0) break;
    const bytes = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
    let start = 0;
    for (let end = bytes.indexOf(10, start); end >= 0; end = bytes.indexOf(10, start)) {
      line(bytes.subarray(start, end + 1));
      start = end + 1;
      await nextTurn();
    }
    rest = Buffer.from(bytes.subarray(start));
  }
  if (rest.length > 0) line(rest);
};

/**
 * A snapshot file of either kind: in lines, read a line at a time and marked intact once its
 * digest matches; or (written before) one JSON document, read whole and not marked.
 */
export const readSnapshotFile = async (path: string): Promise<Snapshot> => {
  const handle = await open(path, 'r');
  try {
    const head = Buffer.alloc(LINES_PREFIX.length);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (bytesRead === head.length && head.toString('utf8') === LINES_PREFIX) {
      const reader = new SnapshotLineReader();
      await readLines(handle, (bytes) => reader.line(bytes));
      return readIntact(reader.done());
    }
  } finally {
    await handle.close();
  }
  const whole = JSON.parse(await readFile(path, 'utf8')) as Snapshot;
  // Only what a snapshot holds: nothing else in the file reaches the caller.
  return { offset: whole?.offset, hash: whole?.hash, state: whole?.state };
};

/**
 * The newest snapshot of each component that keeps them under `<dir>/<component>/`, by
 * component name, for an audit to check against a full replay.
 */
export const latestSnapshots = async (dir: string): Promise<{ name: string; snapshot: Snapshot }[]> => {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  const found: { name: string; snapshot: Snapshot }[] = [];
  for (const name of names.sort()) {
    const snapshot = await new FileSnapshotStore(join(dir, name)).latest();
    if (snapshot) found.push({ name, snapshot });
  }
  return found;
};

/**
 * The newest snapshot at or before `offset` among every component's under `<dir>/<component>/`
 * (each is the whole cluster's state at its offset), with the component's name; undefined
 * when there is none. A replay to `offset` starts from it and reads only the tail.
 */
export const snapshotAtOrBefore = async (dir: string, offset: number): Promise<{ name: string; snapshot: Snapshot } | undefined> => {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return undefined;
  }
  let best: { name: string; snapshot: Snapshot } | undefined;
  for (const name of names.sort()) {
    const snapshot = await new FileSnapshotStore(join(dir, name)).latest({ atOrBefore: offset });
    if (snapshot && (!best || snapshot.offset > best.snapshot.offset)) best = { name, snapshot };
  }
  return best;
};
