/**
 * Docker Engine API JSON shapes (moby api/types/swarm and api/types/system), as the
 * docker CLI sends and reads them. Durations are Go time.Duration: integer nanoseconds.
 */

export interface DockerVersion {
  readonly Index: number;
}

export interface DockerMeta {
  readonly Version: DockerVersion;
  readonly CreatedAt: string;
  readonly UpdatedAt: string;
}

// ── swarm ──────────────────────────────────────────────────────────────────
export interface DockerSwarmSpec {
  Name?: string;
  Labels?: Record<string, string>;
  Orchestration?: { TaskHistoryRetentionLimit?: number | null };
  Raft?: {
    SnapshotInterval?: number;
    KeepOldSnapshots?: number;
    LogEntriesForSlowFollowers?: number;
    ElectionTick?: number;
    HeartbeatTick?: number;
  };
  Dispatcher?: { HeartbeatPeriod?: number };
  CAConfig?: { NodeCertExpiry?: number; ExternalCAs?: unknown[] | null; SigningCACert?: string; SigningCAKey?: string; ForceRotate?: number };
  TaskDefaults?: Record<string, unknown>;
  EncryptionConfig?: { AutoLockManagers?: boolean };
}

export interface DockerClusterInfo extends DockerMeta {
  readonly ID: string;
  readonly Spec: DockerSwarmSpec;
  readonly TLSInfo: { TrustRoot: string; CertIssuerSubject: string; CertIssuerPublicKey: string };
  readonly RootRotationInProgress: boolean;
  readonly DefaultAddrPool: string[];
  readonly SubnetSize: number;
  readonly DataPathPort: number;
}

export interface DockerSwarm extends DockerClusterInfo {
  readonly JoinTokens: { readonly Worker: string; readonly Manager: string };
}

// ── nodes ──────────────────────────────────────────────────────────────────
export interface DockerNodeSpec {
  Name?: string;
  Labels?: Record<string, string>;
  Role?: string;
  Availability?: string;
}

export type DockerGenericResource =
  | { NamedResourceSpec: { Kind: string; Value: string } }
  | { DiscreteResourceSpec: { Kind: string; Value: number } };

export interface DockerResources {
  NanoCPUs?: number;
  MemoryBytes?: number;
  Pids?: number;
  GenericResources?: DockerGenericResource[] | null;
}

export interface DockerNode extends DockerMeta {
  readonly ID: string;
  readonly Spec: DockerNodeSpec;
  readonly Description: {
    readonly Hostname: string;
    readonly Platform: { readonly Architecture: string; readonly OS: string };
    readonly Resources: DockerResources;
    readonly Engine: {
      readonly EngineVersion: string;
      readonly Labels?: Record<string, string>;
      readonly Plugins?: { readonly Type: string; readonly Name: string }[];
    };
    readonly TLSInfo: DockerClusterInfo['TLSInfo'];
  };
  readonly Status: { readonly State: string; readonly Message?: string; readonly Addr: string };
  /** `Leader` is there only when true, as Docker's (`json:"Leader,omitempty"`). */
  readonly ManagerStatus?: { readonly Leader?: boolean; readonly Reachability: string; readonly Addr: string };
}

// ── services ───────────────────────────────────────────────────────────────
export interface DockerUpdateConfig {
  Parallelism?: number;
  Delay?: number;
  FailureAction?: string;
  Monitor?: number;
  MaxFailureRatio?: number;
  Order?: string;
}

export interface DockerPortConfig {
  Name?: string;
  Protocol?: string;
  TargetPort?: number;
  PublishedPort?: number;
  PublishMode?: string;
}

/** A config a container is given: a file (`File`), or a runtime target (credential specs, which Shoal refuses). */
export interface DockerFileTarget {
  Name?: string;
  UID?: string;
  GID?: string;
  Mode?: number;
}

export interface DockerConfigReference {
  File?: DockerFileTarget | null;
  Runtime?: Record<string, unknown> | null;
  ConfigID?: string;
  ConfigName?: string;
}

export interface DockerSecretReference {
  File?: DockerFileTarget | null;
  SecretID?: string;
  SecretName?: string;
}

export interface DockerTaskSpec {
  ContainerSpec?: {
    Image?: string;
    Labels?: Record<string, string>;
    Command?: string[] | null;
    Args?: string[] | null;
    Hostname?: string;
    Env?: string[] | null;
    Dir?: string;
    User?: string;
    StopGracePeriod?: number;
    Configs?: DockerConfigReference[] | null;
    Secrets?: DockerSecretReference[] | null;
    [field: string]: unknown;
  };
  Resources?: { Limits?: DockerResources; Reservations?: DockerResources };
  RestartPolicy?: { Condition?: string; Delay?: number; MaxAttempts?: number; Window?: number };
  Placement?: {
    Constraints?: string[] | null;
    Preferences?: { Spread?: { SpreadDescriptor?: string } }[] | null;
    MaxReplicas?: number;
    Platforms?: { Architecture?: string; OS?: string }[] | null;
  };
  Networks?: { Target?: string; Aliases?: string[] | null }[] | null;
  ForceUpdate?: number;
  [field: string]: unknown;
}

export interface DockerServiceMode {
  Replicated?: { Replicas?: number };
  Global?: Record<string, never>;
  ReplicatedJob?: { MaxConcurrent?: number; TotalCompletions?: number };
  GlobalJob?: Record<string, never>;
}

export interface DockerEndpointSpec {
  Mode?: string;
  Ports?: DockerPortConfig[] | null;
}

export interface DockerServiceSpec {
  Name?: string;
  Labels?: Record<string, string>;
  TaskTemplate?: DockerTaskSpec;
  Mode?: DockerServiceMode;
  UpdateConfig?: DockerUpdateConfig | null;
  RollbackConfig?: DockerUpdateConfig | null;
  EndpointSpec?: DockerEndpointSpec | null;
  Networks?: { Target?: string; Aliases?: string[] | null }[] | null;
}

export interface DockerService extends DockerMeta {
  readonly ID: string;
  readonly Spec: DockerServiceSpec;
  readonly PreviousSpec?: DockerServiceSpec;
  readonly Endpoint: {
    readonly Spec: DockerEndpointSpec;
    readonly Ports?: DockerPortConfig[];
    readonly VirtualIPs?: { readonly NetworkID: string; readonly Addr: string }[];
  };
  readonly UpdateStatus?: { readonly State: string; readonly StartedAt?: string; readonly CompletedAt?: string; readonly Message?: string };
  readonly ServiceStatus?: { readonly RunningTasks: number; readonly DesiredTasks: number; readonly CompletedTasks: number };
  readonly JobStatus?: { readonly JobIteration: DockerVersion; readonly LastExecution?: string };
}

// ── tasks ──────────────────────────────────────────────────────────────────
export interface DockerTask extends DockerMeta {
  readonly ID: string;
  readonly Name?: string;
  readonly Labels: Record<string, string>;
  readonly Spec: DockerTaskSpec;
  readonly ServiceID: string;
  readonly Slot?: number;
  readonly NodeID?: string;
  readonly Status: {
    readonly Timestamp: string;
    readonly State: string;
    readonly Message: string;
    readonly Err?: string;
    readonly ContainerStatus?: { readonly ContainerID?: string; readonly PID?: number; readonly ExitCode: number };
    readonly PortStatus: { readonly Ports?: DockerPortConfig[] };
  };
  readonly DesiredState: string;
  readonly NetworksAttachments?: { readonly Network: { readonly ID: string; readonly Spec?: { Name: string } }; readonly Addresses: readonly string[] }[];
  readonly JobIteration?: DockerVersion;
}
