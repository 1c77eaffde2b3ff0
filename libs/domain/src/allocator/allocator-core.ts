/**
 * The allocator as a component. It watches what may need allocating — networks without a
 * subnet, services whose endpoint is not the one for their spec, NEW tasks — and, when
 * asked, proposes the allocations as batches: NetworkAllocated, ServiceEndpointsAllocated,
 * TasksAllocated (NEW → PENDING) and, for tasks that cannot be allocated, one
 * TasksAllocationFailed with the reason. A task that cannot be allocated waits, blocked on
 * what it lacks (a network, its service's endpoint), until that changes: it is not retried
 * every tick. At start-up it creates the ingress network if the cluster has none (once the
 * cluster is initialized).
 */
import { TaskState } from '@shoal/contracts';
import type { Endpoint, NetworkAttachment, NetworkSpec, PortConfig, ShoalEvent } from '@shoal/contracts';
import type { ComponentCore, Proposal } from '../component-core';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { allocateEndpoint, endpointReady } from './endpoint-allocation';
import { Ledger } from './ledger';
import type { Freed } from './ledger';
import { NetworkIndex } from './network-index';
import { chooseSubnet, parseSubnet } from './subnets';
import { formatIpv4, formatSubnet } from '../net';
import type { Ipv4Subnet } from '../net';
import { INGRESS_KEY, allocateTask, networkKey, serviceKey } from './task-allocation';

export interface AllocatorOptions {
  /** Makes ids for what the allocator creates (the ingress network). */
  readonly newId: () => string;
  /** Most tasks in one TasksAllocated / TasksAllocationFailed record; default 2,000. */
  readonly batchSize?: number;
  /**
   * Most tasks one decision allocates or refuses; default 10,000. The rest wait for the next
   * one, which the runner asks for as soon as these are appended: what one decision proposes
   * stays well inside what one append may write.
   */
  readonly tasksPerDecision?: number;
}

/** Services or tasks start-up learns in one step (reconcileInSteps): a millisecond or two of work. */
const LEARN_STEP = 1_000;

export const INGRESS_NETWORK_SPEC: NetworkSpec = {
  name: 'ingress',
  driver: 'overlay',
  ingress: true,
  labels: { 'com.docker.swarm.internal': 'true' },
};

export class AllocatorCore implements ComponentCore {
  readonly component = 'allocator' as const;
  readonly idleWhileStandby = true;
  readonly ledger = new Ledger();
  private readonly newId: () => string;
  private readonly batchSize: number;
  private readonly tasksPerDecision: number;
  /** NEW tasks to try at the next decision. */
  private readonly pending = new Set<string>();
  /** What blocked tasks wait for (a network, a service's endpoint) → the tasks. */
  private readonly blocked = new Map<string, Set<string>>();
  private readonly blockedOn = new Map<string, string>();
  private readonly dirtyServices = new Set<string>();
  /** Services that could not get their endpoint: why (undefined while a network is on its way). */
  private readonly stuckServices = new Map<string, string | undefined>();
  private readonly dirtyNetworks = new Set<string>();
  /** Networks that could not get a subnet, and why. */
  private readonly networkFailures = new Map<string, string>();
  private needIngress = false;
  /** The ingress network has been proposed and the log has not yet ruled on it. */
  private ingressComing = false;

  constructor(options: AllocatorOptions) {
    this.newId = options.newId;
    this.batchSize = Math.max(1, options.batchSize ?? 2_000);
    this.tasksPerDecision = Math.max(1, options.tasksPerDecision ?? 10_000);
  }

  /** What the allocator is watching, for tests and metrics. */
  get watching(): { readonly pending: number; readonly blocked: number; readonly services: number; readonly networks: number } {
    return { pending: this.pending.size, blocked: this.blockedOn.size, services: this.dirtyServices.size, networks: this.dirtyNetworks.size };
  }

  observe(event: ShoalEvent, verdict: Verdict, state: ClusterState): void {
    const applied = verdict.status !== 'rejected';
    switch (event.type) {
      case 'NetworkCreated': {
        if (event.data.spec.ingress && event.by.component === 'allocator') this.ingressComing = false;
        if (!applied) return;
        this.dirtyNetworks.add(event.data.id);
        this.wakeNetwork(event.data.id, event.data.spec.name, event.data.spec.ingress === true);
        return;
      }
      case 'NetworkAllocated': {
        const network = state.networks.get(event.data.id);
        if (!applied || !network) return;
        this.ledger.addNetwork(network);
        this.networkFailures.delete(network.id);
        this.dirtyNetworks.delete(network.id);
        this.wakeNetwork(network.id, network.spec.name, network.spec.ingress === true);
        this.retryServices();
        return;
      }
      case 'NetworkRemoved': {
        if (!applied) return;
        this.ledger.removeNetwork(event.data.id);
        this.networkFailures.delete(event.data.id);
        // Whatever waited on it now finds it missing, and says so.
        this.wake(networkKey(event.data.id));
        this.retryServices();
        // Its subnet is free again: networks that found none may now.
        for (const network of state.networks.values()) if (network.subnet === undefined) this.dirtyNetworks.add(network.id);
        return;
      }
      case 'ServiceCreated':
      case 'ServiceUpdated': {
        if (!applied) return;
        this.dirtyServices.add(event.data.id);
        this.stuckServices.delete(event.data.id);
        this.wake(serviceKey(event.data.id));
        return;
      }
      case 'ServiceRemoved': {
        if (!applied) return;
        this.freed(this.ledger.syncService(state, event.data.id));
        this.dirtyServices.delete(event.data.id);
        this.stuckServices.delete(event.data.id);
        this.wake(serviceKey(event.data.id));
        return;
      }
      case 'ServiceEndpointsAllocated': {
        for (const item of event.data.services) {
          this.freed(this.ledger.syncService(state, item.id));
          const service = state.services.get(item.id);
          if (service && !endpointReady(service)) this.dirtyServices.add(item.id);
          this.wake(serviceKey(item.id));
        }
        return;
      }
      case 'TasksCreated': {
        for (const item of event.data.tasks) {
          if (state.tasks.get(item.id)?.status.state === TaskState.NEW) this.pending.add(item.id);
        }
        return;
      }
      case 'TasksAllocated': {
        for (const item of event.data.tasks) this.forget(state, item.id);
        return;
      }
      case 'TaskStatusesReported': {
        for (const status of event.data.statuses) if (status.state > TaskState.RUNNING) this.freed(this.ledger.syncTask(state, status.id));
        return;
      }
      case 'TaskDesiredStatesChanged': {
        for (const item of event.data.tasks) {
          if (item.desiredState > TaskState.RUNNING && state.tasks.get(item.id)?.status.state === TaskState.NEW) this.forget(state, item.id);
        }
        return;
      }
      case 'TasksRemoved': {
        for (const item of event.data.tasks) this.forget(state, item.id);
        return;
      }
      case 'NodeRemoved': {
        // On a log at level 3 its tasks not yet ended are ORPHANED by the same record: their addresses are free.
        for (const task of state.tasks.values()) if (task.nodeId === event.data.id) this.freed(this.ledger.syncTask(state, task.id));
        return;
      }
      default:
        return;
    }
  }

  reconcileAll(state: ClusterState): void {
    for (const _ of this.reconcileInSteps(state)) continue;
  }

  /**
   * `reconcileAll`, LEARN_STEP services or tasks a step: the ledger (see rebuildInSteps), then
   * the NEW tasks, then — in the last step, they are few — the networks and services to look at.
   * Records told between steps leave it as if told after: nothing is blocked before a
   * decision, and what a record adds to or drops from the watch lists the steps still to come
   * read from the state as it is then. Only the order of the pending tasks may differ (a task
   * created meanwhile is pending ahead of older ones not reached yet), and with it which task
   * takes which address.
   */
  *reconcileInSteps(state: ClusterState): Generator<void> {
    this.pending.clear();
    this.blocked.clear();
    this.blockedOn.clear();
    this.stuckServices.clear();
    this.networkFailures.clear();
    this.ingressComing = false;
    yield* this.ledger.rebuildInSteps(state, LEARN_STEP);
    let done = 0;
    for (const task of state.tasks.values()) {
      if (task.status.state === TaskState.NEW && task.desiredState <= TaskState.RUNNING) this.pending.add(task.id);
      if (++done % LEARN_STEP === 0) yield;
    }
    // Nothing was stuck or proposed meanwhile: whatever a record told had it look at, the state shows.
    this.dirtyNetworks.clear();
    this.dirtyServices.clear();
    for (const network of state.networks.values()) if (network.subnet === undefined) this.dirtyNetworks.add(network.id);
    // Not only services whose tasks wait: one that stopped publishing may still hold ports to give back.
    for (const service of state.services.values()) if (service.endpointVersion !== service.version) this.dirtyServices.add(service.id);
    this.needIngress = ![...state.networks.values()].some((n) => n.spec.ingress);
  }

  decide(state: ClusterState, _now?: Date): readonly Proposal[] {
    const proposals: Proposal[] = [];
    // As swarm init does: the ingress network comes with the cluster, never before it.
    if (this.needIngress && state.cluster) {
      this.needIngress = false;
      if (![...state.networks.values()].some((n) => n.spec.ingress)) {
        proposals.push({ type: 'NetworkCreated', data: { id: this.newId(), spec: INGRESS_NETWORK_SPEC } });
        this.ingressComing = true;
      }
    }
    proposals.push(...this.allocateNetworks(state));
    const networks = new NetworkIndex(state);
    const endpoints = this.allocateEndpoints(state, networks);
    if (endpoints.length > 0) proposals.push({ type: 'ServiceEndpointsAllocated', data: { services: endpoints } });
    proposals.push(...this.allocateTasks(state, networks));
    return proposals;
  }

  private allocateNetworks(state: ClusterState): Proposal[] {
    if (this.dirtyNetworks.size === 0) return [];
    const taken: Ipv4Subnet[] = [];
    for (const network of state.networks.values()) {
      const subnet = network.subnet === undefined ? undefined : parseSubnet(network.subnet);
      if (subnet !== undefined && typeof subnet !== 'string') taken.push(subnet);
    }
    const proposals: Proposal[] = [];
    for (const id of this.dirtyNetworks) {
      const network = state.networks.get(id);
      if (!network || network.subnet !== undefined) continue;
      const choice = chooseSubnet(network.spec.ipam, taken);
      if (typeof choice === 'string') {
        const before = this.networkFailures.get(id);
        this.networkFailures.set(id, choice);
        if (before !== choice) {
          this.wakeNetwork(id, network.spec.name, network.spec.ingress === true);
          this.retryServices();
        }
        continue;
      }
      taken.push(choice.subnet);
      proposals.push({ type: 'NetworkAllocated', data: { id, subnet: formatSubnet(choice.subnet), gateway: formatIpv4(choice.gateway) } });
    }
    this.dirtyNetworks.clear();
    return proposals;
  }

  private allocateEndpoints(state: ClusterState, networks: NetworkIndex): { id: string; specVersion: number; endpoint: Endpoint }[] {
    const items: { id: string; specVersion: number; endpoint: Endpoint }[] = [];
    for (const id of this.dirtyServices) {
      const service = state.services.get(id);
      if (!service) continue;
      const outcome = allocateEndpoint(state, service, networks, this.ledger, this.networkFailures, this.ingressComing);
      const before = this.stuckServices.get(id);
      switch (outcome.kind) {
        case 'current':
          this.stuckServices.delete(id);
          break;
        case 'allocated':
          this.stuckServices.delete(id);
          items.push({ id, specVersion: service.version, endpoint: outcome.endpoint });
          break;
        case 'wait':
          this.stuckServices.set(id, undefined);
          break;
        case 'failed':
          this.stuckServices.set(id, outcome.reason);
          if (before !== outcome.reason) this.wake(serviceKey(id));
          break;
        default: {
          const _exhaustive: never = outcome;
          return _exhaustive;
        }
      }
    }
    this.dirtyServices.clear();
    return items;
  }

  private allocateTasks(state: ClusterState, networks: NetworkIndex): Proposal[] {
    if (this.pending.size === 0) return [];
    const allocated: { id: string; attachments: NetworkAttachment[]; ports?: PortConfig[] }[] = [];
    const failed: { id: string; reason: string }[] = [];
    for (const id of this.pending) {
      // Stopping early always leaves something proposed, so the runner decides again at once.
      if (allocated.length + failed.length >= this.tasksPerDecision) break;
      this.pending.delete(id);
      const task = state.tasks.get(id);
      if (!task || task.status.state !== TaskState.NEW || task.desiredState > TaskState.RUNNING) continue;
      const service = state.services.get(task.serviceId);
      if (!service) continue;
      if (!endpointReady(service)) {
        const reason = this.stuckServices.get(service.id);
        this.block(id, serviceKey(service.id));
        if (reason !== undefined && task.status.err !== reason) failed.push({ id, reason });
        continue;
      }
      const outcome = allocateTask(task, service, networks, this.ledger, this.networkFailures);
      switch (outcome.kind) {
        case 'allocated':
          this.ledger.noteTask(id, outcome.held);
          allocated.push({ id, attachments: [...outcome.attachments], ...(outcome.ports ? { ports: [...outcome.ports] } : {}) });
          break;
        case 'wait':
          this.block(id, outcome.on);
          break;
        case 'failed':
          this.block(id, outcome.on);
          if (task.status.err !== outcome.reason) failed.push({ id, reason: outcome.reason });
          break;
        default: {
          const _exhaustive: never = outcome;
          return _exhaustive;
        }
      }
    }
    const proposals: Proposal[] = [];
    for (let i = 0; i < allocated.length; i += this.batchSize) {
      proposals.push({ type: 'TasksAllocated', data: { tasks: allocated.slice(i, i + this.batchSize) } });
    }
    for (let i = 0; i < failed.length; i += this.batchSize) {
      proposals.push({ type: 'TasksAllocationFailed', data: { tasks: failed.slice(i, i + this.batchSize) } });
    }
    return proposals;
  }

  /** The task has been ruled on (allocated, refused, shut down, removed): hold what the state says, watch no more. */
  private forget(state: ClusterState, id: string): void {
    this.freed(this.ledger.syncTask(state, id));
    this.pending.delete(id);
    this.unblock(id);
  }

  private block(id: string, on: string): void {
    this.unblock(id);
    let set = this.blocked.get(on);
    if (!set) this.blocked.set(on, (set = new Set()));
    set.add(id);
    this.blockedOn.set(id, on);
  }

  private unblock(id: string): void {
    const on = this.blockedOn.get(id);
    if (on === undefined) return;
    this.blockedOn.delete(id);
    const set = this.blocked.get(on);
    set?.delete(id);
    if (set?.size === 0) this.blocked.delete(on);
  }

  /** Tasks waiting on `key` are tried again at the next decision. */
  private wake(key: string): void {
    const set = this.blocked.get(key);
    if (!set) return;
    this.blocked.delete(key);
    for (const id of set) {
      this.blockedOn.delete(id);
      this.pending.add(id);
    }
  }

  private wakeNetwork(id: string, name: string, ingress: boolean): void {
    this.wake(networkKey(id));
    this.wake(networkKey(name));
    if (ingress) this.wake(INGRESS_KEY);
  }

  /** Services that could not get their endpoint are tried again. */
  private retryServices(): void {
    for (const id of this.stuckServices.keys()) this.dirtyServices.add(id);
  }

  private freed(freed: Freed): void {
    for (const id of freed.networks) this.wake(networkKey(id));
    if (freed.networks.size > 0 || freed.ports) this.retryServices();
  }
}
