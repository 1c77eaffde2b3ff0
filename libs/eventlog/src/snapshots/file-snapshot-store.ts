/**
 * Snapshots on disk: `<dir>/<offset>.json` holding {offset, hash, state}, written
 * atomically (temporary file, fsync, rename) so a crash never leaves half a snapshot
 * where a restore would find it. Keeps the newest few.
 */
import { mkdir, open, readFile, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Snapshot } from '@shoal/domain';

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
      for (const piece of snapshotJson(snapshot)) await handle.write(piece);
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
        const snapshot = JSON.parse(await readFile(join(this.dir, `${String(offset).padStart(16, '0')}.json`), 'utf8')) as Snapshot;
        if (typeof snapshot?.hash === 'string' && snapshot.offset === offset) return snapshot;
      } catch {
        // unreadable: try an older one
      }
    }
    return undefined;
  }
}

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
