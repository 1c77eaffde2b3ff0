import { TaskState } from '@shoal/contracts';
import { addressOf, allocatorSpecification, ingressPort, network, published, serviceCreated, serviceSpec, tasksOf, withNetworks } from '@shoal/testing';

describe('allocator: tasks move NEW → PENDING', () => {
  it('allocates tasks with no networks and no ports at once, many in one record', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', serviceSpec('web')));
    w.apply(tasksOf('s1', 't1', 't2', 't3'));
    const written = w.settle();
    const allocations = written.filter((e) => e.type === 'TasksAllocated');
    expect(allocations).toHaveLength(1);
    for (const id of ['t1', 't2', 't3']) {
      expect(w.task(id).status.state).toBe(TaskState.PENDING);
      expect(w.task(id).attachments).toEqual([]);
    }
  });

  it('splits a large allocation into records of at most the batch size', () => {
    const w = allocatorSpecification({ batchSize: 2 });
    w.settle();
    w.apply(serviceCreated('s1', serviceSpec('web')));
    w.apply(tasksOf('s1', 'a', 'b', 'c', 'd', 'e'));
    const records = w.settle().filter((e) => e.type === 'TasksAllocated');
    expect(records.map((e) => (e.type === 'TasksAllocated' ? e.data.tasks.length : 0))).toEqual([2, 2, 1]);
  });

  it('allocates a bounded number of tasks per decision, and the rest in the next ones', () => {
    const w = allocatorSpecification({ tasksPerDecision: 3 });
    w.settle();
    w.apply(serviceCreated('s1', serviceSpec('web')));
    w.apply(tasksOf('s1', 'a', 'b', 'c', 'd', 'e', 'f', 'g'));
    const first = w.core.decide(w.state, new Date());
    expect(first.map((p) => (p.type === 'TasksAllocated' ? p.data.tasks.map((t) => t.id) : []))).toEqual([['a', 'b', 'c']]);
    for (const p of first) w.append(w.propose(p));
    expect(w.core.watching.pending).toBe(4);
    w.settle();
    expect(['d', 'e', 'f', 'g'].map((id) => w.task(id).status.state)).toEqual(Array(4).fill(TaskState.PENDING));
  });

  it('leaves alone a task that is told to stop before it is allocated', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', serviceSpec('web')));
    w.apply(tasksOf('s1', 't1'));
    w.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] });
    expect(w.settle()).toEqual([]);
    expect(w.task('t1').status.state).toBe(TaskState.NEW);
  });
});

describe('allocator: a watch list, not a scan', () => {
  it('after 20,000 tasks are allocated, a new task is the only one a decision reads', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'big', '10.64.0.0/16'));
    w.apply(serviceCreated('s1', withNetworks('web', ['big'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', ...Array.from({ length: 20_000 }, (_, i) => `t${i}`)));
    w.settle();
    expect(w.task('t19999').status.state).toBe(TaskState.PENDING);

    const tasks = w.state.tasks;
    const get = tasks.get.bind(tasks);
    let reads = 0;
    tasks.get = (id: string) => {
      reads++;
      return get(id);
    };
    const scan = () => {
      throw new Error('the allocator scanned every task');
    };
    tasks.values = scan;
    tasks.forEach = scan;
    tasks[Symbol.iterator] = scan;
    w.apply(tasksOf('s1', 'one-more'));
    reads = 0;
    const proposals = w.core.decide(w.state, new Date());
    expect(proposals).toEqual([{ type: 'TasksAllocated', data: { tasks: [{ id: 'one-more', attachments: [{ network: 'n1', addresses: ['10.64.78.34/16'] }] }] } }]);
    expect(reads).toBe(1);
  });
});

describe('allocator: restart', () => {
  it('after replay hands out neither an address nor a port that the log already gave', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'backend', '10.9.0.0/24'));
    w.apply(serviceCreated('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'vip', ports: [ingressPort(80)] } })));
    w.apply(tasksOf('s1', 't1', 't2'));
    w.settle();
    w.restart();
    expect(w.core.ledger.holders).toEqual({ tasks: 2, services: 1 });
    w.apply(serviceCreated('s2', withNetworks('api', ['backend'], { endpoint: { mode: 'vip', ports: [ingressPort(80)] } })));
    w.apply(tasksOf('s2', 'u1'));
    w.settle();
    expect(w.state.services.get('s1')?.endpoint?.ports[0]?.publishedPort).toBe(30000);
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(30001);
    const backend = ['t1', 't2', 'u1'].map((id) => addressOf(w, id, 'backend'));
    expect(new Set(backend).size).toBe(3);
    expect(w.core.ledger.conflicts).toBe(0);
  });

  it('does not report the ingress network missing while it is creating it', () => {
    const w = allocatorSpecification();
    w.apply(serviceCreated('s1', published('web', [ingressPort(80)])));
    w.apply(tasksOf('s1', 't1'));
    const written = w.settle();
    expect(written.map((e) => e.type)).toEqual(['NetworkCreated', 'NetworkAllocated', 'ServiceEndpointsAllocated', 'TasksAllocated']);
    expect(w.state.services.get('s1')?.endpoint?.ports[0]?.publishedPort).toBe(30000);
  });

  it('gives back, after a restart, the ports of a service that stopped publishing while it was down', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('web', [ingressPort(80, 8080)])));
    w.settle();
    w.happen('ServiceUpdated', { id: 's1', spec: serviceSpec('web') });
    w.restart();
    w.apply(serviceCreated('s2', published('api', [ingressPort(80, 8080)])));
    w.apply(tasksOf('s2', 't1'));
    w.settle();
    expect(w.state.services.get('s1')?.endpoint).toEqual({ virtualIps: [], ports: [] });
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
  });

  it('a superseded allocator cannot hand out an address again: the log fences its term off', () => {
    const w = allocatorSpecification();
    w.takeOwnership('allocator-a');
    w.apply(network('n1', 'backend', '10.9.0.0/24'));
    w.apply(serviceCreated('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1'));
    w.settle();
    w.apply(tasksOf('s1', 't2'));
    // allocator-a decides, but its record reaches the log only after allocator-b has taken over.
    const late = w.core.decide(w.state, new Date()).map((p) => w.propose(p));
    w.restart();
    w.takeOwnership('allocator-b');
    w.settle();
    expect(addressOf(w, 't2', 'backend')).toBe('10.9.0.3/24');
    w.apply(tasksOf('s1', 't3'));
    for (const event of late) expect(w.append(event)).toMatchObject({ status: 'rejected', reasons: [expect.stringMatching(/stale writer/)] });
    w.settle();
    expect(['t1', 't2', 't3'].map((id) => addressOf(w, id, 'backend'))).toEqual(['10.9.0.2/24', '10.9.0.3/24', '10.9.0.4/24']);
  });

  it('picks up NEW tasks that were waiting when it stopped', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', serviceSpec('web')));
    w.apply(tasksOf('s1', 't1'));
    w.restart();
    w.settle();
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
  });
});
