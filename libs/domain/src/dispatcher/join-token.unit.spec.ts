import { keptJoinTokens } from '@shoal/testing';
import { admitNode, checkJoinToken, isJoinToken, joinTokenHash } from './join-token';

const digest = 'a'.repeat(50);
const clear = { worker: `SWMTKN-1-${digest}-${'w'.repeat(25)}`, manager: `SWMTKN-1-${digest}-${'m'.repeat(25)}` };
/** As the log keeps them from level 5: hashes beside the sealed tokens. */
const tokens = keptJoinTokens(clear);

describe('join tokens', () => {
  it('admits the worker token as a worker and the manager token as a manager', () => {
    expect(checkJoinToken(tokens, clear.worker)).toEqual({ ok: true, role: 'worker' });
    expect(checkJoinToken(tokens, clear.manager)).toEqual({ ok: true, role: 'manager' });
    expect(checkJoinToken(tokens, `  ${clear.worker}\n`)).toEqual({ ok: true, role: 'worker' });
  });

  it('checks what a node presents against the hash the log keeps, not against the sealed bytes', () => {
    expect('hash' in tokens.worker && tokens.worker.hash).toBe(joinTokenHash(clear.worker));
    expect(checkJoinToken(tokens, clear.worker.replace(/w$/, 'x')).ok).toBe(false);
    // The hash itself, or the sealed bytes, presented as a token: refused.
    expect(checkJoinToken(tokens, joinTokenHash(clear.worker)).ok).toBe(false);
    expect(isJoinToken(tokens.manager, clear.manager)).toBe(true);
    expect(isJoinToken(tokens.manager, clear.worker)).toBe(false);
  });

  it('checks tokens a record from before level 5 kept in the clear as they are', () => {
    const old = clear;
    expect(checkJoinToken(old, clear.worker)).toEqual({ ok: true, role: 'worker' });
    expect(checkJoinToken(old, clear.manager)).toEqual({ ok: true, role: 'manager' });
    expect(checkJoinToken(old, `SWMTKN-1-${digest}-${'o'.repeat(25)}`)).toEqual({ ok: false, reason: expect.stringMatching(/rotated/) });
    expect(isJoinToken(old.manager, clear.manager)).toBe(true);
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
    const rotated = keptJoinTokens({ ...clear, worker: `SWMTKN-1-${digest}-${'n'.repeat(25)}` });
    expect(checkJoinToken(rotated, clear.worker).ok).toBe(false);
    expect(checkJoinToken(rotated, `SWMTKN-1-${digest}-${'n'.repeat(25)}`)).toEqual({ ok: true, role: 'worker' });
  });

  it("refuses another cluster's token", () => {
    const foreign = `SWMTKN-1-${'b'.repeat(50)}-${'w'.repeat(25)}`;
    expect(checkJoinToken(tokens, foreign)).toEqual({ ok: false, reason: expect.stringMatching(/another cluster/) });
  });

  it('refuses everything before the cluster exists', () => {
    expect(checkJoinToken(undefined, clear.worker)).toEqual({ ok: false, reason: expect.stringMatching(/not initialized/) });
  });
});

describe('admitting a session', () => {
  const old = `SWMTKN-1-${digest}-${'o'.repeat(25)}`;
  const former = new Map([[joinTokenHash(old), 'worker' as const]]);

  it('lets a node the cluster has come back with a token from before rotation', () => {
    expect(admitNode(tokens, old, { known: true, former })).toEqual({ ok: true, role: 'worker' });
  });

  it('refuses that token for a new node, and a never-valid token for anyone', () => {
    expect(admitNode(tokens, old, { known: false, former })).toEqual({ ok: false, reason: expect.stringMatching(/rotated/) });
    const guessed = `SWMTKN-1-${digest}-${'g'.repeat(25)}`;
    expect(admitNode(tokens, guessed, { known: true, former })).toEqual({ ok: false, reason: expect.stringMatching(/rotated/) });
  });

  it('admits the current tokens as checkJoinToken does', () => {
    expect(admitNode(tokens, clear.manager, { known: false, former })).toEqual({ ok: true, role: 'manager' });
  });
});
