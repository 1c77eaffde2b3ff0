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
  /**
   * The cluster CA's settings (Docker's CAConfig), present only when they differ from the
   * defaults (from log level 5): how long the node certificates it issues last.
   */
  readonly ca?: { readonly nodeCertExpiryMs: number };
}

/** SwarmKit's default node certificate life, 90 days, and the least it takes (ca.MinNodeCertExpiration). */
export const DEFAULT_NODE_CERT_EXPIRY_MS = 90 * 24 * 60 * 60 * 1000;
export const MIN_NODE_CERT_EXPIRY_MS = 60 * 60 * 1000;

/** How long the node certificates the cluster CA issues last. */
export const nodeCertExpiryMs = (spec: ClusterSpec): number => spec.ca?.nodeCertExpiryMs ?? DEFAULT_NODE_CERT_EXPIRY_MS;

export const DEFAULT_CLUSTER_SPEC: ClusterSpec = {
  name: 'default',
  orchestration: { taskHistoryRetentionLimit: 5 },
  dispatcher: { heartbeatPeriodMs: 5_000 },
  nodeDownPeriodMs: 24 * 60 * 60 * 1_000,
};

/** A certificate's issuer as Docker's TLSInfo names it: its subject and SubjectPublicKeyInfo, DER in base64. */
export interface CertificateIssuer {
  readonly subject: string;
  readonly publicKey: string;
}

/** Join tokens, in SwarmKit's SWMTKN-1-<root CA digest>-<secret> shape, in the clear: as the API shows them and nodes present them. */
export interface JoinTokens {
  readonly worker: string;
  readonly manager: string;
}

/**
 * A join token as the log keeps it from level 5, never in the clear: its hash, which what a
 * node presents is checked against, and the token sealed under the cluster key, which only
 * a process holding that key (the API) opens to show it.
 */
export interface SealedJoinToken {
  /** The token's digest field (the root CA's, or the cluster's): public, it tells whose token one is. */
  readonly digest: string;
  /** SHA-256 of the whole token, hex. */
  readonly hash: string;
  /** The token sealed under the cluster key (AES-256-GCM, its hash as associated data), base64. */
  readonly sealed: string;
}

/**
 * A join token on the log: sealed, or — a record from before level 5 — the token itself, in
 * the clear, kept in the state exactly as it was, so that an old log's state hashes as it
 * always did (its signed checkpoints still verify).
 */
export type KeptJoinToken = string | SealedJoinToken;

export interface KeptJoinTokens {
  readonly worker: KeptJoinToken;
  readonly manager: KeptJoinToken;
}

/** SWMTKN-1-<digest>-<secret>: the digest names the cluster, the secret the kind and its rotation. */
export const JOIN_TOKEN_SHAPE = /^SWMTKN-1-([0-9a-z]+)-([0-9a-z]+)$/;

/** The digest field, or '' for a token of another shape. */
export const joinTokenDigest = (token: string): string => JOIN_TOKEN_SHAPE.exec(token.trim())?.[1] ?? '';

/** The digest field of a kept token, sealed or in the clear. */
export const keptTokenDigest = (kept: KeptJoinToken): string => (typeof kept === 'string' ? joinTokenDigest(kept) : kept.digest);
