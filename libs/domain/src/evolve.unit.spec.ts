import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import { EventBuilder, given, serviceSpec, keptJoinTokens } from '@shoal/testing';

describe('evolve: who may write, under which term, once', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder()));

  it('rejects an event proposed by a component that may not propose it', () => {
    given().when(b.event('ServiceCreated', { id: 's1', spec: serviceSpec() }, { by: 'agent' })).thenRejected(/may not be proposed by agent/);
  });

  it('rejects desired-state changes from outside the manager side', () => {
    given()
      .when(b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: 640 }] }, { by: 'dispatcher' }))
      .thenRejected(/may not be proposed by dispatcher/);
  });

  describe('ownership terms', () => {
    it('records a first term', () => {
      given()
        .when(b.event('OwnershipTaken', { component: 'scheduler', term: 1 }, { term: 1 }))
        .thenApplied((state) => expect(state.terms.get('scheduler')).toBe(1));
    });

    it('refuses a term that is not newer than the current one', () => {
      given(b.event('OwnershipTaken', { component: 'scheduler', term: 2 }, { term: 2 }))
        .when(b.event('OwnershipTaken', { component: 'scheduler', term: 2 }, { term: 2, instance: 'scheduler-2' }))
        .thenRejected(/term 2 of scheduler is not newer than its current term 2/);
    });

    it('refuses an OwnershipTaken written under another term than it takes', () => {
      given().when(b.event('OwnershipTaken', { component: 'scheduler', term: 3 }, { term: 1 })).thenRejected(/must be written by scheduler under term 3/);
    });

    it('refuses an OwnershipTaken for another component', () => {
      given()
        .when(b.event('OwnershipTaken', { component: 'allocator', term: 1 }, { by: 'scheduler', term: 1 }))
        .thenRejected(/must be written by allocator/);
    });

    it('fences a stale owner: its later events are rejected', () => {
      given(
        b.event('OwnershipTaken', { component: 'orchestrator', term: 1 }, { by: 'orchestrator', term: 1, instance: 'old' }),
        b.event('ServiceCreated', { id: 's1', spec: serviceSpec() }),
        b.event('OwnershipTaken', { component: 'orchestrator', term: 2 }, { by: 'orchestrator', term: 2, instance: 'new' }),
      )
        .when(
          b.event(
            'ServiceUpdateStatusChanged',
            { id: 's1', status: { state: 'updating' } },
            { by: 'orchestrator', term: 1, instance: 'old' },
          ),
        )
        .thenRejected(/stale writer: orchestrator term 1 was superseded by term 2/);
    });

    it('accepts events from the current owner', () => {
      given(
        b.event('OwnershipTaken', { component: 'orchestrator', term: 1 }, { by: 'orchestrator', term: 1 }),
        b.event('ServiceCreated', { id: 's1', spec: serviceSpec() }),
      )
        .when(b.event('ServiceUpdateStatusChanged', { id: 's1', status: { state: 'updating' } }, { term: 1 }))
        .thenApplied((state) => expect(state.services.get('s1')?.updateStatus?.state).toBe('updating'));
    });

    it('refuses events under a term that was never taken', () => {
      given(b.event('ServiceCreated', { id: 's1', spec: serviceSpec() }))
        .when(b.event('ServiceUpdateStatusChanged', { id: 's1', status: null }, { term: 4 }))
        .thenRejected(/orchestrator term 4 was never taken/);
    });
  });

  describe('(by, seq) de-duplication', () => {
    it('drops a record whose writer and seq were already applied', () => {
      const created = b.event('ServiceCreated', { id: 's1', spec: serviceSpec() });
      given(created)
        .when({ ...created, id: 'redelivered' })
        .thenRejected(/duplicate: api\/api-1 seq 1 already applied/);
    });

    it('drops an older seq from the same writer', () => {
      given(b.event('ServiceCreated', { id: 's1', spec: serviceSpec('a') }, { seq: 5 }))
        .when(b.event('ServiceCreated', { id: 's2', spec: serviceSpec('b') }, { seq: 4 }))
        .thenRejected(/duplicate/);
    });

    it('keeps writers apart: the same seq from another instance applies', () => {
      given(b.event('ServiceCreated', { id: 's1', spec: serviceSpec('a') }, { seq: 1 }))
        .when(b.event('ServiceCreated', { id: 's2', spec: serviceSpec('b') }, { seq: 1, instance: 'api-2' }))
        .thenApplied((state) => expect(state.services.size).toBe(2));
    });

    it('does not advance the watermark on a rejected record', () => {
      const refused = b.event('ServiceRemoved', { id: 'nope' }, { seq: 7 });
      given()
        .when(refused)
        .then((state) => expect(state.writers.has('api/api-1')).toBe(false));
    });
  });

  describe('expect preconditions', () => {
    it('rejects a service update from a stale version', () => {
      given(
        b.event('ServiceCreated', { id: 's1', spec: serviceSpec() }),
        b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 2 }) }, { expect: { serviceVersions: { s1: 1 } } }),
      )
        .when(
          b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) }, { expect: { serviceVersions: { s1: 1 } } }),
        )
        .thenRejected(/update out of sequence: service s1 is at version 2, not 1/);
    });

    it('rejects an expectation on a missing service', () => {
      given()
        .when(b.event('ServiceRemoved', { id: 's9' }, { expect: { serviceVersions: { s9: 1 } } }))
        .thenRejected(/expected service s9 at version 1, but it does not exist/);
    });

    it('checks node versions', () => {
      given(b.event('NodeRegistered', { id: 'n1', role: 'worker', description: { hostname: 'n1', platform: { os: 'linux', architecture: 'x86_64' }, resources: {}, engine: { version: '1' } } }))
        .when(
          b.event('NodeSpecUpdated', { id: 'n1', spec: { labels: {}, role: 'worker', availability: 'drain' } }, { expect: { nodeVersions: { n1: 2 } } }),
        )
        .thenRejected(/node n1 is at version 1, not 2/);
    });

    it('checks the cluster version', () => {
      given(b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) }))
        .when(b.event('ClusterSpecUpdated', { spec: DEFAULT_CLUSTER_SPEC }, { expect: { clusterVersion: 3 } }))
        .thenRejected(/cluster is at version 1, not 3/);
    });
  });
});
