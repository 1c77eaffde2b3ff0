/**
 * A small world for allocator specs: a state evolved from events, the allocator core
 * observing every one of them, and a loop that appends what it proposes (as the runner
 * does) until it has nothing more to say. Restarting replays the log into a new core.
 */
import { TaskState } from '@shoal/contracts';
import type { EventDataMap, EventType, PortConfig, ServiceSpec, ShoalEvent, Task } from '@shoal/contracts';
import { EventBuilder, clusterInit, newTask, serviceSpec } from '@shoal/testing';
import type { EventOptions } from '@shoal/testing';
import { evolve } from '../evolve';
import { emptyState } from '../state';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import type { Proposal } from '../component-core';
import { AllocatorCore } from './allocator-core';
import type { AllocatorOptions } from './allocator-core';

export class AllocatorWorld {
  readonly b = new EventBuilder();
  state: ClusterState = emptyState();
  core: AllocatorCore;
  /** Every record, in log order, refused ones included. */
  readonly log: ShoalEvent[] = [];
  private ids = 0;
  /** Who the allocator writes as: its instance and ownership term. */
  writer = { instance: 'allocator-1', term: 0 };

  constructor(
    private readonly options: Partial<AllocatorOptions> = {},
    initialized = true,
  ) {
    this.core = this.newCore();
    if (initialized) this.happen('ClusterInitialized', clusterInit(this.b).data);
    this.core.reconcileAll(this.state);
  }

  /** Someone other than the allocator wrote this. */
  happen<K extends EventType>(type: K, data: EventDataMap[K], options: EventOptions = {}): Verdict {
    return this.append(this.b.event(type, data, options));
  }

  append(event: ShoalEvent): Verdict {
    this.log.push(event);
    const verdict = evolve(this.state, event);
    this.core.observe(event, verdict, this.state);
    return verdict;
  }

  /** Decides and appends until the allocator is quiet; the records it wrote. */
  settle(rounds = 20): ShoalEvent[] {
    const written: ShoalEvent[] = [];
    for (let i = 0; i < rounds; i++) {
      const proposals = this.core.decide(this.state, new Date(this.b.now()));
      if (proposals.length === 0) return written;
      for (const p of proposals) {
        const event = this.propose(p);
        written.push(event);
        this.append(event);
      }
    }
    throw new Error(`the allocator was still proposing after ${rounds} rounds`);
  }

  /** The record the allocator would append for a proposal, as the writer it is now. */
  propose(p: Proposal): ShoalEvent {
    return this.b.event(p.type, p.data as never, { by: 'allocator', ...this.writer, ...(p.expect ? { expect: p.expect } : {}) });
  }

  /** The allocator's `instance` takes the next ownership term, as the runner does before it acts. */
  takeOwnership(instance: string): Verdict {
    const term = (this.state.terms.get('allocator') ?? 0) + 1;
    this.writer = { instance, term };
    return this.happen('OwnershipTaken', { component: 'allocator', term }, { by: 'allocator', instance, term });
  }

  /** A new allocator process: the log replayed into a fresh state, then start-up reconciliation. */
  restart(): void {
    this.state = emptyState();
    this.core = this.newCore();
    for (const event of this.log) this.core.observe(event, evolve(this.state, event), this.state);
    this.core.reconcileAll(this.state);
  }

  service(id: string, spec: ServiceSpec): Verdict {
    return this.happen('ServiceCreated', { id, spec });
  }

  /** Creates tasks of a service at its current version, slots 1.. */
  tasks(serviceId: string, ...ids: string[]): Verdict {
    const service = this.state.services.get(serviceId);
    if (!service) throw new Error(`no service ${serviceId}`);
    return this.happen('TasksCreated', {
      tasks: ids.map((id, i) => newTask(id, serviceId, service.spec, { slot: i + 1, specVersion: service.version })),
    });
  }

  network(id: string, name: string, subnet?: string, gateway?: string): Verdict {
    const ipam = subnet === undefined ? {} : { ipam: [{ subnet, ...(gateway ? { gateway } : {}) }] };
    return this.happen('NetworkCreated', { id, spec: { name, driver: 'overlay', ...ipam } });
  }

  /** Ends a task as its agent would report it (assigned to a node first when it must be). */
  end(id: string, state: TaskState = TaskState.FAILED): void {
    if (!this.state.nodes.has('node-1')) {
      this.happen('NodeRegistered', { id: 'node-1', role: 'worker', description: { hostname: 'node-1', platform: { os: 'linux', architecture: 'x86_64' }, resources: { nanoCpus: 1e12, memoryBytes: 2 ** 50 }, engine: { version: '28' } } });
    }
    this.happen('TasksAssigned', { tasks: [{ id, nodeId: 'node-1', why: 'test' }] });
    this.happen('TaskStatusesReported', { nodeId: 'node-1', statuses: [{ id, state, at: this.b.now() }] });
  }

  task(id: string): Task {
    const task = this.state.tasks.get(id);
    if (!task) throw new Error(`no task ${id}`);
    return task;
  }

  /** "10.0.1.2/24" of a task on a network (by name). */
  addressOf(taskId: string, networkName: string): string | undefined {
    const network = [...this.state.networks.values()].find((n) => n.spec.name === networkName);
    return this.task(taskId).attachments?.find((a) => a.network === network?.id)?.addresses[0];
  }

  private newCore(): AllocatorCore {
    return new AllocatorCore({ newId: () => `ingress-${++this.ids}`, ...this.options });
  }
}

export const withNetworks = (name: string, networks: readonly string[], overrides: Partial<ServiceSpec> = {}): ServiceSpec => {
  const spec = serviceSpec(name, { kind: 'replicated', replicas: 1 }, overrides);
  return { ...spec, task: { ...spec.task, networks: networks.map((target) => ({ target })) } };
};

/** An ingress-mode tcp port, published as asked or (without a number) from the dynamic range. */
export const ingressPort = (targetPort: number, publishedPort?: number): PortConfig => ({
  protocol: 'tcp',
  targetPort,
  publishMode: 'ingress',
  ...(publishedPort === undefined ? {} : { publishedPort }),
});

export const published = (name: string, ports: PortConfig[], mode: 'vip' | 'dnsrr' = 'vip'): ServiceSpec =>
  serviceSpec(name, undefined, { endpoint: { mode, ports } });
