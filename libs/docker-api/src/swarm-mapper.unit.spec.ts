import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
import { fromDockerSwarmSpec, toDockerClusterInfo, toDockerSwarm, unsupportedSwarmSettings } from './swarm-mapper';

const cluster: Cluster = {
  id: 'c1',
  spec: DEFAULT_CLUSTER_SPEC,
  version: 2,
  tokens: { worker: 'SWMTKN-1-w', manager: 'SWMTKN-1-m' },
  createdAt: 't0',
  updatedAt: 't1',
};

describe("Docker's Swarm object", () => {
  it('carries the join tokens, the version and the spec in nanoseconds', () => {
    expect(toDockerSwarm(cluster)).toMatchObject({
      ID: 'c1',
      Version: { Index: 2 },
      JoinTokens: { Worker: 'SWMTKN-1-w', Manager: 'SWMTKN-1-m' },
      Spec: { Name: 'default', Orchestration: { TaskHistoryRetentionLimit: 5 }, Dispatcher: { HeartbeatPeriod: 5_000_000_000 } },
    });
  });

  it("shows the root CA in TLSInfo when the cluster has one, and nothing when it has none", () => {
    expect(toDockerSwarm(cluster).TLSInfo).toEqual({ TrustRoot: '', CertIssuerSubject: '', CertIssuerPublicKey: '' });
    const tls = { TrustRoot: '-----BEGIN CERTIFICATE-----\n…', CertIssuerSubject: 'MBMx', CertIssuerPublicKey: 'MFkw' };
    expect(toDockerSwarm(cluster, tls).TLSInfo).toEqual(tls);
    expect(toDockerClusterInfo(cluster, tls).TLSInfo).toEqual(tls);
  });

  it('round-trips: what `docker swarm update` sends back unchanged changes nothing', () => {
    expect(fromDockerSwarmSpec(toDockerSwarm(cluster).Spec, DEFAULT_CLUSTER_SPEC)).toEqual(DEFAULT_CLUSTER_SPEC);
  });

  it('takes the task history limit and the heartbeat period, keeping the rest', () => {
    const spec = fromDockerSwarmSpec({ Orchestration: { TaskHistoryRetentionLimit: 2 }, Dispatcher: { HeartbeatPeriod: 10_000_000_000 } }, DEFAULT_CLUSTER_SPEC);
    expect(spec).toEqual({ ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 }, dispatcher: { heartbeatPeriodMs: 10_000 } });
  });

  it('takes autolock on and off, and keeps it when an update leaves it out; the spec holds it only when on', () => {
    const on = fromDockerSwarmSpec({ EncryptionConfig: { AutoLockManagers: true } }, DEFAULT_CLUSTER_SPEC);
    expect(on).toEqual({ ...DEFAULT_CLUSTER_SPEC, encryption: { autoLockManagers: true } });
    expect(toDockerSwarm({ ...cluster, spec: on }).Spec.EncryptionConfig).toEqual({ AutoLockManagers: true });
    expect(fromDockerSwarmSpec({ Orchestration: { TaskHistoryRetentionLimit: 3 } }, on).encryption).toEqual({ autoLockManagers: true });
    expect(fromDockerSwarmSpec({ EncryptionConfig: { AutoLockManagers: false } }, on)).not.toHaveProperty('encryption');
  });

  it('names the settings Shoal does not have when an update asks for them, and none for what the CLI sends back unchanged', () => {
    const inspected = toDockerSwarm(cluster).Spec;
    expect(unsupportedSwarmSettings(inspected)).toBeUndefined();
    expect(unsupportedSwarmSettings({ ...inspected, Orchestration: { TaskHistoryRetentionLimit: 2 } })).toBeUndefined();
    expect(unsupportedSwarmSettings({ ...inspected, EncryptionConfig: { AutoLockManagers: true } })).toBeUndefined();
    const asked = unsupportedSwarmSettings({
      ...inspected,
      CAConfig: { NodeCertExpiry: 24 * 3600 * 1e9, ExternalCAs: [{ Protocol: 'cfssl', URL: 'https://ca' }] },
      Raft: { ...inspected.Raft, SnapshotInterval: 5_000 },
    });
    expect(asked).toContain('certificate expiry (--cert-expiry), external CAs (--external-ca), raft snapshot interval (--snapshot-interval)');
  });
});
