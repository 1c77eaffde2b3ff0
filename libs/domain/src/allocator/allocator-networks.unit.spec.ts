import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import { addressOf, allocatorSpecification, ended, network, serviceCreated, tasksOf, withNetworks, keptJoinTokens } from '@shoal/testing';
import type { Specification } from '@shoal/testing';
import type { AllocatorCore } from './allocator-core';

describe('allocator: networks', () => {
  it('creates the ingress network at start-up when there is none, and gives it the first /24 of 10.0.0.0/8', () => {
    const w = allocatorSpecification();
    w.settle();
    const ingress = [...w.state.networks.values()].find((n) => n.spec.ingress);
    expect(ingress).toMatchObject({ spec: { name: 'ingress', ingress: true }, subnet: '10.0.0.0/24', gateway: '10.0.0.1' });
    w.restart();
    expect(w.settle()).toEqual([]);
    expect([...w.state.networks.values()].filter((n) => n.spec.ingress)).toHaveLength(1);
  });

  it('creates the ingress network only once the cluster is initialized', () => {
    const w = allocatorSpecification({}, false);
    expect(w.settle()).toEqual([]);
    w.happen('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }) });
    expect(w.settle().map((e) => e.type)).toEqual(['NetworkCreated', 'NetworkAllocated']);
  });

  it('carves user networks without a subnet from the default pool, one /24 each, skipping taken ones', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'given', '10.0.1.0/24', '10.0.1.254'));
    w.apply(network('n2', 'carved'));
    w.apply(network('n3', 'carved-too'));
    w.settle();
    expect(w.state.networks.get('n1')).toMatchObject({ subnet: '10.0.1.0/24', gateway: '10.0.1.254' });
    expect(w.state.networks.get('n2')).toMatchObject({ subnet: '10.0.2.0/24', gateway: '10.0.2.1' });
    expect(w.state.networks.get('n3')).toMatchObject({ subnet: '10.0.3.0/24', gateway: '10.0.3.1' });
  });

  it('refuses an overlapping subnet, and tasks on that network say why', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'a', '10.1.0.0/16'));
    w.apply(network('n2', 'b', '10.1.2.0/24'));
    w.settle();
    expect(w.state.networks.get('n2')?.subnet).toBeUndefined();
    w.apply(serviceCreated('s1', withNetworks('web', ['b'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1'));
    w.settle();
    expect(w.task('t1').status).toMatchObject({ state: TaskState.NEW, err: expect.stringMatching(/network b could not be allocated: .*overlaps with 10.1.0.0\/16/) });
  });

  it('gives each task an address on each of its networks, never the gateway, never twice', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'backend', '10.9.0.0/24'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1', 't2'));
    w.settle();
    expect(addressOf(w, 't1', 'backend')).toBe('10.9.0.2/24');
    expect(addressOf(w, 't2', 'backend')).toBe('10.9.0.3/24');
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
  });

  it('a task waits for its network to get its subnet, then is allocated in the same settling', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'backend'));
    w.apply(serviceCreated('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1'));
    const written = w.settle();
    expect(written.map((e) => e.type)).not.toContain('TasksAllocationFailed');
    expect(addressOf(w, 't1', 'backend')).toBe('10.0.1.2/24');
  });

  /**
   * Service s1 ends up naming a network that is gone: evolve refuses a create or update that
   * names one, but a rollback restores the spec that named it before it was removed.
   */
  const rolledBackOntoGone = (w: Specification<AllocatorCore>, name: string): void => {
    w.apply(network('gone', name));
    w.apply(serviceCreated('s1', withNetworks('web', [name], { endpoint: { mode: 'dnsrr' } })));
    w.settle();
    expect(w.happen('ServiceUpdated', { id: 's1', spec: withNetworks('web', [], { endpoint: { mode: 'dnsrr' } }) }).status).toBe('applied');
    expect(w.happen('NetworkRemoved', { id: 'gone' }).status).toBe('applied');
    expect(w.happen('ServiceUpdated', { id: 's1', spec: withNetworks('web', [name], { endpoint: { mode: 'dnsrr' } }), rollback: true }).status).toBe('applied');
  };

  it('a task attached to a network that does not exist stays NEW with the reason, and goes once the network exists', () => {
    const w = allocatorSpecification();
    w.settle();
    rolledBackOntoGone(w, 'nope');
    w.apply(tasksOf('s1', 't1'));
    w.settle();
    expect(w.task('t1').status).toMatchObject({ state: TaskState.NEW, err: 'network nope not found' });
    expect(w.settle()).toEqual([]);
    w.apply(network('n1', 'nope'));
    w.settle();
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
  });

  it('a task\'s reason follows what stops it: first a missing network, then an exhausted one', () => {
    const w = allocatorSpecification();
    w.settle();
    rolledBackOntoGone(w, 'later');
    w.apply(tasksOf('s1', 't1', 't2', 't3'));
    w.settle();
    expect(w.task('t3').status.err).toBe('network later not found');
    w.apply(network('n1', 'later', '192.168.9.0/30'));
    w.settle();
    expect(w.task('t1').status.state).toBe(TaskState.PENDING);
    expect(w.task('t3').status.err).toMatch(/no available IP addresses on network later/);
  });

  it('exhaustion is a reason on the task, not a crash; it is retried only when an address is freed', () => {
    const w = allocatorSpecification();
    w.settle();
    // A /29: 8 addresses less network, broadcast and gateway leave 5.
    w.apply(network('n1', 'tiny', '192.168.0.0/29'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['tiny'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1', 't2', 't3', 't4', 't5', 't6'));
    w.settle();
    expect(['t1', 't2', 't3', 't4', 't5'].map((id) => w.task(id).status.state)).toEqual(Array(5).fill(TaskState.PENDING));
    expect(w.task('t6').status).toMatchObject({ state: TaskState.NEW, err: expect.stringMatching(/no available IP addresses on network tiny \(192.168.0.0\/29\)/) });
    expect(w.settle()).toEqual([]);
    expect(w.core.watching).toMatchObject({ pending: 0, blocked: 1 });

    w.apply(ended('t2'));
    w.settle();
    expect(w.task('t6').status.state).toBe(TaskState.PENDING);
    expect(addressOf(w, 't6', 'tiny')).toBe(addressOf(w, 't2', 'tiny'));
  });

  it('a task waiting on an exhausted network that is then removed says the network is gone', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'tiny', '192.168.0.0/30'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['tiny'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1', 't2'));
    w.settle();
    expect(w.task('t2').status.err).toMatch(/no available IP addresses/);
    // The service moves off the network and its task t1 ends; its old task t2 still asks for it.
    w.happen('ServiceUpdated', { id: 's1', spec: withNetworks('web', [], { endpoint: { mode: 'dnsrr' } }) });
    expect(w.happen('NetworkRemoved', { id: 'n1' })).toMatchObject({ status: 'rejected', reasons: [expect.stringMatching(/in use by task t1/)] });
    w.apply(ended('t1'));
    expect(w.happen('NetworkRemoved', { id: 'n1' }).status).toBe('applied');
    w.settle();
    expect(w.task('t2').status).toMatchObject({ state: TaskState.NEW, err: 'network tiny not found' });
  });

  it('releases a task\'s address when the task is removed', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'tiny', '192.168.0.0/30'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['tiny'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1', 't2'));
    w.settle();
    expect(addressOf(w, 't1', 'tiny')).toBe('192.168.0.2/30');
    expect(w.task('t2').status.err).toMatch(/no available IP addresses/);
    w.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.REMOVE }] });
    w.happen('TasksRemoved', { tasks: [{ id: 't1', reason: 'scaled down' }] });
    w.settle();
    expect(addressOf(w, 't2', 'tiny')).toBe('192.168.0.2/30');
  });

  it('releases the address of a task orphaned by its node\'s removal (a log at level 3), as a rebuilt allocator would', () => {
    const w = allocatorSpecification({}, false);
    w.happen('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), logLevel: 3 });
    w.settle();
    w.apply(network('n1', 'tiny', '192.168.0.0/30'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['tiny'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1', 't2'));
    w.settle();
    expect(addressOf(w, 't1', 'tiny')).toBe('192.168.0.2/30');
    w.apply(ended('t1', TaskState.RUNNING));
    expect(w.happen('NodeRemoved', { id: 'node-1', force: true }).status).toBe('applied');
    expect(w.task('t1').status.state).toBe(TaskState.ORPHANED);
    w.settle();
    expect(addressOf(w, 't2', 'tiny')).toBe('192.168.0.2/30');
  });

  it('gives back what it proposed for a task the log then refused', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'backend', '10.9.0.0/24'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1'));
    const proposals = w.core.decide(w.state, new Date());
    expect(w.core.ledger.pools.get('n1')?.available).toBe(252);
    w.happen('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: TaskState.SHUTDOWN }] });
    for (const p of proposals) w.append(w.b.event(p.type, p.data as never, { by: 'allocator' }));
    expect(w.task('t1').status.state).toBe(TaskState.NEW);
    expect(w.core.ledger.pools.get('n1')?.available).toBe(253);
  });

  describe('a network removed and created again under the same id, while a service still records a virtual IP on it', () => {
    /**
     * svc0 gets a VIP on net0, is updated onto net1, whose only address svc9 holds (so it
     * keeps the VIP on net0), and net0 is removed.
     */
    const leftBehind = (): Specification<AllocatorCore> => {
      const w = allocatorSpecification();
      w.settle();
      w.apply(network('n0', 'net0'));
      w.apply(serviceCreated('s0', withNetworks('svc0', ['net0'])));
      w.settle();
      expect(w.state.services.get('s0')?.endpoint?.virtualIps).toEqual([{ network: 'n0', address: '10.0.1.2/24' }]);
      w.apply(network('n1', 'net1', '192.168.9.0/30'));
      w.apply(serviceCreated('s9', withNetworks('svc9', ['net1'])));
      w.settle();
      expect(w.state.services.get('s9')?.endpoint?.virtualIps).toEqual([{ network: 'n1', address: '192.168.9.2/30' }]);
      w.happen('ServiceUpdated', { id: 's0', spec: withNetworks('svc0', ['net1']) });
      w.settle();
      expect(w.happen('NetworkRemoved', { id: 'n0' }).status).toBe('applied');
      w.settle();
      expect(w.state.services.get('s0')?.endpoint?.virtualIps).toEqual([{ network: 'n0', address: '10.0.1.2/24' }]);
      return w;
    };

    it('back on the same subnet, the address stays held: a new service gets another, live and after a restart', () => {
      const w = leftBehind();
      w.apply(network('n0', 'net0'));
      w.settle();
      expect(w.state.networks.get('n0')?.subnet).toBe('10.0.1.0/24');
      w.apply(serviceCreated('s1', withNetworks('svc1', ['net0'])));
      w.settle();
      expect(w.state.services.get('s1')?.endpoint?.virtualIps).toEqual([{ network: 'n0', address: '10.0.1.3/24' }]);
      expect(w.core.ledger.conflicts).toBe(0);
      w.restart();
      expect(w.core.ledger.conflicts).toBe(0);
      expect(w.core.ledger.pools.get('n0')?.holderOf(0x0a000102)).toBe('vip:s0');
      expect(w.core.ledger.pools.get('n0')?.holderOf(0x0a000103)).toBe('vip:s1');
    });

    it('back on another subnet, a restart finds no conflict, and the service coming back gets an address of the new subnet', () => {
      const w = leftBehind();
      w.apply(network('n2', 'net2'));
      w.apply(network('n0', 'net0'));
      w.settle();
      expect(w.state.networks.get('n2')?.subnet).toBe('10.0.1.0/24');
      expect(w.state.networks.get('n0')?.subnet).toBe('10.0.2.0/24');
      w.restart();
      expect(w.core.ledger.conflicts).toBe(0);
      w.happen('ServiceUpdated', { id: 's0', spec: withNetworks('svc0', ['net0']) });
      w.settle();
      expect(w.state.services.get('s0')?.endpoint?.virtualIps).toEqual([{ network: 'n0', address: '10.0.2.2/24' }]);
      expect(w.core.ledger.conflicts).toBe(0);
    });
  });
});
