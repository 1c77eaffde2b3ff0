/**
 * Tasks as the state stores them: every task has all of Task's fields, in one order, with
 * the absent ones undefined, and so does every status. Objects built field by field in
 * different orders get different hidden classes in V8; a replay makes hundreds of
 * thousands of tasks, and a copy of a task whose class the copying site has not seen
 * before leaves the fast path (`{ ...task, status }` cost ~0.5 µs once tasks at every
 * stage of their life passed through it). One shape keeps evolve's copies and every
 * core's reads of tasks monomorphic.
 *
 * Undefined fields mean what absent ones do: the state hash, snapshots and the API's JSON
 * leave them out. The state keeps the fields the contract defines; a field a record's
 * item carries beyond those is not stored (a new field comes with a new event version).
 */
import { TaskState } from '@shoal/contracts';
import type { CreatedTask, Task, TaskSpec, TaskStatus } from '@shoal/contracts';

export type MutableTask = { -readonly [K in keyof Task]: Task[K] };

/**
 * T with every field written out, the optional ones too (possibly undefined): a field
 * added to Task or TaskStatus and not to the builders below fails to compile, instead of
 * being lost on the next copy.
 */
type EveryField<T> = { [K in keyof Required<T>]: T[K] };

/** A copy of `task` with every field, ready for the caller to change before storing it. */
export const storedTask = (task: Task): MutableTask => {
  const copy: EveryField<Task> = {
    id: task.id,
    serviceId: task.serviceId,
    slot: task.slot,
    nodeId: task.nodeId,
    specVersion: task.specVersion,
    spec: task.spec,
    desiredState: task.desiredState,
    replaces: task.replaces,
    jobIteration: task.jobIteration,
    createdAt: task.createdAt,
    status: task.status,
    startedAt: task.startedAt,
    attachments: task.attachments,
    ports: task.ports,
    assignmentReason: task.assignmentReason,
  };
  return copy;
};

/** A task as TasksCreated makes it: NEW, running `spec`. */
export const createdTask = (item: CreatedTask, spec: TaskSpec, at: string): Task => {
  const task: EveryField<Task> = {
    id: item.id,
    serviceId: item.serviceId,
    slot: item.slot,
    nodeId: item.nodeId,
    specVersion: item.specVersion,
    spec,
    desiredState: item.desiredState,
    replaces: item.replaces,
    jobIteration: item.jobIteration,
    createdAt: at,
    status: taskStatus(TaskState.NEW, at, 'created'),
    startedAt: undefined,
    attachments: undefined,
    ports: undefined,
    assignmentReason: undefined,
  };
  return task;
};

/** A task's container as its status names it (TaskStatus.containerId and pid). */
export interface TaskContainer {
  readonly containerId?: string;
  readonly pid?: number;
}

/** A status with every field. */
export const taskStatus = (state: TaskState, at: string, message?: string, err?: string, exitCode?: number, container?: TaskContainer): TaskStatus => {
  const status: EveryField<TaskStatus> = { state, at, message, err, exitCode, containerId: container?.containerId, pid: container?.pid };
  return status;
};

/** `status` with every field (a status restored from JSON lacks the undefined ones). */
export const storedStatus = (status: TaskStatus): TaskStatus => taskStatus(status.state, status.at, status.message, status.err, status.exitCode, status);
