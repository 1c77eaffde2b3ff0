import { EventBuilder, given, serviceSpec } from '@shoal/testing';

describe('evolve: services', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder()));
  const created = (id = 's1', name = 'web') => b.event('ServiceCreated', { id, spec: serviceSpec(name) });

  it('ServiceCreated adds the service at version 1', () => {
    given()
      .when(created())
      .thenApplied((state) => expect(state.services.get('s1')).toMatchObject({ version: 1, spec: { name: 'web' } }));
  });

  it('ServiceCreated starts jobs at iteration 0', () => {
    given()
      .when(b.event('ServiceCreated', { id: 'j1', spec: serviceSpec('job', { kind: 'replicated-job', maxConcurrent: 2, totalCompletions: 4 }) }))
      .thenApplied((state) => expect(state.services.get('j1')?.jobIteration).toBe(0));
  });

  it('ServiceCreated with a taken name is refused', () => {
    given(created('s1', 'web')).when(created('s2', 'web')).thenRejected(/name conflicts with an existing object/);
  });

  it('ServiceCreated with a taken id is refused', () => {
    given(created('s1', 'a')).when(created('s1', 'b')).thenRejected(/service s1 already exists/);
  });

  it('ServiceUpdated replaces the spec, keeps the previous one and bumps the version', () => {
    const scaled = serviceSpec('web', { kind: 'replicated', replicas: 5 });
    given(created())
      .when(b.event('ServiceUpdated', { id: 's1', spec: scaled }))
      .thenApplied((state) => {
        const service = state.services.get('s1');
        expect(service?.version).toBe(2);
        expect(service?.spec.mode).toEqual({ kind: 'replicated', replicas: 5 });
        expect(service?.previousSpec?.mode).toEqual({ kind: 'replicated', replicas: 1 });
      });
  });

  it('ServiceUpdated of a job starts a new iteration', () => {
    const job = serviceSpec('job', { kind: 'global-job' });
    given(b.event('ServiceCreated', { id: 'j1', spec: job }))
      .when(b.event('ServiceUpdated', { id: 'j1', spec: { ...job, task: { container: { image: 'busybox:2' } } } }))
      .thenApplied((state) => expect(state.services.get('j1')?.jobIteration).toBe(1));
  });

  it('ServiceUpdated may not change the mode', () => {
    given(created())
      .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'global' }) }))
      .thenRejected(/service mode change is not allowed \(replicated → global\)/);
  });

  it('ServiceUpdated may not rename', () => {
    given(created()).when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('api') })).thenRejected(/renaming/);
  });

  it('ServiceUpdated of a missing service is refused', () => {
    given().when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec() })).thenRejected(/service s1 not found/);
  });

  it('a rollback needs a previous spec', () => {
    given(created()).when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec(), rollback: true })).thenRejected(/no previous spec/);
  });

  it('a rollback after an update applies', () => {
    given(created(), b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) }))
      .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec(), rollback: true }))
      .thenApplied((state) => {
        expect(state.services.get('s1')?.spec.mode).toEqual({ kind: 'replicated', replicas: 1 });
        expect(state.services.get('s1')?.version).toBe(3);
      });
  });

  it('ServiceUpdated starts afresh: a paused update status is cleared', () => {
    given(created(), b.event('ServiceUpdateStatusChanged', { id: 's1', status: { state: 'paused', message: 'update paused' } }))
      .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 2 }) }))
      .thenApplied((state) => expect(state.services.get('s1')?.updateStatus).toBeUndefined());
  });

  it('a manual rollback starts rolling back: rollback_started, "manually requested rollback"', () => {
    const history = [created(), b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) })];
    const rollback = b.event('ServiceUpdated', { id: 's1', spec: serviceSpec(), rollback: true });
    given(...history)
      .when(rollback)
      .thenApplied((state) =>
        expect(state.services.get('s1')?.updateStatus).toEqual({ state: 'rollback_started', message: 'manually requested rollback', startedAt: rollback.at }),
      );
  });

  describe('the orchestrator rolling a failed update back', () => {
    const v2 = serviceSpec('web', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'nginx:2' } } });
    const updated = () => b.event('ServiceUpdated', { id: 's1', spec: v2 });

    it('may restore the previous spec, saying why in the update status', () => {
      const message = 'update rolled back due to failure or early termination of task t9';
      given(created(), updated())
        .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec(), rollback: true, message }, { by: 'orchestrator' }))
        .thenApplied((state) => {
          expect(state.services.get('s1')?.spec).toEqual(serviceSpec());
          expect(state.services.get('s1')?.updateStatus).toMatchObject({ state: 'rollback_started', message });
        });
    });

    it('may not update a service otherwise', () => {
      given(created(), updated())
        .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec() }, { by: 'orchestrator' }))
        .thenRejected(/the orchestrator may only roll a service back/);
    });

    it('may not roll back to anything but the previous spec', () => {
      given(created(), updated())
        .when(b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 9 }), rollback: true }, { by: 'orchestrator' }))
        .thenRejected(/must restore its previous spec/);
    });

    it('never rolls back a rollback', () => {
      given(created(), updated(), b.event('ServiceUpdated', { id: 's1', spec: serviceSpec(), rollback: true }))
        .when(b.event('ServiceUpdated', { id: 's1', spec: v2, rollback: true }, { by: 'orchestrator' }))
        .thenRejected(/a rollback is never rolled back/);
    });
  });

  describe('networks the spec attaches to', () => {
    const network = (builder: EventBuilder) => builder.event('NetworkCreated', { id: 'n1', spec: { name: 'backend', driver: 'overlay' } });
    const on = (name: string, target: string) => ({ ...serviceSpec(name), task: { ...serviceSpec(name).task, networks: [{ target }] } });

    it('must exist, by id or by name, for a service to be created', () => {
      given(network(b)).when(b.event('ServiceCreated', { id: 's1', spec: on('web', 'n1') })).thenApplied();
      given(network(b)).when(b.event('ServiceCreated', { id: 's1', spec: on('web', 'backend') })).thenApplied();
      given(network(b)).when(b.event('ServiceCreated', { id: 's1', spec: on('web', 'frontend') })).thenRejected(/network frontend not found/);
    });

    it('must exist for a service to be updated onto them: a network removed after the API looked is refused here', () => {
      given(network(b), created(), b.event('NetworkRemoved', { id: 'n1' }))
        .when(b.event('ServiceUpdated', { id: 's1', spec: on('web', 'n1') }))
        .thenRejected(/network n1 not found/);
    });

    it('may have gone when a rollback restores the spec that named them (the allocator reports it)', () => {
      given(network(b), b.event('ServiceCreated', { id: 's1', spec: on('web', 'n1') }), b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web') }), b.event('NetworkRemoved', { id: 'n1' }))
        .when(b.event('ServiceUpdated', { id: 's1', spec: on('web', 'n1'), rollback: true }))
        .thenApplied((state) => expect(state.services.get('s1')?.spec.task.networks).toEqual([{ target: 'n1' }]));
    });
  });

  it('ServiceRemoved deletes the service', () => {
    given(created()).when(b.event('ServiceRemoved', { id: 's1' })).thenApplied((state) => expect(state.services.has('s1')).toBe(false));
  });

  it('ServiceRemoved of a missing service is refused', () => {
    given().when(b.event('ServiceRemoved', { id: 's1' })).thenRejected(/not found/);
  });

  it('ServiceEndpointsAllocated sets the endpoint for the spec version it was made for', () => {
    const endpoint = { virtualIps: [{ network: 'ingress', address: '10.0.0.2/24' }], ports: [] };
    given(created())
      .when(b.event('ServiceEndpointsAllocated', { services: [{ id: 's1', specVersion: 1, endpoint }] }))
      .thenApplied((state) => {
        expect(state.services.get('s1')?.endpoint).toEqual(endpoint);
        expect(state.services.get('s1')?.endpointVersion).toBe(1);
      });
  });

  it('ServiceEndpointsAllocated for a stale spec version or a missing service refuses those items', () => {
    const endpoint = { virtualIps: [], ports: [] };
    given(created('s1', 'a'), created('s2', 'b'), b.event('ServiceUpdated', { id: 's2', spec: serviceSpec('b') }))
      .when(
        b.event('ServiceEndpointsAllocated', {
          services: [
            { id: 's1', specVersion: 1, endpoint },
            { id: 's2', specVersion: 1, endpoint },
            { id: 's3', specVersion: 1, endpoint },
          ],
        }),
      )
      .thenPartial(/service s2 is at version 2, not 1/, (state) => {
        expect(state.services.get('s1')?.endpoint).toEqual(endpoint);
        expect(state.services.get('s2')?.endpoint).toBeUndefined();
      });
  });

  it('ServiceUpdateStatusChanged sets and clears the update status', () => {
    const updating = b.event('ServiceUpdateStatusChanged', { id: 's1', status: { state: 'updating', startedAt: '2026-01-01T00:00:00Z' } });
    given(created())
      .when(updating)
      .thenApplied((state) => expect(state.services.get('s1')?.updateStatus?.state).toBe('updating'));
    given(created(), updating)
      .when(b.event('ServiceUpdateStatusChanged', { id: 's1', status: null }))
      .thenApplied((state) => expect(state.services.get('s1')?.updateStatus).toBeUndefined());
  });

  it('ServiceUpdateStatusChanged of a missing service is refused', () => {
    given().when(b.event('ServiceUpdateStatusChanged', { id: 's1', status: null })).thenRejected(/not found/);
  });
});
