/**
 * Assignments: what a node's agent is told to run. A stream starts with the COMPLETE set
 * (every task assigned to the node, ASSIGNED or later) and goes on with INCREMENTAL
 * changes: a task newly assigned, a changed desired state, a task gone from the store.
 * As in SwarmKit, a change of observed state alone is not sent: the agent made it. The
 * configs the tasks use travel with them (`NodeConfigs`): in the set, every config a task
 * in it uses; in the changes, a config added with the first task sent that uses it and
 * removed with the last.
 */
import type { AssignedNetwork, PortConfig, TaskSpec, TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';
import { NodeConfigs } from './node-configs';
import type { AssignedConfig, ConfigChange } from './node-configs';

// The package exports this file: the configs' shapes are part of what it answers.
export type { AssignedConfig, ConfigChange } from './node-configs';

export interface Assignment {
  readonly taskId: string;
  readonly serviceId: string;
  readonly serviceName: string;
  readonly slot?: number;
  readonly desiredState: TaskState;
  readonly observedState: TaskState;
  readonly spec: TaskSpec;
  /** The ports published for the task's service (the allocator's), for an executor that publishes them on its node. */
  readonly ports?: readonly PortConfig[];
  /** The networks the allocator attached the task to, with its addresses on each, for an executor that makes them real on its node. */
  readonly networks?: readonly AssignedNetwork[];
}

export type AssignmentChange =
  | { readonly action: 'update'; readonly assignment: Assignment }
  | { readonly action: 'remove'; readonly taskId: string };

/**
 * The task's attachments with their networks' names, settings, subnets and gateways, and
 * its service's virtual IP on each (an attachment to a network the state no longer has, or
 * not yet allocated, is left out).
 */
const assignedNetworks = (state: ClusterState, task: Task): AssignedNetwork[] =>
  (task.attachments ?? []).flatMap((attachment) => {
    const network = state.networks.get(attachment.network);
    if (network?.subnet === undefined || network.gateway === undefined) return [];
    const virtualIp = state.services.get(task.serviceId)?.endpoint?.virtualIps.find((vip) => vip.network === network.id)?.address;
    return [
      {
        id: network.id,
        name: network.spec.name,
        subnet: network.subnet,
        gateway: network.gateway,
        addresses: [...attachment.addresses],
        ...(network.spec.ingress ? { ingress: true } : {}),
        ...(network.spec.internal ? { internal: true } : {}),
        ...(network.spec.attachable ? { attachable: true } : {}),
        ...(virtualIp === undefined ? {} : { virtualIp }),
      },
    ];
  });

export const assignmentOf = (state: ClusterState, task: Task): Assignment => {
  const service = state.services.get(task.serviceId);
  const ports = task.ports ?? service?.endpoint?.ports ?? [];
  const networks = assignedNetworks(state, task);
  return {
    taskId: task.id,
    serviceId: task.serviceId,
    serviceName: service?.spec.name ?? '',
    ...(task.slot === undefined ? {} : { slot: task.slot }),
    desiredState: task.desiredState,
    observedState: task.status.state,
    spec: task.spec,
    ...(ports.length > 0 ? { ports } : {}),
    ...(networks.length > 0 ? { networks } : {}),
  };
};

/** The COMPLETE set: the node's tasks and every config they use. */
export interface AssignmentSet {
  readonly tasks: readonly Assignment[];
  readonly configs: readonly AssignedConfig[];
}

/** What changed since the last set or changes: the tasks' changes, and the configs added or removed with them. */
export interface AssignmentChanges {
  readonly tasks: readonly AssignmentChange[];
  readonly configs: readonly ConfigChange[];
}

export const noChanges = (changes: AssignmentChanges): boolean => changes.tasks.length === 0 && changes.configs.length === 0;

/** What one stream has told its agent: task id → the desired state it was sent with, and the configs sent. */
export class AssignmentTracker {
  private readonly sent = new Map<string, TaskState>();
  private readonly configs = new NodeConfigs();

  /** The whole set, remembered as sent. */
  complete(state: ClusterState, taskIds: Iterable<string>): AssignmentSet {
    this.sent.clear();
    this.configs.clear();
    const tasks: Assignment[] = [];
    const configs: ConfigChange[] = [];
    for (const id of taskIds) {
      const task = state.tasks.get(id);
      if (!task) continue;
      tasks.push(assignmentOf(state, task));
      this.sent.set(id, task.desiredState);
      this.configs.taskSent(state, task, configs);
    }
    // A set starts from nothing: it only adds.
    return { tasks, configs: configs.flatMap((change) => (change.action === 'update' ? [change.config] : [])) };
  }

  /** What changed since the last set or changes, remembered as sent. */
  changes(state: ClusterState, taskIds: ReadonlySet<string>): AssignmentChanges {
    const tasks: AssignmentChange[] = [];
    const configs: ConfigChange[] = [];
    for (const id of taskIds) {
      const task = state.tasks.get(id);
      if (!task) continue;
      this.update(state, task, tasks, configs);
    }
    for (const id of [...this.sent.keys()]) {
      if (taskIds.has(id) && state.tasks.has(id)) continue;
      this.remove(id, tasks, configs);
    }
    return { tasks, configs };
  }

  /**
   * What changed among `touched` — the tasks that may have changed since the last set or
   * changes — given the tasks the node holds now; remembered as sent. The same answer as
   * `changes` when `touched` names every task that changed, at the cost of those alone.
   * Removals come after updates, as there: a config a replaced task and its replacement
   * both use stays on the node rather than going and coming back.
   */
  changesOf(state: ClusterState, held: ReadonlySet<string>, touched: Iterable<string>): AssignmentChanges {
    const tasks: AssignmentChange[] = [];
    const configs: ConfigChange[] = [];
    const gone: string[] = [];
    for (const id of touched) {
      const task = held.has(id) ? state.tasks.get(id) : undefined;
      if (task) this.update(state, task, tasks, configs);
      else if (this.sent.has(id)) gone.push(id);
    }
    for (const id of gone) if (this.sent.has(id)) this.remove(id, tasks, configs);
    return { tasks, configs };
  }

  get size(): number {
    return this.sent.size;
  }

  /** The configs the node has been sent and keeps, by id. */
  configsSent(): ReadonlySet<string> {
    return this.configs.sent();
  }

  private update(state: ClusterState, task: Task, tasks: AssignmentChange[], configs: ConfigChange[]): void {
    const before = this.sent.get(task.id);
    if (before === task.desiredState) return;
    tasks.push({ action: 'update', assignment: assignmentOf(state, task) });
    this.sent.set(task.id, task.desiredState);
    // A task's spec never changes: its configs go with it the first time it is sent.
    if (before === undefined) this.configs.taskSent(state, task, configs);
  }

  private remove(taskId: string, tasks: AssignmentChange[], configs: ConfigChange[]): void {
    this.sent.delete(taskId);
    tasks.push({ action: 'remove', taskId });
    this.configs.taskRemoved(taskId, configs);
  }
}
