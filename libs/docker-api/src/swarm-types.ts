/**
 * Docker's swarm.Spec, swarm.InitRequest and swarm.NodeSpec as their Go types declare them
 * (moby's api/types/swarm, API 1.41), for `goDecodeAs`: the bodies of `POST /swarm/init`,
 * `/swarm/update` and `/nodes/{id}/update`, and their schemas in `/openapi.json`. What
 * Shoal accepts of them is the mappers' to say (swarm-mapper.ts, node-mapper.ts).
 */
import { go } from './go-types';
import type { GoType } from './go-types';

const { str, bool, int, slice, map, struct } = go;

const labels = map(str());
const duration = int('time.Duration');

export const SWARM_SPEC: GoType = struct('swarm.Spec', {
  Name: str(),
  Labels: labels,
  Orchestration: struct('swarm.OrchestrationConfig', { TaskHistoryRetentionLimit: int('int64') }),
  Raft: struct('swarm.RaftConfig', { SnapshotInterval: int('uint64'), KeepOldSnapshots: int('uint64'), LogEntriesForSlowFollowers: int('uint64'), ElectionTick: int('int'), HeartbeatTick: int('int') }),
  Dispatcher: struct('swarm.DispatcherConfig', { HeartbeatPeriod: duration }),
  CAConfig: struct('swarm.CAConfig', {
    NodeCertExpiry: duration,
    ExternalCAs: slice(struct('swarm.ExternalCA', { Protocol: str('swarm.ExternalCAProtocol'), URL: str(), Options: labels, CACert: str() })),
    SigningCACert: str(),
    SigningCAKey: str(),
    ForceRotate: int('uint64'),
  }),
  TaskDefaults: struct('swarm.TaskDefaults', { LogDriver: struct('swarm.Driver', { Name: str(), Options: labels }) }),
  EncryptionConfig: struct('swarm.EncryptionConfig', { AutoLockManagers: bool() }),
});

export const SWARM_INIT: GoType = struct('swarm.InitRequest', {
  ListenAddr: str(),
  AdvertiseAddr: str(),
  DataPathAddr: str(),
  DataPathPort: int('uint32'),
  ForceNewCluster: bool(),
  Spec: SWARM_SPEC,
  AutoLockManagers: bool(),
  Availability: str('swarm.NodeAvailability'),
  DefaultAddrPool: slice(str()),
  SubnetSize: int('uint32'),
});

/** `POST /swarm/unlock`'s body. */
export const SWARM_UNLOCK: GoType = struct('swarm.UnlockRequest', { UnlockKey: str() });

export const NODE_SPEC: GoType = struct('swarm.NodeSpec', {
  Name: str(),
  Labels: labels,
  Role: str('swarm.NodeRole'),
  Availability: str('swarm.NodeAvailability'),
});
