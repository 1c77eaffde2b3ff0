/** The cluster object: one per cluster id, created by ClusterInitialized. */
import type { AdmissionLimits } from './admission-limits';

export interface ClusterSpec {
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly orchestration: {
    /** Old tasks kept per slot (replicated) or node (global); negative keeps all. Default 5. */
    readonly taskHistoryRetentionLimit: number;
  };
  readonly dispatcher: {
    /** How often agents heartbeat, in ms. Default 5 s. */
    readonly heartbeatPeriodMs: number;
  };
  readonly raft?: Readonly<Record<string, never>>;
  /** After a node has been DOWN this long its tasks are ORPHANED, in ms. Default 24 h. */
  readonly nodeDownPeriodMs?: number;
  /** Admission limits that differ from DEFAULT_ADMISSION_LIMITS (Shoal's own: Docker's spec has none). */
  readonly limits?: Partial<AdmissionLimits>;
  /** Autolock (Docker's EncryptionConfig.AutoLockManagers): present only when on (docs/secrets.md). */
  readonly encryption?: { readonly autoLockManagers: true };
}

export const DEFAULT_CLUSTER_SPEC: ClusterSpec = {
  name: 'default',
  orchestration: { taskHistoryRetentionLimit: 5 },
  dispatcher: { heartbeatPeriodMs: 5_000 },
  nodeDownPeriodMs: 24 * 60 * 60 * 1_000,
};

/** Join tokens, in SwarmKit's SWMTKN-1-<root CA digest>-<secret> shape. */
export interface JoinTokens {
  readonly worker: string;
  readonly manager: string;
}
