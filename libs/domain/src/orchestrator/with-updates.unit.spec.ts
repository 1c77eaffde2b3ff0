/** The orchestrator with the update supervisor it calls by default: reconcilers and updater together. */
import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { ServiceSpec, UpdateConfig } from '@shoal/contracts';
import { OrchestratorCore } from './orchestrator-core';
import { Simulation } from '@shoal/testing';

const { RUNNING } = TaskState;

const update: UpdateConfig = { parallelism: 1, delayMs: 0, failureAction: 'rollback', monitorMs: 5_000, maxFailureRatio: 0, order: 'stop-first' };

const spec = (image: string, replicas = 3, overrides: Partial<ServiceSpec> = {}): ServiceSpec => ({
  name: 'web',
  task: { container: { image }, restartPolicy: { condition: 'any', delayMs: 1_000, maxAttempts: 0, windowMs: 0 } },
  mode: { kind: 'replicated', replicas },
  update,
  rollback: { ...update, failureAction: 'pause' },
  ...overrides,
});

const setup = () => {
  let ids = 0;
  const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }), { fails: (t) => t.spec.container.image === 'web:broken' });
  for (const n of ['n1', 'n2']) sim.addNode(n);
  sim.append('ServiceCreated', { id: 's1', spec: spec('web:1') });
  sim.settle();
  return sim;
};

/** Slots with more than one task desired RUNNING. */
const doubled = (sim: Simulation) => {
  const seen = new Map<number, number>();
  for (const t of sim.tasksOf('s1')) if (t.desiredState === RUNNING && t.slot !== undefined) seen.set(t.slot, (seen.get(t.slot) ?? 0) + 1);
  return [...seen.values()].some((n) => n > 1);
};

describe('the orchestrator with its update supervisor', () => {
  it('given a new image, then every slot is replaced one at a time and the update completes', () => {
    const sim = setup();
    sim.append('ServiceUpdated', { id: 's1', spec: spec('web:2') });
    for (let i = 0; i < 100; i++) {
      if (sim.step() === 0 && sim.settle(1) === 0) break;
      expect(doubled(sim)).toBe(false);
    }
    sim.settle(200);
    expect(sim.running('s1').map((t) => [t.slot, t.spec.container.image]).sort()).toEqual([
      [1, 'web:2'],
      [2, 'web:2'],
      [3, 'web:2'],
    ]);
    expect(sim.state.services.get('s1')!.updateStatus?.state).toBe('completed');
  });

  it('given a scale change during a steady state, then nothing is replaced for the version bump', () => {
    const sim = setup();
    const before = sim.running('s1').map((t) => t.id).sort();
    sim.append('ServiceUpdated', { id: 's1', spec: spec('web:1', 4) });
    sim.settle(200);
    expect(sim.running('s1').filter((t) => before.includes(t.id)).map((t) => t.id).sort()).toEqual(before);
    expect(sim.running('s1')).toHaveLength(4);
  });

  it('given a new image that fails, then the update rolls back and the old image runs in every slot again', () => {
    const sim = setup();
    sim.append('ServiceUpdated', { id: 's1', spec: spec('web:broken') });
    sim.settle(300);
    expect(sim.state.services.get('s1')!.updateStatus?.state).toMatch(/^rollback_/);
    expect(sim.running('s1').map((t) => t.spec.container.image)).toEqual(['web:1', 'web:1', 'web:1']);
    expect(new Set(sim.running('s1').map((t) => t.slot)).size).toBe(3);
  });
});

describe('the orchestrator with its update supervisor, invariants', () => {
  type Step =
    | { readonly kind: 'image'; readonly v: number }
    | { readonly kind: 'scale'; readonly replicas: number }
    | { readonly kind: 'fail'; readonly pick: number }
    | { readonly kind: 'node'; readonly node: number; readonly up: boolean }
    | { readonly kind: 'advance'; readonly ms: number };
  const step: fc.Arbitrary<Step> = fc.oneof(
    fc.record({ kind: fc.constant('image' as const), v: fc.integer({ min: 1, max: 4 }) }),
    fc.record({ kind: fc.constant('scale' as const), replicas: fc.integer({ min: 0, max: 5 }) }),
    fc.record({ kind: fc.constant('fail' as const), pick: fc.nat(10) }),
    fc.record({ kind: fc.constant('node' as const), node: fc.nat(1), up: fc.boolean() }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 10_000 }) }),
  );
  // A fixed sample of runs, the same on every machine: these properties exercise the update
  // supervisor too, and a rare case found in one run should be chased down, not flicker in CI.
  // (Thousands of runs with random seeds pass; raise numRuns and drop the seed to explore.)
  const SEED = 20_261_123;
  const tolerant: UpdateConfig = { ...update, failureAction: 'continue', maxFailureRatio: 1, monitorMs: 1_000 };

  const run = (steps: readonly Step[], order: UpdateConfig['order'], global: boolean) => {
    let ids = 0;
    const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }));
    for (const n of ['n1', 'n2']) sim.addNode(n);
    let image = 'web:1';
    let replicas = 3;
    const config = { ...tolerant, order };
    const current = () => spec(image, replicas, { update: config, rollback: config, ...(global ? { mode: { kind: 'global' as const } } : {}) });
    /** Slots (or nodes) with more than one task desired RUNNING. */
    const doubledHere = () => {
      const seen = new Map<string, number>();
      for (const t of sim.tasksOf('s1')) {
        const key = global ? t.nodeId : String(t.slot);
        if (t.desiredState === RUNNING && key !== undefined) seen.set(key, (seen.get(key) ?? 0) + 1);
      }
      return [...seen.values()].some((n) => n > 1);
    };
    sim.append('ServiceCreated', { id: 's1', spec: current() });
    for (const s of steps) {
      if (s.kind === 'image') {
        image = `web:${s.v}`;
        sim.append('ServiceUpdated', { id: 's1', spec: current() });
      } else if (s.kind === 'scale') {
        replicas = s.replicas;
        sim.append('ServiceUpdated', { id: 's1', spec: current() });
      } else if (s.kind === 'fail') {
        const task = sim.running('s1')[s.pick % Math.max(1, sim.running('s1').length)];
        if (task && sim.state.nodes.get(task.nodeId!)?.status.state === 'ready') sim.report(task.id, TaskState.FAILED);
      } else if (s.kind === 'node') {
        sim.append('NodeStatusChanged', { nodes: [{ id: `n${s.node + 1}`, state: s.up ? 'ready' : 'down' }] });
      } else sim.advance(s.ms);
      sim.step();
      if (order === 'stop-first') expect(doubledHere()).toBe(false);
      // Records are never written in the same millisecond here (the update supervisor tells
      // its own tasks from an earlier update's by creation time).
      sim.advance(1);
    }
    for (const id of ['n1', 'n2']) sim.append('NodeStatusChanged', { nodes: [{ id, state: 'ready' }] });
    sim.settle(400, 1_000);
    const wanted = global ? 2 : replicas;
    expect(doubledHere()).toBe(false);
    expect(sim.running('s1')).toHaveLength(wanted);
    expect(sim.runnable('s1')).toHaveLength(wanted);
    expect(sim.running('s1').every((t) => t.spec.container.image === image)).toBe(true);
  };

  it('given a restart replacement waiting out its delay on a node that goes down while the service is updated, then the service still settles at its current spec', () => {
    // Found by the properties below: the replacement was started on the down node when its
    // delay ran out, and once the node came back it ran the old image, which no update replaced.
    run(
      [
        { kind: 'scale', replicas: 1 },
        { kind: 'fail', pick: 0 },
        { kind: 'node', node: 0, up: false },
        { kind: 'image', v: 2 },
        { kind: 'scale', replicas: 2 },
        { kind: 'advance', ms: 996 },
      ],
      'stop-first',
      false,
    );
    run(
      [
        { kind: 'node', node: 0, up: true },
        { kind: 'fail', pick: 2 },
        { kind: 'image', v: 2 },
        { kind: 'scale', replicas: 3 },
        { kind: 'node', node: 0, up: false },
        { kind: 'scale', replicas: 2 },
        { kind: 'fail', pick: 0 },
        { kind: 'advance', ms: 999 },
      ],
      'stop-first',
      false,
    );
  });

  it('whatever happens during stop-first updates, a slot never runs two tasks, and the service settles at its current spec', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), (steps) => run(steps, 'stop-first', false)),
      { numRuns: 100, seed: SEED },
    );
  });

  it('with start-first updates, and for a global service, the service settles with one task per slot or node at its current spec', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 30 }), fc.constantFrom<UpdateConfig['order']>('stop-first', 'start-first'), fc.boolean(), (steps, order, global) =>
        run(steps, order, global),
      ),
      { numRuns: 100, seed: SEED },
    );
  });
});
