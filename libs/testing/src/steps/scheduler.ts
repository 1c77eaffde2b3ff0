/**
 * What scheduler specs say: nodes with resources, labels, plugins and states; services;
 * PENDING tasks (created and allocated); and, after a tick, where each task went or why
 * it waits.
 */
import { TaskState } from '@shoal/contracts';
import type { GenericResource, NodeAvailability, NodeRole, NodeState, Platform, PluginDescription, PortConfig, ServiceMode, ShoalEvent, TaskSpec } from '@shoal/contracts';
import type { Proposal } from '@shoal/domain';
import { newTask, nodeDescription, serviceSpec } from '../builders';
import type { Given, Specification } from '../specification';

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

/** A node registers (4 CPUs and 8 GiB unless told), then gets its spec and state when they are not the defaults. */
export const node = (id: string, o: NodeOptions = {}) => (spec: Specification): ShoalEvent[] => {
  const base = nodeDescription(o.hostname ?? id);
  const events: ShoalEvent[] = [
    spec.event('NodeRegistered', {
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
  ];
  if (o.labels || o.availability || (o.role && o.role !== 'worker')) {
    events.push(spec.event('NodeSpecUpdated', { id, spec: { labels: o.labels ?? {}, role: o.role ?? 'worker', availability: o.availability ?? 'active' } }));
  }
  if (o.state && o.state !== 'ready') events.push(spec.event('NodeStatusChanged', { nodes: [{ id, state: o.state }] }));
  return events;
};

/** `count` nodes named prefix1 … prefixN. */
export const nodes = (prefix: string, count: number, o: NodeOptions = {}): Given => (spec) =>
  Array.from({ length: count }, (_, i) => node(`${prefix}${i + 1}`, o)(spec)).flat();

export const nodeSpec = (id: string, nodeSpec: { labels: Record<string, string>; role: NodeRole; availability: NodeAvailability }): Given => (spec) =>
  spec.event('NodeSpecUpdated', { id, spec: nodeSpec });

/** A service whose tasks run with `task` (over the defaults), replicated once unless told. */
export const service = (id: string, task: Partial<TaskSpec> = {}, mode: ServiceMode = { kind: 'replicated', replicas: 1 }, ports?: readonly PortConfig[]): Given => (spec) => {
  const base = serviceSpec(id, mode);
  return spec.event('ServiceCreated', { id, spec: { ...base, task: { ...base.task, ...task }, ...(ports ? { endpoint: { mode: 'vip', ports } } : {}) } });
};

/** `count` PENDING tasks of the service at its version (created and allocated), named `<service>.t<n>`; `lastCreated` names them. */
export const pending = (serviceId: string, count: number, o: { nodeId?: string; ports?: readonly PortConfig[] } = {}): Given => (spec) => {
  const service = spec.state.services.get(serviceId);
  if (!service) throw new Error(`no service ${serviceId}`);
  const tasks = Array.from({ length: count }, () => {
    const n = spec.next('task');
    return newTask(`${serviceId}.t${n}`, serviceId, service.spec, { slot: n, specVersion: service.version, ...(o.nodeId ? { nodeId: o.nodeId } : {}) });
  });
  const created = spec.event('TasksCreated', { tasks });
  return [created, spec.event('TasksAllocated', { tasks: tasks.map((t) => ({ id: t.id, attachments: [], ...(o.ports ? { ports: o.ports } : {}) })) })];
};

/** A task on the node reports a state (RUNNING, FAILED, …). */
export const reported = (nodeId: string, taskId: string, state: TaskState): Given => (spec) =>
  spec.event('TaskStatusesReported', { nodeId, statuses: [{ id: taskId, state, at: spec.b.now() }] });

export interface Placements {
  /** task id → node id */
  readonly assigned: Map<string, string>;
  readonly why: Map<string, string>;
  /** task id → explanation */
  readonly unschedulable: Map<string, string>;
  readonly proposals: readonly Proposal[];
  /** Tasks per node for a service, over every task now on a node. */
  perNode(serviceId: string): Map<string, number>;
}

/** When the scheduler ticks (every proposal must apply), then these tasks went there, and these wait, saying why. */
export const whenScheduled = (spec: Specification, now?: Date): Placements => {
  const decision = spec.whenTicked(now);
  decision.thenApplied();
  const assigned = new Map<string, string>();
  const why = new Map<string, string>();
  const unschedulable = new Map<string, string>();
  for (const p of decision.proposals) {
    if (p.type === 'TasksAssigned') {
      for (const t of p.data.tasks) {
        assigned.set(t.id, t.nodeId);
        why.set(t.id, t.why);
      }
    }
    if (p.type === 'TasksUnschedulable') for (const t of p.data.tasks) unschedulable.set(t.id, t.explain);
  }
  const state = spec.state;
  return {
    assigned,
    why,
    unschedulable,
    proposals: decision.proposals,
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
};
