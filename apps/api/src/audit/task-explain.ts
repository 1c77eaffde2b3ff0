/**
 * Why a task is (not) running, read from a state: the allocator's failure, the
 * scheduler's unschedulable explanation, a restart delay, a node that is down, a task
 * being shut down or already ended (and what replaced it). Pure: `now` comes in.
 */
import { TaskState, taskStateName } from '@shoal/contracts';
import type { Task, TaskStateName } from '@shoal/contracts';
import { mayBeRunning, oldTaskGivenUpAt, replacementStartsAt } from '@shoal/domain';
import type { ClusterState } from '@shoal/domain';

export type ExplainReason =
  | 'running'
  | 'shutting-down'
  | 'restart-delay'
  | 'allocation-failed'
  | 'awaiting-allocation'
  | 'unschedulable'
  | 'awaiting-scheduling'
  | 'node-down'
  | 'starting'
  | 'ended';

export interface TaskExplanation {
  readonly task: string;
  readonly service: string;
  readonly serviceName?: string;
  readonly slot?: number;
  readonly node?: string;
  readonly state: TaskStateName;
  readonly desiredState: TaskStateName;
  readonly running: boolean;
  readonly reason: ExplainReason;
  /** One sentence a person can act on. */
  readonly explanation: string;
  /** The scheduler's reason for the task's placement, once it has one. */
  readonly placement?: string;
  /** Restart delay: when the task may start. */
  readonly startsAt?: string;
  /** The task that replaced this one, if any. */
  readonly replacedBy?: string;
}

const findReplacement = (state: ClusterState, task: Task): Task | undefined => {
  for (const other of state.tasks.values()) if (other.replaces === task.id) return other;
  return undefined;
};

const inSeconds = (ms: number): string => `${Math.max(0, Math.ceil(ms / 1000))}s`;

/**
 * A task created to wait (desired READY), as the restart supervisor rules
 * (replacementStartsAt): it starts once the restart delay has passed and the task it
 * replaces has stopped — or that one's node is down, or a minute has gone by.
 */
const waitingToStart = (state: ClusterState, task: Task, now: Date): Pick<TaskExplanation, 'reason' | 'explanation' | 'startsAt'> => {
  if (task.replaces === undefined) {
    return { reason: 'restart-delay', explanation: 'the task waits for the orchestrator to start it (desired state READY)' };
  }
  const old = state.tasks.get(task.replaces);
  const oldNode = old?.nodeId === undefined ? undefined : state.nodes.get(old.nodeId);
  const startsAtMs = replacementStartsAt(task, oldNode);
  const startsAt = new Date(startsAtMs).toISOString();
  if (startsAtMs > now.getTime()) {
    return {
      reason: 'restart-delay',
      explanation: `restart delay: the task may start at ${startsAt} (in ${inSeconds(startsAtMs - now.getTime())})`,
      startsAt,
    };
  }
  const oldMayRun = old !== undefined && mayBeRunning(old) && oldNode?.status.state !== 'down';
  const giveUpAt = oldTaskGivenUpAt(task);
  if (oldMayRun && giveUpAt > now.getTime()) {
    return {
      reason: 'restart-delay',
      explanation: `the task waits for task ${old.id}, which it replaces, to stop (${taskStateName(old.status.state)} now; at most until ${new Date(giveUpAt).toISOString()})`,
      startsAt,
    };
  }
  return { reason: 'restart-delay', explanation: `restart delay passed at ${startsAt}: the task waits for the orchestrator to start it`, startsAt };
};

export const explainTask = (state: ClusterState, task: Task, now: Date): TaskExplanation => {
  const service = state.services.get(task.serviceId);
  const node = task.nodeId ? state.nodes.get(task.nodeId) : undefined;
  const base = {
    task: task.id,
    service: task.serviceId,
    ...(service ? { serviceName: service.spec.name } : {}),
    ...(task.slot !== undefined ? { slot: task.slot } : {}),
    ...(task.nodeId ? { node: task.nodeId } : {}),
    state: taskStateName(task.status.state),
    desiredState: taskStateName(task.desiredState),
    running: task.status.state === TaskState.RUNNING,
    ...(task.assignmentReason ? { placement: task.assignmentReason } : {}),
  };
  const { status } = task;
  const nodeName = node?.description.hostname ?? task.nodeId;

  if (status.state > TaskState.RUNNING) {
    const replacement = findReplacement(state, task);
    const detail = [status.err, status.message, status.exitCode !== undefined ? `exit code ${status.exitCode}` : undefined]
      .filter((part) => part !== undefined && part !== '')
      .join('; ');
    return {
      ...base,
      reason: 'ended',
      explanation: `task ended ${base.state}${detail ? `: ${detail}` : ''}${replacement ? `; replaced by task ${replacement.id}` : service ? '' : '; its service was removed'}`,
      ...(replacement ? { replacedBy: replacement.id } : {}),
    };
  }
  if (task.desiredState > TaskState.RUNNING) {
    return { ...base, reason: 'shutting-down', explanation: `task is being shut down (desired state ${base.desiredState})` };
  }
  if (status.state === TaskState.RUNNING) {
    return { ...base, reason: 'running', explanation: `task is running on node ${nodeName}` };
  }
  if (task.status.state >= TaskState.ASSIGNED && node && node.status.state !== 'ready') {
    return {
      ...base,
      reason: 'node-down',
      explanation: `node ${nodeName} is ${node.status.state}${node.status.message ? ` (${node.status.message})` : ''}: the task waits for it to come back or to be rescheduled`,
    };
  }
  if (task.desiredState === TaskState.READY) return { ...base, ...waitingToStart(state, task, now) };
  if (status.state === TaskState.NEW) {
    return status.err
      ? { ...base, reason: 'allocation-failed', explanation: `allocation failed: ${status.err}` }
      : { ...base, reason: 'awaiting-allocation', explanation: 'the task waits for the allocator (networks, addresses, ports)' };
  }
  if (status.state === TaskState.PENDING) {
    return status.err
      ? { ...base, reason: 'unschedulable', explanation: `unschedulable: ${status.err}` }
      : { ...base, reason: 'awaiting-scheduling', explanation: 'the task waits for the scheduler to place it' };
  }
  return {
    ...base,
    reason: 'starting',
    explanation: `the task is ${base.state} on node ${nodeName}${status.message ? ` (${status.message})` : ''}${status.err ? `: ${status.err}` : ''}`,
  };
};
