/**
 * Tasks through their life: created (orchestrator), allocated (allocator), assigned
 * (scheduler), reported on (dispatcher for the agents), told to stop (orchestrator),
 * removed (reaper). Every item of a batch is judged on its own; the observed state only
 * ever moves forward, and so does the desired state.
 */
import { TaskState, isAgentReportable, isTerminal, taskStateName } from '@shoal/contracts';
import type { EventOf, Task } from '@shoal/contracts';
import type { ClusterState } from './state';
import { batchVerdict } from './verdict';
import type { Verdict } from './verdict';
import { putTask, wontFit } from './reservations';
import { createdTask, storedTask, taskStatus } from './stored-task';

type TaskEvent = EventOf<
  | 'TasksCreated'
  | 'TasksAllocated'
  | 'TasksAllocationFailed'
  | 'TasksAssigned'
  | 'TasksUnschedulable'
  | 'TaskStatusesReported'
  | 'TaskDesiredStatesChanged'
  | 'TasksRemoved'
>;

const name = taskStateName;

/** Applies `judge` to each item: a string is the item's refusal, a Task its new value. */
const eachTask = <T extends { readonly id: string }>(
  state: ClusterState,
  event: TaskEvent,
  items: readonly T[],
  judge: (task: Task, item: T) => Task | string,
): Verdict => {
  const reasons: string[] = [];
  for (const item of items) {
    const task = state.tasks.get(item.id);
    const next = task ? judge(task, item) : `task ${item.id} not found`;
    if (typeof next === 'string') reasons.push(next);
    else putTask(state, task, next);
  }
  return batchVerdict(event.type, items.length, reasons);
};

export const evolveTasks = (state: ClusterState, event: TaskEvent): Verdict => {
  switch (event.type) {
    case 'TasksCreated': {
      const reasons: string[] = [];
      for (const item of event.data.tasks) {
        const service = state.services.get(item.serviceId);
        if (state.tasks.has(item.id)) reasons.push(`task ${item.id} already exists`);
        else if (!service) reasons.push(`task ${item.id}: service ${item.serviceId} not found`);
        else if (service.version !== item.specVersion) {
          reasons.push(`task ${item.id}: stale spec version ${item.specVersion} (service is at ${service.version})`);
        } else if (item.nodeId !== undefined && !state.nodes.has(item.nodeId)) {
          reasons.push(`task ${item.id}: node ${item.nodeId} not found`);
        } else if (item.desiredState !== TaskState.READY && item.desiredState !== TaskState.RUNNING) {
          reasons.push(`task ${item.id}: a new task's desired state is READY or RUNNING, not ${name(item.desiredState)}`);
        } else {
          putTask(state, undefined, createdTask(item, item.spec ?? service.spec.task, event.at));
        }
      }
      return batchVerdict(event.type, event.data.tasks.length, reasons);
    }
    case 'TasksAllocated':
      return eachTask(state, event, event.data.tasks, (task, item) => {
        if (task.status.state !== TaskState.NEW) return `task ${task.id} is ${name(task.status.state)}, not NEW`;
        if (task.desiredState > TaskState.RUNNING) return `task ${task.id} is being shut down`;
        // The network may have been removed after the allocator proposed an address on it.
        const gone = item.attachments.find((a) => !state.networks.has(a.network));
        if (gone) return `task ${task.id}: network ${gone.network} not found`;
        const next = storedTask(task);
        next.attachments = item.attachments;
        if (item.ports) next.ports = item.ports;
        next.status = taskStatus(TaskState.PENDING, event.at, 'pending task scheduling');
        return next;
      });
    case 'TasksAllocationFailed':
      return eachTask(state, event, event.data.tasks, (task, item) =>
        task.status.state !== TaskState.NEW ? `task ${task.id} is ${name(task.status.state)}, not NEW` : withErr(task, event.at, item.reason),
      );
    case 'TasksAssigned':
      return eachTask(state, event, event.data.tasks, (task, item) => {
        if (task.status.state !== TaskState.PENDING) return `task ${task.id} is ${name(task.status.state)}, not PENDING`;
        if (task.desiredState > TaskState.RUNNING) return `task ${task.id} is being shut down`;
        if (task.nodeId !== undefined && task.nodeId !== item.nodeId) {
          return `task ${task.id} belongs on node ${task.nodeId}, not ${item.nodeId}`;
        }
        const node = state.nodes.get(item.nodeId);
        if (!node) return `task ${task.id}: node ${item.nodeId} not found`;
        if (node.status.state !== 'ready') return `task ${task.id}: node ${node.id} is ${node.status.state}, not ready`;
        if (node.spec.availability !== 'active') {
          return `task ${task.id}: node ${node.id} is not available for new tasks (${node.spec.availability})`;
        }
        const full = wontFit(state, node, task);
        if (full) return `task ${task.id}: ${full}`;
        const next = storedTask(task);
        next.nodeId = node.id;
        next.placement = item.why;
        next.status = taskStatus(TaskState.ASSIGNED, event.at, 'scheduler assigned task to node');
        return next;
      });
    case 'TasksUnschedulable':
      return eachTask(state, event, event.data.tasks, (task, item) =>
        task.status.state !== TaskState.PENDING ? `task ${task.id} is ${name(task.status.state)}, not PENDING` : withErr(task, event.at, item.explain),
      );
    case 'TaskStatusesReported': {
      const { nodeId } = event.data;
      if (!state.nodes.has(nodeId)) {
        return batchVerdict(event.type, 1, [`node ${nodeId} not found`]);
      }
      return eachTask(state, event, event.data.statuses, (task, report) => {
        if (task.nodeId !== nodeId) return `task ${task.id} is not assigned to node ${nodeId}`;
        if (!isAgentReportable(report.state)) return `task ${task.id}: ${name(report.state)} is not a state an agent reports`;
        if (task.status.state < TaskState.ASSIGNED) return `task ${task.id} is ${name(task.status.state)}, not yet assigned`;
        if (report.state <= task.status.state) {
          return `task ${task.id}: state may not move backwards (${name(task.status.state)} → ${name(report.state)})`;
        }
        const next = storedTask(task);
        next.status = taskStatus(report.state, report.at, report.message, report.err, report.exitCode);
        if (report.state === TaskState.RUNNING && task.startedAt === undefined) next.startedAt = report.at;
        return next;
      });
    }
    case 'TaskDesiredStatesChanged':
      return eachTask(state, event, event.data.tasks, (task, item) =>
        item.desiredState <= task.desiredState
          ? `task ${task.id}: desired state may not move backwards (${name(task.desiredState)} → ${name(item.desiredState)})`
          : withDesired(task, item.desiredState),
      );
    case 'TasksRemoved': {
      const reasons: string[] = [];
      for (const item of event.data.tasks) {
        const task = state.tasks.get(item.id);
        if (!task) reasons.push(`task ${item.id} not found`);
        else if (!removable(state, task)) {
          reasons.push(`task ${task.id} is still ${name(task.status.state)} on node ${task.nodeId}`);
        } else putTask(state, task, undefined);
      }
      return batchVerdict(event.type, event.data.tasks.length, reasons);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** The task with an error on its current status (allocation failed, cannot be scheduled). */
const withErr = (task: Task, at: string, err: string): Task => {
  const next = storedTask(task);
  next.status = taskStatus(task.status.state, at, task.status.message, err, task.status.exitCode);
  return next;
};

const withDesired = (task: Task, desiredState: TaskState): Task => {
  const next = storedTask(task);
  next.desiredState = desiredState;
  return next;
};

/** A task may leave the store once it has ended, never reached a node, or its node is gone. */
const removable = (state: ClusterState, task: Task): boolean =>
  isTerminal(task.status.state) ||
  task.status.state < TaskState.ASSIGNED ||
  task.nodeId === undefined ||
  !state.nodes.has(task.nodeId);
