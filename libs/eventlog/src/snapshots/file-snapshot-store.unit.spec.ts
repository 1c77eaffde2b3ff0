import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Projection, replay } from '@shoal/domain';
import type { Snapshot } from '@shoal/domain';
import { EventBuilder, histories, serviceSpec, toRecords } from '@shoal/testing';
import { FileSnapshotStore, snapshotJson } from './file-snapshot-store';
import { LINES_PREFIX } from './snapshot-lines';

describe('FileSnapshotStore', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'shoal-snap-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  const log = () => {
    const b = new EventBuilder();
    return toRecords([
      b.event('ServiceCreated', { id: 's1', spec: serviceSpec('a') }),
      b.event('ServiceCreated', { id: 's2', spec: serviceSpec('b') }),
      b.event('ServiceRemoved', { id: 's1' }),
      b.event('ServiceCreated', { id: 's3', spec: serviceSpec('c') }),
    ]);
  };

  it('saves and restores: restore + tail replay equals full replay', async () => {
    const records = log();
    const store = new FileSnapshotStore(dir);
    await store.save(replay(records, { to: 2 }).snapshot());
    const snapshot = await store.latest();
    expect(snapshot?.offset).toBe(2);
    const restored = Projection.fromSnapshot(snapshot!);
    if (typeof restored === 'string') throw new Error(restored);
    restored.applyAll(records);
    expect(restored.hash()).toBe(replay(records).hash());
  });

  it('keeps the newest few and finds the newest at or before an offset', async () => {
    const records = log();
    const store = new FileSnapshotStore(dir, 2);
    for (const to of [1, 2, 3, 4]) await store.save(replay(records, { to }).snapshot());
    expect(await store.list()).toEqual([3, 4]);
    expect((await store.latest({ atOrBefore: 3 }))?.offset).toBe(3);
    expect(await store.latest({ atOrBefore: 2 })).toBeUndefined();
  });

  it('skips an unreadable snapshot and leaves no temporary files', async () => {
    const store = new FileSnapshotStore(dir);
    await store.save(replay(log(), { to: 1 }).snapshot());
    await writeFile(join(dir, '0000000000000009.json'), '{"offset": 9, "ha');
    expect((await store.latest())?.offset).toBe(1);
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('writes a snapshot in pieces that join to exactly JSON.stringify of it, whatever the piece size', () => {
    fc.assert(
      fc.property(histories(), fc.integer({ min: 1, max: 4 }), (values, perPiece) => {
        const snapshot = replay(values.map((value, offset) => ({ offset, value }))).snapshot();
        const pieces = [...snapshotJson(snapshot, perPiece)];
        expect(pieces.join('')).toBe(JSON.stringify(snapshot));
      }),
      { numRuns: 100 },
    );
    // the edges: empty arrays, one piece exactly, a field left undefined
    const edges: Snapshot = { offset: 3, hash: 'h', state: { format: 1, services: [], tasks: [1, 2] as never, nodes: [1, 2, 3] as never, networks: [], terms: [], writers: [], cluster: undefined } };
    for (const perPiece of [1, 2, 3]) expect([...snapshotJson(edges, perPiece)].join('')).toBe(JSON.stringify(edges));
  });

  it('a snapshot of many tasks written in pieces restores to the same hash', async () => {
    const b = new EventBuilder();
    const records = toRecords([
      b.event('ServiceCreated', { id: 's1', spec: serviceSpec('a') }),
      b.event('TasksCreated', { tasks: Array.from({ length: 2_500 }, (_, i) => ({ id: `t${i}`, serviceId: 's1', slot: i + 1, specVersion: 1, desiredState: 512 as never })) }),
    ]);
    const store = new FileSnapshotStore(dir);
    const saved = replay(records).snapshot();
    await store.save(saved);
    const restored = Projection.fromSnapshot((await store.latest())!);
    if (typeof restored === 'string') throw new Error(restored);
    expect(restored.state.tasks.size).toBe(2_500);
    expect(restored.hash()).toBe(saved.hash);
  });

  const manyTasks = () => {
    const b = new EventBuilder();
    return toRecords([
      b.event('ServiceCreated', { id: 's1', spec: serviceSpec('a') }),
      b.event('TasksCreated', { tasks: Array.from({ length: 2_500 }, (_, i) => ({ id: `t${i}`, serviceId: 's1', slot: i + 1, specVersion: 1, desiredState: 512 as never })) }),
    ]);
  };
  const fileOf = (offset: number) => join(dir, `${String(offset).padStart(16, '0')}.json`);

  it('writes a snapshot in lines, none of the whole state, and reads it back intact: restored without hashing it again', async () => {
    const store = new FileSnapshotStore(dir);
    const saved = replay(manyTasks()).snapshot();
    await store.save(saved);
    const text = await readFile(fileOf(saved.offset), 'utf8');
    expect(text.startsWith(LINES_PREFIX)).toBe(true);
    const lines = text.split('\n');
    expect(lines.length).toBeGreaterThan(3);
    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(text.length / 2);
    const read = (await store.latest())!;
    expect(read).toEqual(saved);
    const trusted = Projection.fromSnapshot(read, {}, 'file digest');
    if (typeof trusted === 'string') throw new Error(trusted);
    expect(trusted.hash()).toBe(saved.hash);
    // Trusted by its digest, the state is not hashed again: the object read, changed after, still restores…
    (read as { hash: string }).hash = 'f'.repeat(64);
    expect(Projection.fromSnapshot(read, {}, 'file digest')).toBeInstanceOf(Projection);
    // …while the default (the audit's) hashes it, and a copy of it is not trusted.
    expect(Projection.fromSnapshot(read)).toMatch(/snapshot hash mismatch/);
    expect(Projection.fromSnapshot({ ...read }, {}, 'file digest')).toMatch(/snapshot hash mismatch/);
  });

  it('refuses a file in lines whose bytes changed or that was cut short, and falls back to an older one', async () => {
    const records = manyTasks();
    const store = new FileSnapshotStore(dir, 10);
    await store.save(replay(records, { to: 1 }).snapshot());
    const newest = replay(records).snapshot();
    await store.save(newest);
    const text = await readFile(fileOf(newest.offset), 'utf8');
    // One character of a task changed, the line still JSON: only the digest tells.
    const changed = text.replace('"slot":2,', '"slot":3,');
    expect(changed).not.toBe(text);
    await writeFile(fileOf(newest.offset), changed);
    expect((await store.latest())?.offset).toBe(1);
    // Cut short at a line's end: every line read parses, the digest line is missing.
    await writeFile(fileOf(newest.offset), text.slice(0, text.lastIndexOf('\n', text.length - 2) + 1));
    expect((await store.latest())?.offset).toBe(1);
    await writeFile(fileOf(newest.offset), text);
    expect((await store.latest())?.offset).toBe(newest.offset);
  });

  it('still reads a snapshot written as one JSON document (formats 1 and 2), checked by its hash', async () => {
    const store = new FileSnapshotStore(dir);
    const saved = replay(manyTasks()).snapshot();
    await writeFile(fileOf(saved.offset), [...snapshotJson(saved)].join(''));
    const read = (await store.latest())!;
    expect(read).toEqual(saved);
    expect(Projection.fromSnapshot({ ...read, hash: 'f'.repeat(64) }, {}, 'file digest')).toMatch(/snapshot hash mismatch/);
    expect(Projection.fromSnapshot(read, {}, 'file digest')).not.toEqual(expect.any(String));
    await writeFile(fileOf(saved.offset), JSON.stringify({ ...saved, hash: 'f'.repeat(64) }));
    expect(Projection.fromSnapshot((await store.latest())!, {}, 'file digest')).toMatch(/snapshot hash mismatch/);
  });

  it('answers nothing for a directory that does not exist', async () => {
    expect(await new FileSnapshotStore(join(dir, 'none')).latest()).toBeUndefined();
  });
});
