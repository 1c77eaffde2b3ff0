/**
 * `docker service` and `docker stack`, as a user types them: the spec each flag writes,
 * what ls / inspect / ps show of the tasks the other components made, scale, update,
 * rollback, non-detached create (a service, a job) following the tasks to convergence,
 * stack deploy and rm. On either system (system-under-test.ts): the tasks come from the
 * steps, written by the test or made by the real components.
 *
 * Where no task may run (the asserted counts are 0/N), the service's placement admits no
 * node: `--constraint node.labels.zone==east` before node-1 is labelled so, and a stack
 * pinned to zone west.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerOutput } from '@shoal/testing';
import { NODE_1, serviceNamed } from './system-under-test';
import type { SystemHandle } from './system-under-test';

export const dockerServiceScenarios = (system: SystemHandle): void => {
  const docker = async (...args: string[]) => {
    const result = await system.current.docker(args);
    dockerOutput(args, result);
    return result;
  };
  const named = async (name: string) => serviceNamed(await system.current.state(), name);
  const created = async (name: string, cli: Promise<unknown>): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (![...(await system.current.state()).services.values()].some((service) => service.spec.name === name)) {
      if (Date.now() > deadline) throw new Error(`the service ${name} was never created: ${JSON.stringify(await cli)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  it('docker service create (replicated) carries every flag into the spec on the log', async () => {
    const out = await docker(
      'service', 'create', '--detach', '--name', 'web', '--replicas', '2',
      '--constraint', 'node.labels.zone==east', '--placement-pref', 'spread=node.labels.rack',
      '--reserve-memory', '5G', '--reserve-cpu', '0.5', '--limit-memory', '6G',
      '-p', '8080:80', '--restart-condition', 'on-failure', '--restart-delay', '3s', '--restart-max-attempts', '4',
      '--update-parallelism', '2', '--update-delay', '10s', '--update-failure-action', 'rollback', '--update-order', 'start-first', '--update-monitor', '20s', '--update-max-failure-ratio', '0.25',
      '--rollback-parallelism', '3', '--rollback-delay', '2s', '--rollback-failure-action', 'continue', '--rollback-order', 'stop-first',
      '--env', 'A=1', '--label', 'tier=front',
      'nginx:1.27',
    );
    // The CLI could not resolve the digest, said so, and carried on.
    expect(out.stderr).toMatch(/could not be accessed on a registry to record\s+its digest/);
    const service = await named('web');
    expect(out.stdout.trim()).toBe(service.id);
    expect(service.spec).toEqual({
      name: 'web',
      labels: { tier: 'front' },
      mode: { kind: 'replicated', replicas: 2 },
      task: expect.objectContaining({
        container: expect.objectContaining({ image: 'nginx:1.27', env: ['A=1'] }),
        resources: { reservations: { nanoCpus: 500_000_000, memoryBytes: 5 * 2 ** 30 }, limits: { memoryBytes: 6 * 2 ** 30 } },
        restartPolicy: { condition: 'on-failure', delayMs: 3_000, maxAttempts: 4, windowMs: 0 },
        placement: { constraints: ['node.labels.zone==east'], preferences: [{ spread: 'node.labels.rack' }] },
      }),
      update: { parallelism: 2, delayMs: 10_000, failureAction: 'rollback', monitorMs: 20_000, maxFailureRatio: 0.25, order: 'start-first' },
      rollback: expect.objectContaining({ parallelism: 3, delayMs: 2_000, failureAction: 'continue', order: 'stop-first' }),
      endpoint: { mode: 'vip', ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: 8080, publishMode: 'ingress' }] },
    });
  });

  it('docker service create --mode global', async () => {
    await docker('service', 'create', '--detach', '--name', 'agent', '--mode', 'global', '--constraint', 'node.labels.role==agent', 'busybox:1.36', 'sleep', '3600');
    expect((await named('agent')).spec).toMatchObject({ mode: { kind: 'global' }, task: { container: { image: 'busybox:1.36', args: ['sleep', '3600'] } } });
  });

  it('docker service create refuses what evolve refuses (a duplicate name)', async () => {
    const again = await system.current.docker(['service', 'create', '--detach', '--name', 'web', 'nginx:1.27']);
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
    // node-1 now admits web; its 8 GiB hold one 5 GB reservation, not two.
    await docker('node', 'update', '--label-add', 'zone=east', NODE_1);
    const web = await named('web');
    const { running } = await system.current.tasksRun('web', { replicas: 2, running: 1, node: NODE_1 });
    const ps = await docker('service', 'ps', '--format', '{{.Name}} {{.Node}} {{.DesiredState}} {{.CurrentState}}', 'web');
    const lines = ps.stdout.trim().split('\n');
    expect(lines).toHaveLength(2);
    const up = lines.filter((line) => /^web\.[12] node-1 Running Running/.test(line));
    const waiting = lines.filter((line) => /^web\.[12] {2}Running Pending/.test(line));
    expect([up.length, waiting.length]).toEqual([1, 1]);
    expect(up[0]!.slice(0, 5)).not.toBe(waiting[0]!.slice(0, 5));
    expect((await docker('service', 'ls', '--filter', 'name=web', '--format', '{{.Replicas}}')).stdout).toBe('1/2\n');
    const [task] = JSON.parse((await docker('inspect', '--type', 'task', running[0]!)).stdout) as { ServiceID: string; Status: { State: string } }[];
    expect(task).toMatchObject({ ServiceID: web.id, Status: { State: 'running' } });
  });

  it('docker service scale and update --image write new versions of the spec', async () => {
    expect((await docker('service', 'scale', '--detach', 'web=5')).stdout).toMatch(/web scaled to 5/);
    expect(await named('web')).toMatchObject({ version: 2, spec: { mode: { kind: 'replicated', replicas: 5 } } });
    await docker('service', 'update', '--detach', '--image', 'nginx:1.28', 'web');
    expect(await named('web')).toMatchObject({ version: 3, spec: { task: { container: { image: 'nginx:1.28' } }, mode: { replicas: 5 } } });
  });

  it('docker service rollback returns to the previous spec', async () => {
    await docker('service', 'rollback', '--detach', 'web');
    expect(await named('web')).toMatchObject({ version: 4, spec: { task: { container: { image: 'nginx:1.27' } }, mode: { replicas: 5 } } });
  });

  it('docker service create without --detach follows the tasks until they converge', async () => {
    const cli = system.current.docker(['service', 'create', '--name', 'watched', '--replicas', '2', '--update-monitor', '1s', 'nginx:1.27']);
    await created('watched', cli);
    const watched = await named('watched');
    await system.current.tasksRun('watched', { replicas: 2, running: 2, node: NODE_1, settleMs: 300 });
    const done = await cli;
    expect(done.code).toBe(0);
    expect(done.stdout).toContain(watched.id);
    expect(done.stdout).toMatch(/overall progress: 2 out of 2 tasks/);
    expect(done.stdout).toMatch(/Service \w+ converged/);
  });

  it('docker service create --mode replicated-job without --detach returns once every slot has completed, as against a real engine', async () => {
    // SIM_RUN_FOR: a simulated node's task ends after that long (exit code 0).
    const cli = system.current.docker(['service', 'create', '--name', 'batch', '--mode', 'replicated-job', '--replicas', '3', '--constraint', `node.hostname==${NODE_1}`, '--env', 'SIM_RUN_FOR=300ms', 'busybox:1.36', 'true']);
    await created('batch', cli);
    await system.current.tasksComplete('batch', { replicas: 3, node: NODE_1 });
    const done = await cli;
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/job complete/);
    expect((await docker('service', 'ls', '--filter', 'name=batch', '--format', '{{.Replicas}}')).stdout).toBe('0/3 (3/3 completed)\n');
    const ps = await docker('service', 'ps', '--format', '{{.Name}} {{.DesiredState}} {{.CurrentState}}', 'batch');
    expect(ps.stdout.trim().split('\n').map((line) => line.split(' ').slice(0, 3).join(' ')).sort()).toEqual([
      'batch.1 Complete Complete',
      'batch.2 Complete Complete',
      `batch.${system.current.nodeId(NODE_1)} Complete Complete`,
    ].sort());
    await docker('service', 'rm', 'batch');
  });

  it('docker stack deploy and docker stack rm go through the same endpoints', async () => {
    const compose = join(system.current.dataDir, 'stack.yml');
    writeFileSync(
      compose,
      'services:\n  app:\n    image: nginx:1.27\n    deploy:\n      replicas: 3\n      placement:\n        constraints: ["node.labels.zone==west"]\n    ports:\n      - "8090:80"\n',
    );
    expect((await docker('stack', 'deploy', '--detach', '-c', compose, 'demo')).stdout).toMatch(/Creating service demo_app/);
    expect((await named('demo_app')).spec).toMatchObject({
      mode: { kind: 'replicated', replicas: 3 },
      labels: { 'com.docker.stack.namespace': 'demo' },
      endpoint: { ports: [{ targetPort: 80, publishedPort: 8090 }] },
    });
    expect((await docker('stack', 'services', '--format', '{{.Name}} {{.Replicas}}', 'demo')).stdout).toBe('demo_app 0/3\n');
    expect((await docker('stack', 'rm', 'demo')).stdout).toMatch(/Removing service demo_app/);
    expect([...(await system.current.state()).services.values()].map((service) => service.spec.name)).not.toContain('demo_app');
  });

  it('docker service rm removes the services', async () => {
    expect((await docker('service', 'rm', 'web', 'agent', 'watched')).stdout).toBe('web\nagent\nwatched\n');
    expect((await system.current.state()).services.size).toBe(0);
    expect((await docker('service', 'ls', '-q')).stdout).toBe('');
  });
};
