import type { TaskSpec } from '@shoal/contracts';
import { LABELS, NETWORK_LABELS, UnsupportedFieldError, containerConfig, containerName, engineNetworkName, networkCreate } from './container-config';
import type { ContainerTask } from './container-config';

const task = (spec: Omit<Partial<TaskSpec>, 'container'> & { container?: Partial<TaskSpec['container']> }, more: Partial<ContainerTask> = {}): ContainerTask => ({
  id: 'task1',
  serviceId: 'svc1',
  serviceName: 'web',
  slot: 2,
  ...more,
  spec: { ...spec, container: { image: 'nginx:1.27', ...spec.container } } as TaskSpec,
});

const body = (t: ContainerTask, extra: { configFiles?: { hostPath: string; target: string }[]; publishAddress?: string } = {}): Record<string, unknown> =>
  containerConfig({ task: t, nodeId: 'node1', ...extra }).body;
const hostConfig = (t: ContainerTask): Record<string, unknown> => body(t).HostConfig as Record<string, unknown>;

describe('containerConfig', () => {
  it('names a replicated task’s container <service>.<slot>.<task> and a global one’s <service>.<node>.<task>', () => {
    expect(containerConfig({ task: task({}), nodeId: 'node1' }).name).toBe('web.2.task1');
    expect(containerName({ id: 'task1', serviceName: 'web', slot: 0 }, 'node1')).toBe('web.node1.task1');
  });

  it('labels the container as SwarmKit does, over the service’s container labels', () => {
    expect(body(task({ container: { labels: { team: 'a', [LABELS.nodeId]: 'forged' } } })).Labels).toEqual({
      team: 'a',
      [LABELS.serviceId]: 'svc1',
      [LABELS.serviceName]: 'web',
      [LABELS.taskId]: 'task1',
      [LABELS.taskName]: 'web.2.task1',
      [LABELS.nodeId]: 'node1',
    });
  });

  it('makes the command the entrypoint and the args its Cmd, as SwarmKit does; args alone keep the image’s entrypoint', () => {
    expect(body(task({ container: { command: ['nginx'], args: ['-g', 'daemon off;'] } }))).toMatchObject({ Entrypoint: ['nginx'], Cmd: ['-g', 'daemon off;'] });
    const argsOnly = body(task({ container: { args: ['-v'] } }));
    expect(argsOnly.Cmd).toEqual(['-v']);
    expect(argsOnly).not.toHaveProperty('Entrypoint');
  });

  it('maps the process’s settings: env, dir, user and groups, hostname, tty, stdin, stop signal and grace (whole seconds, rounded up)', () => {
    const t = task({
      container: { env: ['A=1'], dir: '/srv', user: 'www', groups: ['audio'], hostname: 'h1', tty: true, openStdin: true, stopSignal: 'SIGQUIT', stopGracePeriodMs: 1_500 },
    });
    expect(body(t)).toMatchObject({ Env: ['A=1'], WorkingDir: '/srv', User: 'www', Hostname: 'h1', Tty: true, OpenStdin: true, StopSignal: 'SIGQUIT', StopTimeout: 2 });
    expect(hostConfig(t).GroupAdd).toEqual(['audio']);
    expect(body(task({})).StopTimeout).toBe(10);
  });

  it('maps the healthcheck with its durations in nanoseconds', () => {
    const t = task({ container: { healthcheck: { test: ['CMD', 'true'], intervalMs: 200, timeoutMs: 1_000, startPeriodMs: 5_000, retries: 2 } } });
    expect(body(t).Healthcheck).toEqual({ Test: ['CMD', 'true'], Interval: 200e6, Timeout: 1e9, StartPeriod: 5e9, Retries: 2 });
  });

  it('maps init, read-only root, capabilities, sysctls, ulimits, DNS and extra hosts onto the host config', () => {
    const t = task({
      container: {
        init: true,
        readOnly: true,
        capabilityAdd: ['NET_ADMIN'],
        capabilityDrop: ['MKNOD'],
        sysctls: { 'net.core.somaxconn': '1024' },
        ulimits: [{ name: 'nofile', soft: 1024, hard: 2048 }],
        dnsConfig: { nameservers: ['10.0.0.2'], search: ['example.org'], options: ['ndots:2'] },
        hosts: ['10.0.0.5 db db.local'],
      },
    });
    expect(hostConfig(t)).toMatchObject({
      Init: true,
      ReadonlyRootfs: true,
      CapAdd: ['NET_ADMIN'],
      CapDrop: ['MKNOD'],
      Sysctls: { 'net.core.somaxconn': '1024' },
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }],
      Dns: ['10.0.0.2'],
      DnsSearch: ['example.org'],
      DnsOptions: ['ndots:2'],
      ExtraHosts: ['db:10.0.0.5', 'db.local:10.0.0.5'],
    });
  });

  it('maps bind, volume and tmpfs mounts with their options, and each config file as a read-only bind at its target', () => {
    const t = task({
      container: {
        mounts: [
          { type: 'bind', source: '/srv/data', target: '/data', readOnly: true, bindOptions: { propagation: 'rslave' } },
          { type: 'volume', source: 'cache', target: '/cache', volumeOptions: { noCopy: true, labels: { a: 'b' }, driverConfig: { name: 'local', options: { type: 'tmpfs' } } } },
          { type: 'tmpfs', target: '/scratch', tmpfsOptions: { sizeBytes: 1 << 20, mode: 0o1777 } },
        ],
      },
    });
    expect(body(t, { configFiles: [{ hostPath: '/dev/shm/c/task1/0', target: 'etc/app.conf' }] }).HostConfig).toMatchObject({
      Mounts: [
        { Type: 'bind', Source: '/srv/data', Target: '/data', ReadOnly: true, BindOptions: { Propagation: 'rslave' } },
        { Type: 'volume', Source: 'cache', Target: '/cache', VolumeOptions: { NoCopy: true, Labels: { a: 'b' }, DriverConfig: { Name: 'local', Options: { type: 'tmpfs' } } } },
        { Type: 'tmpfs', Target: '/scratch', TmpfsOptions: { SizeBytes: 1 << 20, Mode: 0o1777 } },
        { Type: 'bind', Source: '/dev/shm/c/task1/0', Target: '/etc/app.conf', ReadOnly: true },
      ],
    });
  });

  it('maps limits (CPUs, memory, pids), the memory reservation, generic resources as Docker’s env, and the log driver', () => {
    const t = task({
      resources: { limits: { nanoCpus: 5e8, memoryBytes: 64 << 20, pids: 100 }, reservations: { nanoCpus: 1e8, memoryBytes: 32 << 20, generic: [{ kind: 'gpu', named: 'GPU-1' }, { kind: 'gpu', named: 'GPU-2' }] } },
      logDriver: { name: 'json-file', options: { 'max-size': '1m' } },
    });
    expect(hostConfig(t)).toMatchObject({ NanoCpus: 5e8, Memory: 64 << 20, MemoryReservation: 32 << 20, PidsLimit: 100, LogConfig: { Type: 'json-file', Config: { 'max-size': '1m' } } });
    expect(body(t).Env).toEqual(['DOCKER_RESOURCE_GPU=GPU-1,GPU-2']);
  });

  it('publishes each port on the node at its published port (any free one when none), on the address given', () => {
    const t = task({}, { ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'host' }, { protocol: 'udp', targetPort: 53, publishMode: 'host' }] });
    const created = body(t, { publishAddress: '127.0.0.1' });
    expect(created.ExposedPorts).toEqual({ '80/tcp': {}, '53/udp': {} });
    expect((created.HostConfig as Record<string, unknown>).PortBindings).toEqual({ '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '8080' }], '53/udp': [{ HostIp: '127.0.0.1', HostPort: '' }] });
  });

  it('refuses, naming it, every field it cannot honour', () => {
    const refused = (t: ContainerTask): string => {
      try {
        containerConfig({ task: t, nodeId: 'node1' });
      } catch (error) {
        expect(error).toBeInstanceOf(UnsupportedFieldError);
        return (error as UnsupportedFieldError).field;
      }
      throw new Error('not refused');
    };
    expect(refused(task({ container: { privileges: { noNewPrivileges: true } } as never }))).toBe('container.privileges');
    // Secrets are honoured: their files come in as the task's config files (bound from tmpfs), like configs.
    const secrets = [{ secretId: 's', secretName: 's', file: { name: '/run/secrets/s', uid: '0', gid: '0', mode: 0o400 } }];
    expect(containerConfig({ task: task({ container: { secrets } }), nodeId: 'node1', configFiles: [{ hostPath: '/dev/shm/t/0', target: '/run/secrets/s' }] }).body.HostConfig).toMatchObject({ Mounts: [{
      Type: 'bind',
      Source: '/dev/shm/t/0',
      Target: '/run/secrets/s',
      ReadOnly: true,
    }] });
    // Networks in the spec, and no addresses for them in the assignment (a dispatcher from before them).
    expect(refused(task({ networks: [{ target: 'backend' }] }))).toBe('task.networks');
    expect(refused(task({ resources: { reservations: { pids: 5 } } }))).toBe('resources.reservations.pids');
    expect(refused(task({ container: { mounts: [{ type: 'bind', source: 'relative', target: '/x' }] } }))).toBe('container.mounts[0].source');
    expect(refused(task({ container: { mounts: [{ type: 'tmpfs', target: '/x', bindOptions: {} }] } }))).toBe('container.mounts[0].bindOptions');
    expect(refused(task({ container: { mounts: [{ type: 'npipe' as never, target: '/x' }] } }))).toBe('container.mounts[0].type');
    expect(refused(task({ container: { hosts: ['10.0.0.1'] } }))).toBe('container.hosts[0]');
  });

  it('leaves fields that are set but empty alone, and what managers act on (placement, restart policy) is no refusal', () => {
    expect(() => containerConfig({ task: task({ container: { privileges: {} } as never, networks: [], placement: { constraints: ['node.role==worker'] }, restartPolicy: { condition: 'none', delayMs: 0, maxAttempts: 0, windowMs: 0 } }), nodeId: 'n' })).not.toThrow();
  });
});

describe('a task’s networks', () => {
  const backend = { id: 'net1', name: 'backend', subnet: '10.0.1.0/24', gateway: '10.0.1.1', addresses: ['10.0.1.5/24'] };
  const frontend = { id: 'fe1', name: 'frontend', subnet: '10.0.2.0/24', gateway: '10.0.2.1', addresses: ['10.0.2.7/24'] };
  const ingress = { id: 'ing1', name: 'ingress', subnet: '10.0.0.0/24', gateway: '10.0.0.1', addresses: ['10.0.0.3/24'], ingress: true };

  it('makes each Shoal network a bridge named after it, labelled with its id, with the allocator’s subnet and gateway', () => {
    expect(engineNetworkName(backend)).toBe('shoal-backend');
    expect(networkCreate(backend)).toEqual({
      Name: 'shoal-backend',
      CheckDuplicate: true,
      Driver: 'bridge',
      Internal: false,
      Attachable: false,
      Labels: { [NETWORK_LABELS.networkId]: 'net1', [NETWORK_LABELS.networkName]: 'backend' },
      IPAM: { Driver: 'default', Config: [{ Subnet: '10.0.1.0/24', Gateway: '10.0.1.1' }] },
    });
    expect(networkCreate({ ...backend, subnet: 'fd00:1::/64', gateway: 'fd00:1::1' })).toMatchObject({ EnableIPv6: true, IPAM: { Config: [{ Subnet: 'fd00:1::/64', Gateway: 'fd00:1::1' }] } });
  });

  it('makes the bridge internal and attachable as the Shoal network is', () => {
    expect(networkCreate({ ...backend, internal: true })).toMatchObject({ Internal: true, Attachable: false });
    expect(networkCreate({ ...backend, attachable: true })).toMatchObject({ Internal: false, Attachable: true });
  });

  it('joins the container to its first network at create with the allocator’s address, named by its service, tasks.<service>, its container and its spec’s aliases', () => {
    const created = containerConfig({ task: task({ networks: [{ target: 'backend', aliases: ['api'] }] }, { networks: [backend] }), nodeId: 'node1' });
    expect(created.body.NetworkingConfig).toEqual({
      EndpointsConfig: { 'shoal-backend': { IPAMConfig: { IPv4Address: '10.0.1.5' }, Aliases: ['web', 'tasks.web', 'web.2.task1', 'api'] } },
    });
    expect((created.body.HostConfig as Record<string, unknown>).NetworkMode).toBe('shoal-backend');
    expect(created.connect).toEqual([]);
  });

  it('connects the container to its other networks before it starts (the engine joins one at create); an alias matches its network by id too', () => {
    const created = containerConfig({ task: task({ networks: [{ target: 'fe1', aliases: ['edge'] }] }, { networks: [backend, { ...frontend, addresses: ['10.0.2.7/24', 'fd00::7/64'] }] }), nodeId: 'node1' });
    expect(Object.keys((created.body.NetworkingConfig as { EndpointsConfig: object }).EndpointsConfig)).toEqual(['shoal-backend']);
    expect(created.connect).toEqual([
      { network: 'shoal-frontend', body: { Container: 'web.2.task1', EndpointConfig: { IPAMConfig: { IPv4Address: '10.0.2.7', IPv6Address: 'fd00::7' }, Aliases: ['web', 'tasks.web', 'web.2.task1', 'edge'] } } },
    ]);
  });

  it('leaves the ingress network out (no routing mesh: its ports are published on the node): a task on it alone stays on the default network', () => {
    const both = containerConfig({ task: task({ networks: [{ target: 'backend' }] }, { networks: [ingress, backend] }), nodeId: 'node1' });
    expect(Object.keys((both.body.NetworkingConfig as { EndpointsConfig: object }).EndpointsConfig)).toEqual(['shoal-backend']);
    expect(both.connect).toEqual([]);
    const alone = containerConfig({ task: task({}, { networks: [ingress] }), nodeId: 'node1' });
    expect(alone.body).not.toHaveProperty('NetworkingConfig');
    expect(alone.body.HostConfig).not.toHaveProperty('NetworkMode');
  });

  it('leaves a task with no networks on the engine’s default network, as before', () => {
    const created = containerConfig({ task: task({}), nodeId: 'node1' });
    expect(created.body).not.toHaveProperty('NetworkingConfig');
    expect(created.body.HostConfig).not.toHaveProperty('NetworkMode');
    expect(created.connect).toEqual([]);
  });
});
