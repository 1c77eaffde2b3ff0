/**
 * The packaging as a user runs it, on the run's real Docker engine: `npm run images` makes the
 * base, shoal:latest and the broker offline; docker-compose (1.29) brings infra/docker/compose.yaml
 * up as a project of its own (the API published on a loopback port only): the broker, the API,
 * every component and two `shoal agent --tls` containers. The stock docker CLI, through the
 * API's socket on its volume, sees both agents' nodes, creates a service and waits until it
 * converges on them; the service's output comes back through `docker service logs`. Everything
 * the project made (containers, networks, volumes) and the images this spec built go at the end.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePorts } from '../../infra/kafka/broker';
import { buildShoalImages } from '../../infra/docker/shoal-images';
import { KAFKA_IMAGE } from '../../libs/testing/src/broker/kafka-container';
import { engineDocker } from '../../libs/testing/src/engine/engine-docker';
import { testEngine } from '../../libs/testing/src/engine/test-engine';
import { eventually } from '../../libs/testing/src/eventually';
import { runCommand } from '../../libs/testing/src/processes/run-command';
import type { CommandResult } from '../../libs/testing/src/processes/run-command';

const ROOT = join(__dirname, '..', '..');
const COMPOSE_FILE = join(ROOT, 'infra', 'docker', 'compose.yaml');

describe('the compose file on a real engine: broker, components and two agents over mutual TLS, driven by the docker CLI', () => {
  const engine = testEngine();
  const project = `shoal-e2e-${randomBytes(4).toString('hex')}`;
  const config = mkdtempSync(join(tmpdir(), 'shoal-compose-config-'));
  let built: string[] = [];
  let composeEnv: NodeJS.ProcessEnv;
  let apiSocket: string;

  const compose = (args: readonly string[], timeoutMs = 120_000): Promise<CommandResult> => runCommand('docker-compose', ['-f', COMPOSE_FILE, '-p', project, ...args], composeEnv, timeoutMs);
  /** The stock docker CLI against Shoal's API. */
  const docker = (args: readonly string[], timeoutMs = 60_000): Promise<CommandResult> =>
    runCommand('docker', args, { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: config, DOCKER_CONFIG: config, DOCKER_HOST: apiSocket, DOCKER_CLI_HINTS: 'false' }, timeoutMs);
  const said = async (): Promise<string> => {
    const ps = await compose(['ps']);
    const logs = await compose(['logs', '--no-color', '--tail', '30']);
    return `${ps.stdout}\n${logs.stdout.slice(-20_000)}`;
  };

  beforeAll(async () => {
    built = buildShoalImages(engine).built;
    const [apiPort] = await freePorts(1);
    composeEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: config, DOCKER_CONFIG: config, DOCKER_HOST: engine, API_PUBLISHED_PORT: String(apiPort) };
    const up = await compose(['up', '-d', '--no-build'], 8 * 60_000);
    if (up.code !== 0) throw new Error(`docker-compose up failed (${up.code}): ${up.stderr}\n${await said()}`);
    const mountpoint = engineDocker(engine, ['volume', 'inspect', '--format', '{{.Mountpoint}}', `${project}_shoal-data`]).trim();
    // A short path to the socket: a unix socket's path has at most 107 bytes, and the engine's data root may be deep.
    symlinkSync(mountpoint, join(config, 'api'));
    apiSocket = `unix://${join(config, 'api', 'shoal.sock')}`;
  }, 20 * 60_000);

  afterAll(async () => {
    if (composeEnv) {
      const down = await compose(['down', '--volumes', '--remove-orphans', '--timeout', '10'], 5 * 60_000);
      if (down.code !== 0) process.stderr.write(`docker-compose down failed: ${down.stderr}\n`);
    }
    // The images this spec built; the tests' broker image (KAFKA_IMAGE) stays for the run's broker.
    for (const image of built.filter((name) => name !== KAFKA_IMAGE).reverse()) {
      try {
        engineDocker(engine, ['image', 'rm', image]);
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`);
      }
    }
    rmSync(config, { recursive: true, force: true });
  }, 6 * 60_000);

  it('runs every process as a container of its own, the API published on loopback only', async () => {
    const ps = await compose(['ps', '--services', '--filter', 'status=running']);
    expect(ps.stdout.split('\n').filter(Boolean).sort()).toEqual(['agent-1', 'agent-2', 'allocator', 'api', 'dispatcher', 'kafka', 'orchestrator', 'reaper', 'scheduler']);
    const schedulers = await compose(['ps', '-q', 'scheduler']);
    expect(schedulers.stdout.split('\n').filter(Boolean)).toHaveLength(2);
    const port = await compose(['port', 'api', '8080']);
    expect(port.stdout.trim()).toBe(`127.0.0.1:${composeEnv.API_PUBLISHED_PORT}`);
  });

  it('has both agents join over mutual TLS, each a node of its own', async () => {
    const nodes = await eventually('both agents ready', async () => {
      const ls = await docker(['node', 'ls', '--format', '{{.ID}} {{.Hostname}} {{.Status}}']);
      const ready = ls.stdout.split('\n').filter((line) => / agent-\d Ready$/.test(line));
      return ready.length === 2 ? ready.map((line) => line.split(' ')) : undefined;
    }, { timeoutMs: 120_000, everyMs: 1000, explain: () => 'docker node ls never listed agent-1 and agent-2 ready' });
    expect(nodes.map(([, hostname]) => hostname).sort()).toEqual(['agent-1', 'agent-2']);
    for (const [id, hostname] of nodes) {
      const logs = await compose(['logs', '--no-color', hostname!]);
      expect(logs.stdout).toContain(`node ${id!}: worker certificate from the dispatcher at dispatcher:2377`);
      // The node's certificate and key are in its state volume, the key readable by its user only.
      const files = await compose(['exec', '-T', hostname!, 'ls', '-l', '/var/lib/shoal/agent/node-key.pem', '/var/lib/shoal/agent/node-cert.pem']);
      expect(files.stdout).toMatch(/^-rw------- .* node .*node-key\.pem$/m);
      expect(files.stdout).toMatch(/node-cert\.pem$/m);
    }
    // The join token the agents used carries the root CA's digest: SWMTKN-1-<digest>-<secret>.
    const token = await docker(['swarm', 'join-token', '-q', 'worker']);
    expect(token.stdout.trim()).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
  });

  it('creates a service with the docker CLI that converges on the two agents, and reads its output', async () => {
    // Without -d the CLI waits until the service converges, and says so.
    const created = await docker(['service', 'create', '--name', 'web', '--replicas', '2', '--replicas-max-per-node', '1', 'busybox', 'sh', '-c', 'echo hello from compose; exec sleep 1000'], 240_000);
    expect({ code: created.code, said: created.code === 0 ? '' : created.stderr }).toEqual({ code: 0, said: '' });
    expect(created.stdout + created.stderr).toMatch(/^verify: Service \w+ converged$/m);
    const ps = await docker(['service', 'ps', '--filter', 'desired-state=running', '--format', '{{.Node}} {{.CurrentState}}', 'web']);
    const running = ps.stdout.split('\n').filter(Boolean);
    expect(running).toHaveLength(2);
    expect(running.map((line) => line.split(' ')[0]).sort()).toEqual(['agent-1', 'agent-2']);
    for (const line of running) expect(line).toMatch(/ Running /);
    const logs = await eventually('both tasks said hello', async () => {
      const ran = await docker(['service', 'logs', '--raw', 'web']);
      return ran.code === 0 && ran.stdout.split('\n').filter((line) => line === 'hello from compose').length === 2 ? ran : undefined;
    }, { timeoutMs: 60_000, everyMs: 1000 });
    expect(logs.code).toBe(0);
    // The tasks are processes in the agents' containers.
    for (const agent of ['agent-1', 'agent-2']) {
      const processes = await compose(['exec', '-T', agent, 'ps', '-o', 'args']);
      expect(processes.stdout).toMatch(/^sleep 1000$/m);
    }
    const removed = await docker(['service', 'rm', 'web']);
    expect(removed.code).toBe(0);
  }, 6 * 60_000);

  it('leaves nothing of the project on the engine once it is down', async () => {
    // The same down as afterAll's, checked here: containers, the network and every volume of the project.
    const down = await compose(['down', '--volumes', '--remove-orphans', '--timeout', '10'], 5 * 60_000);
    expect(down.code).toBe(0);
    const label = `label=com.docker.compose.project=${project}`;
    expect(engineDocker(engine, ['ps', '-a', '-q', '--filter', label]).trim()).toBe('');
    expect(engineDocker(engine, ['network', 'ls', '-q', '--filter', label]).trim()).toBe('');
    expect(engineDocker(engine, ['volume', 'ls', '-q', '--filter', label]).trim()).toBe('');
  }, 6 * 60_000);
});
