/**
 * A Docker engine of the test run's own: Debian's dockerd (infra/docker/install.sh) started
 * with its own socket, data root, exec root and pidfile in one folder, in swarm mode on
 * 127.0.0.1, with the offline test images built (see test-images.ts); stop() stops it and
 * everything it started, and removes the folder.
 *
 * It keeps the engine's default bridge (docker0) unless told another (`bridge`) or to make
 * its own (`ownBridge`, where another engine uses docker0: two engines on one bridge hand out
 * the same addresses). Swarm mode makes docker_gwbridge, one per network namespace: one
 * swarm-mode test engine at a time on the machine's network, and any number more each in a
 * namespace of its own (`ownNetworkNamespace`, own-namespace.ts), which can also be restarted
 * on its data root (restart()), and linked to another such engine's namespace (linkTo(), a
 * veth pair) for a swarm of two: the first started with `swarm: false` and initialised on
 * its end's address (initSwarm(address)), the second joining it there. Published ports bind 127.0.0.1 unless a container asks for
 * another address.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePorts, startWatchdog, stopPid } from '../../../../infra/kafka/broker';
import { dockerAnswers } from '../broker/docker-probe';
import { engineDocker } from './engine-docker';
import { makeOwnBridge } from './own-bridge';
import type { OwnBridge } from './own-bridge';
import { linkNamespaces, makeOwnNamespace, removeNamespaceScript } from './own-namespace';
import type { NamespaceLink, OwnNamespace } from './own-namespace';

export const DOCKERD_MISSING =
  'dockerd not found on PATH: install the engine with `bash infra/docker/install.sh` (Debian: apt-get install docker.io busybox-static, as root)';

export interface EngineOptions {
  /** The folder for its socket, data, exec root, pidfile and log (removed by stop()); fresh under os.tmpdir() by default. */
  readonly dir?: string;
  /**
   * `--bridge` for containers on the default network: an interface of your own, where another
   * engine already uses docker0; the engine's own docker0 when unset. 'none' (no default
   * network) is refused while a docker0 exists: dockerd would delete it.
   */
  readonly bridge?: string;
  /** Make a bridge of its own (own-bridge.ts) and use it, deleted again by stop(); instead of `bridge`. */
  readonly ownBridge?: boolean;
  /**
   * Run in a network namespace of its own (own-namespace.ts), deleted again by stop(), with
   * everything in it: its docker0, its docker_gwbridge, its swarm on the namespace's
   * 127.0.0.1. For a swarm-mode engine beside the run's, one a test may restart. Not with
   * `bridge` or `ownBridge` (interfaces of the machine's network).
   */
  readonly ownNetworkNamespace?: boolean;
  /** Initialise swarm mode on 127.0.0.1 (default true); false for one initialised later on another address (initSwarm). */
  readonly swarm?: boolean;
  /** How long to wait for the engine to answer /_ping (default 60 s). */
  readonly startTimeoutMs?: number;
}

/** Does `dockerd --version` run here? */
export const dockerdInstalled = (): boolean => {
  const result = spawnSync('dockerd', ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return !result.error && result.status === 0;
};

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

const tail = (file: string, lines = 20): string => {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n') || '(empty)';
  } catch {
    return '(none)';
  }
};

/** The dockerd arguments for an engine whose every file is under `dir`. */
export const dockerdArgs = (dir: string, bridge?: string, addressPool?: string): string[] => [
  '-H',
  `unix://${join(dir, 'docker.sock')}`,
  '--data-root',
  join(dir, 'data'),
  '--exec-root',
  join(dir, 'exec'),
  '--pidfile',
  join(dir, 'docker.pid'),
  // Published ports answer on loopback only, as everything a test binds.
  '--ip',
  '127.0.0.1',
  '--shutdown-timeout',
  '5',
  ...(bridge ? ['--bridge', bridge] : []),
  ...(addressPool ? ['--default-address-pool', addressPool] : []),
];

/** Live processes whose command line names `dir`: the containerd and shims of an engine there. */
export const processesUnder = (dir: string): number[] => {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').some((arg) => arg.includes(dir))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
};

/** Lazily unmounts what an engine killed mid-run left mounted under `dir` (overlays, netns), deepest first. */
const unmountUnder = (dir: string): void => {
  let mounts: string[];
  try {
    mounts = readFileSync('/proc/self/mounts', 'utf8').split('\n').map((line) => line.split(' ')[1] ?? '');
  } catch {
    return;
  }
  for (const mount of mounts.filter((path) => path.startsWith(`${dir}/`)).sort().reverse()) spawnSync('umount', ['-l', mount]);
};

/**
 * What the watchdog does after dockerd is gone, in bash ($2: the engine's folder): kills the
 * containerd and shims with files there, unmounts what is left mounted there, deletes the
 * engine's own bridge, or its own namespace with what still runs in it.
 */
const watchdogCleanup = (bridge: string | undefined, namespace: string | undefined): string =>
  [
    'for p in /proc/[0-9]*; do [ "${p#/proc/}" = "$$" ] || ! grep -qF -- "$2" "$p/cmdline" 2>/dev/null || kill -KILL "${p#/proc/}" 2>/dev/null; done',
    'awk -v d="$2/" \'index($2, d) == 1 { print $2 }\' /proc/self/mounts 2>/dev/null | sort -r | while read -r m; do umount -l "$m"; done',
    ...(bridge ? [`ip link del ${bridge} 2>/dev/null`] : []),
    ...(namespace ? [removeNamespaceScript(namespace)] : []),
  ].join('\n');

/**
 * dockerd with `args`, its output appended to `logFile`, run through `enter` (a namespace's
 * nsenter) when given; its pid is dockerd's (nsenter execs it).
 */
const spawnDockerd = async (args: readonly string[], logFile: string, enter: readonly string[] = []): Promise<ChildProcess> => {
  const [file, ...rest] = [...enter, 'dockerd', ...args] as [string, ...string[]];
  const out = openSync(logFile, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, rest, { stdio: ['ignore', out, out], env: process.env });
  } finally {
    closeSync(out);
  }
  if (child.pid === undefined) {
    const error = await new Promise<Error>((done) => child.once('error', done));
    throw new Error(`cannot start dockerd: ${error.message}`);
  }
  if (process.env.SHOAL_ENGINE_PIDFILE) appendFileSync(process.env.SHOAL_ENGINE_PIDFILE, `${child.pid}\n`);
  child.unref();
  return child;
};

export class LocalDockerEngine {
  private exited = false;
  private exitStatus = '';
  private stopping: Promise<void> | undefined;
  /** Swarm init made the docker_gwbridge interface (none was there before). */
  private madeGwbridge = false;
  /** dockerd (another process after a restart). */
  private child!: ChildProcess;
  /** Cleans up should this process die without stop(). */
  private watchdog: ChildProcess | undefined;

  private constructor(
    /** `unix://<dir>/docker.sock`: DOCKER_HOST for this engine. */
    readonly host: string,
    readonly dir: string,
    /** dockerd's own log (and containerd's, which it starts). */
    readonly logFile: string,
    /** The bridge it made for itself, if it did. */
    readonly ownBridge: OwnBridge | undefined,
    /** The network namespace it runs in, if it has its own. */
    readonly namespace: OwnNamespace | undefined,
    /** dockerd's arguments, the same at every start. */
    private readonly args: readonly string[],
  ) {}

  /** dockerd started (again) on the folder, watched, with a watchdog of its own. */
  private async launch(): Promise<void> {
    const child = await spawnDockerd(this.args, this.logFile, this.namespace?.enter);
    this.child = child;
    this.exited = false;
    child.once('exit', (code, signal) => {
      if (this.child !== child) return;
      this.exited = true;
      this.exitStatus = signal ? `signal ${signal}` : `exit code ${String(code)}`;
    });
    this.watchdog = startWatchdog(child.pid!, this.dir, watchdogCleanup(this.ownBridge?.name, this.namespace?.name));
  }

  /** dockerd's pid. */
  get pid(): number {
    return this.child.pid ?? -1;
  }

  /** Starts dockerd, waits for /_ping, initialises swarm mode unless told not to. */
  static async start(options: EngineOptions = {}): Promise<LocalDockerEngine> {
    if (!dockerdInstalled()) throw new Error(`cannot start a Docker engine: ${DOCKERD_MISSING}`);
    if (options.ownNetworkNamespace && (options.bridge !== undefined || options.ownBridge)) {
      throw new Error('an engine in a network namespace of its own makes its bridges there: no `bridge` or `ownBridge` of the machine\'s network');
    }
    if (!options.ownNetworkNamespace && options.bridge === 'none' && existsSync('/sys/class/net/docker0')) {
      // dockerd with the bridge off deletes docker0 as it starts, under whichever engine uses it.
      throw new Error('bridge "none" would make dockerd delete the docker0 another engine here uses: name a bridge of your own (ip link add <name> type bridge)');
    }
    const dir = resolve(options.dir ?? mkdtempSync(join(tmpdir(), 'shoal-engine-')));
    mkdirSync(dir, { recursive: true });
    const logFile = join(dir, 'dockerd.log');
    let bridge: OwnBridge | undefined;
    let namespace: OwnNamespace | undefined;
    try {
      bridge = options.ownBridge ? makeOwnBridge() : undefined;
      namespace = options.ownNetworkNamespace ? makeOwnNamespace() : undefined;
    } catch (error) {
      bridge?.remove();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    const args = dockerdArgs(dir, bridge?.name ?? options.bridge, bridge?.addressPool);
    const engine = new LocalDockerEngine(`unix://${join(dir, 'docker.sock')}`, dir, logFile, bridge, namespace, args);
    try {
      await engine.launch();
    } catch (error) {
      bridge?.remove();
      namespace?.remove();
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    try {
      await engine.waitUntilReady(options.startTimeoutMs ?? 60_000);
      if (options.swarm ?? true) await engine.initSwarm();
    } catch (error) {
      await engine.stop();
      throw error;
    }
    return engine;
  }

  private async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.exited) throw new Error(`dockerd exited while starting (${this.exitStatus}); the end of ${this.logFile}:\n${tail(this.logFile)}`);
      if (await dockerAnswers({ DOCKER_HOST: this.host }, 1_000)) return;
      if (Date.now() > deadline) throw new Error(`dockerd did not answer /_ping within ${timeoutMs} ms; the end of ${this.logFile}:\n${tail(this.logFile)}`);
      await sleep(200);
    }
  }

  /**
   * `docker swarm init` on `address` (127.0.0.1 unless given: an address of its namespace,
   * its end of a link), its cluster port a free one rather than 2377, so that it binds that
   * address only and never meets another engine's.
   */
  async initSwarm(address = '127.0.0.1'): Promise<void> {
    if (address !== '127.0.0.1' && !this.namespace) throw new Error(`an engine on the machine's network initialises its swarm on 127.0.0.1 only, not ${address}`);
    const [port] = await freePorts(1);
    // In a namespace of its own, its docker_gwbridge is the namespace's, deleted with it.
    this.madeGwbridge = !this.namespace && !existsSync('/sys/class/net/docker_gwbridge');
    engineDocker(this.host, ['swarm', 'init', '--advertise-addr', `${address}:${port}`, '--listen-addr', `${address}:${port}`]);
  }

  /**
   * A veth pair between this engine's namespace and `other`'s (both `ownNetworkNamespace`),
   * this end 10.213.0.1, the other's 10.213.0.2 (own-namespace.ts). Nothing to undo: the pair
   * goes with the first of the two namespaces removed, by stop() or a watchdog.
   */
  linkTo(other: LocalDockerEngine): NamespaceLink {
    if (!this.namespace || !other.namespace) throw new Error('only engines each in a network namespace of its own (ownNetworkNamespace) can be linked');
    return linkNamespaces(this.namespace, other.namespace);
  }

  /**
   * A restart on the same folder, as of a machine's engine: SIGTERM to dockerd (which stops
   * its containers and containerd), up to 20 s, then SIGKILL; then dockerd started again
   * with the same arguments, until it answers /_ping. Its swarm is what its data root says
   * (locked, with autolock on); swarm mode is not initialised again.
   */
  async restart(timeoutMs = 60_000): Promise<void> {
    if (this.stopping) throw new Error('the engine was stopped: it cannot be restarted');
    // The watchdog stays until the next one watches: should this process die in between, it still cleans up.
    const watchdog = this.watchdog;
    await stopPid(this.child.pid, () => this.exited);
    for (const pid of processesUnder(this.dir)) if (pid !== watchdog?.pid) await stopPid(pid);
    await this.launch();
    watchdog?.kill('SIGKILL');
    await this.waitUntilReady(timeoutMs);
  }

  /**
   * Leaves swarm mode and removes the docker_gwbridge it made (an engine in a namespace of
   * its own leaves these to the namespace's removal), then SIGTERM to dockerd (which stops its
   * containers and containerd), up to 20 s, then SIGKILL; removes the folder, and the
   * namespace with what is left in it.
   */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.watchdog?.kill('SIGKILL');
      if (!this.exited && !this.namespace) {
        // Swarm mode's docker_gwbridge would outlive the engine as an interface on the host (one this engine made, not another's).
        const steps = this.madeGwbridge ? [['swarm', 'leave', '--force'], ['network', 'rm', 'docker_gwbridge']] : [['swarm', 'leave', '--force']];
        for (const args of steps) {
          try {
            engineDocker(this.host, args, 30_000);
          } catch {
            // not in swarm mode, or no longer answering: stopping is what matters
          }
        }
      }
      await stopPid(this.child.pid, () => this.exited);
      // After a clean stop nothing is left; after a SIGKILL containerd and its shims are.
      for (const pid of processesUnder(this.dir)) await stopPid(pid);
      unmountUnder(this.dir);
      this.ownBridge?.remove();
      this.namespace?.remove();
      rmSync(this.dir, { recursive: true, force: true });
    })();
    return this.stopping;
  }
}
