import { TaskState } from '@shoal/contracts';
import type { NewTask, ServiceSpec } from '@shoal/contracts';
import { newTask, nodeDescription, specification, stepper } from '@shoal/testing';
import type { Given, Specification } from '@shoal/testing';
import type { ComponentCore, Proposal } from '../component-core';
import { slotKey } from '../reaper/slots';
import type { ClusterState } from '../state';
import { OrchestratorCore } from './orchestrator-core';
import { RESTARTED } from './restart-memory';

const { RUNNING, FAILED, SHUTDOWN, READY } = TaskState;
const NODES = 10;

const spec = (name: string, replicas: number, maxAttempts = 0): ServiceSpec => ({
  name,
  task: { container: { image: 'nginx' }, restartPolicy: { condition: 'any', delayMs: 60_000, maxAttempts, windowMs: 0 } },
  mode: { kind: 'replicated', replicas },
});
const specs: Record<string, ServiceSpec> = { web: spec('web', 1_500, 3), api: spec('api', 600), gone: spec('gone', 400), late: spec('late', 3) };


/** Tasks of `serviceId` created, allocated, assigned round the nodes and reported in `state`. */
const tasks =
  (serviceId: string, items: readonly Partial<NewTask>[], state: TaskState = RUNNING): Given =>
  (s) => {
    const created = items.map((item) => newTask(item.id as string, serviceId, specs[serviceId] as ServiceSpec, item));
    const nodeOf = (i: number) => `n${(i % NODES) + 1}`;
    return [
      s.event('TasksCreated', { tasks: created }),
      s.event('TasksAllocated', { tasks: created.map(({ id }) => ({ id, attachments: [] })) }),
      s.event('TasksAssigned', { tasks: created.map(({ id }, i) => ({ id, nodeId: nodeOf(i), why: 'spec' })) }),
      ...Array.from({ length: NODES }, (_, n) =>
        s.event('TaskStatusesReported', {
          nodeId: `n${n + 1}`,
          statuses: created.filter((_, i) => i % NODES === n).map(({ id }) => ({ id, state, at: new Date(s.clock).toISOString() })),
        }),
      ),
    ];
  };
const slots = (prefix: string, from: number, to: number): Partial<NewTask>[] => Array.from({ length: to - from + 1 }, (_, i) => ({ id: `${prefix}${from + i}`, slot: from + i }));

/** A task restarted: shut down by the restart supervisor, its replacement waiting out the delay. */
const restarted =
  (id: string, replacement: string): Given =>
  (s) => {
    const old = s.state.tasks.get(id);
    if (!old) throw new Error(`no task ${id}`);
    return [
      s.event('TaskDesiredStatesChanged', { tasks: [{ id, desiredState: SHUTDOWN, reason: `${RESTARTED} (spec)` }] }),
      s.event('TasksCreated', { tasks: [newTask(replacement, old.serviceId, specs[old.serviceId] as ServiceSpec, { slot: old.slot, desiredState: READY, replaces: id })] }),
    ];
  };
const failed =
  (...ids: string[]): Given =>
  (s) =>
    ids.map((id) => s.event('TaskStatusesReported', { nodeId: s.state.tasks.get(id)?.nodeId as string, statuses: [{ id, state: FAILED, at: new Date(s.clock).toISOString() }] }));

/**
 * 10 nodes; `web` (1,500 slots, at most 3 restarts each; slots 1–20 with a failed task
 * before the running one, slot 1200 restarted), `api` (600) and `gone` (400): 2,521 tasks,
 * several steps. The log is told to `learner` once it starts learning, as a runner's core
 * restored from a snapshot is (it knows nothing before).
 */
const cluster = (): { o: Specification; learner: OrchestratorCore; listen: () => void } => {
  let ids = 0;
  const learner = new OrchestratorCore({ newId: () => `new${++ids}` });
  let listening = false;
  const deafUntilLearning: ComponentCore = {
    component: 'orchestrator',
    observe: (event, verdict, state) => (listening ? learner.observe(event, verdict, state) : undefined),
    reconcileAll: () => undefined,
    decide: () => [],
  };
  const o = specification({ core: () => deafUntilLearning, clock: Date.parse('2026-01-01T00:00:00Z'), stampClock: true });
  o.given(...Array.from({ length: NODES }, (_, n) => o.event('NodeRegistered', { id: `n${n + 1}`, role: 'worker', description: nodeDescription(`n${n + 1}`) })));
  for (const id of ['web', 'api', 'gone']) o.given(o.event('ServiceCreated', { id, spec: specs[id] as ServiceSpec }));
  o.given(tasks('web', slots('old', 1, 20), FAILED));
  o.given((s) => s.event('TaskDesiredStatesChanged', { tasks: slots('old', 1, 20).map(({ id }) => ({ id: id as string, desiredState: SHUTDOWN })) }));
  o.advance(1_000);
  o.given(tasks('web', slots('w', 1, 1_500)), tasks('api', slots('a', 1, 600)), tasks('gone', slots('g', 1, 400)));
  o.given(restarted('w1200', 'r1200'));
  return { o, learner, listen: () => (listening = true) };
};

/** What the core keeps that a decision reads, in a form two cores can be compared by. */
const keptBy = (core: OrchestratorCore, state: ClusterState) => ({
  watching: core.watching,
  waiting: core.restarts.waiting.map((d) => [d.taskId, d.startAt, d.giveUpAt]).sort(),
  history: [...state.tasks.values()].map((t) => [t.id, core.restarts.history.attempts(slotKey(t) as string, t.specVersion, Date.now(), 0)]).sort(),
});

/**
 * What a decision proposes, with the ids a core makes left out (two cores make them in the
 * order they look at tasks, which may differ) and the items of each record as a sorted set:
 * a task told of between steps is a candidate ahead of older ones not reached yet.
 */
const proposed = (proposals: readonly Proposal[]) =>
  proposals.map((p) => {
    switch (p.type) {
      case 'TasksCreated':
        return [p.type, p.data.tasks.map((t) => [t.serviceId, t.slot, t.replaces, t.desiredState, t.specVersion].join(' ')).sort()];
      case 'TaskDesiredStatesChanged':
        return [p.type, p.data.tasks.map((t) => [t.id, t.desiredState, t.reason].join(' ')).sort()];
      default:
        return [p.type, p.data];
    }
  });

const learntAtOnce = (state: ClusterState): OrchestratorCore => {
  let ids = 0;
  const core = new OrchestratorCore({ newId: () => `fresh${++ids}` });
  core.reconcileAll(state);
  return core;
};

describe('the orchestrator learning the state in steps (reconcileInSteps)', () => {
  it('ends as a core that learnt it at once, though records arrived between its steps', () => {
    const { o, learner, listen } = cluster();
    listen();
    const steps = stepper(learner.reconcileInSteps(o.state));
    steps.step(1);
    // While the restart history is gathered: some reached, some not yet.
    o.given(failed('w5', 'w1300'), restarted('w7', 'r7'), restarted('w1400', 'r1400'));
    o.given((s) => s.event('TasksRemoved', { tasks: [{ id: 'old2', reason: 'spec' }, { id: 'w5', reason: 'spec' }, { id: 'old19', reason: 'spec' }] }));
    o.given((s) => s.event('ServiceRemoved', { id: 'gone' }), (s) => s.event('ServiceUpdated', { id: 'api', spec: spec('api', 550) }));
    steps.step(2);
    // While the restart history is seeded: replacements in slots seeded and not, tasks gone, a new service.
    o.given(restarted('w4', 'r4'), restarted('w1', 'r1'), restarted('w1450', 'r1450'), restarted('r1200', 's1200'));
    o.given((s) => s.event('TasksRemoved', { tasks: [{ id: 'old3', reason: 'spec' }, { id: 'w1300', reason: 'spec' }] }));
    o.given((s) => s.event('ServiceCreated', { id: 'late', spec: specs.late as ServiceSpec }), tasks('late', slots('l', 1, 2)));
    steps.step(3);
    // While the tasks are indexed: a task created, some failed, one removed.
    o.given(tasks('late', slots('l', 3, 3)), failed('a10', 'a20'));
    o.given((s) => s.event('TasksRemoved', { tasks: [{ id: 'a10', reason: 'spec' }] }));
    steps.step(Number.POSITIVE_INFINITY);
    expect(steps.taken).toBeGreaterThanOrEqual(6);

    const atOnce = learntAtOnce(o.state);
    // A task of slots 2, 3, 5 and 19 left the store once gathered: their restarts still count,
    // as for a core that learnt before they left and was told after; the state no longer tells them.
    const removedOnceGathered = new Set(['w2', 'w3', 'old5', 'w19']);
    const kept = keptBy(learner, o.state);
    expect(kept.history.filter(([id]) => removedOnceGathered.has(id as string))).toEqual([['old5', 1], ['w19', 1], ['w2', 1], ['w3', 1]]);
    kept.history = kept.history.filter(([id]) => !removedOnceGathered.has(id as string));
    const learnt = keptBy(atOnce, o.state);
    learnt.history = learnt.history.filter(([id]) => !removedOnceGathered.has(id as string));
    expect(kept).toEqual(learnt);
    const now = new Date(o.clock + 120_000);
    const stepped = proposed(learner.decide(o.state, now));
    expect(stepped).toEqual(proposed(atOnce.decide(o.state, now)));
    // It did something worth comparing: the removed service's tasks, the scale-down (the failed a20 first), the replacements started, the slots refilled.
    const desired = stepped.find(([type]) => type === 'TaskDesiredStatesChanged')?.[1] as string[];
    const created = stepped.find(([type]) => type === 'TasksCreated')?.[1] as string[];
    expect(desired.filter((item) => item.startsWith('g'))).toHaveLength(400);
    expect(desired.filter((item) => item.startsWith('a'))).toHaveLength(49);
    expect(desired.filter((item) => item.startsWith('r'))).toEqual(['r1', 'r1400', 'r1450', 'r4', 'r7'].map((id) => `${id} ${RUNNING} restart delay elapsed`));
    expect(created).toEqual(['web 1300  512 1', 'web 5  512 1']);
  });

  it('is reconcileAll, a step at a time: reconcileAll gives the same core', () => {
    const { o } = cluster();
    o.given(failed('w3'), restarted('w9', 'r9'));
    const stepped = new OrchestratorCore({ newId: () => 'stepped' });
    for (const _ of stepped.reconcileInSteps(o.state)) continue;
    const atOnce = learntAtOnce(o.state);
    expect(keptBy(stepped, o.state)).toEqual(keptBy(atOnce, o.state));
    // The tasks of slots 1–20 and 1200, restarted once (slot 9 twice).
    expect(keptBy(atOnce, o.state).history.filter(([, n]) => n !== 0)).toHaveLength(43);
  });
});
