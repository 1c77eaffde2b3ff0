/**
 * NodeInfo: a node and what the scheduler has worked out about it — how many tasks on it
 * are active in all and per service, what is left of its resources, the host ports taken,
 * and the recent failures of each service version there.
 */
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { Node } from '../state';
import { claim, genericPool, reclaim } from './generic-resources';
import type { GenericClaim, GenericPool } from './generic-resources';
import type { SchedulingTask } from './scheduling-task';

/** A service failing this many times on a node within MONITOR_FAILURES_MS makes it faulty. */
export const MAX_FAILURES = 5;
export const MONITOR_FAILURES_MS = 5 * 60_000;

/** A task counts towards its service's spread while it is meant to run (desired ≤ COMPLETE). */
export const isActive = (task: Task): boolean => task.desiredState <= TaskState.COMPLETE;

const failureKey = (serviceId: string, specVersion: number): string => `${serviceId}@${specVersion}`;

const isAvailable = (node: Node): boolean => node.status.state === 'ready' && node.spec.availability === 'active';

/** What a node tells the set that holds it (NodeSet). */
export interface NodeSetTally {
  /** The node's count of `serviceId`'s active tasks moved by `delta`. */
  counted(serviceId: string, delta: number): void;
  /** A node's first failure (1), or a failing node leaving (-1). */
  failing(delta: 1 | -1): void;
}

/**
 * The tasks a node holds are not listed here: the view remembers, for each, which node
 * holds it and whether it counts (SchedulerView), and gives back exactly what it took.
 */
export class NodeInfo {
  activeTasks = 0;
  readonly activeByService = new Map<string, number>();
  /** What is left of the node's CPU and memory. */
  nanoCpus: number;
  memoryBytes: number;
  generic: GenericPool;
  readonly usedHostPorts = new Map<string, number>();
  /** What the tasks here asking for generic resources took, by task id, in the order they came. */
  private claims?: Map<string, GenericClaim>;
  /** "service@version" → failure times (ms), oldest first. */
  private readonly failures = new Map<string, number[]>();

  private nodeValue: Node;
  /** READY and ACTIVE: it may take new tasks (worked out when the node changes). */
  available: boolean;

  get node(): Node {
    return this.nodeValue;
  }

  /** Some task failed here, lately or not: only then can `recentFailures` be other than 0. */
  failing = false;
  /** Its place among its set's nodes in the order of their ids (NodeSet.rankById). */
  rank = 0;

  /** `set` hears of every change to a service's count here and of the first failure, until the node leaves it. */
  constructor(
    node: Node,
    private set?: NodeSetTally,
  ) {
    this.nodeValue = node;
    this.available = isAvailable(node);
    this.nanoCpus = node.description.resources.nanoCpus ?? 0;
    this.memoryBytes = node.description.resources.memoryBytes ?? 0;
    this.generic = genericPool(node.description.resources.generic);
  }

  get id(): string {
    return this.node.id;
  }

  /** The service asked about last and its count here: a batch asks about one service again and again. */
  private askedService: string | undefined = undefined;
  private askedCount = 0;

  tasksOf(serviceId: string): number {
    if (serviceId === this.askedService) return this.askedCount;
    const count = this.activeByService.get(serviceId) ?? 0;
    this.askedService = serviceId;
    this.askedCount = count;
    return count;
  }

  /** A new description or spec: what is left is worked out again, net of what the tasks here hold. */
  updateNode(node: Node): void {
    const heldCpus = (this.node.description.resources.nanoCpus ?? 0) - this.nanoCpus;
    const heldMemory = (this.node.description.resources.memoryBytes ?? 0) - this.memoryBytes;
    this.nodeValue = node;
    this.available = isAvailable(node);
    this.nanoCpus = (node.description.resources.nanoCpus ?? 0) - heldCpus;
    this.memoryBytes = (node.description.resources.memoryBytes ?? 0) - heldMemory;
    this.generic = genericPool(node.description.resources.generic);
    for (const [id, held] of this.claims ?? []) {
      const again = claim(this.generic, [
        ...held.discrete.map(([kind, discrete]) => ({ kind, discrete })),
        ...held.named.map(([kind, named]) => ({ kind, named })),
      ]);
      this.claims?.set(id, again);
    }
  }

  /** Takes what `task` reserves here; it counts towards its service when `active`. */
  addTask({ task, demand }: SchedulingTask, active: boolean): void {
    if (demand.generic.length > 0) (this.claims ??= new Map()).set(task.id, claim(this.generic, demand.generic));
    this.nanoCpus -= demand.nanoCpus;
    this.memoryBytes -= demand.memoryBytes;
    for (const port of demand.hostPorts) this.usedHostPorts.set(port, (this.usedHostPorts.get(port) ?? 0) + 1);
    if (active) this.count(task.serviceId, 1);
  }

  /** Gives back what `task` took with `addTask` (its demand then, and whether it counted). */
  removeTask({ task, demand }: SchedulingTask, active: boolean): void {
    this.nanoCpus += demand.nanoCpus;
    this.memoryBytes += demand.memoryBytes;
    const held = this.claims?.get(task.id);
    if (held) {
      this.claims?.delete(task.id);
      reclaim(this.generic, held);
    }
    for (const port of demand.hostPorts) {
      const left = (this.usedHostPorts.get(port) ?? 1) - 1;
      if (left > 0) this.usedHostPorts.set(port, left);
      else this.usedHostPorts.delete(port);
    }
    if (active) this.count(task.serviceId, -1);
  }

  /** A task held here starts (true) or stops counting towards its service. */
  countTask(serviceId: string, active: boolean): void {
    this.count(serviceId, active ? 1 : -1);
  }

  private count(serviceId: string, delta: 1 | -1): void {
    this.activeTasks += delta;
    const next = (this.activeByService.get(serviceId) ?? 0) + delta;
    if (next > 0) this.activeByService.set(serviceId, next);
    else this.activeByService.delete(serviceId);
    if (serviceId === this.askedService) this.askedCount = Math.max(next, 0);
    this.set?.counted(serviceId, delta);
  }

  /** The node left its set: what it counts is taken from the set's totals, and no more changes are told. */
  detach(): void {
    for (const [serviceId, count] of this.activeByService) this.set?.counted(serviceId, -count);
    if (this.failing) this.set?.failing(-1);
    this.set = undefined;
  }

  /** Records that a task of this service version failed (or was rejected) here at `at` (ms). */
  taskFailed(serviceId: string, specVersion: number, at: number): void {
    const key = failureKey(serviceId, specVersion);
    const recent = (this.failures.get(key) ?? []).filter((t) => at - t < MONITOR_FAILURES_MS);
    recent.push(at);
    this.failures.set(key, recent);
    if (!this.failing) this.set?.failing(1);
    this.failing = true;
  }

  /** Failures of this service version here within the monitor window before `now` (ms). */
  recentFailures(serviceId: string, specVersion: number, now: number): number {
    const times = this.failures.get(failureKey(serviceId, specVersion));
    if (!times) return 0;
    let count = 0;
    for (const t of times) if (now - t <= MONITOR_FAILURES_MS) count++;
    return count;
  }
}
