/**
 * Wants: what one orchestrator decider wants done — desired-state changes, new tasks, and
 * new tasks of the deciders before it taken back (a slot being scaled away). A decider
 * builds its wants on top of what the deciders before it planned, reads them as it goes
 * (so it sees its own changes and theirs), and returns them; only the plan merges them.
 */
import type { NewTask, Task, TaskState } from '@shoal/contracts';

export interface DesiredChange {
  readonly id: string;
  readonly desiredState: TaskState;
  readonly reason: string;
}

/** What the deciders before this one want, as a decider reads it. */
export interface PlannedView {
  /** The task's desired state once what is planned applies. */
  desiredOf(task: Pick<Task, 'id' | 'desiredState'>): TaskState;
  /** The tasks planned for a service. */
  createdFor(serviceId: string): readonly NewTask[];
}

/** New tasks of the deciders before this one that this one takes back. */
export interface Withdrawal {
  readonly serviceId: string;
  readonly match: (task: NewTask) => boolean;
}

/** Takes out of `tasks`, in place, the new tasks of `serviceId` that `match`. */
export const withdrawFrom = (tasks: NewTask[], serviceId: string, match: (task: NewTask) => boolean): void => {
  const keep = tasks.filter((task) => task.serviceId !== serviceId || !match(task));
  tasks.length = 0;
  tasks.push(...keep);
};

export class Wants implements PlannedView {
  /** Desired-state changes by task, in the order each task was first changed. */
  readonly changes = new Map<string, DesiredChange>();
  readonly created: NewTask[] = [];
  readonly withdrawn: Withdrawal[] = [];
  /** Services whose tasks these wants create or change, in the order they were first touched. */
  readonly services = new Set<string>();

  constructor(private readonly planned: PlannedView) {}

  desiredOf(task: Pick<Task, 'id' | 'desiredState'>): TaskState {
    return this.changes.get(task.id)?.desiredState ?? this.planned.desiredOf(task);
  }

  /** Moves a task's desired state forward (never back); false when it already is there or past it. */
  setDesired(task: Pick<Task, 'id' | 'desiredState' | 'serviceId'>, desiredState: TaskState, reason: string): boolean {
    if (desiredState <= this.desiredOf(task)) return false;
    this.changes.set(task.id, { id: task.id, desiredState, reason });
    this.services.add(task.serviceId);
    return true;
  }

  create(task: NewTask): void {
    this.created.push(task);
    this.services.add(task.serviceId);
  }

  /** Takes back the new tasks of a service that `match`, planned before or wanted here (a slot being scaled away). */
  withdraw(serviceId: string, match: (task: NewTask) => boolean): void {
    this.withdrawn.push({ serviceId, match });
    withdrawFrom(this.created, serviceId, match);
  }

  createdFor(serviceId: string): readonly NewTask[] {
    const withdrawn = this.withdrawn.filter((w) => w.serviceId === serviceId);
    const before = this.planned.createdFor(serviceId);
    const planned = withdrawn.length === 0 ? before : before.filter((task) => !withdrawn.some((w) => w.match(task)));
    const own = this.created.filter((task) => task.serviceId === serviceId);
    return own.length === 0 ? planned : [...planned, ...own];
  }
}
