/**
 * A test engine in a network namespace of its own (LocalDockerEngine's
 * `ownNetworkNamespace`), beside the run's: in swarm mode on the namespace's 127.0.0.1, its
 * bridges there and not on the machine, reached through its socket from here; a
 * restart on its data root keeps its swarm and its node; stopped, nothing of it is left
 * (namespace, processes, mounts, folder). Two such engines linked (linkTo, a veth pair):
 * each reaches the other's address over it, the machine has neither end, and the first
 * stopped takes the link with it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { eventually } from '../eventually';
import { engineDocker } from './engine-docker';
import { LocalDockerEngine, processesUnder } from './local-engine';

const namespaces = (): string[] =>
  spawnSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => line.split(' ')[0] ?? '')
    .filter(Boolean);
const interfacesIn = (namespace: string): string[] =>
  spawnSync('ip', ['-n', namespace, '-o', 'link', 'show'], { encoding: 'utf8' })
    .stdout.split('\n')
    .map((line) => line.split(': ')[1]?.split('@')[0] ?? '')
    .filter(Boolean);
const mountsUnder = (dir: string): string[] =>
  readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((path) => path.startsWith(`${dir}/`));
const swarmOf = (engine: LocalDockerEngine): string => engineDocker(engine.host, ['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.NodeAddr}} {{.Swarm.NodeID}}']).trim();

describe('a test engine in a network namespace of its own', () => {
  let engine: LocalDockerEngine | undefined;
  const machineHasGwbridge = existsSync('/sys/class/net/docker_gwbridge');

  afterAll(async () => {
    await engine?.stop();
  }, 120_000);

  it("runs in swarm mode on the namespace's loopback, its bridge in the namespace, the machine's docker_gwbridge as it was", async () => {
    engine = await LocalDockerEngine.start({ ownNetworkNamespace: true });
    const [state, address, node] = swarmOf(engine).split(' ');
    expect({ state, address, node: node?.length }).toEqual({ state: 'active', address: '127.0.0.1', node: 25 });
    const name = engine.namespace!.name;
    expect(namespaces()).toContain(name);
    // Its docker0 is the namespace's (docker_gwbridge comes there too, once swarm mode needs it).
    expect(interfacesIn(name)).toEqual(expect.arrayContaining(['lo', 'docker0']));
    expect(existsSync('/sys/class/net/docker_gwbridge')).toBe(machineHasGwbridge);
  }, 120_000);

  it('restarts on its data root: another dockerd, the same swarm and node', async () => {
    const before = { pid: engine!.pid, swarm: swarmOf(engine!) };
    await engine!.restart();
    expect(engine!.pid).not.toBe(before.pid);
    let after = '';
    for (let attempt = 0; attempt < 100 && after !== before.swarm; attempt++) {
      after = swarmOf(engine!);
      if (after !== before.swarm) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(after).toBe(before.swarm);
  }, 120_000);

  it('stopped, leaves nothing: no namespace, no process or mount under its folder, no folder', async () => {
    const { dir } = engine!;
    const name = engine!.namespace!.name;
    await engine!.stop();
    expect({ namespace: namespaces().includes(name), processes: processesUnder(dir), mounts: mountsUnder(dir), folder: existsSync(dir) }).toEqual({
      namespace: false,
      processes: [],
      mounts: [],
      folder: false,
    });
  }, 120_000);
});

describe('two test engines in namespaces of their own, linked', () => {
  let engines: LocalDockerEngine[] = [];

  afterAll(async () => {
    await Promise.all(engines.map((engine) => engine.stop()));
  }, 120_000);

  it("reach each other over the link, which is not on the machine's network, and which goes with the first stopped", async () => {
    engines = await Promise.all([LocalDockerEngine.start({ ownNetworkNamespace: true, swarm: false }), LocalDockerEngine.start({ ownNetworkNamespace: true, swarm: false })]);
    const [first, second] = engines as [LocalDockerEngine, LocalDockerEngine];
    const link = first.linkTo(second);
    expect(link.addresses).toEqual(['10.213.0.1', '10.213.0.2']);
    // busybox-static comes with the engine (infra/docker/install.sh).
    const ping = (from: LocalDockerEngine, to: string) => spawnSync(from.namespace!.enter[0]!, [...from.namespace!.enter.slice(1), 'busybox', 'ping', '-c', '1', '-W', '2', to]).status;
    expect({ there: ping(first, link.addresses[1]), back: ping(second, link.addresses[0]) }).toEqual({ there: 0, back: 0 });
    const machine = spawnSync('ip', ['-o', 'link', 'show'], { encoding: 'utf8' }).stdout;
    expect(link.interfaces.filter((device) => machine.includes(device))).toEqual([]);
    expect({ first: interfacesIn(first.namespace!.name).includes(link.interfaces[0]), second: interfacesIn(second.namespace!.name).includes(link.interfaces[1]) }).toEqual({ first: true, second: true });
    await first.stop();
    // The kernel tears a deleted namespace down after `ip netns del` returns, taking the
    // link's other end with it: gone once that is done, within seconds.
    await eventually(`the link's end ${link.interfaces[1]} gone from the second namespace`, () => !interfacesIn(second.namespace!.name).includes(link.interfaces[1]), {
      timeoutMs: 10_000,
      explain: () => interfacesIn(second.namespace!.name),
    });
  }, 120_000);
});
