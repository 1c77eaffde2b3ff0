import type { DockerServiceSpec } from './docker-types';
import { fromDockerServiceSpec, toDockerServiceSpec } from './service-mapper';

const CONTAINER = {
  Image: 'busybox',
  Groups: ['audio'],
  StopSignal: 'SIGUSR1',
  Healthcheck: { Test: ['CMD', 'true'], Interval: 2_000_000_000, Timeout: 1_000_000_000, StartPeriod: 3_000_000_000, Retries: 4 },
  Init: true,
  TTY: true,
  OpenStdin: true,
  ReadOnly: true,
  CapabilityAdd: ['CAP_NET_ADMIN'],
  CapabilityDrop: ['CAP_MKNOD'],
  Sysctls: { 'net.core.somaxconn': '1024' },
  Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }],
  DNSConfig: { Nameservers: ['10.0.0.2'], Search: ['example.org'], Options: ['ndots:2'] },
  Hosts: ['10.0.0.9 db'],
  Mounts: [
    { Type: 'volume', Source: 'data', Target: '/data', ReadOnly: true, VolumeOptions: { NoCopy: true, Labels: { keep: 'yes' }, DriverConfig: { Name: 'local', Options: { type: 'tmpfs' } } } },
    { Type: 'bind', Source: '/srv', Target: '/srv', BindOptions: { Propagation: 'rslave' } },
    { Type: 'tmpfs', Target: '/scratch', TmpfsOptions: { SizeBytes: 1_048_576, Mode: 0o1777 } },
  ],
};

const spec = (container: Record<string, unknown>, extra: Record<string, unknown> = {}): DockerServiceSpec =>
  ({ Name: 'web', TaskTemplate: { ContainerSpec: container, ...extra } }) as DockerServiceSpec;

describe('ContainerSpec fields and LogDriver, Docker ↔ Shoal', () => {
  it('what a service is created with is what inspect returns', () => {
    const shoal = fromDockerServiceSpec(spec(CONTAINER, { LogDriver: { Name: 'json-file', Options: { 'max-size': '1m' } } }));
    expect(shoal.task.container).toMatchObject({ stopSignal: 'SIGUSR1', capabilityAdd: ['CAP_NET_ADMIN'], healthcheck: { intervalMs: 2_000 } });
    const docker = toDockerServiceSpec(shoal);
    expect(docker.TaskTemplate?.ContainerSpec).toEqual({ ...CONTAINER, Isolation: 'default' });
    expect(docker.TaskTemplate?.LogDriver).toEqual({ Name: 'json-file', Options: { 'max-size': '1m' } });
  });

  it('refuses a field of the wrong type, and what Shoal cannot honour (Privileges, Isolation, a plugin runtime), naming the field', () => {
    expect(() => fromDockerServiceSpec(spec({ Image: 'x', CapabilityAdd: 'NET_ADMIN' }))).toThrow('invalid TaskTemplate.ContainerSpec.CapabilityAdd: expected an array of strings');
    expect(() => fromDockerServiceSpec(spec({ Image: 'x', Privileges: { NoNewPrivileges: true } }))).toThrow(/TaskTemplate\.ContainerSpec\.Privileges/);
    expect(() => fromDockerServiceSpec(spec({ Image: 'x', Isolation: 'hyperv' }))).toThrow(/TaskTemplate\.ContainerSpec\.Isolation: "hyperv" is not supported/);
    expect(() => fromDockerServiceSpec(spec({ Image: 'x' }, { Runtime: 'plugin', PluginSpec: { Name: 'p' } }))).toThrow(/TaskTemplate\.Runtime: "plugin"/);
    expect(fromDockerServiceSpec(spec({ Image: 'x', Isolation: 'default' }, { Runtime: 'container', Resources: { Limits: { Pids: 0 } } })).task.container).toEqual({ image: 'x' });
    // What the CLI sends when no privilege is asked for is accepted.
    expect(fromDockerServiceSpec(spec({ Image: 'x', Privileges: { CredentialSpec: null, SELinuxContext: null, NoNewPrivileges: false } })).task.container).toEqual({ image: 'x' });
  });

  it('keeps a pids limit and returns it as Docker does; 0 is no limit, and Reservations have none (ignored, as Docker ignores it)', () => {
    const limited = fromDockerServiceSpec(spec({ Image: 'x' }, { Resources: { Limits: { NanoCPUs: 5e8, Pids: 100 }, Reservations: { Pids: 7 } } }));
    expect(limited.task.resources).toEqual({ limits: { nanoCpus: 5e8, pids: 100 } });
    expect(toDockerServiceSpec(limited).TaskTemplate?.Resources).toEqual({ Limits: { NanoCPUs: 5e8, Pids: 100 }, Reservations: {} });
    expect(fromDockerServiceSpec(spec({ Image: 'x' }, { Resources: { Limits: { Pids: 0 } } })).task.resources).toBeUndefined();
    expect(() => fromDockerServiceSpec(spec({ Image: 'x' }, { Resources: { Limits: { Pids: -1 } } }))).toThrow('invalid TaskTemplate.Resources.Limits.Pids: -1 is not a non-negative integer');
  });

  it('refuses a duration that is not a whole number of milliseconds instead of rounding it', () => {
    expect(() => fromDockerServiceSpec(spec({ Image: 'x', Healthcheck: { Interval: 5 } }))).toThrow('invalid TaskTemplate.ContainerSpec.Healthcheck.Interval: 5ns is not a whole number of milliseconds');
    expect(() => fromDockerServiceSpec({ ...spec({ Image: 'x' }), UpdateConfig: { Delay: 5 } })).toThrow(/UpdateConfig\.Delay: 5ns/);
  });
});
