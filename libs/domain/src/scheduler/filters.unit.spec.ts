import { node, nodes, pending, service, specification, whenScheduled } from '@shoal/testing';
import { SchedulerCore } from './scheduler-core';

const scheduler = () => specification({ core: () => new SchedulerCore() });

const GiB = 2 ** 30;

describe('scheduler filters: a task only lands on a node that passes them all, and says why when none does', () => {
  describe('ready: the node is READY and ACTIVE', () => {
    it('skips down, disconnected, paused and drained nodes and counts them as not available', () => {
      const c = scheduler().given(
        node('down', { state: 'down' }),
        node('gone', { state: 'disconnected' }),
        node('paused', { availability: 'pause' }),
        node('drained', { availability: 'drain' }),
        node('ok'),
        service('web'),
        pending('web', 3),
      );
      const out = whenScheduled(c);
      expect([...out.assigned.values()]).toEqual(['ok', 'ok', 'ok']);
    });

    it('with no node available, the task stays PENDING: "no suitable node (4 nodes not available for new tasks)"', () => {
      const c = scheduler().given(
        node('down', { state: 'down' }),
        node('gone', { state: 'disconnected' }),
        node('paused', { availability: 'pause' }),
        node('drained', { availability: 'drain' }),
        service('web'),
        pending('web', 1),
      );
      const out = whenScheduled(c);
      expect(out.assigned.size).toBe(0);
      const id = c.lastCreated[0] as string;
      expect(out.unschedulable.get(id)).toBe('no suitable node (4 nodes not available for new tasks)');
      expect(c.state.tasks.get(id)?.status).toMatchObject({ state: 64, err: 'no suitable node (4 nodes not available for new tasks)' });
    });

    it('with no node at all, says only "no suitable node"', () => {
      const c = scheduler().given(service('web'), pending('web', 1));
      expect([...whenScheduled(c).unschedulable.values()]).toEqual(['no suitable node']);
    });
  });

  describe('resources: reservations fit in what the node has left', () => {
    it('places by CPU and memory net of what is already reserved, and explains the rest', () => {
      const c = scheduler().given(
        node('small', { cpus: 1, memoryBytes: 1 * GiB }),
        node('big', { cpus: 4, memoryBytes: 4 * GiB }),
        node('drained', { availability: 'drain' }),
        service('db', { resources: { reservations: { nanoCpus: 1e9, memoryBytes: 1 * GiB } } }),
        pending('db', 6),
      );
      const out = whenScheduled(c);
      expect(out.perNode('db')).toEqual(new Map([['small', 1], ['big', 4]]));
      expect(out.unschedulable.size).toBe(1);
      expect([...out.unschedulable.values()][0]).toBe('no suitable node (insufficient resources on 2 nodes; 1 node not available for new tasks)');
    });

    it('counts discrete generic resources by kind and named ones one unit per name', () => {
      const c = scheduler().given(
        node('ssd', { generic: [{ kind: 'ssd', discrete: 2 }] }),
        node('gpus', { generic: [{ kind: 'gpu', named: 'GPU-0' }, { kind: 'gpu', named: 'GPU-1' }] }),
        node('plain'),
        service('ml', { resources: { reservations: { generic: [{ kind: 'gpu', discrete: 1 }] } } }),
        pending('ml', 3),
        service('cache', { resources: { reservations: { generic: [{ kind: 'ssd', discrete: 1 }] } } }),
        pending('cache', 3),
      );
      const out = whenScheduled(c);
      expect(out.perNode('ml')).toEqual(new Map([['gpus', 2]]));
      expect(out.perNode('cache')).toEqual(new Map([['ssd', 2]]));
      expect(new Set(out.unschedulable.values())).toEqual(new Set(['no suitable node (insufficient resources on 3 nodes)']));
    });

    it('gives a task that asks for one named unit only the node that has it free', () => {
      const c = scheduler().given(
        node('a', { generic: [{ kind: 'gpu', named: 'GPU-0' }] }),
        node('b', { generic: [{ kind: 'gpu', named: 'GPU-7' }] }),
        service('pinned', { resources: { reservations: { generic: [{ kind: 'gpu', named: 'GPU-7' }] } } }),
        pending('pinned', 2),
      );
      const out = whenScheduled(c);
      expect([...out.assigned.values()]).toEqual(['b']);
      expect([...out.unschedulable.values()]).toEqual(['no suitable node (insufficient resources on 2 nodes)']);
    });
  });

  describe('plugins: the node has the drivers of the task\'s networks', () => {
    it('refuses a node that lists network plugins but not the one needed, and trusts one that lists none', () => {
      const c = scheduler().given(
        node('bridge-only', { plugins: [{ type: 'Network', name: 'bridge' }] }),
        node('overlay', { plugins: [{ type: 'Network', name: 'bridge' }, { type: 'Network', name: 'overlay' }] }),
        node('silent'),
      );
      c.apply(c.b.event('NetworkCreated', { id: 'net1', spec: { name: 'backend', driver: 'overlay' } }));
      c.given(service('api', { networks: [{ target: 'backend' }] }), pending('api', 4));
      const out = whenScheduled(c);
      expect(out.perNode('api')).toEqual(new Map([['overlay', 2], ['silent', 2]]));
      const lone = scheduler().given(node('bridge-only', { plugins: [{ type: 'Network', name: 'bridge' }] }));
      lone.apply(lone.b.event('NetworkCreated', { id: 'net1', spec: { name: 'backend', driver: 'overlay' } }));
      lone.given(service('api', { networks: [{ target: 'net1' }] }), pending('api', 1));
      expect([...whenScheduled(lone).unschedulable.values()]).toEqual(['no suitable node (missing plugin on 1 node)']);
    });
  });

  describe('constraints', () => {
    it('places only on nodes that satisfy every constraint', () => {
      const c = scheduler().given(
        node('east-1', { labels: { zone: 'east' } }),
        node('east-mgr', { labels: { zone: 'east' }, role: 'manager' }),
        node('west-1', { labels: { zone: 'west' } }),
        service('web', { placement: { constraints: ['node.labels.zone==east', 'node.role!=manager'] } }),
        pending('web', 3),
      );
      const out = whenScheduled(c);
      expect(out.perNode('web')).toEqual(new Map([['east-1', 3]]));
    });

    it('explains "scheduling constraints not satisfied on 2 nodes"', () => {
      const c = scheduler().given(
        node('a', { addr: '192.168.1.5' }),
        node('b', { addr: '192.168.1.6' }),
        service('web', { placement: { constraints: ['node.ip==10.0.0.0/8'] } }),
        pending('web', 1),
      );
      expect([...whenScheduled(c).unschedulable.values()]).toEqual(['no suitable node (scheduling constraints not satisfied on 2 nodes)']);
    });

    it('treats a constraint that does not parse as satisfied nowhere', () => {
      const c = scheduler().given(node('a'), service('web', { placement: { constraints: ['node.labels.zone'] } }), pending('web', 1));
      expect([...whenScheduled(c).unschedulable.values()]).toEqual(['no suitable node (scheduling constraints not satisfied on 1 node)']);
    });
  });

  describe('platform', () => {
    it('places on a node whose OS and architecture the image supports, x86_64 being amd64 and aarch64 arm64', () => {
      const c = scheduler().given(
        node('intel', { platform: { os: 'linux', architecture: 'x86_64' } }),
        node('arm', { platform: { os: 'linux', architecture: 'aarch64' } }),
        node('win', { platform: { os: 'windows', architecture: 'x86_64' } }),
        service('armonly', { placement: { platforms: [{ os: 'linux', architecture: 'arm64' }] } }),
        pending('armonly', 2),
        service('linux', { placement: { platforms: [{ os: 'linux', architecture: '' }] } }),
        pending('linux', 2),
      );
      const out = whenScheduled(c);
      expect(out.perNode('armonly')).toEqual(new Map([['arm', 2]]));
      expect(out.perNode('linux')).toEqual(new Map([['intel', 1], ['arm', 1]]));
      const none = scheduler().given(node('win', { platform: { os: 'windows', architecture: 'x86_64' } }));
      none.given(service('armonly', { placement: { platforms: [{ os: 'linux', architecture: 'arm64' }] } }), pending('armonly', 1));
      expect([...whenScheduled(none).unschedulable.values()]).toEqual(['no suitable node (unsupported platform on 1 node)']);
    });
  });

  describe('host-mode ports', () => {
    it('never puts two tasks publishing the same host port on one node', () => {
      const ports = [{ protocol: 'tcp' as const, targetPort: 80, publishedPort: 8080, publishMode: 'host' as const }];
      const c = scheduler().given(nodes('n', 2), service('web', {}, undefined, ports), pending('web', 3));
      const out = whenScheduled(c);
      expect(out.perNode('web')).toEqual(new Map([['n1', 1], ['n2', 1]]));
      expect([...out.unschedulable.values()]).toEqual(['no suitable node (host-mode port already in use on 2 nodes)']);
    });

    it('lets the same port number through on another protocol, and ingress ports anywhere', () => {
      const tcp = [{ protocol: 'tcp' as const, targetPort: 53, publishedPort: 53, publishMode: 'host' as const }];
      const udp = [{ protocol: 'udp' as const, targetPort: 53, publishedPort: 53, publishMode: 'host' as const }];
      const ingress = [{ protocol: 'tcp' as const, targetPort: 80, publishedPort: 80, publishMode: 'ingress' as const }];
      const c = scheduler().given(node('n1'), service('dns-tcp', {}, undefined, tcp), pending('dns-tcp', 1));
      c.given(service('dns-udp', {}, undefined, udp), pending('dns-udp', 1), service('web', {}, undefined, ingress), pending('web', 2));
      const out = whenScheduled(c);
      expect(out.assigned.size).toBe(4);
      expect(out.unschedulable.size).toBe(0);
    });
  });

  describe('max replicas per node', () => {
    it('puts at most that many of the service on a node, and says "max replicas per node limit exceed"', () => {
      const c = scheduler().given(nodes('n', 2), service('web', { placement: { maxReplicas: 2 } }), pending('web', 5));
      const out = whenScheduled(c);
      expect(out.perNode('web')).toEqual(new Map([['n1', 2], ['n2', 2]]));
      expect([...out.unschedulable.values()]).toEqual(['no suitable node (max replicas per node limit exceed)']);
    });
  });

  it('lists the failing filters most failures first', () => {
    const c = scheduler().given(
      node('full', { cpus: 1 }),
      node('down1', { state: 'down' }),
      node('down2', { state: 'down' }),
      node('west', { labels: { zone: 'west' } }),
      service('web', { resources: { reservations: { nanoCpus: 2e9 } }, placement: { constraints: ['node.labels.zone==east'] } }),
      pending('web', 1),
    );
    expect([...whenScheduled(c).unschedulable.values()]).toEqual([
      'no suitable node (2 nodes not available for new tasks; insufficient resources on 1 node; scheduling constraints not satisfied on 1 node)',
    ]);
  });
});
