import { TaskState } from '@shoal/contracts';
import type { NodeSpec, ServiceSpec } from '@shoal/contracts';
import { OrchestratorCore } from './orchestrator-core';
import { Simulation, absentOrchestrator } from '@shoal/testing';

const { RUNNING, SHUTDOWN, REMOVE, FAILED } = TaskState;

const spec = (constraints?: string[]): ServiceSpec => ({
  name: 'agent',
  task: {
    container: { image: 'agent:1' },
    restartPolicy: { condition: 'any', delayMs: 0, maxAttempts: 0, windowMs: 0 },
    ...(constraints ? { placement: { constraints } } : {}),
  },
  mode: { kind: 'global' },
});

const nodeSpec = (overrides: Partial<NodeSpec>): NodeSpec => ({ labels: {}, role: 'worker', availability: 'active', ...overrides });

const setup = (nodes = ['n1', 'n2', 'n3']) => {
  let ids = 0;
  const sim = new Simulation(new OrchestratorCore({ newId: () => `t${++ids}` }));
  for (const n of nodes) sim.addNode(n);
  return sim;
};

const nodesOf = (sim: Simulation) =>
  sim
    .runnable('g')
    .map((t) => t.nodeId)
    .sort();

describe('global services: one task per eligible node', () => {
  it('given three ready nodes, when a global service is created, then one task is created per node, with its node id and no slot', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.decide();
    const created = sim.written('TasksCreated')[0]!.data.tasks;
    expect(created.map((t) => t.nodeId).sort()).toEqual(['n1', 'n2', 'n3']);
    expect(created.every((t) => t.slot === undefined && t.desiredState === RUNNING)).toBe(true);
    sim.settle();
    expect(sim.running('g')).toHaveLength(3);
    expect(sim.decide()).toEqual([]);
  });

  it('given constraints, then only the nodes that meet them get a task', () => {
    const sim = setup();
    sim.append('NodeSpecUpdated', { id: 'n2', spec: nodeSpec({ labels: { zone: 'east' } }) });
    sim.append('ServiceCreated', { id: 'g', spec: spec(['node.labels.zone==east']) });
    sim.settle();
    expect(nodesOf(sim)).toEqual(['n2']);
  });

  it('given a running global service, when a node joins, then it gets a task', () => {
    const sim = setup(['n1']);
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    sim.addNode('n2');
    sim.decide();
    expect(nodesOf(sim)).toEqual(['n1', 'n2']);
  });

  it('given a running global service, when a node is drained, then its task is shut down and not replaced', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    const onN2 = sim.running('g').find((t) => t.nodeId === 'n2')!;
    sim.append('NodeSpecUpdated', { id: 'n2', spec: nodeSpec({ availability: 'drain' }) });
    sim.settle();
    expect(sim.state.tasks.get(onN2.id)!.desiredState).toBe(SHUTDOWN);
    expect(nodesOf(sim)).toEqual(['n1', 'n3']);
  });

  it('given a running global service, when a node goes down, then its task is shut down; when it is back, it gets a new one', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    const onN3 = sim.running('g').find((t) => t.nodeId === 'n3')!;
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n3', state: 'down' }] });
    sim.settle();
    expect(sim.state.tasks.get(onN3.id)!.desiredState).toBe(SHUTDOWN);
    expect(nodesOf(sim)).toEqual(['n1', 'n2']);
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n3', state: 'ready' }] });
    sim.settle();
    expect(nodesOf(sim)).toEqual(['n1', 'n2', 'n3']);
  });

  it('given a paused node, then it keeps its task but a new service puts nothing on it', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    sim.append('NodeSpecUpdated', { id: 'n1', spec: nodeSpec({ availability: 'pause' }) });
    sim.append('ServiceCreated', { id: 'g2', spec: { ...spec(), name: 'other' } });
    sim.settle();
    expect(nodesOf(sim)).toEqual(['n1', 'n2', 'n3']);
    expect(sim.runnable('g2').map((t) => t.nodeId).sort()).toEqual(['n2', 'n3']);
  });

  it('given a node that no longer meets the constraints, then its task is shut down', () => {
    const sim = setup();
    for (const n of ['n1', 'n2']) sim.append('NodeSpecUpdated', { id: n, spec: nodeSpec({ labels: { gpu: 'yes' } }) });
    sim.append('ServiceCreated', { id: 'g', spec: spec(['node.labels.gpu==yes']) });
    sim.settle();
    sim.append('NodeSpecUpdated', { id: 'n1', spec: nodeSpec({ labels: {} }) });
    sim.settle();
    expect(nodesOf(sim)).toEqual(['n2']);
  });

  it('given a node that was removed, then its tasks get desired REMOVE', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    const onN1 = sim.tasksOf('g').find((t) => t.nodeId === 'n1')!;
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] });
    sim.settle();
    sim.append('NodeRemoved', { id: 'n1' });
    sim.decide();
    expect(sim.state.tasks.get(onN1.id)!.desiredState).toBe(REMOVE);
  });

  it('given a global task that fails, then it is restarted on the same node', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    const onN2 = sim.running('g').find((t) => t.nodeId === 'n2')!;
    sim.report(onN2.id, FAILED);
    sim.settle();
    const replacement = sim.running('g').find((t) => t.replaces === onN2.id)!;
    expect(replacement.nodeId).toBe('n2');
    expect(nodesOf(sim)).toEqual(['n1', 'n2', 'n3']);
  });

  it('given a global task that fails on a node that is now paused, then it is shut down and not restarted', () => {
    const sim = setup();
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    const onN2 = sim.running('g').find((t) => t.nodeId === 'n2')!;
    sim.append('NodeSpecUpdated', { id: 'n2', spec: nodeSpec({ availability: 'pause' }) });
    sim.report(onN2.id, FAILED);
    sim.settle();
    expect(sim.tasksOf('g').some((t) => t.replaces === onN2.id)).toBe(false);
    expect(nodesOf(sim)).toEqual(['n1', 'n3']);
  });
});

describe('node events for replicated services', () => {
  const replicated = (replicas: number): ServiceSpec => ({
    name: 'web',
    task: { container: { image: 'nginx' }, restartPolicy: { condition: 'any', delayMs: 0, maxAttempts: 0, windowMs: 0 } },
    mode: { kind: 'replicated', replicas },
  });

  it('given tasks on a node that goes down, then they are shut down and replaced on the other nodes', () => {
    const sim = setup(['n1', 'n2']);
    sim.append('ServiceCreated', { id: 's1', spec: replicated(4) });
    sim.settle();
    const onN1 = sim.running('s1').filter((t) => t.nodeId === 'n1');
    expect(onN1.length).toBeGreaterThan(0);
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] });
    sim.settle();
    for (const t of onN1) expect(sim.state.tasks.get(t.id)!.desiredState).toBe(SHUTDOWN);
    expect(sim.running('s1')).toHaveLength(4);
    expect(sim.running('s1').every((t) => t.nodeId === 'n2')).toBe(true);
    expect(new Set(sim.running('s1').map((t) => t.slot)).size).toBe(4);
  });

  it('given tasks on a node that is drained, then they are replaced elsewhere once they have stopped', () => {
    const sim = setup(['n1', 'n2']);
    sim.append('ServiceCreated', { id: 's1', spec: replicated(2) });
    sim.settle();
    sim.append('NodeSpecUpdated', { id: 'n1', spec: nodeSpec({ availability: 'drain' }) });
    sim.settle();
    expect(sim.running('s1').map((t) => t.nodeId)).toEqual(['n2', 'n2']);
  });

  it('given a node that is paused, then its tasks keep running and nothing is proposed', () => {
    const sim = setup(['n1', 'n2']);
    sim.append('ServiceCreated', { id: 's1', spec: replicated(2) });
    sim.settle();
    sim.append('NodeSpecUpdated', { id: 'n1', spec: nodeSpec({ availability: 'pause' }) });
    expect(sim.decide()).toEqual([]);
    expect(sim.running('s1')).toHaveLength(2);
  });
});

describe('global services at start-up', () => {
  it('given two running tasks of the service on one node, then one of them is shut down', () => {
    const sim = new Simulation(absentOrchestrator());
    sim.addNode('n1');
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    const task = (id: string) => ({ id, serviceId: 'g', nodeId: 'n1', specVersion: 1, spec: spec().task, desiredState: RUNNING });
    sim.append('TasksCreated', { tasks: [task('a'), task('b')] });
    sim.settle();
    expect(sim.running('g')).toHaveLength(2);
    sim.takeOver(new OrchestratorCore({ newId: () => 'never' }));
    sim.settle();
    expect(sim.runnable('g')).toHaveLength(1);
    expect(sim.running('g')).toHaveLength(1);
  });

  it('given tasks on a drained node and on a node that no longer exists, then the first is shut down and the second removed', () => {
    const sim = setup(['n1', 'n2', 'n3']);
    sim.append('ServiceCreated', { id: 'g', spec: spec() });
    sim.settle();
    const onN2 = sim.running('g').find((t) => t.nodeId === 'n2')!;
    const onN3 = sim.running('g').find((t) => t.nodeId === 'n3')!;
    sim.core = absentOrchestrator();
    sim.append('NodeSpecUpdated', { id: 'n2', spec: { labels: {}, role: 'worker', availability: 'drain' } });
    sim.append('NodeStatusChanged', { nodes: [{ id: 'n3', state: 'down' }] });
    sim.append('NodeRemoved', { id: 'n3' });
    sim.takeOver(new OrchestratorCore({ newId: () => 'never' }));
    const proposals = sim.decide();
    const changes = proposals.flatMap((p) => (p.type === 'TaskDesiredStatesChanged' ? p.data.tasks : []));
    expect(changes.find((c) => c.id === onN2.id)?.desiredState).toBe(SHUTDOWN);
    expect(changes.find((c) => c.id === onN3.id)?.desiredState).toBe(REMOVE);
    expect(proposals.some((p) => p.type === 'TasksCreated')).toBe(false);
  });
});
