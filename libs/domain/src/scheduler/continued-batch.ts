/**
 * The decision tree of a batch the tick budget cut short, kept for the tick that places the
 * rest of it: built again, it would look at every node once more for each slice of a large
 * service. It holds as many of the nodes that passed as the batch had tasks, queued ones
 * included (not only as many as the slice needed), and it is used only while no more are
 * queued and the view is as the batch's last placement left it — no node, task count,
 * resource or failure changed since (SchedulerView.changes) — and, when some node's recent
 * failures of the service order the nodes, only at the same time.
 */
import type { DecisionTree } from './decision-tree';
import type { Compare } from './node-heap';
import type { NodeInfo } from './node-info';

export interface ContinuedBatch {
  /** service@specVersion */
  readonly key: string;
  readonly tree: DecisionTree;
  readonly passed: number;
  readonly seen: number;
  readonly compare: Compare<NodeInfo>;
  /** The view's count of changes after the batch's last placement. */
  readonly changes: number;
  /**
   * How many more tasks the tree may place: its leaves keep as many nodes as the tasks it
   * was built for (no batch of n tasks needs more than n nodes), so it goes on only while
   * no more than that are queued.
   */
  readonly room: number;
  /** Some candidate's recent failures of the service order the nodes: the order holds at `now` only. */
  readonly timeSensitive: boolean;
  readonly now: number;
}

/** Whether `batch` may go on placing the tasks of `key` in a view at `changes`, at `now`, with `queued` tasks queued. */
export const continues = (batch: ContinuedBatch | undefined, key: string, changes: number, now: number, queued: number): batch is ContinuedBatch =>
  batch !== undefined && batch.key === key && batch.changes === changes && (!batch.timeSensitive || batch.now === now) && queued <= batch.room;
