/**
 * The difference between the cluster at two points of the log: the services, tasks and
 * nodes added, removed, and changed (each field that differs, from → to). Pure: the two
 * states come from replays.
 */
import { taskStateName } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState, Node, Service } from '@shoal/domain';
import type { ConsoleDiff, EntityChange, EntityRef, KindDiff } from './console-wire';

/** The fields of an entity that the diff compares, as a person reads them. */
type Facts = Readonly<Record<string, string>>;

export interface DiffPoint {
  readonly position: number;
  readonly at?: string;
}

const modeOf = (service: Service): string => {
  const mode = service.spec.mode;
  switch (mode.kind) {
    case 'replicated':
      return `replicated ×${mode.replicas}`;
    case 'replicated-job':
      return `replicated-job ×${mode.totalCompletions} (${mode.maxConcurrent} at once)`;
    case 'global':
    case 'global-job':
      return mode.kind;
    default: {
      const _exhaustive: never = mode;
      return String(_exhaustive);
    }
  }
};

const serviceFacts = (service: Service): Facts => ({
  name: service.spec.name,
  image: service.spec.task.container.image,
  mode: modeOf(service),
  version: String(service.version),
  update: service.updateStatus?.state ?? '',
});

const taskFacts = (task: Task): Facts => ({
  state: taskStateName(task.status.state),
  desired: taskStateName(task.desiredState),
  node: task.nodeId ?? '',
});

const nodeFacts = (node: Node): Facts => ({
  hostname: node.spec.name ?? node.description.hostname,
  role: node.spec.role,
  status: node.status.state,
  availability: node.spec.availability,
});

/** `web.2` for a replicated task, `web.<node>` for a global one, as Docker names them. */
const taskName = (task: Task, state: ClusterState): string =>
  `${state.services.get(task.serviceId)?.spec.name ?? task.serviceId}.${task.slot ?? task.nodeId ?? task.id}`;

const diffKind = <T extends { readonly id: string }>(
  before: ReadonlyMap<string, T>,
  after: ReadonlyMap<string, T>,
  facts: (entity: T) => Facts,
  nameBefore: (entity: T) => string,
  nameAfter: (entity: T) => string,
): KindDiff => {
  const added: EntityRef[] = [];
  const removed: EntityRef[] = [];
  const changed: EntityChange[] = [];
  for (const [id, entity] of before) if (!after.has(id)) removed.push({ id, name: nameBefore(entity) });
  for (const [id, entity] of after) {
    const old = before.get(id);
    if (!old) {
      added.push({ id, name: nameAfter(entity) });
      continue;
    }
    const was = facts(old);
    const is = facts(entity);
    const changes = Object.keys(is)
      .filter((field) => was[field] !== is[field])
      .map((field) => ({ field, from: was[field] ?? '', to: is[field] ?? '' }));
    if (changes.length > 0) changed.push({ id, name: nameAfter(entity), changes });
  }
  return { added, removed, changed };
};

/** What differs between `before` (at `from`) and `after` (at `to`). */
export const consoleDiff = (before: ClusterState, after: ClusterState, from: DiffPoint, to: DiffPoint): ConsoleDiff => ({
  from,
  to,
  services: diffKind(before.services, after.services, serviceFacts, (s) => s.spec.name, (s) => s.spec.name),
  tasks: diffKind(before.tasks, after.tasks, taskFacts, (t) => taskName(t, before), (t) => taskName(t, after)),
  nodes: diffKind(before.nodes, after.nodes, nodeFacts, (n) => nodeFacts(n).hostname!, (n) => nodeFacts(n).hostname!),
});
