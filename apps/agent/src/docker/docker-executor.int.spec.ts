/**
 * The docker executor against a real Docker engine (SHOAL_TEST_ENGINE): containers run to
 * completion or fail with their exit code, a missing image is rejected with the engine's
 * message, stops honour the stop signal and grace period, healthchecks gate RUNNING and
 * fail the task, configs are files on tmpfs, a published port answers, logs come with
 * their times, a restarted executor adopts what the last one left, and tasks on a Shoal
 * network get the allocator's addresses on a bridge of its own and reach each other.
 */
import { statfs } from 'node:fs/promises';
import { TaskState } from '@shoal/contracts';
import { randomInt, randomUUID } from 'node:crypto';
import { eventually, WEB_IMAGE, WEB_INDEX_TEXT } from '@shoal/testing';
import { LABELS, NETWORK_LABELS } from './container-config';
import { freePort, httpGet, DockerHarness, taskSpec } from './testing/docker-harness';

interface Inspected {
  Name: string;
  Config: { Labels: Record<string, string> };
  State: { Status: string; Health?: { Status: string } };
  NetworkSettings: { Networks: Record<string, { IPAddress: string; Aliases: string[] | null }> };
  Mounts: { Source: string; Destination: string; RW: boolean }[];
}

describe('DockerExecutor on a real engine', () => {
  let docker: DockerHarness;

  beforeEach(() => {
    docker = new DockerHarness();
  });

  afterEach(async () => {
    await docker.cleanUp();
  });

  const inspect = (id: string): Promise<Inspected> => docker.engine.call<Inspected>('GET', `/containers/${id}/json`);

  it('runs a task to completion in a container named and labelled as SwarmKit does, its output in the task log with the engine’s times', async () => {
    const before = Date.now();
    const task = docker.assigned(taskSpec({ command: ['sh', '-c'], args: ['echo out; echo err >&2'], env: ['GREETING=hi'] }), { slot: 3 });
    const run = docker.run(task);
    const done = await run.reached(TaskState.COMPLETE);
    expect(done).toMatchObject({ state: TaskState.COMPLETE, exitCode: 0 });
    expect(run.statuses.map((status) => status.state)).toEqual([TaskState.ACCEPTED, TaskState.PREPARING, TaskState.READY, TaskState.STARTING, TaskState.RUNNING, TaskState.COMPLETE]);
    const [container] = await docker.containers(task.id);
    const inspected = await inspect(container!.Id);
    expect(inspected.Name).toBe(`/test-svc.3.${task.id}`);
    expect(inspected.Config.Labels).toMatchObject({
      [LABELS.serviceId]: 'svc1',
      [LABELS.serviceName]: 'test-svc',
      [LABELS.taskId]: task.id,
      [LABELS.taskName]: `test-svc.3.${task.id}`,
      [LABELS.nodeId]: docker.nodeId,
    });
    await eventually('both lines in the log', () => run.text().includes('out\n') && run.text().includes('err\n'));
    const entries = run.log.read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 });
    expect(entries.map((entry) => [entry.stream, entry.data.toString()])).toEqual(expect.arrayContaining([['stdout', 'out\n'], ['stderr', 'err\n']]));
    for (const entry of entries) expect(entry.at).toBeGreaterThanOrEqual(before - 1000);
  });

  it('fails a task that exits non-zero, with its exit code', async () => {
    const run = docker.run(docker.assigned(taskSpec({ command: ['sh', '-c', 'exit 3'] })));
    const failed = await run.reached(TaskState.COMPLETE);
    expect(failed).toMatchObject({ state: TaskState.FAILED, exitCode: 3, err: 'task exited with code 3' });
  });

  it('rejects a task whose image is missing and cannot be pulled with the engine’s "No such image", as Docker does, the pull’s failure told in the agent’s log', async () => {
    // A registry on loopback where nothing listens: the pull is refused at once, off the machine nothing is asked.
    const image = '127.0.0.1:9/shoal-test/no-such-image:1';
    const run = docker.run(docker.assigned(taskSpec({ image })));
    const rejected = await run.reached(TaskState.REJECTED, 90_000);
    expect([rejected.state, rejected.message, rejected.err]).toEqual([TaskState.REJECTED, 'preparing', `No such image: ${image}`]);
    expect(docker.said).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^task ${run.task.id}: pulling ${image.replace(/\./g, '\\.')} failed \\(.*127\\.0\\.0\\.1:9.*\\); its container is created without it$`))]));
    expect(await docker.containers(run.task.id)).toEqual([]);
  });

  it('rejects a task with a field it cannot honour, naming the field, before anything is made', async () => {
    const spec = { ...taskSpec({}), container: { ...taskSpec({}).container, privileges: { seLinuxContext: { disable: true } } } };
    const run = docker.run(docker.assigned(spec as never));
    const rejected = await run.reached(TaskState.REJECTED);
    expect(rejected.err).toBe('container.privileges: the docker executor does not support this field');
    expect(await docker.containers(run.task.id)).toEqual([]);
  });

  it('stops a task with its stop signal, and kills one that outlives its grace period', async () => {
    const polite = docker.run(
      docker.assigned(taskSpec({ command: ['sh', '-c', "trap 'echo got USR1; exit 0' USR1; echo ready; while true; do sleep 0.1; done"], stopSignal: 'SIGUSR1', stopGracePeriodMs: 10_000 })),
    );
    const stubborn = docker.run(docker.assigned(taskSpec({ command: ['sh', '-c', "trap '' TERM; echo ready; while true; do sleep 0.1; done"], stopGracePeriodMs: 1_000 })));
    await Promise.all([polite, stubborn].map((run) => run.reached(TaskState.RUNNING)));
    await eventually('both ready', () => polite.text().includes('ready') && stubborn.text().includes('ready'));
    await polite.runner.stop();
    expect(polite.runner.status.state).toBe(TaskState.SHUTDOWN);
    await eventually('the signal handled', () => polite.text().includes('got USR1'));
    const started = Date.now();
    await stubborn.runner.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(stubborn.runner.status.state).toBe(TaskState.SHUTDOWN);
    const [container] = await docker.containers(stubborn.task.id);
    const state = await docker.engine.call<{ State: { ExitCode: number; Status: string } }>('GET', `/containers/${container!.Id}/json`);
    expect(state.State).toMatchObject({ Status: 'exited', ExitCode: 137 });
  });

  it('reports RUNNING only once the healthcheck passes', async () => {
    const run = docker.run(
      docker.assigned(taskSpec({ command: ['sh', '-c', 'sleep 1; touch /ok; sleep 1000'], healthcheck: { test: ['CMD-SHELL', 'test -f /ok'], intervalMs: 200, retries: 50 } })),
    );
    await run.reached(TaskState.RUNNING);
    const [container] = await docker.containers(run.task.id);
    expect((await inspect(container!.Id)).State.Health?.Status).toBe('healthy');
  });

  it('fails a task whose healthcheck fails, and stops its container', async () => {
    const run = docker.run(docker.assigned(taskSpec({ command: ['sleep', '1000'], healthcheck: { test: ['CMD', 'false'], intervalMs: 200, retries: 1 }, stopGracePeriodMs: 1_000 })));
    const failed = await run.reached(TaskState.COMPLETE);
    expect(failed).toMatchObject({ state: TaskState.FAILED, err: 'the container is unhealthy: its healthcheck failed' });
    expect(run.statuses.some((status) => status.state === TaskState.RUNNING)).toBe(false);
    await eventually('the container stopped', async () => (await docker.containers(run.task.id))[0]?.State === 'exited');
  });

  it('gives configs as read-only files on tmpfs, and publishes a port that answers', async () => {
    const port = await freePort();
    const reference = { configId: 'cfg1', configName: 'index', file: { name: '/www/index.html', uid: '0', gid: '0', mode: 0o444 } };
    const run = docker.run(
      docker.assigned(taskSpec({ command: ['httpd', '-f', '-p', '80', '-h', '/www'], configs: [reference], stopGracePeriodMs: 1_000 }), {
        configs: [{ reference, data: Buffer.from('hello from a config\n') }],
        ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: port, publishMode: 'host' }],
      }),
    );
    await run.reached(TaskState.RUNNING);
    expect(await eventually('the port answers', () => httpGet(port).catch(() => undefined))).toBe('hello from a config\n');
    const [container] = await docker.containers(run.task.id);
    const mount = (await inspect(container!.Id)).Mounts.find((m) => m.Destination === '/www/index.html');
    expect(mount).toMatchObject({ RW: false });
    expect(mount!.Source.startsWith(docker.configRoot)).toBe(true);
    expect((await statfs(mount!.Source)).type).toBe(0x01021994);
    await run.runner.remove();
    expect(await docker.containers(run.task.id)).toEqual([]);
    await expect(statfs(mount!.Source)).rejects.toThrow(/ENOENT/);
  });

  it('a restarted executor adopts its node’s containers: a running one goes on, one that exited meanwhile reports its exit, none is started twice', async () => {
    const long = docker.run(docker.assigned(taskSpec({ command: ['sh', '-c', 'echo before; sleep 1000'], stopGracePeriodMs: 1_000 })));
    const short = docker.run(docker.assigned(taskSpec({ command: ['sh', '-c', 'sleep 2; echo bye; exit 5'] })));
    await Promise.all([long.reached(TaskState.RUNNING), short.reached(TaskState.RUNNING)]);
    // The agent goes (as if killed): nothing is stopped.
    docker.executor.close();
    await eventually('the short task exits while no agent is there', async () => (await docker.containers(short.task.id))[0]?.State === 'exited');
    docker.executor = docker.newExecutor();
    const longAgain = docker.run(long.task, { adopt: true });
    // Its exit is reported as it was, though the managers want it shut down by now (its node was down).
    const shortAgain = docker.run(short.task, { adopt: true, desired: TaskState.SHUTDOWN });
    await longAgain.reached(TaskState.RUNNING);
    expect(await shortAgain.reached(TaskState.COMPLETE)).toMatchObject({ state: TaskState.FAILED, exitCode: 5 });
    await eventually('the adopted task’s log has what it wrote before', () => longAgain.text().includes('before\n'));
    await eventually('the exited task’s log has what it wrote', () => shortAgain.text().includes('bye\n'));
    expect(await docker.containers(long.task.id)).toHaveLength(1);
    expect(await docker.containers(short.task.id)).toHaveLength(1);
    // Adopted, it is the agent's to stop as any other.
    await longAgain.runner.stop();
    expect(longAgain.runner.status.state).toBe(TaskState.SHUTDOWN);
  });

  it('an adopted task whose container is gone fails, and starts nothing', async () => {
    const task = docker.assigned(taskSpec({ command: ['sleep', '1000'] }));
    const run = docker.run(task, { adopt: true });
    expect(await run.reached(TaskState.COMPLETE)).toMatchObject({ state: TaskState.FAILED, err: expect.stringContaining('its container is gone') });
    expect(await docker.containers(task.id)).toEqual([]);
  });

  it('removes the containers of tasks the node no longer has, and keeps those it has', async () => {
    const kept = docker.run(docker.assigned(taskSpec({ command: ['sleep', '1000'] })));
    const dropped = docker.run(docker.assigned(taskSpec({ command: ['sleep', '1000'] })));
    await Promise.all([kept.reached(TaskState.RUNNING), dropped.reached(TaskState.RUNNING)]);
    docker.executor.close();
    docker.executor = docker.newExecutor();
    docker.executor.keepOnly(new Set([kept.task.id]));
    await eventually('the dropped task’s container is gone', async () => (await docker.containers(dropped.task.id)).length === 0);
    expect(await docker.containers(kept.task.id)).toHaveLength(1);
  });

  it('puts tasks on a Shoal network on a bridge with the allocator’s subnet and addresses, one reaches the other by address, and the bridge goes with the last container on it', async () => {
    const name = `t${randomUUID().slice(0, 8)}`;
    const prefix = `10.${randomInt(200, 250)}.${randomInt(0, 256)}`;
    const network = { id: `net${randomUUID().slice(0, 8)}`, name, subnet: `${prefix}.0/24`, gateway: `${prefix}.1` };
    const engineName = `shoal-${name}`;
    const onNetwork = (address: string) => ({ networks: [{ ...network, addresses: [`${address}/24`] }] });
    try {
      const web = docker.run({ ...docker.assigned(taskSpec({ image: WEB_IMAGE, stopGracePeriodMs: 1_000 }), { slot: 1 }), ...onNetwork(`${prefix}.10`) });
      await web.reached(TaskState.RUNNING);
      const [container] = await docker.containers(web.task.id);
      const endpoint = (await inspect(container!.Id)).NetworkSettings.Networks[engineName];
      expect(endpoint?.IPAddress).toBe(`${prefix}.10`);
      expect(endpoint?.Aliases).toEqual(expect.arrayContaining(['test-svc', `test-svc.1.${web.task.id}`]));
      const bridge = await docker.engine.call<{ Driver: string; Labels: Record<string, string>; IPAM: { Config: { Subnet: string; Gateway: string }[] } }>('GET', `/networks/${engineName}`);
      expect(bridge).toMatchObject({ Driver: 'bridge', Labels: { [NETWORK_LABELS.networkId]: network.id }, IPAM: { Config: [{ Subnet: network.subnet, Gateway: network.gateway }] } });

      const client = docker.run({ ...docker.assigned(taskSpec({ command: ['sh', '-c', `ip -4 addr show eth0; wget -qO- http://${prefix}.10/`] }), { slot: 2 }), ...onNetwork(`${prefix}.11`) });
      expect(await client.reached(TaskState.COMPLETE)).toMatchObject({ state: TaskState.COMPLETE, exitCode: 0 });
      await eventually('the client’s output', () => client.text().includes(WEB_INDEX_TEXT));
      expect(client.text()).toContain(`inet ${prefix}.11/24`);

      // The client's container has exited and is still there: the network stays for it.
      await web.runner.remove();
      expect(await docker.engine.find('GET', `/networks/${engineName}`)).toBeDefined();
      await client.runner.remove();
      expect(await docker.engine.find('GET', `/networks/${engineName}`)).toBeUndefined();
    } finally {
      await docker.cleanUp();
      await docker.engine.call('DELETE', `/networks/${engineName}`).catch(() => undefined);
    }
  });
});
