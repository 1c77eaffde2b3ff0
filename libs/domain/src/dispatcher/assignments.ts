/**
 * Assignments: what a node's agent is told to run. A stream starts with the COMPLETE set
 * (every task assigned to the node, ASSIGNED or later) and goes on with INCREMENTAL
 * changes: a task newly assigned, a changed desired state, a task gone from the store.
 * As in SwarmKit, a change of observed state alone is not sent: the agent made it.
 */
import type { TaskSpec, TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';

export interface Assignment {
  readonly taskId: string;
  readonly serviceId: string;
  readonly serviceName: string;
  readonly slot?: number;
  readonly desiredState: TaskState;
  readonly observedState: TaskState;
  readonly spec: TaskSpec;
}

export type AssignmentChange =
  | { readonly action: 'update'; readonly assignment: Assignment }
  | { readonly action: 'remove'; readonly taskId: string };

export const assignmentOf = (state: ClusterState, task: Task): Assignment => ({
  taskId: task.id,
  serviceId: task.serviceId,
  serviceName: state.services.get(task.serviceId)?.spec.name ?? '',
  ...(task.slot === undefined ? {} : { slot: task.slot }),
  desiredState: task.desiredState,
  observedState: task.status.state,
  spec: task.spec,
});

/** What one stream has told its agent: task id → the desired state it was sent with. */
export class AssignmentTracker {
  private readonly sent = new Map<string, TaskState>();

  /** The whole set, remembered as sent. */
  complete(state: ClusterState, taskIds: Iterable<string>): Assignment[] {
    this.sent.clear();
    const set: Assignment[] = [];
    for (const id of taskIds) {
      const task = state.tasks.get(id);
      if (!task) continue;
      set.push(assignmentOf(state, task));
      this.sent.set(id, task.desiredState);
    }
    return set;
  }

  /** What changed since the last set or changes, remembered as sent. */
  changes(state: ClusterState, taskIds: ReadonlySet<string>): AssignmentChange[] {
    const changes: AssignmentChange[] = [];
    for (const id of taskIds) {
      const task = state.tasks.get(id);
      if (!task || this.sent.get(id) === task.desiredState) continue;
      changes.push({ action: 'update', assignment: assignmentOf(state, task) });
      this.sent.set(id, task.desiredState);
    }
    for (const id of [...this.sent.keys()]) {
      if (taskIds.has(id) && state.tasks.has(id)) continue;
      changes.push({ action: 'remove', taskId: id });
      this.sent.delete(id);
    }
    return changes;
  }

  /**
   * What changed among `touched` — the tasks that may have changed since the last set or
   * changes — given the tasks the node holds now; remembered as sent. The same answer as
   * `changes` when `touched` names every task that changed, at the cost of those alone.
   */
  changesOf(state: ClusterState, held: ReadonlySet<string>, touched: Iterable<string>): AssignmentChange[] {
    const changes: AssignmentChange[] = [];
    for (const id of touched) {
      const task = held.has(id) ? state.tasks.get(id) : undefined;
      if (task) {
        if (this.sent.get(id) === task.desiredState) continue;
        changes.push({ action: 'update', assignment: assignmentOf(state, task) });
        this.sent.set(id, task.desiredState);
      } else if (this.sent.delete(id)) {
        changes.push({ action: 'remove', taskId: id });
      }
    }
    return changes;
  }

  get size(): number {
    return this.sent.size;
  }
}
