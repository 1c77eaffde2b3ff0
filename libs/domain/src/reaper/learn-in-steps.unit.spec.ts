import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import { keptJoinTokens, newTask, nodeDescription, serviceSpec, specification, stepper } from '@shoal/testing';
import type { Given, Specification } from '@shoal/testing';
import type { ComponentCore } from '../component-core';
import type { ClusterState } from '../state';
import { ReaperCore } from './reaper-core';
import { slotKey } from './slots';

const { RUNNING, FAILED, SHUTDOWN, REMOVE } = TaskState;
const spec = serviceSpec('web', { kind: 'replicated', replicas: 1_500 });

/** Tasks of `serviceId` in these slots, created, allocated, assigned to n1 and reported `state`, each at its own time. */
const tasks =
  (serviceId: string, items: readonly (readonly [id: string, slot: number])[], state: TaskState = RUNNING): Given =>
  (s) => {
    s.advance(1_000);
    const at = (i: number) => new Date(s.clock + i).toISOString();
    return [
      s.event('TasksCreated', { tasks: items.map(([id, slot]) => newTask(id, serviceId, spec, { slot })) }),
      s.event('TasksAllocated', { tasks: items.map(([id]) => ({ id, attachments: [] })) }),
      s.event('TasksAssigned', { tasks: items.map(([id]) => ({ id, nodeId: 'n1', why: 'spec' })) }),
      s.event('TaskStatusesReported', { nodeId: 'n1', statuses: items.map(([id], i) => ({ id, state, at: at(i) })) }),
      ...(state > RUNNING ? [s.event('TaskDesiredStatesChanged', { tasks: items.map(([id]) => ({ id, desiredState: SHUTDOWN })) })] : []),
    ];
  };
const range = (prefix: string, from: number, to: number, slot = (i: number) => i): (readonly [string, number])[] =>
  Array.from({ length: to - from + 1 }, (_, i) => [`${prefix}${from + i}`, slot(from + i)] as const);
const limitOf = (limit: number): Given => (s) => s.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: limit } } });

/**
 * A cluster keeping 2 tasks of history per slot; s1 with 1,500 slots running, slots 1–30
 * with 3 failed tasks each besides; s2 with 300 running and 50 failed: 1,940 tasks, several
 * steps. The log is told to `learner` once it starts learning, as a runner's core restored
 * from a snapshot is.
 */
const cluster = (): { r: Specification; learner: ReaperCore; listen: () => void } => {
  const learner = new ReaperCore();
  let listening = false;
  const deafUntilLearning: ComponentCore = {
    component: 'reaper',
    observe: (event, verdict, state) => (listening ? learner.observe(event, verdict, state) : undefined),
    reconcileAll: () => undefined,
    decide: () => [],
  };
  const r = specification({ core: () => deafUntilLearning, clock: Date.parse('2026-01-01T00:00:00Z'), stampClock: true });
  r.given((s) => s.event('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 } }, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }));
  r.given((s) => s.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }));
  r.given((s) => s.event('ServiceCreated', { id: 's1', spec }), (s) => s.event('ServiceCreated', { id: 's2', spec: { ...spec, name: 'api' } }));
  for (const k of [1, 2, 3]) r.given(tasks('s1', range(`f${k}-`, 1, 30), FAILED));
  r.given(tasks('s1', range('a', 1, 1_500)), tasks('s2', range('b', 1, 300)), tasks('s2', range('bf', 1, 50), FAILED));
  return { r, learner, listen: () => (listening = true) };
};

/** Each slot's tasks as the core's index has them. */
const indexOf = (core: ReaperCore, state: ClusterState) => {
  const keys = new Set([...state.tasks.values()].map((task) => slotKey(task) as string));
  return [...keys].sort().map((key) => [key, core.tasksOf(state, key).map((task) => task.id).sort()]);
};

/**
 * The ids a decision removes, as a set: tasks told of between steps are watched ahead of
 * older ones, so the records may list them in another order.
 */
const removed = (core: ReaperCore, state: ClusterState): string[] =>
  core.decide(state).flatMap((proposal) => {
    if (proposal.type !== 'TasksRemoved') throw new Error(`the reaper proposed ${proposal.type}`);
    return proposal.data.tasks.map((item) => item.id);
  }).sort();

const learntAtOnce = (state: ClusterState): ReaperCore => {
  const core = new ReaperCore();
  core.reconcileAll(state);
  return core;
};

describe('the reaper learning the state in steps (reconcileInSteps)', () => {
  it('ends as a core that learnt it at once, though records arrived between its steps', () => {
    const { r, learner, listen } = cluster();
    listen();
    const steps = stepper(learner.reconcileInSteps(r.state));
    steps.step(1);
    // While the tasks are indexed: slot 40 crowded by new tasks, stopped tasks removed (reached and not), s2 removed, a task told to go.
    r.given(tasks('s1', range('g', 1, 3, () => 40), FAILED));
    r.given((s) => s.event('TasksRemoved', { tasks: ['f1-1', 'f1-30', 'bf50'].map((id) => ({ id, reason: 'spec' })) }));
    r.given((s) => s.event('ServiceRemoved', { id: 's2' }));
    r.given((s) => s.event('TaskDesiredStatesChanged', { tasks: [{ id: 'a1400', desiredState: REMOVE }] }));
    r.given((s) => s.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 'a1400', state: SHUTDOWN, at: new Date(s.clock).toISOString() }] }));
    steps.step(2);
    // While the crowded slots are looked for: slot 1499 crowded, the limit lowered.
    r.given(tasks('s1', range('h', 1, 3, () => 1_499), FAILED), limitOf(1));
    steps.step(Number.POSITIVE_INFINITY);
    expect(steps.taken).toBeGreaterThanOrEqual(3);

    const atOnce = learntAtOnce(r.state);
    expect(indexOf(learner, r.state)).toEqual(indexOf(atOnce, r.state));
    // What it watches holds what a core that learnt at once watches, and what it was told of besides.
    expect(learner.watching.slots).toBeGreaterThanOrEqual(atOnce.watching.slots);
    expect(learner.watching.tasks).toBeGreaterThanOrEqual(atOnce.watching.tasks);
    const stepped = removed(learner, r.state);
    expect(stepped).toEqual(removed(atOnce, r.state));
    // A slot keeps one task now, its running one: the failed tasks of slots 1–30 (less the two
    // removed), 40 and 1499 go; so do s2's stopped tasks, and a1400.
    expect(stepped).toHaveLength(30 * 3 - 2 + 3 + 3 + 49 + 1);
    expect(stepped).toEqual(expect.arrayContaining(['a1400', 'bf1', 'g1', 'g3', 'h1', 'h3', 'f2-1', 'f3-30']));
  });

  it('is reconcileAll, a step at a time: reconcileAll gives the same core', () => {
    const { r } = cluster();
    const stepped = new ReaperCore();
    for (const _ of stepped.reconcileInSteps(r.state)) continue;
    const atOnce = learntAtOnce(r.state);
    expect(stepped.watching).toEqual(atOnce.watching);
    expect(stepped.watching).toEqual({ slots: 30, tasks: 0 });
    expect(indexOf(stepped, r.state)).toEqual(indexOf(atOnce, r.state));
  });
});
