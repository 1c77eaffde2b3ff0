/**
 * The task reaper's decision: which tasks leave the store. Pure: it reads the state and
 * the candidates the reaper watched, and returns removals, never touching a task that may
 * still run.
 *
 * - history: a slot (replicated) or service-on-node (global) keeps at most the cluster's
 *   task history retention limit of tasks; the oldest stopped ones go first, by status time;
 *   a negative limit keeps everything;
 * - desired REMOVE (scaled down, service removed): removed once shut down or never started;
 * - tasks of a deleted service: removed once shut down or never started;
 * - a job's completed tasks of its current run are kept: they are its count of completions;
 * - ORPHANED tasks count as stopped: the history rule and the two above reap them;
 * - a task of those two kinds whose node was removed: no agent will ever report it stopped,
 *   and nothing of it runs that the cluster still knows of.
 */
import { TaskState, isJob, isTerminal } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { slotKey } from './slots';
import type { SlotKey } from './slots';

export const DEFAULT_TASK_HISTORY = 5;

export interface Removal {
  readonly id: string;
  readonly reason: string;
}

/** What one reaping removes, and the slots it looks at again next time. */
export interface ReapOutcome {
  readonly remove: readonly Removal[];
  /** Slots to look at again next time (more than one live task in them now). */
  readonly stillDirty: readonly SlotKey[];
}

export interface ReapCandidates {
  /** Slots whose history may have grown. */
  readonly slots: Iterable<SlotKey>;
  /** Tasks that may have become removable (desired REMOVE, service gone, shut down). */
  readonly tasks: Iterable<string>;
}

/** Nothing of this task runs now or will: it may leave the store without losing anything. */
export const stoppedForGood = (task: Task): boolean =>
  isTerminal(task.status.state) || task.status.state < TaskState.ASSIGNED;

/** It was placed on a node the cluster no longer has: no agent will report on it again. */
export const onRemovedNode = (state: ClusterState, task: Task): boolean =>
  task.nodeId !== undefined && task.status.state >= TaskState.ASSIGNED && !state.nodes.has(task.nodeId);

/**
 * Still running, or still meant to run: the history rule never deletes these. A task told
 * to stop before it ever reached a node is not live: nothing of it runs anywhere.
 */
const live = (task: Task): boolean => task.desiredState <= TaskState.RUNNING || !stoppedForGood(task);

/**
 * A completed task of a job's current run: it is how the orchestrator counts the job's
 * completions, so history never deletes it (a new run, or the job's removal, frees it).
 */
const jobProgress = (state: ClusterState, task: Task): boolean => {
  if (task.status.state !== TaskState.COMPLETE || task.desiredState === TaskState.REMOVE) return false;
  const service = state.services.get(task.serviceId);
  return service !== undefined && isJob(service.spec.mode) && (task.jobIteration ?? 0) === (service.jobIteration ?? 0);
};

const byStatusTime = (a: Task, b: Task): number =>
  a.status.at < b.status.at ? -1 : a.status.at > b.status.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/** Every task of each slot, by slot key. */
export const tasksBySlot = (state: ClusterState): Map<SlotKey, Task[]> => {
  const slots = new Map<SlotKey, Task[]>();
  for (const task of state.tasks.values()) {
    const key = slotKey(task);
    if (key === undefined) continue;
    const list = slots.get(key);
    if (list) list.push(task);
    else slots.set(key, [task]);
  }
  return slots;
};

export const reap = (state: ClusterState, candidates: ReapCandidates, bySlot = tasksBySlot(state)): ReapOutcome => {
  const remove = new Map<string, string>();
  const stillDirty: SlotKey[] = [];

  for (const id of candidates.tasks) {
    const task = state.tasks.get(id);
    if (!task) continue;
    const stopped = stoppedForGood(task);
    if (!stopped && !onRemovedNode(state, task)) continue;
    const why =
      task.desiredState === TaskState.REMOVE
        ? 'removed: scaled down or its service was removed'
        : !state.services.has(task.serviceId)
          ? `removed: service ${task.serviceId} no longer exists`
          : undefined;
    if (why === undefined) continue;
    if (!stopped) remove.set(id, `${why}, and its node ${task.nodeId} was removed`);
    else remove.set(id, task.desiredState === TaskState.REMOVE ? `${why}, and it has stopped` : why);
  }

  const limit = state.cluster?.spec.orchestration.taskHistoryRetentionLimit ?? DEFAULT_TASK_HISTORY;
  if (limit >= 0) {
    for (const key of new Set(candidates.slots)) {
      const tasks = (bySlot.get(key) ?? []).filter((task) => !remove.has(task.id));
      if (tasks.length <= limit) continue;
      let kept = tasks.length;
      let running = 0;
      for (const task of [...tasks].sort(byStatusTime)) {
        if (kept <= limit) break;
        if (live(task)) {
          running++;
          continue;
        }
        if (jobProgress(state, task)) continue;
        remove.set(task.id, `history: slot ${key} keeps the ${limit} newest tasks`);
        kept--;
      }
      if (running > 1) stillDirty.push(key);
    }
  }

  return { remove: [...remove].map(([id, reason]) => ({ id, reason })), stillDirty };
};
