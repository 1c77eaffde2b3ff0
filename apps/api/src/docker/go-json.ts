/**
 * Docker's request bodies decoded as Go's encoding/json decodes them into the engine's
 * structs, once, at the edge, before any validation or mapping reads them:
 *
 * - a key matches its field case-insensitively (`{"replicated": …}` is `Replicated`); an
 *   exact match wins over a folded one, as in Go;
 * - `null` is "not set": the key is dropped (Go leaves the field at its zero value);
 * - keys of map-valued fields (labels, driver options, sysctls) are data, not fields: they
 *   keep their case, and a null value there is kept for the reader to refuse;
 * - a key that names no field is kept as it is: whoever reads the body ignores it where
 *   Docker ignores it.
 */

/** Docker's field names (Go struct fields of the swarm, network and config objects). */
export const DOCKER_FIELD_NAMES: readonly string[] = [
  // ServiceSpec, ServiceMode
  'Name', 'Labels', 'TaskTemplate', 'Mode', 'UpdateConfig', 'RollbackConfig', 'Networks', 'EndpointSpec',
  'Replicated', 'Replicas', 'Global', 'ReplicatedJob', 'GlobalJob', 'MaxConcurrent', 'TotalCompletions',
  // TaskSpec
  'ContainerSpec', 'PluginSpec', 'NetworkAttachmentSpec', 'Resources', 'RestartPolicy', 'Placement', 'LogDriver', 'ForceUpdate', 'Runtime',
  // ContainerSpec
  'Image', 'Command', 'Args', 'Hostname', 'Env', 'Dir', 'User', 'Groups', 'Privileges', 'Init', 'TTY', 'OpenStdin', 'ReadOnly', 'Mounts',
  'StopSignal', 'StopGracePeriod', 'Healthcheck', 'Hosts', 'DNSConfig', 'Secrets', 'Configs', 'Isolation', 'Sysctls',
  'CapabilityAdd', 'CapabilityDrop', 'Ulimits',
  'CredentialSpec', 'SELinuxContext', 'File', 'Registry', 'Disable', 'Level', 'Role', 'Type',
  'Test', 'Interval', 'Timeout', 'Retries', 'StartPeriod', 'StartInterval',
  'Nameservers', 'Search', 'Options', 'Soft', 'Hard',
  'Target', 'Source', 'Consistency', 'BindOptions', 'VolumeOptions', 'TmpfsOptions', 'Propagation', 'NonRecursive', 'NoCopy',
  'DriverConfig', 'SizeBytes',
  'ConfigID', 'ConfigName', 'SecretID', 'SecretName', 'UID', 'GID',
  // Resources, RestartPolicy, Placement, UpdateConfig, EndpointSpec
  'Limits', 'Reservations', 'NanoCPUs', 'MemoryBytes', 'Pids', 'GenericResources', 'NamedResourceSpec', 'DiscreteResourceSpec', 'Kind', 'Value',
  'Condition', 'Delay', 'MaxAttempts', 'Window',
  'Constraints', 'Preferences', 'Spread', 'SpreadDescriptor', 'MaxReplicas', 'Platforms', 'Architecture', 'OS',
  'Parallelism', 'FailureAction', 'Monitor', 'MaxFailureRatio', 'Order',
  'Aliases', 'DriverOpts', 'Ports', 'Protocol', 'TargetPort', 'PublishedPort', 'PublishMode',
  // NodeSpec, SwarmSpec, swarm init
  'Availability',
  'Orchestration', 'TaskHistoryRetentionLimit', 'Raft', 'SnapshotInterval', 'KeepOldSnapshots', 'LogEntriesForSlowFollowers', 'ElectionTick', 'HeartbeatTick',
  'Dispatcher', 'HeartbeatPeriod', 'CAConfig', 'NodeCertExpiry', 'ExternalCAs', 'SigningCACert', 'SigningCAKey', 'ForceRotate', 'URL', 'CACert',
  'EncryptionConfig', 'AutoLockManagers', 'TaskDefaults',
  'ListenAddr', 'AdvertiseAddr', 'DataPathAddr', 'DataPathPort', 'DefaultAddrPool', 'ForceNewCluster', 'SubnetSize', 'Spec',
  'RemoteAddrs', 'JoinToken', 'UnlockKey',
  // Networks, IPAM, configs
  'Driver', 'Scope', 'Internal', 'Attachable', 'Ingress', 'EnableIPv4', 'EnableIPv6', 'ConfigOnly', 'ConfigFrom', 'CheckDuplicate', 'IPAM', 'Config',
  'Subnet', 'Gateway', 'IPRange', 'AuxiliaryAddresses', 'Network', 'Data', 'Templating',
];

/** Fields whose value is a map of the user's keys (labels, options), not a struct. */
const MAP_FIELDS: ReadonlySet<string> = new Set(['Labels', 'Options', 'DriverOpts', 'Sysctls', 'AuxiliaryAddresses']);

const FOLDED: ReadonlyMap<string, string> = new Map(DOCKER_FIELD_NAMES.map((name) => [name.toLowerCase(), name]));

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The field a key names: itself when exact, else its case-insensitive match, else the key. */
const fieldOf = (key: string): string => FOLDED.get(key.toLowerCase()) ?? key;

/** A JSON value as Go would see it (see the file's comment); the input is not changed. */
export const goDecode = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(goDecode);
  if (!isPlainObject(value)) return value;
  const decoded: Record<string, unknown> = {};
  const exact = new Set(Object.keys(value).filter((key) => FOLDED.get(key.toLowerCase()) === key));
  for (const [key, child] of Object.entries(value)) {
    if (child === null) continue;
    const field = fieldOf(key);
    if (field !== key && exact.has(field)) continue;
    decoded[field] = MAP_FIELDS.has(field) && isPlainObject(child) ? { ...child } : goDecode(child);
  }
  return decoded;
};
