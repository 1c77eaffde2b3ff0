/**
 * Invariants of the orchestrator, over random runs of a small cluster: tasks failing and
 * completing, services scaled, nodes going down, drained, paused and back, time passing.
 */
import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { NodeAvailability, ServiceSpec, TaskDesiredStatesChanged } from '@shoal/contracts';
import { OrchestratorCore } from './orchestrator-core';
import { RESTARTED } from './restart-memory';
import { Simulation } from '@shoal/testing';

const { RUNNING, FAILED, COMPLETE } = TaskState;

type Command =
  | { readonly kind: 'fail' | 'complete'; readonly pick: number }
  | { readonly kind: 'scale'; readonly replicas: number }
  | { readonly kind: 'node-state'; readonly node: number; readonly up: boolean }
  | { readonly kind: 'availability'; readonly node: number; readonly availability: NodeAvailability }
  | { readonly kind: 'advance'; readonly ms: number };

const NODES = ['n1', 'n2', 'n3'];

const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ kind: fc.constantFrom('fail' as const, 'complete' as const), pick: fc.nat(50) }),
  fc.record({ kind: fc.constant('scale' as const), replicas: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ kind: fc.constant('node-state' as const), node: fc.nat(2), up: fc.boolean() }),
  fc.record({ kind: fc.constant('availability' as const), node: fc.nat(2), availability: fc.constantFrom<NodeAvailability>('active', 'pause', 'drain') }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 20_000 }) }),
);

const spec = (replicas: number, delayMs: number, maxAttempts = 0, windowMs = 0): ServiceSpec => ({
  name: 'web',
  task: { container: { image: 'nginx' }, restartPolicy: { condition: 'any', delayMs, maxAttempts, windowMs } },
  mode: { kind: 'replicated', replicas },
});

const start = (replicas: number, delayMs: number, maxAttempts = 0, windowMs = 0) => {
  let ids = 0;
  const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }));
  for (const n of NODES) sim.addNode(n);
  sim.append('ServiceCreated', { id: 's1', spec: spec(replicas, delayMs, maxAttempts, windowMs) });
  return sim;
};

const apply = (sim: Simulation, c: Command, scale: (replicas: number) => void): void => {
  switch (c.kind) {
    case 'fail':
    case 'complete': {
      const running = sim.running('s1');
      const task = running[c.pick % Math.max(1, running.length)];
      const node = task?.nodeId === undefined ? undefined : sim.state.nodes.get(task.nodeId);
      if (task && node?.status.state === 'ready') sim.report(task.id, c.kind === 'fail' ? FAILED : COMPLETE);
      return;
    }
    case 'scale':
      scale(c.replicas);
      return;
    case 'node-state':
      sim.append('NodeStatusChanged', { nodes: [{ id: NODES[c.node]!, state: c.up ? 'ready' : 'down' }] });
      return;
    case 'availability':
      sim.append('NodeSpecUpdated', { id: NODES[c.node]!, spec: { labels: {}, role: 'worker', availability: c.availability } });
      return;
    case 'advance':
      sim.advance(c.ms);
      return;
    default: {
      const _exhaustive: never = c;
      return _exhaustive;
    }
  }
};

/** Slots with more than one task desired RUNNING. */
const doubled = (sim: Simulation): number[] => {
  const count = new Map<number, number>();
  for (const t of sim.tasksOf('s1')) if (t.desiredState === RUNNING && t.slot !== undefined) count.set(t.slot, (count.get(t.slot) ?? 0) + 1);
  return [...count].filter(([, n]) => n > 1).map(([slot]) => slot);
};

const runnableSlots = (sim: Simulation): number => new Set(sim.runnable('s1').map((t) => t.slot)).size;

describe('orchestrator invariants', () => {
  it('outside an update, a slot never has two tasks desired RUNNING, and the runnable slots converge to the replica count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.constantFrom(0, 1_000, 5_000), fc.array(command, { maxLength: 40 }), (replicas, delayMs, commands) => {
        const sim = start(replicas, delayMs);
        let wanted = replicas;
        const scale = (n: number) => {
          wanted = n;
          sim.append('ServiceUpdated', { id: 's1', spec: spec(n, delayMs) });
        };
        for (const c of commands) {
          apply(sim, c, scale);
          sim.step();
          expect(doubled(sim)).toEqual([]);
        }
        // Every node back, ready and active: the service settles at its replica count.
        for (const id of NODES) {
          sim.append('NodeStatusChanged', { nodes: [{ id, state: 'ready' }] });
          sim.append('NodeSpecUpdated', { id, spec: { labels: {}, role: 'worker', availability: 'active' } });
        }
        sim.settle(200, 1_000);
        expect(doubled(sim)).toEqual([]);
        expect(runnableSlots(sim)).toBe(wanted);
        expect(sim.running('s1')).toHaveLength(wanted);
        expect(sim.decide()).toEqual([]);
      }),
      { numRuns: 150 },
    );
  });

  it('a global service converges to one task on every ready, active node, and never has two desired RUNNING on one node', () => {
    fc.assert(
      fc.property(fc.array(command, { maxLength: 40 }), (commands) => {
        let ids = 0;
        const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }));
        for (const n of NODES) sim.addNode(n);
        sim.append('ServiceCreated', { id: 's1', spec: { ...spec(0, 1_000), mode: { kind: 'global' } } });
        const perNode = () => {
          const count = new Map<string, number>();
          for (const t of sim.tasksOf('s1')) if (t.desiredState === RUNNING) count.set(t.nodeId!, (count.get(t.nodeId!) ?? 0) + 1);
          return count;
        };
        for (const c of commands) {
          apply(sim, c, () => undefined);
          sim.step();
          expect([...perNode().values()].every((n) => n <= 1)).toBe(true);
        }
        for (const id of NODES) {
          sim.append('NodeStatusChanged', { nodes: [{ id, state: 'ready' }] });
          sim.append('NodeSpecUpdated', { id, spec: { labels: {}, role: 'worker', availability: 'active' } });
        }
        sim.settle(200, 1_000);
        expect(sim.running('s1').map((t) => t.nodeId).sort()).toEqual(NODES);
        expect([...perNode().values()].every((n) => n === 1)).toBe(true);
      }),
      { numRuns: 150 },
    );
  });

  it('restarts of a slot never exceed max attempts within the window', () => {
    const failures = fc.array(
      fc.oneof(
        fc.record({ kind: fc.constant('fail' as const), pick: fc.nat(10) }),
        fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 30_000 }) }),
      ),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.constantFrom(0, 10_000, 60_000), fc.constantFrom(0, 2_000), failures, (maxAttempts, windowMs, delayMs, commands) => {
        const sim = start(2, delayMs, maxAttempts, windowMs);
        sim.settle();
        for (const c of commands) {
          apply(sim, c, () => undefined);
          sim.settle(5, 1_000);
        }
        // Every restart, by slot, at the time it was decided.
        const restartedIds = new Set(
          sim
            .written('TaskDesiredStatesChanged')
            .flatMap((e) => (e.data as TaskDesiredStatesChanged).tasks)
            .filter((t) => t.reason?.startsWith(RESTARTED))
            .map((t) => t.id),
        );
        const bySlot = new Map<number, number[]>();
        for (const e of sim.written('TasksCreated')) {
          for (const t of e.data.tasks) {
            if (t.replaces === undefined || !restartedIds.has(t.replaces) || t.slot === undefined) continue;
            bySlot.set(t.slot, [...(bySlot.get(t.slot) ?? []), Date.parse(e.at)]);
          }
        }
        for (const times of bySlot.values()) {
          if (windowMs === 0) expect(times.length).toBeLessThanOrEqual(maxAttempts);
          else for (const at of times) expect(times.filter((t) => t > at - windowMs && t <= at).length).toBeLessThanOrEqual(maxAttempts);
        }
      }),
      { numRuns: 150 },
    );
  });
});
