/** A small history for the console's specs: a node, a service scaled from 1 to 2, tasks placed, run and refused, an update under way, a node going down. */
import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';

export const consoleHistory = (): ShoalEvent[] => {
  const b = new EventBuilder('c1');
  const one = serviceSpec('web', { kind: 'replicated', replicas: 1 });
  const two = serviceSpec('web', { kind: 'replicated', replicas: 2 });
  return [
    clusterInit(b), // 0
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }), // 1
    b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('node-2') }), // 2
    b.event('ServiceCreated', { id: 's1', spec: one }), // 3
    b.event('TasksCreated', { tasks: [newTask('t1', 's1', one, { slot: 1 })] }), // 4
    b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }), // 5
    b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'spread over 2 nodes; node-1 has the fewest tasks of web' }] }), // 6
    b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }), // 7
    b.event('ServiceUpdated', { id: 's1', spec: two }, { expect: { serviceVersions: { s1: 1 } } }), // 8: scaled to 2
    b.event('TasksCreated', { tasks: [newTask('t2', 's1', two, { slot: 2, specVersion: 2 })] }), // 9
    b.event('TasksAllocated', { tasks: [{ id: 't2', attachments: [] }] }), // 10
    b.event('TasksUnschedulable', { tasks: [{ id: 't2', explain: 'no suitable node (1 node out of memory)' }] }), // 11
    b.event('ServiceUpdateStatusChanged', { id: 's1', status: { state: 'updating', message: 'update in progress', startedAt: b.now() } }), // 12
    b.event('NodeStatusChanged', { nodes: [{ id: 'n2', state: 'down', message: 'heartbeat failure' }] }), // 13
  ];
};
