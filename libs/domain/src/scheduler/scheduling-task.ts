/**
 * A task as the scheduler sees it: the task itself and its demand — what it reserves, the
 * host ports it publishes, the plugins it needs — worked out once from the task and the
 * state it came from. Tasks that ask only CPU and memory share one demand per amount
 * (`Demands`), so that a task the scheduler keeps costs it one small record.
 */
import type { GenericResource, PluginDescription, PortConfig, Task } from '@shoal/contracts';
import { networkOf } from '../state';
import type { ClusterState } from '../state';
import { isNamed } from './generic-resources';

/** What a task asks of the node that runs it. */
export interface Demand {
  readonly nanoCpus: number;
  readonly memoryBytes: number;
  readonly generic: readonly GenericResource[];
  /** "tcp/8080": published in host mode on whatever node runs the task. */
  readonly hostPorts: readonly string[];
  /** Plugins a node must have (network drivers of the task's networks). */
  readonly plugins: readonly PluginDescription[];
}

export interface SchedulingTask {
  /** The task as the state has it now. */
  readonly task: Task;
  readonly demand: Demand;
}

const NONE: readonly never[] = Object.freeze([]);

/** Distinct plain demands kept for sharing; past this many, a new amount gets a demand of its own. */
const SHARED_MAX = 4_096;

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

const sameList = <T>(a: readonly T[], b: readonly T[], same: (x: T, y: T) => boolean): boolean =>
  a === b || (a.length === b.length && a.every((x, i) => same(x, b[i] as T)));

const sameResource = (x: GenericResource, y: GenericResource): boolean =>
  x.kind === y.kind && (isNamed(x) ? isNamed(y) && x.named === y.named : !isNamed(y) && x.discrete === y.discrete);

const sameDemand = (a: Demand, b: Demand): boolean =>
  a === b ||
  (a.nanoCpus === b.nanoCpus &&
    a.memoryBytes === b.memoryBytes &&
    sameList(a.hostPorts, b.hostPorts, (x, y) => x === y) &&
    sameList(a.plugins, b.plugins, (x, y) => x.type === y.type && x.name === y.name) &&
    sameList(a.generic, b.generic, sameResource));

/** The demands of tasks: worked out from each task, those of CPU and memory only shared by amount. */
export class Demands {
  /** nanoCpus → memoryBytes → the demand of that much and nothing else. */
  private readonly plain = new Map<number, Map<number, Demand>>();
  private shared = 0;

  of(task: Task, state: ClusterState): Demand {
    const wants = task.spec.resources?.reservations;
    const nanoCpus = wants?.nanoCpus ?? 0;
    const memoryBytes = wants?.memoryBytes ?? 0;
    const generic = wants?.generic ?? NONE;
    const hostPorts = taskHostPorts(task, state);
    const plugins = task.spec.networks && task.spec.networks.length > 0 ? networkPlugins(task, state) : NONE;
    if (generic.length > 0 || hostPorts.length > 0 || plugins.length > 0) return { nanoCpus, memoryBytes, generic, hostPorts, plugins };
    let byMemory = this.plain.get(nanoCpus);
    const known = byMemory?.get(memoryBytes);
    if (known) return known;
    const demand: Demand = { nanoCpus, memoryBytes, generic: NONE, hostPorts: NONE, plugins: NONE };
    if (this.shared >= SHARED_MAX) return demand;
    if (!byMemory) this.plain.set(nanoCpus, (byMemory = new Map()));
    byMemory.set(memoryBytes, demand);
    this.shared++;
    return demand;
  }

  /**
   * The demand of `task`, a newer version of `known`'s: `known.demand` itself unless the
   * task asks for something else. It depends on the task's spec and ports only, and while
   * those are the same objects (a status report, an assignment) it is not worked out again.
   */
  again(known: SchedulingTask, task: Task, state: ClusterState): Demand {
    if (known.task.spec === task.spec && known.task.ports === task.ports) return known.demand;
    const demand = this.of(task, state);
    return sameDemand(demand, known.demand) ? known.demand : demand;
  }

  clear(): void {
    this.plain.clear();
    this.shared = 0;
  }
}
