import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL, decode, encode } from '@shoal/contracts';
import { EventBuilder, clusterInit, given, keptJoinToken, keptJoinTokens } from '@shoal/testing';

describe('evolve: the cluster', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder('c7')));

  it('ClusterInitialized creates the cluster at version 1 under the record’s cluster id', () => {
    given()
      .when(clusterInit(b))
      .thenApplied((state) => {
        expect(state.cluster).toMatchObject({ id: 'c7', version: 1, spec: DEFAULT_CLUSTER_SPEC });
        expect(state.cluster?.tokens.worker).toEqual(keptJoinToken('SWMTKN-1-abc-worker'));
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
      .when(b.event('JoinTokensRotated', { worker: keptJoinToken('SWMTKN-1-abc-rotated') }))
      .thenApplied((state) => {
        expect(state.cluster?.tokens).toEqual(keptJoinTokens({ worker: 'SWMTKN-1-abc-rotated', manager: 'SWMTKN-1-abc-manager' }));
        expect(state.cluster?.version).toBe(1);
      });
  });

  it('JoinTokensRotated before initialization is refused', () => {
    given().when(b.event('JoinTokensRotated', { worker: keptJoinToken('x') })).thenRejected(/not initialized/);
  });

  describe('join tokens kept from level 5', () => {
    it('reads a record from before level 5, its tokens in the clear, as kept in the clear: the history as it was written', () => {
      const v1 = { ...clusterInit(b), v: 1, data: { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'SWMTKN-1-abc-w', manager: 'SWMTKN-1-abc-m' } } };
      const decoded = decode(JSON.stringify(v1));
      expect(decoded).toMatchObject({ ok: true, upcastFrom: 1 });
      // The state holds them as they were (strings), so an old log's state hash is what it always was.
      given()
        .when(decoded.ok ? decoded.event : clusterInit(b))
        .thenApplied((state) => expect(state.cluster?.tokens).toEqual({ worker: 'SWMTKN-1-abc-w', manager: 'SWMTKN-1-abc-m' }));
      const rotated = decode(JSON.stringify({ ...b.event('JoinTokensRotated', {}), v: 1, data: { manager: 'SWMTKN-1-abc-m2' } }));
      expect(rotated).toMatchObject({ ok: true, event: { v: 2, data: { manager: 'SWMTKN-1-abc-m2' } } });
    });

    it('takes a token sealed beside a hash of 64 hex digits, or a token in the clear, and nothing else', () => {
      const tokens = keptJoinTokens({ worker: 'SWMTKN-1-abc-w', manager: 'SWMTKN-1-abc-m' });
      expect(decode(encode(b.event('JoinTokensRotated', { worker: tokens.worker }))).ok).toBe(true);
      const unsealed = { digest: 'abc', hash: tokens.worker.hash };
      expect(decode(encode(b.event('JoinTokensRotated', { worker: unsealed as never })))).toMatchObject({ ok: false, reason: expect.stringMatching(/data.worker.sealed/) });
      expect(decode(encode(b.event('JoinTokensRotated', { worker: '' })))).toMatchObject({ ok: false, reason: expect.stringMatching(/data.worker/) });
      const short = { ...tokens.worker, hash: 'abc' };
      expect(decode(encode(b.event('JoinTokensRotated', { worker: short })))).toMatchObject({ ok: false, reason: expect.stringMatching(/data.worker.hash: expected 64 hex digits/) });
    });
  });

  describe("the CA's settings in the spec (log level 5)", () => {
    const twoHours = { ...DEFAULT_CLUSTER_SPEC, ca: { nodeCertExpiryMs: 2 * 3_600_000 } };
    const at = (logLevel: number) => b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'SWMTKN-1-abc-w', manager: 'SWMTKN-1-abc-m' }), logLevel });

    it('keeps a node certificate expiry on a log at level 5', () => {
      given(at(LOG_LEVEL))
        .when(b.event('ClusterSpecUpdated', { spec: twoHours }))
        .thenApplied((state) => expect(state.cluster?.spec.ca).toEqual({ nodeCertExpiryMs: 7_200_000 }));
    });

    it('refuses it below level 5, where builds before it would keep it and not honour it', () => {
      given(at(4)).when(b.event('ClusterSpecUpdated', { spec: twoHours })).thenRejected(/need log level 5 and the log is at level 4/);
      given().when(b.event('ClusterInitialized', { spec: twoHours, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), logLevel: 4 })).thenRejected(/need log level 5/);
    });

    it('refuses one under an hour, as SwarmKit does', () => {
      given(at(LOG_LEVEL))
        .when(b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, ca: { nodeCertExpiryMs: 3_599_999 } } }))
        .thenRejected(/minimum certificate expiry time is: 1h0m0s/);
    });
  });
});
