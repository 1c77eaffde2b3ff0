import { TaskState } from '@shoal/contracts';
import type { Task, TaskSpec } from '@shoal/contracts';
import type { Node } from '../state';
import { ConstraintFilter, HostPortFilter, MaxReplicasFilter, PlatformFilter, PluginFilter, ReadyFilter, ResourceFilter } from './filters';
import { NodeInfo } from './node-info';
import { Pipeline, noSuitableNode } from './pipeline';
import type { Demand, SchedulingTask } from './scheduling-task';

const node = (id: string, over: Partial<Node['status']> & { availability?: Node['spec']['availability']; cpus?: number } = {}): NodeInfo =>
  new NodeInfo({
    id,
    description: { hostname: id, platform: { os: 'linux', architecture: 'x86_64' }, resources: { nanoCpus: (over.cpus ?? 4) * 1e9, memoryBytes: 2 ** 33 }, engine: { version: '28' } },
    spec: { labels: {}, role: 'worker', availability: over.availability ?? 'active' },
    version: 1,
    status: { state: over.state ?? 'ready', at: 't' },
    createdAt: 't',
    updatedAt: 't',
  });

const task = (spec: Partial<TaskSpec> = {}, id = 't1'): SchedulingTask => {
  const t: Task = {
    id,
    serviceId: 's1',
    specVersion: 1,
    spec: { container: { image: 'x' }, ...spec },
    desiredState: TaskState.RUNNING,
    createdAt: 't',
    status: { state: TaskState.PENDING, at: 't' },
  };
  const wants = t.spec.resources?.reservations;
  const demand: Demand = { nanoCpus: wants?.nanoCpus ?? 0, memoryBytes: wants?.memoryBytes ?? 0, generic: wants?.generic ?? [], hostPorts: [], plugins: [] };
  return { task: t, demand };
};

describe('filters and the pipeline', () => {
  it('each optional filter stands aside for a task that asks nothing of it', () => {
    const plain = task();
    expect(new ReadyFilter().setTask()).toBe(true);
    expect(new ResourceFilter().setTask(plain)).toBe(false);
    expect(new PluginFilter().setTask(plain)).toBe(false);
    expect(new ConstraintFilter().setTask(plain)).toBe(false);
    expect(new PlatformFilter().setTask(plain)).toBe(false);
    expect(new HostPortFilter().setTask(plain)).toBe(false);
    expect(new MaxReplicasFilter().setTask(plain)).toBe(false);
  });

  it('explains failures on one node and on several', () => {
    expect(new ReadyFilter().explain(1)).toBe('1 node not available for new tasks');
    expect(new ResourceFilter().explain(3)).toBe('insufficient resources on 3 nodes');
    expect(new PluginFilter().explain(1)).toBe('missing plugin on 1 node');
    expect(new ConstraintFilter().explain(2)).toBe('scheduling constraints not satisfied on 2 nodes');
    expect(new PlatformFilter().explain(1)).toBe('unsupported platform on 1 node');
    expect(new HostPortFilter().explain(2)).toBe('host-mode port already in use on 2 nodes');
    expect(new MaxReplicasFilter().explain()).toBe('max replicas per node limit exceed');
  });

  it('stops at a node\'s first failure (readiness first) and counts it against that filter only', () => {
    const pipeline = new Pipeline();
    pipeline.setTask(task({ resources: { reservations: { nanoCpus: 8e9 } } }));
    // Down and too small: counted as not available, not as short of resources.
    expect(pipeline.process(node('a', { state: 'down', cpus: 1 }))).toBe(false);
    expect(pipeline.process(node('b', { cpus: 1 }))).toBe(false);
    expect(pipeline.process(node('c', { cpus: 1 }))).toBe(false);
    expect(pipeline.process(node('d', { cpus: 16 }))).toBe(true);
    expect(pipeline.explain()).toBe('insufficient resources on 2 nodes; 1 node not available for new tasks');
    pipeline.setTask(task());
    expect(pipeline.explain()).toBe('');
  });

  it('frames the explanation as the task\'s status says it', () => {
    expect(noSuitableNode('')).toBe('no suitable node');
    expect(noSuitableNode('insufficient resources on 1 node')).toBe('no suitable node (insufficient resources on 1 node)');
  });

  it('resources are counted net of the tasks the node holds', () => {
    const n = node('a', { cpus: 2 });
    const filter = new ResourceFilter();
    const oneCpu = { resources: { reservations: { nanoCpus: 1e9 } } };
    filter.setTask(task(oneCpu));
    expect(filter.check(n)).toBe(true);
    const [x, y] = [task(oneCpu, 'x'), task(oneCpu, 'y')];
    n.addTask(x, true);
    n.addTask(y, true);
    expect(filter.check(n)).toBe(false);
    n.removeTask(x, true);
    expect(filter.check(n)).toBe(true);
  });
});
