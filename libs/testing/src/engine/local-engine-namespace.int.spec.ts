/**
 * A test engine in a network namespace of its own (LocalDockerEngine's
 * `ownNetworkNamespace`), beside the run's: in swarm mode on the namespace's 127.0.0.1, its
 * bridges there and not on the machine, reached through its socket from here; a
 * restart on its data root keeps its swarm and its node; stopped, nothing of it is left
 * (namespace, processes, mounts, folder).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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
