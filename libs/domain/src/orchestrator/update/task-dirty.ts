/**
 * Dirty tasks: a task whose spec is not its service's current task spec must be replaced
 * by a rolling update. The spec decides, not the version: scaling bumps the version and
 * changes nothing a task runs. As in SwarmKit, a change of placement constraints alone
 * leaves a task where it is when its node meets the new constraints, and a change of the
 * service's published ports makes every task given the old ones dirty.
 */
import { TaskState } from '@shoal/contracts';
import type { PortConfig, Task, TaskSpec } from '@shoal/contracts';
import { canonicalJson } from '../../hash/canonical';
import type { Node, Service } from '../../state';
import { constraintsOf, meetsConstraints } from '../../constraints';

/** True when the task runs another spec than its service's current one (given its node, if placed). */
export const isTaskDirty = (service: Service, task: Task, node?: Node): boolean => specDirtiness(service)(task, node);

/**
 * The dirtiness test against one service's spec, its canonical forms made once: a task
 * spec is serialized once per spec object however many tasks share it or tests ask.
 */
const specDirtiness = (service: Service): ((task: Task, node?: Node) => boolean) => {
  const wanted = service.spec.task;
  let wantedJson: string | undefined;
  let wantedLoose: string | undefined;
  const json = new Map<TaskSpec, string>();
  const loose = new Map<TaskSpec, string>();
  const cached = (cache: Map<TaskSpec, string>, spec: TaskSpec, make: (spec: TaskSpec) => string): string => {
    let out = cache.get(spec);
    if (out === undefined) {
      out = make(spec);
      cache.set(spec, out);
    }
    return out;
  };
  const looseJson = (spec: TaskSpec): string => canonicalJson(withoutConstraints(spec));
  const wantedPorts = service.spec.endpoint?.ports ?? [];
  return (task, node) => {
    if (task.specVersion === service.version) return false;
    if (portsDiffer(task, wantedPorts)) return true;
    wantedJson ??= canonicalJson(wanted);
    if (cached(json, task.spec, canonicalJson) === wantedJson) return false;
    if (!node) return true;
    wantedLoose ??= looseJson(wanted);
    if (cached(loose, task.spec, looseJson) !== wantedLoose) return true;
    return !meets(wanted.placement?.constraints ?? [], node);
  };
};

/**
 * The task was given other published ports than the service asks for now. A task not yet
 * allocated (NEW) has been given none: it gets the current ones. A port asked for without
 * a published port matches whatever port the allocator picked for it.
 */
const portsDiffer = (task: Task, wanted: readonly PortConfig[]): boolean => {
  if (task.status.state < TaskState.PENDING) return false;
  const given = task.ports ?? [];
  if (given.length !== wanted.length) return true;
  return wanted.some((port, i) => !samePort(port, given[i]!));
};

const samePort = (wanted: PortConfig, given: PortConfig): boolean =>
  wanted.protocol === given.protocol &&
  wanted.targetPort === given.targetPort &&
  wanted.publishMode === given.publishMode &&
  wanted.name === given.name &&
  (wanted.publishedPort === undefined || wanted.publishedPort === given.publishedPort);

/** The node meets every constraint; one that does not parse is met by no node. */
const meets = (expressions: readonly string[], node: Node): boolean => meetsConstraints(constraintsOf(expressions), node);

/** A dirtiness test for the tasks of one service, looking their nodes up in `nodes`; each task is judged once. */
export const dirtiness = (service: Service, nodes: ReadonlyMap<string, Node>): IsDirty => {
  const test = specDirtiness(service);
  const seen = new Map<Task, boolean>();
  return (task) => {
    let dirty = seen.get(task);
    if (dirty === undefined) {
      dirty = test(task, task.nodeId === undefined ? undefined : nodes.get(task.nodeId));
      seen.set(task, dirty);
    }
    return dirty;
  };
};

export type IsDirty = (task: Task) => boolean;

const withoutConstraints = (spec: TaskSpec): TaskSpec => ({ ...spec, placement: { ...spec.placement, constraints: [] } });
