import { TaskState } from '@shoal/contracts';
import type { PortConfig } from '@shoal/contracts';
import { serviceSpec } from '@shoal/testing';
import { AllocatorWorld, withNetworks } from './allocator.fixture';

const ingressPort = (targetPort: number, publishedPort?: number): PortConfig => ({
  protocol: 'tcp',
  targetPort,
  publishMode: 'ingress',
  ...(publishedPort === undefined ? {} : { publishedPort }),
});
const published = (name: string, ports: PortConfig[], mode: 'vip' | 'dnsrr' = 'vip') => serviceSpec(name, undefined, { endpoint: { mode, ports } });

describe('allocator: tasks move NEW → PENDING', () => {
  it('allocates tasks with no networks and no ports at once, many in one record', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', serviceSpec('web'));
    w.tasks('s1', 't1', 't2', 't3');
    const written = w.settle();
    const allocations = written.filter((e) => e.type === 'TasksAllocated');
    expect(allocations).toHaveLength(1);
    for (const id of ['t1', 't2', 't3']) {
      expect(w.task(id).status.state).toBe(TaskState.PENDING);
      expect(w.task(id).attachments).toEqual([]);
    }
  });

  it('splits a large allocation into records of at most the batch size', () => {
    const w = new AllocatorWorld({ batchSize: 2 });
    w.settle();
    w.service('s1', serviceSpec('web'));
    w.tasks('s1', 'a', 'b', 'c', 'd', 'e');
    const records = w.settle().filter((e) => e.type === 'TasksAllocated');
    expect(records.map((e) => (e.type === 'TasksAllocated' ? e.data.tasks.length : 0))).toEqual([2, 2, 1]);
  });

  it('leaves alone a task that is told to stop before it is allocated', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', serviceSpec('web'));
    w.tasks('s1', 't1');
    w.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] });
    expect(w.settle()).toEqual([]);
    expect(w.task('t1').status.state).toBe(TaskState.NEW);
  });
});

describe('allocator: a watch list, not a scan', () => {
  it('after 20,000 tasks are allocated, a new task is the only one a decision reads', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'big', '10.64.0.0/16');
    w.service('s1', withNetworks('web', ['big'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', ...Array.from({ length: 20_000 }, (_, i) => `t${i}`));
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
    w.tasks('s1', 'one-more');
    reads = 0;
    const proposals = w.core.decide(w.state, new Date());
    expect(proposals).toEqual([{ type: 'TasksAllocated', data: { tasks: [{ id: 'one-more', attachments: [{ network: 'n1', addresses: ['10.64.78.34/16'] }] }] } }]);
    expect(reads).toBe(1);
  });
});

describe('allocator: networks', () => {
  it('creates the ingress network at start-up when there is none, and gives it the first /24 of 10.0.0.0/8', () => {
    const w = new AllocatorWorld();
    w.settle();
    const ingress = [...w.state.networks.values()].find((n) => n.spec.ingress);
    expect(ingress).toMatchObject({ spec: { name: 'ingress', ingress: true }, subnet: '10.0.0.0/24', gateway: '10.0.0.1' });
    w.restart();
    expect(w.settle()).toEqual([]);
    expect([...w.state.networks.values()].filter((n) => n.spec.ingress)).toHaveLength(1);
  });

  it('carves user networks without a subnet from the default pool, one /24 each, skipping taken ones', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'given', '10.0.1.0/24', '10.0.1.254');
    w.network('n2', 'carved');
    w.network('n3', 'carved-too');
    w.settle();
    expect(w.state.networks.get('n1')).toMatchObject({ subnet: '10.0.1.0/24', gateway: '10.0.1.254' });
    expect(w.state.networks.get('n2')).toMatchObject({ subnet: '10.0.2.0/24', gateway: '10.0.2.1' });
    expect(w.state.networks.get('n3')).toMatchObject({ subnet: '10.0.3.0/24', gateway: '10.0.3.1' });
  });

  it('refuses an overlapping subnet, and tasks on that network say why', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'a', '10.1.0.0/16');
    w.network('n2', 'b', '10.1.2.0/24');
    w.settle();
    expect(w.state.networks.get('n2')?.subnet).toBeUndefined();
    w.service('s1', withNetworks('web', ['b'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1');
    w.settle();
    expect(w.task('t1').status).toMatchObject({ state: TaskState.NEW, err: expect.stringMatching(/network b could not be allocated: .*overlaps with 10.1.0.0\/16/) });
  });

  it('gives each task an address on each of its networks, never the gateway, never twice', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'backend', '10.9.0.0/24');
    w.settle();
    w.service('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1', 't2');
    w.settle();
    expect(w.addressOf('t1', 'backend')).toBe('10.9.0.2/24');
    expect(w.addressOf('t2', 'backend')).toBe('10.9.0.3/24');
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
  });

  it('a task waits for its network to get its subnet, then is allocated in the same settling', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'backend');
    w.service('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1');
    const written = w.settle();
    expect(written.map((e) => e.type)).not.toContain('TasksAllocationFailed');
    expect(w.addressOf('t1', 'backend')).toBe('10.0.1.2/24');
  });

  it('a task attached to a network that does not exist stays NEW with the reason, and goes once the network exists', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', withNetworks('web', ['nope'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1');
    w.settle();
    expect(w.task('t1').status).toMatchObject({ state: TaskState.NEW, err: 'network nope not found' });
    expect(w.settle()).toEqual([]);
    w.network('n1', 'nope');
    w.settle();
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
  });

  it('exhaustion is a reason on the task, not a crash; it is retried only when an address is freed', () => {
    const w = new AllocatorWorld();
    w.settle();
    // A /29: 8 addresses less network, broadcast and gateway leave 5.
    w.network('n1', 'tiny', '192.168.0.0/29');
    w.settle();
    w.service('s1', withNetworks('web', ['tiny'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1', 't2', 't3', 't4', 't5', 't6');
    w.settle();
    expect(['t1', 't2', 't3', 't4', 't5'].map((id) => w.task(id).status.state)).toEqual(Array(5).fill(TaskState.PENDING));
    expect(w.task('t6').status).toMatchObject({ state: TaskState.NEW, err: expect.stringMatching(/no available IP addresses on network tiny \(192.168.0.0\/29\)/) });
    expect(w.settle()).toEqual([]);
    expect(w.core.watching).toMatchObject({ pending: 0, blocked: 1 });

    w.end('t2');
    w.settle();
    expect(w.task('t6').status.state).toBe(TaskState.PENDING);
    expect(w.addressOf('t6', 'tiny')).toBe(w.addressOf('t2', 'tiny'));
  });

  it('releases a task\'s address when the task is removed', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'tiny', '192.168.0.0/30');
    w.settle();
    w.service('s1', withNetworks('web', ['tiny'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1', 't2');
    w.settle();
    expect(w.addressOf('t1', 'tiny')).toBe('192.168.0.2/30');
    expect(w.task('t2').status.err).toMatch(/no available IP addresses/);
    w.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.REMOVE }] });
    w.happen('TasksRemoved', { tasks: [{ id: 't1', reason: 'scaled down' }] });
    w.settle();
    expect(w.addressOf('t2', 'tiny')).toBe('192.168.0.2/30');
  });

  it('gives back what it proposed for a task the log then refused', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'backend', '10.9.0.0/24');
    w.settle();
    w.service('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1');
    const proposals = w.core.decide(w.state, new Date());
    expect(w.core.ledger.pools.get('n1')?.available).toBe(252);
    w.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] });
    for (const p of proposals) w.append(w.b.event(p.type, p.data as never, { by: 'allocator' }));
    expect(w.task('t1').status.state).toBe(TaskState.NEW);
    expect(w.core.ledger.pools.get('n1')?.available).toBe(253);
  });
});

describe('allocator: service endpoints', () => {
  it('gives a VIP-mode service a virtual IP on each network, and its tasks wait for it', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'backend', '10.9.0.0/24');
    w.network('n2', 'frontend', '10.8.0.0/24');
    w.settle();
    w.service('s1', withNetworks('web', ['backend', 'frontend']));
    w.tasks('s1', 't1');
    const written = w.settle();
    expect(written.map((e) => e.type)).toEqual(['ServiceEndpointsAllocated', 'TasksAllocated']);
    expect(w.state.services.get('s1')?.endpoint?.virtualIps).toEqual([
      { network: 'n1', address: '10.9.0.2/24' },
      { network: 'n2', address: '10.8.0.2/24' },
    ]);
    expect(w.addressOf('t1', 'backend')).toBe('10.9.0.3/24');
    expect(w.addressOf('t1', 'frontend')).toBe('10.8.0.3/24');
  });

  it('gives a DNSRR service no virtual IP', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'backend', '10.9.0.0/24');
    w.service('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } }));
    w.tasks('s1', 't1');
    w.settle();
    expect(w.state.services.get('s1')?.endpoint).toBeUndefined();
    expect(w.addressOf('t1', 'backend')).toBe('10.9.0.2/24');
  });

  it('refuses ingress-published ports with DNSRR mode', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', published('web', [ingressPort(80, 8080)], 'dnsrr'));
    w.tasks('s1', 't1');
    w.settle();
    expect(w.task('t1').status.err).toBe("port published with ingress mode can't be used with dnsrr mode");
  });

  it('publishes ingress ports from 30000–32767 when none is given, and the tasks join the ingress network', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', published('web', [ingressPort(80), ingressPort(443)]));
    w.service('s2', published('api', [ingressPort(80)]));
    w.tasks('s1', 't1');
    w.settle();
    const ports = w.state.services.get('s1')?.endpoint?.ports;
    expect(ports?.map((p) => p.publishedPort)).toEqual([30000, 30001]);
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(30002);
    expect(w.task('t1').ports).toEqual(ports);
    expect(w.state.services.get('s1')?.endpoint?.virtualIps).toEqual([{ network: expect.any(String), address: '10.0.0.2/24' }]);
    expect(w.state.services.get('s2')?.endpoint?.virtualIps).toEqual([{ network: expect.any(String), address: '10.0.0.3/24' }]);
    expect(w.addressOf('t1', 'ingress')).toBe('10.0.0.4/24');
  });

  it('reserves a requested port, and refuses it to another service with a clear conflict until it is freed', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', published('x', [ingressPort(80, 8080)]));
    w.service('s2', published('y', [ingressPort(81, 8080)]));
    w.tasks('s1', 'a1');
    w.tasks('s2', 'b1');
    w.settle();
    expect(w.state.services.get('s1')?.endpoint?.ports[0]?.publishedPort).toBe(8080);
    expect(w.task('a1').status.state).toBe(TaskState.PENDING);
    expect(w.task('b1').status).toMatchObject({ state: TaskState.NEW, err: "port '8080' is already in use by service 'x' (s1) as an ingress port" });
    expect(w.settle()).toEqual([]);

    w.happen('ServiceRemoved', { id: 's1' });
    w.settle();
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(8080);
    expect(w.task('b1').status.state).toBe(TaskState.PENDING);
  });

  it('lets the same port be published for udp and tcp by different services', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', published('x', [ingressPort(53, 53)]));
    w.service('s2', published('y', [{ ...ingressPort(53, 53), protocol: 'udp' }]));
    w.settle();
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(53);
  });

  it('keeps its dynamic port and its VIP across an update, and frees a port the update drops', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', published('web', [ingressPort(80), ingressPort(81, 9000)]));
    w.settle();
    const before = w.state.services.get('s1')?.endpoint;
    w.happen('ServiceUpdated', { id: 's1', spec: published('web', [ingressPort(80)]) });
    w.settle();
    const after = w.state.services.get('s1');
    expect(after?.endpointVersion).toBe(2);
    expect(after?.endpoint?.ports).toEqual([before?.ports[0]]);
    expect(after?.endpoint?.virtualIps).toEqual(before?.virtualIps);
    w.service('s2', published('other', [ingressPort(80, 9000)]));
    w.settle();
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(9000);
  });

  it('passes host-mode ports on as given, holding nothing cluster-wide', () => {
    const w = new AllocatorWorld();
    w.settle();
    const host: PortConfig = { protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' };
    w.service('s1', published('a', [host]));
    w.service('s2', published('b', [host]));
    w.tasks('s2', 't1');
    w.settle();
    expect(w.task('t1').ports).toEqual([host]);
    expect(w.task('t1').attachments).toEqual([]);
  });

  it('a VIP that cannot be had is the reason on the service\'s tasks', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'tiny', '192.168.0.0/30');
    w.settle();
    w.service('s1', withNetworks('a', ['tiny']));
    w.service('s2', withNetworks('b', ['tiny']));
    w.tasks('s2', 't1');
    w.settle();
    expect(w.task('t1').status.err).toMatch(/could not allocate a virtual IP on network tiny/);
  });
});

describe('allocator: restart', () => {
  it('after replay hands out neither an address nor a port that the log already gave', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.network('n1', 'backend', '10.9.0.0/24');
    w.service('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'vip', ports: [ingressPort(80)] } }));
    w.tasks('s1', 't1', 't2');
    w.settle();
    w.restart();
    expect(w.core.ledger.holders).toEqual({ tasks: 2, services: 1 });
    w.service('s2', withNetworks('api', ['backend'], { endpoint: { mode: 'vip', ports: [ingressPort(80)] } }));
    w.tasks('s2', 'u1');
    w.settle();
    expect(w.state.services.get('s1')?.endpoint?.ports[0]?.publishedPort).toBe(30000);
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(30001);
    const backend = ['t1', 't2', 'u1'].map((id) => w.addressOf(id, 'backend'));
    expect(new Set(backend).size).toBe(3);
    expect(w.core.ledger.conflicts).toBe(0);
  });

  it('does not report the ingress network missing while it is creating it', () => {
    const w = new AllocatorWorld();
    w.service('s1', published('web', [ingressPort(80)]));
    w.tasks('s1', 't1');
    const written = w.settle();
    expect(written.map((e) => e.type)).toEqual(['NetworkCreated', 'NetworkAllocated', 'ServiceEndpointsAllocated', 'TasksAllocated']);
    expect(w.state.services.get('s1')?.endpoint?.ports[0]?.publishedPort).toBe(30000);
  });

  it('picks up NEW tasks that were waiting when it stopped', () => {
    const w = new AllocatorWorld();
    w.settle();
    w.service('s1', serviceSpec('web'));
    w.tasks('s1', 't1');
    w.restart();
    w.settle();
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
  });
});
