/**
 * Dirty tasks: a task whose spec is not its service's current task spec must be replaced
 * by a rolling update. The spec decides, not the version: scaling bumps the version and
 * changes nothing a task runs.
 */
import type { Task } from '@shoal/contracts';
import { canonicalJson } from '../../hash/canonical';
import type { Service } from '../../state';

/** True when the task runs another spec than its service's current one. */
export const isTaskDirty = (service: Service, task: Task): boolean => {
  if (task.specVersion === service.version) return false;
  return canonicalJson(task.spec) !== canonicalJson(service.spec.task);
};
