/**
 * Real containers: Shoal as separate processes on the real broker, and two agents on the
 * docker executor (`shoal agent --executor docker`), nodes dock-a and dock-b, each its own
 * node on the test engine (SHOAL_TEST_ENGINE). What the docker CLI asks of Shoal is checked
 * where it happens: in the engine's containers (and networks).
 */
import { randomInt } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerOutput } from '../../libs/testing/src/processes/docker-cli';
import { WEB_IMAGE, WEB_INDEX_TEXT } from '../../libs/testing/src/engine/test-images';
import { eventually } from '../../libs/testing/src/eventually';
import { ShoalCluster } from '../../libs/testing/src/processes/shoal-cluster';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { ConfigFiles } from '../../apps/agent/src/docker/config-files';
import { LABELS } from '../../apps/agent/src/docker/container-config';
import { EngineClient } from '../../apps/agent/src/docker/engine-client';
import { freePort, httpGet, BUSYBOX, testEngine } from '../../apps/agent/src/docker/testing/docker-harness';

const CONVERGE_MS = 60_000;

interface Container {
  readonly Id: string;
  readonly Names: string[];
  readonly State: string;
  readonly Labels: Record<string, string>;
}

describe('real containers: two docker agents under Shoal as separate processes on Kafka', () => {
  const engineAddress = testEngine();
  const engine = new EngineClient(engineAddress);
  let deployment: ShoalProcesses;
  let cluster: ShoalCluster;
  let token: string;
  const stateDirs: Record<string, string> = {};
  const agents: Record<string, ShoalProcess> = {};

  const ok = async (...args: string[]): Promise<string> => dockerOutput(args, await cluster.docker(args, { timeoutMs: CONVERGE_MS }));
  const until = <T>(what: string, probe: () => Promise<T | undefined | false>, timeoutMs = CONVERGE_MS): Promise<T> => eventually(what, probe, { timeoutMs, everyMs: 250 });
  const nodeIdOf = (name: string): string => readFileSync(join(stateDirs[name]!, 'node-id'), 'utf8').trim();
  /** The containers of a service on this test's two nodes. */
  const containersOf = async (service: string, state?: string): Promise<Container[]> => {
    const all = await engine.call<Container[]>('GET', '/containers/json', { query: { all: 1, filters: JSON.stringify({ label: [`${LABELS.serviceName}=${service}`] }) } });
    const ours = new Set(Object.keys(stateDirs).map(nodeIdOf));
    return all.filter((c) => ours.has(c.Labels[LABELS.nodeId]!) && (state === undefined || c.State === state));
  };
  const startAgent = (name: string): ShoalProcess => {
    stateDirs[name] ??= mkdtempSync(join(tmpdir(), `shoal-docker-agent-${name}-`));
    agents[name] = deployment.cli([
      'agent', '--executor', 'docker', '--engine', engineAddress, '--publish-address', '127.0.0.1', '--hostname', name,
      '--join-token', token, '--dispatcher', cluster.dispatchers, '--state-dir', stateDirs[name]!,
    ]);
    return agents[name]!;
  };
  /** A task line of `docker service ps`. */
  const ps = async (service: string): Promise<{ Name: string; Node: string; DesiredState: string; CurrentState: string; Error: string }[]> =>
    (await ok('service', 'ps', '--no-trunc', '--format', '{{json .}}', service)).trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as never);

  beforeAll(async () => {
    deployment = ShoalProcesses.onKafka('docker-executor', { SHOAL_HEALTH_PORT: '0', SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
    cluster = await ShoalCluster.start(deployment);
    token = await cluster.workerToken();
    await Promise.all(['dock-a', 'dock-b'].map((name) => startAgent(name).waitFor(/joined the dispatcher/, 90_000)));
  }, 180_000);

  afterAll(async () => {
    await deployment?.close();
    for (const name of Object.keys(stateDirs)) {
      for (const container of await engine.call<Container[]>('GET', '/containers/json', { query: { all: 1, filters: JSON.stringify({ label: [`${LABELS.nodeId}=${nodeIdOf(name)}`] }) } })) {
        await engine.call('DELETE', `/containers/${container.Id}`, { query: { force: 1, v: 1 } }).catch(() => undefined);
        // Its config files, which the agents (stopped) left on tmpfs for the next agent of the node.
        await new ConfigFiles().remove(container.Labels[LABELS.taskId]!);
      }
      rmSync(stateDirs[name]!, { recursive: true, force: true });
    }
  });

  it('the nodes are described by the engine', async () => {
    const nodes = await until('both docker nodes are ready', async () => {
      const ls = (await ok('node', 'ls', '--filter', 'role=worker', '--format', '{{.Hostname}} {{.Status}} {{.EngineVersion}}')).trim().split('\n').sort();
      return ls.length === 2 && ls.every((line) => / Ready /.test(line)) ? ls : undefined;
    });
    expect(nodes.map((line) => line.split(' ')[0])).toEqual(['dock-a', 'dock-b']);
    const info = await engine.call<{ ServerVersion: string; NCPU: number }>('GET', '/info');
    expect(nodes[0]).toContain(info.ServerVersion);
    expect(await ok('node', 'inspect', '--format', '{{.Description.Resources.NanoCPUs}}', 'dock-a')).toBe(`${info.NCPU * 1e9}\n`);
  });

  it('a replicated service of real containers scales, rolls an update forward and back, and its logs show what the containers printed', async () => {
    await ok('service', 'create', '-d', '--name', 'app', '--replicas', '3', '--stop-grace-period', '1s', '--update-monitor', '1s', '-e', 'COLOR=red', BUSYBOX, 'sh', '-c', 'echo color=$COLOR; exec sleep 1000');
    const three = await until('three app containers run', async () => ((await containersOf('app', 'running')).length === 3 ? containersOf('app', 'running') : undefined));
    expect(new Set(three.map((c) => c.Labels[LABELS.nodeId])).size).toBe(2);
    for (const container of three) expect(container.Names[0]).toMatch(/^\/app\.[1-3]\.[0-9a-z]+$/);
    await until('the logs show each container’s line', async () => ((await ok('service', 'logs', 'app')).match(/color=red/g)?.length === 3 ? true : undefined));
    await ok('service', 'scale', '-d', 'app=1');
    const [before] = await until('one app container runs', async () => ((await containersOf('app', 'running')).length === 1 ? containersOf('app', 'running') : undefined));
    await ok('service', 'update', '-d', '--env-add', 'COLOR=blue', 'app');
    const [updated] = await until('the update replaced the container', async () => {
      const running = await containersOf('app', 'running');
      return running.length === 1 && running[0]!.Id !== before!.Id ? running : undefined;
    });
    await until('the new container’s line is in the logs', async () => ((await ok('service', 'logs', 'app')).includes('color=blue') ? true : undefined));
    const env = (await engine.call<{ Config: { Env: string[] } }>('GET', `/containers/${updated!.Id}/json`)).Config.Env;
    expect(env).toContain('COLOR=blue');
    await ok('service', 'rollback', '-d', 'app');
    const [rolledBack] = await until('the rollback replaced it again', async () => {
      const running = await containersOf('app', 'running');
      return running.length === 1 && running[0]!.Id !== updated!.Id ? running : undefined;
    });
    expect((await engine.call<{ Config: { Env: string[] } }>('GET', `/containers/${rolledBack!.Id}/json`)).Config.Env).toContain('COLOR=red');
  });

  it('a config and secrets are files in the container (the secrets in memory), served on a published host port that answers', async () => {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'shoal-e2e-config-'));
    writeFileSync(join(dir, 'index.html'), '<h1>from a shoal config</h1>\n');
    writeFileSync(join(dir, 'token'), 'the-secret-token\n');
    await ok('config', 'create', 'index', join(dir, 'index.html'));
    await ok('secret', 'create', 'web-token', join(dir, 'token'));
    rmSync(dir, { recursive: true, force: true });
    await ok(
      'service', 'create', '-d', '--name', 'web', '--stop-grace-period', '1s', '--config', 'src=index,target=/www/index.html',
      '--secret', 'src=web-token,target=/www/token.txt', '--secret', 'web-token', '-p', `mode=host,published=${port},target=80`, BUSYBOX, 'httpd', '-f', '-v', '-p', '80', '-h', '/www',
    );
    expect(await until('the port answers', () => httpGet(port).catch(() => undefined))).toBe('<h1>from a shoal config</h1>\n');
    expect(await httpGet(port, '/token.txt')).toBe('the-secret-token\n');
    // The secret named without a target is at /run/secrets/<name>, bound read-only from tmpfs, as Docker's.
    const [web] = await containersOf('web', 'running');
    const mounts = (await engine.call<{ Mounts: { Source: string; Destination: string; RW: boolean }[] }>('GET', `/containers/${web!.Id}/json`)).Mounts;
    expect(mounts.find((mount) => mount.Destination === '/run/secrets/web-token')).toMatchObject({ Source: expect.stringMatching(/^\/dev\/shm\//), RW: false });
    // httpd says it on stderr, which `docker service logs` prints on its own stderr.
    await until('the request is in the service’s logs', async () => ((await cluster.docker(['service', 'logs', 'web'])).stderr.includes('response:200') ? true : undefined));
  });

  it('a task that exits non-zero under on-failure is restarted, up to its attempts', async () => {
    await ok('service', 'create', '-d', '--name', 'flaky', '--restart-condition', 'on-failure', '--restart-max-attempts', '1', '--restart-delay', '100ms', BUSYBOX, 'sh', '-c', 'echo trying; exit 3');
    const failed = await until('two failed attempts', async () => {
      const tasks = await ps('flaky');
      return tasks.filter((t) => t.CurrentState.startsWith('Failed')).length === 2 ? tasks : undefined;
    });
    for (const task of failed) expect(task.Error).toContain('task exited with code 3');
    expect((await containersOf('flaky')).length).toBe(2);
  });

  it('a task whose healthcheck fails is FAILED, its container stopped, and replaced', async () => {
    await ok('service', 'create', '-d', '--name', 'sick', '--health-cmd', 'false', '--health-interval', '200ms', '--health-retries', '1', '--restart-delay', '100ms', '--stop-grace-period', '1s', BUSYBOX, 'sleep', '1000');
    const failed = await until('two unhealthy attempts failed', async () => {
      const tasks = (await ps('sick')).filter((t) => t.CurrentState.startsWith('Failed'));
      return tasks.length >= 2 ? tasks : undefined;
    });
    for (const task of failed) expect(task.Error).toContain('the container is unhealthy');
    const [container] = await containersOf('sick');
    expect((await engine.call<{ Config: { Healthcheck: { Test: string[] } } }>('GET', `/containers/${container!.Id}/json`)).Config.Healthcheck.Test).toEqual(['CMD-SHELL', 'false']);
    await ok('service', 'rm', 'sick');
  });

  it('a global service runs one container on each node; draining a node moves the replicated tasks off it', async () => {
    await ok('service', 'create', '-d', '--name', 'everywhere', '--mode', 'global', '--stop-grace-period', '1s', BUSYBOX, 'sleep', '1000');
    const global = await until('one container per node', async () => ((await containersOf('everywhere', 'running')).length === 2 ? containersOf('everywhere', 'running') : undefined));
    expect(new Set(global.map((c) => c.Labels[LABELS.nodeId]))).toEqual(new Set([nodeIdOf('dock-a'), nodeIdOf('dock-b')]));
    for (const container of global) expect(container.Names[0]).toBe(`/everywhere.${container.Labels[LABELS.nodeId]}.${container.Labels[LABELS.taskId]}`);
    await ok('service', 'scale', '-d', 'app=2');
    await until('two app containers run', async () => (await containersOf('app', 'running')).length === 2);
    await ok('node', 'update', '--availability', 'drain', 'dock-b');
    await until('nothing runs on dock-b', async () => {
      const running = [...(await containersOf('app', 'running')), ...(await containersOf('everywhere', 'running'))];
      return running.every((c) => c.Labels[LABELS.nodeId] === nodeIdOf('dock-a')) && (await containersOf('app', 'running')).length === 2;
    });
    await ok('node', 'update', '--availability', 'active', 'dock-b');
  });

  it('kill -9 of an agent and a restart: no container twice, and an exit while it was down is reported', async () => {
    await ok('service', 'create', '-d', '--name', 'brief', '--restart-condition', 'none', '--constraint', 'node.hostname==dock-a', BUSYBOX, 'sh', '-c', 'sleep 4; echo done');
    await until('brief runs', async () => (await containersOf('brief', 'running')).length === 1);
    const appBefore = (await containersOf('app', 'running')).map((c) => c.Id).sort();
    await agents['dock-a']!.crash();
    await until('brief exits while dock-a has no agent', async () => (await containersOf('brief', 'exited')).length === 1);
    await startAgent('dock-a').waitFor(/joined the dispatcher/, 90_000);
    const [task] = await until('brief is reported complete', async () => {
      const tasks = await ps('brief');
      return tasks.length === 1 && tasks[0]!.CurrentState.startsWith('Complete') ? tasks : undefined;
    });
    expect(task!.Error).toBe('');
    // No task has two containers, and the app runs its two replicas, not more (tasks dock-a had while it was down may have moved).
    await until('the app runs two containers', async () => (await containersOf('app', 'running')).length === 2);
    const taskIds = (await containersOf('app')).map((c) => c.Labels[LABELS.taskId]);
    expect(new Set(taskIds).size).toBe(taskIds.length);
    expect(appBefore.length).toBe(2);
    expect(await containersOf('brief')).toHaveLength(1);
  });

  it('a Shoal network is a bridge on the node with the allocator’s subnet: each task at its allocated address, one reaches another by its service’s name and its address, an ingress-mode port answers on the node, and the bridge goes with the last', async () => {
    // A subnet of the test's own: the engine (in swarm mode) has its own ingress on 10.0.0.0/24.
    const prefix = `10.${randomInt(200, 250)}.${randomInt(0, 256)}`;
    await ok('network', 'create', '--driver', 'overlay', '--subnet', `${prefix}.0/24`, 'backend');
    const port = await freePort();
    // Its port published in ingress mode: on the node that runs it; the ingress network is not made there.
    await ok('service', 'create', '-d', '--name', 'netweb', '--network', 'backend', '-p', `published=${port},target=80`, '--constraint', 'node.hostname==dock-a', '--stop-grace-period', '1s', WEB_IMAGE);
    const [web] = await until('netweb runs', async () => ((await containersOf('netweb', 'running')).length === 1 ? containersOf('netweb', 'running') : undefined));
    const networks = (await engine.call<{ NetworkSettings: { Networks: Record<string, { IPAddress: string }> } }>('GET', `/containers/${web!.Id}/json`)).NetworkSettings.Networks;
    expect(Object.keys(networks)).toEqual(['shoal-backend']);
    expect(await until('the published port answers', () => httpGet(port).catch(() => undefined))).toContain(WEB_INDEX_TEXT);
    const endpoint = networks['shoal-backend'];
    const attachments = JSON.parse(await ok('inspect', '--type', 'task', '--format', '{{json .NetworksAttachments}}', web!.Labels[LABELS.taskId]!)) as { Network: { Spec: { Name: string } }; Addresses: string[] }[];
    const allocated = attachments.find((attachment) => attachment.Network.Spec.Name === 'backend')!.Addresses[0]!;
    expect(allocated.startsWith(`${prefix}.`)).toBe(true);
    expect(`${endpoint!.IPAddress}/24`).toBe(allocated);
    const address = endpoint!.IPAddress;
    await ok('service', 'create', '-d', '--name', 'netclient', '--network', 'backend', '--constraint', 'node.hostname==dock-a', '--restart-condition', 'none', BUSYBOX, 'sh', '-c', `wget -qO- http://netweb/ && echo fetched by name; wget -qO- http://${address}/ && echo fetched by address`);
    const logs = await until('the client fetched the page by name and by address', async () => {
      const text = await ok('service', 'logs', 'netclient');
      return text.includes('fetched by name') && text.includes('fetched by address') ? text : undefined;
    });
    expect(logs).toContain(WEB_INDEX_TEXT);
    await ok('service', 'rm', 'netweb', 'netclient');
    await until('the bridge goes with the last task', async () => ((await engine.find('GET', '/networks/shoal-backend')) === undefined ? true : undefined));
  });
});
