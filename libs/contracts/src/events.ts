/**
 * Every event on the log: its type (past tense), its data, its current schema version
 * and who may propose it. Batch events (one record, many tasks) are the norm.
 */
import type { Component, Envelope } from './envelope';
import type { CertificateIssuer, ClusterSpec, KeptJoinToken, KeptJoinTokens, SealedJoinToken } from './cluster';
import type { ConfigSpec } from './config';
import type { SealedSecret, SecretSpec } from './secret';
import type { NetworkSpec, NetworkAttachment } from './network';
import type { NodeDescription, NodeRole, NodeSpec, NodeState } from './node';
import type { Endpoint, PortConfig, ServiceSpec, UpdateStatus } from './service';
import type { CreatedTask } from './task';
import type { TaskState } from './task-state';
import type { AuditCheckpointed } from './audit-checkpoint';

// ── cluster ────────────────────────────────────────────────────────────────
export interface ClusterInitialized {
  readonly spec: ClusterSpec;
  /** v1 carried each token in the clear; v2 (log level 5) keeps its hash and the token sealed. */
  readonly tokens: KeptJoinTokens;
  /** The log level the cluster starts at: its first writer's (absent: 1, as on logs from before levels). */
  readonly logLevel?: number;
}
export interface ClusterSpecUpdated {
  readonly spec: ClusterSpec;
}
/** v1 carried each new token in the clear; v2 (log level 5) keeps its hash and the token sealed. */
export interface JoinTokensRotated {
  readonly worker?: KeptJoinToken;
  readonly manager?: KeptJoinToken;
}
/** A component's new owner of the partition takes a term; older terms are fenced off. */
export interface OwnershipTaken {
  readonly component: Component;
  readonly term: number;
  /** The highest log level the owner's build reads (absent: 1). */
  readonly reads?: number;
}
/** The log's level goes up by one: writers may use the record versions of that level from now on. */
export interface LogLevelRaised {
  readonly level: number;
}
/**
 * `docker swarm ca --rotate` (log level 6): a new root CA, and SwarmKit's transition to it.
 * From this record the CA signs node certificates with the new root's key (each with the
 * cross-signed certificate as its intermediate, so that a peer trusting only the old root
 * can chain it), and nodes are given both roots to trust. Once every node's certificate is
 * of the new root, evolve ends the rotation in the record that shows it: the new root is
 * the cluster's, the old one is trusted no more, and the join tokens (which carry the
 * root's digest) are the ones this record brought.
 */
export interface RootCaRotationStarted {
  /** Docker's CAConfig.ForceRotate that asked for it. */
  readonly forceRotate: number;
  /** The new root's certificate, PEM. */
  readonly root: string;
  /** The new root's subject and public key signed by the root in use until now, PEM. */
  readonly crossSigned: string;
  /** The new root's private key, sealed under the cluster key (base64), its digest as associated data. */
  readonly key: string;
  /** The new root as Docker's TLSInfo names an issuer: its subject and SubjectPublicKeyInfo, DER in base64. */
  readonly issuer: CertificateIssuer;
  /** The join tokens of the new root (its digest), kept sealed until the rotation ends. */
  readonly tokens: { readonly worker: SealedJoinToken; readonly manager: SealedJoinToken };
}

// ── services ───────────────────────────────────────────────────────────────
export interface ServiceCreated {
  readonly id: string;
  readonly spec: ServiceSpec;
}
export interface ServiceUpdated {
  readonly id: string;
  readonly spec: ServiceSpec;
  /**
   * A rollback: spec is the previous spec. Written by the API (`docker service rollback`)
   * or by the orchestrator when a failed update rolls back on its own.
   */
  readonly rollback?: boolean;
  /** A rollback's update status message (why the orchestrator rolled back); the API's reads "manually requested rollback". */
  readonly message?: string;
}
export interface ServiceRemoved {
  readonly id: string;
}
export interface ServiceEndpointsAllocated {
  readonly services: readonly {
    readonly id: string;
    readonly specVersion: number;
    readonly endpoint: Endpoint;
  }[];
}
export interface ServiceUpdateStatusChanged {
  readonly id: string;
  /** null clears it. */
  readonly status: UpdateStatus | null;
}

// ── networks ───────────────────────────────────────────────────────────────
export interface NetworkCreated {
  readonly id: string;
  readonly spec: NetworkSpec;
}
export interface NetworkAllocated {
  readonly id: string;
  readonly subnet: string;
  readonly gateway: string;
}
export interface NetworkRemoved {
  readonly id: string;
}

// ── configs ────────────────────────────────────────────────────────────────
export interface ConfigCreated {
  readonly id: string;
  readonly spec: ConfigSpec;
}
/** Only the labels may change (as Docker): the name and data are the config's for good. */
export interface ConfigUpdated {
  readonly id: string;
  readonly spec: ConfigSpec;
}
export interface ConfigRemoved {
  readonly id: string;
}

// ── secrets ────────────────────────────────────────────────────────────────
/** The bytes are sealed with the secret's own data key, kept beside the log (secret.ts). */
export interface SecretCreated {
  readonly id: string;
  readonly spec: SecretSpec;
  readonly data: SealedSecret;
}
/** Only the labels may change (as Docker). */
export interface SecretUpdated {
  readonly id: string;
  readonly spec: SecretSpec;
}
/** The secret's data key is destroyed with it: its sealed bytes can no longer be opened. */
export interface SecretRemoved {
  readonly id: string;
}

// ── nodes ──────────────────────────────────────────────────────────────────
export interface NodeRegistered {
  readonly id: string;
  readonly description: NodeDescription;
  readonly role: NodeRole;
  readonly addr?: string;
}
export interface NodeStatusChanged {
  readonly nodes: readonly {
    readonly id: string;
    readonly state: NodeState;
    readonly message?: string;
    readonly addr?: string;
  }[];
}
export interface NodeSpecUpdated {
  readonly id: string;
  readonly spec: NodeSpec;
}
export interface NodeRemoved {
  readonly id: string;
  /** Remove a node that is not down (docker node rm --force). */
  readonly force?: boolean;
}

// ── tasks ──────────────────────────────────────────────────────────────────
export interface TasksCreated {
  readonly tasks: readonly CreatedTask[];
}
export interface TasksAllocated {
  readonly tasks: readonly {
    readonly id: string;
    readonly attachments: readonly NetworkAttachment[];
    readonly ports?: readonly PortConfig[];
  }[];
}
export interface TasksAllocationFailed {
  readonly tasks: readonly { readonly id: string; readonly reason: string }[];
}
export interface TasksAssigned {
  readonly tasks: readonly { readonly id: string; readonly nodeId: string; readonly why: string }[];
}
export interface TasksUnschedulable {
  readonly tasks: readonly { readonly id: string; readonly explain: string }[];
}
export interface TaskStatusReport {
  readonly id: string;
  readonly state: TaskState;
  /** When the agent saw it (agent's clock). */
  readonly at: string;
  readonly message?: string;
  readonly err?: string;
  readonly exitCode?: number;
  /** The task's container (TaskStatus.containerId); older builds ignore it, evolve keeps it from log level 5. */
  readonly containerId?: string;
  /** Its container's process (TaskStatus.pid): 0 once it stopped. */
  readonly pid?: number;
}
export interface TaskStatusesReported {
  /** The node whose agent reported; every task must be assigned to it. */
  readonly nodeId: string;
  readonly statuses: readonly TaskStatusReport[];
}
export interface TaskDesiredStatesChanged {
  readonly tasks: readonly {
    readonly id: string;
    readonly desiredState: TaskState;
    readonly reason?: string;
  }[];
}
export interface TasksRemoved {
  readonly tasks: readonly { readonly id: string; readonly reason: string }[];
}

/** type → data */
export interface EventDataMap {
  ClusterInitialized: ClusterInitialized;
  ClusterSpecUpdated: ClusterSpecUpdated;
  JoinTokensRotated: JoinTokensRotated;
  OwnershipTaken: OwnershipTaken;
  LogLevelRaised: LogLevelRaised;
  RootCaRotationStarted: RootCaRotationStarted;
  AuditCheckpointed: AuditCheckpointed;
  ServiceCreated: ServiceCreated;
  ServiceUpdated: ServiceUpdated;
  ServiceRemoved: ServiceRemoved;
  ServiceEndpointsAllocated: ServiceEndpointsAllocated;
  ServiceUpdateStatusChanged: ServiceUpdateStatusChanged;
  NetworkCreated: NetworkCreated;
  NetworkAllocated: NetworkAllocated;
  NetworkRemoved: NetworkRemoved;
  ConfigCreated: ConfigCreated;
  ConfigUpdated: ConfigUpdated;
  ConfigRemoved: ConfigRemoved;
  SecretCreated: SecretCreated;
  SecretUpdated: SecretUpdated;
  SecretRemoved: SecretRemoved;
  NodeRegistered: NodeRegistered;
  NodeStatusChanged: NodeStatusChanged;
  NodeSpecUpdated: NodeSpecUpdated;
  NodeRemoved: NodeRemoved;
  TasksCreated: TasksCreated;
  TasksAllocated: TasksAllocated;
  TasksAllocationFailed: TasksAllocationFailed;
  TasksAssigned: TasksAssigned;
  TasksUnschedulable: TasksUnschedulable;
  TaskStatusesReported: TaskStatusesReported;
  TaskDesiredStatesChanged: TaskDesiredStatesChanged;
  TasksRemoved: TasksRemoved;
}

export type EventType = keyof EventDataMap;

/** A decoded, current-version event: a tagged union on `type`. */
export type ShoalEvent = { [K in EventType]: Envelope<K, EventDataMap[K]> }[EventType];

export type EventOf<K extends EventType> = Extract<ShoalEvent, { type: K }>;

const MANAGERS: readonly Component[] = ['allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'];

/** Per type: the schema version writers produce now, and who may propose it. */
export const EVENT_TYPES: { readonly [K in EventType]: { readonly v: number; readonly writers: readonly Component[] } } = {
  // v1 carried the join tokens in the clear; v2 keeps their hashes and the tokens sealed (see upcasters).
  ClusterInitialized: { v: 2, writers: ['api'] },
  ClusterSpecUpdated: { v: 1, writers: ['api'] },
  JoinTokensRotated: { v: 2, writers: ['api'] },
  OwnershipTaken: { v: 1, writers: MANAGERS },
  LogLevelRaised: { v: 1, writers: ['api'] },
  RootCaRotationStarted: { v: 1, writers: ['api'] },
  // The reaper's owner holds the checkpoint duty (docs/audit.md).
  AuditCheckpointed: { v: 1, writers: ['reaper'] },
  ServiceCreated: { v: 1, writers: ['api'] },
  // The orchestrator writes only automatic rollbacks (rollback: true, back to the previous spec).
  ServiceUpdated: { v: 1, writers: ['api', 'orchestrator'] },
  ServiceRemoved: { v: 1, writers: ['api'] },
  ServiceEndpointsAllocated: { v: 1, writers: ['allocator'] },
  ServiceUpdateStatusChanged: { v: 1, writers: ['orchestrator', 'api'] },
  // The allocator creates the ingress network (and nothing else: evolve enforces it).
  NetworkCreated: { v: 1, writers: ['api', 'allocator'] },
  NetworkAllocated: { v: 1, writers: ['allocator'] },
  NetworkRemoved: { v: 1, writers: ['api'] },
  ConfigCreated: { v: 1, writers: ['api'] },
  ConfigUpdated: { v: 1, writers: ['api'] },
  ConfigRemoved: { v: 1, writers: ['api'] },
  SecretCreated: { v: 1, writers: ['api'] },
  SecretUpdated: { v: 1, writers: ['api'] },
  SecretRemoved: { v: 1, writers: ['api'] },
  NodeRegistered: { v: 1, writers: ['dispatcher'] },
  NodeStatusChanged: { v: 1, writers: ['dispatcher'] },
  NodeSpecUpdated: { v: 1, writers: ['api'] },
  NodeRemoved: { v: 1, writers: ['api'] },
  TasksCreated: { v: 1, writers: ['orchestrator'] },
  TasksAllocated: { v: 1, writers: ['allocator'] },
  TasksAllocationFailed: { v: 1, writers: ['allocator'] },
  TasksAssigned: { v: 1, writers: ['scheduler'] },
  TasksUnschedulable: { v: 1, writers: ['scheduler'] },
  // v1 carried the state's name ("RUNNING"); v2 carries the ordered number (see upcasters).
  TaskStatusesReported: { v: 2, writers: ['dispatcher'] },
  // Desired state comes from the manager side only, never from an agent.
  TaskDesiredStatesChanged: { v: 1, writers: ['orchestrator'] },
  TasksRemoved: { v: 1, writers: ['reaper'] },
};

export const isEventType = (type: unknown): type is EventType =>
  typeof type === 'string' && Object.prototype.hasOwnProperty.call(EVENT_TYPES, type);
