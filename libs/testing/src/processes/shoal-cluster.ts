/**
 * Shoal deployed as separate processes on the test broker, for end-to-end tests: the API,
 * then an initialised cluster, then every component (`shoal run <component>`, schedulers
 * as many as asked), each with its health port, and agents of simulated nodes joined
 * through the dispatcher. Everything is stopped by the ShoalProcesses it was started in.
 */
import { join } from 'node:path';
import { eventually } from '../eventually';
import { dockerApi } from './docker-api';
import type { DockerAnswer } from './docker-api';
import { dockerCli } from './docker-cli';
import type { DockerCliOptions, DockerCliResult } from './docker-cli';
import type { ShoalProcesses } from './shoal-processes';
import type { ShoalProcess } from './spawn-shoal';

export const COMPONENTS = ['allocator', 'orchestrator', 'scheduler', 'reaper', 'dispatcher'] as const;
export type ComponentName = (typeof COMPONENTS)[number];

/** What a component answers on /healthz. */
export interface ComponentHealth {
  readonly component: string;
  readonly state: string;
  readonly term?: number;
  readonly position: number;
}

/** A component's process and the port of its health endpoints. */
export interface RunningComponent {
  readonly name: ComponentName;
  readonly process: ShoalProcess;
  readonly healthPort: number;
  /** A dispatcher's agent address, `127.0.0.1:<port>`. */
  readonly agents?: string;
}

export interface ClusterOptions {
  /** How many scheduler processes (default 1); the rest stand by. */
  readonly schedulers?: number;
  /** A second process of every component, standing by (default none beyond the extra schedulers). */
  readonly standbys?: boolean;
  /** The swarm spec `docker swarm init` would send (default: a heartbeat period of 1 s, so dead nodes go DOWN within seconds). */
  readonly swarmSpec?: Record<string, unknown>;
}

export interface AgentOptions {
  /** Simulated nodes in the agent process (default 2). */
  readonly nodes?: number;
  /** More `shoal agent` arguments: `--label-cycle zone=a,b`, `--memory 1GiB`, … */
  readonly args?: readonly string[];
  /** The join token to present (default the cluster's current worker token). */
  readonly token?: string;
}

const healthPortOf = async (p: ShoalProcess): Promise<number> => Number((await p.waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, 90_000))[1]);

/** `shoal run <name>` for each name; the dispatcher on `dispatcherPort` when given. */
const startComponents = async (
  deployment: ShoalProcesses,
  names: readonly ComponentName[],
  dispatcherPort?: string,
): Promise<{ components: RunningComponent[]; dispatcherPort: string }> => {
  // The first dispatcher on the port asked for; any other on a free one.
  const processes = names.map((name, i) =>
    deployment.cli(['run', name], name === 'dispatcher' && dispatcherPort && names.indexOf('dispatcher') === i ? { SHOAL_DISPATCHER_PORT: dispatcherPort } : {}),
  );
  const components = await Promise.all(names.map((name, i) => runningComponent(name, processes[i]!)));
  const port = components.find((c) => c.name === 'dispatcher')!.agents!.split(':')[1]!;
  return { components, dispatcherPort: port };
};

/** A component process once it says where it serves: its health port, and a dispatcher's agent address. */
const runningComponent = async (name: ComponentName, process: ShoalProcess): Promise<RunningComponent> => {
  const healthPort = await healthPortOf(process);
  if (name !== 'dispatcher') return { name, process, healthPort };
  const [, agents] = await process.waitFor(/dispatcher: agents on (127\.0\.0\.1:\d+)/, 90_000);
  return { name, process, healthPort, agents: agents! };
};

export class ShoalCluster {
  private constructor(
    readonly deployment: ShoalProcesses,
    private apiProcess: ShoalProcess,
    private running: RunningComponent[],
    /** The dispatcher's agent address, `127.0.0.1:<port>`; it keeps its port across restarts. */
    readonly dispatcher: string,
  ) {}

  get api(): ShoalProcess {
    return this.apiProcess;
  }

  get components(): readonly RunningComponent[] {
    return this.running;
  }

  /**
   * Starts the API, initialises the cluster, starts every component and waits until each
   * is active (and every extra scheduler stands by). The processes get no fixed ports.
   */
  static async start(deployment: ShoalProcesses, options: ClusterOptions = {}): Promise<ShoalCluster> {
    const api = deployment.cli(['run', 'api']);
    await api.waitFor(/api: listening on/, 90_000);
    const init = await dockerApi(join(deployment.dataDir, 'shoal.sock'), 'POST', '/v1.47/swarm/init', {
      ListenAddr: '0.0.0.0:2377',
      Spec: options.swarmSpec ?? { Dispatcher: { HeartbeatPeriod: 1_000_000_000 } },
    });
    if (init.status !== 200) throw new Error(`swarm init answered ${init.status}: ${JSON.stringify(init.body)}`);
    const names: ComponentName[] = [
      ...COMPONENTS,
      ...(options.standbys ? COMPONENTS : []),
      ...Array.from({ length: Math.max(0, (options.schedulers ?? 1) - 1) }, () => 'scheduler' as const),
    ];
    const { components, dispatcherPort } = await startComponents(deployment, names);
    const cluster = new ShoalCluster(deployment, api, components, `127.0.0.1:${dispatcherPort}`);
    await cluster.untilEachActive();
    return cluster;
  }

  /**
   * Stops the API and every component (SIGTERM) and starts them all again, the dispatcher
   * on the port it had so that running agents find it again; waits until each component
   * is active again (an instance that had crashed starts again too). Agents keep running.
   */
  async restart(): Promise<void> {
    const live = [this.apiProcess, ...this.running.map((c) => c.process)].filter((p) => p.running);
    const codes = await Promise.all(live.map((p) => p.stop()));
    if (codes.some((code) => code !== 0)) throw new Error(`a process did not stop cleanly: exit codes ${codes.join(', ')}`);
    this.apiProcess = this.deployment.cli(['run', 'api']);
    await this.apiProcess.waitFor(/api: listening on/, 90_000);
    const port = this.dispatcher.split(':')[1]!;
    this.running = (await startComponents(this.deployment, this.running.map((c) => c.name), port)).components;
    await this.untilEachActive();
  }

  /**
   * Starts another instance in place of `instance` (one that crashed, say): a process of the
   * same component, on free ports, in line for the lease behind the others. Resolves once it
   * says where it serves.
   */
  async replace(instance: RunningComponent): Promise<RunningComponent> {
    const at = this.running.indexOf(instance);
    if (at < 0) throw new Error(`${instance.name} (pid ${instance.process.pid}) is not one of this cluster's instances`);
    const next = await runningComponent(instance.name, this.deployment.cli(['run', instance.name]));
    this.running[at] = next;
    return next;
  }

  /** Starts the API process again after it crashed (same data dir, same socket); resolves once it listens. */
  async restartApi(): Promise<ShoalProcess> {
    if (this.apiProcess.running) throw new Error('the API process still runs: crash or stop it first');
    this.apiProcess = this.deployment.cli(['run', 'api']);
    await this.apiProcess.waitFor(/api: listening on/, 90_000);
    return this.apiProcess;
  }

  /** Every dispatcher's agent address, comma-separated, as `shoal agent --dispatcher` takes them. */
  get dispatchers(): string {
    return this.instances('dispatcher').map((d) => d.agents!).join(',');
  }

  /** The API's unix socket. */
  get socket(): string {
    return join(this.deployment.dataDir, 'shoal.sock');
  }

  /** Waits until each component has exactly one active instance and the others stand by. */
  async untilEachActive(timeoutMs = 90_000): Promise<void> {
    await eventually('every component has one active instance', async () => {
      const states = await Promise.all(this.components.map(async (c) => ({ name: c.name, state: (await this.health(c)).state })));
      return COMPONENTS.every((name) => {
        const of = states.filter((s) => s.name === name).map((s) => s.state);
        return of.filter((s) => s === 'active').length === 1 && of.every((s) => s === 'active' || s === 'standby');
      })
        ? true
        : undefined;
    }, timeoutMs);
  }

  /** The instances of a component. */
  instances(name: ComponentName): RunningComponent[] {
    return this.components.filter((c) => c.name === name);
  }

  async health(component: RunningComponent): Promise<ComponentHealth> {
    return (await (await fetch(`http://127.0.0.1:${component.healthPort}/healthz`)).json()) as ComponentHealth;
  }

  /** A component's view position and the hash of its state there (/statez). */
  async stateHash(component: RunningComponent): Promise<ComponentHealth & { readonly hash: string }> {
    return (await (await fetch(`http://127.0.0.1:${component.healthPort}/statez`)).json()) as ComponentHealth & { readonly hash: string };
  }

  /** The worker join token. */
  async workerToken(): Promise<string> {
    return (await this.request<{ JoinTokens: { Worker: string } }>('GET', '/swarm')).body.JoinTokens.Worker;
  }

  /** `shoal agent --simulate N` joined through the dispatcher; node i is named `<prefix><i>`. */
  async agent(prefix: string, options: AgentOptions = {}): Promise<ShoalProcess> {
    const token = options.token ?? (await this.workerToken());
    return this.deployment.cli([
      'agent', '--simulate', String(options.nodes ?? 2), '--join-token', token, '--dispatcher', this.dispatchers, '--hostname-prefix', prefix, ...(options.args ?? []),
    ]);
  }

  /** Docker's Engine API over the socket. */
  request<T = unknown>(method: string, path: string, body?: unknown): Promise<DockerAnswer<T>> {
    return dockerApi<T>(this.socket, method, path, body);
  }

  /** The real docker CLI over the socket. */
  docker(args: readonly string[], options: DockerCliOptions = {}): Promise<DockerCliResult> {
    return dockerCli(this.deployment.dataDir, args, options);
  }
}
