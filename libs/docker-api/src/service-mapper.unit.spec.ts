import { DEFAULT_UPDATE_CONFIG, TaskState } from '@shoal/contracts';
import type { ServiceSpec } from '@shoal/contracts';
import { emptyState } from '@shoal/domain';
import type { Service } from '@shoal/domain';
import { newTask, serviceSpec } from '@shoal/testing';
import type { DockerConfigReference, DockerServiceSpec } from './docker-types';
import { fromDockerServiceSpec, serviceStatuses, toDockerService, toDockerServiceSpec, toDockerTaskSpec } from './service-mapper';
import { SpecError } from './spec-error';

/** What `docker service create` sends for a service with most flags set. */
const dockerSpec: DockerServiceSpec = {
  Name: 'web',
  Labels: { team: 'a' },
  TaskTemplate: {
    ContainerSpec: { Image: 'nginx:1.27', Args: ['-g', 'daemon off;'], Env: ['A=1'], StopGracePeriod: 15_000_000_000 },
    Resources: { Limits: { MemoryBytes: 128 * 2 ** 20 }, Reservations: { NanoCPUs: 500_000_000, MemoryBytes: 64 * 2 ** 20 } },
    RestartPolicy: { Condition: 'on-failure', Delay: 3_000_000_000, MaxAttempts: 4 },
    Placement: {
      Constraints: ['node.labels.zone==east', 'node.role != manager'],
      Preferences: [{ Spread: { SpreadDescriptor: 'node.labels.rack' } }],
      MaxReplicas: 2,
    },
    Networks: [{ Target: 'backend', Aliases: ['api'] }],
    ForceUpdate: 0,
  },
  Mode: { Replicated: { Replicas: 3 } },
  UpdateConfig: { Parallelism: 2, Delay: 10_000_000_000, FailureAction: 'rollback', Monitor: 20_000_000_000, MaxFailureRatio: 0.2, Order: 'start-first' },
  RollbackConfig: { Parallelism: 2, FailureAction: 'pause', Order: 'stop-first' },
  EndpointSpec: { Mode: 'vip', Ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: 8080, PublishMode: 'ingress' }, { TargetPort: 443 }] },
};

const withConfigs = (Configs: DockerConfigReference[]): DockerServiceSpec => ({ ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x', Configs } } });

describe("Docker's ServiceSpec → Shoal's", () => {
  const spec = fromDockerServiceSpec(dockerSpec);

  it('carries the container, the resources and the placement', () => {
    expect(spec.name).toBe('web');
    expect(spec.labels).toEqual({ team: 'a' });
    expect(spec.task.container).toEqual({ image: 'nginx:1.27', args: ['-g', 'daemon off;'], env: ['A=1'], stopGracePeriodMs: 15_000 });
    expect(spec.task.resources).toEqual({ limits: { memoryBytes: 128 * 2 ** 20 }, reservations: { nanoCpus: 500_000_000, memoryBytes: 64 * 2 ** 20 } });
    expect(spec.task.placement).toEqual({
      constraints: ['node.labels.zone==east', 'node.role != manager'],
      preferences: [{ spread: 'node.labels.rack' }],
      maxReplicas: 2,
    });
    expect(spec.task.networks).toEqual([{ target: 'backend', aliases: ['api'] }]);
  });

  it('turns nanoseconds into milliseconds and fills what Docker left out with the defaults', () => {
    expect(spec.task.restartPolicy).toEqual({ condition: 'on-failure', delayMs: 3_000, maxAttempts: 4, windowMs: 0 });
    expect(spec.update).toEqual({ parallelism: 2, delayMs: 10_000, failureAction: 'rollback', monitorMs: 20_000, maxFailureRatio: 0.2, order: 'start-first' });
    expect(spec.rollback).toEqual({ ...DEFAULT_UPDATE_CONFIG, parallelism: 2 });
  });

  it('maps the modes', () => {
    expect(spec.mode).toEqual({ kind: 'replicated', replicas: 3 });
    expect(fromDockerServiceSpec({ ...dockerSpec, Mode: { Global: {} } }).mode).toEqual({ kind: 'global' });
    expect(fromDockerServiceSpec({ ...dockerSpec, Mode: {} }).mode).toEqual({ kind: 'replicated', replicas: 1 });
    expect(fromDockerServiceSpec({ ...dockerSpec, Mode: { ReplicatedJob: { MaxConcurrent: 2 } } }).mode).toEqual({
      kind: 'replicated-job',
      maxConcurrent: 2,
      totalCompletions: 2,
    });
  });

  it("takes configs as files, with Docker's defaults (uid and gid 0, mode 0444) where they are left out", () => {
    const configs = fromDockerServiceSpec(
      withConfigs([
        { File: { Name: '/etc/app.conf' }, ConfigID: 'c1', ConfigName: 'app-conf' },
        { File: { Name: 'relative.conf', UID: '33', GID: '34', Mode: 0o400 }, ConfigID: 'c2', ConfigName: 'other', Runtime: null },
      ]),
    ).task.container.configs;
    expect(configs).toEqual([
      { configId: 'c1', configName: 'app-conf', file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 } },
      { configId: 'c2', configName: 'other', file: { name: 'relative.conf', uid: '33', gid: '34', mode: 0o400 } },
    ]);
    expect(fromDockerServiceSpec(withConfigs([])).task.container).toEqual({ image: 'x' });
    expect(fromDockerServiceSpec({ ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x', Configs: null } } }).task.container).toEqual({ image: 'x' });
  });

  it('defaults ports to tcp in ingress mode, the published port left to the allocator', () => {
    expect(spec.endpoint).toEqual({
      mode: 'vip',
      ports: [
        { protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'ingress' },
        { protocol: 'tcp', targetPort: 443, publishMode: 'ingress' },
      ],
    });
  });

  it.each<[string, DockerServiceSpec, RegExp]>([
    ['no image', { Name: 'web', TaskTemplate: { ContainerSpec: {} } }, /TaskTemplate\.ContainerSpec\.Image/],
    ['no name', { TaskTemplate: { ContainerSpec: { Image: 'x' } } }, /Name: a service name is required/],
    ['two modes', { ...dockerSpec, Mode: { Replicated: { Replicas: 1 }, Global: {} } }, /Mode: exactly one/],
    ['negative replicas', { ...dockerSpec, Mode: { Replicated: { Replicas: -1 } } }, /Mode\.Replicated\.Replicas/],
    ['a bad constraint', { ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x' }, Placement: { Constraints: ['zone=east'] } } }, /Constraints\[0\]/],
    ['an unknown constraint key', { ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x' }, Placement: { Constraints: ['zone==east'] } } }, /not a constraint key/],
    ['an unknown restart condition', { ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x' }, RestartPolicy: { Condition: 'always' } } }, /RestartPolicy\.Condition/],
    ['a ratio above 1', { ...dockerSpec, UpdateConfig: { MaxFailureRatio: 2 } }, /UpdateConfig\.MaxFailureRatio/],
    ['a port out of range', { ...dockerSpec, EndpointSpec: { Ports: [{ TargetPort: 70000 }] } }, /EndpointSpec\.Ports\[0\]\.TargetPort/],
    ['a mount of an unknown type', { ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x', Mounts: [{ Type: 'npipe', Target: '/data' }] } } }, /ContainerSpec\.Mounts\[0\]\.Type: "npipe" is not one of bind, volume, tmpfs/],
    ['a secret without an id', { ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x', Secrets: [{ SecretName: 's', File: { Name: 's' } }] } } }, /ContainerSpec\.Secrets\[0\]\.SecretID: a secret id is required/],
    ['a secret without a target', { ...dockerSpec, TaskTemplate: { ContainerSpec: { Image: 'x', Secrets: [{ SecretID: 's1', SecretName: 's' }] } } }, /ContainerSpec\.Secrets\[0\]\.File: a file target is required/],
    ['a config as a runtime target', withConfigs([{ Runtime: {}, ConfigID: 'c1', ConfigName: 'spec' }]), /ContainerSpec\.Configs\[0\]\.Runtime: runtime targets \(credential specs\) are not supported by Shoal/],
    ['a config without an id', withConfigs([{ File: { Name: '/etc/a' }, ConfigName: 'a' }]), /ContainerSpec\.Configs\[0\]\.ConfigID: a config id is required/],
    ['a config without a name', withConfigs([{ File: { Name: '/etc/a' }, ConfigID: 'c1' }]), /ContainerSpec\.Configs\[0\]\.ConfigName: a config name is required/],
    ['a config without a target', withConfigs([{ ConfigID: 'c1', ConfigName: 'a' }]), /ContainerSpec\.Configs\[0\]\.File: a file target is required/],
    ['a config with an empty file name', withConfigs([{ File: { Name: ' ' }, ConfigID: 'c1', ConfigName: 'a' }]), /ContainerSpec\.Configs\[0\]\.File\.Name: a target file name is required/],
    ['a config mode beyond the permission bits', withConfigs([{ File: { Name: '/a', Mode: 0o10000 }, ConfigID: 'c1', ConfigName: 'a' }]), /Configs\[0\]\.File\.Mode: 4096 is not a file mode/],
    [
      'two configs at one target',
      withConfigs([{ File: { Name: '/etc/a' }, ConfigID: 'c1', ConfigName: 'a' }, { File: { Name: '/etc/a' }, ConfigID: 'c2', ConfigName: 'b' }]),
      /Configs\[1\]\.File\.Name: config references 'a' and 'b' have a conflicting target: '\/etc\/a'/,
    ],
  ])('refuses %s, naming the field', (_case, input, message) => {
    expect(() => fromDockerServiceSpec(input)).toThrow(SpecError);
    expect(() => fromDockerServiceSpec(input)).toThrow(message);
  });
});

describe("Shoal's ServiceSpec → Docker's", () => {
  it('comes back to the same Shoal spec (what `docker service update` sends back)', () => {
    const spec = fromDockerServiceSpec(dockerSpec);
    expect(fromDockerServiceSpec(toDockerServiceSpec(spec))).toEqual(spec);
  });

  it('stores no defaults: what `docker service update` reads with them inserted and sends back is the same spec', () => {
    const bare: ServiceSpec = serviceSpec('web');
    expect(fromDockerServiceSpec(toDockerServiceSpec(bare, { insertDefaults: true }))).toEqual(bare);
    const explicit = fromDockerServiceSpec({
      ...dockerSpec,
      TaskTemplate: { ContainerSpec: { Image: 'x', StopGracePeriod: 10_000_000_000 }, RestartPolicy: { Condition: 'any' } },
      UpdateConfig: { Parallelism: 1, FailureAction: 'pause', Order: 'stop-first' },
      EndpointSpec: { Mode: 'vip' },
    });
    expect(explicit.task).toEqual({ container: { image: 'x' } });
    expect(explicit.update).toBeUndefined();
    expect(explicit.endpoint).toBeUndefined();
  });

  it("shows configs in Docker's ConfigReference shape, in the service's spec and in each task's", () => {
    const spec = serviceSpec('web', { kind: 'replicated', replicas: 1 }, {
      task: { container: { image: 'nginx', configs: [{ configId: 'c1', configName: 'app-conf', file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 } }] } },
    });
    const expected = [{ File: { Name: '/etc/app.conf', UID: '0', GID: '0', Mode: 0o444 }, ConfigID: 'c1', ConfigName: 'app-conf' }];
    expect(toDockerServiceSpec(spec).TaskTemplate?.ContainerSpec?.Configs).toEqual(expected);
    expect(toDockerTaskSpec(spec.task).ContainerSpec?.Configs).toEqual(expected);
    expect(toDockerServiceSpec(serviceSpec('plain')).TaskTemplate?.ContainerSpec).not.toHaveProperty('Configs');
  });

  it('with insertDefaults, shows the update, rollback and restart defaults', () => {
    const spec: ServiceSpec = serviceSpec('web');
    expect(toDockerServiceSpec(spec).UpdateConfig).toBeUndefined();
    const filled = toDockerServiceSpec(spec, { insertDefaults: true });
    expect(filled.UpdateConfig).toEqual({ Parallelism: 1, Delay: 0, FailureAction: 'pause', Monitor: 5_000_000_000, MaxFailureRatio: 0, Order: 'stop-first' });
    expect(filled.TaskTemplate?.RestartPolicy).toEqual({ Condition: 'any', Delay: 5_000_000_000, MaxAttempts: 0, Window: 0 });
    expect(filled.EndpointSpec).toEqual({ Mode: 'vip' });
  });
});

describe("Docker's Service object", () => {
  const state = emptyState();
  const spec = serviceSpec('web', { kind: 'replicated', replicas: 3 });
  const service: Service = { id: 's1', spec, previousSpec: serviceSpec('web'), version: 4, createdAt: 't0', updatedAt: 't1', updateStatus: { state: 'updating', startedAt: 't1' } };
  state.services.set('s1', service);
  const task = (id: string, observed: number, desired: number) => ({ ...newTask(id, 's1', spec, { desiredState: desired as never }), createdAt: 't0', status: { state: observed as never, at: 't1' } });
  state.tasks.set('t1', task('t1', TaskState.RUNNING, TaskState.RUNNING));
  state.tasks.set('t2', task('t2', TaskState.PENDING, TaskState.RUNNING));
  state.tasks.set('t3', task('t3', TaskState.SHUTDOWN, TaskState.SHUTDOWN));

  it('carries the version, the previous spec and the update status', () => {
    const docker = toDockerService(service);
    expect(docker).toMatchObject({ ID: 's1', Version: { Index: 4 }, CreatedAt: 't0', UpdatedAt: 't1', UpdateStatus: { State: 'updating', StartedAt: 't1' } });
    expect(docker.PreviousSpec?.Mode).toEqual({ Replicated: { Replicas: 1 } });
    expect(docker.ServiceStatus).toBeUndefined();
  });

  it('counts running and desired tasks for `docker service ls`', () => {
    expect(serviceStatuses(state).get('s1')).toEqual({ RunningTasks: 1, DesiredTasks: 3, CompletedTasks: 0 });
    expect(toDockerService(service, { status: serviceStatuses(state).get('s1')! }).ServiceStatus).toEqual({ RunningTasks: 1, DesiredTasks: 3, CompletedTasks: 0 });
    state.services.set('s1', { ...service, spec: serviceSpec('web', { kind: 'global' }) });
    expect(serviceStatuses(state).get('s1')).toEqual({ RunningTasks: 1, DesiredTasks: 2, CompletedTasks: 0 });
    state.services.set('s2', { ...service, id: 's2' });
    expect(serviceStatuses(state).get('s2')).toEqual({ RunningTasks: 0, DesiredTasks: 3, CompletedTasks: 0 });
  });

  it("counts a job's tasks of its current iteration as SwarmKit does: a global job wants the tasks not yet complete", () => {
    const jobs = emptyState();
    const job = (id: string, mode: Service['spec']['mode']): Service => ({ id, spec: serviceSpec(id, mode), version: 2, jobIteration: 1, createdAt: 't0', updatedAt: 't1' });
    jobs.services.set('rj', job('rj', { kind: 'replicated-job', maxConcurrent: 2, totalCompletions: 3 }));
    jobs.services.set('gj', job('gj', { kind: 'global-job' }));
    const jobTask = (id: string, serviceId: string, observed: number, iteration = 1) => ({
      ...newTask(id, serviceId, spec, { jobIteration: iteration }),
      createdAt: 't0',
      status: { state: observed as never, at: 't1' },
    });
    for (const serviceId of ['rj', 'gj']) {
      for (const [i, observed] of [TaskState.COMPLETE, TaskState.COMPLETE, TaskState.RUNNING].entries()) jobs.tasks.set(`${serviceId}${i}`, jobTask(`${serviceId}${i}`, serviceId, observed));
      jobs.tasks.set(`${serviceId}-old`, jobTask(`${serviceId}-old`, serviceId, TaskState.COMPLETE, 0));
    }
    expect(serviceStatuses(jobs).get('rj')).toEqual({ RunningTasks: 1, DesiredTasks: 2, CompletedTasks: 2 });
    expect(serviceStatuses(jobs).get('gj')).toEqual({ RunningTasks: 1, DesiredTasks: 1, CompletedTasks: 2 });
  });
});
