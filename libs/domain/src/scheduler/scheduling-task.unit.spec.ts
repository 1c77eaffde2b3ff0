import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { newTask, serviceSpec } from '@shoal/testing';
import { emptyState } from '../state';
import { rescheduled, schedulingTask } from './scheduling-task';

const at = '2026-01-01T00:00:00.000Z';
const spec = serviceSpec('web', undefined, { task: { container: { image: 'nginx:1.27' }, resources: { reservations: { nanoCpus: 1e9, memoryBytes: 2 ** 20 } } } });
const assigned: Task = {
  ...newTask('t1', 'svc-1', spec),
  nodeId: 'node-1',
  createdAt: at,
  ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' }],
  status: { state: TaskState.ASSIGNED, at },
};

describe('rescheduled', () => {
  it('keeps what was worked out while the spec and ports are the same, pointing at the newer task', () => {
    const state = emptyState();
    const known = schedulingTask(assigned, state);
    const running: Task = { ...assigned, status: { state: TaskState.RUNNING, at } };
    const next = rescheduled(known, running, state);
    expect(next).toBe(known);
    expect(next.task).toBe(running);
    expect(next).toMatchObject({ nanoCpus: 1e9, memoryBytes: 2 ** 20, hostPorts: ['tcp/8080'] });
  });

  it('works it out again when the task asks for something else', () => {
    const state = emptyState();
    const known = schedulingTask(assigned, state);
    const bigger: Task = { ...assigned, spec: { ...assigned.spec, resources: { reservations: { nanoCpus: 2e9 } } } };
    const next = rescheduled(known, bigger, state);
    expect(next).not.toBe(known);
    expect(next).toMatchObject({ task: bigger, nanoCpus: 2e9, memoryBytes: 0 });
    const otherPorts: Task = { ...assigned, ports: [{ protocol: 'udp', targetPort: 53, publishedPort: 5353, publishMode: 'host' }] };
    expect(rescheduled(known, otherPorts, state).hostPorts).toEqual(['udp/5353']);
    expect(known.task).toBe(assigned);
  });
});
