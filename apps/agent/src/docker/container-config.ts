/**
 * A task's container, as the Engine API's create body (`POST /containers/create`): the
 * one place every field of Shoal's TaskSpec that Docker maps onto a container is mapped,
 * after moby's daemon/cluster/executor/container. Pure: a unit test calls it with no
 * engine. A field it cannot honour is refused by name (UnsupportedFieldError): the task
 * fails saying so, nothing is silently dropped. docs/executor-docker.md has the table.
 */
import type { AssignedNetwork, ContainerSpec, Mount, PortConfig, Resources, TaskSpec } from '@shoal/contracts';
import { DEFAULT_STOP_GRACE_PERIOD_MS } from '../executor';

/** The task names a field this executor cannot honour. */
export class UnsupportedFieldError extends Error {
  constructor(
    readonly field: string,
    reason: string,
  ) {
    super(`${field}: ${reason}`);
    this.name = 'UnsupportedFieldError';
  }
}

/** SwarmKit's labels on a task's container. */
export const LABELS = {
  serviceId: 'com.docker.swarm.service.id',
  serviceName: 'com.docker.swarm.service.name',
  taskId: 'com.docker.swarm.task.id',
  taskName: 'com.docker.swarm.task.name',
  nodeId: 'com.docker.swarm.node.id',
} as const;

/** What the mapping needs of a task. */
export interface ContainerTask {
  readonly id: string;
  readonly serviceId: string;
  readonly serviceName: string;
  /** 0 for a global service's task. */
  readonly slot: number;
  readonly spec: TaskSpec;
  /** The ports the allocator gave the task's service (published on this node). */
  readonly ports?: readonly PortConfig[];
  /** The networks the allocator attached the task to, with its addresses on each. */
  readonly networks?: readonly AssignedNetwork[];
}

/** A config the executor wrote on the host (on tmpfs), bound read-only at its target. */
export interface ConfigFile {
  readonly hostPath: string;
  readonly target: string;
}

export interface ContainerConfigInput {
  readonly task: ContainerTask;
  readonly nodeId: string;
  readonly configFiles?: readonly ConfigFile[];
  /** The host address published ports bind to ('' or absent: every address, as Docker does). */
  readonly publishAddress?: string;
}

export interface ContainerCreate {
  readonly name: string;
  readonly body: Record<string, unknown>;
  /**
   * The task's networks after its first (which the create body joins): each an engine
   * network and the body of `POST /networks/{name}/connect`, made before the container
   * starts (API 1.41 joins one network at create).
   */
  readonly connect: readonly { readonly network: string; readonly body: Record<string, unknown> }[];
}

/** The labels on the engine network that makes a Shoal network real on a node. */
export const NETWORK_LABELS = { networkId: 'shoal.network.id', networkName: 'shoal.network.name' } as const;

/** The engine network of a Shoal network: `shoal-<network name>`. */
export const engineNetworkName = (network: Pick<AssignedNetwork, 'name'>): string => `shoal-${network.name}`;

const isIpv6 = (address: string): boolean => address.includes(':');

/**
 * The create body of a Shoal network's engine network (`POST /networks/create`): a bridge
 * with the allocator's subnet and gateway, internal when the Shoal network is (the engine
 * forwards nothing between it and any other interface), and attachable when it is (the
 * engine records it; any container may join a bridge either way).
 */
export const networkCreate = (network: AssignedNetwork): Record<string, unknown> => ({
  Name: engineNetworkName(network),
  CheckDuplicate: true,
  Driver: 'bridge',
  Internal: network.internal === true,
  Attachable: network.attachable === true,
  ...(isIpv6(network.subnet) ? { EnableIPv6: true } : {}),
  Labels: { [NETWORK_LABELS.networkId]: network.id, [NETWORK_LABELS.networkName]: network.name },
  IPAM: { Driver: 'default', Config: [{ Subnet: network.subnet, Gateway: network.gateway }] },
});

/**
 * The names the engine's DNS answers with the task's address on one network, as Docker's
 * swarm networks do: its service's name and `tasks.<service>` (each answered with the
 * addresses of all the service's tasks on the network, here those on this node), its
 * container's name, and its spec's aliases for that network.
 */
const endpointAliases = (task: Pick<ContainerTask, 'id' | 'serviceName' | 'slot' | 'spec'>, network: Pick<AssignedNetwork, 'id' | 'name'>, nodeId: string): string[] => {
  const specAliases = (task.spec.networks ?? []).filter((config) => config.target === network.id || config.target === network.name).flatMap((config) => config.aliases ?? []);
  return [...new Set([task.serviceName, `tasks.${task.serviceName}`, containerName(task, nodeId), ...specAliases])];
};

/** The task's endpoint on one network: the allocator's addresses, and its names there. */
const endpointConfig = (task: ContainerTask, network: AssignedNetwork, nodeId: string): Record<string, unknown> => {
  const addresses = network.addresses.map((address) => address.split('/')[0]!);
  const ipv4 = addresses.find((address) => !isIpv6(address));
  const ipv6 = addresses.find(isIpv6);
  return {
    ...(ipv4 || ipv6 ? { IPAMConfig: { ...(ipv4 ? { IPv4Address: ipv4 } : {}), ...(ipv6 ? { IPv6Address: ipv6 } : {}) } } : {}),
    Aliases: endpointAliases(task, network, nodeId),
  };
};

/**
 * The task's networks the node makes real: all but the ingress network, which exists for
 * the routing mesh alone (there is none: a port published in ingress mode is published on
 * the task's node), and whose default subnet is the one an engine in swarm mode holds itself.
 */
export const nodeNetworks = (task: Pick<ContainerTask, 'networks'>): AssignedNetwork[] => (task.networks ?? []).filter((network) => !network.ingress);

/** The task's networks: the first joined at create (NetworkMode, EndpointsConfig), the others connected after. */
const taskNetworks = (task: ContainerTask, nodeId: string): { create: Record<string, unknown>; connect: ContainerCreate['connect'] } => {
  const networks = nodeNetworks(task);
  if (networks.length === 0) {
    if (task.spec.networks && task.spec.networks.length > 0 && (task.networks ?? []).length === 0) {
      throw new UnsupportedFieldError('task.networks', "the assignment carries no addresses for the task's networks (its dispatcher predates network attachments)");
    }
    return { create: {}, connect: [] };
  }
  const [first, ...rest] = networks;
  const firstName = engineNetworkName(first!);
  return {
    create: { NetworkingConfig: { EndpointsConfig: { [firstName]: endpointConfig(task, first!, nodeId) } }, NetworkMode: firstName },
    connect: rest.map((network) => ({ network: engineNetworkName(network), body: { Container: containerName(task, nodeId), EndpointConfig: endpointConfig(task, network, nodeId) } })),
  };
};

/** Fields of each object the mapping honours; any other that is set is refused by name. */
const TASK_FIELDS = new Set(['container', 'resources', 'restartPolicy', 'placement', 'networks', 'forceUpdate', 'logDriver']);
const CONTAINER_FIELDS = new Set([
  'image', 'command', 'args', 'env', 'labels', 'dir', 'user', 'hostname', 'stopGracePeriodMs', 'configs', 'secrets', 'groups', 'stopSignal',
  'healthcheck', 'init', 'tty', 'openStdin', 'readOnly', 'capabilityAdd', 'capabilityDrop', 'sysctls', 'ulimits', 'dnsConfig', 'hosts', 'mounts',
]);
const LIMIT_FIELDS = new Set(['nanoCpus', 'memoryBytes', 'pids', 'generic']);
const RESERVATION_FIELDS = new Set(['nanoCpus', 'memoryBytes', 'generic']);

const isSet = (value: unknown): boolean =>
  value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0) && !(typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0);

/** Refuses any set field of `object` that `known` does not list. */
const onlyKnown = (object: object | undefined, known: ReadonlySet<string>, path: string): void => {
  for (const [key, value] of Object.entries(object ?? {})) {
    if (!known.has(key) && isSet(value)) throw new UnsupportedFieldError(`${path}.${key}`, 'the docker executor does not support this field');
  }
};

const MS_TO_NS = 1_000_000;

/** The container's name: `<service>.<slot>.<task id>`, a global service's `<service>.<node id>.<task id>`. */
export const containerName = (task: Pick<ContainerTask, 'id' | 'serviceName' | 'slot'>, nodeId: string): string =>
  `${task.serviceName}.${task.slot > 0 ? task.slot : nodeId}.${task.id}`;

const swarmLabels = (task: ContainerTask, nodeId: string): Record<string, string> => ({
  [LABELS.serviceId]: task.serviceId,
  [LABELS.serviceName]: task.serviceName,
  [LABELS.taskId]: task.id,
  [LABELS.taskName]: containerName(task, nodeId),
  [LABELS.nodeId]: nodeId,
});

/** Docker's GenericResources as env, as the engine gives them: DOCKER_RESOURCE_<KIND>=<names, or the count>. */
const genericResourceEnv = (resources: Resources | undefined): string[] => {
  const byKind = new Map<string, string[]>();
  for (const resource of resources?.generic ?? []) {
    const values = byKind.get(resource.kind) ?? [];
    values.push('named' in resource ? resource.named : String(resource.discrete));
    byKind.set(resource.kind, values);
  }
  return [...byKind].map(([kind, values]) => `DOCKER_RESOURCE_${kind.toUpperCase()}=${values.join(',')}`);
};

/** "IP host [alias…]" (swarm's Hosts) → the engine's "host:IP", one per name. */
const extraHosts = (hosts: readonly string[]): string[] =>
  hosts.flatMap((line, index) => {
    const [ip, ...names] = line.trim().split(/\s+/);
    if (!ip || names.length === 0) throw new UnsupportedFieldError(`container.hosts[${index}]`, `"${line}" is not "IP hostname [alias…]"`);
    return names.map((name) => `${name}:${ip}`);
  });

const engineMount = (mount: Mount, index: number): Record<string, unknown> => {
  const field = `container.mounts[${index}]`;
  if (typeof mount.target !== 'string' || !mount.target.startsWith('/')) throw new UnsupportedFieldError(`${field}.target`, 'a mount needs an absolute target');
  if (mount.type === 'bind' && !mount.source?.startsWith('/')) throw new UnsupportedFieldError(`${field}.source`, 'a bind mount needs an absolute host path');
  if (mount.type === 'tmpfs' && mount.source) throw new UnsupportedFieldError(`${field}.source`, 'a tmpfs mount has no source');
  if (mount.bindOptions && mount.type !== 'bind') throw new UnsupportedFieldError(`${field}.bindOptions`, `bind options on a ${mount.type} mount`);
  if (mount.volumeOptions && mount.type !== 'volume') throw new UnsupportedFieldError(`${field}.volumeOptions`, `volume options on a ${mount.type} mount`);
  if (mount.tmpfsOptions && mount.type !== 'tmpfs') throw new UnsupportedFieldError(`${field}.tmpfsOptions`, `tmpfs options on a ${mount.type} mount`);
  if (!['bind', 'volume', 'tmpfs'].includes(mount.type)) throw new UnsupportedFieldError(`${field}.type`, `"${String(mount.type)}" is not bind, volume or tmpfs`);
  const { bindOptions, volumeOptions, tmpfsOptions } = mount;
  return {
    Type: mount.type,
    ...(mount.source ? { Source: mount.source } : {}),
    Target: mount.target,
    ...(mount.readOnly ? { ReadOnly: true } : {}),
    ...(mount.consistency ? { Consistency: mount.consistency } : {}),
    ...(bindOptions ? { BindOptions: { ...(bindOptions.propagation ? { Propagation: bindOptions.propagation } : {}), ...(bindOptions.nonRecursive ? { NonRecursive: true } : {}) } } : {}),
    ...(volumeOptions
      ? {
          VolumeOptions: {
            ...(volumeOptions.noCopy ? { NoCopy: true } : {}),
            ...(volumeOptions.labels ? { Labels: { ...volumeOptions.labels } } : {}),
            ...(volumeOptions.driverConfig
              ? { DriverConfig: { ...(volumeOptions.driverConfig.name ? { Name: volumeOptions.driverConfig.name } : {}), ...(volumeOptions.driverConfig.options ? { Options: { ...volumeOptions.driverConfig.options } } : {}) } }
              : {}),
          },
        }
      : {}),
    ...(tmpfsOptions ? { TmpfsOptions: { ...(tmpfsOptions.sizeBytes ? { SizeBytes: tmpfsOptions.sizeBytes } : {}), ...(tmpfsOptions.mode ? { Mode: tmpfsOptions.mode } : {}) } } : {}),
  };
};

/** A config's target, absolute: a relative one counts from "/" (as Docker takes it). */
const absoluteTarget = (target: string): string => (target.startsWith('/') ? target : `/${target}`);

const healthcheck = (spec: ContainerSpec): Record<string, unknown> | undefined => {
  const check = spec.healthcheck;
  if (!check) return undefined;
  return {
    ...(check.test ? { Test: [...check.test] } : {}),
    ...(check.intervalMs ? { Interval: check.intervalMs * MS_TO_NS } : {}),
    ...(check.timeoutMs ? { Timeout: check.timeoutMs * MS_TO_NS } : {}),
    ...(check.startPeriodMs ? { StartPeriod: check.startPeriodMs * MS_TO_NS } : {}),
    ...(check.retries ? { Retries: check.retries } : {}),
  };
};

/** Published ports, each on this node (host mode; ingress mode too, having no routing mesh): ExposedPorts and PortBindings. */
const publishedPorts = (ports: readonly PortConfig[], address: string): { exposed: Record<string, object>; bindings: Record<string, object[]> } => {
  const exposed: Record<string, object> = {};
  const bindings: Record<string, object[]> = {};
  for (const port of ports) {
    const key = `${port.targetPort}/${port.protocol}`;
    exposed[key] = {};
    (bindings[key] ??= []).push({ HostIp: address, HostPort: port.publishedPort ? String(port.publishedPort) : '' });
  }
  return { exposed, bindings };
};

/** The create body of a task's container, and its name; an UnsupportedFieldError for a field it cannot honour. */
export const containerConfig = (input: ContainerConfigInput): ContainerCreate => {
  const { task, nodeId } = input;
  const spec = task.spec;
  const container = spec.container;
  onlyKnown(spec, TASK_FIELDS, 'task');
  onlyKnown(container, CONTAINER_FIELDS, 'container');
  onlyKnown(spec.resources?.limits, LIMIT_FIELDS, 'resources.limits');
  onlyKnown(spec.resources?.reservations, RESERVATION_FIELDS, 'resources.reservations');
  if (typeof container.image !== 'string' || container.image.trim() === '') throw new UnsupportedFieldError('container.image', 'an image is required');
  const limits = spec.resources?.limits;
  const reservations = spec.resources?.reservations;
  const env = [...(container.env ?? []), ...genericResourceEnv(reservations)];
  const { exposed, bindings } = publishedPorts(task.ports ?? [], input.publishAddress ?? '');
  const graceMs = container.stopGracePeriodMs ?? DEFAULT_STOP_GRACE_PERIOD_MS;
  const dns = container.dnsConfig;
  const mounts = [
    ...(container.mounts ?? []).map(engineMount),
    ...(input.configFiles ?? []).map((file) => ({ Type: 'bind', Source: file.hostPath, Target: absoluteTarget(file.target), ReadOnly: true })),
  ];
  const health = healthcheck(container);
  const networks = taskNetworks(task, nodeId);
  const body: Record<string, unknown> = {
    Image: container.image,
    Labels: { ...(container.labels ?? {}), ...swarmLabels(task, nodeId) },
    ...(container.command && container.command.length > 0 ? { Entrypoint: [...container.command] } : {}),
    ...(container.args && container.args.length > 0 ? { Cmd: [...container.args] } : {}),
    ...(env.length > 0 ? { Env: env } : {}),
    ...(container.dir ? { WorkingDir: container.dir } : {}),
    ...(container.user ? { User: container.user } : {}),
    ...(container.hostname ? { Hostname: container.hostname } : {}),
    ...(container.tty ? { Tty: true } : {}),
    ...(container.openStdin ? { OpenStdin: true } : {}),
    ...(container.stopSignal ? { StopSignal: container.stopSignal } : {}),
    StopTimeout: Math.ceil(graceMs / 1000),
    ...(health ? { Healthcheck: health } : {}),
    ...(Object.keys(exposed).length > 0 ? { ExposedPorts: exposed } : {}),
    ...(networks.create.NetworkingConfig ? { NetworkingConfig: networks.create.NetworkingConfig } : {}),
    HostConfig: {
      ...(networks.create.NetworkMode ? { NetworkMode: networks.create.NetworkMode } : {}),
      ...(container.groups && container.groups.length > 0 ? { GroupAdd: [...container.groups] } : {}),
      ...(container.init !== undefined ? { Init: container.init } : {}),
      ...(container.readOnly ? { ReadonlyRootfs: true } : {}),
      ...(container.capabilityAdd && container.capabilityAdd.length > 0 ? { CapAdd: [...container.capabilityAdd] } : {}),
      ...(container.capabilityDrop && container.capabilityDrop.length > 0 ? { CapDrop: [...container.capabilityDrop] } : {}),
      ...(container.sysctls && Object.keys(container.sysctls).length > 0 ? { Sysctls: { ...container.sysctls } } : {}),
      ...(container.ulimits && container.ulimits.length > 0 ? { Ulimits: container.ulimits.map((u) => ({ Name: u.name, Soft: u.soft, Hard: u.hard })) } : {}),
      ...(dns?.nameservers && dns.nameservers.length > 0 ? { Dns: [...dns.nameservers] } : {}),
      ...(dns?.search && dns.search.length > 0 ? { DnsSearch: [...dns.search] } : {}),
      ...(dns?.options && dns.options.length > 0 ? { DnsOptions: [...dns.options] } : {}),
      ...(container.hosts && container.hosts.length > 0 ? { ExtraHosts: extraHosts(container.hosts) } : {}),
      ...(mounts.length > 0 ? { Mounts: mounts } : {}),
      ...(limits?.nanoCpus ? { NanoCpus: limits.nanoCpus } : {}),
      ...(limits?.memoryBytes ? { Memory: limits.memoryBytes } : {}),
      ...(reservations?.memoryBytes ? { MemoryReservation: reservations.memoryBytes } : {}),
      ...(limits?.pids ? { PidsLimit: limits.pids } : {}),
      ...(spec.logDriver?.name ? { LogConfig: { Type: spec.logDriver.name, Config: { ...(spec.logDriver.options ?? {}) } } } : {}),
      ...(Object.keys(bindings).length > 0 ? { PortBindings: bindings } : {}),
    },
  };
  return { name: containerName(task, nodeId), body, connect: networks.connect };
};
