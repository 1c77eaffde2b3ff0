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
import type { DecisionContext } from './decision-context';
import { reconcileByNode } from './global';
import { newTaskFor } from './new-task';
import { restartTask } from './restart-supervisor';
import { groupBy, holders, isRunnable } from './slots';
import { Wants } from './wants';

const iterationOf = (service: Service): number => service.jobIteration ?? 0;

/** Tasks of an earlier iteration: those still running are removed, the others stood down. */
const retireOldIterations = (wants: Wants, service: Service, tasks: readonly Task[]): void => {
  const iteration = iterationOf(service);
  for (const task of tasks) {
    if ((task.jobIteration ?? 0) === iteration || !isRunnable(wants.desiredOf(task))) continue;
    if (task.status.state <= TaskState.RUNNING) wants.setDesired(task, TaskState.REMOVE, `job iteration ${iteration} replaces it`);
    else wants.setDesired(task, TaskState.SHUTDOWN, `job iteration ${iteration} replaces it`);
  }
};

/** A task of the job that ended without completing and is still meant to run: restart it. */
const restartFailed = (ctx: DecisionContext, wants: Wants, service: Service, tasks: readonly Task[]): void => {
  for (const task of tasks) {
    if (task.status.state > TaskState.COMPLETE && isRunnable(wants.desiredOf(task))) {
      restartTask(ctx, wants, task, service, `task ${task.id} failed`);
    }
  }
};

export const reconcileReplicatedJob = (ctx: DecisionContext, service: Service, maxConcurrent: number, totalCompletions: number): Wants => {
  const wants = new Wants(ctx.planned);
  const all = ctx.tasksOf(service.id);
  retireOldIterations(wants, service, all);
  const current = all.filter((task) => (task.jobIteration ?? 0) === iterationOf(service));
  restartFailed(ctx, wants, service, current);

  let complete = 0;
  let active = 0;
  let failed = 0;
  const used = new Set<number>();
  for (const [slot, tasks] of groupBy(wants, current, (task) => task.slot)) {
    if (tasks.some((task) => task.status.state === TaskState.COMPLETE)) {
      complete++;
      used.add(slot);
      continue;
    }
    const holding = holders(wants, ctx.restarts.history, tasks, service);
    if (holding.length === 0) continue;
    used.add(slot);
    if (holding.some((task) => isRunnable(wants.desiredOf(task)))) active++;
    else failed++;
  }
  for (const task of wants.createdFor(service.id)) {
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
    wants.create(newTaskFor(ctx.newId(), service, { slot }));
  }
  return wants;
};

export const reconcileGlobalJob = (ctx: DecisionContext, service: Service): Wants => {
  const wants = new Wants(ctx.planned);
  const all = ctx.tasksOf(service.id);
  retireOldIterations(wants, service, all);
  const current = (task: Task): boolean => (task.jobIteration ?? 0) === iterationOf(service);
  restartFailed(ctx, wants, service, all.filter(current));
  reconcileByNode(ctx, wants, service, current);
  return wants;
};
