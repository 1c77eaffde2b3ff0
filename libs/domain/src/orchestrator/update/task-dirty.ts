/**
 * Dirty tasks: a task whose spec is not its service's current task spec must be replaced
 * by a rolling update. The spec decides, not the version: scaling bumps the version and
 * changes nothing a task runs. As in SwarmKit, a change of placement constraints alone
 * leaves a task where it is when its node meets the new constraints.
 */
import type { Task, TaskSpec } from '@shoal/contracts';
import { canonicalJson } from '../../hash/canonical';
import type { Node, Service } from '../../state';
import { matchesConstraints, parseConstraints } from '../../scheduler/constraint';

/** True when the task runs another spec than its service's current one (given its node, if placed). */
export const isTaskDirty = (service: Service, task: Task, node?: Node): boolean => {
  if (task.specVersion === service.version) return false;
  const wanted = service.spec.task;
  if (canonicalJson(task.spec) === canonicalJson(wanted)) return false;
  if (node && canonicalJson(withoutConstraints(task.spec)) === canonicalJson(withoutConstraints(wanted))) {
    return !meets(wanted.placement?.constraints ?? [], node);
  }
  return true;
};

/** The node meets every constraint; one that does not parse is met by no node. */
const meets = (expressions: readonly string[], node: Node): boolean => {
  try {
    return matchesConstraints(node, parseConstraints(expressions));
  } catch {
    return false;
  }
};

/** A dirtiness test for the tasks of one service, looking their nodes up in `nodes`. */
export const dirtiness =
  (service: Service, nodes: ReadonlyMap<string, Node>) =>
  (task: Task): boolean =>
    isTaskDirty(service, task, task.nodeId === undefined ? undefined : nodes.get(task.nodeId));

export type IsDirty = (task: Task) => boolean;

const withoutConstraints = (spec: TaskSpec): TaskSpec => ({ ...spec, placement: { ...spec.placement, constraints: [] } });
