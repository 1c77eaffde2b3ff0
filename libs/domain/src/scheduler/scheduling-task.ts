/**
 * A task as the scheduler sees it: what it reserves, the host ports it publishes, the
 * plugins it needs. Worked out once per task, from the task and the state it came from.
 */
import type { GenericResource, PluginDescription, PortConfig, Task } from '@shoal/contracts';
import { networkOf } from '../state';
import type { ClusterState } from '../state';

export interface SchedulingTask {
  readonly id: string;
  readonly serviceId: string;
  readonly specVersion: number;
  /** The task as the state has it now (kept current by `rescheduled`). */
  task: Task;
  readonly nanoCpus: number;
  readonly memoryBytes: number;
  readonly generic: readonly GenericResource[];
  /** "tcp/8080": published in host mode on whatever node runs the task. */
  readonly hostPorts: readonly string[];
  /** Plugins a node must have (network drivers of the task's networks). */
  readonly plugins: readonly PluginDescription[];
}

/** "tcp/8080" for each port published in host mode with a fixed published port. */
export const hostPortKeys = (ports: readonly PortConfig[] | undefined): string[] =>
  (ports ?? [])
    .filter((p) => p.publishMode === 'host' && p.publishedPort !== undefined && p.publishedPort !== 0)
    .map((p) => `${p.protocol}/${p.publishedPort as number}`);

/** The host-mode ports a task holds: its own (allocated) ports, else its service's. */
export const taskHostPorts = (task: Task, state: ClusterState): string[] =>
  hostPortKeys(task.ports ?? state.services.get(task.serviceId)?.spec.endpoint?.ports);

const networkPlugins = (task: Task, state: ClusterState): PluginDescription[] => {
  const out: PluginDescription[] = [];
  for (const attachment of task.spec.networks ?? []) {
    const driver = networkOf(state, attachment.target)?.spec.driver;
    if (driver && !out.some((p) => p.name === driver)) out.push({ type: 'Network', name: driver });
  }
  return out;
};

export const schedulingTask = (task: Task, state: ClusterState): SchedulingTask => {
  const wants = task.spec.resources?.reservations;
  return {
    id: task.id,
    serviceId: task.serviceId,
    specVersion: task.specVersion,
    task,
    nanoCpus: wants?.nanoCpus ?? 0,
    memoryBytes: wants?.memoryBytes ?? 0,
    generic: wants?.generic ?? [],
    hostPorts: taskHostPorts(task, state),
    plugins: task.spec.networks && task.spec.networks.length > 0 ? networkPlugins(task, state) : [],
  };
};

/**
 * `known` brought up to date with a newer version of its task. What the scheduler worked
 * out from the task depends on its spec and ports only: while those are the same objects
 * (a status report, an assignment) it is kept, and only the task it points to moves on.
 */
export const rescheduled = (known: SchedulingTask, task: Task, state: ClusterState): SchedulingTask => {
  if (known.task === task) return known;
  if (known.task.spec !== task.spec || known.task.ports !== task.ports) return schedulingTask(task, state);
  known.task = task;
  return known;
};
