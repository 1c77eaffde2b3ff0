/**
 * The real docker CLI (v28, unmodified) against the API: services and tasks. The API runs
 * in this process on an embedded log; `--detach` everywhere, since convergence needs the
 * orchestrator, allocator and scheduler, not the API. Tasks are made to exist by
 * appending what those components append.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import type { Service } from '@shoal/domain';
import { dockerOutput, nodeDescription } from '@shoal/testing';
import { startApi } from '../../apps/api/src/testing/api-harness';
import type { ApiHarness } from '../../apps/api/src/testing/api-harness';

const N1 = 'n1aaaaaaaaaaaaaaaaaaaaaaa';

describe('docker service, against Shoal', () => {
  let api: ApiHarness;
  const docker = async (...args: string[]) => {
    const result = await api.docker(args);
    dockerOutput(args, result);
    return result;
  };
  const named = (name: string): Service => {
    const found = [...api.view.state.services.values()].find((service) => service.spec.name === name);
    if (!found) throw new Error(`no service ${name}`);
    return found;
  };

  beforeAll(async () => {
    api = await startApi();
    await api.append(api.events.event('NodeRegistered', { id: N1, description: nodeDescription('node-1'), role: 'worker', addr: '127.0.0.1' }));
  });
  afterAll(() => api.close());

  it('docker service create (replicated) carries every flag into the spec on the log', async () => {
    const created = await docker(
      'service', 'create', '--detach', '--name', 'web', '--replicas', '2',
      '--constraint', 'node.labels.zone==east', '--placement-pref', 'spread=node.labels.rack',
      '--reserve-memory', '64M', '--reserve-cpu', '0.5', '--limit-memory', '128M',
      '-p', '8080:80', '--restart-condition', 'on-failure', '--restart-delay', '3s', '--restart-max-attempts', '4',
      '--update-parallelism', '2', '--update-delay', '10s', '--update-failure-action', 'rollback', '--update-order', 'start-first', '--update-monitor', '20s', '--update-max-failure-ratio', '0.25',
      '--rollback-parallelism', '3', '--rollback-delay', '2s', '--rollback-failure-action', 'continue', '--rollback-order', 'stop-first',
      '--env', 'A=1', '--label', 'tier=front',
      'nginx:1.27',
    );
    // The CLI could not resolve the digest, said so, and carried on.
    expect(created.stderr).toMatch(/could not be accessed on a registry to record\s+its digest/);
    const service = named('web');
    expect(created.stdout.trim()).toBe(service.id);
    expect(service.spec).toEqual({
      name: 'web',
      labels: { tier: 'front' },
      mode: { kind: 'replicated', replicas: 2 },
      task: expect.objectContaining({
        container: expect.objectContaining({ image: 'nginx:1.27', env: ['A=1'] }),
        resources: { reservations: { nanoCpus: 500_000_000, memoryBytes: 64 * 2 ** 20 }, limits: { memoryBytes: 128 * 2 ** 20 } },
        restartPolicy: { condition: 'on-failure', delayMs: 3_000, maxAttempts: 4, windowMs: 0 },
        placement: { constraints: ['node.labels.zone==east'], preferences: [{ spread: 'node.labels.rack' }] },
      }),
      update: { parallelism: 2, delayMs: 10_000, failureAction: 'rollback', monitorMs: 20_000, maxFailureRatio: 0.25, order: 'start-first' },
      rollback: expect.objectContaining({ parallelism: 3, delayMs: 2_000, failureAction: 'continue', order: 'stop-first' }),
      endpoint: { mode: 'vip', ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'ingress' }] },
    });
  });

  it('docker service create --mode global', async () => {
    await docker('service', 'create', '--detach', '--name', 'agent', '--mode', 'global', 'busybox:1.36', 'sleep', '3600');
    expect(named('agent').spec).toMatchObject({ mode: { kind: 'global' }, task: { container: { image: 'busybox:1.36', args: ['sleep', '3600'] } } });
  });

  it('docker service create refuses what evolve refuses (a duplicate name)', async () => {
    const again = await api.docker(['service', 'create', '--detach', '--name', 'web', 'nginx:1.27']);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/name conflicts with an existing object/);
  });

  it('docker service ls and inspect', async () => {
    const ls = await docker('service', 'ls', '--format', '{{.Name}} {{.Mode}} {{.Replicas}} {{.Image}}');
    expect(ls.stdout.trim().split('\n').sort()).toEqual(['agent global 0/0 busybox:1.36', 'web replicated 0/2 nginx:1.27']);
    expect((await docker('service', 'ls', '--filter', 'mode=global', '--format', '{{.Name}}')).stdout).toBe('agent\n');
    const pretty = await docker('service', 'inspect', '--pretty', 'web');
    expect(pretty.stdout).toMatch(/Replicas:\s+2/);
    expect(pretty.stdout).toMatch(/On failure:\s+rollback/);
    const [inspected] = JSON.parse((await docker('service', 'inspect', 'web')).stdout) as { Spec: { Mode: unknown; UpdateConfig: { Delay: number } } }[];
    expect(inspected!.Spec).toMatchObject({ Mode: { Replicated: { Replicas: 2 } }, UpdateConfig: { Delay: 10_000_000_000 } });
  });

  it('docker service ps shows the tasks the other components made, with their node', async () => {
    const web = named('web');
    const spec = web.spec.task;
    await api.append(
      api.events.event('TasksCreated', {
        tasks: [1, 2].map((slot) => ({ id: `t${slot}`, serviceId: web.id, slot, specVersion: web.version, spec, desiredState: TaskState.RUNNING })),
      }),
      api.events.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }, { id: 't2', attachments: [] }] }),
      api.events.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: N1, why: 'test' }] }),
      api.events.event('TaskStatusesReported', { nodeId: N1, statuses: [{ id: 't1', state: TaskState.RUNNING, at: api.events.now() }] }),
    );
    const ps = await docker('service', 'ps', '--format', '{{.Name}} {{.Node}} {{.DesiredState}} {{.CurrentState}}', 'web');
    const lines = ps.stdout.trim().split('\n').sort();
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^web\.1 node-1 Running Running/);
    expect(lines[1]).toMatch(/^web\.2 {2}Running Pending/);
    expect((await docker('service', 'ls', '--filter', 'name=web', '--format', '{{.Replicas}}')).stdout).toBe('1/2\n');
    const [task] = JSON.parse((await docker('inspect', '--type', 'task', 't1')).stdout) as { ServiceID: string; Status: { State: string } }[];
    expect(task).toMatchObject({ ServiceID: web.id, Status: { State: 'running' } });
  });

  it('docker service scale and update --image write new versions of the spec', async () => {
    expect((await docker('service', 'scale', '--detach', 'web=5')).stdout).toMatch(/web scaled to 5/);
    expect(named('web')).toMatchObject({ version: 2, spec: { mode: { kind: 'replicated', replicas: 5 } } });
    await docker('service', 'update', '--detach', '--image', 'nginx:1.28', 'web');
    expect(named('web')).toMatchObject({ version: 3, spec: { task: { container: { image: 'nginx:1.28' } }, mode: { replicas: 5 } } });
  });

  it('docker service rollback returns to the previous spec', async () => {
    await docker('service', 'rollback', '--detach', 'web');
    expect(named('web')).toMatchObject({ version: 4, spec: { task: { container: { image: 'nginx:1.27' } }, mode: { replicas: 5 } } });
  });

  it('docker service create without --detach follows the tasks until they converge', async () => {
    const cli = api.docker(['service', 'create', '--name', 'watched', '--replicas', '2', '--update-monitor', '1s', 'nginx:1.27']);
    // What the orchestrator, allocator, scheduler and an agent would append, once the service is on the log.
    const deadline = Date.now() + 10_000;
    while (![...api.view.state.services.values()].some((service) => service.spec.name === 'watched')) {
      if (Date.now() > deadline) throw new Error(`the service was never created: ${JSON.stringify(await cli)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const watched = named('watched');
    const ids = ['w1', 'w2'];
    await api.append(
      api.events.event('TasksCreated', {
        tasks: ids.map((id, index) => ({ id, serviceId: watched.id, slot: index + 1, specVersion: watched.version, spec: watched.spec.task, desiredState: TaskState.RUNNING })),
      }),
      api.events.event('TasksAllocated', { tasks: ids.map((id) => ({ id, attachments: [] })) }),
      api.events.event('TasksAssigned', { tasks: ids.map((id) => ({ id, nodeId: N1, why: 'test' })) }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await api.append(api.events.event('TaskStatusesReported', { nodeId: N1, statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: api.events.now() })) }));
    const done = await cli;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(watched.id);
    expect(done.stdout).toMatch(/overall progress: 2 out of 2 tasks/);
    expect(done.stdout).toMatch(/Service \w+ converged/);
  });

  it('docker service create --mode replicated-job without --detach returns once every slot has completed, as against a real engine', async () => {
    const cli = api.docker(['service', 'create', '--name', 'batch', '--mode', 'replicated-job', '--replicas', '3', 'busybox:1.36', 'true']);
    const deadline = Date.now() + 10_000;
    while (![...api.view.state.services.values()].some((service) => service.spec.name === 'batch')) {
      if (Date.now() > deadline) throw new Error(`the job was never created: ${JSON.stringify(await cli)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const batch = named('batch');
    const ids = ['j1', 'j2', 'j3'];
    // What the orchestrator (slots 1 … 3 on the log, iteration 0), allocator, scheduler and an agent would append.
    await api.append(
      api.events.event('TasksCreated', {
        tasks: ids.map((id, index) => ({ id, serviceId: batch.id, slot: index + 1, specVersion: batch.version, spec: batch.spec.task, desiredState: TaskState.RUNNING, jobIteration: 0 })),
      }),
      api.events.event('TasksAllocated', { tasks: ids.map((id) => ({ id, attachments: [] })) }),
      api.events.event('TasksAssigned', { tasks: ids.map((id) => ({ id, nodeId: N1, why: 'test' })) }),
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await api.append(api.events.event('TaskStatusesReported', { nodeId: N1, statuses: ids.map((id) => ({ id, state: TaskState.COMPLETE, at: api.events.now(), exitCode: 0 })) }));
    const done = await cli;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/job complete/);
    expect((await docker('service', 'ls', '--filter', 'name=batch', '--format', '{{.Replicas}}')).stdout).toBe('0/3 (3/3 completed)\n');
    const ps = await docker('service', 'ps', '--format', '{{.Name}} {{.DesiredState}} {{.CurrentState}}', 'batch');
    expect(ps.stdout.trim().split('\n').map((line) => line.split(' ').slice(0, 3).join(' ')).sort()).toEqual(['batch.1 Complete Complete', 'batch.2 Complete Complete', `batch.${N1} Complete Complete`]);
    await docker('service', 'rm', 'batch');
  });

  it('docker service logs, with no dispatcher to ask (the API alone), says where the API looked and what to check', async () => {
    const logs = await api.docker(['service', 'logs', 'web']);
    expect(logs.code).not.toBe(0);
    // No dispatcher has taken over on this log: the API asks at its join address, where nothing answers.
    expect(logs.stderr).toMatch(/^Error response from daemon: cannot get task logs: no active dispatcher answers at 127\.0\.0\.1:2377 .*check that one runs/);
    expect(logs.stdout).toBe('');
  });

  it('docker stack deploy and docker stack rm go through the same endpoints', async () => {
    const compose = join(api.dataDir, 'stack.yml');
    writeFileSync(compose, 'services:\n  app:\n    image: nginx:1.27\n    deploy:\n      replicas: 3\n    ports:\n      - "8090:80"\n');
    expect((await docker('stack', 'deploy', '--detach', '-c', compose, 'demo')).stdout).toMatch(/Creating service demo_app/);
    expect(named('demo_app').spec).toMatchObject({
      mode: { kind: 'replicated', replicas: 3 },
      labels: { 'com.docker.stack.namespace': 'demo' },
      endpoint: { ports: [{ targetPort: 80, publishedPort: 8090 }] },
    });
    expect((await docker('stack', 'services', '--format', '{{.Name}} {{.Replicas}}', 'demo')).stdout).toBe('demo_app 0/3\n');
    expect((await docker('stack', 'rm', 'demo')).stdout).toMatch(/Removing service demo_app/);
    expect([...api.view.state.services.values()].map((service) => service.spec.name)).not.toContain('demo_app');
  });

  it('docker service rm removes the services', async () => {
    expect((await docker('service', 'rm', 'web', 'agent', 'watched')).stdout).toBe('web\nagent\nwatched\n');
    expect(api.view.state.services.size).toBe(0);
    expect((await docker('service', 'ls', '-q')).stdout).toBe('');
  });
});
