/**
 * The real docker CLI (v28, unmodified) against Shoal deployed as separate processes on
 * the real broker: the API, the allocator, the orchestrator, the scheduler, the reaper and
 * the dispatcher each `shoal run <component>`, and agent processes of simulated nodes.
 * Each story is what a user types and sees — non-detached commands wait for the CLI's own
 * progress display to converge — and what really happened to the tasks on the nodes.
 *
 * The fleet: node-1 … node-4 with 2 CPUs and 1 GiB each; engine label zone=a on node-1
 * and zone=b on the three others, so spreading over zones differs from spreading over nodes.
 */
import { dockerOutput } from '../../libs/testing/src/processes/docker-cli';
import { eventually } from '../../libs/testing/src/eventually';
import { ShoalCluster } from '../../libs/testing/src/processes/shoal-cluster';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';

/** A line of `docker service ps --format '{{json .}}'`. */
interface PsLine {
  readonly ID: string;
  readonly Name: string;
  readonly Image: string;
  readonly Node: string;
  readonly DesiredState: string;
  readonly CurrentState: string;
  readonly Error: string;
}

const CONVERGE_MS = 60_000;
const NODES = ['node-1', 'node-2', 'node-3', 'node-4'];

describe('the docker CLI against Shoal as separate processes on Kafka', () => {
  let deployment: ShoalProcesses;
  let cluster: ShoalCluster;
  let since = 0;

  /** `docker <args>`, bounded; its output, or an error with what it said. */
  const ok = async (...args: string[]): Promise<string> => dockerOutput(args, await cluster.docker(args, { timeoutMs: CONVERGE_MS }));
  const lines = (out: string): string[] => out.trim().split('\n').filter(Boolean);
  /** Every task of a service (`docker service ps --no-trunc`), or only those meant to run. */
  const ps = async (service: string, filter: 'all' | 'running' = 'all'): Promise<PsLine[]> =>
    lines(await ok('service', 'ps', '--no-trunc', ...(filter === 'running' ? ['--filter', 'desired-state=running'] : []), '--format', '{{json .}}', service)).map(
      (line) => JSON.parse(line) as PsLine,
    );
  /** Tasks meant to run and running, once there are `count` of them (and no other meant to run). */
  const runningTasks = (service: string, count: number) => async (): Promise<PsLine[] | undefined> => {
    const tasks = await ps(service, 'running');
    return tasks.length === count && tasks.every((t) => t.CurrentState.startsWith('Running')) ? tasks : undefined;
  };
  const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = CONVERGE_MS): Promise<T> => eventually(what, probe, { timeoutMs, everyMs: 250 });
  const countBy = (values: readonly string[]): Record<string, number> => {
    const counts: Record<string, number> = {};
    for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
    return counts;
  };
  /** Non-detached: the CLI's progress display has seen the service converge. */
  const expectConverged = (out: string): void => expect(out).toMatch(/verify: Service \S+ converged/);

  beforeAll(async () => {
    since = Math.floor(Date.now() / 1000) - 1;
    deployment = ShoalProcesses.onKafka('docker-cluster', { SHOAL_HEALTH_PORT: '0', SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
    cluster = await ShoalCluster.start(deployment);
    await cluster.agent('node-', { nodes: 4, args: ['--cpus', '2', '--memory', '1GiB', '--label-cycle', 'zone=a,b,b,b'] });
  }, 180_000);
  afterAll(() => deployment?.close());

  it('docker info and docker node ls / inspect show the swarm and the agents\' nodes', async () => {
    const ready = await until('four nodes are ready', async () => {
      const ls = lines(await ok('node', 'ls', '--filter', 'role=worker', '--format', '{{.Hostname}} {{.Status}} {{.Availability}}')).sort();
      return ls.length === 4 && ls.every((line) => line.endsWith(' Ready Active')) ? ls : undefined;
    });
    expect(ready).toEqual(NODES.map((name) => `${name} Ready Active`));
    const info = JSON.parse(await ok('info', '--format', '{{json .Swarm}}')) as { LocalNodeState: string; ControlAvailable: boolean; Nodes: number };
    expect(info).toMatchObject({ LocalNodeState: 'active', ControlAvailable: true, Nodes: 5 }); // the four agents' nodes and the control plane, as node ls lists them
    expect(await ok('info')).toMatch(/Swarm: active[\s\S]*Is Manager: true/);
    expect(await ok('node', 'inspect', '--format', '{{.Description.Resources.MemoryBytes}} {{.Description.Resources.NanoCPUs}} {{index .Description.Engine.Labels "zone"}}', 'node-1', 'node-2')).toBe(
      `${2 ** 30} 2000000000 a\n${2 ** 30} 2000000000 b\n`,
    );
  });

  it('service create --constraint (non-detached) converges with every task on a node the constraint admits', async () => {
    expect(await ok('node', 'update', '--label-add', 'tier=db', 'node-2')).toBe('node-2\n');
    await ok('node', 'update', '--label-add', 'tier=db', 'node-3');
    expect(await ok('node', 'inspect', '--format', '{{index .Spec.Labels "tier"}}', 'node-2')).toBe('db\n');
    const created = await ok('service', 'create', '--name', 'db', '--replicas', '4', '--constraint', 'node.labels.tier==db', '--update-monitor', '1s', 'redis:7');
    expect(created).toMatch(/overall progress: 4 out of 4 tasks/);
    expectConverged(created);
    const tasks = await runningTasks('db', 4)();
    expect(tasks).toBeDefined();
    expect(countBy(tasks!.map((t) => t.Node))).toEqual({ 'node-2': 2, 'node-3': 2 });
  });

  it('service create --placement-pref spreads over zones, not nodes; -p, --restart-condition, --update-*, --rollback-* land in the spec', async () => {
    const created = await ok(
      'service', 'create', '--name', 'web', '--replicas', '4', '--placement-pref', 'spread=engine.labels.zone', '-p', '8080:80',
      '--restart-condition', 'any', '--restart-delay', '100ms',
      '--update-parallelism', '2', '--update-delay', '0s', '--update-monitor', '1s', '--update-failure-action', 'rollback', '--update-order', 'stop-first',
      '--rollback-parallelism', '2', '--rollback-delay', '0s', '--rollback-monitor', '1s', '--rollback-order', 'stop-first',
      'nginx:1.27',
    );
    expectConverged(created);
    const tasks = (await until('four web tasks run', runningTasks('web', 4)));
    // Zone a is node-1 alone: half the tasks go there; zone b's half spreads over its three nodes.
    const perNode = countBy(tasks.map((t) => t.Node));
    expect(perNode['node-1']).toBe(2);
    expect(tasks.filter((t) => t.Node !== 'node-1')).toHaveLength(2);
    const [web] = JSON.parse(await ok('service', 'inspect', 'web')) as { Spec: Record<string, unknown>; Endpoint: { Ports?: unknown[] } }[];
    expect(web!.Spec).toMatchObject({
      TaskTemplate: { RestartPolicy: { Condition: 'any', Delay: 100_000_000 }, Placement: { Preferences: [{ Spread: { SpreadDescriptor: 'engine.labels.zone' } }] } },
      UpdateConfig: { Parallelism: 2, FailureAction: 'rollback', Monitor: 1_000_000_000 },
      RollbackConfig: { Parallelism: 2, Monitor: 1_000_000_000 },
      EndpointSpec: { Ports: [{ TargetPort: 80, PublishedPort: 8080 }] },
    });
    expect(await ok('service', 'ls', '--filter', 'name=web', '--format', '{{.Name}} {{.Mode}} {{.Replicas}} {{.Image}} {{.Ports}}')).toBe('web replicated 4/4 nginx:1.27 *:8080->80/tcp\n');
  });

  it('service update --image replaces the tasks with the new image; rollback returns to the old one; scale adds tasks', async () => {
    const before = new Set((await ps('web', 'running')).map((t) => t.ID));
    expectConverged(await ok('service', 'update', '--image', 'nginx:1.28', 'web'));
    const updated = await until('four nginx:1.28 tasks run', runningTasks('web', 4));
    expect(updated.every((t) => t.Image === 'nginx:1.28' && !before.has(t.ID))).toBe(true);
    // The replaced tasks were shut down, not forgotten.
    const replaced = (await ps('web')).filter((t) => before.has(t.ID));
    expect(replaced).toHaveLength(4);
    expect(replaced.every((t) => t.DesiredState === 'Shutdown' && t.Image === 'nginx:1.27')).toBe(true);

    const rolledBack = await ok('service', 'rollback', 'web');
    expect(rolledBack).toMatch(/rollback: manually requested rollback/);
    expectConverged(rolledBack);
    const back = await until('four nginx:1.27 tasks run', runningTasks('web', 4));
    expect(back.every((t) => t.Image === 'nginx:1.27' && !before.has(t.ID))).toBe(true);
    expect(await ok('service', 'inspect', '--format', '{{.Spec.TaskTemplate.ContainerSpec.Image}}', 'web')).toBe('nginx:1.27\n');

    expect(await ok('service', 'scale', 'web=6')).toMatch(/web scaled to 6[\s\S]*verify: Service web converged/);
    const scaled = await until('six web tasks run', runningTasks('web', 6));
    expect(scaled.map((t) => t.ID)).toEqual(expect.arrayContaining(back.map((t) => t.ID)));
    expect(await ok('service', 'ls', '--filter', 'name=web', '--format', '{{.Replicas}}')).toBe('6/6\n');
  });

  it('an update whose tasks fail within --update-monitor is rolled back (--update-failure-action rollback), as the CLI shows', async () => {
    const failing = await ok('service', 'update', '--env-add', 'SIM_RUN_FOR=300ms', '--env-add', 'SIM_EXIT_CODE=1', 'web');
    expect(failing).toMatch(/rollback: update rolled back due to failure or early termination of task \S+/);
    expect(failing).toMatch(/overall progress: rolling back update: 6 out of 6 tasks/);
    expectConverged(failing);
    expect(await ok('service', 'inspect', '--format', '{{.UpdateStatus.State}} {{.Spec.TaskTemplate.ContainerSpec.Env}}', 'web')).toBe('rollback_completed []\n');
    // What runs now is the spec from before the update: no task carries the failing environment.
    const back = await until('six web tasks run', runningTasks('web', 6));
    const envs = lines(await ok('inspect', '--type', 'task', '--format', '{{.Spec.ContainerSpec.Image}} {{.Spec.ContainerSpec.Env}}', ...back.map((t) => t.ID)));
    expect(envs).toEqual(back.map(() => 'nginx:1.27 []'));
    // The tasks of the failed update ran and failed.
    const failed = (await ps('web')).filter((t) => t.CurrentState.startsWith('Failed'));
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((t) => t.Error === '"task exited with code 1"' && t.DesiredState === 'Shutdown')).toBe(true);
  });

  it('service create --mode global runs one task on every node', async () => {
    expectConverged(await ok('service', 'create', '--name', 'monitor', '--mode', 'global', '--update-monitor', '1s', 'busybox:1.36', 'sleep', '3600'));
    const tasks = await until('one monitor task per node', runningTasks('monitor', 4));
    expect(tasks.map((t) => t.Node).sort()).toEqual(NODES);
    expect(await ok('service', 'ls', '--filter', 'mode=global', '--format', '{{.Name}} {{.Replicas}}')).toBe('monitor 4/4\n');
  });

  it('service create --reserve-memory places no task where the memory is not left, and says why', async () => {
    // 1 GiB per node: one 600 MB reservation fits on each of the four, the fifth on none.
    expect((await ok('service', 'create', '--detach', '--name', 'big', '--replicas', '5', '--reserve-memory', '600M', 'postgres:16')).trim()).toMatch(/^[0-9a-z]{25}$/);
    const refused = await until('four big tasks run and the fifth is refused', async () => {
      const tasks = await ps('big');
      const running = tasks.filter((t) => t.CurrentState.startsWith('Running'));
      const pending = tasks.filter((t) => t.CurrentState.startsWith('Pending') && t.Error !== '');
      return running.length === 4 && pending.length === 1 && tasks.length === 5 ? { running, pending: pending[0]! } : undefined;
    });
    expect(refused.running.map((t) => t.Node).sort()).toEqual(NODES);
    expect(refused.pending.Node).toBe('');
    expect(refused.pending.Error).toMatch(/no suitable node \(insufficient resources on 4 nodes\)/);
    expect(await ok('service', 'ls', '--filter', 'name=big', '--format', '{{.Replicas}}')).toBe('4/5\n');
  });

  it('service rm removes the service and its tasks stop on the nodes', async () => {
    const id = (await ok('service', 'inspect', '--format', '{{.ID}}', 'big')).trim();
    expect(await ok('service', 'rm', 'big')).toBe('big\n');
    const gone = await cluster.docker(['service', 'ps', 'big'], { timeoutMs: CONVERGE_MS });
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toMatch(/no such service: big/);
    // The agents stop the tasks and the reaper deletes them.
    await until('no task of the removed service is left', async () => {
      const { body } = await cluster.request<{ ServiceID: string }[]>('GET', '/tasks');
      return body.some((t) => t.ServiceID === id) ? undefined : true;
    });
  });

  it('a crashing service is restarted per --restart-condition; one that ends well is not', async () => {
    await ok('service', 'create', '--detach', '--name', 'crashy', '--env', 'SIM_RUN_FOR=200ms', '--env', 'SIM_EXIT_CODE=1',
      '--restart-condition', 'on-failure', '--restart-delay', '100ms', '--restart-max-attempts', '2', 'alpine:3.20');
    await ok('service', 'create', '--detach', '--name', 'oneshot', '--env', 'SIM_RUN_FOR=200ms', '--env', 'SIM_EXIT_CODE=0',
      '--restart-condition', 'on-failure', '--restart-delay', '100ms', 'alpine:3.20');
    // Each failure shuts its task down; the first two get a replacement, the third has used up the attempts.
    const crashed = await until('the crashing task ran three times, failed each time, and was given up on', async () => {
      const tasks = await ps('crashy');
      return tasks.length === 3 && tasks.every((t) => t.CurrentState.startsWith('Failed') && t.DesiredState === 'Shutdown') ? tasks : undefined;
    });
    // The CLI quotes a task's error.
    expect(crashed.every((t) => t.Name === 'crashy.1' && t.Error === '"task exited with code 1"')).toBe(true);
    const done = await until('the one-shot task completed', async () => {
      const tasks = await ps('oneshot');
      return tasks.some((t) => t.CurrentState.startsWith('Complete')) ? tasks : undefined;
    });
    expect(done).toHaveLength(1);
    expect(await ps('crashy')).toHaveLength(3);
    expect(await ok('service', 'ls', '--filter', 'name=crashy', '--format', '{{.Replicas}}')).toBe('0/1\n');
    expect(await ok('service', 'rm', 'crashy', 'oneshot')).toBe('crashy\noneshot\n');
  });

  it('swarm update --task-history-limit bounds the old tasks the reaper keeps', async () => {
    expect(await ok('swarm', 'update', '--task-history-limit', '2')).toMatch(/Swarm updated/);
    expect(await ok('info', '--format', '{{.Swarm.Cluster.Spec.Orchestration.TaskHistoryRetentionLimit}}')).toBe('2\n');
    await ok('service', 'create', '--detach', '--name', 'flappy', '--env', 'SIM_RUN_FOR=200ms', '--env', 'SIM_EXIT_CODE=1',
      '--restart-condition', 'any', '--restart-delay', '100ms', 'alpine:3.20');
    const seen = new Set<string>();
    const kept = await until('six tasks have come and gone while the slot keeps two', async () => {
      const tasks = await ps('flappy');
      for (const t of tasks) seen.add(t.ID);
      return seen.size >= 6 && tasks.length <= 2 ? tasks : undefined;
    });
    expect(kept.every((t) => t.Name === 'flappy.1')).toBe(true);
    expect(await ok('service', 'rm', 'flappy')).toBe('flappy\n');
  });

  it('node update --availability drain moves the node\'s tasks away', async () => {
    expect((await ps('web', 'running')).some((t) => t.Node === 'node-1')).toBe(true);
    expect(await ok('node', 'update', '--availability', 'drain', 'node-1')).toBe('node-1\n');
    const moved = await until('six web tasks run, none on node-1, and node-1 has no monitor task', async () => {
      const web = await runningTasks('web', 6)();
      const monitor = await runningTasks('monitor', 3)();
      return web && monitor && [...web, ...monitor].every((t) => t.Node !== 'node-1') ? { web, monitor } : undefined;
    });
    expect(moved.monitor.map((t) => t.Node).sort()).toEqual(['node-2', 'node-3', 'node-4']);
    expect(await ok('node', 'ls', '--filter', 'name=node-1', '--format', '{{.Availability}}')).toBe('Drain\n');
  });

  it('swarm join-token --rotate: the old token no longer joins a node, the new one does; node rm removes it once down', async () => {
    const old = (await ok('swarm', 'join-token', '-q', 'worker')).trim();
    expect(await ok('swarm', 'join-token', 'worker')).toContain(`docker swarm join --token ${old}`);
    expect(await ok('swarm', 'join-token', '--rotate', 'worker')).toMatch(/Successfully rotated worker join token/);
    const rotated = (await ok('swarm', 'join-token', '-q', 'worker')).trim();
    expect(rotated).not.toBe(old);

    const refused = await cluster.agent('stale-', { nodes: 1, token: old });
    expect(await until('the agent with the old token has given up', async () => refused.exitCode ?? undefined)).not.toBe(0);
    expect(refused.output).toMatch(/the dispatcher at 127\.0\.0\.1:\d+ refused the join token/);

    const late = await cluster.agent('late-', { nodes: 1, token: rotated });
    await until('late-1 is ready', async () => ((await ok('node', 'ls', '--format', '{{.Hostname}} {{.Status}}')).includes('late-1 Ready') ? true : undefined));
    expect(await ok('node', 'ls', '--format', '{{.Hostname}}')).not.toMatch(/stale-/);
    // The global service follows the new node.
    await until('a monitor task runs on late-1', async () => ((await ps('monitor', 'running')).some((t) => t.Node === 'late-1' && t.CurrentState.startsWith('Running')) ? true : undefined));

    const up = await cluster.docker(['node', 'rm', 'late-1'], { timeoutMs: CONVERGE_MS });
    expect(up.code).not.toBe(0);
    expect(up.stderr).toMatch(/is not down and can't be removed/);
    await late.crash();
    await until('late-1 is down', async () => ((await ok('node', 'ls', '--format', '{{.Hostname}} {{.Status}}')).includes('late-1 Down') ? true : undefined));
    expect(await ok('node', 'rm', 'late-1')).toBe('late-1\n');
    expect(lines(await ok('node', 'ls', '--format', '{{.Hostname}}')).sort()).toEqual([...NODES, 'shoal-manager']);
  });

  it('network create -d overlay, a service attached to it gets a VIP in its subnet, network rm once unused', async () => {
    const id = (await ok('network', 'create', '-d', 'overlay', '--subnet', '10.0.9.0/24', 'backend')).trim();
    expect(await ok('network', 'ls', '--filter', 'driver=overlay', '--format', '{{.Name}} {{.Driver}} {{.Scope}}')).toMatch(/^backend overlay swarm$/m);
    expectConverged(await ok('service', 'create', '--name', 'api', '--replicas', '2', '--network', 'backend', '--update-monitor', '1s', 'nginx:1.27'));
    const tasks = await until('two api tasks run', runningTasks('api', 2));
    // Each task got an address on the network from the allocator.
    const attachments = lines(await ok('inspect', '--type', 'task', '--format', '{{range .NetworksAttachments}}{{.Network.ID}} {{join .Addresses ","}}{{end}}', ...tasks.map((t) => t.ID)));
    const onBackend = expect.stringMatching(new RegExp(`^${id} 10\\.0\\.9\\.\\d+/24$`));
    expect(attachments).toEqual([onBackend, onBackend]);
    expect(new Set(attachments).size).toBe(2);
    const vips = JSON.parse(await ok('service', 'inspect', '--format', '{{json .Endpoint.VirtualIPs}}', 'api')) as { NetworkID: string; Addr: string }[];
    expect(vips).toContainEqual({ NetworkID: id, Addr: expect.stringMatching(/^10\.0\.9\.\d+\/24$/) });
    const refused = await cluster.docker(['network', 'rm', 'backend'], { timeoutMs: CONVERGE_MS });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/in use by service api/);
    await ok('service', 'rm', 'api');
    // As with Docker, the network stays in use until the removed service's tasks have stopped.
    const removed = await until('network rm succeeds once the tasks have stopped', async () => {
      const rm = await cluster.docker(['network', 'rm', 'backend'], { timeoutMs: CONVERGE_MS });
      if (rm.code !== 0 && !/in use by task/.test(rm.stderr)) throw new Error(`docker network rm backend failed: ${rm.stderr}`);
      return rm.code === 0 ? rm.stdout : undefined;
    });
    expect(removed).toBe('backend\n');
    expect(await ok('network', 'ls', '--format', '{{.Name}}')).not.toMatch(/backend/);
  });

  it('docker events --since --until prints the history of all that, and ends', async () => {
    const end = Math.ceil(Date.now() / 1000) + 1;
    const out = await ok('events', '--since', String(since), '--until', String(end), '--filter', 'type=service', '--filter', 'type=network', '--filter', 'type=node', '--format', '{{.Type}} {{.Action}} {{.Actor.Attributes.name}}');
    const history = lines(out);
    const creates = history.filter((line) => / create /.test(line));
    expect(creates).toEqual(expect.arrayContaining([...NODES, 'late-1'].map((name) => `node create ${name}`)));
    expect(history.filter((line) => line.startsWith('service create '))).toEqual(
      ['db', 'web', 'monitor', 'big', 'crashy', 'oneshot', 'flappy', 'api'].map((name) => `service create ${name}`),
    );
    for (const line of ['service update web', 'service remove big', 'node remove late-1', 'network create backend', 'network remove backend', 'service remove api']) expect(history).toContain(line);
    expect(history.indexOf('service remove api')).toBeLessThan(history.indexOf('network remove backend'));
    // The tasks' history too: each of the crashing service's three tasks ran, then failed.
    const crashy = lines(await ok('events', '--since', String(since), '--until', String(end), '--filter', 'type=task', '--filter', 'service=crashy', '--filter', 'event=update',
      '--format', '{{.Actor.Attributes.name}} {{index .Actor.Attributes "state.new"}}'));
    const failed = crashy.filter((line) => line.endsWith(' FAILED')).map((line) => line.split(' ')[0]);
    expect(new Set(failed).size).toBe(3);
    for (const name of failed) expect(crashy).toContain(`${name} RUNNING`);
  });

  it('the log the separate processes wrote audits clean', async () => {
    const verify = await cluster.request<{ agree: boolean; tally: { poison: number } }>('GET', '/shoal/v1/audit/verify');
    expect(verify.status).toBe(200);
    expect(verify.body).toMatchObject({ agree: true, tally: { poison: 0 } });
  });
});
