/**
 * Update progress, read back from the state alone: which tasks this update created (clean
 * tasks of the current version that replace a dirty one), which of them failed
 * inside their monitor window, and which slots are still busy — waiting for their new task
 * to start, or waiting out the delay after it did. Nothing is remembered between calls,
 * so the same state gives the same progress after a restart of the orchestrator.
 */
import { TaskState } from '@shoal/contracts';
import type { Task, UpdateConfig } from '@shoal/contracts';
import type { Service } from '../../state';
import type { IsDirty } from './task-dirty';
import { slotKeyOf } from './update-slots';

const ms = (iso: string): number => Date.parse(iso);

/**
 * The tasks this update created: clean tasks of the service's current version that replace
 * a dirty one. Every spec change is a new version and a new update, so the version (which
 * the log orders) tells this update's tasks apart, whatever the writers' clocks say.
 */
export const tasksOfUpdate = (dirty: IsDirty, tasks: readonly Task[], version: number): Task[] => {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  return tasks.filter((task) => {
    if (task.replaces === undefined || task.specVersion !== version || dirty(task)) return false;
    const replaced = byId.get(task.replaces);
    return replaced === undefined || dirty(replaced);
  });
};

/** It stopped without being asked to: failed, rejected, orphaned, exited or shut down on its own. */
export const endedBadly = (task: Task): boolean => {
  const state = task.status.state;
  if (state <= TaskState.RUNNING) return false;
  if (state === TaskState.SHUTDOWN) return task.desiredState <= TaskState.RUNNING;
  return true;
};

/** A failure the failure action counts: it never ran, or it ended within the monitor period of starting. */
export const failedWhileMonitored = (task: Task, monitorMs: number): boolean =>
  endedBadly(task) && (task.startedAt === undefined || ms(task.status.at) - ms(task.startedAt) <= monitorMs);

/** When the updater was done waiting for this task: it reached RUNNING, or it ended first. */
export const settledAt = (task: Task): number | undefined => {
  if (task.startedAt !== undefined) return ms(task.startedAt);
  if (task.status.state >= TaskState.RUNNING) return ms(task.status.at);
  return undefined;
};

export interface Busy {
  /** Slots with a worker on them: a new task not yet started, or the delay after it not yet over. */
  readonly slots: ReadonlySet<string>;
  /** When the earliest of those delays ends, ms since the epoch. */
  readonly freeAt?: number;
  /** When every task of the update has settled and waited out the delay: the monitor period starts. */
  readonly lastSettledAt?: number;
  /** Some task of the update has not settled yet. */
  readonly waiting: boolean;
}

export const busySlots = (service: Service, mine: readonly Task[], config: UpdateConfig, now: number): Busy => {
  const slots = new Set<string>();
  let freeAt: number | undefined;
  let lastSettledAt: number | undefined;
  let waiting = false;
  for (const task of mine) {
    const key = slotKeyOf(service, task);
    const settled = settledAt(task);
    if (settled === undefined) {
      if (task.desiredState <= TaskState.RUNNING) {
        waiting = true;
        if (key !== undefined) slots.add(key);
      }
      continue;
    }
    const free = settled + config.delayMs;
    lastSettledAt = Math.max(lastSettledAt ?? free, free);
    if (free > now) {
      if (key !== undefined) slots.add(key);
      freeAt = Math.min(freeAt ?? free, free);
    }
  }
  return { slots, waiting, ...(freeAt === undefined ? {} : { freeAt }), ...(lastSettledAt === undefined ? {} : { lastSettledAt }) };
};
