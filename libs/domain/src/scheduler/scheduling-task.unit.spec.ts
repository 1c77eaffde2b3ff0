import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { newTask, serviceSpec } from '@shoal/testing';
import { emptyState } from '../state';
import { Demands } from './scheduling-task';

const at = '2026-01-01T00:00:00.000Z';
const spec = serviceSpec('web', undefined, { task: { container: { image: 'nginx:1.27' }, resources: { reservations: { nanoCpus: 1e9, memoryBytes: 2 ** 20 } } } });
const assigned: Task = {
  ...newTask('t1', 'svc-1', spec),
  nodeId: 'node-1',
  createdAt: at,
  ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' }],
  status: { state: TaskState.ASSIGNED, at },
};

describe('demands', () => {
  it('keeps what was worked out while the spec and ports are the same', () => {
    const state = emptyState();
    const demands = new Demands();
    const known = { task: assigned, demand: demands.of(assigned, state) };
    const running: Task = { ...assigned, status: { state: TaskState.RUNNING, at } };
    expect(demands.again(known, running, state)).toBe(known.demand);
    expect(known.demand).toMatchObject({ nanoCpus: 1e9, memoryBytes: 2 ** 20, hostPorts: ['tcp/8080'] });
  });

  it('works it out again when the task asks for something else, and keeps it when it asks the same', () => {
    const state = emptyState();
    const demands = new Demands();
    const known = { task: assigned, demand: demands.of(assigned, state) };
    const bigger: Task = { ...assigned, spec: { ...assigned.spec, resources: { reservations: { nanoCpus: 2e9 } } } };
    expect(demands.again(known, bigger, state)).toMatchObject({ nanoCpus: 2e9, memoryBytes: 0, hostPorts: ['tcp/8080'] });
    const otherPorts: Task = { ...assigned, ports: [{ protocol: 'udp', targetPort: 53, publishedPort: 5353, publishMode: 'host' }] };
    expect(demands.again(known, otherPorts, state).hostPorts).toEqual(['udp/5353']);
    const samePorts: Task = { ...assigned, ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' }] };
    expect(demands.again(known, samePorts, state)).toBe(known.demand);
  });

  it('shares one demand among the tasks that ask only the same CPU and memory', () => {
    const state = emptyState();
    const demands = new Demands();
    const plain = (id: string, nanoCpus: number): Task => ({ ...assigned, id, ports: [], spec: { ...assigned.spec, resources: { reservations: { nanoCpus } } } });
    const one = demands.of(plain('a', 1e9), state);
    expect(demands.of(plain('b', 1e9), state)).toBe(one);
    expect(demands.of(plain('c', 2e9), state)).not.toBe(one);
    expect(demands.of(assigned, state)).not.toBe(demands.of({ ...assigned, id: 't2' }, state));
    demands.clear();
    expect(demands.of(plain('d', 1e9), state)).not.toBe(one);
    expect(demands.of(plain('d', 1e9), state)).toEqual(one);
  });
});
