/**
 * Whether a task that stopped should be replaced, by its restart policy: the condition
 * (none, on-failure, any — and a job's completed task is never run again) and at most
 * `maxAttempts` restarts of its slot within `windowMs` (0: ever), counted from the log.
 */
import { DEFAULT_RESTART_POLICY, TaskState, isJob } from '@shoal/contracts';
import type { RestartPolicy, Task, TaskSpec } from '@shoal/contracts';
import type { Service } from '../state';
import { slotKey } from '../reaper/slots';
import type { RestartHistory } from './restart-history';

export const restartPolicyOf = (spec: TaskSpec): RestartPolicy => spec.restartPolicy ?? DEFAULT_RESTART_POLICY;

/** The condition alone: would this task's end be answered with a new task? */
export const conditionAllowsRestart = (task: Task, service: Service): boolean => {
  const { condition } = restartPolicyOf(task.spec);
  const completed = task.status.state === TaskState.COMPLETE;
  switch (condition) {
    case 'none':
      return false;
    case 'on-failure':
      return !completed;
    case 'any':
      return !(completed && isJob(service.spec.mode));
    default: {
      const _exhaustive: never = condition;
      return _exhaustive;
    }
  }
};

/** How many restarts of the task's slot count against it now (its spec version, its window). */
export const restartAttempts = (task: Task, history: RestartHistory): number => {
  const key = slotKey(task);
  if (key === undefined) return 0;
  const { windowMs } = restartPolicyOf(task.spec);
  const endedAt = Date.parse(task.status.at);
  return history.attempts(key, task.specVersion, endedAt, Number.isNaN(endedAt) ? 0 : windowMs);
};

export const shouldRestart = (task: Task, service: Service, history: RestartHistory): boolean => {
  if (!conditionAllowsRestart(task, service)) return false;
  const { maxAttempts } = restartPolicyOf(task.spec);
  return maxAttempts <= 0 || restartAttempts(task, history) < maxAttempts;
};
