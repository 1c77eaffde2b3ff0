import { TaskState } from '@shoal/contracts';
import type { PortConfig } from '@shoal/contracts';
import { addressOf, allocatorSpecification, ingressPort, network, published, serviceCreated, serviceSpec, tasksOf, withNetworks } from '@shoal/testing';

describe('allocator: service endpoints', () => {
  it('gives a VIP-mode service a virtual IP on each network, and its tasks wait for it', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'backend', '10.9.0.0/24'));
    w.apply(network('n2', 'frontend', '10.8.0.0/24'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['backend', 'frontend'])));
    w.apply(tasksOf('s1', 't1'));
    const written = w.settle();
    expect(written.map((e) => e.type)).toEqual(['ServiceEndpointsAllocated', 'TasksAllocated']);
    expect(w.state.services.get('s1')?.endpoint?.virtualIps).toEqual([
      { network: 'n1', address: '10.9.0.2/24' },
      { network: 'n2', address: '10.8.0.2/24' },
    ]);
    expect(addressOf(w, 't1', 'backend')).toBe('10.9.0.3/24');
    expect(addressOf(w, 't1', 'frontend')).toBe('10.8.0.3/24');
  });

  it('gives a DNSRR service no virtual IP', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'backend', '10.9.0.0/24'));
    w.apply(serviceCreated('s1', withNetworks('web', ['backend'], { endpoint: { mode: 'dnsrr' } })));
    w.apply(tasksOf('s1', 't1'));
    w.settle();
    expect(w.state.services.get('s1')?.endpoint).toBeUndefined();
    expect(addressOf(w, 't1', 'backend')).toBe('10.9.0.2/24');
  });

  it('refuses ingress-published ports with DNSRR mode', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('web', [ingressPort(80, 8080)], 'dnsrr')));
    w.apply(tasksOf('s1', 't1'));
    w.settle();
    expect(w.task('t1').status.err).toBe("port published with ingress mode can't be used with dnsrr mode");
  });

  it('publishes ingress ports from 30000–32767 when none is given, and the tasks join the ingress network', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('web', [ingressPort(80), ingressPort(443)])));
    w.apply(serviceCreated('s2', published('api', [ingressPort(80)])));
    w.apply(tasksOf('s1', 't1'));
    w.settle();
    const ports = w.state.services.get('s1')?.endpoint?.ports;
    expect(ports?.map((p) => p.publishedPort)).toEqual([30000, 30001]);
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(30002);
    expect(w.task('t1').ports).toEqual(ports);
    expect(w.state.services.get('s1')?.endpoint?.virtualIps).toEqual([{ network: expect.any(String), address: '10.0.0.2/24' }]);
    expect(w.state.services.get('s2')?.endpoint?.virtualIps).toEqual([{ network: expect.any(String), address: '10.0.0.3/24' }]);
    expect(addressOf(w, 't1', 'ingress')).toBe('10.0.0.4/24');
  });

  it('reserves a requested port, and refuses it to another service with a clear conflict until it is freed', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('x', [ingressPort(80, 8080)])));
    w.apply(serviceCreated('s2', published('y', [ingressPort(81, 8080)])));
    w.apply(tasksOf('s1', 'a1'));
    w.apply(tasksOf('s2', 'b1'));
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
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('x', [ingressPort(53, 53)])));
    w.apply(serviceCreated('s2', published('y', [{ ...ingressPort(53, 53), protocol: 'udp' }])));
    w.settle();
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(53);
  });

  it('keeps its dynamic port and its VIP across an update, and frees a port the update drops', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('web', [ingressPort(80), ingressPort(81, 9000)])));
    w.settle();
    const before = w.state.services.get('s1')?.endpoint;
    w.happen('ServiceUpdated', { id: 's1', spec: published('web', [ingressPort(80)]) });
    w.settle();
    const after = w.state.services.get('s1');
    expect(after?.endpointVersion).toBe(2);
    expect(after?.endpoint?.ports).toEqual([before?.ports[0]]);
    expect(after?.endpoint?.virtualIps).toEqual(before?.virtualIps);
    w.apply(serviceCreated('s2', published('other', [ingressPort(80, 9000)])));
    w.settle();
    expect(w.state.services.get('s2')?.endpoint?.ports[0]?.publishedPort).toBe(9000);
  });

  it('an update that adds a network gets a VIP there, one that drops a network gives its VIP back', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'a', '10.1.0.0/24'));
    w.apply(network('n2', 'b', '10.2.0.0/24'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('web', ['a'])));
    w.settle();
    w.happen('ServiceUpdated', { id: 's1', spec: withNetworks('web', ['a', 'b']) });
    w.settle();
    expect(w.state.services.get('s1')?.endpoint?.virtualIps).toEqual([
      { network: 'n1', address: '10.1.0.2/24' },
      { network: 'n2', address: '10.2.0.2/24' },
    ]);
    w.happen('ServiceUpdated', { id: 's1', spec: withNetworks('web', ['b']) });
    w.settle();
    expect(w.state.services.get('s1')?.endpoint?.virtualIps).toEqual([{ network: 'n2', address: '10.2.0.2/24' }]);
    expect(w.core.ledger.pools.get('n1')?.holderOf(0x0a010002)).toBeUndefined();
  });

  it('an update from a dynamic port to a requested one frees the dynamic port', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('web', [ingressPort(80)])));
    w.settle();
    w.happen('ServiceUpdated', { id: 's1', spec: published('web', [ingressPort(80, 8080)]) });
    w.settle();
    expect(w.state.services.get('s1')?.endpoint?.ports.map((p) => p.publishedPort)).toEqual([8080]);
    expect(w.core.ledger.ports.holderOf('tcp', 30000)).toBeUndefined();
    expect(w.core.ledger.ports.holderOf('tcp', 8080)).toBe('s1');
  });

  it('a service that stops publishing anything gives its ports and VIPs back', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('web', [ingressPort(80, 8080)])));
    w.settle();
    w.happen('ServiceUpdated', { id: 's1', spec: serviceSpec('web') });
    w.settle();
    expect(w.state.services.get('s1')?.endpoint).toEqual({ virtualIps: [], ports: [] });
    expect(w.core.ledger.ports.holderOf('tcp', 8080)).toBeUndefined();
  });

  it('refuses a published port out of range, or published twice by one service', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(serviceCreated('s1', published('a', [ingressPort(80, 70000)])));
    w.apply(serviceCreated('s2', published('b', [ingressPort(80, 8080), ingressPort(81, 8080)])));
    w.apply(tasksOf('s1', 'a1'));
    w.apply(tasksOf('s2', 'b1'));
    w.settle();
    expect(w.task('a1').status.err).toBe('invalid published port 70000: must be 1-65535');
    expect(w.task('b1').status.err).toBe('duplicate published port 8080/tcp');
  });

  it('passes host-mode ports on as given, holding nothing cluster-wide', () => {
    const w = allocatorSpecification();
    w.settle();
    const host: PortConfig = { protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' };
    w.apply(serviceCreated('s1', published('a', [host])));
    w.apply(serviceCreated('s2', published('b', [host])));
    w.apply(tasksOf('s2', 't1'));
    w.settle();
    expect(w.task('t1').ports).toEqual([host]);
    expect(w.task('t1').attachments).toEqual([]);
  });

  it('a VIP that cannot be had is the reason on the service\'s tasks', () => {
    const w = allocatorSpecification();
    w.settle();
    w.apply(network('n1', 'tiny', '192.168.0.0/30'));
    w.settle();
    w.apply(serviceCreated('s1', withNetworks('a', ['tiny'])));
    w.apply(serviceCreated('s2', withNetworks('b', ['tiny'])));
    w.apply(tasksOf('s2', 't1'));
    w.settle();
    expect(w.task('t1').status.err).toMatch(/could not allocate a virtual IP on network tiny/);
  });
});
