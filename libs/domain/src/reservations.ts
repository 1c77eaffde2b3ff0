/**
 * What each node has reserved: the reservations of the tasks assigned to it that have
 * not ended. Derived from the tasks, kept up to date as tasks change, rebuilt on restore.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState, Node, Reserved } from './state';

/** A task holds its node's resources from assignment until it ends. */
export const holdsResources = (task: Task): boolean =>
  task.nodeId !== undefined && task.status.state >= TaskState.ASSIGNED && task.status.state <= TaskState.RUNNING;

const add = (state: ClusterState, task: Task, sign: 1 | -1): void => {
  if (!holdsResources(task)) return;
  const wants = task.spec.resources?.reservations;
  const nodeId = task.nodeId as string;
  const current = state.reserved.get(nodeId) ?? { nanoCpus: 0, memoryBytes: 0 };
  const next: Reserved = {
    nanoCpus: current.nanoCpus + sign * (wants?.nanoCpus ?? 0),
    memoryBytes: current.memoryBytes + sign * (wants?.memoryBytes ?? 0),
  };
  if (next.nanoCpus === 0 && next.memoryBytes === 0) state.reserved.delete(nodeId);
  else state.reserved.set(nodeId, next);
};

/** Replaces (or inserts, or with `after` undefined deletes) a task, keeping reservations right. */
export const putTask = (state: ClusterState, before: Task | undefined, after: Task | undefined): void => {
  if (before) add(state, before, -1);
  if (after) {
    add(state, after, 1);
    state.tasks.set(after.id, after);
  } else if (before) state.tasks.delete(before.id);
};

/** Why `task` does not fit on `node` given what is reserved there, or undefined when it does. */
export const wontFit = (state: ClusterState, node: Node, task: Task): string | undefined => {
  const wants = task.spec.resources?.reservations;
  if (!wants) return undefined;
  const has = node.description.resources;
  const used = state.reserved.get(node.id) ?? { nanoCpus: 0, memoryBytes: 0 };
  if ((wants.nanoCpus ?? 0) > 0 && used.nanoCpus + (wants.nanoCpus ?? 0) > (has.nanoCpus ?? 0)) {
    return `node ${node.id} is over capacity: insufficient CPU`;
  }
  if ((wants.memoryBytes ?? 0) > 0 && used.memoryBytes + (wants.memoryBytes ?? 0) > (has.memoryBytes ?? 0)) {
    return `node ${node.id} is over capacity: insufficient memory`;
  }
  return undefined;
};

/** Recomputes every node's reservations from the tasks (after a restore). */
export const rebuildReservations = (state: ClusterState): void => {
  state.reserved.clear();
  for (const task of state.tasks.values()) add(state, task, 1);
};
