/**
 * Given/when/then for the scheduler: given nodes, services and their PENDING tasks (as
 * events, through evolve, observed by the core as the runner would), when the scheduler
 * decides and its proposals are applied, then these tasks landed there — or wait, saying why.
 */
import { TaskState } from '@shoal/contracts';
import type { GenericResource, NodeAvailability, NodeRole, NodeState, Platform, PluginDescription, PortConfig, ServiceMode, ShoalEvent, TaskSpec } from '@shoal/contracts';
import { EventBuilder, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import type { Proposal } from '../component-core';
import { evolve } from '../evolve';
import { emptyState } from '../state';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { SchedulerCore } from './scheduler-core';

export interface NodeOptions {
  readonly cpus?: number;
  readonly memoryBytes?: number;
  readonly generic?: readonly GenericResource[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly engineLabels?: Readonly<Record<string, string>>;
  readonly plugins?: readonly PluginDescription[];
  readonly platform?: Platform;
  readonly role?: NodeRole;
  readonly availability?: NodeAvailability;
  readonly state?: NodeState;
  readonly addr?: string;
  readonly hostname?: string;
}

export interface Outcome {
  /** task id → node id */
  readonly assigned: Map<string, string>;
  readonly why: Map<string, string>;
  /** task id → explanation */
  readonly unschedulable: Map<string, string>;
  readonly proposals: readonly Proposal[];
  /** Tasks per node for a service, over every task now on a node. */
  perNode(serviceId: string): Map<string, number>;
}

export class ClusterGiven {
  readonly b = new EventBuilder();
  readonly state: ClusterState = emptyState();
  readonly core = new SchedulerCore();
  private taskIds = 0;

  apply(event: ShoalEvent): Verdict {
    const verdict = evolve(this.state, event);
    this.core.observe(event, verdict, this.state);
    return verdict;
  }

  node(id: string, o: NodeOptions = {}): this {
    const base = nodeDescription(o.hostname ?? id);
    this.apply(
      this.b.event('NodeRegistered', {
        id,
        role: o.role ?? 'worker',
        ...(o.addr ? { addr: o.addr } : {}),
        description: {
          ...base,
          platform: o.platform ?? base.platform,
          resources: {
            nanoCpus: (o.cpus ?? 4) * 1e9,
            memoryBytes: o.memoryBytes ?? 8 * 2 ** 30,
            ...(o.generic ? { generic: o.generic } : {}),
          },
          engine: { version: '28.2.2', ...(o.engineLabels ? { labels: o.engineLabels } : {}), ...(o.plugins ? { plugins: o.plugins } : {}) },
        },
      }),
    );
    if (o.labels || o.availability || (o.role && o.role !== 'worker')) {
      this.nodeSpec(id, { labels: o.labels ?? {}, role: o.role ?? 'worker', availability: o.availability ?? 'active' });
    }
    if (o.state && o.state !== 'ready') this.apply(this.b.event('NodeStatusChanged', { nodes: [{ id, state: o.state }] }));
    return this;
  }

  nodes(prefix: string, count: number, o: NodeOptions = {}): this {
    for (let i = 1; i <= count; i++) this.node(`${prefix}${i}`, o);
    return this;
  }

  nodeSpec(id: string, spec: { labels: Record<string, string>; role: NodeRole; availability: NodeAvailability }): this {
    this.expectApplied(this.apply(this.b.event('NodeSpecUpdated', { id, spec })));
    return this;
  }

  service(id: string, task: Partial<TaskSpec> = {}, mode: ServiceMode = { kind: 'replicated', replicas: 1 }, ports?: readonly PortConfig[]): this {
    const base = serviceSpec(id, mode);
    this.expectApplied(
      this.apply(
        this.b.event('ServiceCreated', {
          id,
          spec: { ...base, task: { ...base.task, ...task }, ...(ports ? { endpoint: { mode: 'vip', ports } } : {}) },
        }),
      ),
    );
    return this;
  }

  /** `count` PENDING tasks of the service (created and allocated); their ids are returned by `lastTasks`. */
  pending(serviceId: string, count: number, o: { nodeId?: string; ports?: readonly PortConfig[] } = {}): this {
    const service = this.state.services.get(serviceId);
    if (!service) throw new Error(`no service ${serviceId}`);
    const tasks = [];
    for (let i = 0; i < count; i++) {
      const id = `${serviceId}.t${++this.taskIds}`;
      tasks.push(newTask(id, serviceId, service.spec, { slot: this.taskIds, specVersion: service.version, ...(o.nodeId ? { nodeId: o.nodeId } : {}) }));
    }
    this.expectApplied(this.apply(this.b.event('TasksCreated', { tasks })));
    this.expectApplied(
      this.apply(this.b.event('TasksAllocated', { tasks: tasks.map((t) => ({ id: t.id, attachments: [], ...(o.ports ? { ports: o.ports } : {}) })) })),
    );
    this.lastTasks = tasks.map((t) => t.id);
    return this;
  }
  lastTasks: string[] = [];

  /** A task on the node reports a state (RUNNING, FAILED, …). */
  report(nodeId: string, taskId: string, state: TaskState): this {
    this.expectApplied(this.apply(this.b.event('TaskStatusesReported', { nodeId, statuses: [{ id: taskId, state, at: this.b.now() }] })));
    return this;
  }

  /** Runs the scheduler once and applies what it proposes. */
  whenScheduled(now: Date = new Date(this.b.now())): Outcome {
    const proposals = this.core.decide(this.state, now);
    const assigned = new Map<string, string>();
    const why = new Map<string, string>();
    const unschedulable = new Map<string, string>();
    for (const p of proposals) {
      const event = this.b.event(p.type, p.data as never) as ShoalEvent;
      const verdict = this.apply(event);
      if (verdict.status !== 'applied') throw new Error(`${p.type} was ${verdict.status}: ${verdict.reasons.join('; ')}`);
      if (p.type === 'TasksAssigned') for (const t of p.data.tasks) {
          assigned.set(t.id, t.nodeId);
          why.set(t.id, t.why);
        }
      if (p.type === 'TasksUnschedulable') for (const t of p.data.tasks) unschedulable.set(t.id, t.explain);
    }
    const state = this.state;
    return {
      assigned,
      why,
      unschedulable,
      proposals,
      perNode(serviceId: string) {
        const counts = new Map<string, number>();
        for (const t of state.tasks.values()) {
          if (t.serviceId === serviceId && t.nodeId !== undefined && t.status.state >= TaskState.ASSIGNED && t.status.state <= TaskState.RUNNING) {
            counts.set(t.nodeId, (counts.get(t.nodeId) ?? 0) + 1);
          }
        }
        return counts;
      },
    };
  }

  private expectApplied(verdict: Verdict): void {
    if (verdict.status !== 'applied') throw new Error(`given: ${verdict.type} was ${verdict.status}: ${verdict.reasons.join('; ')}`);
  }
}

export const given = (): ClusterGiven => new ClusterGiven();
