/**
 * Slots, as the orchestrator sees them: a slot (replicated) or a node (global) is held
 * while one of its tasks is runnable (desired RUNNING or before), or while its newest
 * task has ended for good — its restart policy will not replace it. Otherwise it is dead
 * and may be filled again. Tasks being removed (desired REMOVE) hold nothing.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { Service } from '../state';
import type { Decision } from './decision';
import { isRunnable } from './plan';
import { shouldRestart } from './restart-policy';

/** Newest by status time, then id, so the choice is the same in every process. */
export const newest = (tasks: readonly Task[]): Task | undefined => {
  let best: Task | undefined;
  for (const task of tasks) {
    if (!best || task.status.at > best.status.at || (task.status.at === best.status.at && task.id > best.id)) best = task;
  }
  return best;
};

/** The tasks that hold the slot; empty when it is dead. */
export const holders = (d: Decision, tasks: readonly Task[], service: Service): Task[] => {
  const runnable = tasks.filter((task) => isRunnable(d.plan.desiredOf(task)));
  if (runnable.length > 0) return runnable;
  if (service.updateStatus?.state === 'rollback_started') return [];
  const last = newest(tasks);
  return last && !shouldRestart(last, service, d.restarts.history) ? [last] : [];
};

/** Groups a service's tasks that are not being removed by `key`. */
export const groupBy = <K>(d: Decision, tasks: readonly Task[], key: (task: Task) => K | undefined): Map<K, Task[]> => {
  const groups = new Map<K, Task[]>();
  for (const task of tasks) {
    const k = key(task);
    if (k === undefined || d.plan.desiredOf(task) >= TaskState.REMOVE) continue;
    const list = groups.get(k);
    if (list) list.push(task);
    else groups.set(k, [task]);
  }
  return groups;
};
