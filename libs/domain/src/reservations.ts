/**
 * What each node has reserved: the reservations of the tasks assigned to it that have
 * not ended. Derived from the tasks, kept up to date as tasks change, rebuilt on restore.
 */
import { TaskState } from '@shoal/contracts';
import type { GenericResource, Task } from '@shoal/contracts';
import type { ClusterState, Node, Reserved } from './state';
import { hostPortKeys } from './scheduler/scheduling-task';

/** A task holds its node's resources from assignment until it ends. */
export const holdsResources = (task: Task): boolean =>
  task.nodeId !== undefined && task.status.state >= TaskState.ASSIGNED && task.status.state <= TaskState.RUNNING;

/** Units of each generic resource kind a task asks for (a named unit counts one). */
export const genericUnits = (resources: readonly GenericResource[] | undefined): Map<string, number> => {
  const units = new Map<string, number>();
  for (const r of resources ?? []) units.set(r.kind, (units.get(r.kind) ?? 0) + ('discrete' in r ? r.discrete : 1));
  return units;
};

/** `counts` with `keys` added `sign` times each; undefined when nothing is left. */
const tally = (counts: ReadonlyMap<string, number> | undefined, keys: ReadonlyMap<string, number>, sign: 1 | -1): ReadonlyMap<string, number> | undefined => {
  if (keys.size === 0) return counts;
  const next = new Map(counts ?? []);
  for (const [key, n] of keys) {
    const left = (next.get(key) ?? 0) + sign * n;
    if (left === 0) next.delete(key);
    else next.set(key, left);
  }
  return next.size > 0 ? next : undefined;
};

const ones = (keys: readonly string[]): Map<string, number> => {
  const out = new Map<string, number>();
  for (const key of keys) out.set(key, (out.get(key) ?? 0) + 1);
  return out;
};

const add = (state: ClusterState, task: Task, sign: 1 | -1): void => {
  if (!holdsResources(task)) return;
  const wants = task.spec.resources?.reservations;
  const nodeId = task.nodeId as string;
  const current = state.reserved.get(nodeId) ?? { nanoCpus: 0, memoryBytes: 0 };
  const generic = wants?.generic && wants.generic.length > 0 ? tally(current.generic, genericUnits(wants.generic), sign) : current.generic;
  const hostPorts = task.ports && task.ports.length > 0 ? tally(current.hostPorts, ones(hostPortKeys(task.ports)), sign) : current.hostPorts;
  const next: Reserved = {
    nanoCpus: current.nanoCpus + sign * (wants?.nanoCpus ?? 0),
    memoryBytes: current.memoryBytes + sign * (wants?.memoryBytes ?? 0),
    ...(generic ? { generic } : {}),
    ...(hostPorts ? { hostPorts } : {}),
  };
  if (next.nanoCpus === 0 && next.memoryBytes === 0 && !generic && !hostPorts) state.reserved.delete(nodeId);
  else state.reserved.set(nodeId, next);
};

/**
 * Both hold nothing, or both hold the same reservation on the same node: taking `before`'s
 * off and putting `after`'s on would leave the node's reservations as they are.
 */
const holdsTheSame = (before: Task, after: Task): boolean =>
  holdsResources(before)
    ? holdsResources(after) && before.nodeId === after.nodeId && before.spec === after.spec && before.ports === after.ports
    : !holdsResources(after);

/** Replaces (or inserts, or with `after` undefined deletes) a task, keeping reservations right. */
export const putTask = (state: ClusterState, before: Task | undefined, after: Task | undefined): void => {
  const moves = !before || !after || !holdsTheSame(before, after);
  if (before && moves) add(state, before, -1);
  if (after) {
    if (moves) add(state, after, 1);
    state.tasks.set(after.id, after);
  } else if (before) state.tasks.delete(before.id);
};

/** Why `task` does not fit on `node` given what is reserved there, or undefined when it does. */
export const wontFit = (state: ClusterState, node: Node, task: Task): string | undefined => {
  const used = state.reserved.get(node.id) ?? { nanoCpus: 0, memoryBytes: 0 };
  const taken = hostPortKeys(task.ports).find((port) => used.hostPorts?.has(port));
  if (taken) return `node ${node.id} already has host-mode port ${taken} in use`;
  const wants = task.spec.resources?.reservations;
  if (!wants) return undefined;
  const has = node.description.resources;
  if (wants.generic && wants.generic.length > 0) {
    const offered = genericUnits(has.generic);
    for (const [kind, units] of genericUnits(wants.generic)) {
      if (units > 0 && (used.generic?.get(kind) ?? 0) + units > (offered.get(kind) ?? 0)) {
        return `node ${node.id} is over capacity: insufficient ${kind}`;
      }
    }
  }
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
