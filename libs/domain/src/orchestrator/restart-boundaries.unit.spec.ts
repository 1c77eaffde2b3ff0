import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { RestartPolicy, ServiceSpec, Task } from '@shoal/contracts';
import { Simulation, aroundBoundary } from '@shoal/testing';
import { OrchestratorCore } from './orchestrator-core';
import { RestartHistory } from './restart-history';
import { mayBeRunning } from './replacement-start';

const { READY, RUNNING, FAILED } = TaskState;

const spec = (policy: Partial<RestartPolicy>): ServiceSpec => ({
  name: 'web',
  task: { container: { image: 'nginx:1.27' }, restartPolicy: { condition: 'any', delayMs: 0, maxAttempts: 0, windowMs: 0, ...policy } },
  mode: { kind: 'replicated', replicas: 1 },
});

const running = (policy: Partial<RestartPolicy>) => {
  let ids = 0;
  const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }));
  sim.addNode('n1');
  sim.append('ServiceCreated', { id: 's1', spec: spec(policy) });
  sim.settle();
  return sim;
};

const replacementOf = (sim: Simulation, id: string): Task | undefined => sim.tasksOf('s1').find((t) => t.replaces === id);

/**
 * Max attempts 1 within `windowMs`: the first task fails and is replaced (restart 1, at the
 * replacement's creation); the replacement then fails `after` ms after that restart.
 * Whether it was replaced in turn.
 */
const secondFailureRestarted = (windowMs: number, after: number): boolean => {
  const sim = running({ maxAttempts: 1, windowMs });
  const first = sim.running('s1')[0]!;
  sim.report(first.id, FAILED);
  sim.settle();
  const second = replacementOf(sim, first.id)!;
  expect(sim.state.tasks.get(second.id)!.status.state).toBe(RUNNING);
  sim.spec.clock = Date.parse(second.createdAt) + after;
  sim.report(second.id, FAILED);
  sim.settle();
  return replacementOf(sim, second.id) !== undefined;
};

describe('restart rules on their boundaries', () => {
  describe('the max-attempts window is open at its lower end: (ended − window, ended)', () => {
    it('given a restart exactly one window before a task ends, then it no longer counts and the task is restarted', () => {
      expect(secondFailureRestarted(30_000, 30_000)).toBe(true);
    });

    it('given a restart one millisecond less than a window before the task ends, then it counts and the task is not restarted', () => {
      expect(secondFailureRestarted(30_000, 29_999)).toBe(false);
    });
  });

  describe('a replacement waits out its whole restart delay', () => {
    it('given a delay of 10 s, then the replacement is not started 1 ms before it ends, and is started exactly when it ends', () => {
      const sim = running({ delayMs: 10_000 });
      const old = sim.running('s1')[0]!;
      sim.report(old.id, FAILED);
      sim.decide();
      const next = replacementOf(sim, old.id)!;
      expect(next.desiredState).toBe(READY);
      sim.spec.clock = Date.parse(next.createdAt) + 9_999;
      expect(sim.decide()).toEqual([]);
      sim.spec.clock = Date.parse(next.createdAt) + 10_000;
      expect(sim.decide()).toEqual([
        { type: 'TaskDesiredStatesChanged', data: { tasks: [{ id: next.id, desiredState: RUNNING, reason: 'restart delay elapsed' }] } },
      ]);
    });
  });
});

describe('a replacement waits for the task it replaces only while that task may be running', () => {
  it('from ASSIGNED (on a node) to RUNNING, not before it is on a node nor once it stopped', () => {
    const at = (state: TaskState): boolean => mayBeRunning({ status: { state } } as Task);
    expect([TaskState.NEW, TaskState.PENDING].map(at)).toEqual([false, false]);
    expect([TaskState.ASSIGNED, TaskState.ACCEPTED, TaskState.PREPARING, TaskState.READY, TaskState.STARTING, TaskState.RUNNING].map(at)).toEqual([true, true, true, true, true, true]);
    expect([TaskState.COMPLETE, TaskState.SHUTDOWN, TaskState.FAILED, TaskState.REJECTED, TaskState.REMOVE, TaskState.ORPHANED].map(at)).toEqual([false, false, false, false, false, false]);
  });
});

describe('restart properties at exact time boundaries', () => {
  it('counts exactly the restarts in (ended − window, ended) of the slot’s spec version, however they sit around the edges', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.integer({ min: 0, max: 1e12 }),
        // Each restart sits near the window's start or near the task's end: on it, a millisecond either side, or further off.
        fc.array(fc.tuple(fc.boolean(), aroundBoundary(0, 60_000)), { maxLength: 8 }),
        (windowMs, endedAt, places) => {
          const times = places.map(([nearEnd, delta]) => Math.min(endedAt, (nearEnd ? endedAt : endedAt - windowMs) + delta)).sort((a, b) => a - b);
          const history = new RestartHistory();
          for (const at of times) history.record('s1/1', 1, at, windowMs);
          expect(history.attempts('s1/1', 1, endedAt, windowMs)).toBe(times.filter((t) => t > endedAt - windowMs && t < endedAt).length);
          expect(history.attempts('s1/1', 1, endedAt, 0)).toBe(times.length);
          expect(history.attempts('s1/1', 2, endedAt, windowMs)).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('starts a replacement exactly when its restart delay has passed, never a millisecond before', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 120_000 }), fc.integer({ min: -3, max: 3 }), (delayMs, offset) => {
        const sim = running({ delayMs });
        const old = sim.running('s1')[0]!;
        sim.report(old.id, FAILED);
        sim.decide();
        const next = replacementOf(sim, old.id)!;
        sim.spec.clock = Date.parse(next.createdAt) + delayMs + offset;
        const started = sim.decide().some((p) => p.type === 'TaskDesiredStatesChanged' && p.data.tasks.some((t) => t.id === next.id && t.desiredState === RUNNING));
        expect(started).toBe(offset >= 0);
      }),
      { numRuns: 100 },
    );
  });
});
