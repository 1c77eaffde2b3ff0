/** The cluster object ↔ Docker's Swarm (inspect) and SwarmSpec (update). */
import { DEFAULT_NODE_CERT_EXPIRY_MS, MIN_NODE_CERT_EXPIRY_MS, nodeCertExpiryMs } from '@shoal/contracts';
import type { ClusterSpec, JoinTokens } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
import type { DockerClusterInfo, DockerSwarm, DockerSwarmSpec } from './docker-types';
import { msToNs, nsToMs } from './durations';
import { SpecError } from './spec-error';

/** Raft settings Shoal does not have (its log is Kafka's), shown as SwarmKit's defaults; and the CA's defaults. */
const FIXED_SPEC: Pick<DockerSwarmSpec, 'Raft' | 'CAConfig' | 'TaskDefaults'> = {
  Raft: { SnapshotInterval: 10_000, KeepOldSnapshots: 0, LogEntriesForSlowFollowers: 500, ElectionTick: 10, HeartbeatTick: 1 },
  CAConfig: { NodeCertExpiry: 90 * 24 * 3600 * 1e9 },
  TaskDefaults: {},
};

/** Whether the spec has autolock on. */
export const autoLocked = (spec: ClusterSpec): boolean => spec.encryption?.autoLockManagers === true;

/** `forceRotate`: Docker's CAConfig.ForceRotate, the last root CA rotation asked for (shown when above 0, as Docker omits it). */
export const toDockerSwarmSpec = (spec: ClusterSpec, forceRotate = 0): DockerSwarmSpec => ({
  Name: spec.name,
  Labels: { ...(spec.labels ?? {}) },
  Orchestration: { TaskHistoryRetentionLimit: spec.orchestration.taskHistoryRetentionLimit },
  Dispatcher: { HeartbeatPeriod: msToNs(spec.dispatcher.heartbeatPeriodMs) },
  ...FIXED_SPEC,
  CAConfig: { NodeCertExpiry: msToNs(nodeCertExpiryMs(spec)), ...(forceRotate > 0 ? { ForceRotate: forceRotate } : {}) },
  EncryptionConfig: { AutoLockManagers: autoLocked(spec) },
});

/** The CAConfig.ForceRotate of the last root CA rotation the cluster was asked for; 0 before any. */
export const forceRotateOf = (cluster: Cluster): number => cluster.rootRotation?.forceRotate ?? cluster.rootCa?.forceRotate ?? 0;

/** No root CA: TLSInfo empty, as before the cluster had one. */
export const NO_TLS_INFO: DockerClusterInfo['TLSInfo'] = { TrustRoot: '', CertIssuerSubject: '', CertIssuerPublicKey: '' };

/** `tls`: the cluster's root CA as Docker shows it (SHOAL_CA_DIR), or none. */
export const toDockerClusterInfo = (cluster: Cluster, tls: DockerClusterInfo['TLSInfo'] = NO_TLS_INFO): DockerClusterInfo => ({
  ID: cluster.id,
  Version: { Index: cluster.version },
  CreatedAt: cluster.createdAt,
  UpdatedAt: cluster.updatedAt,
  Spec: toDockerSwarmSpec(cluster.spec, forceRotateOf(cluster)),
  TLSInfo: { ...tls },
  RootRotationInProgress: cluster.rootRotation !== undefined,
  DefaultAddrPool: ['10.0.0.0/8'],
  SubnetSize: 24,
  DataPathPort: 4789,
});

/** The swarm with its join tokens, opened (the log keeps them sealed). */
export const toDockerSwarm = (cluster: Cluster, tokens: JoinTokens, tls: DockerClusterInfo['TLSInfo'] = NO_TLS_INFO): DockerSwarm => ({
  ...toDockerClusterInfo(cluster, tls),
  JoinTokens: { Worker: tokens.worker, Manager: tokens.manager },
});

/**
 * What a SwarmSpec asks of the settings Shoal does not have, which `docker swarm update`
 * would otherwise seem to accept: the CLI sends back the spec it read (FIXED_SPEC), so a
 * value that differs from it is a flag the user gave (--external-ca, --snapshot-interval,
 * --max-snapshots). A root CA of the operator's own (SigningCACert, SigningCAKey) is the
 * API's to check (swarm.controller.ts). Undefined when there is none.
 */
export const unsupportedSwarmSettings = (spec: DockerSwarmSpec): string | undefined => {
  const asked: string[] = [];
  const ca = spec.CAConfig;
  if ((ca?.ExternalCAs?.length ?? 0) > 0) asked.push('external CAs (--external-ca)');
  const raft = spec.Raft;
  if (raft?.SnapshotInterval !== undefined && raft.SnapshotInterval !== FIXED_SPEC.Raft?.SnapshotInterval) asked.push('raft snapshot interval (--snapshot-interval)');
  if (raft?.KeepOldSnapshots !== undefined && raft.KeepOldSnapshots !== FIXED_SPEC.Raft?.KeepOldSnapshots) asked.push('raft snapshots kept (--max-snapshots)');
  if (asked.length === 0) return undefined;
  return `not supported by Shoal: ${asked.join(', ')}; its store is a log, not raft. Shoal has the task history limit, the dispatcher heartbeat period, the node certificate expiry, autolock and root CA rotation (to a root of Shoal's or of your own)`;
};

/**
 * A SwarmSpec from `docker swarm update` applied to the current spec: what Docker sends
 * and Shoal has (name, labels, task history limit, heartbeat period, autolock) replaces
 * it; the rest (node-down period, admission limits) is kept.
 */
export const fromDockerSwarmSpec = (spec: DockerSwarmSpec, current: ClusterSpec): ClusterSpec => {
  const limit = spec.Orchestration?.TaskHistoryRetentionLimit;
  const heartbeat = spec.Dispatcher?.HeartbeatPeriod;
  const labels = spec.Labels ?? current.labels ?? {};
  const autolock = spec.EncryptionConfig?.AutoLockManagers ?? autoLocked(current);
  const expiry = spec.CAConfig?.NodeCertExpiry;
  // SwarmKit's words (controlapi's validateClusterSpec), which Docker answers with 400.
  if (expiry !== undefined && expiry < msToNs(MIN_NODE_CERT_EXPIRY_MS)) throw new SpecError('CAConfig.NodeCertExpiry', 'minimum certificate expiry time is: 1h0m0s');
  const certMs = expiry === undefined ? nodeCertExpiryMs(current) : nsToMs(expiry, 'CAConfig.NodeCertExpiry');
  const { labels: _previous, encryption: _encryption, ca: _ca, ...rest } = current;
  return {
    ...rest,
    ...(autolock ? { encryption: { autoLockManagers: true } } : {}),
    ...(certMs !== DEFAULT_NODE_CERT_EXPIRY_MS ? { ca: { nodeCertExpiryMs: certMs } } : {}),
    name: spec.Name || current.name,
    ...(Object.keys(labels).length > 0 ? { labels: { ...labels } } : {}),
    orchestration: { taskHistoryRetentionLimit: limit ?? current.orchestration.taskHistoryRetentionLimit },
    dispatcher: { heartbeatPeriodMs: heartbeat ? nsToMs(heartbeat, 'Dispatcher.HeartbeatPeriod') : current.dispatcher.heartbeatPeriodMs },
  };
};
