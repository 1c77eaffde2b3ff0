/**
 * What allocator specs say: services with networks and published ports, networks with
 * their subnets, tasks of a service at its version, tasks that end on a node, and the
 * address a task got on a network.
 */
import { TaskState } from '@shoal/contracts';
import type { PortConfig, ServiceSpec, ShoalEvent } from '@shoal/contracts';
import { AllocatorCore } from '@shoal/domain';
import type { AllocatorOptions } from '@shoal/domain';
import { clusterInit, newTask, serviceSpec } from '../builders';
import { specification } from '../specification';
import type { Given, Specification } from '../specification';

/**
 * A specification of the allocator: its ingress ids counted (ingress-1, ingress-2, … across
 * restarts), the cluster initialized unless told otherwise, and the core active.
 */
export const allocatorSpecification = (options: Partial<AllocatorOptions> = {}, initialized = true): Specification<AllocatorCore> => {
  const spec = specification({ core: (s) => new AllocatorCore({ newId: () => `ingress-${s.next('ingress')}`, ...options }) });
  if (initialized) spec.happen('ClusterInitialized', clusterInit(spec.b).data);
  return spec.reconcileAll();
};

export const serviceCreated = (id: string, spec: ServiceSpec): Given => (s) => s.event('ServiceCreated', { id, spec });

/** Tasks of a service at its current version, slots 1.. */
export const tasksOf = (serviceId: string, ...ids: string[]): Given => (s) => {
  const service = s.state.services.get(serviceId);
  if (!service) throw new Error(`no service ${serviceId}`);
  return s.event('TasksCreated', {
    tasks: ids.map((id, i) => newTask(id, serviceId, service.spec, { slot: i + 1, specVersion: service.version })),
  });
};

/** An overlay network, with one IPAM subnet (and gateway) when given. */
export const network = (id: string, name: string, subnet?: string, gateway?: string): Given => (s) => {
  const ipam = subnet === undefined ? {} : { ipam: [{ subnet, ...(gateway ? { gateway } : {}) }] };
  return s.event('NetworkCreated', { id, spec: { name, driver: 'overlay', ...ipam } });
};

/** A task ends as its agent would report it, assigned to node-1 first (registered when it must be). */
export const ended = (id: string, state: TaskState = TaskState.FAILED): Given => (s) => {
  const events: ShoalEvent[] = [];
  if (!s.state.nodes.has('node-1')) {
    events.push(s.event('NodeRegistered', { id: 'node-1', role: 'worker', description: { hostname: 'node-1', platform: { os: 'linux', architecture: 'x86_64' }, resources: { nanoCpus: 1e12, memoryBytes: 2 ** 50 }, engine: { version: '28' } } }));
  }
  events.push(s.event('TasksAssigned', { tasks: [{ id, nodeId: 'node-1', why: 'test' }] }));
  events.push(s.event('TaskStatusesReported', { nodeId: 'node-1', statuses: [{ id, state, at: s.b.now() }] }));
  return events;
};

/** "10.0.1.2/24": a task's address on a network (by name). */
export const addressOf = (s: Specification, taskId: string, networkName: string): string | undefined => {
  const network = [...s.state.networks.values()].find((n) => n.spec.name === networkName);
  return s.task(taskId).attachments?.find((a) => a.network === network?.id)?.addresses[0];
};

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
