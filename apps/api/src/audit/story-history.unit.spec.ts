/**
 * GET /shoal/v1/audit/tasks/{id}/history from the story index beside the snapshots: the
 * same answer as the audit trail gives, without the trail replaying the log; the records
 * written since the index was built included; an index of another log refused, and the
 * trail answering instead.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, encode } from '@shoal/contracts';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { buildStoryIndex } from '@shoal/runtime';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import { AuditModule } from './audit.module';
import type { AuditTrail } from './audit-trail';
import { AUDIT_TRAIL } from './audit.service';
import type { TaskHistory } from './audit.service';

const b = new EventBuilder('c1');
const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
const HISTORY = [
  clusterInit(b), // 0
  b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }), // 1
  b.event('ServiceCreated', { id: 's1', spec: web }), // 2
  b.event('TasksCreated', { tasks: [newTask('t1', 's1', web, { slot: 1 })] }), // 3
  b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }), // 4
  b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'spread: node-1 has the fewest tasks of web' }, { id: 'tX', nodeId: 'n1', why: 'x' }] }), // 5 partial
  b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }), // 6
];
const LATER = b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.FAILED, at: b.now(), err: 'exit status 1', exitCode: 1 }] }); // 7

describe('a task history from the story index', () => {
  let api: StandaloneApi;
  let trail: AuditTrail;
  const history = async (id: string): Promise<TaskHistory> => {
    const res = await api.get(`/shoal/v1/audit/tasks/${id}/history`);
    expect(res.status).toBe(200);
    return (await res.json()) as TaskHistory;
  };

  beforeAll(async () => {
    api = await startStandaloneApi([AuditModule]);
    await api.append(HISTORY);
    trail = api.app.get(AUDIT_TRAIL);
  });
  afterAll(() => api.close());

  it('answers from the index, reading only the task\'s records, as the trail would; the records since the index included', async () => {
    const built = await buildStoryIndex(api.log, join(api.dir, 'story-index'));
    const fromIndex = await history('t1');
    expect(trail.position).toBe(0); // the trail never read the log
    expect(fromIndex.index).toEqual({ through: 7, digest: built.manifest.digest });
    expect(fromIndex.placement).toBe('spread: node-1 has the fewest tasks of web');
    expect(fromIndex.records.map((r) => [r.offset, r.type, r.outcome, r.verdict.status])).toEqual([
      [3, 'TasksCreated', 'applied', 'applied'],
      [4, 'TasksAllocated', 'applied', 'applied'],
      [5, 'TasksAssigned', 'applied', 'partial'],
      [6, 'TaskStatusesReported', 'applied', 'applied'],
    ]);
    const refused = await history('tX');
    expect(refused.records).toEqual([expect.objectContaining({ offset: 5, outcome: 'refused', verdict: { status: 'partial', reasons: ['task tX not found'], codes: ['not-found'] } })]);

    await api.append([LATER]);
    const withTail = await history('t1');
    expect(withTail.index).toEqual({ through: 7, digest: built.manifest.digest });
    expect(withTail.records.map((r) => r.offset)).toEqual([3, 4, 5, 6, 7]);
    expect(withTail.records[4]!.item).toMatchObject({ id: 't1', state: 'FAILED', err: 'exit status 1' });
    expect(trail.position).toBe(0);

    // The audit trail's answer, the same records and verdicts.
    const dir = await mkdtemp(join(tmpdir(), 'shoal-other-'));
    try {
      // An index of another log (the same story, another cluster's) in the place of this one's: refused, and the trail answers.
      const c2 = new EventBuilder('c2');
      const other = await EmbeddedEventLog.open({ dir: join(dir, 'log'), sync: false });
      await other.append(
        [
          clusterInit(c2),
          c2.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
          c2.event('ServiceCreated', { id: 's1', spec: web }),
          c2.event('TasksCreated', { tasks: [newTask('t1', 's1', web, { slot: 1 })] }),
          c2.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
          c2.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'the only node' }] }),
          c2.event('ServiceRemoved', { id: 's1' }),
          c2.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: c2.now() }] }),
        ].map((event) => ({ key: 'c2', value: encode(event) })),
      );
      await buildStoryIndex(other, join(api.dir, 'story-index'), { fresh: true });
      await other.close();
      const fromTrail = await history('t1');
      expect(fromTrail.index).toBeUndefined();
      expect(trail.position).toBe(8);
      expect(fromTrail).toEqual({ ...withTail, index: undefined });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
