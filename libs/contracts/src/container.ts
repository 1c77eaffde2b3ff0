/**
 * What a task's container is made with beyond its command: the fields of Docker's swarm
 * ContainerSpec that an engine maps onto a container (SwarmKit's api.ContainerSpec).
 * Durations are in ms, as everywhere in Shoal; sizes in bytes. An executor that cannot
 * honour one of them fails the task naming it.
 */

/** Docker's HealthConfig. `test`: [] inherit the image's, ["NONE"] none, ["CMD", …] or ["CMD-SHELL", "…"]. */
export interface HealthConfig {
  readonly test?: readonly string[];
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  readonly startPeriodMs?: number;
  /** Consecutive failures that make it unhealthy (0: the engine's default, 3). */
  readonly retries?: number;
}

/** A resource limit of the container's processes (`nofile`, `nproc`, …). */
export interface Ulimit {
  readonly name: string;
  readonly soft: number;
  readonly hard: number;
}

/** The container's resolv.conf. */
export interface DnsConfig {
  readonly nameservers?: readonly string[];
  readonly search?: readonly string[];
  readonly options?: readonly string[];
}

export type MountType = 'bind' | 'volume' | 'tmpfs';
export const MOUNT_TYPES: readonly MountType[] = ['bind', 'volume', 'tmpfs'];

export type BindPropagation = 'private' | 'rprivate' | 'shared' | 'rshared' | 'slave' | 'rslave';

/** A filesystem the container gets at `target` (Docker's mount.Mount). */
export interface Mount {
  readonly type: MountType;
  /** bind: the host path; volume: the volume's name (absent: an anonymous volume); tmpfs: none. */
  readonly source?: string;
  readonly target: string;
  readonly readOnly?: boolean;
  readonly consistency?: string;
  readonly bindOptions?: { readonly propagation?: BindPropagation; readonly nonRecursive?: boolean };
  readonly volumeOptions?: {
    readonly noCopy?: boolean;
    readonly labels?: Readonly<Record<string, string>>;
    readonly driverConfig?: { readonly name?: string; readonly options?: Readonly<Record<string, string>> };
  };
  readonly tmpfsOptions?: { readonly sizeBytes?: number; readonly mode?: number };
}

/** Where a task's output goes on its node (Docker's --log-driver and --log-opt). */
export interface LogDriver {
  readonly name: string;
  readonly options?: Readonly<Record<string, string>>;
}
