import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { emptyState, evolve } from '@shoal/domain';
import type { ClusterState } from '@shoal/domain';
import { EventBuilder, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { explainTask } from './task-explain';

const web = serviceSpec('web', { kind: 'replicated', replicas: 1 }, {
  task: { container: { image: 'nginx' }, restartPolicy: { condition: 'any', delayMs: 10_000, maxAttempts: 0, windowMs: 0 } },
});

const stateOf = (build: (b: EventBuilder) => ShoalEvent[]): ClusterState => {
  const b = new EventBuilder('c1');
  const state = emptyState();
  const events = [
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
    b.event('ServiceCreated', { id: 's1', spec: web }),
    ...build(b),
  ];
  for (const event of events) {
    const verdict = evolve(state, event);
    if (verdict.status !== 'applied') throw new Error(`${event.type}: ${verdict.reasons.join('; ')}`);
  }
  return state;
};

const explain = (state: ClusterState, id: string, now = new Date('2026-01-01T00:00:05Z')) => explainTask(state, state.tasks.get(id)!, now);

describe('explainTask', () => {
  it('gives the allocator\'s failure for a task stuck in NEW', () => {
    const state = stateOf((b) => [
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
      b.event('TasksAllocationFailed', { tasks: [{ id: 't1', reason: 'ingress port 30080 is already in use by service api' }] }),
    ]);
    expect(explain(state, 't1')).toMatchObject({
      reason: 'allocation-failed',
      running: false,
      explanation: 'allocation failed: ingress port 30080 is already in use by service api',
    });
  });

  it('says a new task waits for the allocator, and a pending one for the scheduler', () => {
    const state = stateOf((b) => [
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web), newTask('t2', 's1', web, { slot: 2 })] }),
      b.event('TasksAllocated', { tasks: [{ id: 't2', attachments: [] }] }),
    ]);
    expect(explain(state, 't1').reason).toBe('awaiting-allocation');
    expect(explain(state, 't2').reason).toBe('awaiting-scheduling');
  });

  const failedAndReplaced = (b: EventBuilder, oldEnds: boolean): ShoalEvent[] => [
    b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
    b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
    b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'only ready node' }] }),
    ...(oldEnds ? [b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.FAILED, at: b.now(), exitCode: 1 }] })] : []),
    b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN, reason: 'restarted: task failed' }] }),
    b.event('TasksCreated', { tasks: [newTask('t2', 's1', web, { replaces: 't1', desiredState: TaskState.READY })] }),
  ];

  it('gives the restart delay and when it ends for a replacement created to wait (desired READY)', () => {
    const state = stateOf((b) => failedAndReplaced(b, true));
    const createdAt = Date.parse(state.tasks.get('t2')!.createdAt);
    const startsAt = new Date(createdAt + 10_000).toISOString();
    expect(explain(state, 't2', new Date(createdAt + 4_000))).toMatchObject({
      reason: 'restart-delay',
      startsAt,
      explanation: `restart delay: the task may start at ${startsAt} (in 6s)`,
    });
    expect(explain(state, 't2', new Date(createdAt + 11_000)).explanation).toBe(
      `restart delay passed at ${startsAt}: the task waits for the orchestrator to start it`,
    );
  });

  it('says a replacement past its delay waits for the task it replaces to stop', () => {
    const state = stateOf((b) => failedAndReplaced(b, false));
    const createdAt = Date.parse(state.tasks.get('t2')!.createdAt);
    expect(explain(state, 't2', new Date(createdAt + 11_000)).explanation).toBe(
      `the task waits for task t1, which it replaces, to stop (ASSIGNED now; at most until ${new Date(createdAt + 60_000).toISOString()})`,
    );
  });

  it('says the node is down for an assigned task whose node went down', () => {
    const state = stateOf((b) => [
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'only ready node' }] }),
      b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure' }] }),
    ]);
    expect(explain(state, 't1')).toMatchObject({
      reason: 'node-down',
      node: 'n1',
      placement: 'only ready node',
      explanation: 'node node-1 is down (heartbeat failure): the task waits for it to come back or to be rescheduled',
    });
  });

  it('says how a task ended and which task replaced it', () => {
    const state = stateOf((b) => [
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'only ready node' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.FAILED, at: b.now(), err: 'task: non-zero exit (1)', exitCode: 1 }] }),
      b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] }),
      b.event('TasksCreated', { tasks: [newTask('t2', 's1', web, { replaces: 't1', desiredState: TaskState.READY })] }),
    ]);
    expect(explain(state, 't1')).toMatchObject({
      reason: 'ended',
      state: 'FAILED',
      replacedBy: 't2',
      explanation: 'task ended FAILED: task: non-zero exit (1); exit code 1; replaced by task t2',
    });
  });

  it('says a task told to stop is being shut down', () => {
    const state = stateOf((b) => [
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
      b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] }),
    ]);
    expect(explain(state, 't1')).toMatchObject({ reason: 'shutting-down', desiredState: 'SHUTDOWN' });
  });
});
