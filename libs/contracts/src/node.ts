/** Nodes: what the agent describes, what the operator sets, what the dispatcher observes. */
import type { CertificateIssuer } from './cluster';
import type { Resources } from './resources';

export type NodeRole = 'worker' | 'manager';
export const NODE_ROLES: readonly NodeRole[] = ['worker', 'manager'];

/** ACTIVE takes new tasks; PAUSE takes none but keeps its own; DRAIN moves its tasks away. */
export type NodeAvailability = 'active' | 'pause' | 'drain';
export const NODE_AVAILABILITIES: readonly NodeAvailability[] = ['active', 'pause', 'drain'];

export type NodeState = 'unknown' | 'down' | 'ready' | 'disconnected';
export const NODE_STATES: readonly NodeState[] = ['unknown', 'down', 'ready', 'disconnected'];

export interface Platform {
  /** "linux", "windows" */
  readonly os: string;
  /** "x86_64", "aarch64" */
  readonly architecture: string;
}

export interface PluginDescription {
  /** "Volume", "Network", "Log" */
  readonly type: string;
  readonly name: string;
}

/**
 * A node's TLS as Docker's node TLSInfo shows it (log level 6): the root CA certificates it
 * trusts (PEM, as the node reports them) and the issuer of the certificate it called with
 * (its subject and SubjectPublicKeyInfo, DER in base64, as the dispatcher verified it).
 */
export interface NodeTlsInfo {
  readonly trustRoot: string;
  readonly certIssuerSubject: string;
  readonly certIssuerPublicKey: string;
}

/** Whether a node's certificate, as its TLS shows it, is of `issuer` (no TLS: it is of none). */
export const certificateOf = (tls: NodeTlsInfo | undefined, issuer: CertificateIssuer): boolean =>
  tls !== undefined && tls.certIssuerPublicKey === issuer.publicKey && tls.certIssuerSubject === issuer.subject;

/** What the node's agent reports about itself when it registers. */
export interface NodeDescription {
  readonly hostname: string;
  readonly platform: Platform;
  readonly resources: Resources;
  readonly engine: {
    readonly version: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly plugins?: readonly PluginDescription[];
  };
  /** Under the cluster's mutual TLS, from log level 6 (below it not kept). */
  readonly tls?: NodeTlsInfo;
}

/** What the operator sets (docker node update). */
export interface NodeSpec {
  readonly name?: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly role: NodeRole;
  readonly availability: NodeAvailability;
}

export interface NodeStatus {
  readonly state: NodeState;
  readonly message?: string;
  /** The address the node's session came from. */
  readonly addr?: string;
  /** When the state was observed (writer's clock). */
  readonly at: string;
}
