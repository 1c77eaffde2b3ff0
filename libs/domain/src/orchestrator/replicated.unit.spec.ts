import { TaskState } from '@shoal/contracts';
import type { ServiceSpec } from '@shoal/contracts';
import { OrchestratorCore } from './orchestrator-core';
import { Simulation } from '@shoal/testing';

const { RUNNING, REMOVE, FAILED } = TaskState;

const spec = (replicas: number, overrides: Partial<ServiceSpec> = {}): ServiceSpec => ({
  name: 'web',
  task: { container: { image: 'nginx:1.27' }, restartPolicy: { condition: 'any', delayMs: 0, maxAttempts: 0, windowMs: 0 } },
  mode: { kind: 'replicated', replicas },
  ...overrides,
});

const setup = (nodes = ['n1', 'n2', 'n3']) => {
  let ids = 0;
  const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }));
  for (const n of nodes) sim.addNode(n);
  return sim;
};

const slotsOf = (sim: Simulation, serviceId = 's1') =>
  sim
    .runnable(serviceId)
    .map((t) => t.slot)
    .sort((a, b) => (a ?? 0) - (b ?? 0));

describe('replicated services: reconcile by slot', () => {
  it('given a new service with 3 replicas, when the orchestrator decides, then it creates one task per slot 1..3 in one record', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 's1', spec: spec(3) });
    const proposals = sim.decide();
    expect(proposals.map((p) => p.type)).toEqual(['TasksCreated']);
    const created = sim.written('TasksCreated')[0]!.data.tasks;
    expect(created.map((t) => t.slot)).toEqual([1, 2, 3]);
    expect(created.every((t) => t.desiredState === RUNNING && t.specVersion === 1 && t.serviceId === 's1')).toBe(true);
  });

  it('given a converged service, when nothing changes, then it proposes nothing', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 's1', spec: spec(3) });
    sim.settle();
    expect(sim.running('s1')).toHaveLength(3);
    expect(sim.decide()).toEqual([]);
  });

  it('given 3 running replicas, when scaled to 5, then it adds slots 4 and 5 and leaves the others alone', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 's1', spec: spec(3) });
    sim.settle();
    const before = sim.running('s1').map((t) => t.id);
    sim.append('ServiceUpdated', { id: 's1', spec: spec(5) });
    sim.decide();
    expect(slotsOf(sim)).toEqual([1, 2, 3, 4, 5]);
    expect(sim.written('TaskDesiredStatesChanged')).toHaveLength(0);
    // The scale change bumped the version; the old tasks are not replaced for it.
    expect(sim.runnable('s1').filter((t) => before.includes(t.id))).toHaveLength(3);
    expect(sim.runnable('s1').filter((t) => !before.includes(t.id)).every((t) => t.specVersion === 2)).toBe(true);
  });

  it('given slots 1 and 3 held, when one more is needed, then the new task takes slot 2, a number no held slot uses', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 's1', spec: spec(3) });
    sim.settle();
    const slot2 = sim.runnable('s1').find((t) => t.slot === 2)!;
    sim.append('TaskDesiredStatesChanged', { tasks: [{ id: slot2.id, desiredState: REMOVE }] });
    sim.append('ServiceUpdated', { id: 's1', spec: spec(3, { labels: { touched: 'yes' } }) });
    sim.decide();
    expect(slotsOf(sim)).toEqual([1, 2, 3]);
  });

  it('given 5 replicas, 3 of them on n1, when scaled to 3, then it removes from the busiest node first and marks them REMOVE', () => {
    const sim = setup(['n1']);
    sim.append('ServiceCreated', { id: 's1', spec: spec(3) });
    sim.settle();
    sim.addNode('n2');
    sim.append('ServiceUpdated', { id: 's1', spec: spec(5) });
    sim.settle();
    const onN1 = sim.runnable('s1').filter((t) => t.nodeId === 'n1');
    expect(onN1).toHaveLength(3);
    sim.append('ServiceUpdated', { id: 's1', spec: spec(3) });
    sim.decide();
    const removed = sim.written('TaskDesiredStatesChanged').flatMap((e) => e.data.tasks);
    expect(removed).toHaveLength(2);
    expect(removed.every((r) => r.desiredState === REMOVE)).toBe(true);
    const perNode = new Map<string, number>();
    for (const t of sim.runnable('s1')) perNode.set(t.nodeId!, (perNode.get(t.nodeId!) ?? 0) + 1);
    expect([...perNode.values()].sort()).toEqual([1, 2]);
  });

  it('given a scale-down with ties between nodes, then tasks that are not running go before running ones', () => {
    const sim = setup(['n1', 'n2']);
    sim.append('ServiceCreated', { id: 's1', spec: spec(2) });
    sim.decide();
    sim.allocate();
    sim.schedule();
    // Only the task on n1 gets to RUNNING.
    const onN1 = sim.runnable('s1').find((t) => t.nodeId === 'n1')!;
    sim.report(onN1.id, RUNNING);
    sim.append('ServiceUpdated', { id: 's1', spec: spec(1) });
    sim.decide();
    const removed = sim.written('TaskDesiredStatesChanged').flatMap((e) => e.data.tasks);
    expect(removed).toHaveLength(1);
    expect(removed[0]!.id).not.toBe(onN1.id);
    expect(sim.runnable('s1').map((t) => t.id)).toEqual([onN1.id]);
  });

  it('given a task that failed and a scale-down in the same decision, then its slot is given up first: no replacement, desired REMOVE', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 's1', spec: spec(3) });
    sim.settle();
    const failed = sim.running('s1')[1]!;
    sim.report(failed.id, FAILED);
    sim.append('ServiceUpdated', { id: 's1', spec: spec(2) });
    sim.decide();
    expect(sim.state.tasks.get(failed.id)!.desiredState).toBe(REMOVE);
    expect(sim.tasksOf('s1').some((t) => t.replaces === failed.id)).toBe(false);
    expect(sim.runnable('s1')).toHaveLength(2);
    sim.settle();
    expect(sim.running('s1')).toHaveLength(2);
  });

  it('given a service, when it is removed, then every one of its tasks gets desired REMOVE', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 's1', spec: spec(3) });
    sim.settle();
    const failed = sim.running('s1')[0]!;
    sim.report(failed.id, FAILED);
    sim.settle();
    sim.append('ServiceRemoved', { id: 's1' });
    sim.decide();
    expect(sim.tasksOf('s1').length).toBeGreaterThan(3);
    expect(sim.tasksOf('s1').every((t) => t.desiredState === REMOVE)).toBe(true);
    sim.settle();
    expect(sim.tasksOf('s1').every((t) => t.status.state > RUNNING)).toBe(true);
  });

  it('given a task still meant to run that leaves the store (it never reached a node), then its slot is filled again', () => {
    const sim = setup([]);
    sim.append('ServiceCreated', { id: 's1', spec: spec(2) });
    sim.decide();
    const [gone] = sim.runnable('s1');
    sim.append('TasksRemoved', { tasks: [{ id: gone!.id, reason: 'test' }] });
    sim.decide();
    expect(slotsOf(sim)).toEqual([1, 2]);
    expect(sim.tasksOf('s1')).toHaveLength(2);
  });

  it('given other services, then reconciling one never touches the tasks of another', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 's1', spec: spec(2) });
    sim.append('ServiceCreated', { id: 's2', spec: spec(2, { name: 'api' }) });
    sim.settle();
    sim.append('ServiceUpdated', { id: 's1', spec: spec(0) });
    sim.settle();
    expect(sim.runnable('s1')).toHaveLength(0);
    expect(sim.running('s2')).toHaveLength(2);
  });
});
