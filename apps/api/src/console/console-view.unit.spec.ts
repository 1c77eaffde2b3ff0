import { replay } from '@shoal/domain';
import { toRecords } from '@shoal/testing';
import { consoleHistory } from './console-history.fixture';
import { NODES_LISTED, TASKS_LISTED, consoleView } from './console-view';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';

const stateAt = (to: number) => replay(toRecords(consoleHistory()), { to }).state;

describe('consoleView', () => {
  it('shows each service with its replicas running and wanted, and the tasks by state', () => {
    const view = consoleView(stateAt(8), { position: 8, highWaterMark: 14, at: '2026-01-01T00:00:08.000Z' });
    expect(view).toMatchObject({ position: 8, highWaterMark: 14, at: '2026-01-01T00:00:08.000Z', cluster: 'c1' });
    expect(view.services).toEqual([{ id: 's1', name: 'web', mode: 'replicated', image: 'nginx:1.27', running: 1, desired: 1, version: 1 }]);
    expect(view.tasksByState).toEqual({ RUNNING: 1 });
    expect(view.tasks).toEqual([{ id: 't1', service: 's1', serviceName: 'web', slot: 1, node: 'n1', state: 'RUNNING', desired: 'RUNNING' }]);
    expect(view.updates).toEqual([]);
  });

  it('follows a scale, an unschedulable task, an update under way and a node going down', () => {
    const view = consoleView(stateAt(14), { position: 14, highWaterMark: 14 });
    expect(view.services[0]).toMatchObject({ name: 'web', running: 1, desired: 2, version: 2, update: { state: 'updating', message: 'update in progress' } });
    expect(view.updates.map((service) => service.name)).toEqual(['web']);
    expect(view.tasksByState).toEqual({ RUNNING: 1, PENDING: 1 });
    // The newest task first, with the scheduler's reason it is not placed.
    expect(view.tasks.map((task) => [task.id, task.state, task.message])).toEqual([
      ['t2', 'PENDING', 'no suitable node (1 node out of memory)'],
      ['t1', 'RUNNING', undefined],
    ]);
    // The node that needs a look first.
    expect(view.nodes.map((node) => [node.hostname, node.status, node.availability, node.role, node.tasks])).toEqual([
      ['node-2', 'down', 'active', 'worker', 0],
      ['node-1', 'ready', 'active', 'worker', 1],
    ]);
    expect(view.nodeCount).toBe(2);
    expect(view.nodesByStatus).toEqual({ ready: 1, down: 1 });
    expect(view.nodes[1]!.nanoCpus).toEqual({ reserved: 0, total: 4e9 });
  });

  it('counts every task but lists only the newest', () => {
    const b = new EventBuilder('c1');
    const many = serviceSpec('many', { kind: 'replicated', replicas: TASKS_LISTED + 5 });
    const state = replay(
      toRecords([
        clusterInit(b),
        b.event('ServiceCreated', { id: 's1', spec: many }),
        b.event('TasksCreated', { tasks: Array.from({ length: TASKS_LISTED + 5 }, (_, i) => newTask(`t${i + 1}`, 's1', many, { slot: i + 1 })) }),
      ]),
    ).state;
    const view = consoleView(state, { position: 3, highWaterMark: 3 });
    expect(view.taskCount).toBe(TASKS_LISTED + 5);
    expect(view.tasksByState).toEqual({ NEW: TASKS_LISTED + 5 });
    expect(view.tasks).toHaveLength(TASKS_LISTED);
    expect(view.tasks[0]!.id).toBe(`t${TASKS_LISTED + 5}`);
    expect(view.tasks[TASKS_LISTED - 1]!.id).toBe('t6');
  });

  it('counts every node but lists at most NODES_LISTED, those that need a look first', () => {
    const b = new EventBuilder('c1');
    const count = NODES_LISTED + 3;
    const last = `n${count}`;
    const state = replay(
      toRecords([
        clusterInit(b),
        ...Array.from({ length: count }, (_, i) => b.event('NodeRegistered', { id: `n${i + 1}`, role: 'worker', description: nodeDescription(`node-${i + 1}`) })),
        b.event('NodeSpecUpdated', { id: last, spec: { labels: {}, role: 'worker', availability: 'drain' } }, { expect: { nodeVersions: { [last]: 1 } } }),
      ]),
    ).state;
    const view = consoleView(state, { position: count + 2, highWaterMark: count + 2 });
    expect(view.nodeCount).toBe(count);
    expect(view.nodesByStatus).toEqual({ ready: count });
    expect(view.nodes).toHaveLength(NODES_LISTED);
    expect(view.nodes[0]).toMatchObject({ id: last, availability: 'drain' });
    expect(view.nodes[1]!.id).toBe('n1');
  });
});
