import { admitNode, checkJoinToken } from './join-token';

const digest = 'a'.repeat(50);
const tokens = { worker: `SWMTKN-1-${digest}-${'w'.repeat(25)}`, manager: `SWMTKN-1-${digest}-${'m'.repeat(25)}` };

describe('join tokens', () => {
  it('admits the worker token as a worker and the manager token as a manager', () => {
    expect(checkJoinToken(tokens, tokens.worker)).toEqual({ ok: true, role: 'worker' });
    expect(checkJoinToken(tokens, tokens.manager)).toEqual({ ok: true, role: 'manager' });
    expect(checkJoinToken(tokens, `  ${tokens.worker}\n`)).toEqual({ ok: true, role: 'worker' });
  });

  it('refuses a missing token, asking for one', () => {
    expect(checkJoinToken(tokens, '')).toEqual({ ok: false, reason: expect.stringMatching(/join token is required/) });
  });

  it('refuses a token not in the SWMTKN-1 shape', () => {
    expect(checkJoinToken(tokens, 'let-me-in')).toEqual({ ok: false, reason: expect.stringMatching(/SWMTKN-1-<digest>-<secret> shape/) });
  });

  it('refuses a rotated-out token of this cluster, saying it may have been rotated', () => {
    const old = `SWMTKN-1-${digest}-${'o'.repeat(25)}`;
    expect(checkJoinToken(tokens, old)).toEqual({ ok: false, reason: expect.stringMatching(/not a current token of this cluster.*rotated/) });
    const rotated = { ...tokens, worker: `SWMTKN-1-${digest}-${'n'.repeat(25)}` };
    expect(checkJoinToken(rotated, tokens.worker).ok).toBe(false);
    expect(checkJoinToken(rotated, rotated.worker)).toEqual({ ok: true, role: 'worker' });
  });

  it("refuses another cluster's token", () => {
    const foreign = `SWMTKN-1-${'b'.repeat(50)}-${'w'.repeat(25)}`;
    expect(checkJoinToken(tokens, foreign)).toEqual({ ok: false, reason: expect.stringMatching(/another cluster/) });
  });

  it('refuses everything before the cluster exists', () => {
    expect(checkJoinToken(undefined, tokens.worker)).toEqual({ ok: false, reason: expect.stringMatching(/not initialized/) });
  });
});

describe('admitting a session', () => {
  const old = `SWMTKN-1-${digest}-${'o'.repeat(25)}`;
  const former = new Map([[old, 'worker' as const]]);

  it('lets a node the cluster has come back with a token from before rotation', () => {
    expect(admitNode(tokens, old, { known: true, former })).toEqual({ ok: true, role: 'worker' });
  });

  it('refuses that token for a new node, and a never-valid token for anyone', () => {
    expect(admitNode(tokens, old, { known: false, former })).toEqual({ ok: false, reason: expect.stringMatching(/rotated/) });
    const guessed = `SWMTKN-1-${digest}-${'g'.repeat(25)}`;
    expect(admitNode(tokens, guessed, { known: true, former })).toEqual({ ok: false, reason: expect.stringMatching(/rotated/) });
  });

  it('admits the current tokens as checkJoinToken does', () => {
    expect(admitNode(tokens, tokens.manager, { known: false, former })).toEqual({ ok: true, role: 'manager' });
  });
});
