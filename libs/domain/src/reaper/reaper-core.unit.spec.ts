import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { TaskState as State } from '@shoal/contracts';
import fc from 'fast-check';
import { histories, newTask, nodeDescription, serviceSpec, specification, keptJoinTokens } from '@shoal/testing';
import type { Given, Specification } from '@shoal/testing';
import { Projection } from '../projection';
import { emptyState } from '../state';
import { ReaperCore } from './reaper-core';
import { tasksBySlot } from './reaper';

const { RUNNING, FAILED, SHUTDOWN, REMOVE } = TaskState;

const spec = serviceSpec('web', { kind: 'replicated', replicas: 3 });

/** A specification of the reaper: a cluster keeping `limit` tasks of history per slot, service s1 and node n1. */
const reaperSpecification = (limit = 2): Specification<ReaperCore> =>
  specification({ core: () => new ReaperCore() }).given((s) => [
    s.b.event('ClusterInitialized', {
      spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: limit } },
      tokens: keptJoinTokens({ worker: 'w', manager: 'm' }),
    }),
    s.b.event('ServiceCreated', { id: 's1', spec }),
    s.b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
  ]);

/** A task of slot `slot` on n1 that reached `state`, then was told `desired`. */
const task = (id: string, state: State, desired: State = state > RUNNING ? SHUTDOWN : RUNNING, slot = 1): Given => (s) => [
  s.b.event('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot })] }),
  s.b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
  s.b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
  s.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state, at: s.b.now() }] }),
  ...(desired > RUNNING ? [s.b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: desired }] })] : []),
];

/** When the reaper decides, then the ids of each TasksRemoved record it proposes. */
const removals = (reaper: Specification<ReaperCore>): string[][] =>
  reaper.decide().map((proposal) => {
    if (proposal.type !== 'TasksRemoved') throw new Error(`the reaper proposed ${proposal.type}`);
    return proposal.data.tasks.map((item) => item.id);
  });

describe('ReaperCore', () => {
  it('given slots over the limit, when it decides, then one record removes the oldest of every slot, and the watch list is empty', () => {
    const reaper = reaperSpecification(2);
    for (const id of ['a1', 'a2', 'a3']) reaper.given(task(id, FAILED, SHUTDOWN, 1));
    for (const id of ['b1', 'b2', 'b3', 'b4']) reaper.given(task(id, FAILED, SHUTDOWN, 2));
    expect(reaper.core.watching.slots).toBe(2);
    expect(removals(reaper)).toEqual([['a1', 'b1', 'b2']]);
    expect(reaper.core.watching).toEqual({ slots: 0, tasks: 0 });
    expect(removals(reaper)).toEqual([]);
  });

  it('given a slot nobody touched since the last decision, then it is not looked at again', () => {
    const reaper = reaperSpecification(5);
    for (const id of ['a1', 'a2', 'a3']) reaper.given(task(id, FAILED, SHUTDOWN, 1));
    expect(removals(reaper)).toEqual([]);
    // The limit drops by a direct state change the reaper is not told of: it does not look.
    reaper.state.cluster = { ...reaper.state.cluster!, spec: { ...reaper.state.cluster!.spec, orchestration: { taskHistoryRetentionLimit: 1 } } };
    expect(removals(reaper)).toEqual([]);
  });

  it('given the cluster lowers its retention limit, then every slot is looked at', () => {
    const reaper = reaperSpecification(5);
    for (const id of ['a1', 'a2', 'a3']) reaper.given(task(id, FAILED, SHUTDOWN, 1));
    removals(reaper);
    reaper.given(reaper.b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 1 } } }));
    expect(removals(reaper)).toEqual([['a1', 'a2']]);
  });

  it('given a slot with two live tasks, then it stays watched and is trimmed once one of them stops', () => {
    const reaper = reaperSpecification(1);
    reaper.given(task('old', RUNNING, SHUTDOWN), task('new', RUNNING));
    expect(removals(reaper)).toEqual([]);
    expect(reaper.core.watching.slots).toBe(1);
    reaper.given(reaper.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 'old', state: SHUTDOWN, at: reaper.b.now() }] }));
    expect(removals(reaper)).toEqual([['old']]);
  });

  it('given a task told to go (REMOVE), then it is removed once its agent reports it stopped, not before', () => {
    const reaper = reaperSpecification(5);
    reaper.given(task('t1', RUNNING, REMOVE));
    expect(removals(reaper)).toEqual([]);
    reaper.given(reaper.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: SHUTDOWN, at: reaper.b.now() }] }));
    expect(removals(reaper)).toEqual([['t1']]);
  });

  it('given a service is removed, then its stopped tasks go at once and its running ones once they stop', () => {
    const reaper = reaperSpecification(5);
    reaper.given(task('done', FAILED), task('up', RUNNING, RUNNING, 2));
    removals(reaper);
    reaper.given(reaper.b.event('ServiceRemoved', { id: 's1' }));
    expect(removals(reaper)).toEqual([['done']]);
    reaper.given(reaper.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 'up', state: SHUTDOWN, at: reaper.b.now() }] }));
    expect(removals(reaper)).toEqual([['up']]);
  });

  it('given a node is removed, then the tasks on it told to go are removed', () => {
    const reaper = reaperSpecification(5);
    reaper.given(task('t1', RUNNING, REMOVE));
    removals(reaper);
    reaper.given(
      reaper.b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }),
      reaper.b.event('NodeRemoved', { id: 'n1' }),
    );
    expect(removals(reaper)).toEqual([['t1']]);
  });

  it('files a task created with neither slot nor node under its node once it is assigned one', () => {
    const reaper = reaperSpecification(1);
    reaper.given((s) => [
      s.b.event('TasksCreated', { tasks: [{ ...newTask('g1', 's1', spec), slot: undefined }] }),
      s.b.event('TasksAllocated', { tasks: [{ id: 'g1', attachments: [] }] }),
      s.b.event('TasksAssigned', { tasks: [{ id: 'g1', nodeId: 'n1', why: 'test' }] }),
    ]);
    expect(reaper.core.tasksOf(reaper.state, 's1@n1').map((task) => task.id)).toEqual(['g1']);
  });

  it('at start-up (reconcileAll) it looks at every task and slot once', () => {
    const reaper = reaperSpecification(1);
    reaper.given(task('a1', FAILED), task('a2', FAILED), task('r', FAILED, REMOVE, 2));
    const fresh = new ReaperCore();
    fresh.reconcileAll(reaper.state);
    const ids = fresh.decide(reaper.state).flatMap((p) => (p.type === 'TasksRemoved' ? p.data.tasks.map((t) => t.id) : []));
    expect(ids.sort()).toEqual(['a1', 'r']);
  });
});

describe('what ReaperCore watches', () => {
  it('given a task that starts, then nothing of it is a candidate, nor its slot, which holds no more than the cluster keeps; given it ends, then it is', () => {
    const reaper = reaperSpecification(5);
    reaper.given((s) => [
      s.b.event('TasksCreated', { tasks: [newTask('t1', 's1', spec, { desiredState: TaskState.READY })] }),
      s.b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
      s.b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'test' }] }),
    ]);
    expect(reaper.core.watching).toEqual({ slots: 0, tasks: 0 });
    removals(reaper);
    // Told to run, then running: nothing to reap.
    reaper.given(
      reaper.b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: RUNNING }] }),
      reaper.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: RUNNING, at: reaper.b.now() }] }),
    );
    expect(reaper.core.watching).toEqual({ slots: 0, tasks: 0 });
    reaper.given(reaper.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: FAILED, at: reaper.b.now() }] }));
    expect(reaper.core.watching).toEqual({ slots: 1, tasks: 1 });
  });

  it('given tasks created in slots of their own, then no slot is watched; given one created into a slot it crowds past the limit, then that slot is', () => {
    const reaper = reaperSpecification(2);
    reaper.given((s) => [s.b.event('TasksCreated', { tasks: [1, 2, 3].map((slot) => newTask(`first-${slot}`, 's1', spec, { slot })) })]);
    expect(reaper.core.watching).toEqual({ slots: 0, tasks: 0 });
    // Slot 1's second task: as many as the cluster keeps, still nothing to remove.
    reaper.given((s) => [s.b.event('TasksCreated', { tasks: [newTask('second-1', 's1', spec, { slot: 1 })] })]);
    expect(reaper.core.watching).toEqual({ slots: 0, tasks: 0 });
    // Its third: one more than the cluster keeps.
    reaper.given((s) => [s.b.event('TasksCreated', { tasks: [newTask('third-1', 's1', spec, { slot: 1 })] })]);
    expect(reaper.core.watching).toEqual({ slots: 1, tasks: 0 });
    // A cluster that keeps no history: a slot's first task is already more than it keeps.
    const none = reaperSpecification(0);
    none.given((s) => [s.b.event('TasksCreated', { tasks: [newTask('only', 's1', spec, { slot: 1 })] })]);
    expect(none.core.watching).toEqual({ slots: 1, tasks: 0 });
  });

  it('given a service or a node removed, then only its tasks become candidates', () => {
    const reaper = reaperSpecification(5);
    reaper.given(
      (s) => [s.b.event('ServiceCreated', { id: 's2', spec: serviceSpec('api', { kind: 'replicated', replicas: 1 }) })],
      (s) => [s.b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') })],
      task('a', RUNNING),
      task('b', RUNNING, RUNNING, 2),
      (s) => [
        s.b.event('TasksCreated', { tasks: [newTask('c', 's2', serviceSpec('api', { kind: 'replicated', replicas: 1 }))] }),
        s.b.event('TasksAllocated', { tasks: [{ id: 'c', attachments: [] }] }),
        s.b.event('TasksAssigned', { tasks: [{ id: 'c', nodeId: 'n2', why: 'test' }] }),
      ],
    );
    removals(reaper);
    reaper.given(reaper.b.event('ServiceRemoved', { id: 's2' }));
    expect(reaper.core.watching).toEqual({ slots: 0, tasks: 1 });
    removals(reaper);
    reaper.given(reaper.b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }), reaper.b.event('NodeRemoved', { id: 'n1' }));
    expect(reaper.core.watching).toEqual({ slots: 0, tasks: 2 });
  });

  it('given the retention limit changes, then it watches the slots holding more than the new limit, and none when history is kept whole', () => {
    const reaper = reaperSpecification(5);
    reaper.given(task('a1', FAILED), task('a2', FAILED), task('b1', FAILED, SHUTDOWN, 2), task('b2', FAILED, SHUTDOWN, 2), task('b3', FAILED, SHUTDOWN, 2));
    removals(reaper);
    const limit = (taskHistoryRetentionLimit: number) =>
      reaper.given(reaper.b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit } } }));
    limit(2);
    expect(reaper.core.watching.slots).toBe(1);
    removals(reaper);
    limit(-1);
    expect(reaper.core.watching.slots).toBe(0);
  });

  it('at start-up, takes as candidates the tasks told to go or of a removed service, and the slots over the limit', () => {
    const reaper = reaperSpecification(2);
    reaper.given(task('a1', FAILED), task('a2', FAILED), task('a3', RUNNING), task('b1', FAILED, SHUTDOWN, 2), task('b2', RUNNING, REMOVE, 2), task('c1', RUNNING, RUNNING, 3));
    const fresh = new ReaperCore();
    fresh.reconcileAll(reaper.state);
    expect(fresh.watching).toEqual({ slots: 1, tasks: 1 });
    reaper.given(reaper.b.event('ServiceRemoved', { id: 's1' }));
    const after = new ReaperCore();
    after.reconcileAll(reaper.state);
    expect(after.watching).toEqual({ slots: 1, tasks: 6 });
    // A negative limit keeps every slot's history: no slot is a candidate.
    reaper.given(reaper.b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: -1 } } }));
    const whole = new ReaperCore();
    whole.reconcileAll(reaper.state);
    expect(whole.watching).toEqual({ slots: 0, tasks: 6 });
  });

  it('proposes at most ten thousand removals a record, and no empty record', () => {
    const removed = (count: number): number[] => {
      const reaper = reaperSpecification(5);
      const ids = Array.from({ length: count }, (_, i) => `t${i}`);
      reaper.given((s) => [
        s.b.event('TasksCreated', { tasks: ids.map((id, i) => newTask(id, 's1', spec, { slot: i + 1, desiredState: TaskState.READY })) }),
        s.b.event('TaskDesiredStatesChanged', { tasks: ids.map((id) => ({ id, desiredState: REMOVE })) }),
      ]);
      return removals(reaper).map((record) => record.length);
    };
    expect(removed(10_000)).toEqual([10_000]);
    expect(removed(10_001)).toEqual([10_000, 1]);
  });
});

describe('ReaperCore invariants', () => {
  it('knows the tasks of every slot as grouping the whole state would, at any point of any history', () => {
    let slots = 0;
    fc.assert(
      fc.property(histories(), fc.nat(), (log, seed) => {
        const core = new ReaperCore();
        const projection = new Projection(emptyState(), 0, { onEvent: (event, verdict, state) => core.observe(event, verdict, state) });
        const cut = log.length === 0 ? 0 : seed % log.length;
        log.forEach((value, offset) => {
          projection.apply({ offset, value });
          if (offset !== cut && offset !== log.length - 1) return;
          const grouped = tasksBySlot(projection.state);
          for (const [key, tasks] of grouped) {
            slots++;
            expect({ key, ids: core.tasksOf(projection.state, key).map((task) => task.id).sort() }).toEqual({ key, ids: tasks.map((task) => task.id).sort() });
          }
          // Decisions read the index: the same core reading it twice finds the same.
          for (const key of grouped.keys()) expect(core.tasksOf(projection.state, key).length).toBe(grouped.get(key)!.length);
        });
      }),
      { numRuns: 200 },
    );
    expect(slots).toBeGreaterThan(0);
  });

  it('never deletes a running task: whatever the history, no task it removes is running on a node the cluster has', () => {
    let removals = 0;
    fc.assert(
      fc.property(histories(), fc.array(fc.nat(20), { minLength: 1, maxLength: 8 }), (log, pauses) => {
        const core = new ReaperCore();
        const projection = new Projection(emptyState(), 0, { onEvent: (event, verdict, state) => core.observe(event, verdict, state) });
        let offset = 0;
        const check = (): void => {
          const state = projection.state;
          for (const proposal of core.decide(state)) {
            if (proposal.type !== 'TasksRemoved') throw new Error(`the reaper proposed ${proposal.type}`);
            for (const { id } of proposal.data.tasks) {
              removals++;
              const task = state.tasks.get(id);
              expect(task).toBeDefined();
              const running = task!.status.state >= TaskState.ASSIGNED && task!.status.state <= RUNNING && state.nodes.has(task!.nodeId ?? '');
              expect({ id, running }).toEqual({ id, running: false });
              // Nor one still meant to run whose service is there.
              if (state.services.has(task!.serviceId)) expect(task!.desiredState).toBeGreaterThan(RUNNING);
            }
          }
        };
        for (const pause of pauses) {
          for (const value of log.slice(offset, offset + pause)) projection.apply({ offset: offset++, value });
          check();
        }
        for (const value of log.slice(offset)) projection.apply({ offset: offset++, value });
        check();
      }),
      { numRuns: 200 },
    );
    // The histories do reach removals: the property is not vacuous.
    expect(removals).toBeGreaterThan(0);
  });
});
