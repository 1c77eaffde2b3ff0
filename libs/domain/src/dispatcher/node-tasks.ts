/**
 * Which tasks each node holds: those assigned to it (observed state ASSIGNED or later),
 * kept from the events as the view applies them, so the dispatcher never scans every task
 * to answer for one node.
 */
import { TaskState } from '@shoal/contracts';
import type { ClusterState } from '../state';

const EMPTY: ReadonlySet<string> = new Set();

export class NodeTasks {
  private readonly byNode = new Map<string, Set<string>>();
  private readonly nodeOf = new Map<string, string>();

  /** Builds the index from the whole state. */
  rebuild(state: ClusterState): void {
    this.byNode.clear();
    this.nodeOf.clear();
    for (const id of state.tasks.keys()) this.touch(state, id);
  }

  /** Looks at one task again; answers the nodes whose holding may have changed. */
  touch(state: ClusterState, taskId: string): readonly string[] {
    const task = state.tasks.get(taskId);
    const before = this.nodeOf.get(taskId);
    const after = task && task.nodeId !== undefined && task.status.state >= TaskState.ASSIGNED ? task.nodeId : undefined;
    if (before !== undefined && before !== after) {
      const set = this.byNode.get(before);
      set?.delete(taskId);
      if (set?.size === 0) this.byNode.delete(before);
      this.nodeOf.delete(taskId);
    }
    if (after !== undefined && before !== after) {
      const set = this.byNode.get(after) ?? new Set<string>();
      set.add(taskId);
      this.byNode.set(after, set);
      this.nodeOf.set(taskId, after);
    }
    if (before === undefined) return after === undefined ? [] : [after];
    return after === undefined || after === before ? [before] : [before, after];
  }

  of(nodeId: string): ReadonlySet<string> {
    return this.byNode.get(nodeId) ?? EMPTY;
  }
}
