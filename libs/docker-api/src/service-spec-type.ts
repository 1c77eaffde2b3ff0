/**
 * Docker's swarm.ServiceSpec as its Go types declare it (moby's api/types/swarm, API 1.41),
 * for `goDecodeAs`: the body of `POST /services/create` and `/services/{id}/update`, and its
 * schema in `/openapi.json`. Field names and types are Docker's; what Shoal then accepts of
 * them is the mapper's (service-mapper.ts) to say.
 */
import { go } from './go-types';
import type { GoType } from './go-types';

const { str, bool, int, float, slice, map, struct, choice } = go;

const strings = slice(str());
const labels = map(str());
const duration = int('time.Duration');
const driver = struct('swarm.Driver', { Name: str(), Options: labels });

const fileTarget = (name: string): GoType => struct(name, { Name: str(), UID: str(), GID: str(), Mode: int('os.FileMode') });

const mount = struct('mount.Mount', {
  Type: str('mount.Type'),
  Source: str(),
  Target: str(),
  ReadOnly: bool(),
  Consistency: str('mount.Consistency'),
  BindOptions: struct('mount.BindOptions', { Propagation: str('mount.Propagation'), NonRecursive: bool() }),
  VolumeOptions: struct('mount.VolumeOptions', { NoCopy: bool(), Labels: labels, DriverConfig: struct('mount.Driver', { Name: str(), Options: labels }) }),
  TmpfsOptions: struct('mount.TmpfsOptions', { SizeBytes: int('int64'), Mode: int('os.FileMode') }),
});

const containerSpec = struct('swarm.ContainerSpec', {
  Image: str(),
  Labels: labels,
  Command: strings,
  Args: strings,
  Hostname: str(),
  Env: strings,
  Dir: str(),
  User: str(),
  Groups: strings,
  Privileges: struct('swarm.Privileges', {
    CredentialSpec: struct('swarm.CredentialSpec', { Config: str(), File: str(), Registry: str() }),
    SELinuxContext: struct('swarm.SELinuxContext', { Disable: bool(), User: str(), Role: str(), Type: str(), Level: str() }),
  }),
  Init: bool(),
  StopSignal: str(),
  TTY: bool(),
  OpenStdin: bool(),
  ReadOnly: bool(),
  Mounts: slice(mount),
  StopGracePeriod: duration,
  Healthcheck: struct('container.HealthConfig', { Test: strings, Interval: duration, Timeout: duration, StartPeriod: duration, StartInterval: duration, Retries: int('int') }),
  Hosts: strings,
  DNSConfig: struct('swarm.DNSConfig', { Nameservers: strings, Search: strings, Options: strings }),
  Configs: slice(struct('swarm.ConfigReference', { File: fileTarget('swarm.ConfigReferenceFileTarget'), Runtime: struct('swarm.ConfigReferenceRuntimeTarget', {}), ConfigID: str(), ConfigName: str() })),
  Secrets: slice(struct('swarm.SecretReference', { File: fileTarget('swarm.SecretReferenceFileTarget'), SecretID: str(), SecretName: str() })),
  Isolation: str('container.Isolation'),
  Sysctls: labels,
  CapabilityAdd: strings,
  CapabilityDrop: strings,
  Ulimits: slice(struct('units.Ulimit', { Name: str(), Hard: int('int64'), Soft: int('int64') })),
});

const genericResource = struct('swarm.GenericResource', {
  NamedResourceSpec: struct('swarm.NamedGenericResource', { Kind: str(), Value: str() }),
  DiscreteResourceSpec: struct('swarm.DiscreteGenericResource', { Kind: str(), Value: int('int64') }),
});

const networkAttachment = struct('swarm.NetworkAttachmentConfig', { Target: str(), Aliases: strings, DriverOpts: labels });

const taskSpec = struct('swarm.TaskSpec', {
  ContainerSpec: containerSpec,
  PluginSpec: struct('runtime.PluginSpec', {
    Name: str(),
    Remote: str(),
    Privileges: slice(struct('runtime.PluginPrivilege', { Name: str(), Description: str(), Value: strings })),
    Disabled: bool(),
    Env: strings,
  }),
  NetworkAttachmentSpec: struct('swarm.NetworkAttachmentSpec', { ContainerID: str() }),
  Resources: struct('swarm.ResourceRequirements', {
    Limits: struct('swarm.Limit', { NanoCPUs: int('int64'), MemoryBytes: int('int64'), Pids: int('int64') }),
    Reservations: struct('swarm.Resources', { NanoCPUs: int('int64'), MemoryBytes: int('int64'), GenericResources: slice(genericResource) }),
  }),
  RestartPolicy: struct('swarm.RestartPolicy', { Condition: str('swarm.RestartPolicyCondition'), Delay: duration, MaxAttempts: int('uint64'), Window: duration }),
  Placement: struct('swarm.Placement', {
    Constraints: strings,
    Preferences: slice(struct('swarm.PlacementPreference', { Spread: struct('swarm.SpreadOver', { SpreadDescriptor: str() }) })),
    MaxReplicas: int('uint64'),
    Platforms: slice(struct('swarm.Platform', { Architecture: str(), OS: str() })),
  }),
  Networks: slice(networkAttachment),
  LogDriver: driver,
  ForceUpdate: int('uint64'),
  Runtime: str('swarm.RuntimeType'),
});

const updateConfig = struct('swarm.UpdateConfig', {
  Parallelism: int('uint64'),
  Delay: duration,
  FailureAction: str(),
  Monitor: duration,
  MaxFailureRatio: float('float32'),
  Order: str(),
});

export const SERVICE_SPEC: GoType = struct('swarm.ServiceSpec', {
  Name: str(),
  Labels: labels,
  TaskTemplate: taskSpec,
  Mode: choice('swarm.ServiceMode', 'mode', {
    Replicated: struct('swarm.ReplicatedService', { Replicas: int('uint64') }),
    Global: struct('swarm.GlobalService', {}),
    ReplicatedJob: struct('swarm.ReplicatedJob', { MaxConcurrent: int('uint64'), TotalCompletions: int('uint64') }),
    GlobalJob: struct('swarm.GlobalJob', {}),
  }),
  UpdateConfig: updateConfig,
  RollbackConfig: updateConfig,
  Networks: slice(networkAttachment),
  EndpointSpec: struct('swarm.EndpointSpec', {
    Mode: str('swarm.ResolutionMode'),
    Ports: slice(
      struct('swarm.PortConfig', { Name: str(), Protocol: str('swarm.PortConfigProtocol'), TargetPort: int('uint32'), PublishedPort: int('uint32'), PublishMode: str('swarm.PortConfigPublishMode') }),
    ),
  }),
});
