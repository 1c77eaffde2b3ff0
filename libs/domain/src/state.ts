/**
 * ClusterState: what every component's view is built from. Entities are keyed by id in
 * Maps, which keep insertion order; that order follows the log, so it is the same in
 * every process that replays the same records.
 */
import type {
  CertificateIssuer,
  ClusterSpec,
  Component,
  ConfigSpec,
  SealedSecret,
  SecretSpec,
  Endpoint,
  KeptJoinTokens,
  SealedJoinToken,
  NetworkSpec,
  NodeDescription,
  NodeSpec,
  NodeStatus,
  ServiceSpec,
  Task,
  UpdateStatus,
} from '@shoal/contracts';

export interface Cluster {
  readonly id: string;
  readonly spec: ClusterSpec;
  readonly version: number;
  /** As the log keeps them: hashes and sealed tokens (or, from records before level 5, in the clear). */
  readonly tokens: KeptJoinTokens;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** The log's level (LogLevelRaised); absent: 1, so logs from before levels hash as they did. */
  readonly logLevel?: number;
  /** The log level each component's current owner reads, where above 1 (OwnershipTaken.reads). */
  readonly readers?: Readonly<Partial<Record<Component, number>>>;
  /** The root CA the last finished rotation made (absent: the one in SHOAL_CA_DIR, as before any rotation). */
  readonly rootCa?: RootCa;
  /** A root CA rotation under way (RootCaRotationStarted), until every node's certificate is of its root. */
  readonly rootRotation?: RootCaRotation;
}

/** A root CA as the log keeps it: its certificate, its key sealed under the cluster key, and the rotation that made it. */
export interface RootCa {
  readonly root: string;
  readonly key: string;
  readonly issuer: CertificateIssuer;
  /** The rotation's cross-signed certificate: the intermediate that chains this root to the one before. */
  readonly crossSigned: string;
  /** Docker's CAConfig.ForceRotate that made it. */
  readonly forceRotate: number;
}

export interface RootCaRotation extends RootCa {
  /** The join tokens of the new root, the cluster's once the rotation ends. */
  readonly tokens: { readonly worker: SealedJoinToken; readonly manager: SealedJoinToken };
}

export interface Service {
  readonly id: string;
  readonly spec: ServiceSpec;
  /** The spec before the last update: what a rollback returns to. */
  readonly previousSpec?: ServiceSpec;
  /** 1 at creation, +1 per spec update; tasks carry the version they run. */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly endpoint?: Endpoint;
  /** The spec version the endpoint was allocated for. */
  readonly endpointVersion?: number;
  readonly updateStatus?: UpdateStatus;
  /** Jobs: +1 per update, so a job runs again after an update. */
  readonly jobIteration?: number;
}

export interface Node {
  readonly id: string;
  readonly description: NodeDescription;
  readonly spec: NodeSpec;
  /** 1 at registration, +1 per spec update. */
  readonly version: number;
  readonly status: NodeStatus;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface Network {
  readonly id: string;
  readonly spec: NetworkSpec;
  readonly subnet?: string;
  readonly gateway?: string;
  readonly createdAt: string;
}

export interface Config {
  readonly id: string;
  readonly spec: ConfigSpec;
  /** 1 at creation, +1 per update (labels). */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** A secret as the view holds it: its bytes only sealed (their data key is kept beside the log). */
export interface Secret {
  readonly id: string;
  readonly spec: SecretSpec;
  readonly data: SealedSecret;
  /** 1 at creation, +1 per update (labels). */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
}

/** Nano CPUs and memory reserved on a node by tasks assigned to it and not yet ended. */
export interface Reserved {
  nanoCpus: number;
  memoryBytes: number;
  /** Generic resource units held, by kind; absent when none. */
  generic?: ReadonlyMap<string, number>;
  /** Host-mode published ports held ("tcp/8080" → tasks holding it); absent when none. */
  hostPorts?: ReadonlyMap<string, number>;
}

export interface ClusterState {
  cluster?: Cluster;
  readonly services: Map<string, Service>;
  readonly tasks: Map<string, Task>;
  readonly nodes: Map<string, Node>;
  readonly networks: Map<string, Network>;
  readonly configs: Map<string, Config>;
  readonly secrets: Map<string, Secret>;
  /** The current ownership term of each component (OwnershipTaken). */
  readonly terms: Map<Component, number>;
  /** writer key ("scheduler/host-1-4242-ab12") → the highest seq applied from it. */
  readonly writers: Map<string, number>;
  /** Derived, not hashed, rebuilt on restore: what each node has reserved. */
  readonly reserved: Map<string, Reserved>;
}

export const emptyState = (): ClusterState => ({
  services: new Map(),
  tasks: new Map(),
  nodes: new Map(),
  networks: new Map(),
  configs: new Map(),
  secrets: new Map(),
  terms: new Map(),
  writers: new Map(),
  reserved: new Map(),
});

/**
 * The network a spec's attachment target names: by id, else by name (the id winning), as
 * Docker resolves `--network`; undefined when there is none.
 */
export const networkOf = (state: ClusterState, target: string): Network | undefined => {
  const byId = state.networks.get(target);
  if (byId) return byId;
  for (const network of state.networks.values()) if (network.spec.name === target) return network;
  return undefined;
};

/**
 * A network the spec attaches to that is not there (by id or name). The API checks its view
 * with it first, as Docker does; evolve checks again where it cannot race a NetworkRemoved.
 */
export const missingNetwork = (state: ClusterState, spec: ServiceSpec): string | undefined =>
  spec.task.networks?.find(({ target }) => networkOf(state, target) === undefined)?.target;

