/**
 * The real docker CLI against `npm start` (every component and three simulated nodes in
 * one process, on the embedded log), without --detach: the CLI's own progress display
 * follows the tasks the orchestrator, allocator, scheduler and agents move, and must see
 * them converge — on create, update, scale, rollback, a global service, and a drain; and
 * service logs reads what the simulated nodes' tasks wrote, the configs they were sent too.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerCliOk } from '../../libs/testing/src/processes/docker-cli';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';

describe('the docker CLI against npm start', () => {
  let shoal: ShoalProcesses;
  let dataDir: string;

  const ok = (...args: string[]): Promise<string> => dockerCliOk(dataDir, args);
  const running = async (service: string): Promise<string[]> =>
    (await ok('service', 'ps', '--filter', 'desired-state=running', '--format', '{{.Name}} {{.Image}} {{.Node}} {{.CurrentState}}', service))
      .trim()
      .split('\n')
      .filter(Boolean)
      .sort();

  beforeAll(async () => {
    shoal = ShoalProcesses.embedded('docker-aio', { SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
    dataDir = shoal.dataDir;
    await shoal.start().waitFor(/Ctrl-C stops it/, 90_000);
  });
  afterAll(() => shoal?.close());

  it('service create converges, shown by the CLI\'s own progress display', async () => {
    expect((await ok('node', 'ls', '--format', '{{.Hostname}} {{.Status}}')).trim().split('\n')).toEqual(['shoal-manager Ready', 'sim-node-1 Ready', 'sim-node-2 Ready', 'sim-node-3 Ready']);
    const created = await ok('service', 'create', '--name', 'web', '--replicas', '3', '--update-monitor', '1s', '--update-parallelism', '3', 'nginx:1.27');
    expect(created).toMatch(/overall progress: 3 out of 3 tasks/);
    expect(created).toMatch(/verify: Service \w+ converged/);
    const tasks = await running('web');
    expect(tasks).toHaveLength(3);
    for (const task of tasks) expect(task).toMatch(/^web\.\d nginx:1\.27 \S+ Running/);
    expect(await ok('service', 'ls', '--format', '{{.Name}} {{.Replicas}}')).toBe('web 3/3\n');
  });

  it("service logs prints each task's output as the CLI names tasks: a simulated node's one line, saying nothing ran", async () => {
    const lines = (await ok('service', 'logs', 'web')).trim().split('\n').sort();
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toMatch(/^web\.[123]\.[0-9a-z]{12}@sim-node-\d +\| simulated task: image nginx:1\.27; nothing runs on this simulated node$/);
    expect(new Set(lines.map((line) => line.split('.')[1]))).toEqual(new Set(['1', '2', '3']));
  });

  it('a config reaches the simulated nodes that run a service using it, as the quick start shows', async () => {
    const file = join(dataDir, 'app.conf');
    writeFileSync(file, 'worker_processes 2;\n');
    expect(await ok('config', 'create', 'app-conf', file)).toMatch(/^[0-9a-z]{25}\n$/);
    expect(await ok('service', 'create', '--name', 'app', '--config', 'src=app-conf,target=/etc/app.conf', 'nginx:1.27')).toMatch(/verify: Service \w+ converged/);
    expect((await ok('service', 'logs', 'app')).trim()).toMatch(
      /^app\.1\.[0-9a-z]{12}@sim-node-\d +\| simulated task: image nginx:1\.27; config app-conf at \/etc\/app\.conf \(20 bytes\); nothing runs on this simulated node$/,
    );
    await ok('service', 'rm', 'app');
    await ok('config', 'rm', 'app-conf');
  });

  it('service update --replicas adds tasks and restarts none (the defaults it sends back change nothing)', async () => {
    const ids = async () => (await ok('service', 'ps', '-q', '--filter', 'desired-state=running', 'web')).trim().split('\n').sort();
    const before = await ids();
    expect(await ok('service', 'update', '--replicas', '4', 'web')).toMatch(/verify: Service web converged/);
    const after = await ids();
    expect(after).toHaveLength(4);
    expect(after).toEqual(expect.arrayContaining(before));
    expect(await ok('service', 'update', '--replicas', '3', 'web')).toMatch(/verify: Service web converged/);
  });

  it('service update --image, scale and rollback converge', async () => {
    expect(await ok('service', 'update', '--image', 'nginx:1.28', 'web')).toMatch(/verify: Service web converged/);
    expect((await running('web')).every((task) => task.includes('nginx:1.28'))).toBe(true);
    expect(await ok('service', 'scale', 'web=5')).toMatch(/verify: Service web converged/);
    expect(await running('web')).toHaveLength(5);
    expect(await ok('service', 'rollback', 'web')).toMatch(/verify: Service web converged/);
    // The spec before the last update: nginx:1.28 with 3 replicas.
    const tasks = await running('web');
    expect(tasks).toHaveLength(3);
    expect(tasks.every((task) => task.includes('nginx:1.28'))).toBe(true);
  });

  it('a global service runs one task per node, and a drained node\'s tasks move', async () => {
    const created = await ok('service', 'create', '--name', 'agent', '--mode', 'global', '--update-monitor', '1s', 'busybox:1.36', 'sleep', '3600');
    expect(created).toMatch(/verify: Service \w+ converged/);
    expect(await running('agent')).toHaveLength(3);

    const [drained] = (await ok('node', 'ls', '--filter', 'role=worker', '--format', '{{.Hostname}}')).trim().split('\n').sort();
    await ok('node', 'update', '--availability', 'drain', drained!);
    const deadline = Date.now() + 30_000;
    for (;;) {
      const web = await running('web');
      const agent = await running('agent');
      const moved = web.length === 3 && web.every((task) => !task.includes(` ${drained} `) && / Running /.test(task)) && agent.length === 2;
      if (moved) break;
      if (Date.now() > deadline) throw new Error(`tasks did not leave ${drained}: ${JSON.stringify({ web, agent })}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect((await ok('service', 'rm', 'web', 'agent'))).toBe('web\nagent\n');
    expect(await ok('service', 'ls', '-q')).toBe('');
  });
});
