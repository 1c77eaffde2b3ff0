/**
 * Task statuses from the agents, batched into TaskStatusesReported records: as SwarmKit
 * batches its status writes (at most 10,000 items, at most 100 ms old — the runner's
 * cadence gives the time bound). A status for a task the node does not hold is ignored
 * with a note, never fatal; one that would not move the task forward is dropped.
 */
import { TaskState, isAgentReportable, taskStateName } from '@shoal/contracts';
import type { TaskStatusReport } from '@shoal/contracts';
import type { Proposal } from '../component-core';
import type { ClusterState } from '../state';
import type { PendingStatus } from './session-table';

export const MAX_STATUS_BATCH = 10_000;

export interface StatusBatch {
  /** One TaskStatusesReported per reporting node. */
  readonly proposals: readonly Proposal[];
  /** Statuses left out, and why: worth a log line. */
  readonly ignored: readonly string[];
}

export const batchStatuses = (state: ClusterState, pending: readonly PendingStatus[]): StatusBatch => {
  const byNode = new Map<string, TaskStatusReport[]>();
  const latest = new Map<string, TaskState>();
  const ignored: string[] = [];
  for (const { nodeId, report } of pending) {
    const task = state.tasks.get(report.id);
    if (!task) {
      ignored.push(`ignoring a status from node ${nodeId} for task ${report.id}: no such task`);
      continue;
    }
    if (task.nodeId !== nodeId || task.status.state < TaskState.ASSIGNED) {
      ignored.push(`ignoring a status from node ${nodeId} for task ${report.id}: it is not assigned to that node`);
      continue;
    }
    if (!isAgentReportable(report.state)) {
      ignored.push(`ignoring a status from node ${nodeId} for task ${report.id}: ${taskStateName(report.state)} is not a state an agent reports`);
      continue;
    }
    if (report.state <= (latest.get(report.id) ?? task.status.state)) continue;
    latest.set(report.id, report.state);
    const list = byNode.get(nodeId) ?? [];
    list.push(report);
    byNode.set(nodeId, list);
  }
  const proposals: Proposal[] = [...byNode].map(([nodeId, statuses]) => ({ type: 'TaskStatusesReported', data: { nodeId, statuses } }));
  return { proposals, ignored };
};
