import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
import { fromDockerSwarmSpec, toDockerClusterInfo, toDockerSwarm, toDockerSwarmSpec, unsupportedSwarmSettings } from './swarm-mapper';
import { keptJoinTokens } from '@shoal/testing';

/** The tokens opened: the log keeps them sealed, and the API opens them with the cluster key. */
const TOKENS = { worker: 'SWMTKN-1-w', manager: 'SWMTKN-1-m' };

const cluster: Cluster = {
  id: 'c1',
  spec: DEFAULT_CLUSTER_SPEC,
  version: 2,
  tokens: keptJoinTokens(TOKENS),
  createdAt: 't0',
  updatedAt: 't1',
};

describe("Docker's Swarm object", () => {
  it('carries the join tokens, the version and the spec in nanoseconds', () => {
    expect(toDockerSwarm(cluster, TOKENS)).toMatchObject({
      ID: 'c1',
      Version: { Index: 2 },
      JoinTokens: { Worker: 'SWMTKN-1-w', Manager: 'SWMTKN-1-m' },
      Spec: { Name: 'default', Orchestration: { TaskHistoryRetentionLimit: 5 }, Dispatcher: { HeartbeatPeriod: 5_000_000_000 } },
    });
  });

  it("shows the root CA in TLSInfo when the cluster has one, and nothing when it has none", () => {
    expect(toDockerSwarm(cluster, TOKENS).TLSInfo).toEqual({ TrustRoot: '', CertIssuerSubject: '', CertIssuerPublicKey: '' });
    const tls = { TrustRoot: '-----BEGIN CERTIFICATE-----\n…', CertIssuerSubject: 'MBMx', CertIssuerPublicKey: 'MFkw' };
    expect(toDockerSwarm(cluster, TOKENS, tls).TLSInfo).toEqual(tls);
    expect(toDockerClusterInfo(cluster, tls).TLSInfo).toEqual(tls);
  });

  it('round-trips: what `docker swarm update` sends back unchanged changes nothing', () => {
    expect(fromDockerSwarmSpec(toDockerSwarm(cluster, TOKENS).Spec, DEFAULT_CLUSTER_SPEC)).toEqual(DEFAULT_CLUSTER_SPEC);
  });

  it('takes the task history limit and the heartbeat period, keeping the rest', () => {
    const spec = fromDockerSwarmSpec({ Orchestration: { TaskHistoryRetentionLimit: 2 }, Dispatcher: { HeartbeatPeriod: 10_000_000_000 } }, DEFAULT_CLUSTER_SPEC);
    expect(spec).toEqual({ ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 }, dispatcher: { heartbeatPeriodMs: 10_000 } });
  });

  it('takes autolock on and off, and keeps it when an update leaves it out; the spec holds it only when on', () => {
    const on = fromDockerSwarmSpec({ EncryptionConfig: { AutoLockManagers: true } }, DEFAULT_CLUSTER_SPEC);
    expect(on).toEqual({ ...DEFAULT_CLUSTER_SPEC, encryption: { autoLockManagers: true } });
    expect(toDockerSwarm({ ...cluster, spec: on }, TOKENS).Spec.EncryptionConfig).toEqual({ AutoLockManagers: true });
    expect(fromDockerSwarmSpec({ Orchestration: { TaskHistoryRetentionLimit: 3 } }, on).encryption).toEqual({ autoLockManagers: true });
    expect(fromDockerSwarmSpec({ EncryptionConfig: { AutoLockManagers: false } }, on)).not.toHaveProperty('encryption');
  });

  it('names the settings Shoal does not have when an update asks for them, and none for what the CLI sends back unchanged', () => {
    const inspected = toDockerSwarm(cluster, TOKENS).Spec;
    expect(unsupportedSwarmSettings(inspected)).toBeUndefined();
    expect(unsupportedSwarmSettings({ ...inspected, Orchestration: { TaskHistoryRetentionLimit: 2 } })).toBeUndefined();
    expect(unsupportedSwarmSettings({ ...inspected, EncryptionConfig: { AutoLockManagers: true } })).toBeUndefined();
    const asked = unsupportedSwarmSettings({
      ...inspected,
      CAConfig: { NodeCertExpiry: 24 * 3600 * 1e9, ExternalCAs: [{ Protocol: 'cfssl', URL: 'https://ca' }] },
      Raft: { ...inspected.Raft, SnapshotInterval: 5_000 },
    });
    expect(asked).toContain('not supported by Shoal: external CAs (--external-ca), raft snapshot interval (--snapshot-interval);');
    expect(unsupportedSwarmSettings({ ...inspected, CAConfig: { NodeCertExpiry: 24 * 3600 * 1e9 } })).toBeUndefined();
  });

  it('keeps the node certificate expiry (--cert-expiry) when it differs from the 90 days, and shows it in nanoseconds', () => {
    const day = 24 * 3600 * 1e9;
    const spec = fromDockerSwarmSpec({ ...toDockerSwarm(cluster, TOKENS).Spec, CAConfig: { NodeCertExpiry: 2 * day } }, DEFAULT_CLUSTER_SPEC);
    expect(spec.ca).toEqual({ nodeCertExpiryMs: 2 * 24 * 3600 * 1000 });
    expect(toDockerSwarmSpec(spec).CAConfig).toEqual({ NodeCertExpiry: 2 * day });
    // Absent: as it was. The 90 days again: the field goes, as on a spec that never had it.
    expect(fromDockerSwarmSpec({ Name: 'default' }, spec).ca).toEqual(spec.ca);
    expect(fromDockerSwarmSpec({ CAConfig: { NodeCertExpiry: 90 * day } }, spec)).not.toHaveProperty('ca');
    expect(toDockerSwarmSpec(DEFAULT_CLUSTER_SPEC).CAConfig).toEqual({ NodeCertExpiry: 90 * day });
  });

  it("refuses a node certificate expiry under an hour in SwarmKit's words, naming the field", () => {
    expect(() => fromDockerSwarmSpec({ CAConfig: { NodeCertExpiry: 3599 * 1e9 } }, DEFAULT_CLUSTER_SPEC)).toThrow('invalid CAConfig.NodeCertExpiry: minimum certificate expiry time is: 1h0m0s');
    expect(() => fromDockerSwarmSpec({ CAConfig: { NodeCertExpiry: -5 } }, DEFAULT_CLUSTER_SPEC)).toThrow(/minimum certificate expiry time is: 1h0m0s/);
    expect(fromDockerSwarmSpec({ CAConfig: { NodeCertExpiry: 3600 * 1e9 } }, DEFAULT_CLUSTER_SPEC).ca).toEqual({ nodeCertExpiryMs: 3_600_000 });
  });
});
