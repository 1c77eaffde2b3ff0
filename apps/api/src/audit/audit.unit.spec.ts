import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import { FileSnapshotStore } from '@shoal/eventlog';
import type { ShoalEvent } from '@shoal/contracts';
import { replay } from '@shoal/domain';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import type { Task } from '@shoal/contracts';
import type { VerifyReport } from '@shoal/runtime';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import { AuditModule } from './audit.module';
import type { AuditPage, AuditRecord, AuditState, TaskHistory, TaskHistoryEntry } from './audit.service';
import type { Refusal } from '@shoal/domain';
import type { TaskExplanation } from './task-explain';

const POISON = '{"id":"p1","type":"ServiceExploded","v":1,"cluster":"c1","at":"2026-01-01T00:00:08.500Z","by":{"component":"api","instance":"x","term":0},"seq":1,"data":{}}';

/** A small history: a node, a service, two tasks (one placed, one unschedulable), a refusal, a partial batch, poison. */
const history = (): (ShoalEvent | string)[] => {
  const b = new EventBuilder('c1');
  const web = serviceSpec('web', { kind: 'replicated', replicas: 2 });
  return [
    clusterInit(b), // 0
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }), // 1
    b.event('ServiceCreated', { id: 's1', spec: web }), // 2
    b.event('TasksCreated', { tasks: [newTask('t1', 's1', web, { slot: 1 }), newTask('t2', 's1', web, { slot: 2 })] }), // 3
    b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }, { id: 't2', attachments: [] }] }), // 4
    b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'spread over 1 node; node-1 has the fewest tasks of web' }, { id: 'tX', nodeId: 'n1', why: 'x' }] }), // 5 partial
    b.event('TasksUnschedulable', { tasks: [{ id: 't2', explain: 'no suitable node (max replicas per node on 1 node)' }] }), // 6
    b.event('ServiceUpdated', { id: 's1', spec: web }, { expect: { serviceVersions: { s1: 7 } } }), // 7 rejected
    POISON, // 8
    b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }), // 9
  ];
};

describe('audit surface', () => {
  let api: StandaloneApi;
  let events: (ShoalEvent | string)[];

  beforeAll(async () => {
    api = await startStandaloneApi([AuditModule]);
    events = history();
    await api.append(events);
  });
  afterAll(() => api.close());

  const json = async <T = AuditPage>(path: string): Promise<{ status: number; body: T }> => {
    const res = await api.get(path);
    return { status: res.status, body: (await res.json()) as T };
  };

  describe('GET /shoal/v1/audit/events', () => {
    it('lists every record with its verdict: applied, partial, rejected and poison with their reasons', async () => {
      const { status, body } = await json('/shoal/v1/audit/events');
      expect(status).toBe(200);
      expect(body.highWaterMark).toBe(10);
      expect(body.next).toBeNull();
      const verdicts = body.records.map((r: AuditRecord) => [r.offset, r.type, r.verdict.status]);
      expect(verdicts).toEqual([
        [0, 'ClusterInitialized', 'applied'],
        [1, 'NodeRegistered', 'applied'],
        [2, 'ServiceCreated', 'applied'],
        [3, 'TasksCreated', 'applied'],
        [4, 'TasksAllocated', 'applied'],
        [5, 'TasksAssigned', 'partial'],
        [6, 'TasksUnschedulable', 'applied'],
        [7, 'ServiceUpdated', 'rejected'],
        [8, 'ServiceExploded', 'poison'],
        [9, 'TaskStatusesReported', 'applied'],
      ]);
      expect(body.records[5].verdict.reasons).toEqual(['task tX not found']);
      expect(body.records[7].verdict.reasons[0]).toMatch(/update out of sequence: service s1 is at version 1, not 7/);
      expect(body.records[8].verdict.reasons[0]).toMatch(/unknown event type "ServiceExploded"/);
      expect(body.records[8].raw).toBe(POISON);
      expect(body.records[2]).toMatchObject({ id: 'e3', by: 'api/api-1@0', data: { id: 's1' }, entities: [{ kind: 'service', id: 's1' }] });
    });

    it('pages with from and limit, and tells where the next page starts', async () => {
      const first = await json('/shoal/v1/audit/events?limit=4');
      expect(first.body.records.map((r) => r.offset)).toEqual([0, 1, 2, 3]);
      expect(first.body.next).toBe(4);
      const second = await json(`/shoal/v1/audit/events?from=${first.body.next}&limit=4`);
      expect(second.body.records.map((r) => r.offset)).toEqual([4, 5, 6, 7]);
      const last = await json('/shoal/v1/audit/events?from=8&limit=4');
      expect(last.body.records.map((r) => r.offset)).toEqual([8, 9]);
      expect(last.body.next).toBeNull();
    });

    it('filters by type and by entity', async () => {
      const byType = await json('/shoal/v1/audit/events?type=TasksAssigned');
      expect(byType.body.records.map((r) => r.offset)).toEqual([5]);
      const byEntity = await json('/shoal/v1/audit/events?entity=t2');
      expect(byEntity.body.records.map((r) => r.offset)).toEqual([3, 4, 6]);
      const both = await json('/shoal/v1/audit/events?entity=n1&type=TaskStatusesReported');
      expect(both.body.records.map((r) => r.offset)).toEqual([9]);
      const byName = await json('/shoal/v1/audit/events?entity=web');
      const byId = await json('/shoal/v1/audit/events?entity=s1');
      expect(byId.body.records.length).toBeGreaterThan(0);
      expect(byName.body.records.map((r) => r.offset)).toEqual(byId.body.records.map((r) => r.offset));
      const byHostname = await json('/shoal/v1/audit/events?entity=node-1&type=TaskStatusesReported');
      expect(byHostname.body.records.map((r) => r.offset)).toEqual([9]);
      const paged = await json('/shoal/v1/audit/events?entity=t1&limit=2');
      expect(paged.body.records.map((r) => r.offset)).toEqual([3, 4]);
      expect(paged.body.next).toBe(5);
    });

    it('filters by verdict, alone and with an entity or a type', async () => {
      const refused = await json('/shoal/v1/audit/events?verdict=rejected');
      expect(refused.body.records.map((r: AuditRecord) => r.offset)).toEqual([7]);
      const poison = await json('/shoal/v1/audit/events?verdict=poison');
      expect(poison.body.records.map((r: AuditRecord) => r.offset)).toEqual([8]);
      const partialForN1 = await json('/shoal/v1/audit/events?verdict=partial&entity=n1');
      expect(partialForN1.body.records.map((r: AuditRecord) => r.offset)).toEqual([5]);
      const applied = await json('/shoal/v1/audit/events?verdict=applied&type=TasksAssigned');
      expect(applied.body.records).toEqual([]);
      const bad = await json<{ message: string }>('/shoal/v1/audit/events?verdict=maybe');
      expect(bad.status).toBe(400);
      expect(bad.body.message).toMatch(/verdict: must be one of applied, partial, rejected, poison/);
    });

    it('sees records appended after an earlier answer', async () => {
      const before = await json('/shoal/v1/audit/events?from=9');
      expect(before.body.records).toHaveLength(1);
      const more = new EventBuilder('c1', Date.parse('2026-02-01T00:00:00Z'));
      await api.append([more.event('NodeStatusChanged', { nodes: [{ id: 'nZ', state: 'down' }] }, { instance: 'dispatcher-2' })]);
      const after = await json('/shoal/v1/audit/events?from=9');
      expect(after.body.records.map((r: AuditRecord) => [r.offset, r.verdict.status])).toEqual([[9, 'applied'], [10, 'rejected']]);
      expect(after.body.highWaterMark).toBe(11);
    });

    it.each([
      ['from=-1', /from: must be a non-negative integer offset/],
      ['from=abc', /from: must be a non-negative integer offset/],
      ['limit=0', /limit: must be an integer from 1 to 1000/],
      ['limit=5000', /limit: must be an integer from 1 to 1000/],
      ['type=Nonsense', /type: must be an event type: one of ClusterInitialized/],
      ['entity=', /entity: must not be empty/],
    ])('answers 400 in Docker\'s error shape for %s', async (query, message) => {
      const { status, body } = await json<{ message: string }>(`/shoal/v1/audit/events?${query}`);
      expect(status).toBe(400);
      expect(body.message).toMatch(message);
    });
  });

  describe('GET /shoal/v1/audit/state', () => {
    it('gives the state at an offset with the hash a fresh replay to that offset reaches', async () => {
      for (const at of [0, 3, 6, 9]) {
        const { status, body } = await json<AuditState>(`/shoal/v1/audit/state?at=${at}`);
        expect(status).toBe(200);
        const fresh = replay(
          events.map((event, offset) => ({ offset, value: typeof event === 'string' ? event : JSON.stringify(event) })),
          { to: at },
        );
        expect(body.position).toBe(at);
        expect(body.hash).toBe(fresh.hash());
        expect(body.state.tasks).toHaveLength(fresh.state.tasks.size);
      }
      const at6 = await json<AuditState>('/shoal/v1/audit/state?at=6');
      expect(at6.body.state.tasks.map((t: Task) => [t.id, t.status.state])).toEqual([['t1', TaskState.ASSIGNED], ['t2', TaskState.PENDING]]);
      const at7 = await json<AuditState>('/shoal/v1/audit/state?at=7');
      expect(at7.body.state.tasks[1].status.err).toBe('no suitable node (max replicas per node on 1 node)');
    });

    it('gives the state at a time: every record written by then', async () => {
      // The builder's clock: record n is written at 2026-01-01T00:00:0(n+1)Z.
      const at = new Date(Date.parse('2026-01-01T00:00:00Z') + 3_500).toISOString();
      const { body } = await json<AuditState>(`/shoal/v1/audit/state?at=${encodeURIComponent(at)}`);
      expect(body.position).toBe(3);
      expect(body.at).toBe(at);
      expect(body.state.services.map((s: { id: string }) => s.id)).toEqual(['s1']);
      expect(body.state.tasks).toEqual([]);
    });

    it('answers the whole log without at', async () => {
      const { body } = await json<AuditState>('/shoal/v1/audit/state');
      expect(body.position).toBe(body.highWaterMark);
      expect(body.hash).toBe(api.view.projection.hash());
    });

    it.each([['at=yesterday'], ['at=-3'], ['at=2026-13-45T00:00:00Z'], ['at=999']])('answers 400 for %s', async (query) => {
      const { status, body } = await json<{ message: string }>(`/shoal/v1/audit/state?${query}`);
      expect(status).toBe(400);
      expect(body.message).toMatch(/at: /);
    });
  });

  describe('GET /shoal/v1/audit/tasks/{id}/history', () => {
    it('lists every record that touched the task, in log order, with the scheduler\'s reason for its placement', async () => {
      const { status, body } = await json<TaskHistory>('/shoal/v1/audit/tasks/t1/history');
      expect(status).toBe(200);
      expect(body.records.map((r: TaskHistoryEntry) => [r.offset, r.type, r.outcome])).toEqual([
        [3, 'TasksCreated', 'applied'],
        [4, 'TasksAllocated', 'applied'],
        [5, 'TasksAssigned', 'applied'],
        [9, 'TaskStatusesReported', 'applied'],
      ]);
      expect(body.placement).toBe('spread over 1 node; node-1 has the fewest tasks of web');
      expect(body.records[3].item).toMatchObject({ id: 't1', state: 'RUNNING' });
    });

    it('gives the unschedulable explanation of a task the scheduler could not place', async () => {
      const { body } = await json<TaskHistory>('/shoal/v1/audit/tasks/t2/history');
      expect(body.placement).toBeNull();
      expect(body.unschedulable).toBe('no suitable node (max replicas per node on 1 node)');
      expect(body.records.map((r) => r.offset)).toEqual([3, 4, 6]);
    });

    it('marks the task\'s item refused when its part of a batch was refused', async () => {
      const { body } = await json<TaskHistory>('/shoal/v1/audit/tasks/tX/history');
      expect(body.records).toHaveLength(1);
      expect(body.records[0]).toMatchObject({ offset: 5, outcome: 'refused', verdict: { status: 'partial', reasons: ['task tX not found'] } });
    });

    it('answers 404 for a task no record touched', async () => {
      const res = await api.get('/shoal/v1/audit/tasks/nope/history');
      expect(res.status).toBe(404);
      expect(((await res.json()) as { message: string }).message).toBe('no record touched task nope');
    });
  });

  describe('GET /shoal/v1/audit/verify', () => {
    it('replays and reports agreement, the hash, the tally and the refused and poison records', async () => {
      const { status, body } = await json<VerifyReport>('/shoal/v1/audit/verify');
      expect(status).toBe(200);
      expect(body.agree).toBe(true);
      expect(body.hash).toBe(api.view.projection.hash());
      expect(body.checks.length).toBeGreaterThanOrEqual(3);
      expect(body.tally).toMatchObject({ partial: 1, poison: 1 });
      expect(body.refusals.map((r: Refusal) => [r.offset, r.status])).toEqual(
        expect.arrayContaining([[5, 'partial'], [7, 'rejected'], [8, 'poison']]),
      );
    });
  });

  describe('GET /shoal/v1/audit/verify with snapshots on disk', () => {
    it('checks every component\'s newest snapshot + the tail, as shoal audit verify does', async () => {
      const records = events.map((event, offset) => ({ offset, value: typeof event === 'string' ? event : JSON.stringify(event) }));
      await new FileSnapshotStore(join(api.dir, 'snapshots', 'scheduler')).save(replay(records, { to: 5 }).snapshot());
      const { body: good } = await json<VerifyReport>('/shoal/v1/audit/verify');
      expect(good.agree).toBe(true);
      expect(good.checks.map((c) => c.name)).toContain('scheduler: snapshot at offset 5 + tail');

      const corrupt = { ...replay(records, { to: 3 }).snapshot(), hash: 'f'.repeat(64) };
      await new FileSnapshotStore(join(api.dir, 'snapshots', 'reaper')).save(corrupt);
      const { body: bad } = await json<VerifyReport>('/shoal/v1/audit/verify');
      expect(bad.agree).toBe(false);
      expect(bad.checks.find((c) => c.name.startsWith('reaper: '))).toMatchObject({ agrees: false, name: expect.stringMatching(/snapshot hash mismatch/) });
      await rm(join(api.dir, 'snapshots'), { recursive: true, force: true });
    });
  });

  describe('GET /shoal/v1/tasks/{id}/explain', () => {
    it('gives the scheduler\'s explanation for an unschedulable task', async () => {
      const { status, body } = await json<TaskExplanation>('/shoal/v1/tasks/t2/explain');
      expect(status).toBe(200);
      expect(body).toMatchObject({ task: 't2', state: 'PENDING', running: false, reason: 'unschedulable', explanation: 'unschedulable: no suitable node (max replicas per node on 1 node)' });
    });

    it('says a running task runs, where and why there', async () => {
      const { body } = await json<TaskExplanation>('/shoal/v1/tasks/t1/explain');
      expect(body).toMatchObject({ running: true, reason: 'running', node: 'n1', placement: 'spread over 1 node; node-1 has the fewest tasks of web' });
    });

    it('answers 404 for an unknown task', async () => {
      const res = await api.get('/shoal/v1/tasks/t9/explain');
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: 'task t9 not found' });
    });
  });
});
