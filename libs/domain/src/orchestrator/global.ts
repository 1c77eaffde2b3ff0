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
import type { DecisionContext } from './decision-context';
import { newTaskFor } from './new-task';
import { invalidNode, whyInvalid } from './node-validity';
import { groupBy, holders, isRunnable } from './slots';
import { Wants } from './wants';

/** Takes new tasks: active and ready. */
export const acceptsTasks = (node: Node): boolean => node.spec.availability === 'active' && node.status.state === 'ready';

const shutDown = (wants: Wants, tasks: readonly Task[], reason: string, keepCompleted = false): void => {
  for (const task of tasks) {
    if (!isRunnable(wants.desiredOf(task))) continue;
    if (keepCompleted && task.status.state === TaskState.COMPLETE) continue;
    wants.setDesired(task, TaskState.SHUTDOWN, reason);
  }
};

/**
 * Per node of the cluster, what a global service (or global job) has there, added to
 * `wants`. `current` says which tasks count (a job's current iteration); the others are
 * left to the caller.
 */
export const reconcileByNode = (ctx: DecisionContext, wants: Wants, service: Service, current: (task: Task) => boolean = () => true): void => {
  const job = service.spec.mode.kind === 'global-job';
  const constraints = constraintsOf(service.spec.task.placement?.constraints);
  const byNode = groupBy(wants, ctx.tasksOf(service.id).filter(current), (task) => task.nodeId);
  const planned = new Set<string>();
  for (const task of wants.createdFor(service.id)) if (task.nodeId !== undefined) planned.add(task.nodeId);

  for (const node of ctx.state.nodes.values()) {
    const tasks = byNode.get(node.id) ?? [];
    byNode.delete(node.id);
    if (!meetsConstraints(constraints, node)) {
      shutDown(wants, tasks, `node ${node.id} no longer meets the service's constraints`, job);
      continue;
    }
    if (invalidNode(node)) {
      shutDown(wants, tasks, whyInvalid(node.id, node), job);
      continue;
    }
    if (!acceptsTasks(node) || planned.has(node.id)) continue;
    if (holders(wants, ctx.restarts.history, tasks, service).length === 0) wants.create(newTaskFor(ctx.newId(), service, { nodeId: node.id }));
  }
  // Tasks on nodes that no longer exist.
  for (const [nodeId, tasks] of byNode) {
    for (const task of tasks) wants.setDesired(task, TaskState.REMOVE, whyInvalid(nodeId, undefined));
  }
};

export const reconcileGlobal = (ctx: DecisionContext, service: Service): Wants => {
  const wants = new Wants(ctx.planned);
  reconcileByNode(ctx, wants, service);
  return wants;
};
