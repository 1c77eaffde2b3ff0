import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL, RULE_LEVELS, decode, encode } from '@shoal/contracts';
import type { NodeTlsInfo, RootCaRotationStarted, ShoalEvent } from '@shoal/contracts';
import { EventBuilder, clusterInit, given, keptJoinToken, keptJoinTokens, nodeDescription } from '@shoal/testing';
import { evolve } from './evolve';
import { emptyState } from './state';
import type { ClusterState } from './state';
import { stateHash } from './state-hash';

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

  describe('a root CA rotation (log level 6)', () => {
    const at = (logLevel: number) => b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'SWMTKN-1-old-w', manager: 'SWMTKN-1-old-m' }), logLevel });
    const oldIssuer = { subject: 'b2xkLXN1YmplY3Q=', publicKey: 'b2xkLWtleQ==' };
    const rotation = (forceRotate = 1, publicKey = 'bmV3LWtleQ=='): RootCaRotationStarted => ({
      forceRotate,
      root: `-----BEGIN CERTIFICATE-----\nnew root ${forceRotate}\n-----END CERTIFICATE-----\n`,
      crossSigned: `-----BEGIN CERTIFICATE-----\ncross-signed ${forceRotate}\n-----END CERTIFICATE-----\n`,
      key: 'c2VhbGVkIGtleQ==',
      issuer: { subject: 'bmV3LXN1YmplY3Q=', publicKey },
      tokens: keptJoinTokens({ worker: `SWMTKN-1-new${forceRotate}-w`, manager: `SWMTKN-1-new${forceRotate}-m` }),
    });
    const tls = (issuer: { subject: string; publicKey: string }, trustRoot = 'roots'): NodeTlsInfo => ({ trustRoot, certIssuerSubject: issuer.subject, certIssuerPublicKey: issuer.publicKey });
    const registered = (id: string, issuer = oldIssuer) => b.event('NodeRegistered', { id, role: 'worker', description: nodeDescription(id, { tls: tls(issuer) }) });
    const newIssuer = rotation().issuer;
    const replay = (events: readonly ShoalEvent[]): ClusterState => {
      const state = emptyState();
      for (const event of events) evolve(state, event);
      return state;
    };

    it('is refused below level 6, where builds before it would not know the record', () => {
      given(at(RULE_LEVELS.nodeTlsInfo - 1)).when(b.event('RootCaRotationStarted', rotation())).thenRejected(/needs log level 6 and the log is at level 5/);
    });

    it('runs while a node has a certificate of the old root: the tokens stay, the cluster shows it under way', () => {
      given(at(LOG_LEVEL), registered('n1'), registered('n2'))
        .when(b.event('RootCaRotationStarted', rotation()))
        .thenApplied((state) => {
          expect(state.cluster?.rootRotation).toMatchObject({ forceRotate: 1, issuer: newIssuer });
          expect(state.cluster?.rootCa).toBeUndefined();
          expect(state.cluster?.tokens).toEqual(keptJoinTokens({ worker: 'SWMTKN-1-old-w', manager: 'SWMTKN-1-old-m' }));
          expect(state.cluster?.version).toBe(2);
        });
    });

    it("ends in the record where the last node shows a certificate of the new root: the new root and its tokens are the cluster's", () => {
      given(at(LOG_LEVEL), registered('n1'), registered('n2'), b.event('RootCaRotationStarted', rotation()), registered('n1', newIssuer))
        .when(registered('n2', newIssuer))
        .thenApplied((state) => {
          expect(state.cluster?.rootRotation).toBeUndefined();
          const { tokens: _tokens, ...root } = rotation();
          expect(state.cluster?.rootCa).toEqual(root);
          expect(state.cluster?.tokens).toEqual(keptJoinTokens({ worker: 'SWMTKN-1-new1-w', manager: 'SWMTKN-1-new1-m' }));
          expect(state.cluster?.version).toBe(3);
        });
    });

    it('waits for a node that comes back still on the old root, and ends when the last such node is removed', () => {
      const started = [at(LOG_LEVEL), registered('n1'), registered('n2'), b.event('RootCaRotationStarted', rotation()), registered('n1', newIssuer)];
      given(...started)
        .when(registered('n2'))
        .thenApplied((state) => expect(state.cluster?.rootRotation).toBeDefined());
      given(...started)
        .when(b.event('NodeRemoved', { id: 'n2', force: true }))
        .thenApplied((state) => {
          expect(state.cluster?.rootRotation).toBeUndefined();
          expect(state.cluster?.rootCa?.forceRotate).toBe(1);
        });
    });

    it('ends at once on a cluster whose every node already shows the new issuer, or that has none', () => {
      given(at(LOG_LEVEL))
        .when(b.event('RootCaRotationStarted', rotation()))
        .thenApplied((state) => expect(state.cluster?.rootCa?.root).toBe(rotation().root));
    });

    it('a rotation asked for during another replaces it: nodes on the first new root are not yet done', () => {
      const second = rotation(2, 'c2Vjb25kLWtleQ==');
      given(at(LOG_LEVEL), registered('n1'), b.event('RootCaRotationStarted', rotation()), b.event('RootCaRotationStarted', second))
        .when(registered('n1', newIssuer))
        .thenApplied((state) => expect(state.cluster?.rootRotation?.forceRotate).toBe(2));
    });

    it("keeps a node's TLS from level 6; below it, not at all, so a log below it hashes as the builds before it hash it", () => {
      const withTls = registered('n1');
      const { tls: _tls, ...plain } = withTls.data.description;
      const without = { ...withTls, data: { ...withTls.data, description: plain } };
      const below = at(RULE_LEVELS.nodeTlsInfo - 1);
      expect(replay([below, withTls]).nodes.get('n1')?.description.tls).toBeUndefined();
      expect(stateHash(replay([below, withTls]))).toBe(stateHash(replay([below, without])));
      const state = replay([at(LOG_LEVEL), withTls]);
      expect(state.nodes.get('n1')?.description.tls).toEqual(tls(oldIssuer));
      expect(evolve(state, b.event('RootCaRotationStarted', rotation())).status).toBe('applied');
    });

    it('survives the codec: a rotation record decodes to what was written', () => {
      const event = b.event('RootCaRotationStarted', rotation());
      const decoded = decode(encode(event));
      expect(decoded.ok && decoded.event).toEqual(event);
    });
  });
});
