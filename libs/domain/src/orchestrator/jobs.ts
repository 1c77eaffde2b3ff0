/**
 * Jobs run to completion. A replicated job keeps at most `maxConcurrent` tasks going
 * until `totalCompletions` have completed; a global job runs one task to completion on
 * every eligible node. A completed task is never run again; a failed one is restarted by
 * its policy. Each update of a job starts a new iteration (Service.jobIteration): tasks of
 * older iterations still running are removed, and the count starts over.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { Service } from '../state';
import type { Decision } from './decision';
import { reconcileByNode } from './global';
import { isRunnable } from './plan';
import { newTaskFor } from './restart-supervisor';
import { groupBy, holders } from './slots';

const iterationOf = (service: Service): number => service.jobIteration ?? 0;

/** Tasks of an earlier iteration: those still running are removed, the others stood down. */
const retireOldIterations = (d: Decision, service: Service, tasks: readonly Task[]): void => {
  const iteration = iterationOf(service);
  for (const task of tasks) {
    if ((task.jobIteration ?? 0) === iteration || !isRunnable(d.plan.desiredOf(task))) continue;
    if (task.status.state <= TaskState.RUNNING) d.plan.setDesired(task, TaskState.REMOVE, `job iteration ${iteration} replaces it`);
    else d.plan.setDesired(task, TaskState.SHUTDOWN, `job iteration ${iteration} replaces it`);
  }
};

/** A task of the job that ended without completing and is still meant to run: restart it. */
const restartFailed = (d: Decision, service: Service, tasks: readonly Task[]): void => {
  for (const task of tasks) {
    if (task.status.state > TaskState.COMPLETE && isRunnable(d.plan.desiredOf(task))) {
      d.restarts.restart(d, task, service, `task ${task.id} failed`);
    }
  }
};

export const reconcileReplicatedJob = (d: Decision, service: Service, maxConcurrent: number, totalCompletions: number): void => {
  const all = d.tasksOf(service.id);
  retireOldIterations(d, service, all);
  const current = all.filter((task) => (task.jobIteration ?? 0) === iterationOf(service));
  restartFailed(d, service, current);

  let complete = 0;
  let active = 0;
  let failed = 0;
  const used = new Set<number>();
  for (const [slot, tasks] of groupBy(d, current, (task) => task.slot)) {
    if (tasks.some((task) => task.status.state === TaskState.COMPLETE)) {
      complete++;
      used.add(slot);
      continue;
    }
    const holding = holders(d, tasks, service);
    if (holding.length === 0) continue;
    used.add(slot);
    if (holding.some((task) => isRunnable(d.plan.desiredOf(task)))) active++;
    else failed++;
  }
  for (const task of d.plan.createdFor(service.id)) {
    if (task.slot !== undefined && !used.has(task.slot)) {
      used.add(task.slot);
      active++;
    }
  }

  const wanted = Math.min(maxConcurrent - active, totalCompletions - complete - active - failed);
  let slot = 0;
  for (let i = 0; i < wanted; i++) {
    do slot++;
    while (used.has(slot));
    d.plan.create(newTaskFor(d.newId(), service, { slot }));
  }
};

export const reconcileGlobalJob = (d: Decision, service: Service): void => {
  const all = d.tasksOf(service.id);
  retireOldIterations(d, service, all);
  const current = (task: Task): boolean => (task.jobIteration ?? 0) === iterationOf(service);
  restartFailed(d, service, all.filter(current));
  reconcileByNode(d, service, current);
};
