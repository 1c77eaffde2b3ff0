/**
 * Reconciling a global service by node: one task on every node that is ACTIVE, READY
 * and meets the service's constraints, created with its node id. A node that is drained,
 * down or no longer meets the constraints has its tasks shut down; a paused node keeps
 * what it has and gets nothing new; a removed node's tasks get desired REMOVE.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { Node, Service } from '../state';
import { constraintsOf, meetsConstraints } from '../constraints';
import { invalidNode, whyInvalid } from './decision';
import type { Decision } from './decision';
import { isRunnable } from './plan';
import { newTaskFor } from './restart-supervisor';
import { groupBy, holders } from './slots';

/** Takes new tasks: active and ready. */
export const acceptsTasks = (node: Node): boolean => node.spec.availability === 'active' && node.status.state === 'ready';

const shutDown = (d: Decision, tasks: readonly Task[], reason: string, keepCompleted = false): void => {
  for (const task of tasks) {
    if (!isRunnable(d.plan.desiredOf(task))) continue;
    if (keepCompleted && task.status.state === TaskState.COMPLETE) continue;
    d.plan.setDesired(task, TaskState.SHUTDOWN, reason);
  }
};

/**
 * Per node of the cluster, what a global service (or global job) has there. `current`
 * says which tasks count (a job's current iteration); the others are left to the caller.
 */
export const reconcileByNode = (d: Decision, service: Service, current: (task: Task) => boolean = () => true): void => {
  const job = service.spec.mode.kind === 'global-job';
  const constraints = constraintsOf(service.spec.task.placement?.constraints);
  const byNode = groupBy(d, d.tasksOf(service.id).filter(current), (task) => task.nodeId);
  const planned = new Set<string>();
  for (const task of d.plan.createdFor(service.id)) if (task.nodeId !== undefined) planned.add(task.nodeId);

  for (const node of d.state.nodes.values()) {
    const tasks = byNode.get(node.id) ?? [];
    byNode.delete(node.id);
    if (!meetsConstraints(constraints, node)) {
      shutDown(d, tasks, `node ${node.id} no longer meets the service's constraints`, job);
      continue;
    }
    if (invalidNode(node)) {
      shutDown(d, tasks, whyInvalid(node.id, node), job);
      continue;
    }
    if (!acceptsTasks(node) || planned.has(node.id)) continue;
    if (holders(d, tasks, service).length === 0) d.plan.create(newTaskFor(d.newId(), service, { nodeId: node.id }));
  }
  // Tasks on nodes that no longer exist.
  for (const [nodeId, tasks] of byNode) {
    for (const task of tasks) d.plan.setDesired(task, TaskState.REMOVE, whyInvalid(nodeId, undefined));
  }
};

export const reconcileGlobal = (d: Decision, service: Service): void => reconcileByNode(d, service);
