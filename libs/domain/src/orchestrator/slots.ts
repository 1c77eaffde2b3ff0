/**
 * Slots, as the orchestrator sees them: a slot (replicated) or a node (global) is held
 * while one of its tasks is runnable (desired RUNNING or before), or while its newest
 * task has ended for good — its restart policy will not replace it. Otherwise it is dead
 * and may be filled again. Tasks being removed (desired REMOVE) hold nothing.
 */
import { TaskState } from '@shoal/contracts';
import type { Task, TaskState as State } from '@shoal/contracts';
import type { Service } from '../state';
import type { RestartHistory } from './restart-history';
import { shouldRestart } from './restart-policy';
import type { PlannedView } from './wants';

/** Meant to run (or to start soon): the task counts for its slot. */
export const isRunnable = (desired: State): boolean => desired <= TaskState.RUNNING;

/** Newest by status time, then id, so the choice is the same in every process. */
export const newest = (tasks: readonly Task[]): Task | undefined => {
  let best: Task | undefined;
  for (const task of tasks) {
    if (!best || task.status.at > best.status.at || (task.status.at === best.status.at && task.id > best.id)) best = task;
  }
  return best;
};

/** The tasks that hold the slot, with what is planned (`planned`); empty when it is dead. */
export const holders = (planned: PlannedView, history: RestartHistory, tasks: readonly Task[], service: Service): Task[] => {
  const runnable = tasks.filter((task) => isRunnable(planned.desiredOf(task)));
  if (runnable.length > 0) return runnable;
  if (service.updateStatus?.state === 'rollback_started') return [];
  const last = newest(tasks);
  return last && !shouldRestart(last, service, history) ? [last] : [];
};

/** Groups a service's tasks that are not being removed by `key`. */
export const groupBy = <K>(planned: PlannedView, tasks: readonly Task[], key: (task: Task) => K | undefined): Map<K, Task[]> => {
  const groups = new Map<K, Task[]>();
  for (const task of tasks) {
    const k = key(task);
    if (k === undefined || planned.desiredOf(task) >= TaskState.REMOVE) continue;
    const list = groups.get(k);
    if (list) list.push(task);
    else groups.set(k, [task]);
  }
  return groups;
};
