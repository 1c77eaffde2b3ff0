/**
 * Orphans: a node DOWN longer than the cluster's node-down period cannot say what became
 * of its tasks. Those that could have made progress since (ASSIGNED to RUNNING) become
 * ORPHANED, reported by the dispatcher on the node's behalf; tasks already stopped are
 * left as they are (SwarmKit's moveTasksToOrphaned).
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { Proposal } from '../component-core';
import type { ClusterState, Node } from '../state';

export const DEFAULT_NODE_DOWN_PERIOD_MS = 24 * 60 * 60 * 1_000;

export const nodeDownPeriodMs = (state: ClusterState): number => {
  const period = state.cluster?.spec.nodeDownPeriodMs;
  return period !== undefined && period >= 0 ? period : DEFAULT_NODE_DOWN_PERIOD_MS;
};

/** Could have moved on since its node went silent. */
export const orphanable = (task: Task): boolean => task.status.state >= TaskState.ASSIGNED && task.status.state <= TaskState.RUNNING;

/** When the node's tasks become orphans, if it is DOWN. */
const orphanedAt = (node: Node, periodMs: number): number | undefined =>
  node.status.state === 'down' ? Date.parse(node.status.at) + periodMs : undefined;

const orphanableOn = (state: ClusterState, taskIds: Iterable<string>): Task[] => {
  const tasks: Task[] = [];
  for (const id of taskIds) {
    const task = state.tasks.get(id);
    if (task && orphanable(task)) tasks.push(task);
  }
  return tasks;
};

/** The nodes among `ids` that exist. */
function* nodesOf(state: ClusterState, ids: Iterable<string>): Iterable<Node> {
  for (const id of ids) {
    const node = state.nodes.get(id);
    if (node) yield node;
  }
}

/**
 * One TaskStatusesReported per node DOWN for longer than the period, ORPHANing its live
 * tasks. `candidates`: the nodes to look at (those known to be DOWN), by default all.
 */
export const orphanTasks = (
  state: ClusterState,
  tasksOf: (nodeId: string) => Iterable<string>,
  now: Date,
  candidates: Iterable<string> = state.nodes.keys(),
): Proposal[] => {
  const periodMs = nodeDownPeriodMs(state);
  const proposals: Proposal[] = [];
  for (const node of nodesOf(state, candidates)) {
    const at = orphanedAt(node, periodMs);
    if (at === undefined || at > now.getTime()) continue;
    const tasks = orphanableOn(state, tasksOf(node.id));
    if (tasks.length === 0) continue;
    const message = `orphaned: node ${node.id} has been down for more than ${periodMs} ms`;
    const statuses = tasks.map((task) => ({ id: task.id, state: TaskState.ORPHANED, at: now.toISOString(), message }));
    proposals.push({ type: 'TaskStatusesReported', data: { nodeId: node.id, statuses } });
  }
  return proposals;
};

/** The next time a DOWN node's tasks become orphans, if one has any that can. */
export const nextOrphaning = (
  state: ClusterState,
  tasksOf: (nodeId: string) => Iterable<string>,
  candidates: Iterable<string> = state.nodes.keys(),
): number | undefined => {
  const periodMs = nodeDownPeriodMs(state);
  let next: number | undefined;
  for (const node of nodesOf(state, candidates)) {
    const at = orphanedAt(node, periodMs);
    if (at === undefined || (next !== undefined && at >= next)) continue;
    if (orphanableOn(state, tasksOf(node.id)).length > 0) next = at;
  }
  return next;
};
