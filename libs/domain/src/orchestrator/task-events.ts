/**
 * What one task's change asks of the orchestrator — no more than that task — returned as
 * Wants: a task that ended while still meant to run goes to the restart supervisor; a
 * replicated task whose node went down, was drained or removed is restarted elsewhere; a
 * global task whose node can no longer run it, or no longer meets the constraints, is
 * shut down.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { constraintsOf, meetsConstraints } from '../constraints';
import type { DecisionContext } from './decision-context';
import { invalidNode, whyInvalid } from './node-validity';
import { restartTask } from './restart-supervisor';
import { isRunnable } from './slots';
import { Wants } from './wants';

const endedWhy = (task: Task): string =>
  `task ${task.id} ${task.status.state === TaskState.COMPLETE ? 'completed' : 'ended'}${task.status.err ? `: ${task.status.err}` : ''}`;

export const superviseTask = (ctx: DecisionContext, task: Task): Wants => {
  const wants = new Wants(ctx.planned);
  if (!isRunnable(wants.desiredOf(task))) return wants;
  const service = ctx.state.services.get(task.serviceId);
  if (!service) return wants;
  const node = task.nodeId === undefined ? undefined : ctx.state.nodes.get(task.nodeId);
  const nodeGone = task.nodeId !== undefined && invalidNode(node);
  const mode = service.spec.mode;
  switch (mode.kind) {
    case 'replicated':
      if (task.status.state > TaskState.RUNNING) restartTask(ctx, wants, task, service, endedWhy(task));
      else if (nodeGone) restartTask(ctx, wants, task, service, whyInvalid(task.nodeId as string, node));
      return wants;
    case 'replicated-job':
      if ((task.jobIteration ?? 0) !== (service.jobIteration ?? 0) || task.status.state === TaskState.COMPLETE) return wants;
      if (task.status.state > TaskState.RUNNING) restartTask(ctx, wants, task, service, endedWhy(task));
      else if (nodeGone) restartTask(ctx, wants, task, service, whyInvalid(task.nodeId as string, node));
      return wants;
    case 'global':
    case 'global-job': {
      const job = mode.kind === 'global-job';
      if (job && ((task.jobIteration ?? 0) !== (service.jobIteration ?? 0) || task.status.state === TaskState.COMPLETE)) return wants;
      if (task.nodeId === undefined || nodeGone) {
        wants.setDesired(task, TaskState.SHUTDOWN, task.nodeId === undefined ? `task ${task.id} has no node` : whyInvalid(task.nodeId, node));
        return wants;
      }
      if (task.status.state <= TaskState.RUNNING) return wants;
      const constraints = constraintsOf(service.spec.task.placement?.constraints);
      if (!node || node.spec.availability === 'pause' || !meetsConstraints(constraints, node)) {
        wants.setDesired(task, TaskState.SHUTDOWN, `${endedWhy(task)}; its node takes no new tasks of the service`);
        return wants;
      }
      restartTask(ctx, wants, task, service, endedWhy(task));
      return wants;
    }
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
};
