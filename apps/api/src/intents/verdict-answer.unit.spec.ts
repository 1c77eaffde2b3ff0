import { applied, rejected } from '@shoal/domain';
import type { VerdictCode } from '@shoal/domain';
import { verdictAnswer } from './verdict-answer';

describe("evolve's verdict as Docker's answer", () => {
  it('applied is a success', () => {
    expect(verdictAnswer(applied('ServiceCreated'))).toEqual({ ok: true });
  });

  it.each<[string, VerdictCode, number]>([
    ['update out of sequence: service s1 is at version 3, not 2', 'stale-version', 409],
    ['name conflicts with an existing object: service web is s1', 'name-conflict', 409],
    ['service s1 already exists', 'already-exists', 409],
    ['service s1 not found', 'not-found', 404],
    ['expected service s1 at version 2, but it does not exist', 'not-found', 404],
    ['node n1 is not down and can\'t be removed', 'wrong-state', 400],
    ['renaming services is not supported', 'invalid', 400],
    ["config 'app' is in use by the following service: web", 'in-use', 400],
  ])('"%s" (%s) → %i with the reason', (reason, code, status) => {
    expect(verdictAnswer(rejected('ServiceUpdated', code, reason))).toEqual({ ok: false, status, message: reason });
  });

  it('a second swarm init gets Docker\'s 503', () => {
    expect(verdictAnswer(rejected('ClusterInitialized', 'already-initialized', 'cluster c1 is already initialized'))).toEqual({
      ok: false,
      status: 503,
      message: expect.stringMatching(/^This node is already part of a swarm/),
    });
  });
});
