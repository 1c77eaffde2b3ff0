import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import { EventBuilder, given, newTask, nodeDescription, serviceSpec, keptJoinTokens } from '@shoal/testing';

describe('evolve: networks', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder()));
  const created = (id = 'n1', name = 'backend', ingress = false) =>
    b.event('NetworkCreated', { id, spec: { name, driver: 'overlay', ...(ingress ? { ingress } : {}) } });

  it('NetworkCreated adds the network', () => {
    given().when(created()).thenApplied((state) => expect(state.networks.get('n1')?.spec.name).toBe('backend'));
  });

  it('NetworkCreated with a taken name is refused', () => {
    given(created('n1')).when(created('n2')).thenRejected(/network with name backend already exists/);
  });

  it('only one ingress network', () => {
    given(created('i1', 'ingress', true)).when(created('i2', 'ingress2', true)).thenRejected(/an ingress network already exists/);
  });

  it('the allocator may create the ingress network, and no other', () => {
    const ingress = { name: 'ingress', driver: 'overlay' as const, ingress: true };
    given()
      .when(b.event('NetworkCreated', { id: 'i1', spec: ingress }, { by: 'allocator' }))
      .thenApplied((state) => expect(state.networks.get('i1')?.spec.ingress).toBe(true));
    given()
      .when(b.event('NetworkCreated', { id: 'n1', spec: { name: 'backend', driver: 'overlay' } }, { by: 'allocator' }))
      .thenRejected(/the allocator may only create the ingress network, not backend/);
  });

  it('NetworkAllocated gives the network its subnet once', () => {
    given(created())
      .when(b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/24', gateway: '10.0.1.1' }))
      .thenApplied((state) => expect(state.networks.get('n1')).toMatchObject({ subnet: '10.0.1.0/24', gateway: '10.0.1.1' }));
    given(created(), b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/24', gateway: '10.0.1.1' }))
      .when(b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.2.0/24', gateway: '10.0.2.1' }))
      .thenRejected(/already has subnet 10.0.1.0\/24/);
  });

  it('NetworkAllocated refuses a subnet that overlaps another network\'s, so no address can be handed out twice', () => {
    given(created('n1', 'a'), created('n2', 'b'), b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.0.0/16', gateway: '10.0.0.1' }))
      .when(b.event('NetworkAllocated', { id: 'n2', subnet: '10.0.3.0/24', gateway: '10.0.3.1' }))
      .thenRejected(/subnet 10.0.3.0\/24 overlaps 10.0.0.0\/16 of network a/);
  });

  it('NetworkAllocated refuses an invalid subnet or a gateway outside it', () => {
    given(created()).when(b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/33', gateway: '10.0.1.1' })).thenRejected(/invalid subnet/);
    given(created()).when(b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/24', gateway: '10.0.2.1' })).thenRejected(/invalid gateway 10.0.2.1/);
    given(created()).when(b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/24', gateway: '10.0.1.0' })).thenRejected(/invalid gateway/);
  });

  it('NetworkAllocated of a missing network is refused', () => {
    given().when(b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/24', gateway: '10.0.1.1' })).thenRejected(/not found/);
  });

  it('NetworkRemoved deletes an unused network', () => {
    given(created()).when(b.event('NetworkRemoved', { id: 'n1' })).thenApplied((state) => expect(state.networks.size).toBe(0));
  });

  it('NetworkRemoved of a network a service uses is refused', () => {
    const spec = serviceSpec('web');
    given(created(), b.event('ServiceCreated', { id: 's1', spec: { ...spec, task: { ...spec.task, networks: [{ target: 'backend' }] } } }))
      .when(b.event('NetworkRemoved', { id: 'n1' }))
      .thenRejected(/network backend is in use by service web/);
  });

  it('NetworkRemoved of a network a task still holds an address on is refused until the task ends, on a log below level 3 (as builds before it ruled)', () => {
    const spec = serviceSpec('web');
    const onBackend = { ...spec, task: { ...spec.task, networks: [{ target: 'backend' }] } };
    const running = [
      created(),
      b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/24', gateway: '10.0.1.1' }),
      b.event('NodeRegistered', { id: 'x', role: 'worker', description: nodeDescription('x') }),
      b.event('ServiceCreated', { id: 's1', spec: onBackend }),
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', onBackend)] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [{ network: 'n1', addresses: ['10.0.1.2/24'] }] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'x', why: 'test' }] }),
      b.event('TaskStatusesReported', { nodeId: 'x', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
      b.event('ServiceRemoved', { id: 's1' }),
    ];
    given(...running).when(b.event('NetworkRemoved', { id: 'n1' })).thenRejected(/network backend is in use by task t1/);
    const ended = b.event('TaskStatusesReported', { nodeId: 'x', statuses: [{ id: 't1', state: TaskState.SHUTDOWN, at: b.now() }] });
    given(...running, ended)
      .when(b.event('NetworkRemoved', { id: 'n1' }))
      .thenApplied((state) => expect(state.networks.size).toBe(0));
  });

  it('NetworkRemoved on a log at level 3, as SwarmKit: a removed service\'s tasks not yet stopped do not keep the network, a task still meant to run does', () => {
    const spec = serviceSpec('web');
    const onBackend = { ...spec, task: { ...spec.task, networks: [{ target: 'backend' }] } };
    const level3 = b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), logLevel: 3 });
    const running = (serviceId: string, taskId: string, network: string) => [
      b.event('TasksCreated', { tasks: [newTask(taskId, serviceId, onBackend)] }),
      b.event('TasksAllocated', { tasks: [{ id: taskId, attachments: [{ network, addresses: ['10.0.1.2/24'] }] }] }),
      b.event('TasksAssigned', { tasks: [{ id: taskId, nodeId: 'x', why: 'test' }] }),
      b.event('TaskStatusesReported', { nodeId: 'x', statuses: [{ id: taskId, state: TaskState.RUNNING, at: b.now() }] }),
    ];
    const setup = [
      level3,
      created(),
      b.event('NetworkAllocated', { id: 'n1', subnet: '10.0.1.0/24', gateway: '10.0.1.1' }),
      b.event('NodeRegistered', { id: 'x', role: 'worker', description: nodeDescription('x') }),
      b.event('ServiceCreated', { id: 's1', spec: onBackend }),
      ...running('s1', 't1', 'n1'),
    ];
    // `docker service rm web && docker network rm backend`: the task still runs, its service is gone.
    given(...setup, b.event('ServiceRemoved', { id: 's1' }))
      .when(b.event('NetworkRemoved', { id: 'n1' }))
      .thenApplied((state) => expect(state.networks.size).toBe(0));
    // A service updated off the network: its old task, stood down, does not keep it either.
    const offBackend = { ...spec, task: { ...spec.task, networks: [] } };
    given(...setup, b.event('ServiceUpdated', { id: 's1', spec: offBackend }), b.event('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] }))
      .when(b.event('NetworkRemoved', { id: 'n1' }))
      .thenApplied((state) => expect(state.networks.size).toBe(0));
    // Still meant to run (its service updated off the network, the task not yet stood down): it keeps it.
    given(...setup, b.event('ServiceUpdated', { id: 's1', spec: offBackend }))
      .when(b.event('NetworkRemoved', { id: 'n1' }))
      .thenRejected(/network backend is in use by task t1/);
  });

  it('NetworkRemoved of a missing network is refused', () => {
    given().when(b.event('NetworkRemoved', { id: 'n1' })).thenRejected(/not found/);
  });
});
