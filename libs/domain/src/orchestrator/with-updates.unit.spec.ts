/** The orchestrator with the update supervisor it calls by default: reconcilers and updater together. */
import { TaskState } from '@shoal/contracts';
import type { ServiceSpec, UpdateConfig } from '@shoal/contracts';
import { OrchestratorCore } from './orchestrator-core';
import { Simulation } from './simulation';

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
