import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ShoalEvent, TaskState as State } from '@shoal/contracts';
import fc from 'fast-check';
import { EventBuilder, given, histories, newTask, nodeDescription, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { replay } from '../projection';
import type { ClusterState } from '../state';
import { reap, tasksBySlot } from './reaper';

const { RUNNING, FAILED, COMPLETE, SHUTDOWN, REMOVE, ORPHANED, READY } = TaskState;

const everything = (state: ClusterState) => ({ slots: tasksBySlot(state).keys(), tasks: state.tasks.keys() });

describe('the task reaper', () => {
  let b: EventBuilder;
  let events: ShoalEvent[];
  const spec = serviceSpec('web', { kind: 'replicated', replicas: 1 });
  beforeEach(() => {
    b = new EventBuilder();
    events = [
      b.event('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 3 } }, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }),
      b.event('ServiceCreated', { id: 's1', spec }),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
    ];
  });

  /** A task in slot `slot` that reaches `state` on n1, with desired state `desired` afterwards. */
  const task = (id: string, state: State, desired: State = state > RUNNING ? SHUTDOWN : RUNNING, slot = 1) => {
    events.push(
      b.event('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot })] }),
      b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
    );
    if (state > TaskState.ASSIGNED) events.push(b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state, at: b.now() }] }));
    if (desired > RUNNING) events.push(b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: desired }] }));
  };

  it('keeps at most the retention limit of tasks per slot, deleting the oldest stopped ones first', () => {
    for (const id of ['t1', 't2', 't3', 't4', 't5']) task(id, FAILED);
    task('t6', RUNNING);
    const decision = reap(given(...events).state, everything(given(...events).state));
    expect(decision.remove.map((r) => r.id)).toEqual(['t1', 't2', 't3']);
    expect(decision.remove[0]?.reason).toMatch(/history: slot s1\/1 keeps the 3 newest tasks/);
  });

  it('deletes by status time, not by creation: the task that stopped first goes first', () => {
    for (const id of ['a', 'b', 'c', 'd']) {
      events.push(
        b.event('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot: 1 })] }),
        b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
        b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
      );
    }
    // They end in the order d, b, a, c.
    for (const id of ['d', 'b', 'a', 'c']) {
      events.push(
        b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state: FAILED, at: b.now() }] }),
        b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: SHUTDOWN }] }),
      );
    }
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['d']);
  });

  it('keeps no history at all with a limit of 0, but still never a live task', () => {
    events.push(b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 0 } } }));
    for (const id of ['t1', 't2']) task(id, FAILED);
    task('t3', RUNNING);
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['t1', 't2']);
  });

  it('counts a task told to stop before it reached a node as history, and deletes it like any stopped task', () => {
    events.push(
      b.event('TasksCreated', { tasks: [newTask('never', 's1', spec, { slot: 1 })] }),
      b.event('TaskDesiredStatesChanged', { tasks: [{ id: 'never', desiredState: SHUTDOWN }] }),
    );
    for (const id of ['t1', 't2', 't3']) task(id, FAILED);
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['never']);
  });

  it('keeps the completed tasks of a job\'s current run, which count its completions, and reaps those of an earlier run', () => {
    events.push(b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 0 } } }));
    const job = serviceSpec('batch', { kind: 'replicated-job', maxConcurrent: 1, totalCompletions: 1 });
    events.push(b.event('ServiceCreated', { id: 'j', spec: job }));
    const run = (id: string, iteration: number, specVersion: number) =>
      events.push(
        b.event('TasksCreated', { tasks: [newTask(id, 'j', job, { slot: 1, specVersion, jobIteration: iteration })] }),
        b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
        b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
        b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state: COMPLETE, at: b.now() }] }),
        // Told to stop after it completed (its run retired, or its node drained).
        b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: SHUTDOWN }] }),
      );
    run('first', 0, 1);
    events.push(b.event('ServiceUpdated', { id: 'j', spec: { ...job, labels: { run: '2' } } }));
    run('second', 1, 2);
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['first']);
  });

  it('counts each slot on its own', () => {
    for (const id of ['a1', 'a2', 'a3']) task(id, FAILED, SHUTDOWN, 1);
    for (const id of ['b1', 'b2', 'b3', 'b4']) task(id, COMPLETE, SHUTDOWN, 2);
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['b1']);
  });

  it('keeps everything with a negative limit', () => {
    events.push(b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: -1 } } }));
    for (const id of ['t1', 't2', 't3', 't4', 't5', 't6']) task(id, FAILED);
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove).toEqual([]);
  });

  it('never deletes a running task, nor one still meant to run, and looks again when a slot has two live tasks', () => {
    task('old', RUNNING, SHUTDOWN);
    task('failed-but-desired-running', FAILED, RUNNING);
    task('new', RUNNING);
    task('f1', FAILED);
    const state = given(...events).state;
    const decision = reap(state, everything(state));
    expect(decision.remove.map((r) => r.id)).toEqual(['f1']);
    expect(decision.stillDirty).toEqual(['s1/1']);
  });

  it('removes a desired-REMOVE task once it has stopped, not before', () => {
    task('stopping', RUNNING, REMOVE);
    task('stopped', SHUTDOWN, REMOVE);
    const state = given(...events).state;
    expect(reap(state, { slots: [], tasks: ['stopping', 'stopped'] }).remove).toEqual([
      { id: 'stopped', reason: 'removed: scaled down or its service was removed, and it has stopped' },
    ]);
  });

  it('removes a desired-REMOVE task that never started', () => {
    events.push(
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', spec, { desiredState: READY })] }),
      b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: REMOVE }] }),
    );
    const state = given(...events).state;
    expect(reap(state, { slots: [], tasks: ['t1'] }).remove.map((r) => r.id)).toEqual(['t1']);
  });

  it('removes stopped tasks of a deleted service, and leaves its running ones', () => {
    task('done', COMPLETE);
    task('up', RUNNING, RUNNING, 2);
    events.push(b.event('ServiceRemoved', { id: 's1' }));
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove).toEqual([{ id: 'done', reason: 'removed: service s1 no longer exists' }]);
  });

  it('reaps ORPHANED tasks like any stopped task', () => {
    for (const id of ['o1', 'o2', 'o3', 'o4']) task(id, ORPHANED);
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['o1']);
  });

  it('removes an ORPHANED task of a deleted service, or one told to go', () => {
    task('o1', ORPHANED, REMOVE);
    task('o2', ORPHANED, SHUTDOWN, 2);
    events.push(b.event('ServiceRemoved', { id: 's1' }));
    const state = given(...events).state;
    expect(reap(state, { slots: [], tasks: ['o1', 'o2'] }).remove).toEqual([
      { id: 'o1', reason: 'removed: scaled down or its service was removed, and it has stopped' },
      { id: 'o2', reason: 'removed: service s1 no longer exists' },
    ]);
  });

  it('removes a task told to go whose node was removed: no agent will ever report it stopped', () => {
    task('gone', RUNNING, REMOVE);
    task('kept', RUNNING, RUNNING, 2);
    events.push(
      b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }),
      b.event('NodeRemoved', { id: 'n1' }),
    );
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove).toEqual([{ id: 'gone', reason: 'removed: scaled down or its service was removed, and its node n1 was removed' }]);
  });

  it('keeps a task told to go while its node is there and it has not stopped', () => {
    task('stopping', RUNNING, REMOVE);
    events.push(b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }));
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove).toEqual([]);
  });

  it('keeps global tasks per service and node', () => {
    const global = serviceSpec('agent', { kind: 'global' });
    events.push(b.event('ServiceCreated', { id: 'g', spec: global }));
    for (const id of ['g1', 'g2', 'g3', 'g4']) {
      events.push(
        b.event('TasksCreated', { tasks: [newTask(id, 'g', global, { slot: undefined, nodeId: 'n1' })] }),
        b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
        b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'global' }] }),
        b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state: FAILED, at: b.now() }] }),
        b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: SHUTDOWN }] }),
      );
    }
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['g1']);
  });

  it('only looks at the candidates it is given', () => {
    for (const id of ['t1', 't2', 't3', 't4']) task(id, FAILED);
    const state = given(...events).state;
    expect(reap(state, { slots: ['s1/2'], tasks: [] }).remove).toEqual([]);
  });

  it('deletes, of tasks that stopped at the same time, the lowest ids first', () => {
    const ids = ['c', 'a', 'e', 'b', 'd'];
    for (const id of ids) {
      events.push(
        b.event('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot: 1 })] }),
        b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
        b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
      );
    }
    // One report: the five end at the same time.
    const at = b.now();
    events.push(
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: ids.map((id) => ({ id, state: FAILED, at })) }),
      b.event('TaskDesiredStatesChanged', { tasks: ids.map((id) => ({ id, desiredState: SHUTDOWN })) }),
    );
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('keeps five tasks of a slot before the cluster has a spec of its own', () => {
    events.splice(0, 1); // no ClusterInitialized
    for (const id of ['t1', 't2', 't3', 't4', 't5', 't6', 't7']) task(id, FAILED);
    const state = given(...events).state;
    expect(state.cluster).toBeUndefined();
    expect(reap(state, everything(state)).remove.map((r) => r.id)).toEqual(['t1', 't2']);
  });

  it('does not look again at a slot with one live task', () => {
    task('up', RUNNING);
    for (const id of ['f1', 'f2', 'f3', 'f4']) task(id, FAILED);
    const state = given(...events).state;
    const decision = reap(state, everything(state));
    expect(decision.remove.map((r) => r.id)).toEqual(['f1', 'f2']);
    expect(decision.stillDirty).toEqual([]);
  });

  it('given a slot with a task told to go among its history, then that task goes for being told, and the history rule counts the rest', () => {
    for (const id of ['t1', 't2', 't3']) task(id, FAILED);
    task('r', SHUTDOWN, REMOVE);
    const state = given(...events).state;
    expect(reap(state, everything(state)).remove).toEqual([{ id: 'r', reason: 'removed: scaled down or its service was removed, and it has stopped' }]);
  });

  it('removes a task told to go that was only assigned to a node since removed', () => {
    task('assigned', TaskState.ASSIGNED, REMOVE);
    events.push(b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }), b.event('NodeRemoved', { id: 'n1' }));
    const state = given(...events).state;
    expect(state.tasks.get('assigned')?.status.state).toBe(TaskState.ASSIGNED);
    expect(reap(state, { slots: [], tasks: ['assigned'] }).remove).toEqual([
      { id: 'assigned', reason: 'removed: scaled down or its service was removed, and its node n1 was removed' },
    ]);
  });

  it('counts a completed task of a job’s current run as history once it is told to go, and a failed one always', () => {
    events.push(b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 0 } } }));
    const job = serviceSpec('batch', { kind: 'replicated-job', maxConcurrent: 1, totalCompletions: 2 });
    events.push(b.event('ServiceCreated', { id: 'j', spec: job }));
    for (const [id, ended, desired] of [['kept', COMPLETE, SHUTDOWN], ['told', COMPLETE, REMOVE], ['failed', FAILED, SHUTDOWN]] as const) {
      events.push(
        b.event('TasksCreated', { tasks: [newTask(id, 'j', job, { slot: 1 })] }),
        b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
        b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
        b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state: ended, at: b.now() }] }),
        b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: desired }] }),
      );
    }
    const state = given(...events).state;
    // The slot alone is a candidate: only the history rule looks. A failed task is no completion: history too.
    expect(reap(state, { slots: ['j/1'], tasks: [] }).remove.map((r) => r.id)).toEqual(['told', 'failed']);
  });

  it('every removal it proposes is one evolve accepts', () => {
    for (const id of ['t1', 't2', 't3', 't4', 't5']) task(id, FAILED);
    task('r', SHUTDOWN, REMOVE, 2);
    const reaper = given(...events);
    const { remove } = reap(reaper.state, everything(reaper.state));
    reaper.when(b.event('TasksRemoved', { tasks: [...remove] })).thenApplied((state) => expect(state.tasks.has('t1') || state.tasks.has('r')).toBe(false));
  });
});

describe('reaper invariants', () => {
  it('never proposes removing a task that is assigned and not yet stopped, whatever the history', () => {
    fc.assert(
      fc.property(histories(), (log) => {
        const { state } = replay(log.map((value, offset) => ({ offset, value })));
        for (const { id } of reap(state, everything(state)).remove) {
          const task = state.tasks.get(id)!;
          expect(task.status.state >= TaskState.ASSIGNED && task.status.state <= RUNNING).toBe(false);
        }
      }),
      { numRuns: 200 },
    );
  });
});
