/** Services: the user's intent, in the shape of Docker's ServiceSpec. */
import type { ResourceRequirements } from './resources';
import type { Platform } from './node';
import type { ConfigReference } from './config';
import type { SecretReference } from './secret';
import type { DnsConfig, HealthConfig, LogDriver, Mount, Ulimit } from './container';

export type ServiceMode =
  | { readonly kind: 'replicated'; readonly replicas: number }
  | { readonly kind: 'global' }
  /** Runs `totalCompletions` tasks to completion, at most `maxConcurrent` at once. */
  | { readonly kind: 'replicated-job'; readonly maxConcurrent: number; readonly totalCompletions: number }
  /** Runs one task to completion on every eligible node. */
  | { readonly kind: 'global-job' };

export type ServiceModeKind = ServiceMode['kind'];
export const SERVICE_MODE_KINDS: readonly ServiceModeKind[] = [
  'replicated',
  'global',
  'replicated-job',
  'global-job',
];
export const isJob = (mode: ServiceMode): boolean =>
  mode.kind === 'replicated-job' || mode.kind === 'global-job';
export const isGlobal = (mode: ServiceMode): boolean =>
  mode.kind === 'global' || mode.kind === 'global-job';

export type RestartCondition = 'none' | 'on-failure' | 'any';
export const RESTART_CONDITIONS: readonly RestartCondition[] = ['none', 'on-failure', 'any'];

export interface RestartPolicy {
  readonly condition: RestartCondition;
  /** Wait between a task's end and its replacement starting, in ms (Docker default 5 s). */
  readonly delayMs: number;
  /** 0 = unlimited. */
  readonly maxAttempts: number;
  /** Window the attempts are counted in, in ms; 0 = forever. */
  readonly windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  condition: 'any',
  delayMs: 5_000,
  maxAttempts: 0,
  windowMs: 0,
};

export type FailureAction = 'pause' | 'continue' | 'rollback';
export const FAILURE_ACTIONS: readonly FailureAction[] = ['pause', 'continue', 'rollback'];
export type UpdateOrder = 'stop-first' | 'start-first';
export const UPDATE_ORDERS: readonly UpdateOrder[] = ['stop-first', 'start-first'];

/** Rolling update (and rollback) configuration. */
export interface UpdateConfig {
  /** Tasks updated at once; 0 = all at once. */
  readonly parallelism: number;
  readonly delayMs: number;
  readonly failureAction: FailureAction;
  /** How long after each task's update to watch it for failure, in ms. */
  readonly monitorMs: number;
  /** Fraction of tasks (0..1) that may fail during an update before the failure action. */
  readonly maxFailureRatio: number;
  readonly order: UpdateOrder;
}

export const DEFAULT_UPDATE_CONFIG: UpdateConfig = {
  parallelism: 1,
  delayMs: 0,
  failureAction: 'pause',
  monitorMs: 5_000,
  maxFailureRatio: 0,
  order: 'stop-first',
};

/** "spread=node.labels.zone" */
export interface PlacementPreference {
  readonly spread: string;
}

export interface Placement {
  /** "node.labels.zone==east", "node.role!=manager", "node.ip==10.0.0.0/8" */
  readonly constraints?: readonly string[];
  readonly preferences?: readonly PlacementPreference[];
  /** At most this many tasks of the service per node; 0 = unlimited. */
  readonly maxReplicas?: number;
  /** Platforms the image runs on; empty = any. */
  readonly platforms?: readonly Platform[];
}

export interface ContainerSpec {
  readonly image: string;
  readonly command?: readonly string[];
  readonly args?: readonly string[];
  readonly env?: readonly string[];
  readonly labels?: Readonly<Record<string, string>>;
  readonly dir?: string;
  readonly user?: string;
  readonly hostname?: string;
  readonly stopGracePeriodMs?: number;
  /** Configs given to the task as files. */
  readonly configs?: readonly ConfigReference[];
  /** Secrets given to the task as files (in memory, never on the node's disk). */
  readonly secrets?: readonly SecretReference[];
  /** Supplementary groups of the user the process runs as. */
  readonly groups?: readonly string[];
  /** The signal that asks it to stop (default SIGTERM, or the image's). */
  readonly stopSignal?: string;
  readonly healthcheck?: HealthConfig;
  /** An init process (tini) as PID 1 that reaps zombies and forwards signals. */
  readonly init?: boolean;
  readonly tty?: boolean;
  readonly openStdin?: boolean;
  /** The root filesystem is mounted read-only. */
  readonly readOnly?: boolean;
  readonly capabilityAdd?: readonly string[];
  readonly capabilityDrop?: readonly string[];
  readonly sysctls?: Readonly<Record<string, string>>;
  readonly ulimits?: readonly Ulimit[];
  readonly dnsConfig?: DnsConfig;
  /** Extra /etc/hosts lines, "IP hostname [alias…]" (Docker's swarm spells them so). */
  readonly hosts?: readonly string[];
  readonly mounts?: readonly Mount[];
}

export interface NetworkAttachmentConfig {
  /** Network id or name. */
  readonly target: string;
  readonly aliases?: readonly string[];
}

export interface TaskSpec {
  readonly container: ContainerSpec;
  readonly resources?: ResourceRequirements;
  readonly restartPolicy?: RestartPolicy;
  readonly placement?: Placement;
  readonly networks?: readonly NetworkAttachmentConfig[];
  /** Bumped to force a rolling update with an unchanged spec. */
  readonly forceUpdate?: number;
  readonly logDriver?: LogDriver;
}

export type PortProtocol = 'tcp' | 'udp' | 'sctp';
export const PORT_PROTOCOLS: readonly PortProtocol[] = ['tcp', 'udp', 'sctp'];
export type PublishMode = 'ingress' | 'host';

export interface PortConfig {
  readonly name?: string;
  readonly protocol: PortProtocol;
  readonly targetPort: number;
  /** Absent: the allocator picks one from 30000–32767 (ingress mode). */
  readonly publishedPort?: number;
  readonly publishMode: PublishMode;
}

export interface EndpointSpec {
  readonly mode: 'vip' | 'dnsrr';
  readonly ports?: readonly PortConfig[];
}

export interface ServiceSpec {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly task: TaskSpec;
  readonly mode: ServiceMode;
  readonly update?: UpdateConfig;
  readonly rollback?: UpdateConfig;
  readonly endpoint?: EndpointSpec;
}

export type UpdateState =
  | 'updating'
  | 'paused'
  | 'completed'
  | 'rollback_started'
  | 'rollback_paused'
  | 'rollback_completed';
export const UPDATE_STATES: readonly UpdateState[] = [
  'updating',
  'paused',
  'completed',
  'rollback_started',
  'rollback_paused',
  'rollback_completed',
];

export interface UpdateStatus {
  readonly state: UpdateState;
  readonly message?: string;
  readonly startedAt?: string;
  readonly completedAt?: string;
}

/** What the allocator gave a service: a virtual IP per network and its published ports. */
export interface Endpoint {
  readonly virtualIps: readonly { readonly network: string; readonly address: string }[];
  readonly ports: readonly PortConfig[];
}
