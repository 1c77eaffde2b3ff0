import { applied, rejected } from '@shoal/domain';
import { verdictAnswer } from './verdict-answer';

describe("evolve's verdict as Docker's answer", () => {
  it('applied is a success', () => {
    expect(verdictAnswer(applied('ServiceCreated'))).toEqual({ ok: true });
  });

  it.each([
    ['update out of sequence: service s1 is at version 3, not 2', 409],
    ['name conflicts with an existing object: service web is s1', 409],
    ['service s1 not found', 404],
    ['node n1 is not down and can\'t be removed', 400],
    ['renaming services is not supported', 400],
  ])('"%s" → %i with the reason', (reason, status) => {
    expect(verdictAnswer(rejected('ServiceUpdated', reason))).toEqual({ ok: false, status, message: reason });
  });

  it('a second swarm init gets Docker\'s 503', () => {
    expect(verdictAnswer(rejected('ClusterInitialized', 'cluster c1 is already initialized'))).toEqual({
      ok: false,
      status: 503,
      message: expect.stringMatching(/^This node is already part of a swarm/),
    });
  });
});
