/**
 * NodeInfo: a node and what the scheduler has worked out about it — the tasks on it, how
 * many are active in all and per service, what is left of its resources, the host ports
 * taken, and the recent failures of each service version there.
 */
import { TaskState } from '@shoal/contracts';
import type { Node } from '../state';
import { EMPTY_CLAIM, claim, genericPool, reclaim } from './generic-resources';
import type { GenericClaim, GenericPool } from './generic-resources';
import type { SchedulingTask } from './scheduling-task';

/** A service failing this many times on a node within MONITOR_FAILURES_MS makes it faulty. */
export const MAX_FAILURES = 5;
export const MONITOR_FAILURES_MS = 5 * 60_000;

/** What one task holds on the node, kept so that exactly that is given back. */
interface Held {
  readonly serviceId: string;
  readonly active: boolean;
  readonly nanoCpus: number;
  readonly memoryBytes: number;
  readonly generic: GenericClaim;
  readonly hostPorts: readonly string[];
}

/** A task counts towards its service's spread while it is meant to run (desired ≤ COMPLETE). */
const isActive = (task: SchedulingTask): boolean => task.task.desiredState <= TaskState.COMPLETE;

const failureKey = (serviceId: string, specVersion: number): string => `${serviceId}@${specVersion}`;

export class NodeInfo {
  private readonly held = new Map<string, Held>();
  activeTasks = 0;
  readonly activeByService = new Map<string, number>();
  nanoCpus: number;
  memoryBytes: number;
  generic: GenericPool;
  readonly usedHostPorts = new Map<string, number>();
  /** "service@version" → failure times (ms), oldest first. */
  private readonly failures = new Map<string, number[]>();

  constructor(public node: Node) {
    this.nanoCpus = node.description.resources.nanoCpus ?? 0;
    this.memoryBytes = node.description.resources.memoryBytes ?? 0;
    this.generic = genericPool(node.description.resources.generic);
  }

  get id(): string {
    return this.node.id;
  }

  get taskCount(): number {
    return this.held.size;
  }

  has(taskId: string): boolean {
    return this.held.has(taskId);
  }

  tasksOf(serviceId: string): number {
    return this.activeByService.get(serviceId) ?? 0;
  }

  /** A new description or spec: resources are worked out again from the tasks held. */
  updateNode(node: Node): void {
    this.node = node;
    this.nanoCpus = node.description.resources.nanoCpus ?? 0;
    this.memoryBytes = node.description.resources.memoryBytes ?? 0;
    this.generic = genericPool(node.description.resources.generic);
    for (const [id, held] of this.held) {
      this.nanoCpus -= held.nanoCpus;
      this.memoryBytes -= held.memoryBytes;
      const again = claim(this.generic, [
        ...held.generic.discrete.map(([kind, discrete]) => ({ kind, discrete })),
        ...held.generic.named.map(([kind, named]) => ({ kind, named })),
      ]);
      this.held.set(id, { ...held, generic: again });
    }
  }

  /**
   * Adds a task, or updates whether it is active; true when anything the scheduler
   * counts changed.
   */
  addTask(task: SchedulingTask): boolean {
    const active = isActive(task);
    const before = this.held.get(task.id);
    if (before) {
      if (before.active === active) return false;
      this.held.set(task.id, { ...before, active });
      this.count(task.serviceId, active ? 1 : -1);
      return true;
    }
    const generic = task.generic.length > 0 ? claim(this.generic, task.generic) : EMPTY_CLAIM;
    this.held.set(task.id, {
      serviceId: task.serviceId,
      active,
      nanoCpus: task.nanoCpus,
      memoryBytes: task.memoryBytes,
      generic,
      hostPorts: task.hostPorts,
    });
    this.nanoCpus -= task.nanoCpus;
    this.memoryBytes -= task.memoryBytes;
    for (const port of task.hostPorts) this.usedHostPorts.set(port, (this.usedHostPorts.get(port) ?? 0) + 1);
    if (active) this.count(task.serviceId, 1);
    return true;
  }

  /** Removes a task and gives back what it held; true when it was there. */
  removeTask(taskId: string): boolean {
    const held = this.held.get(taskId);
    if (!held) return false;
    this.held.delete(taskId);
    this.nanoCpus += held.nanoCpus;
    this.memoryBytes += held.memoryBytes;
    reclaim(this.generic, held.generic);
    for (const port of held.hostPorts) {
      const left = (this.usedHostPorts.get(port) ?? 1) - 1;
      if (left > 0) this.usedHostPorts.set(port, left);
      else this.usedHostPorts.delete(port);
    }
    if (held.active) this.count(held.serviceId, -1);
    return true;
  }

  private count(serviceId: string, delta: 1 | -1): void {
    this.activeTasks += delta;
    const next = (this.activeByService.get(serviceId) ?? 0) + delta;
    if (next > 0) this.activeByService.set(serviceId, next);
    else this.activeByService.delete(serviceId);
  }

  /** Records that a task of this service version failed (or was rejected) here at `at` (ms). */
  taskFailed(serviceId: string, specVersion: number, at: number): void {
    const key = failureKey(serviceId, specVersion);
    const recent = (this.failures.get(key) ?? []).filter((t) => at - t < MONITOR_FAILURES_MS);
    recent.push(at);
    this.failures.set(key, recent);
  }

  /** Failures of this service version here within the monitor window before `now` (ms). */
  recentFailures(serviceId: string, specVersion: number, now: number): number {
    if (this.failures.size === 0) return 0;
    const times = this.failures.get(failureKey(serviceId, specVersion));
    if (!times) return 0;
    let count = 0;
    for (const t of times) if (now - t <= MONITOR_FAILURES_MS) count++;
    return count;
  }
}
