/**
 * The story index's copies of the records: a story read from them is the one read from the
 * log; they are files of 4,096 records continued by each build; a copy that is not the
 * record indexed, or cannot be read, is read from the log instead.
 */
import { mkdtemp, readFile, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '@shoal/contracts';
import { EmbeddedEventLog } from '@shoal/eventlog';
import type { EventLog, LogRecord } from '@shoal/eventlog';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { RECORDS_PER_FILE, RecordCopiesWriter, readCopies } from './story-copies';
import { buildStoryIndex, checkStoryIndex, readStory } from './story-index';
import type { StoryReadFrom } from './story-index';

const b = new EventBuilder('c1');
const web = serviceSpec('web', { kind: 'replicated', replicas: 2 });
const HISTORY = [
  clusterInit(b), // 0
  b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }), // 1
  b.event('ServiceCreated', { id: 's1', spec: web }), // 2
  b.event('TasksCreated', { tasks: [newTask('t1', 's1', web, { slot: 1 }), newTask('t2', 's1', web, { slot: 2 })] }), // 3
  b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }, { id: 't2', attachments: [] }] }), // 4
  b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'spread' }] }), // 5
].map(encode);

/** Records that touch nothing: node heartbeats are not on the log, so poison does (and is copied all the same). */
const filler = (from: number, count: number): string[] => Array.from({ length: count }, (_, i) => `{"filler":${from + i}}`);

describe("the story index's copies of the records", () => {
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
    return (await readStory(dir, check.manifest, log, id, readFrom)).map((entry) => entry.record);
  };
  const files = async (dir: string): Promise<string[]> => (await readdir(join(dir, 'records'))).sort();
  const name = (first: number, end: number): string => `${String(first).padStart(16, '0')}-${String(end).padStart(16, '0')}.bin`;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'shoal-story-copies-'));
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((log) => log.close()));
    await rm(root, { recursive: true, force: true });
  });

  it('tells the story the log tells, and, once the log changed, the records as they were indexed', async () => {
    const log = await open('log', HISTORY);
    const dir = join(root, 'index');
    await buildStoryIndex(log, dir);
    expect(await files(dir)).toEqual([name(0, 6)]);
    for (const id of ['t1', 't2', 's1', 'n1']) expect(await story(dir, log, id)).toEqual(await story(dir, log, id, 'log'));
    expect(await story(dir, log, 't1')).toEqual((await log.read(3, { to: 6 })).map(({ offset, key, value }) => ({ offset, key, value })));

    // A log whose record 4 differs, its anchors (first and last) the same: the copies tell what was indexed.
    const changed = await open('changed', [...HISTORY.slice(0, 4), encode(b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] })), HISTORY[5]!]);
    expect((await story(dir, changed, 't1')).map((record) => record.value)).toEqual([HISTORY[3], HISTORY[4], HISTORY[5]]);
    await expect(story(dir, changed, 't1', 'log')).rejects.toThrow("the log's record at offset 4 is not the one the story index was built from");
  });

  it('reads from the log a copy that is not the record indexed, or that its file no longer holds', async () => {
    const log = await open('log', HISTORY);
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
    expect((await readCopies(dir, [3, 4])).get(4)?.value).toBe(HISTORY[3]);
    // The story is still the log's: record 4 was read from it.
    const changed = await open('changed', [...HISTORY.slice(0, 4), encode(b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] })), HISTORY[5]!]);
    await expect(story(dir, changed, 't1')).rejects.toThrow("the log's record at offset 4 is not the one the story index was built from");
    expect((await story(dir, log, 't1')).map((record) => record.value)).toEqual([HISTORY[3], HISTORY[4], HISTORY[5]]);

    // The file cut in the middle of the records: those past the cut are read from the log.
    await writeFile(path, bytes);
    await truncate(path, start4 + 2);
    expect([...(await readCopies(dir, [0, 3, 4, 5])).keys()]).toEqual([0, 3]);
    expect((await story(dir, log, 't1')).map((record) => record.value)).toEqual([HISTORY[3], HISTORY[4], HISTORY[5]]);

    // No copies at all.
    await rm(join(dir, 'records'), { recursive: true });
    expect(await story(dir, log, 's1')).toEqual(await story(dir, log, 's1', 'log'));
  });

  it(`keeps ${RECORDS_PER_FILE} records a file, continues the last file when extended, and begins again when built from offset 0`, async () => {
    const log = await open('log', [...HISTORY, ...filler(6, 4_994)]);
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
    expect((await story(dir, log, 's1')).map((record) => record.offset)).toEqual([2, 3, 8_200]);

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
