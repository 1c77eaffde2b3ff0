import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Projection, replay } from '@shoal/domain';
import { EventBuilder, serviceSpec, toRecords } from '@shoal/testing';
import { FileSnapshotStore } from './file-snapshot-store';

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

  it('answers nothing for a directory that does not exist', async () => {
    expect(await new FileSnapshotStore(join(dir, 'none')).latest()).toBeUndefined();
  });
});
