/**
 * Tasks through their life: created (orchestrator), allocated (allocator), assigned
 * (scheduler), reported on (dispatcher for the agents), told to stop (orchestrator),
 * removed (reaper). Every item of a batch is judged on its own; the observed state only
 * ever moves forward, and so does the desired state.
 */
import { RULE_LEVELS, TaskState, isAgentReportable, isTerminal, taskStateName } from '@shoal/contracts';
import type { EventOf, Task } from '@shoal/contracts';
import type { ClusterState } from './state';
import { batchVerdict, refuse, rejected } from './verdict';
import type { Refused, Verdict } from './verdict';
import { putTask, wontFit } from './reservations';
import { createdTask, storedTask, taskStatus } from './stored-task';
import { ruleApplies } from './rule-levels';

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

/** Applies `judge` to each item: a Refused is the item's refusal, a Task its new value. */
const eachTask = <T extends { readonly id: string }>(
  state: ClusterState,
  event: TaskEvent,
  items: readonly T[],
  judge: (task: Task, item: T) => Task | Refused,
): Verdict => {
  const refusals: Refused[] = [];
  for (const item of items) {
    const task = state.tasks.get(item.id);
    const next = task ? judge(task, item) : refuse('not-found', `task ${item.id} not found`);
    if (isRefused(next)) refusals.push(refuse(next.code, next.reason, item.id));
    else putTask(state, task, next);
  }
  return batchVerdict(event.type, items.length, refusals);
};

export const evolveTasks = (state: ClusterState, event: TaskEvent): Verdict => {
  switch (event.type) {
    case 'TasksCreated': {
      const refusals: Refused[] = [];
      for (const item of event.data.tasks) {
        const service = state.services.get(item.serviceId);
        if (state.tasks.has(item.id)) refusals.push(refuse('already-exists', `task ${item.id} already exists`, item.id));
        else if (!service) refusals.push(refuse('not-found', `task ${item.id}: service ${item.serviceId} not found`, item.id));
        else if (service.version !== item.specVersion) {
          refusals.push(refuse('stale-version', `task ${item.id}: stale spec version ${item.specVersion} (service is at ${service.version})`, item.id));
        } else if (item.nodeId !== undefined && !state.nodes.has(item.nodeId)) {
          refusals.push(refuse('not-found', `task ${item.id}: node ${item.nodeId} not found`, item.id));
        } else if (item.desiredState !== TaskState.READY && item.desiredState !== TaskState.RUNNING) {
          refusals.push(refuse('invalid', `task ${item.id}: a new task's desired state is READY or RUNNING, not ${name(item.desiredState)}`, item.id));
        } else {
          putTask(state, undefined, createdTask(item, item.spec ?? service.spec.task, event.at));
        }
      }
      return batchVerdict(event.type, event.data.tasks.length, refusals);
    }
    case 'TasksAllocated':
      return eachTask(state, event, event.data.tasks, (task, item) => {
        if (task.status.state !== TaskState.NEW) return notIn(task, 'NEW');
        if (task.desiredState > TaskState.RUNNING) return shuttingDown(task);
        // The network may have been removed after the allocator proposed an address on it.
        const gone = item.attachments.find((a) => !state.networks.has(a.network));
        if (gone) return refuse('not-found', `task ${task.id}: network ${gone.network} not found`);
        const next = storedTask(task);
        next.attachments = item.attachments;
        if (item.ports) next.ports = item.ports;
        next.status = taskStatus(TaskState.PENDING, event.at, 'pending task scheduling');
        return next;
      });
    case 'TasksAllocationFailed':
      return eachTask(state, event, event.data.tasks, (task, item) =>
        task.status.state !== TaskState.NEW ? notIn(task, 'NEW') : withErr(task, event.at, item.reason),
      );
    case 'TasksAssigned':
      return eachTask(state, event, event.data.tasks, (task, item) => {
        if (task.status.state !== TaskState.PENDING) return notIn(task, 'PENDING');
        if (task.desiredState > TaskState.RUNNING) return shuttingDown(task);
        if (task.nodeId !== undefined && task.nodeId !== item.nodeId) {
          return refuse('invalid', `task ${task.id} belongs on node ${task.nodeId}, not ${item.nodeId}`);
        }
        const node = state.nodes.get(item.nodeId);
        if (!node) return refuse('not-found', `task ${task.id}: node ${item.nodeId} not found`);
        if (node.status.state !== 'ready') return refuse('wrong-state', `task ${task.id}: node ${node.id} is ${node.status.state}, not ready`);
        if (node.spec.availability !== 'active') {
          return refuse('wrong-state', `task ${task.id}: node ${node.id} is not available for new tasks (${node.spec.availability})`);
        }
        const full = wontFit(state, node, task);
        if (full) return refuse('over-capacity', `task ${task.id}: ${full}`);
        const next = storedTask(task);
        next.nodeId = node.id;
        next.assignmentReason = item.why;
        next.status = taskStatus(TaskState.ASSIGNED, event.at, 'scheduler assigned task to node');
        return next;
      });
    case 'TasksUnschedulable':
      return eachTask(state, event, event.data.tasks, (task, item) =>
        task.status.state !== TaskState.PENDING ? notIn(task, 'PENDING') : withErr(task, event.at, item.explain),
      );
    case 'TaskStatusesReported': {
      const { nodeId } = event.data;
      if (!state.nodes.has(nodeId)) {
        return rejected(event.type, 'not-found', `node ${nodeId} not found`);
      }
      return eachTask(state, event, event.data.statuses, (task, report) => {
        if (task.nodeId !== nodeId) return refuse('invalid', `task ${task.id} is not assigned to node ${nodeId}`);
        if (!isAgentReportable(report.state)) return refuse('invalid', `task ${task.id}: ${name(report.state)} is not a state an agent reports`);
        if (task.status.state < TaskState.ASSIGNED) return refuse('wrong-state', `task ${task.id} is ${name(task.status.state)}, not yet assigned`);
        if (report.state <= task.status.state) {
          return refuse('wrong-state', `task ${task.id}: state may not move backwards (${name(task.status.state)} → ${name(report.state)})`);
        }
        const next = storedTask(task);
        // From level 5 the status keeps the task's container; below it, as builds before it, it does not.
        const container = ruleApplies(state, RULE_LEVELS.containerStatusOfTasks) ? report : undefined;
        next.status = taskStatus(report.state, report.at, report.message, report.err, report.exitCode, container);
        if (report.state === TaskState.RUNNING && task.startedAt === undefined) next.startedAt = report.at;
        return next;
      });
    }
    case 'TaskDesiredStatesChanged':
      return eachTask(state, event, event.data.tasks, (task, item) =>
        item.desiredState <= task.desiredState
          ? refuse('wrong-state', `task ${task.id}: desired state may not move backwards (${name(task.desiredState)} → ${name(item.desiredState)})`)
          : withDesired(task, item.desiredState),
      );
    case 'TasksRemoved': {
      const refusals: Refused[] = [];
      for (const item of event.data.tasks) {
        const task = state.tasks.get(item.id);
        if (!task) refusals.push(refuse('not-found', `task ${item.id} not found`, item.id));
        else if (!removable(state, task)) {
          refusals.push(refuse('wrong-state', `task ${task.id} is still ${name(task.status.state)} on node ${task.nodeId}`, item.id));
        } else putTask(state, task, undefined);
      }
      return batchVerdict(event.type, event.data.tasks.length, refusals);
    }
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

const isRefused = (next: Task | Refused): next is Refused => 'reason' in next;

/** A task that is not in the state a proposal needs. */
const notIn = (task: Task, wanted: 'NEW' | 'PENDING'): Refused => refuse('wrong-state', `task ${task.id} is ${name(task.status.state)}, not ${wanted}`);

const shuttingDown = (task: Task): Refused => refuse('wrong-state', `task ${task.id} is being shut down`);

/** The task with an error on its current status (allocation failed, cannot be scheduled). */
const withErr = (task: Task, at: string, err: string): Task => {
  const next = storedTask(task);
  next.status = taskStatus(task.status.state, at, task.status.message, err, task.status.exitCode, task.status);
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
