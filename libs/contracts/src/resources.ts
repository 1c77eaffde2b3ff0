/** Resources: what a node has and what a task reserves or is limited to. */

/** A discrete generic resource ("gpu": 2) or a named one ("gpu" = "GPU-9f2a"). */
export type GenericResource =
  | { readonly kind: string; readonly discrete: number }
  | { readonly kind: string; readonly named: string };

export interface Resources {
  /** CPU in units of 1e-9 CPUs (Docker's NanoCPUs). */
  readonly nanoCpus?: number;
  readonly memoryBytes?: number;
  readonly generic?: readonly GenericResource[];
  /** Limits only: the most processes (and threads) the task may have; 0 or absent: no limit. */
  readonly pids?: number;
}

export interface ResourceRequirements {
  readonly limits?: Resources;
  readonly reservations?: Resources;
}
