/**
 * What one task's change asks of the orchestrator — no more than that task: a task that
 * ended while still meant to run goes to the restart supervisor; a replicated task whose
 * node went down, was drained or removed is restarted elsewhere; a global task whose node
 * can no longer run it, or no longer meets the constraints, is shut down.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { constraintsOf, meetsConstraints } from '../constraints';
import { invalidNode, whyInvalid } from './decision';
import type { Decision } from './decision';
import { isRunnable } from './plan';

const endedWhy = (task: Task): string =>
  `task ${task.id} ${task.status.state === TaskState.COMPLETE ? 'completed' : 'ended'}${task.status.err ? `: ${task.status.err}` : ''}`;

export const superviseTask = (d: Decision, task: Task): void => {
  if (!isRunnable(d.plan.desiredOf(task))) return;
  const service = d.state.services.get(task.serviceId);
  if (!service) return;
  const node = task.nodeId === undefined ? undefined : d.state.nodes.get(task.nodeId);
  const nodeGone = task.nodeId !== undefined && invalidNode(node);
  const mode = service.spec.mode;
  switch (mode.kind) {
    case 'replicated':
      if (task.status.state > TaskState.RUNNING) d.restarts.restart(d, task, service, endedWhy(task));
      else if (nodeGone) d.restarts.restart(d, task, service, whyInvalid(task.nodeId as string, node));
      return;
    case 'replicated-job':
      if ((task.jobIteration ?? 0) !== (service.jobIteration ?? 0) || task.status.state === TaskState.COMPLETE) return;
      if (task.status.state > TaskState.RUNNING) d.restarts.restart(d, task, service, endedWhy(task));
      else if (nodeGone) d.restarts.restart(d, task, service, whyInvalid(task.nodeId as string, node));
      return;
    case 'global':
    case 'global-job': {
      const job = mode.kind === 'global-job';
      if (job && ((task.jobIteration ?? 0) !== (service.jobIteration ?? 0) || task.status.state === TaskState.COMPLETE)) return;
      if (task.nodeId === undefined || nodeGone) {
        d.plan.setDesired(task, TaskState.SHUTDOWN, task.nodeId === undefined ? `task ${task.id} has no node` : whyInvalid(task.nodeId, node));
        return;
      }
      if (task.status.state <= TaskState.RUNNING) return;
      const constraints = constraintsOf(service.spec.task.placement?.constraints);
      if (!node || node.spec.availability === 'pause' || !meetsConstraints(constraints, node)) {
        d.plan.setDesired(task, TaskState.SHUTDOWN, `${endedWhy(task)}; its node takes no new tasks of the service`);
        return;
      }
      d.restarts.restart(d, task, service, endedWhy(task));
      return;
    }
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
};
