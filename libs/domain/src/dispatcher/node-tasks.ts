/**
 * Which tasks each node holds: those assigned to it (observed state ASSIGNED or later),
 * kept from the events as the view applies them, so the dispatcher never scans every task
 * to answer for one node.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';

const EMPTY: ReadonlySet<string> = new Set();

/** The node that holds the task: the one it is assigned to, once it is ASSIGNED or later. */
const held = (task: Task): string | undefined => (task.nodeId !== undefined && task.status.state >= TaskState.ASSIGNED ? task.nodeId : undefined);

export class NodeTasks {
  private readonly byNode = new Map<string, Set<string>>();
  private readonly nodeOf = new Map<string, string>();

  /** Task ids of the state still to look at, while the index is being built again. */
  private rest?: Iterator<string>;

  /** Builds the index from the whole state. */
  rebuild(state: ClusterState): void {
    this.restart(state);
    this.rebuildSome(state, Number.POSITIVE_INFINITY);
  }

  /**
   * Starts building the index again from `state`, to be done a slice at a time
   * (`rebuildSome`): until it is whole, a node's answer may leave tasks out. Every task is
   * looked at once as `touch` does, so what the events touch in the meantime is kept too.
   */
  restart(state: ClusterState): void {
    this.byNode.clear();
    this.nodeOf.clear();
    this.rest = state.tasks.keys();
  }

  /** Looks at up to `max` more tasks of the state (at least one): whether the index is whole. */
  rebuildSome(state: ClusterState, max: number): boolean {
    const rest = this.rest;
    if (rest === undefined) return true;
    for (let looked = 0; looked < Math.max(1, max); looked++) {
      const next = rest.next();
      if (next.done === true) {
        this.rest = undefined;
        return true;
      }
      this.touch(state, next.value);
    }
    return false;
  }

  /** Whether the index holds every task: no rebuild under way. */
  get whole(): boolean {
    return this.rest === undefined;
  }

  /** Looks at one task again; answers the nodes whose holding may have changed. */
  touch(state: ClusterState, taskId: string): readonly string[] {
    const task = state.tasks.get(taskId);
    const before = this.nodeOf.get(taskId);
    const after = task ? held(task) : undefined;
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
