/**
 * When a restart's replacement may start. It is created to wait (desired READY): for the
 * restart delay of its policy to pass — none when the task it replaces was on a drained
 * node, which is being emptied, not failing — and for the task it replaces to stop, at
 * most until the old-task timeout. The orchestrator starts it by these times; the audit's
 * explanation quotes them.
 */
import type { Task } from '@shoal/contracts';
import { TaskState } from '@shoal/contracts';
import type { Node } from '../state';
import { restartPolicyOf } from './restart-policy';

/** How long a replacement waits for the task it replaces to stop, at most (SwarmKit's old-task timeout). */
export const OLD_TASK_TIMEOUT_MS = 60_000;

/** On a node and not yet stopped. */
export const mayBeRunning = (task: Task): boolean => task.status.state >= TaskState.ASSIGNED && task.status.state <= TaskState.RUNNING;

/** The restart delay a replacement waits out (ms), given the node of the task it replaces when that is known. */
export const restartDelayOf = (replacement: Pick<Task, 'spec'>, oldNode?: Node): number =>
  oldNode?.spec.availability === 'drain' ? 0 : restartPolicyOf(replacement.spec).delayMs;

/** Not before this (ms since the epoch): the restart delay after the replacement was created. */
export const replacementStartsAt = (replacement: Pick<Task, 'spec' | 'createdAt'>, oldNode?: Node): number =>
  Date.parse(replacement.createdAt) + restartDelayOf(replacement, oldNode);

/** From this time (ms since the epoch) the replacement no longer waits for the task it replaces to stop. */
export const oldTaskGivenUpAt = (replacement: Pick<Task, 'createdAt'>): number => Date.parse(replacement.createdAt) + OLD_TASK_TIMEOUT_MS;
