/**
 * A plan: what one decision wants appended — desired-state changes and new tasks — and
 * the state as it will be once they apply, so that the parts of one decision see each
 * other (a slot being restarted is not also refilled). It becomes at most one
 * TaskDesiredStatesChanged and one TasksCreated record, the changes first.
 */
import { TaskState } from '@shoal/contracts';
import type { NewTask, Task, TaskState as State } from '@shoal/contracts';
import type { Proposal } from '../component-core';

export interface DesiredChange {
  readonly id: string;
  readonly desiredState: State;
  readonly reason: string;
}

export class Plan {
  private readonly changes = new Map<string, DesiredChange>();
  private readonly created: NewTask[] = [];
  private readonly createdByService = new Map<string, NewTask[]>();
  /** Services this plan creates or changes tasks of. */
  readonly services = new Set<string>();

  /** The task's desired state once this plan applies. */
  desiredOf(task: Pick<Task, 'id' | 'desiredState'>): State {
    return this.changes.get(task.id)?.desiredState ?? task.desiredState;
  }

  /** Moves a task's desired state forward (never back); false when it already is there or past it. */
  setDesired(task: Pick<Task, 'id' | 'desiredState' | 'serviceId'>, desiredState: State, reason: string): boolean {
    if (desiredState <= this.desiredOf(task)) return false;
    this.changes.set(task.id, { id: task.id, desiredState, reason });
    this.services.add(task.serviceId);
    return true;
  }

  create(task: NewTask): void {
    this.created.push(task);
    const list = this.createdByService.get(task.serviceId);
    if (list) list.push(task);
    else this.createdByService.set(task.serviceId, [task]);
    this.services.add(task.serviceId);
  }

  /** Takes back the creations of a service's tasks that `match` (a slot being scaled away). */
  uncreate(serviceId: string, match: (task: NewTask) => boolean): void {
    const list = this.createdByService.get(serviceId);
    if (!list?.some(match)) return;
    this.createdByService.set(serviceId, list.filter((task) => !match(task)));
    const keep = this.created.filter((task) => task.serviceId !== serviceId || !match(task));
    this.created.length = 0;
    this.created.push(...keep);
  }

  /** The tasks this plan creates for a service. */
  createdFor(serviceId: string): readonly NewTask[] {
    return this.createdByService.get(serviceId) ?? [];
  }

  get size(): number {
    return this.changes.size + this.created.length;
  }

  proposals(): Proposal[] {
    const out: Proposal[] = [];
    if (this.changes.size > 0) out.push({ type: 'TaskDesiredStatesChanged', data: { tasks: [...this.changes.values()] } });
    if (this.created.length > 0) out.push({ type: 'TasksCreated', data: { tasks: [...this.created] } });
    return out;
  }
}

/** Meant to run (or to start soon): the task counts for its slot. */
export const isRunnable = (desired: State): boolean => desired <= TaskState.RUNNING;
