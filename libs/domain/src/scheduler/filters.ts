/**
 * The filters a node must pass to take a task, after SwarmKit's: each is told the task
 * once (`setTask`, false when it does not apply to this task), then checks candidate nodes
 * (`check`), and says what a failure on some number of nodes means (`explain`).
 */
import type { PluginDescription, Platform } from '@shoal/contracts';
import { constraintsOf, meetsConstraints } from '../constraints';
import type { Constraint } from '../constraints';
import { hasEnough } from './generic-resources';
import type { NodeInfo } from './node-info';
import type { Demand, SchedulingTask } from './scheduling-task';

export interface Filter {
  readonly name: string;
  /**
   * Whether a node's answer changes as tasks are placed on it (its free resources, host
   * ports, replicas); a filter that does not vary looks at the node's description, spec
   * and status alone, so its answers hold until the node changes.
   */
  readonly varies: boolean;
  /** Loads the task; false when the filter has nothing to check for it. */
  setTask(task: SchedulingTask): boolean;
  /** Whether the loaded task may run on `node`. */
  check(node: NodeInfo): boolean;
  /** What failing on `nodes` nodes means, for the task's status. */
  explain(nodes: number): string;
  /** What the loaded task asks of a filter that does not vary, as a key: two tasks with one key pass the same nodes ('' for one that varies). */
  key(): string;
}

const onNodes = (what: string, nodes: number): string => `${what} on ${nodes} node${nodes === 1 ? '' : 's'}`;

/** The node is READY and ACTIVE (not down, disconnected, paused or drained). */
export class ReadyFilter implements Filter {
  readonly name = 'ready';
  readonly varies = false;
  setTask(): boolean {
    return true;
  }
  check(node: NodeInfo): boolean {
    return node.available;
  }
  explain(nodes: number): string {
    return nodes === 1 ? '1 node not available for new tasks' : `${nodes} nodes not available for new tasks`;
  }
  key(): string {
    return '';
  }
}

/** What the task reserves (CPU, memory, generic resources) is still free on the node. */
export class ResourceFilter implements Filter {
  readonly name = 'resources';
  readonly varies = true;
  private demand?: Demand;
  setTask({ demand }: SchedulingTask): boolean {
    this.demand = demand;
    return demand.nanoCpus > 0 || demand.memoryBytes > 0 || demand.generic.length > 0;
  }
  check(node: NodeInfo): boolean {
    const demand = this.demand as Demand;
    if (demand.nanoCpus > node.nanoCpus) return false;
    if (demand.memoryBytes > node.memoryBytes) return false;
    return demand.generic.length === 0 || hasEnough(node.generic, demand.generic);
  }
  explain(nodes: number): string {
    return onNodes('insufficient resources', nodes);
  }
  key(): string {
    return '';
  }
}

/**
 * The node has the plugins the task needs. A node that reports no plugin of a type at all
 * (an agent that does not list them) is given the benefit of the doubt for that type.
 */
export class PluginFilter implements Filter {
  readonly name = 'plugins';
  readonly varies = false;
  private plugins: readonly PluginDescription[] = [];
  setTask(task: SchedulingTask): boolean {
    this.plugins = task.demand.plugins;
    return this.plugins.length > 0;
  }
  check(node: NodeInfo): boolean {
    const has = node.node.description.engine?.plugins ?? [];
    return this.plugins.every((wanted) => {
      const ofType = has.filter((p) => p.type === wanted.type);
      return ofType.length === 0 || ofType.some((p) => p.name === wanted.name || p.name === `${wanted.name}:latest`);
    });
  }
  explain(nodes: number): string {
    return onNodes('missing plugin', nodes);
  }
  key(): string {
    return JSON.stringify(this.plugins.map((p) => [p.type, p.name]));
  }
}

/** The node satisfies the task's placement constraints; a constraint that does not parse fails everywhere. */
export class ConstraintFilter implements Filter {
  readonly name = 'constraints';
  readonly varies = false;
  private constraints: readonly Constraint[] | undefined;
  private expressions: readonly string[] = [];
  setTask(task: SchedulingTask): boolean {
    const expressions = task.task.spec.placement?.constraints ?? [];
    if (expressions.length === 0) return false;
    if (expressions !== this.expressions) this.constraints = constraintsOf(expressions);
    this.expressions = expressions;
    return true;
  }
  check(node: NodeInfo): boolean {
    return meetsConstraints(this.constraints, node.node);
  }
  explain(nodes: number): string {
    return onNodes('scheduling constraints not satisfied', nodes);
  }
  key(): string {
    return JSON.stringify(this.expressions);
  }
}

const ARCHITECTURES: Readonly<Record<string, string>> = { x86_64: 'amd64', aarch64: 'arm64' };
const arch = (name: string): string => ARCHITECTURES[name] ?? name;

/** The node's OS and architecture are among the platforms the task's image runs on. */
export class PlatformFilter implements Filter {
  readonly name = 'platform';
  readonly varies = false;
  private platforms: readonly Platform[] = [];
  setTask(task: SchedulingTask): boolean {
    this.platforms = task.task.spec.placement?.platforms ?? [];
    return this.platforms.length > 0;
  }
  check(node: NodeInfo): boolean {
    const has = node.node.description.platform;
    if (!has) return false;
    return this.platforms.some(
      (p) => (p.architecture === '' || arch(p.architecture) === arch(has.architecture)) && (p.os === '' || p.os === has.os),
    );
  }
  explain(nodes: number): string {
    return onNodes('unsupported platform', nodes);
  }
  key(): string {
    return JSON.stringify(this.platforms.map((p) => [p.os, p.architecture]));
  }
}

/** None of the task's host-mode published ports is taken on the node. */
export class HostPortFilter implements Filter {
  readonly name = 'host-ports';
  readonly varies = true;
  private ports: readonly string[] = [];
  setTask(task: SchedulingTask): boolean {
    this.ports = task.demand.hostPorts;
    return this.ports.length > 0;
  }
  check(node: NodeInfo): boolean {
    return this.ports.every((port) => !node.usedHostPorts.has(port));
  }
  explain(nodes: number): string {
    return onNodes('host-mode port already in use', nodes);
  }
  key(): string {
    return '';
  }
}

/** The node runs fewer of the service's active tasks than the placement's max replicas. */
export class MaxReplicasFilter implements Filter {
  readonly name = 'max-replicas';
  readonly varies = true;
  private serviceId = '';
  private max = 0;
  setTask(task: SchedulingTask): boolean {
    this.serviceId = task.task.serviceId;
    this.max = task.task.spec.placement?.maxReplicas ?? 0;
    return this.max > 0;
  }
  check(node: NodeInfo): boolean {
    return node.tasksOf(this.serviceId) < this.max;
  }
  explain(): string {
    return 'max replicas per node limit exceed';
  }
  key(): string {
    return '';
  }
}

/** In the order they run: readiness first, the cheapest and most common refusal. */
export const defaultFilters = (): Filter[] => [
  new ReadyFilter(),
  new ResourceFilter(),
  new PluginFilter(),
  new ConstraintFilter(),
  new PlatformFilter(),
  new HostPortFilter(),
  new MaxReplicasFilter(),
];
