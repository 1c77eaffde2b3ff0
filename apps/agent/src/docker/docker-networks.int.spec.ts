/**
 * The docker executor's Shoal networks on a real engine (SHOAL_TEST_ENGINE), on the host
 * the test runs on: an internal network reaches nothing beyond its bridge, an engine
 * network that differs is refused, a service's tasks answer its name on the engine's DNS,
 * and a service's virtual IP answers from its tasks on the node (a task's own too), then
 * goes with them.
 */
import { spawnSync } from 'node:child_process';
import { randomInt, randomUUID } from 'node:crypto';
import type { AssignedNetwork } from '@shoal/contracts';
import { TaskState } from '@shoal/contracts';
import { eventually } from '@shoal/testing';
import { nodeChain } from './vip-rules';
import { DockerHarness, taskSpec } from './testing/docker-harness';
import type { RunningTask } from './testing/docker-harness';

/** A command of the host; its stdout, or an error with its stderr. */
const host = (command: string, args: readonly string[]): string => {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${result.stderr || result.error?.message}`);
  return result.stdout;
};

/** A Shoal network of the test's own: a random name and /24; `at(n, vip)` is a task's attachment at `.n`, its service's VIP at `.vip`. */
const shoalNetwork = (settings: Pick<AssignedNetwork, 'internal' | 'attachable'> = {}) => {
  const name = `t${randomUUID().slice(0, 8)}`;
  const prefix = `10.${randomInt(200, 250)}.${randomInt(0, 256)}`;
  const network: AssignedNetwork = { id: `net${randomUUID().slice(0, 8)}`, name, subnet: `${prefix}.0/24`, gateway: `${prefix}.1`, addresses: [], ...settings };
  const at = (n: number, vip?: number): AssignedNetwork => ({ ...network, addresses: [`${prefix}.${n}/24`], ...(vip === undefined ? {} : { virtualIp: `${prefix}.${vip}/24` }) });
  return { network, engineName: `shoal-${name}`, address: (n: number) => `${prefix}.${n}`, at };
};

/**
 * A host beyond the node: a network namespace of the test's own, joined to the node by a
 * veth pair (/30), its end routed back through the node. The node forwards to it as to
 * any address off its bridges.
 */
const hostBeyond = () => {
  const name = `shoal-t${randomUUID().slice(0, 6)}`;
  const prefix = `10.${randomInt(200, 250)}.${randomInt(0, 256)}`;
  const [near, far] = [`${name}-n`, `${name}-f`];
  host('ip', ['netns', 'add', name]);
  host('ip', ['link', 'add', near, 'type', 'veth', 'peer', 'name', far, 'netns', name]);
  host('ip', ['addr', 'add', `${prefix}.1/30`, 'dev', near]);
  host('ip', ['link', 'set', near, 'up']);
  host('ip', ['-n', name, 'addr', 'add', `${prefix}.2/30`, 'dev', far]);
  host('ip', ['-n', name, 'link', 'set', far, 'up']);
  host('ip', ['-n', name, 'route', 'add', 'default', 'via', `${prefix}.1`]);
  return {
    address: `${prefix}.2`,
    remove: () => {
      spawnSync('ip', ['link', 'del', near]);
      spawnSync('ip', ['netns', 'del', name]);
    },
  };
};

describe('DockerExecutor’s networks on a real engine', () => {
  let docker: DockerHarness;
  const engineNetworks: string[] = [];

  beforeEach(() => {
    docker = new DockerHarness();
  });

  afterEach(async () => {
    await docker.cleanUp();
    for (const name of engineNetworks.splice(0)) await docker.engine.call('DELETE', `/networks/${name}`).catch(() => undefined);
  });

  /** A task of `service` on `networks` running `script` in busybox. */
  const task = (service: string, script: string, networks: AssignedNetwork[], container: Parameters<typeof taskSpec>[0] = {}): RunningTask =>
    docker.run({ ...docker.assigned(taskSpec({ command: ['sh', '-c', script], stopGracePeriodMs: 1_000, ...container })), serviceId: `svc-${service}`, serviceName: service, networks });

  /** A task of `service` that runs `script` to its end; `completed` waits for it and its output. */
  const probe = (service: string, script: string, networks: AssignedNetwork[]): RunningTask => task(service, `${script}; echo ${END}`, networks);
  const END = 'end-of-probe';

  const completed = async (run: RunningTask): Promise<string> => {
    expect(await run.reached(TaskState.COMPLETE)).toMatchObject({ state: TaskState.COMPLETE, exitCode: 0 });
    await eventually('all its output', () => run.text().endsWith(`${END}\n`));
    return run.text().slice(0, -`${END}\n`.length);
  };

  it('an internal network’s tasks reach the node (their gateway) but nothing beyond it; a normal network’s reach both', async () => {
    const beyond = hostBeyond();
    try {
      const open = shoalNetwork();
      const closed = shoalNetwork({ internal: true });
      engineNetworks.push(open.engineName, closed.engineName);
      const reach = (net: ReturnType<typeof shoalNetwork>) =>
        probe('probe', `ping -c1 -W2 ${net.network.gateway} >/dev/null && echo gateway:yes || echo gateway:no; ping -c1 -W2 ${beyond.address} >/dev/null && echo beyond:yes || echo beyond:no`, [net.at(10)]);
      const [fromOpen, fromClosed] = [reach(open), reach(closed)];
      expect(await completed(fromOpen)).toBe('gateway:yes\nbeyond:yes\n');
      expect(await completed(fromClosed)).toBe('gateway:yes\nbeyond:no\n');
    } finally {
      beyond.remove();
    }
  });

  it('makes the engine network internal and attachable as the Shoal network is, and refuses an existing one that is not internal as it is', async () => {
    const made = shoalNetwork({ internal: true, attachable: true });
    const existing = shoalNetwork({ internal: true });
    engineNetworks.push(made.engineName, existing.engineName);
    const run = probe('probe', 'true', [made.at(10)]);
    await completed(run);
    expect(await docker.engine.call('GET', `/networks/${made.engineName}`)).toMatchObject({ Internal: true, Attachable: true });

    await docker.engine.call('POST', '/networks/create', { body: { Name: existing.engineName, Driver: 'bridge', IPAM: { Config: [{ Subnet: existing.network.subnet }] } } });
    const refused = task('probe', 'true', [existing.at(10)]);
    expect(await refused.reached(TaskState.REJECTED)).toMatchObject({
      state: TaskState.REJECTED,
      err: expect.stringContaining(`network ${existing.network.name} (${existing.network.id}) is internal, but the engine already has a network ${existing.engineName} that is not internal`),
    });
  });

  it('the tasks of a service on one node answer its name and tasks.<service> on the engine’s DNS, each with every task’s address', async () => {
    const net = shoalNetwork();
    engineNetworks.push(net.engineName);
    const backends = [task('backend', 'sleep 1000', [net.at(10)]), task('backend', 'sleep 1000', [net.at(11)])];
    await Promise.all(backends.map((run) => run.reached(TaskState.RUNNING)));
    const client = probe('client', 'nslookup backend; echo --; nslookup tasks.backend; echo --; ping -c1 -W2 backend >/dev/null && echo ping:yes', [net.at(20)]);
    const [byName, byTasks, ping] = (await completed(client)).split('--\n');
    for (const answer of [byName, byTasks]) {
      expect(answer).toContain(`Address: ${net.address(10)}`);
      expect(answer).toContain(`Address: ${net.address(11)}`);
    }
    expect(ping).toBe('ping:yes\n');
  });

  it('a service’s virtual IP answers from each of its tasks on the node, follows them as they go, and goes with the last', async () => {
    const net = shoalNetwork();
    engineNetworks.push(net.engineName);
    const vip = net.address(2);
    const web = (name: string, n: number) =>
      task('web', `mkdir -p /www && echo ${name} > /www/index.html && exec httpd -f -p 8080 -h /www`, [net.at(n, 2)], {
        healthcheck: { test: ['CMD', 'wget', '-qO-', 'http://127.0.0.1:8080/'], intervalMs: 200, retries: 50 },
      });
    const [one, two] = [web('one', 10), web('two', 11)];
    await Promise.all([one, two].map((run) => run.reached(TaskState.RUNNING)));
    const bridge = `br-${(await docker.engine.call<{ Id: string }>('GET', `/networks/${net.engineName}`)).Id.slice(0, 12)}`;
    expect(host('ip', ['-o', '-4', 'addr', 'show', 'dev', bridge])).toContain(`inet ${vip}/32`);

    const ask = (count: number) => probe('client', `for i in $(seq 1 ${count}); do wget -qO- http://${vip}:8080/; done`, [net.at(20)]);
    const answers = (await completed(ask(24))).trim().split('\n');
    expect(answers).toHaveLength(24);
    expect(new Set(answers)).toEqual(new Set(['one', 'two']));

    await one.runner.stop();
    await one.runner.remove();
    expect(new Set((await completed(ask(6))).trim().split('\n'))).toEqual(new Set(['two']));

    await two.runner.stop();
    await two.runner.remove();
    expect(host('iptables-save', ['-t', 'nat'])).not.toContain(nodeChain(docker.nodeId));
    expect(host('ip', ['-o', '-4', 'addr', 'show', 'dev', bridge])).not.toContain(`inet ${vip}/32`);
  });

  it('a task reaches its own service’s virtual IP when it is the one picked', async () => {
    const net = shoalNetwork();
    engineNetworks.push(net.engineName);
    const vip = net.address(3);
    // Its VIP answers once it is up: it asks until then (each try at most 2 s, 20 of them).
    const script = `mkdir -p /www && echo self > /www/index.html && httpd -p 8080 -h /www && for i in $(seq 1 20); do timeout 2 wget -qO- http://${vip}:8080/ && break; sleep 0.2; done`;
    expect(await completed(probe('solo', script, [net.at(30, 3)]))).toBe('self\n');
  });
});
