/**
 * `shoal audit story` and `shoal audit index` on the embedded log: the index built on first
 * use, brought up to the log's end when it has grown, built again when it is another log's;
 * a task's story with the scheduler's reasons and the refusals, as lines and as JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { auditIndex, auditStory } from './audit-story';

const b = new EventBuilder('c1');
const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
const HISTORY: ShoalEvent[] = [
  clusterInit(b), // 0
  b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }), // 1
  b.event('ServiceCreated', { id: 's1', spec: web }), // 2
  b.event('TasksCreated', { tasks: [newTask('t1', 's1', web, { slot: 1 })] }), // 3
  b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }), // 4
  b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'spread: node-1 has the fewest tasks of web' }, { id: 'tX', nodeId: 'n1', why: 'x' }] }), // 5 partial
  b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }), // 6
];

describe('shoal audit story', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'shoal-audit-story-'));
  let out = '';
  let err = '';
  const saved = { dataDir: process.env.SHOAL_DATA_DIR, brokers: process.env.KAFKA_BROKERS };
  const append = async (events: readonly ShoalEvent[], dir = join(dataDir, 'log')): Promise<void> => {
    const log = await EmbeddedEventLog.open({ dir });
    await log.append(events.map((event) => ({ key: event.cluster, value: encode(event) })));
    await log.close();
  };
  const story = async (id: string, json = true): Promise<{ code: number; out: string; err: string }> => {
    out = '';
    err = '';
    const code = await auditStory(id, { json });
    return { code, out, err };
  };

  beforeAll(async () => {
    process.env.SHOAL_DATA_DIR = dataDir;
    delete process.env.KAFKA_BROKERS;
    await append(HISTORY);
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
    jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => ((err += String(chunk)), true));
  });
  afterAll(() => {
    jest.restoreAllMocks();
    if (saved.dataDir === undefined) delete process.env.SHOAL_DATA_DIR;
    else process.env.SHOAL_DATA_DIR = saved.dataDir;
    if (saved.brokers !== undefined) process.env.KAFKA_BROKERS = saved.brokers;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("builds the index on first use and tells a task's story as JSON, with verdicts and the placement's reason", async () => {
    const first = await story('t1');
    expect(first.code).toBe(0);
    expect(first.err).toBe('story index built from offset 0: 7 records\n');
    const body = JSON.parse(first.out) as { id: string; index: { through: number; how: string }; records: { offset: number; type: string; verdict: { status: string; refused?: string[] }; item: unknown }[] };
    expect(body.index).toMatchObject({ through: 7, how: 'built', dir: join(dataDir, 'story-index') });
    expect(body.records.map((r) => [r.offset, r.type, r.verdict.status])).toEqual([
      [3, 'TasksCreated', 'applied'],
      [4, 'TasksAllocated', 'applied'],
      [5, 'TasksAssigned', 'partial'],
      [6, 'TaskStatusesReported', 'applied'],
    ]);
    expect(body.records[2]).toMatchObject({ verdict: { refused: ['tX'] }, item: { id: 't1', why: 'spread: node-1 has the fewest tasks of web' } });
    expect(body.records[3]!.item).toEqual({ id: 't1', state: 'RUNNING', at: HISTORY[6]!.at });
    // The index is current now: nothing to read.
    expect((await story('t1')).err).toBe('');
  });

  it('prints one line a record: the reason of a placement, a refusal with its reason', async () => {
    const t1 = await story('t1', false);
    const lines = t1.out.trimEnd().split('\n');
    expect(lines[0]).toBe('4 records touched t1');
    expect(lines[3]).toMatch(/^\s+5 {2}\S+ {2}TasksAssigned +scheduler\/\S+ +why: spread: node-1 has the fewest tasks of web$/);
    const tX = await story('tX', false);
    expect(tX.out).toMatch(/TasksAssigned .* REFUSED \(partial\): task tX not found/);
    const nobody = await story('nobody', false);
    expect(nobody).toMatchObject({ code: 1, err: 'shoal: no record touched nobody (of 7 records indexed)\n' });
  });

  it('brings the index up to the end of a log that grew, and builds it again for another log', async () => {
    await append([b.event('ServiceRemoved', { id: 's1' })]);
    const grown = await story('s1');
    expect(grown.err).toBe('story index brought up to offset 8: 1 records after it\n');
    const told = (JSON.parse(grown.out) as { records: { offset: number; item: unknown }[] }).records;
    expect(told.map((r) => r.offset)).toEqual([2, 3, 7]);
    // A service's record lists its tasks: their states by name, without the spec they run.
    expect(told[1]!.item).toEqual({ tasks: [{ id: 't1', serviceId: 's1', slot: 1, specVersion: 1, desiredState: 'RUNNING' }] });

    // The data dir's log replaced by another cluster's, as long or longer.
    rmSync(join(dataDir, 'log'), { recursive: true, force: true });
    const c2 = new EventBuilder('c2');
    await append([clusterInit(c2), ...Array.from({ length: 8 }, (_, i) => c2.event('ServiceCreated', { id: `s${i}`, spec: serviceSpec(`web-${i}`) }))]);
    const other = await story('s1');
    expect(other.err).toMatch(/^story index built from offset 0: 9 records \(the index there was refused: the log's record at offset 0 is not the one the story index was built from/);
    expect((JSON.parse(other.out) as { records: { offset: number; type: string }[] }).records).toEqual([expect.objectContaining({ offset: 2, type: 'ServiceCreated' })]);

    out = '';
    expect(await auditIndex({})).toBe(0);
    expect(out).toMatch(/how {7}current: nothing to read\nthrough {3}offset 9 \(9 records\)\nentities {2}9 \(9 records touching them\)/);
    out = '';
    expect(await auditIndex({ rebuild: true, snapshotsEvery: 4 })).toBe(0);
    expect(out).toContain(`snapshots 2 in ${join(dataDir, 'snapshots', 'audit')}, every 4 records`);
  });
});
