/**
 * Services: Docker's ServiceSpec ↔ Shoal's ServiceSpec, and Shoal's service → Docker's
 * Service object. Durations cross as nanoseconds (Docker) ↔ milliseconds (Shoal). A spec
 * Shoal cannot accept throws a SpecError naming Docker's field.
 *
 * Defaults are not stored: a value equal to its default (restart policy, stop grace
 * period, update and rollback config, a bare vip endpoint) is left out of Shoal's spec.
 * `docker service update` reads the spec with the defaults inserted and sends them back;
 * storing them would change the task spec and restart every task for nothing.
 */
import {
  DEFAULT_RESTART_POLICY,
  DEFAULT_UPDATE_CONFIG,
  FAILURE_ACTIONS,
  PORT_PROTOCOLS,
  RESTART_CONDITIONS,
  UPDATE_ORDERS,
  TaskState,
  isJob,
} from '@shoal/contracts';
import type {
  EndpointSpec,
  FailureAction,
  GenericResource,
  NetworkAttachmentConfig,
  Placement,
  PortConfig,
  PortProtocol,
  Resources,
  RestartCondition,
  RestartPolicy,
  ServiceMode,
  ServiceSpec,
  TaskSpec,
  UpdateConfig,
  UpdateOrder,
} from '@shoal/contracts';
import { canonicalJson } from '@shoal/domain';
import type { ClusterState, Service } from '@shoal/domain';
import { fromDockerConfigReferences, toDockerConfigReferences } from './config-references';
import { fromDockerSecretReferences, toDockerSecretReferences } from './secret-references';
import { fromDockerContainerExtras, fromDockerLogDriver, refuseUnsupportedTaskFields, toDockerContainerExtras, toDockerLogDriver } from './container-fields';
import { constraintProblem } from './constraints';
import type {
  DockerEndpointSpec,
  DockerGenericResource,
  DockerPortConfig,
  DockerResources,
  DockerService,
  DockerServiceMode,
  DockerServiceSpec,
  DockerTaskSpec,
  DockerUpdateConfig,
} from './docker-types';
import { msToNs, nsToMs } from './durations';
import { SpecError } from './spec-error';

// ── Docker → Shoal ─────────────────────────────────────────────────────────

/** Docker's stop grace period when none is given. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

const isDefault = (value: unknown, fallback: unknown): boolean => canonicalJson(value) === canonicalJson(fallback);

const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined, fallback: T, field: string): T => {
  if (value === undefined || value === '') return fallback;
  if (!allowed.includes(value as T)) throw new SpecError(field, `"${value}" is not one of ${allowed.join(', ')}`);
  return value as T;
};

/** Labels as the decode left them (string → string), or none when empty. */
const labelsOf = (labels: Readonly<Record<string, string>> | undefined): Record<string, string> | undefined =>
  labels && Object.keys(labels).length > 0 ? { ...labels } : undefined;

const optionalLabels = (labels: Record<string, string> | undefined): { labels?: Record<string, string> } => (labels ? { labels } : {});

const nonNegative = (value: number | undefined, field: string): number | undefined => {
  if (value === undefined || value === null) return undefined;
  if (!Number.isInteger(value) || value < 0) throw new SpecError(field, `${value} is not a non-negative integer`);
  return value;
};

export const fromDockerMode = (mode: DockerServiceMode | undefined): ServiceMode => {
  const given = Object.entries(mode ?? {}).filter(([, value]) => value !== undefined && value !== null);
  if (given.length > 1) throw new SpecError('Mode', `exactly one of Replicated, Global, ReplicatedJob or GlobalJob, not ${given.map(([key]) => key).join(' and ')}`);
  // The decode (SERVICE_SPEC's Mode is a choice) has refused any other key.
  const [kind, value] = (given[0] ?? ['Replicated', {}]) as [keyof DockerServiceMode, unknown];
  switch (kind) {
    case 'Replicated':
      return { kind: 'replicated', replicas: nonNegative((value as { Replicas?: number }).Replicas, 'Mode.Replicated.Replicas') ?? 1 };
    case 'Global':
      return { kind: 'global' };
    case 'ReplicatedJob': {
      const job = value as { MaxConcurrent?: number; TotalCompletions?: number };
      const maxConcurrent = nonNegative(job.MaxConcurrent, 'Mode.ReplicatedJob.MaxConcurrent') ?? 1;
      return { kind: 'replicated-job', maxConcurrent, totalCompletions: nonNegative(job.TotalCompletions, 'Mode.ReplicatedJob.TotalCompletions') ?? maxConcurrent };
    }
    case 'GlobalJob':
      return { kind: 'global-job' };
    default: {
      const _exhaustive: never = kind;
      return _exhaustive;
    }
  }
};

const fromDockerGeneric = (generic: readonly DockerGenericResource[] | null | undefined, field: string): GenericResource[] | undefined =>
  generic?.map((item, index) => {
    if ('NamedResourceSpec' in item && item.NamedResourceSpec) return { kind: item.NamedResourceSpec.Kind, named: item.NamedResourceSpec.Value };
    if ('DiscreteResourceSpec' in item && item.DiscreteResourceSpec) return { kind: item.DiscreteResourceSpec.Kind, discrete: item.DiscreteResourceSpec.Value };
    throw new SpecError(`${field}[${index}]`, 'expected NamedResourceSpec or DiscreteResourceSpec');
  });

/**
 * Docker's Limits or Reservations as Shoal's Resources. Pids is a limit only (Docker's
 * Reservations have none and ignore it, as Go ignores an unknown field); 0 is no limit.
 */
const fromDockerResources = (resources: DockerResources | undefined, field: string, kind: 'limits' | 'reservations'): Resources | undefined => {
  if (!resources) return undefined;
  const nanoCpus = nonNegative(resources.NanoCPUs, `${field}.NanoCPUs`);
  const memoryBytes = nonNegative(resources.MemoryBytes, `${field}.MemoryBytes`);
  const generic = fromDockerGeneric(resources.GenericResources, `${field}.GenericResources`);
  const pids = kind === 'limits' ? nonNegative(resources.Pids, `${field}.Pids`) : undefined;
  const result: Resources = {
    ...(nanoCpus ? { nanoCpus } : {}),
    ...(memoryBytes ? { memoryBytes } : {}),
    ...(generic && generic.length > 0 ? { generic } : {}),
    ...(pids ? { pids } : {}),
  };
  return Object.keys(result).length > 0 ? result : undefined;
};

const fromDockerRestart = (policy: DockerTaskSpec['RestartPolicy']): RestartPolicy | undefined => {
  if (!policy) return undefined;
  return {
    condition: oneOf<RestartCondition>(RESTART_CONDITIONS, policy.Condition, DEFAULT_RESTART_POLICY.condition, 'TaskTemplate.RestartPolicy.Condition'),
    delayMs: policy.Delay === undefined || policy.Delay === null ? DEFAULT_RESTART_POLICY.delayMs : nsToMs(nonNegative(policy.Delay, 'TaskTemplate.RestartPolicy.Delay')!, 'TaskTemplate.RestartPolicy.Delay'),
    maxAttempts: nonNegative(policy.MaxAttempts, 'TaskTemplate.RestartPolicy.MaxAttempts') ?? 0,
    windowMs: nsToMs(nonNegative(policy.Window, 'TaskTemplate.RestartPolicy.Window') ?? 0, 'TaskTemplate.RestartPolicy.Window'),
  };
};

const fromDockerPlacement = (placement: DockerTaskSpec['Placement']): Placement | undefined => {
  if (!placement) return undefined;
  const constraints = (placement.Constraints ?? []).map((constraint, index) => {
    const problem = constraintProblem(constraint);
    if (problem) throw new SpecError(`TaskTemplate.Placement.Constraints[${index}]`, problem);
    return constraint.trim();
  });
  const preferences = (placement.Preferences ?? []).map((preference, index) => {
    const spread = preference.Spread?.SpreadDescriptor?.trim();
    if (!spread) throw new SpecError(`TaskTemplate.Placement.Preferences[${index}]`, 'expected Spread.SpreadDescriptor (e.g. node.labels.zone)');
    return { spread };
  });
  const maxReplicas = nonNegative(placement.MaxReplicas, 'TaskTemplate.Placement.MaxReplicas');
  const platforms = (placement.Platforms ?? []).map((platform) => ({ os: platform.OS ?? '', architecture: platform.Architecture ?? '' }));
  const result: Placement = {
    ...(constraints.length > 0 ? { constraints } : {}),
    ...(preferences.length > 0 ? { preferences } : {}),
    ...(maxReplicas ? { maxReplicas } : {}),
    ...(platforms.length > 0 ? { platforms } : {}),
  };
  return Object.keys(result).length > 0 ? result : undefined;
};

const fromDockerNetworks = (networks: DockerServiceSpec['Networks'], field: string): NetworkAttachmentConfig[] =>
  (networks ?? []).map((network, index) => {
    if (!network.Target) throw new SpecError(`${field}[${index}].Target`, 'a network id or name is required');
    return { target: network.Target, ...(network.Aliases && network.Aliases.length > 0 ? { aliases: [...network.Aliases] } : {}) };
  });

export const fromDockerTaskSpec = (task: DockerTaskSpec | undefined, topLevelNetworks?: DockerServiceSpec['Networks']): TaskSpec => {
  const container = task?.ContainerSpec;
  refuseUnsupportedTaskFields(task ?? {});
  const image = container?.Image?.trim();
  if (!image) throw new SpecError('TaskTemplate.ContainerSpec.Image', 'an image is required');
  const limits = fromDockerResources(task?.Resources?.Limits, 'TaskTemplate.Resources.Limits', 'limits');
  const reservations = fromDockerResources(task?.Resources?.Reservations, 'TaskTemplate.Resources.Reservations', 'reservations');
  const restart = fromDockerRestart(task?.RestartPolicy);
  const restartPolicy = restart && !isDefault(restart, DEFAULT_RESTART_POLICY) ? restart : undefined;
  const placement = fromDockerPlacement(task?.Placement);
  const networks = [...fromDockerNetworks(task?.Networks, 'TaskTemplate.Networks'), ...fromDockerNetworks(topLevelNetworks, 'Networks')];
  const forceUpdate = nonNegative(task?.ForceUpdate, 'TaskTemplate.ForceUpdate');
  const stopGraceNs = nonNegative(container?.StopGracePeriod, 'TaskTemplate.ContainerSpec.StopGracePeriod');
  const stopGrace = stopGraceNs === undefined ? undefined : nsToMs(stopGraceNs, 'TaskTemplate.ContainerSpec.StopGracePeriod');
  const logDriver = fromDockerLogDriver(task?.LogDriver);
  const configs = fromDockerConfigReferences(container?.Configs);
  const secrets = fromDockerSecretReferences(container?.Secrets);
  return {
    container: {
      image,
      ...(container?.Command && container.Command.length > 0 ? { command: [...container.Command] } : {}),
      ...(container?.Args && container.Args.length > 0 ? { args: [...container.Args] } : {}),
      ...(container?.Env && container.Env.length > 0 ? { env: [...container.Env] } : {}),
      ...optionalLabels(labelsOf(container?.Labels)),
      ...(container?.Dir ? { dir: container.Dir } : {}),
      ...(container?.User ? { user: container.User } : {}),
      ...(container?.Hostname ? { hostname: container.Hostname } : {}),
      ...(stopGrace !== undefined && stopGrace !== DEFAULT_STOP_GRACE_MS ? { stopGracePeriodMs: stopGrace } : {}),
      ...(configs ? { configs } : {}),
      ...(secrets ? { secrets } : {}),
      ...fromDockerContainerExtras(container ?? {}),
    },
    ...(limits || reservations ? { resources: { ...(limits ? { limits } : {}), ...(reservations ? { reservations } : {}) } } : {}),
    ...(restartPolicy ? { restartPolicy } : {}),
    ...(placement ? { placement } : {}),
    ...(networks.length > 0 ? { networks } : {}),
    ...(forceUpdate ? { forceUpdate } : {}),
    ...(logDriver ? { logDriver } : {}),
  };
};

export const fromDockerUpdateConfig = (config: DockerUpdateConfig | null | undefined, field: string): UpdateConfig | undefined => {
  if (!config) return undefined;
  const ratio = config.MaxFailureRatio ?? DEFAULT_UPDATE_CONFIG.maxFailureRatio;
  if (typeof ratio !== 'number' || ratio < 0 || ratio > 1) throw new SpecError(`${field}.MaxFailureRatio`, `${ratio} is not between 0 and 1`);
  const monitor = nonNegative(config.Monitor, `${field}.Monitor`);
  return {
    parallelism: nonNegative(config.Parallelism, `${field}.Parallelism`) ?? DEFAULT_UPDATE_CONFIG.parallelism,
    delayMs: nsToMs(nonNegative(config.Delay, `${field}.Delay`) ?? 0, `${field}.Delay`),
    failureAction: oneOf<FailureAction>(FAILURE_ACTIONS, config.FailureAction, DEFAULT_UPDATE_CONFIG.failureAction, `${field}.FailureAction`),
    // SwarmKit reads a zero monitor period as its default.
    monitorMs: monitor ? nsToMs(monitor, `${field}.Monitor`) : DEFAULT_UPDATE_CONFIG.monitorMs,
    maxFailureRatio: ratio,
    order: oneOf<UpdateOrder>(UPDATE_ORDERS, config.Order, DEFAULT_UPDATE_CONFIG.order, `${field}.Order`),
  };
};

const fromDockerPort = (port: DockerPortConfig, index: number): PortConfig => {
  const field = `EndpointSpec.Ports[${index}]`;
  const target = port.TargetPort;
  if (!Number.isInteger(target) || target! < 1 || target! > 65535) throw new SpecError(`${field}.TargetPort`, `${target} is not a port (1–65535)`);
  const published = port.PublishedPort;
  if (published !== undefined && published !== 0 && (!Number.isInteger(published) || published < 1 || published > 65535)) {
    throw new SpecError(`${field}.PublishedPort`, `${published} is not a port (1–65535)`);
  }
  return {
    ...(port.Name ? { name: port.Name } : {}),
    protocol: oneOf<PortProtocol>(PORT_PROTOCOLS, port.Protocol, 'tcp', `${field}.Protocol`),
    targetPort: target!,
    ...(published ? { publishedPort: published } : {}),
    publishMode: oneOf<'ingress' | 'host'>(['ingress', 'host'], port.PublishMode, 'ingress', `${field}.PublishMode`),
  };
};

const fromDockerEndpoint = (endpoint: DockerEndpointSpec | null | undefined): EndpointSpec | undefined => {
  if (!endpoint) return undefined;
  const ports = (endpoint.Ports ?? []).map(fromDockerPort);
  const mode = oneOf<'vip' | 'dnsrr'>(['vip', 'dnsrr'], endpoint.Mode, 'vip', 'EndpointSpec.Mode');
  // As SwarmKit: the routing mesh balances over a VIP, which a dnsrr service has not.
  if (mode === 'dnsrr' && ports.some((port) => port.publishMode === 'ingress')) {
    throw new SpecError('EndpointSpec', "port published with ingress mode can't be used with dnsrr mode");
  }
  return { mode, ...(ports.length > 0 ? { ports } : {}) };
};

const withoutDefault = <T>(value: T | undefined, fallback: unknown): T | undefined => (value !== undefined && isDefault(value, fallback) ? undefined : value);

/** Docker's ServiceSpec as Shoal's; throws a SpecError naming the field Shoal cannot accept. */
export const fromDockerServiceSpec = (spec: DockerServiceSpec): ServiceSpec => {
  const name = spec.Name?.trim();
  if (!name) throw new SpecError('Name', 'a service name is required');
  if (!/^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/.test(name) || name.length > 63) {
    throw new SpecError('Name', `"${name}" is not a valid name (letters, digits, "_", "." or "-", starting with a letter or digit, at most 63)`);
  }
  const update = withoutDefault(fromDockerUpdateConfig(spec.UpdateConfig, 'UpdateConfig'), DEFAULT_UPDATE_CONFIG);
  const rollback = withoutDefault(fromDockerUpdateConfig(spec.RollbackConfig, 'RollbackConfig'), DEFAULT_UPDATE_CONFIG);
  const endpoint = withoutDefault(fromDockerEndpoint(spec.EndpointSpec), { mode: 'vip' });
  return {
    name,
    ...optionalLabels(labelsOf(spec.Labels)),
    task: fromDockerTaskSpec(spec.TaskTemplate, spec.Networks),
    mode: fromDockerMode(spec.Mode),
    ...(update ? { update } : {}),
    ...(rollback ? { rollback } : {}),
    ...(endpoint ? { endpoint } : {}),
  };
};

// ── Shoal → Docker ─────────────────────────────────────────────────────────

export const toDockerMode = (mode: ServiceMode): DockerServiceMode => {
  switch (mode.kind) {
    case 'replicated':
      return { Replicated: { Replicas: mode.replicas } };
    case 'global':
      return { Global: {} };
    case 'replicated-job':
      return { ReplicatedJob: { MaxConcurrent: mode.maxConcurrent, TotalCompletions: mode.totalCompletions } };
    case 'global-job':
      return { GlobalJob: {} };
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
};

const toDockerGeneric = (generic: readonly GenericResource[]): DockerGenericResource[] =>
  generic.map((item) =>
    'named' in item ? { NamedResourceSpec: { Kind: item.kind, Value: item.named } } : { DiscreteResourceSpec: { Kind: item.kind, Value: item.discrete } },
  );

export const toDockerResources = (resources: Resources | undefined): DockerResources => ({
  ...(resources?.nanoCpus ? { NanoCPUs: resources.nanoCpus } : {}),
  ...(resources?.memoryBytes ? { MemoryBytes: resources.memoryBytes } : {}),
  ...(resources?.generic && resources.generic.length > 0 ? { GenericResources: toDockerGeneric(resources.generic) } : {}),
  ...(resources?.pids ? { Pids: resources.pids } : {}),
});

export const toDockerUpdateConfig = (config: UpdateConfig): DockerUpdateConfig => ({
  Parallelism: config.parallelism,
  Delay: msToNs(config.delayMs),
  FailureAction: config.failureAction,
  Monitor: msToNs(config.monitorMs),
  MaxFailureRatio: config.maxFailureRatio,
  Order: config.order,
});

export const toDockerPort = (port: PortConfig): DockerPortConfig => ({
  ...(port.name ? { Name: port.name } : {}),
  Protocol: port.protocol,
  TargetPort: port.targetPort,
  ...(port.publishedPort ? { PublishedPort: port.publishedPort } : {}),
  PublishMode: port.publishMode,
});

/** A task's placement as Docker shows it: only the parts that are set. */
const dockerPlacement = (placement: Placement | undefined): NonNullable<DockerTaskSpec['Placement']> => ({
  ...(placement?.constraints ? { Constraints: [...placement.constraints] } : {}),
  ...(placement?.preferences ? { Preferences: placement.preferences.map((p) => ({ Spread: { SpreadDescriptor: p.spread } })) } : {}),
  ...(placement?.maxReplicas ? { MaxReplicas: placement.maxReplicas } : {}),
  ...(placement?.platforms ? { Platforms: placement.platforms.map((p) => ({ Architecture: p.architecture, OS: p.os })) } : {}),
});

export const toDockerTaskSpec = (task: TaskSpec, options: { readonly insertDefaults?: boolean } = {}): DockerTaskSpec => {
  const { container } = task;
  const restart = task.restartPolicy ?? (options.insertDefaults ? DEFAULT_RESTART_POLICY : undefined);
  const placement = task.placement;
  return {
    ContainerSpec: {
      Image: container.image,
      ...(container.labels ? { Labels: { ...container.labels } } : {}),
      ...(container.command ? { Command: [...container.command] } : {}),
      ...(container.args ? { Args: [...container.args] } : {}),
      ...(container.hostname ? { Hostname: container.hostname } : {}),
      ...(container.env ? { Env: [...container.env] } : {}),
      ...(container.dir ? { Dir: container.dir } : {}),
      ...(container.user ? { User: container.user } : {}),
      ...(container.stopGracePeriodMs !== undefined
        ? { StopGracePeriod: msToNs(container.stopGracePeriodMs) }
        : options.insertDefaults
          ? { StopGracePeriod: msToNs(DEFAULT_STOP_GRACE_MS) }
          : {}),
      ...(container.configs ? { Configs: toDockerConfigReferences(container.configs) } : {}),
      ...(container.secrets ? { Secrets: toDockerSecretReferences(container.secrets) } : {}),
      ...toDockerContainerExtras(container),
      // Docker's default isolation, the only one Shoal's executors have.
      Isolation: 'default',
    },
    ...(task.resources || options.insertDefaults
      ? { Resources: { Limits: toDockerResources(task.resources?.limits), Reservations: toDockerResources(task.resources?.reservations) } }
      : {}),
    ...(restart
      ? { RestartPolicy: { Condition: restart.condition, Delay: msToNs(restart.delayMs), MaxAttempts: restart.maxAttempts, ...(restart.windowMs || options.insertDefaults ? { Window: msToNs(restart.windowMs) } : {}) } }
      : {}),
    ...(placement || options.insertDefaults ? { Placement: dockerPlacement(placement) } : {}),
    ...(task.networks ? { Networks: task.networks.map((n) => ({ Target: n.target, ...(n.aliases ? { Aliases: [...n.aliases] } : {}) })) } : {}),
    ForceUpdate: task.forceUpdate ?? 0,
    Runtime: 'container',
    ...(task.logDriver ? { LogDriver: toDockerLogDriver(task.logDriver) } : {}),
  };
};

export const toDockerServiceSpec = (spec: ServiceSpec, options: { readonly insertDefaults?: boolean } = {}): DockerServiceSpec => {
  const update = spec.update ?? (options.insertDefaults ? DEFAULT_UPDATE_CONFIG : undefined);
  const rollback = spec.rollback ?? (options.insertDefaults ? DEFAULT_UPDATE_CONFIG : undefined);
  const endpoint = spec.endpoint ?? (options.insertDefaults ? { mode: 'vip' as const } : undefined);
  return {
    Name: spec.name,
    Labels: { ...(spec.labels ?? {}) },
    TaskTemplate: toDockerTaskSpec(spec.task, options),
    Mode: toDockerMode(spec.mode),
    ...(update ? { UpdateConfig: toDockerUpdateConfig(update) } : {}),
    ...(rollback ? { RollbackConfig: toDockerUpdateConfig(rollback) } : {}),
    ...(endpoint ? { EndpointSpec: { Mode: endpoint.mode, ...(endpoint.ports ? { Ports: endpoint.ports.map(toDockerPort) } : {}) } } : {}),
  };
};

export type ServiceStatus = NonNullable<DockerService['ServiceStatus']>;

/**
 * Docker's ServiceStatus of every service, in one pass over the tasks, counted as SwarmKit's
 * ListServiceStatuses counts them: running tasks; how many are wanted (replicas, a
 * replicated job's maxConcurrent; for a global service the tasks meant to run, for a
 * global job those not yet complete); and a job's completed tasks. A job counts only the
 * tasks of its current iteration.
 */
export const serviceStatuses = (state: ClusterState): Map<string, ServiceStatus> => {
  const counts = new Map<string, { running: number; wanted: number; completed: number }>();
  for (const task of state.tasks.values()) {
    const service = state.services.get(task.serviceId);
    if (!service) continue;
    const job = isJob(service.spec.mode);
    if (job && (task.jobIteration ?? 0) !== (service.jobIteration ?? 0)) continue;
    let count = counts.get(task.serviceId);
    if (!count) counts.set(task.serviceId, (count = { running: 0, wanted: 0, completed: 0 }));
    if (task.status.state === TaskState.RUNNING) count.running++;
    if (job && task.status.state === TaskState.COMPLETE) count.completed++;
    else if (task.desiredState === TaskState.RUNNING) count.wanted++;
  }
  const statuses = new Map<string, ServiceStatus>();
  for (const service of state.services.values()) {
    const count = counts.get(service.id) ?? { running: 0, wanted: 0, completed: 0 };
    const mode = service.spec.mode;
    const desired = mode.kind === 'replicated' ? mode.replicas : mode.kind === 'replicated-job' ? mode.maxConcurrent : count.wanted;
    statuses.set(service.id, { RunningTasks: count.running, DesiredTasks: desired, CompletedTasks: count.completed });
  }
  return statuses;
};

export const toDockerService = (
  service: Service,
  options: { readonly insertDefaults?: boolean; readonly status?: ServiceStatus } = {},
): DockerService => {
  const spec = toDockerServiceSpec(service.spec, options);
  // Docker shows the endpoint spec it was given: {} for none (vip is its default).
  const endpointSpec = spec.EndpointSpec ?? {};
  const allocated = service.endpoint;
  return {
    ID: service.id,
    Version: { Index: service.version },
    CreatedAt: service.createdAt,
    UpdatedAt: service.updatedAt,
    Spec: spec,
    ...(service.previousSpec ? { PreviousSpec: toDockerServiceSpec(service.previousSpec) } : {}),
    Endpoint: {
      Spec: endpointSpec,
      ...(allocated && allocated.ports.length > 0 ? { Ports: allocated.ports.map(toDockerPort) } : {}),
      ...(allocated && allocated.virtualIps.length > 0 ? { VirtualIPs: allocated.virtualIps.map((vip) => ({ NetworkID: vip.network, Addr: vip.address })) } : {}),
    },
    ...(service.updateStatus
      ? {
          UpdateStatus: {
            State: service.updateStatus.state,
            ...(service.updateStatus.startedAt ? { StartedAt: service.updateStatus.startedAt } : {}),
            ...(service.updateStatus.completedAt ? { CompletedAt: service.updateStatus.completedAt } : {}),
            ...(service.updateStatus.message ? { Message: service.updateStatus.message } : {}),
          },
        }
      : {}),
    ...(options.status ? { ServiceStatus: options.status } : {}),
    ...(service.jobIteration !== undefined ? { JobStatus: { JobIteration: { Index: service.jobIteration } } } : {}),
  };
};
