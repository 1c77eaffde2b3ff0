import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
import { fromDockerSwarmSpec, toDockerSwarm } from './swarm-mapper';

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

  it('round-trips: what `docker swarm update` sends back unchanged changes nothing', () => {
    expect(fromDockerSwarmSpec(toDockerSwarm(cluster).Spec, DEFAULT_CLUSTER_SPEC)).toEqual(DEFAULT_CLUSTER_SPEC);
  });

  it('takes the task history limit and the heartbeat period, keeping the rest', () => {
    const spec = fromDockerSwarmSpec({ Orchestration: { TaskHistoryRetentionLimit: 2 }, Dispatcher: { HeartbeatPeriod: 10_000_000_000 } }, DEFAULT_CLUSTER_SPEC);
    expect(spec).toEqual({ ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 }, dispatcher: { heartbeatPeriodMs: 10_000 } });
  });
});
