/**
 * The audit surface, /events and /metrics on a real Kafka broker: the same answers as on
 * the embedded log, with Kafka's offsets and a topic of the test's own.
 */
import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EventBuilder, KafkaTestTopic, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { buildStoryIndex } from '@shoal/runtime';
import type { VerifyReport } from '@shoal/runtime';
import { join } from 'node:path';
import { EventsModule } from '../events/events.module';
import { HealthModule } from '../health/health.module';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import { AuditModule } from './audit.module';
import type { AuditPage, AuditState, TaskHistory } from './audit.service';

describe('audit surface and /events on Kafka', () => {
  const topic = new KafkaTestTopic('api-audit-int');
  let api: StandaloneApi;
  const b = new EventBuilder('c1');
  const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
  const history: (ShoalEvent | string)[] = [
    clusterInit(b),
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
    b.event('ServiceCreated', { id: 's1', spec: web }),
    b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
    b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
    b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'node-1: the only ready node' }] }),
    'poison',
    b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
    b.event('ServiceRemoved', { id: 'nope' }),
  ];

  beforeAll(async () => {
    api = await startStandaloneApi([AuditModule, EventsModule, HealthModule], { openLog: () => topic.open() });
    await api.append(history);
  });
  afterAll(() => api?.close());

  const json = async <T>(path: string): Promise<T> => (await (await api.get(path)).json()) as T;

  it('pages the log with verdicts, and the task history names the placement', async () => {
    const page = await json<AuditPage>('/shoal/v1/audit/events');
    expect(page.records.map((r) => r.verdict.status)).toEqual(['applied', 'applied', 'applied', 'applied', 'applied', 'applied', 'poison', 'applied', 'rejected']);
    const history = await json<TaskHistory>('/shoal/v1/audit/tasks/t1/history');
    expect(history.placement).toBe('node-1: the only ready node');
    expect(history.records).toHaveLength(4);
    // A node's id is touched by records too, but names no task: 404, not a 500.
    const notTask = await api.get('/shoal/v1/audit/tasks/n1/history');
    expect(notTask.status).toBe(404);
    expect(await notTask.json()).toEqual({ message: 'no record touched task n1' });
  });

  it('answers the task history from the story index, read through fetches of one batch, as the audit trail does', async () => {
    const fromTrail = await json<TaskHistory>('/shoal/v1/audit/tasks/t1/history');
    const built = await buildStoryIndex(api.log, join(api.dir, 'story-index'));
    const fromIndex = await json<TaskHistory>('/shoal/v1/audit/tasks/t1/history');
    expect(fromIndex).toEqual({ ...fromTrail, index: { through: built.manifest.through, digest: built.manifest.digest } });
    expect(fromIndex.records.map((r) => r.type)).toEqual(['TasksCreated', 'TasksAllocated', 'TasksAssigned', 'TaskStatusesReported']);
  });

  it('gives the state at an offset with the hash verify reaches at the end', async () => {
    const verify = await json<VerifyReport>('/shoal/v1/audit/verify');
    expect(verify.agree).toBe(true);
    const end = await json<AuditState>(`/shoal/v1/audit/state?at=${verify.highWaterMark}`);
    expect(end.hash).toBe(verify.hash);
    expect(end.hash).toBe(api.view.projection.hash());
    const early = await json<AuditState>('/shoal/v1/audit/state?at=3');
    expect(early.state.services.map((s) => s.id)).toEqual(['s1']);
    expect(early.state.tasks).toEqual([]);
  });

  it('streams the history as Docker events, and /readyz is ready', async () => {
    const text = await (await api.get(`/events?since=0&until=${Math.floor(Date.parse(b.now()) / 1000) + 10}&filters=${encodeURIComponent('{"type":{"task":true}}')}`)).text();
    const states = text.trim().split('\n').map((line) => (JSON.parse(line) as { Actor: { Attributes: Record<string, string> } }).Actor.Attributes['state.new'] ?? 'created');
    expect(states).toEqual(['created', 'PENDING', 'ASSIGNED', 'RUNNING']);
    expect((await api.get('/readyz')).status).toBe(200);
  });
});
