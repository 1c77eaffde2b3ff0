import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import { EventBuilder, clusterInit, given } from '@shoal/testing';

describe('evolve: the cluster', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder('c7')));

  it('ClusterInitialized creates the cluster at version 1 under the record’s cluster id', () => {
    given()
      .when(clusterInit(b))
      .thenApplied((state) => {
        expect(state.cluster).toMatchObject({ id: 'c7', version: 1, spec: DEFAULT_CLUSTER_SPEC });
        expect(state.cluster?.tokens.worker).toBe('SWMTKN-1-abc-worker');
      });
  });

  it('ClusterInitialized twice is refused', () => {
    given(clusterInit(b)).when(clusterInit(b)).thenRejected(/already initialized/);
  });

  it('ClusterSpecUpdated replaces the spec and bumps the version', () => {
    const spec = { ...DEFAULT_CLUSTER_SPEC, orchestration: { taskHistoryRetentionLimit: 2 } };
    given(clusterInit(b))
      .when(b.event('ClusterSpecUpdated', { spec }, { expect: { clusterVersion: 1 } }))
      .thenApplied((state) => {
        expect(state.cluster?.version).toBe(2);
        expect(state.cluster?.spec.orchestration.taskHistoryRetentionLimit).toBe(2);
      });
  });

  it('ClusterSpecUpdated before initialization is refused', () => {
    given().when(b.event('ClusterSpecUpdated', { spec: DEFAULT_CLUSTER_SPEC })).thenRejected(/not initialized/);
  });

  it('JoinTokensRotated replaces only the tokens it names', () => {
    given(clusterInit(b))
      .when(b.event('JoinTokensRotated', { worker: 'SWMTKN-1-abc-rotated' }))
      .thenApplied((state) => {
        expect(state.cluster?.tokens).toEqual({ worker: 'SWMTKN-1-abc-rotated', manager: 'SWMTKN-1-abc-manager' });
        expect(state.cluster?.version).toBe(1);
      });
  });

  it('JoinTokensRotated before initialization is refused', () => {
    given().when(b.event('JoinTokensRotated', { worker: 'x' })).thenRejected(/not initialized/);
  });
});
