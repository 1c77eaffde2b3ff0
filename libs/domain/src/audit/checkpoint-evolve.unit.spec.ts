import { EventBuilder, clusterInit } from '@shoal/testing';
import { emptyState } from '../state';
import { evolve } from '../evolve';
import { stateHash } from '../state-hash';

const checkpoint = (b: EventBuilder, term = 0) =>
  b.event(
    'AuditCheckpointed',
    { from: 0, through: 0, chain: 'a'.repeat(64), state: 'b'.repeat(64), digests: '0123456789ab', key: 'k', signature: 's' },
    { term },
  );

describe('evolve and AuditCheckpointed', () => {
  it('applies it and changes no state, not even its writer\'s seq: the state hash stays', () => {
    const b = new EventBuilder('c1');
    const state = emptyState();
    evolve(state, clusterInit(b));
    const before = stateHash(state);
    expect(evolve(state, checkpoint(b)).status).toBe('applied');
    expect(stateHash(state)).toBe(before);
    expect([...state.writers.keys()]).not.toContain('reaper/reaper-1');
  });

  it('refuses one from a writer other than the reaper, or under a term the reaper never took', () => {
    const b = new EventBuilder('c1');
    const state = emptyState();
    evolve(state, clusterInit(b));
    expect(evolve(state, { ...checkpoint(b), by: { component: 'api', instance: 'api-1', term: 0 } }).status).toBe('rejected');
    expect(evolve(state, checkpoint(b, 3)).status).toBe('rejected');
  });
});
