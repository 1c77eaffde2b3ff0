import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { RestartPolicy, ServiceMode, ServiceSpec, Task } from '@shoal/contracts';
import { Simulation } from '@shoal/testing';
import { evolve } from '../evolve';
import { emptyState } from '../state';
import { OrchestratorCore } from './orchestrator-core';
import { RestartHistory } from './restart-history';
import { RestartMemory } from './restart-memory';

const { FAILED } = TaskState;

const spec = (name: string, policy: Partial<RestartPolicy>, mode: ServiceMode = { kind: 'replicated', replicas: 1 }, image = 'nginx:1.27'): ServiceSpec => ({
  name,
  task: { container: { image }, restartPolicy: { condition: 'any', delayMs: 0, maxAttempts: 0, windowMs: 0, ...policy } },
  mode,
});

/** An orchestrator whose task ids start with `prefix`: two of them never make the same id. */
const core = (prefix = 't') => {
  let ids = 0;
  return new OrchestratorCore({ newId: () => `${prefix}${++ids}` });
};

/** A cluster of `nodes` with each service created and running. */
const cluster = (c: OrchestratorCore, services: Record<string, ServiceSpec>, nodes = ['n1']) => {
  const sim = new Simulation(c);
  for (const n of nodes) sim.addNode(n);
  for (const [id, s] of Object.entries(services)) expect(sim.append('ServiceCreated', { id, spec: s }).status).toBe('applied');
  sim.settle();
  return sim;
};

const replacementOf = (sim: Simulation, id: string): Task | undefined => [...sim.state.tasks.values()].find((t) => t.replaces === id);

/** Fails the running task of `serviceId` (its first), lets the orchestrator answer, and gives the failed task. */
const failOne = (sim: Simulation, serviceId: string): Task => {
  const task = sim.running(serviceId)[0]!;
  sim.report(task.id, FAILED);
  sim.settle();
  return task;
};

describe('what the restart history holds', () => {
  it('keeps, of a slot, the count of its restarts and only the times that may still count: those inside the window of the newest', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60_000 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 12 }),
        (windowMs, gaps) => {
          // Restarts `gaps` apart (0: two at the same millisecond), oldest first, as the log tells them.
          const times = gaps.reduce<number[]>((acc, gap) => [...acc, (acc.at(-1) ?? 1_000_000) + gap], []);
          const history = new RestartHistory();
          for (const at of times) history.record('s1/1', 1, at, windowMs);
          const last = times.at(-1)!;
          // Without a window no time is kept: the count is all a decision reads then.
          const kept = windowMs > 0 ? times.filter((t) => t > last - windowMs) : [];
          expect(history.held('s1/1')).toEqual({ specVersion: 1, total: times.length, times: kept });
        },
      ),
      { numRuns: 300 },
    );
  });

  it('lets go of a restart exactly one window older than the newest, and keeps one a millisecond younger', () => {
    const history = new RestartHistory();
    for (const at of [10_000, 10_001, 20_000]) history.record('s1/1', 1, at, 30_000);
    expect(history.held('s1/1')?.times).toEqual([10_000, 10_001, 20_000]);
    history.record('s1/1', 1, 40_000, 30_000);
    expect(history.held('s1/1')).toEqual({ specVersion: 1, total: 4, times: [10_001, 20_000, 40_000] });
    history.record('s1/1', 1, 100_000, 30_000);
    expect(history.held('s1/1')).toEqual({ specVersion: 1, total: 5, times: [100_000] });
  });

  describe('a seed (what the tasks in the state tell of a slot)', () => {
    /** Three restarts told by the log inside a window of 30 s: the first one let go by the third. */
    const told = (): RestartHistory => {
      const history = new RestartHistory();
      for (const at of [1_000, 20_000, 40_000]) history.record('s1/1', 1, at, 30_000);
      expect(history.held('s1/1')).toEqual({ specVersion: 1, total: 3, times: [20_000, 40_000] });
      return history;
    };

    it('given the log told as many restarts of that version, or more, then what the log told is kept', () => {
      const history = told();
      history.seed('s1/1', 1, [40_000, 1_000, 20_000]);
      history.seed('s1/1', 1, [20_000, 40_000]);
      expect(history.held('s1/1')).toEqual({ specVersion: 1, total: 3, times: [20_000, 40_000] });
    });

    it('given the state tells more restarts of that version than the log did, then the seed is taken, its times oldest first', () => {
      const history = told();
      history.seed('s1/1', 1, [50_000, 1_000, 40_000, 20_000]);
      expect(history.held('s1/1')).toEqual({ specVersion: 1, total: 4, times: [1_000, 20_000, 40_000, 50_000] });
      // Oldest first, a later restart lets go of what has left the window.
      history.record('s1/1', 1, 60_000, 30_000);
      expect(history.held('s1/1')).toEqual({ specVersion: 1, total: 5, times: [40_000, 50_000, 60_000] });
    });

    it('given the state tells of a newer spec version than the log did, then the seed is taken though it tells fewer restarts', () => {
      const history = told();
      history.seed('s1/1', 2, [45_000]);
      expect(history.held('s1/1')).toEqual({ specVersion: 2, total: 1, times: [45_000] });
      expect(history.attempts('s1/1', 2, 50_000, 30_000)).toBe(1);
    });
  });
});

describe('what the restart memory holds', () => {
  it('given a slot whose tasks are of two spec versions, one task at the newest (an update, no restart), then nothing is held for it', () => {
    const sim = cluster(core(), { s1: spec('s1', { maxAttempts: 3 }) });
    sim.append('ServiceUpdated', { id: 's1', spec: spec('s1', { maxAttempts: 3 }, undefined, 'nginx:1.28') });
    sim.settle();
    const slot = sim.tasksOf('s1');
    expect(slot.map((t) => t.specVersion).sort()).toEqual([1, 2]);
    const fresh = core('fresh');
    sim.takeOver(fresh);
    expect(fresh.restarts.history.size).toBe(0);
    expect(fresh.restarts.history.held('s1/1')).toBeUndefined();
  });

  it('given a service removed, then its slots’ and nodes’ restarts and its waiting replacements are let go, and another service’s kept and started in time', () => {
    const c = core();
    const policy = { maxAttempts: 5, delayMs: 60_000 };
    const sim = cluster(c, { s1: spec('s1', policy), g1: spec('g1', policy, { kind: 'global' }), s2: spec('s2', policy) }, ['n1']);
    // One restart each, their replacements waiting out the delay.
    const failed = ['s1', 'g1', 's2'].map((id) => {
      const task = sim.running(id)[0]!;
      sim.report(task.id, FAILED);
      return task;
    });
    sim.decide();
    const [s1Next, g1Next, s2Next] = failed.map((task) => replacementOf(sim, task.id)!);
    expect(c.restarts.waiting.map((d) => d.taskId).sort()).toEqual([s1Next!.id, g1Next!.id, s2Next!.id].sort());
    expect([c.restarts.history.held('s1/1')?.total, c.restarts.history.held('g1@n1')?.total, c.restarts.history.held('s2/1')?.total]).toEqual([1, 1, 1]);

    sim.append('ServiceRemoved', { id: 's1' });
    expect(c.restarts.history.held('s1/1')).toBeUndefined();
    expect(c.restarts.waiting.map((d) => d.taskId).sort()).toEqual([g1Next!.id, s2Next!.id].sort());
    sim.append('ServiceRemoved', { id: 'g1' });
    expect(c.restarts.history.held('g1@n1')).toBeUndefined();
    expect(c.restarts.history.size).toBe(1);
    expect(c.restarts.history.held('s2/1')).toEqual({ specVersion: 1, total: 1, times: [] });
    expect(c.restarts.waiting.map((d) => d.taskId)).toEqual([s2Next!.id]);

    // The service left is started when its delay has passed.
    sim.spec.clock = Date.parse(s2Next!.createdAt) + 60_000;
    sim.settle();
    expect(sim.running('s2').map((t) => t.id)).toEqual([s2Next!.id]);
  });

  it('given a waiting replacement removed from the store, then it no longer waits and the core asks to be woken for nothing', () => {
    const c = core();
    const sim = cluster(c, { s1: spec('s1', { delayMs: 60_000 }) });
    const old = sim.running('s1')[0]!;
    sim.report(old.id, FAILED);
    sim.decide();
    const next = replacementOf(sim, old.id)!;
    expect(c.restarts.waiting.map((d) => d.taskId)).toEqual([next.id]);
    expect(c.watching.delayed).toBe(1);
    sim.append('TasksRemoved', { tasks: [{ id: next.id, reason: 'removed while it waited' }] });
    expect(c.restarts.waiting).toEqual([]);
    expect(c.restarts.isDelayed(next.id)).toBe(false);
    expect(c.wakeAt(sim.state)).toBeUndefined();
  });
});

describe('restarts the log told and the state tells both', () => {
  it('given an orchestrator that replays the log after the reaper removed a restarted task, then the restarts the log told still count', () => {
    const policy = { maxAttempts: 3 };
    const sim = cluster(core(), { s1: spec('s1', policy) });
    const first = failOne(sim, 's1');
    failOne(sim, 's1');
    // Two restarts told; the reaper removes the first task: the state now tells of one restart only.
    expect(sim.append('TasksRemoved', { tasks: [{ id: first.id, reason: 'task history' }] }, 'reaper').status).toBe('applied');
    expect(sim.tasksOf('s1')).toHaveLength(2);

    // The orchestrator restarts: it replays the whole log, then takes its start-up pass over the state.
    const fresh = core('fresh');
    const replayed = emptyState();
    for (const { event } of sim.log) fresh.observe(event, evolve(replayed, event), replayed);
    sim.core = fresh;
    sim.spec.reconcileAll();
    expect(fresh.restarts.history.held('s1/1')?.total).toBe(2);

    // One more restart is allowed (the third), and no fourth.
    const third = failOne(sim, 's1');
    expect(replacementOf(sim, third.id)).toBeDefined();
    const fourth = failOne(sim, 's1');
    expect(replacementOf(sim, fourth.id)).toBeUndefined();
    expect(sim.running('s1')).toHaveLength(0);
  });

  it('given a restart told while the state is being learnt, before its slot is seeded, then it counts once though the state holds it too', () => {
    const policy = { maxAttempts: 5, delayMs: 60_000 };
    // s0 first: its slot is seeded a step before s1's.
    const sim = cluster(core(), { s0: spec('s0', policy), s1: spec('s1', policy) });
    failOne(sim, 's1');
    expect(sim.tasksOf('s1')).toHaveLength(2);

    const memory = new RestartMemory();
    const steps = memory.adoptInSteps(sim.state, 1);
    // A step a task (three), then one for s0's slot: s1's is next.
    for (let i = 0; i < 4; i++) expect(steps.next().done).toBe(false);

    // Meanwhile the running replacement fails and is restarted: the memory is told, as a runner's core is.
    const told = sim.log.length;
    sim.report(sim.running('s1')[0]!.id, FAILED);
    sim.decide();
    for (const { event } of sim.log.slice(told)) {
      if (event.type === 'TaskDesiredStatesChanged') memory.desiredChanged(event.data.tasks);
      if (event.type === 'TasksCreated') memory.created(event.data.tasks, event.at, sim.state);
    }
    expect(sim.tasksOf('s1')).toHaveLength(3);
    expect(memory.history.held('s1/1')?.total).toBe(1);

    while (!steps.next().done) continue;
    // Two restarts: the one the state told, and the one told meanwhile, which the state holds too.
    expect(memory.history.held('s1/1')?.total).toBe(2);
    expect(memory.history.attempts('s1/1', 1, sim.now().getTime(), 0)).toBe(2);
  });
});
