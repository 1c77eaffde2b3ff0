/**
 * The story index on the embedded log: a task's and a service's story with their verdicts,
 * the same index whether built in one go or extended, refused when it is another log's or
 * the log was cut, and never trusted past what the log holds; its copies of the records
 * tell the story the log tells, each kept only when it is the record indexed.
 */
import { mkdtemp, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { TaskState, decode, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import { EmbeddedEventLog, FileSnapshotStore, snapshotAtOrBefore } from '@shoal/eventlog';
import type { EventLog, LogRecord } from '@shoal/eventlog';
import { EventBuilder, clusterInit, histories, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { replayLog } from '../audit';
import { entityIdsOf } from './entities';
import { RECORDS_PER_FILE, RecordCopiesWriter, readCopies } from './story-copies';
import { buildStoryIndex, checkStoryIndex, readStory } from './story-index';
import type { StoryReadFrom, StoryRecord } from './story-index';
import { readRecordDigests, readStoryManifest, shardOf, writeStoryIndex } from './story-index-files';
import { StoryPostings } from './story-postings';
import { StoryReader } from './story-reader';

const b = new EventBuilder('c1');
const web = serviceSpec('web', { kind: 'replicated', replicas: 2 });
/** A node, a service, two tasks (one placed, one unschedulable), a partial batch, a rejected update, poison, a report. */
const HISTORY: (ShoalEvent | string)[] = [
  clusterInit(b), // 0
  b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }), // 1
  b.event('ServiceCreated', { id: 's1', spec: web }), // 2
  b.event('TasksCreated', { tasks: [newTask('t1', 's1', web, { slot: 1 }), newTask('t2', 's1', web, { slot: 2 })] }), // 3
  b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }, { id: 't2', attachments: [] }] }), // 4
  b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'spread: node-1 has the fewest tasks of web' }, { id: 'tX', nodeId: 'n1', why: 'x' }] }), // 5 partial
  b.event('TasksUnschedulable', { tasks: [{ id: 't2', explain: 'no suitable node (max replicas per node on 1 node)' }] }), // 6
  b.event('ServiceUpdated', { id: 's1', spec: web }, { expect: { serviceVersions: { s1: 7 } } }), // 7 rejected
  '{"id":', // 8 poison
  b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }), // 9
];
const MORE: ShoalEvent[] = [
  b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.FAILED, at: b.now(), err: 'exit status 1', exitCode: 1 }] }), // 10
  b.event('ServiceRemoved', { id: 's1' }), // 11
];

const values = (events: readonly (ShoalEvent | string)[]): string[] => events.map((event) => (typeof event === 'string' ? event : encode(event)));

describe('the story index', () => {
  let root: string;
  const logs: EventLog[] = [];
  const open = async (name: string, records: readonly string[]): Promise<EventLog> => {
    const log = await EmbeddedEventLog.open({ dir: join(root, name), sync: false });
    logs.push(log);
    if (records.length > 0) await log.append(records.map((value) => ({ key: 'c1', value })));
    return log;
  };
  const story = async (dir: string, log: EventLog, id: string, readFrom?: StoryReadFrom) => {
    const check = await checkStoryIndex(dir, log);
    if (!check.ok) throw new Error(check.reason);
    return readStory(dir, check.manifest, log, id, readFrom);
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'shoal-story-'));
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((log) => log.close()));
    await rm(root, { recursive: true, force: true });
  });

  it("answers a task's story, every record that touched it, with evolve's verdicts and the scheduler's reasons", async () => {
    const log = await open('log', values(HISTORY));
    const dir = join(root, 'index');
    const build = await buildStoryIndex(log, dir);
    expect(build).toMatchObject({ how: 'built', read: 10, manifest: { through: 10, records: 10, cluster: 'c1' } });
    expect(build.manifest.hash).toBe((await new Projection().applyAll(await log.read(0))).hash());

    const t1 = await story(dir, log, 't1');
    expect(t1.map((entry) => [entry.record.offset, entry.event.type, entry.verdict.status])).toEqual([
      [3, 'TasksCreated', 'applied'],
      [4, 'TasksAllocated', 'applied'],
      [5, 'TasksAssigned', 'partial'],
      [9, 'TaskStatusesReported', 'applied'],
    ]);
    // The batch was partial, but not for t1: the refused item is named.
    expect(t1[2]!.verdict).toMatchObject({ refused: ['tX'], reasons: ['task tX not found'] });
    expect(t1[2]!.event.data).toMatchObject({ tasks: [{ id: 't1', why: 'spread: node-1 has the fewest tasks of web' }, { id: 'tX' }] });

    const t2 = await story(dir, log, 't2');
    expect(t2.map((entry) => entry.record.offset)).toEqual([3, 4, 6]);
    expect(t2[2]!.event.data).toEqual({ tasks: [{ id: 't2', explain: 'no suitable node (max replicas per node on 1 node)' }] });

    const s1 = await story(dir, log, 's1');
    expect(s1.map((entry) => [entry.record.offset, entry.verdict.status])).toEqual([
      [2, 'applied'],
      [3, 'applied'],
      [7, 'rejected'],
    ]);
    expect(s1[2]!.verdict.reasons[0]).toMatch(/update out of sequence: service s1 is at version 1, not 7/);
    expect(await story(dir, log, 'nobody')).toEqual([]);
  });

  it('is the same index built in one go or built halfway and extended: same digest, same stories', async () => {
    const whole = await open('whole', values([...HISTORY, ...MORE]));
    const once = await buildStoryIndex(whole, join(root, 'once'));

    const growing = await open('growing', values(HISTORY));
    const dir = join(root, 'growing-index');
    await buildStoryIndex(growing, dir);
    expect((await buildStoryIndex(growing, dir)).how).toBe('current');
    await growing.append(values(MORE).map((value) => ({ key: 'c1', value })));
    const extended = await buildStoryIndex(growing, dir);
    expect(extended).toMatchObject({ how: 'extended', read: 2 });
    expect(extended.manifest.digest).toBe(once.manifest.digest);
    expect(extended.manifest.shards).toEqual(once.manifest.shards);
    expect(extended.manifest.hash).toBe(once.manifest.hash);
    expect((await story(dir, growing, 's1')).map((entry) => entry.record.offset)).toEqual([2, 3, 7, 11]);
    // The generation before is kept for a reader still on it; older ones go (the copies of the records are shared).
    expect((await readdir(dir)).filter((name) => name !== 'index.json' && name !== 'records')).toHaveLength(2);
  });

  it('keeps a snapshot at every multiple of `every` on the way, from which the state at any point is the same as from offset 0', async () => {
    const log = await open('log', values(HISTORY));
    const store = new FileSnapshotStore(join(root, 'snapshots', 'audit'), Number.MAX_SAFE_INTEGER);
    const dir = join(root, 'index');
    await buildStoryIndex(log, dir, { snapshots: { store, every: 4 } });
    expect(await store.list()).toEqual([4, 8]);
    await log.append(values(MORE).map((value) => ({ key: 'c1', value })));
    expect(await buildStoryIndex(log, dir, { snapshots: { store, every: 4 } })).toMatchObject({ how: 'extended', read: 2 });
    expect(await store.list()).toEqual([4, 8, 12]);
    for (const to of [5, 9, 11]) {
      const start = await snapshotAtOrBefore(join(root, 'snapshots'), to);
      expect(start).toMatchObject({ name: 'audit', snapshot: { offset: Math.floor(to / 4) * 4 } });
      expect((await replayLog(log, { to, snapshot: start!.snapshot })).hash()).toBe((await replayLog(log, { to })).hash());
    }
  });

  it('refuses an index of another log, and one the log was cut short of, and builds it again from offset 0', async () => {
    const log = await open('log', values([...HISTORY, ...MORE]));
    const dir = join(root, 'index');
    await buildStoryIndex(log, dir);

    // Another log, as long, whose last record differs.
    const other = await open('other', values([...HISTORY, MORE[0]!, b.event('ServiceRemoved', { id: 's9' })]));
    const foreign = await checkStoryIndex(dir, other);
    expect(foreign).toEqual({ ok: false, reason: expect.stringMatching(/record at offset 11 is not the one the story index was built from/) });

    // The same log, cut: the index covers records it no longer holds.
    const cut = await open('cut', values(HISTORY));
    expect(await checkStoryIndex(dir, cut)).toEqual({ ok: false, reason: 'the story index covers 12 records, the log holds 10: it is of another log, or the log was cut' });

    // Another log whose first and last records are this one's: a story that reads a record that differs refuses the index.
    const changed = await open('changed', values([...HISTORY.slice(0, 4), b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }), ...HISTORY.slice(5), ...MORE]));
    expect(await checkStoryIndex(dir, changed)).toMatchObject({ ok: true });
    await expect(story(dir, changed, 't1', 'log')).rejects.toThrow("the log's record at offset 4 is not the one the story index was built from");
    // From the index's copies, the records as they were indexed.
    expect((await story(dir, changed, 't1')).map((entry) => entry.record.value)).toEqual([3, 4, 5, 9, 10].map((offset) => values([...HISTORY, ...MORE])[offset]));
    expect((await story(dir, changed, 'n1')).map((entry) => entry.record.offset)).toEqual([1, 5, 9, 10]);

    const rebuilt = await buildStoryIndex(other, dir);
    expect(rebuilt).toMatchObject({ how: 'built', read: 12, refused: expect.stringMatching(/another log/) });
    expect((await story(dir, other, 's9')).map((entry) => entry.record.offset)).toEqual([11]);
    expect(await checkStoryIndex(dir, other)).toMatchObject({ ok: true, behind: 0 });
    expect(await checkStoryIndex(join(root, 'none'), other)).toEqual({ ok: false, missing: true, reason: `no story index in ${join(root, 'none')}` });
  });

  it('refuses a shard changed on disk, and an index whose offsets name records that do not touch the entity', async () => {
    const log = await open('log', values(HISTORY));
    const dir = join(root, 'index');
    const { manifest } = await buildStoryIndex(log, dir);
    const shard = join(dir, manifest.data, `shard-${String(shardOf('t1')).padStart(3, '0')}.json`);
    const text = await readFile(shard, 'utf8');
    // Offsets 3, 4, 5, 9 as gaps; the last one dropped.
    expect(text).toContain('["t1",[3,1,1,4],');
    await writeFile(shard, text.replace('["t1",[3,1,1,4],', '["t1",[3,1,1],'));
    await expect(story(dir, log, 't1')).rejects.toThrow(`the story index's shard ${shardOf('t1')} is not the one its manifest names`);

    // A whole index, consistent with itself, that says t1 was touched at offset 2 (the service's creation).
    const forged = new StoryPostings();
    for (const offset of [2, 3, 4]) forged.addPosting('t1', offset);
    const state = new Projection().applyAll(await log.read(0));
    const digests = await readRecordDigests(dir, manifest);
    await writeStoryIndex(dir, { ...manifest, postings: forged, digests, snapshot: state.snapshot() });
    await expect(story(dir, log, 't1')).rejects.toThrow('the record at offset 2 does not touch t1, though the story index says it does: the index does not match the log');
    await expect(story(dir, log, 't1', 'log')).rejects.toThrow('the record at offset 2 does not touch t1');
    expect(await new StoryReader(dir, log).story('t1')).toEqual({ ok: false, reason: expect.stringMatching(/record at offset 2 does not touch t1/) });
  });

  it('answers through a reader with the records written since the index was built, with their verdicts', async () => {
    const log = await open('log', values(HISTORY));
    const dir = join(root, 'index');
    await buildStoryIndex(log, dir);
    const reader = new StoryReader(dir, log);
    await log.append([...values(MORE), values([b.event('ServiceUpdated', { id: 's1', spec: web })])[0]!].map((value) => ({ key: 'c1', value })));
    const answer = await reader.story('s1');
    if (!answer.ok) throw new Error(answer.reason);
    expect(answer).toMatchObject({ through: 10, end: 13 });
    expect(answer.records.map((entry) => [entry.record.offset, entry.verdict.status])).toEqual([
      [2, 'applied'],
      [3, 'applied'],
      [7, 'rejected'],
      [11, 'applied'],
      [12, 'rejected'],
    ]);
    expect(answer.records[4]!.verdict.reasons[0]).toMatch(/service s1 not found/);
    expect((await readStoryManifest(dir)).through).toBe(10);
  });

  it('holds, for any history, every record that touches each entity and its verdict; extended at any point, the same index', async () => {
    await fc.assert(
      fc.asyncProperty(histories(60), fc.nat(60), async (records, cutAt) => {
        const cut = Math.min(cutAt, records.length);
        const dir = await mkdtemp(join(root, 'p-'));
        const log = await EmbeddedEventLog.open({ dir: join(dir, 'log'), sync: false });
        try {
          if (cut > 0) await log.append(records.slice(0, cut).map((value) => ({ key: 'c1', value })));
          await buildStoryIndex(log, join(dir, 'extended'));
          if (cut < records.length) await log.append(records.slice(cut).map((value) => ({ key: 'c1', value })));
          const extended = await buildStoryIndex(log, join(dir, 'extended'));
          const once = await buildStoryIndex(log, join(dir, 'once'));
          expect(extended.manifest.digest).toBe(once.manifest.digest);

          // What a scan of the whole log finds, with the verdicts a replay gives.
          const expected = new Map<string, [number, string][]>();
          const projection = new Projection(undefined, 0, { keepRefusals: 0 });
          for (const record of await log.read(0)) {
            const decoded = decode(record.value);
            const verdict = projection.applyDecoded(record.offset, decoded);
            if (!verdict || !decoded.ok) continue;
            for (const id of entityIdsOf(decoded.event)) expected.set(id, [...(expected.get(id) ?? []), [record.offset, verdict.status]]);
          }
          for (const [id, told] of expected) {
            expect((await story(join(dir, 'once'), log, id)).map((entry) => [entry.record.offset, entry.verdict.status])).toEqual(told);
            // The extended index's copies were continued, not begun again: they tell the same.
            expect((await story(join(dir, 'extended'), log, id)).map((entry) => [entry.record.offset, entry.verdict.status])).toEqual(told);
          }
        } finally {
          await log.close();
        }
      }),
      { numRuns: 15 },
    );
  });

  describe("its copies of the records", () => {
    /** The first six records of HISTORY, as written. */
    const SIX = values(HISTORY.slice(0, 6));
    /** Records that touch nothing: poison is copied all the same. */
    const filler = (from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `{"filler":${from + i}}`);
    const records = (entries: readonly StoryRecord[]): LogRecord[] => entries.map((entry) => entry.record);
    const files = async (dir: string): Promise<string[]> => (await readdir(join(dir, 'records'))).sort();
    const name = (first: number, end: number): string => `${String(first).padStart(16, '0')}-${String(end).padStart(16, '0')}.bin`;

    it('tells the story the log tells, and, once the log changed, the records as they were indexed', async () => {
      const log = await open('log', SIX);
      const dir = join(root, 'index');
      await buildStoryIndex(log, dir);
      expect(await files(dir)).toEqual([name(0, 6)]);
      for (const id of ['t1', 't2', 's1', 'n1']) expect(records(await story(dir, log, id))).toEqual(records(await story(dir, log, id, 'log')));
      expect(records(await story(dir, log, 't1'))).toEqual((await log.read(3, { to: 6 })).map(({ offset, key, value }) => ({ offset, key, value })));

      // A log whose record 4 differs, its anchors (first and last) the same: the copies tell what was indexed.
      const changed = await open('changed', [...SIX.slice(0, 4), encode(b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] })), SIX[5]!]);
      expect(records(await story(dir, changed, 't1')).map((record) => record.value)).toEqual([SIX[3], SIX[4], SIX[5]]);
      await expect(story(dir, changed, 't1', 'log')).rejects.toThrow("the log's record at offset 4 is not the one the story index was built from");
    });

    it('reads from the log a copy that is not the record indexed, or that its file no longer holds', async () => {
      const log = await open('log', SIX);
      const dir = join(root, 'index');
      await buildStoryIndex(log, dir);
      const path = join(dir, 'records', name(0, 6));
      const bytes = await readFile(path);

      // Record 4's copy made record 3's (a whole, readable copy of another record): not the one indexed.
      const positions = (i: number): [number, number] => [bytes.readUInt32LE(4 * i), bytes.readUInt32LE(4 * (i + 1))];
      const [start3, end3] = positions(3);
      const [start4, end4] = positions(4);
      const forged = Buffer.concat([bytes.subarray(0, start4), bytes.subarray(start3, end3), bytes.subarray(end4)]);
      const shift = end3 - start3 - (end4 - start4);
      for (let i = 5; i <= 6; i++) forged.writeUInt32LE(bytes.readUInt32LE(4 * i) + shift, 4 * i);
      await writeFile(path, forged);
      expect((await readCopies(dir, [3, 4])).get(4)?.value).toBe(SIX[3]);
      // The story is still the log's: record 4 was read from it.
      const changed = await open('changed', [...SIX.slice(0, 4), encode(b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] })), SIX[5]!]);
      await expect(story(dir, changed, 't1')).rejects.toThrow("the log's record at offset 4 is not the one the story index was built from");
      expect(records(await story(dir, log, 't1')).map((record) => record.value)).toEqual([SIX[3], SIX[4], SIX[5]]);

      // The file cut in the middle of the records: those past the cut are read from the log.
      await writeFile(path, bytes);
      await truncate(path, start4 + 2);
      expect([...(await readCopies(dir, [0, 3, 4, 5])).keys()]).toEqual([0, 3]);
      expect(records(await story(dir, log, 't1')).map((record) => record.value)).toEqual([SIX[3], SIX[4], SIX[5]]);

      // No copies at all.
      await rm(join(dir, 'records'), { recursive: true });
      expect(records(await story(dir, log, 's1'))).toEqual(records(await story(dir, log, 's1', 'log')));
    });

    it(`keeps ${RECORDS_PER_FILE} records a file, continues the last file when extended, and begins again when built from offset 0`, async () => {
      const log = await open('log', [...SIX, ...filler(6, 4_994)]);
      const dir = join(root, 'index');
      await buildStoryIndex(log, dir);
      expect(await files(dir)).toEqual([name(0, RECORDS_PER_FILE), name(RECORDS_PER_FILE, 5_000)]);

      await log.append(filler(5_000, 3_000).map((value) => ({ key: 'c1', value })));
      expect(await buildStoryIndex(log, dir)).toMatchObject({ how: 'extended', read: 3_000 });
      expect(await files(dir)).toEqual([name(0, RECORDS_PER_FILE), name(RECORDS_PER_FILE, 8_000)]);
      await log.append([...filler(8_000, 200), encode(b.event('ServiceRemoved', { id: 's1' }))].map((value) => ({ key: 'c1', value })));
      await buildStoryIndex(log, dir);
      expect(await files(dir)).toEqual([name(0, 4_096), name(4_096, 8_192), name(8_192, 8_201)]);

      const everything = await log.read(0, { to: 8_201 });
      const copies = await readCopies(
        dir,
        everything.map((record) => record.offset),
      );
      expect([...copies.values()].sort((x, y) => x.offset - y.offset)).toEqual(everything.map(({ offset, key, value }): LogRecord => ({ offset, key, value })));
      expect(records(await story(dir, log, 's1')).map((record) => record.offset)).toEqual([2, 3, 8_200]);

      // Built again from offset 0: the copies are made again, none left of the others.
      await writeFile(join(dir, 'records', name(9_000, 9_001)), 'left by another build');
      await buildStoryIndex(log, dir, { fresh: true });
      expect(await files(dir)).toEqual([name(0, 4_096), name(4_096, 8_192), name(8_192, 8_201)]);
    });

    it('leaves the offsets the log has no record at empty, and drops what a build past `from` left before its manifest', async () => {
      const dir = join(root, 'index');
      const record = (offset: number): LogRecord => ({ offset, key: `k${offset}`, value: `{"at":${offset}}` });
      const first = await RecordCopiesWriter.open(dir, 0);
      for (const offset of [0, 1, 5, 9]) await first.add(record(offset));
      await first.close();
      expect(await files(dir)).toEqual([name(0, 10)]);
      expect([...(await readCopies(dir, [0, 1, 2, 5, 9, 10])).values()]).toEqual([0, 1, 5, 9].map(record));

      // Opened at 6 (the index covers 0–5): the copies of 9 are dropped, the file continued from 6.
      const again = await RecordCopiesWriter.open(dir, 6);
      await again.add(record(7));
      await again.close();
      expect(await files(dir)).toEqual([name(0, 8)]);
      expect([...(await readCopies(dir, [0, 1, 5, 7, 9])).values()]).toEqual([0, 1, 5, 7].map(record));

      // A file of copies past the index, and a shorter write of the same file beside the longer one: both dropped.
      await writeFile(join(dir, 'records', name(8, 12)), 'past the index');
      await writeFile(join(dir, 'records', name(0, 3)), 'an older, shorter write');
      const third = await RecordCopiesWriter.open(dir, 8);
      await third.close();
      expect(await files(dir)).toEqual([name(0, 8)]);
    });
  });
});
