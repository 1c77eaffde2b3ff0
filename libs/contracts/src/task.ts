/** Tasks: one-shot units of work, one per slot (replicated) or node (global). */
import type { TaskState } from './task-state';
import type { TaskSpec, PortConfig } from './service';
import type { NetworkAttachment } from './network';

export interface TaskStatus {
  readonly state: TaskState;
  /** When the state was reached (writer's clock). */
  readonly at: string;
  readonly message?: string;
  /** Why it failed, or why it cannot be allocated or scheduled. */
  readonly err?: string;
  readonly exitCode?: number;
  /**
   * The container the task runs in, as its engine named it (64 hex digits), once an
   * executor made one (Docker's ContainerStatus.ContainerID); an executor that runs no
   * container reports none. Kept on a log at level 5 or above (RULE_LEVELS).
   */
  readonly containerId?: string;
  /** The container's process on its machine, while it runs; 0 once it stopped (ContainerStatus.PID). Only with `containerId`. */
  readonly pid?: number;
}

/** A task as it is created: the orchestrator decides all of this. */
export interface NewTask {
  readonly id: string;
  readonly serviceId: string;
  /** Replicated services: the replica slot, 1-based. */
  readonly slot?: number;
  /** Global services: the node, chosen at creation. */
  readonly nodeId?: string;
  /** The service version whose spec this task runs. */
  readonly specVersion: number;
  readonly spec: TaskSpec;
  /** RUNNING, or READY when it must wait (restart delay, start-first update). */
  readonly desiredState: TaskState;
  /** The task this one replaces (restart supervisor, updater). */
  readonly replaces?: string;
  /** Jobs: which run of the job this task belongs to. */
  readonly jobIteration?: number;
}

/**
 * A new task as a TasksCreated record carries it. Without `spec` it runs its service's
 * task spec: evolve only creates a task at its service's current version, so that is the
 * spec of `specVersion`, and a batch of one service's tasks need not repeat it per task.
 */
export type CreatedTask = Omit<NewTask, 'spec'> & { readonly spec?: TaskSpec };

/** The state's view of a task. */
export interface Task extends NewTask {
  readonly createdAt: string;
  readonly status: TaskStatus;
  /** When it was first reported RUNNING (agent's clock); kept once it stops. Absent: it never ran. */
  readonly startedAt?: string;
  readonly attachments?: readonly NetworkAttachment[];
  readonly ports?: readonly PortConfig[];
  /** Why the scheduler put it on its node: the `why` of the TasksAssigned that did. Written out as `placement` (TaskData). */
  readonly assignmentReason?: string;
}

/**
 * The names a task's fields are written out under — in the state hash, snapshots and the
 * audit's state — where they differ from the field's own: the scheduler's reason keeps
 * `placement`, the name the hash of every existing log was taken with.
 */
export const TASK_DATA_NAMES = { assignmentReason: 'placement' } as const satisfies Partial<Record<keyof Task, string>>;

/** A task as the state is written out (TASK_DATA_NAMES). */
export type TaskData = Omit<Task, 'assignmentReason'> & { readonly placement?: string };

/** `task` as the state is written out; its fields in the same order, the renamed one last. */
export const taskData = (task: Task): TaskData => {
  const { assignmentReason, ...rest } = task;
  return assignmentReason === undefined ? rest : { ...rest, placement: assignmentReason };
};
