/**
 * The systemd units of infra/systemd/ under a real systemd: a Debian root filesystem with
 * systemd as its init (infra/systemd/rootfs.sh made it; `docker import`ed here) booted in a
 * container on the run's engine, sharing the host's network so that it reaches the run's
 * broker on loopback, with a release where the units look for one (`npm run build`'s output
 * in /opt/shoal/dist, the node_modules, node at /usr/bin/node). The units and environment
 * files are installed as docs/deploy.md says; the environment files are the repository's with
 * the broker, the ports and the addresses of this run; each component's health port, which
 * its unit fixes (9101–9105), is moved to a free one by a drop-in. Then `systemctl enable
 * --now shoal.target` runs the API and every component, the stock docker CLI initialises the
 * swarm through the API's socket, `shoal-agent.service` joins this host as a node over mutual
 * TLS and a service converges on it; a component killed is restarted by systemd
 * (Restart=on-failure), one stopped saves its snapshot and exits cleanly within its
 * TimeoutStopSec, and stopping shoal.target stops every manager unit (PartOf).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { freePorts } from '../../infra/kafka/broker';
import { engineDocker } from '../../libs/testing/src/engine/engine-docker';
import { testEngine } from '../../libs/testing/src/engine/test-engine';
import { eventually } from '../../libs/testing/src/eventually';
import { dockerCli } from '../../libs/testing/src/processes/docker-cli';
import type { DockerCliResult } from '../../libs/testing/src/processes/docker-cli';
import { runCommand } from '../../libs/testing/src/processes/run-command';
import type { CommandResult } from '../../libs/testing/src/processes/run-command';
import { testBrokers } from '../../libs/testing/src/kafka-topic';

const ROOT = join(__dirname, '..', '..');
const ROOTFS = process.env.SHOAL_SYSTEMD_ROOTFS ?? join(ROOT, '.cache', 'systemd', 'bookworm-rootfs.tar');
const COMPONENTS = ['allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'] as const;
const MANAGER_UNITS = ['shoal-api', ...COMPONENTS.map((component) => `shoal-${component}`)];

/** `KEY=value` lines of an environment file replaced by `values` (each key must be in it). */
const withValues = (text: string, values: Readonly<Record<string, string>>): string => {
  let out = text;
  for (const [key, value] of Object.entries(values)) {
    const line = new RegExp(`^${key}=.*$`, 'm');
    if (!line.test(out)) throw new Error(`${key} is not set in the environment file`);
    out = out.replace(line, `${key}=${value}`);
  }
  return out;
};

describe('the systemd units under a real systemd: the API, every component and an agent, as docs/deploy.md installs them', () => {
  const engine = testEngine();
  const name = `shoal-systemd-${randomBytes(4).toString('hex')}`;
  const image = `shoal-test/systemd:${name}`;
  const work = mkdtempSync(join(tmpdir(), 'shoal-systemd-'));
  const config = join(work, 'docker-config');
  let apiSocket: string;
  let health: Record<string, number>;
  let started = false;

  /** A command in the booted container. */
  const inside = (script: string, timeoutMs = 120_000): Promise<CommandResult> => runCommand('docker', ['exec', name, 'bash', '-c', script], { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: config, DOCKER_CONFIG: config, DOCKER_HOST: engine }, timeoutMs);
  /** The stock docker CLI against Shoal's API, through its socket in the units' state directory. */
  const docker = (args: readonly string[], timeoutMs = 60_000): Promise<DockerCliResult> => dockerCli(work, args, { socket: apiSocket, timeoutMs });
  const journal = async (): Promise<string> => (await inside('journalctl --no-pager -n 60 -u "shoal*"')).stdout;
  const show = async (unit: string, ...properties: string[]): Promise<Record<string, string>> => {
    const shown = await inside(`systemctl show ${unit} ${properties.map((p) => `-p ${p}`).join(' ')}`);
    return Object.fromEntries(shown.stdout.split('\n').filter(Boolean).map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
  };
  const ready = async (port: number): Promise<boolean> => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })).status === 200;
    } catch {
      return false;
    }
  };

  beforeAll(async () => {
    if (!existsSync(ROOTFS)) throw new Error(`${ROOTFS} not found: make the systemd root filesystem with \`bash infra/systemd/rootfs.sh\` (infra/docker/install.sh runs it)`);
    engineDocker(engine, ['import', '--change', 'CMD ["/lib/systemd/systemd"]', ROOTFS, image], 5 * 60_000);
    // The release the units run: what `npm run build` makes, beside the node_modules it needs.
    const built = await runCommand(process.execPath, ['-r', './bin/register.js', 'infra/build/build.ts', '--out', join(work, 'dist')], process.env, 5 * 60_000);
    if (built.code !== 0) throw new Error(`npm run build failed: ${built.stderr}`);

    const ports = await freePorts(8);
    const [apiPort, dispatcherPort, agentPort] = ports;
    health = Object.fromEntries(COMPONENTS.map((component, i) => [component, ports[3 + i]!]));
    const brokers = testBrokers().join(',');
    writeFileSync(
      join(work, 'shoal.env'),
      withValues(readFileSync(join(ROOT, 'infra', 'systemd', 'shoal.env'), 'utf8'), {
        KAFKA_BROKERS: brokers,
        SHOAL_TOPIC_PREFIX: name,
        // Everything on loopback: the container shares the host's network.
        SHOAL_BIND_HOST: '127.0.0.1',
        SHOAL_API_HOST: '127.0.0.1',
        SHOAL_API_PORT: String(apiPort),
        SHOAL_JOIN_ADDR: `127.0.0.1:${dispatcherPort}`,
        SHOAL_DISPATCHER_PORT: String(dispatcherPort),
        SHOAL_DISPATCHER_ADVERTISE: `127.0.0.1:${dispatcherPort}`,
      }),
    );
    writeFileSync(join(work, 'agent-port'), String(agentPort));
    for (const component of COMPONENTS) writeFileSync(join(work, `${component}.conf`), `[Service]\nEnvironment=SHOAL_HEALTH_PORT=${health[component]}\n`);

    engineDocker(engine, [
      'run', '-d', '--name', name,
      // systemd as PID 1: every capability the engine may grant (CAP_SYS_RESOURCE is outside this
      // machine's bounding set), no seccomp or AppArmor profile, the cgroup tree writable, /run a tmpfs.
      '--cap-add', 'ALL', '--cap-drop', 'SYS_RESOURCE', '--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined',
      '--cgroupns', 'host', '-v', '/sys/fs/cgroup:/sys/fs/cgroup:rw', '--tmpfs', '/run', '--tmpfs', '/run/lock',
      '--network', 'host',
      '-v', `${process.execPath}:/usr/bin/node:ro`,
      '-v', `${join(work, 'dist')}:/opt/shoal/dist:ro`,
      '-v', `${join(ROOT, 'node_modules')}:/opt/shoal/node_modules:ro`,
      '-v', `${join(ROOT, 'package.json')}:/opt/shoal/package.json:ro`,
      '-v', `${join(ROOT, 'infra', 'systemd')}:/opt/shoal/infra/systemd:ro`,
      '-v', `${work}:/opt/test:ro`,
      image, '/lib/systemd/systemd',
    ]);
    started = true;
    await eventually('systemd up', async () => {
      const state = (await inside('systemctl is-system-running')).stdout.trim();
      return state === 'running' || state === 'degraded' ? state : undefined;
    }, { timeoutMs: 60_000, everyMs: 500 });

    // docs/deploy.md's steps, from /opt/shoal; the manager's environment file is this run's.
    const installed = await inside(
      [
        'set -e',
        'useradd --system --home /var/lib/shoal shoal',
        'cd /opt/shoal',
        'install -m 0644 infra/systemd/shoal-*.service infra/systemd/shoal.target /etc/systemd/system/',
        'install -d /etc/shoal && install -m 0640 -g shoal /opt/test/shoal.env /etc/shoal/shoal.env',
        ...COMPONENTS.map((c) => `install -d /etc/systemd/system/shoal-${c}.service.d && install -m 0644 /opt/test/${c}.conf /etc/systemd/system/shoal-${c}.service.d/health-port.conf`),
        'systemctl daemon-reload',
        'systemctl enable --now shoal.target',
      ].join('\n'),
    );
    if (installed.code !== 0) throw new Error(`installing the units failed: ${installed.stderr}\n${await journal()}`);
    const merged = engineDocker(engine, ['inspect', '--format', '{{.GraphDriver.Data.MergedDir}}', name]).trim();
    // A short path to the socket: a unix socket's path has at most 107 bytes.
    symlinkSync(join(merged, 'var', 'lib', 'shoal'), join(work, 'data'));
    apiSocket = join(work, 'data', 'shoal.sock');
  }, 10 * 60_000);

  afterAll(() => {
    if (started) {
      try {
        engineDocker(engine, ['rm', '-f', '-v', name], 120_000);
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n`);
      }
    }
    try {
      engineDocker(engine, ['image', 'rm', image]);
    } catch {
      // never imported
    }
    rmSync(work, { recursive: true, force: true });
  }, 3 * 60_000);

  it('runs the API and every component as its unit says: active, each ready on its health port, on loopback, as the shoal user', async () => {
    await eventually('every component ready', async () => ((await Promise.all(COMPONENTS.map((c) => ready(health[c]!)))).every(Boolean) ? true : undefined), {
      timeoutMs: 120_000,
      everyMs: 1000,
      explain: journal,
    });
    for (const unit of MANAGER_UNITS) {
      expect({ unit, ...(await show(unit, 'ActiveState', 'User', 'NRestarts')) }).toEqual({ unit, ActiveState: 'active', User: 'shoal', NRestarts: '0' });
    }
    // The state directory systemd made for them, theirs alone: the socket, the CA, the cluster key.
    const files = await inside('stat -c "%U %a %n" /var/lib/shoal /var/lib/shoal/secrets.key /var/lib/shoal/ca');
    expect(files.stdout).toMatch(/^shoal 750 \/var\/lib\/shoal$/m);
    expect(files.stdout).toMatch(/^shoal 600 \/var\/lib\/shoal\/secrets\.key$/m);
    expect(files.stdout).toMatch(/^shoal 700 \/var\/lib\/shoal\/ca$/m);
  }, 3 * 60_000);

  it('takes a worker host through shoal-agent.service: the docker CLI initialises the swarm, the agent joins over mutual TLS, a service converges on it', async () => {
    const init = await docker(['swarm', 'init']);
    expect({ code: init.code, said: init.stderr }).toEqual({ code: 0, said: '' });
    const token = (await docker(['swarm', 'join-token', '-q', 'worker'])).stdout.trim();
    expect(token).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    const dispatcher = /^SHOAL_DISPATCHER_ADVERTISE=(.*)$/m.exec(readFileSync(join(work, 'shoal.env'), 'utf8'))![1]!;
    writeFileSync(
      join(work, 'agent.env'),
      withValues(readFileSync(join(ROOT, 'infra', 'systemd', 'agent.env'), 'utf8'), {
        SHOAL_DISPATCHER: dispatcher,
        SHOAL_JOIN_TOKEN: token,
        SHOAL_BIND_HOST: '127.0.0.1',
        SHOAL_HEALTH_PORT: readFileSync(join(work, 'agent-port'), 'utf8'),
      }),
    );
    const enabled = await inside('install -m 0600 /opt/test/agent.env /etc/shoal/agent.env && systemctl enable --now shoal-agent.service');
    expect(enabled.code).toBe(0);
    const node = await eventually('the agent a ready node', async () => {
      const ls = await docker(['node', 'ls', '--format', '{{.ID}} {{.Status}} {{.Availability}} {{.ManagerStatus}}']);
      return ls.stdout.split('\n').find((line) => / Ready Active $/.test(line));
    }, { timeoutMs: 120_000, everyMs: 1000, explain: journal });
    const id = node.split(' ')[0]!;
    expect((await inside('journalctl --no-pager -u shoal-agent')).stdout).toContain(`node ${id}: worker certificate from the dispatcher at ${dispatcher}`);

    const created = await docker(['service', 'create', '--name', 'hello', '--replicas', '2', 'busybox', 'sh', '-c', 'echo hello from systemd; exec sleep 1000'], 180_000);
    expect({ code: created.code, said: created.code === 0 ? '' : created.stderr }).toEqual({ code: 0, said: '' });
    expect(created.stdout + created.stderr).toMatch(/^verify: Service \w+ converged$/m);
    const logs = await eventually('both tasks said hello', async () => {
      const ran = await docker(['service', 'logs', '--raw', 'hello']);
      return ran.code === 0 && ran.stdout.split('\n').filter((line) => line === 'hello from systemd').length === 2 ? ran : undefined;
    }, { timeoutMs: 60_000, everyMs: 1000 });
    expect(logs.code).toBe(0);
    // The tasks are processes of the agent's unit: in its cgroup (name=systemd's hierarchy).
    const tasks = await inside(
      'for p in /proc/[0-9]*; do case "$(tr "\\0" " " < $p/cmdline 2>/dev/null)" in "sleep 1000 ") grep "name=systemd:" $p/cgroup;; esac; done',
    );
    const cgroups = tasks.stdout.split('\n').filter(Boolean);
    expect(cgroups).toHaveLength(2);
    for (const cgroup of cgroups) expect(cgroup).toMatch(/\/system\.slice\/shoal-agent\.service$/);
  }, 6 * 60_000);

  it('restarts a component killed (Restart=on-failure), and a component stopped saves its snapshot and exits cleanly', async () => {
    const before = await show('shoal-scheduler', 'MainPID');
    expect((await inside('systemctl kill -s SIGKILL shoal-scheduler')).code).toBe(0);
    await eventually('the scheduler restarted', async () => {
      const now = await show('shoal-scheduler', 'MainPID', 'ActiveState', 'NRestarts');
      return now.ActiveState === 'active' && now.NRestarts === '1' && now.MainPID !== before.MainPID && now.MainPID !== '0' ? now : undefined;
    }, { timeoutMs: 30_000, everyMs: 500, explain: journal });
    await eventually('the scheduler ready again', async () => ((await ready(health.scheduler!)) ? true : undefined), { timeoutMs: 60_000, everyMs: 500, explain: journal });

    const stopped = await inside('systemctl stop shoal-dispatcher', 90_000);
    expect(stopped.code).toBe(0);
    expect(await show('shoal-dispatcher', 'ActiveState', 'Result')).toEqual({ ActiveState: 'inactive', Result: 'success' });
    expect((await inside('journalctl --no-pager -u shoal-dispatcher')).stdout).toMatch(/snapshot saved at offset \d+/);
    expect((await inside('systemctl start shoal-dispatcher')).code).toBe(0);
    await eventually('the dispatcher ready again', async () => ((await ready(health.dispatcher!)) ? true : undefined), { timeoutMs: 60_000, everyMs: 500, explain: journal });
    // The service still runs on the node: the restarted dispatcher has the agent's session back.
    const ls = await eventually('the service whole', async () => {
      const ran = await docker(['service', 'ls', '--format', '{{.Name}} {{.Replicas}}']);
      return ran.stdout.includes('hello 2/2') ? ran : undefined;
    }, { timeoutMs: 60_000, everyMs: 1000 });
    expect(ls.code).toBe(0);
  }, 4 * 60_000);

  it('stops every manager unit with shoal.target (PartOf), and leaves the agent to its own unit', async () => {
    expect((await inside('systemctl stop shoal.target', 150_000)).code).toBe(0);
    // The target's stop returns once its own job is done; the units it is part of stop beside it, each saving its snapshot.
    const states = await eventually('every manager unit stopped', async () => {
      const all = await Promise.all(MANAGER_UNITS.map(async (unit): Promise<Record<string, string>> => ({ unit, ...(await show(unit, 'ActiveState', 'Result')) })));
      return all.every((state) => state.ActiveState === 'inactive') ? all : undefined;
    }, { timeoutMs: 120_000, everyMs: 500, explain: journal });
    for (const state of states) expect(state).toEqual({ unit: state.unit, ActiveState: 'inactive', Result: 'success' });
    expect(await show('shoal-agent', 'ActiveState')).toEqual({ ActiveState: 'active' });
  }, 3 * 60_000);
});
