import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ShoalEvent, TaskState as State } from '@shoal/contracts';
import fc from 'fast-check';
import { EventBuilder, histories, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { evolve } from '../evolve';
import { Projection } from '../projection';
import { emptyState } from '../state';
import type { ClusterState } from '../state';
import { ReaperCore } from './reaper-core';

const { RUNNING, FAILED, SHUTDOWN, REMOVE } = TaskState;

/**
 * Given/when/then for the reaper as a component: the events happen (each applied by evolve
 * and shown to the core, as its runner does), then the reaper decides.
 */
class ReaperScenario {
  readonly b = new EventBuilder();
  readonly state: ClusterState = emptyState();
  readonly core = new ReaperCore();
  private readonly spec = serviceSpec('web', { kind: 'replicated', replicas: 3 });

  constructor(limit = 2) {
    this.happen(
      this.b.event('ClusterInitialized', {
        spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: limit } },
        tokens: { worker: 'w', manager: 'm' },
      }),
      this.b.event('ServiceCreated', { id: 's1', spec: this.spec }),
      this.b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
    );
  }

  happen(...events: ShoalEvent[]): this {
    for (const event of events) {
      const verdict = evolve(this.state, event);
      if (verdict.status !== 'applied') throw new Error(`${event.type}: ${verdict.reasons.join('; ')}`);
      this.core.observe(event, verdict, this.state);
    }
    return this;
  }

  /** A task of slot `slot` that reached `state`, then was told `desired`. */
  task(id: string, state: State, desired: State = state > RUNNING ? SHUTDOWN : RUNNING, slot = 1): this {
    this.happen(
      this.b.event('TasksCreated', { tasks: [newTask(id, 's1', this.spec, { slot })] }),
      this.b.event('TasksAllocated', { tasks: [{ id, attachments: [] }] }),
      this.b.event('TasksAssigned', { tasks: [{ id, nodeId: 'n1', why: 'test' }] }),
      this.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id, state, at: this.b.now() }] }),
    );
    if (desired > RUNNING) this.happen(this.b.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: desired }] }));
    return this;
  }

  /** What the reaper proposes now: the ids of each TasksRemoved record. */
  decide(): string[][] {
    return this.core.decide(this.state).map((proposal) => {
      if (proposal.type !== 'TasksRemoved') throw new Error(`the reaper proposed ${proposal.type}`);
      return proposal.data.tasks.map((item) => item.id);
    });
  }
}

describe('ReaperCore', () => {
  it('given slots over the limit, when it decides, then one record removes the oldest of every slot, and the watch list is empty', () => {
    const given = new ReaperScenario(2);
    for (const id of ['a1', 'a2', 'a3']) given.task(id, FAILED, SHUTDOWN, 1);
    for (const id of ['b1', 'b2', 'b3', 'b4']) given.task(id, FAILED, SHUTDOWN, 2);
    expect(given.core.watching.slots).toBe(2);
    expect(given.decide()).toEqual([['a1', 'b1', 'b2']]);
    expect(given.core.watching).toEqual({ slots: 0, tasks: 0 });
    expect(given.decide()).toEqual([]);
  });

  it('given a slot nobody touched since the last decision, then it is not looked at again', () => {
    const given = new ReaperScenario(5);
    for (const id of ['a1', 'a2', 'a3']) given.task(id, FAILED, SHUTDOWN, 1);
    expect(given.decide()).toEqual([]);
    // The limit drops by a direct state change the reaper is not told of: it does not look.
    given.state.cluster = { ...given.state.cluster!, spec: { ...given.state.cluster!.spec, orchestration: { taskHistoryRetentionLimit: 1 } } };
    expect(given.decide()).toEqual([]);
  });

  it('given the cluster lowers its retention limit, then every slot is looked at', () => {
    const given = new ReaperScenario(5);
    for (const id of ['a1', 'a2', 'a3']) given.task(id, FAILED, SHUTDOWN, 1);
    given.decide();
    given.happen(given.b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 1 } } }));
    expect(given.decide()).toEqual([['a1', 'a2']]);
  });

  it('given a slot with two live tasks, then it stays watched and is trimmed once one of them stops', () => {
    const given = new ReaperScenario(1);
    given.task('old', RUNNING, SHUTDOWN).task('new', RUNNING);
    expect(given.decide()).toEqual([]);
    expect(given.core.watching.slots).toBe(1);
    given.happen(given.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 'old', state: SHUTDOWN, at: given.b.now() }] }));
    expect(given.decide()).toEqual([['old']]);
  });

  it('given a task told to go (REMOVE), then it is removed once its agent reports it stopped, not before', () => {
    const given = new ReaperScenario(5);
    given.task('t1', RUNNING, REMOVE);
    expect(given.decide()).toEqual([]);
    given.happen(given.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: SHUTDOWN, at: given.b.now() }] }));
    expect(given.decide()).toEqual([['t1']]);
  });

  it('given a service is removed, then its stopped tasks go at once and its running ones once they stop', () => {
    const given = new ReaperScenario(5);
    given.task('done', FAILED).task('up', RUNNING, RUNNING, 2);
    given.decide();
    given.happen(given.b.event('ServiceRemoved', { id: 's1' }));
    expect(given.decide()).toEqual([['done']]);
    given.happen(given.b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 'up', state: SHUTDOWN, at: given.b.now() }] }));
    expect(given.decide()).toEqual([['up']]);
  });

  it('given a node is removed, then the tasks on it told to go are removed', () => {
    const given = new ReaperScenario(5);
    given.task('t1', RUNNING, REMOVE);
    given.decide();
    given.happen(
      given.b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }),
      given.b.event('NodeRemoved', { id: 'n1' }),
    );
    expect(given.decide()).toEqual([['t1']]);
  });

  it('at start-up (reconcileAll) it looks at every task and slot once', () => {
    const given = new ReaperScenario(1);
    given.task('a1', FAILED).task('a2', FAILED).task('r', FAILED, REMOVE, 2);
    const fresh = new ReaperCore();
    fresh.reconcileAll(given.state);
    const ids = fresh.decide(given.state).flatMap((p) => (p.type === 'TasksRemoved' ? p.data.tasks.map((t) => t.id) : []));
    expect(ids.sort()).toEqual(['a1', 'r']);
  });
});

describe('ReaperCore invariants', () => {
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
