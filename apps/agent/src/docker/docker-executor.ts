/**
 * The docker executor: each task is one container on a Docker engine, after SwarmKit's
 * agent/exec/dockerapi. The container is named `<service>.<slot>.<task id>` (a global
 * service's `<service>.<node id>.<task id>`) and carries SwarmKit's labels, the node's id
 * among them. Its states follow the container, heard on the engine's event stream:
 *
 *   prepare  the image is there (else pulled; a pull that fails is told in the agent's log,
 *            and the container's creation then rejects the task with the engine's "No such
 *            image", as on Docker), the configs written on tmpfs, the engine network of each
 *            of its Shoal networks there (engine-networks), the container created on
 *            them with the allocator's addresses
 *   start    the container started; with a healthcheck, RUNNING only once it is healthy
 *            (unhealthy first, or dead first: FAILED); then its addresses answer its
 *            service's virtual IPs on the node (service-vips)
 *   wait     its `die`: the exit code, with the engine's error or an OOM kill; turning
 *            unhealthy later fails the task too (and stops the container); its addresses
 *            answer its service's virtual IPs no longer
 *   stop     the engine's stop: the stop signal, the grace period, then SIGKILL
 *   remove   the container (and its anonymous volumes) and its config files go, and each
 *            of its engine networks that no container uses any longer
 *
 * Its logs are read from the engine (followed, with their times) into the task's log.
 * A restarted agent adopts the containers of its tasks (`adopt`): it resumes following
 * them, hears an exit that happened while it was away, and starts nothing twice; the
 * containers of tasks the node no longer has go (`keepOnly`).
 */
import type { NodeDescriptionMessage } from '@shoal/protocol';
import { DEFAULT_STOP_GRACE_PERIOD_MS, TaskFailure } from '../executor';
import type { AssignedTask, Executor, TaskContainer, TaskController, TaskExit, TaskOutput } from '../executor';
import { ConfigFiles } from './config-files';
import { containerConfig, engineNetworkName, LABELS, nodeNetworks } from './container-config';
import { FrameReader, RawReader } from './container-logs';
import { EngineError, readJsonLines } from './engine-client';
import type { EngineClient } from './engine-client';
import { EngineEvents } from './engine-events';
import type { ContainerEvent } from './engine-events';
import { ensureNetwork, removeUnusedNetwork } from './engine-networks';
import { ServiceVips } from './service-vips';

export interface DockerExecutorOptions {
  readonly engine: EngineClient;
  /** The node's id, once it has joined (the containers' label; whose containers it adopts). */
  readonly nodeId: () => string | undefined;
  /** The node as the dispatcher sees it (engineDescription). */
  readonly description: NodeDescriptionMessage;
  /** Where configs are written (on tmpfs); default /dev/shm/shoal-configs. */
  readonly configFiles?: ConfigFiles;
  /** The host address published ports bind to (default: every address, as Docker's). */
  readonly publishAddress?: string;
  readonly log?: (line: string) => void;
}

/** What `GET /containers/{id}/json` answers, as far as the executor reads it. */
interface ContainerInspect {
  readonly Id: string;
  readonly Config?: { readonly Tty?: boolean; readonly Labels?: Record<string, string> };
  readonly State: {
    readonly Status: string;
    readonly Pid?: number;
    readonly ExitCode?: number;
    readonly Error?: string;
    readonly OOMKilled?: boolean;
    readonly Health?: { readonly Status?: string };
  };
}

const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** 404 (no such container) and 304 (already so) are answers, not errors, for start, stop and remove. */
const tolerating = async (work: Promise<unknown>, codes: readonly number[]): Promise<void> => {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof EngineError && codes.includes(error.statusCode))) throw error;
  }
};

/**
 * Pulls the image unless the engine has it: the engine's message when the pull fails,
 * undefined when the image is there. A failed pull is not the task's end, as on Docker: the
 * container is created anyway, and the engine's refusal ("No such image: …") rejects the task.
 */
export const pullIfMissing = async (engine: EngineClient, image: string): Promise<string | undefined> => {
  if (await engine.find('GET', `/images/${encodeURI(image)}/json`)) return undefined;
  let stream: Awaited<ReturnType<EngineClient['open']>>;
  try {
    stream = await engine.open('POST', '/images/create', { query: { fromImage: image } });
  } catch (error) {
    // Refused before any progress (the registry unreachable): the engine's answer is the failure.
    if (error instanceof EngineError) return error.message;
    throw error;
  }
  let failure: string | undefined;
  await readJsonLines(stream, (object) => {
    const error = (object as { error?: unknown }).error;
    if (typeof error === 'string') failure ??= error;
  });
  return failure;
};

/** The node's description from the engine's `/info`: its name, CPUs, memory, engine labels and plugins. */
export const engineDescription = async (engine: EngineClient, options: { hostname?: string; labels?: Readonly<Record<string, string>> } = {}): Promise<NodeDescriptionMessage> => {
  const info = await engine.call<{
    Name?: string;
    NCPU?: number;
    MemTotal?: number;
    Labels?: string[];
    ServerVersion?: string;
    OSType?: string;
    Architecture?: string;
    Plugins?: Record<string, string[] | null>;
  }>('GET', '/info');
  const engineLabels: Record<string, string> = {};
  for (const label of info.Labels ?? []) {
    const equals = label.indexOf('=');
    if (equals > 0) engineLabels[label.slice(0, equals)] = label.slice(equals + 1);
  }
  const plugins = Object.entries(info.Plugins ?? {}).flatMap(([type, names]) => (names ?? []).map((name) => ({ type, name })));
  return {
    hostname: options.hostname ?? info.Name ?? 'docker',
    platform: { os: info.OSType ?? 'linux', architecture: info.Architecture ?? 'x86_64' },
    nanoCpus: (info.NCPU ?? 1) * 1_000_000_000,
    memoryBytes: info.MemTotal ?? 0,
    generic: [],
    engineVersion: info.ServerVersion ?? '',
    engineLabels: { ...engineLabels, ...(options.labels ?? {}) },
    plugins,
  };
};

export class DockerExecutor implements Executor {
  private events: { nodeId: string; stream: EngineEvents; ready: Promise<void> } | undefined;
  /** The tasks it has a controller for, by id: keepOnly leaves their containers be. */
  private readonly live = new Map<string, DockerController>();
  /** The engine networks' work, one piece at a time: a removal never takes a network a container is about to join. */
  private networkWork: Promise<unknown> = Promise.resolve();
  readonly configFiles: ConfigFiles;
  readonly vips: ServiceVips;

  constructor(private readonly options: DockerExecutorOptions) {
    this.configFiles = options.configFiles ?? new ConfigFiles();
    this.vips = new ServiceVips(options.engine, () => this.nodeId(), (line) => this.say(line));
  }

  /** An executor on the engine at `engine`, the node described by the engine's `/info`. */
  static async connect(options: Omit<DockerExecutorOptions, 'description'> & { hostname?: string; labels?: Readonly<Record<string, string>> }): Promise<DockerExecutor> {
    const description = await engineDescription(options.engine, { hostname: options.hostname, labels: options.labels });
    return new DockerExecutor({ ...options, description });
  }

  get engine(): EngineClient {
    return this.options.engine;
  }

  get publishAddress(): string | undefined {
    return this.options.publishAddress;
  }

  describe(): NodeDescriptionMessage {
    return this.options.description;
  }

  controller(task: AssignedTask, output: TaskOutput): TaskController {
    return this.track(new DockerController(this, task, output, false));
  }

  adopt(task: AssignedTask, output: TaskOutput): TaskController {
    return this.track(new DockerController(this, task, output, true));
  }

  keepOnly(taskIds: ReadonlySet<string>): void {
    void this.removeAllBut(taskIds).catch((error: unknown) => this.say(`could not remove the containers of tasks the node no longer has: ${errorText(error)}`));
  }

  /** The node's id; an error before it has joined. */
  nodeId(): string {
    const id = this.options.nodeId();
    if (!id) throw new Error('the node has no id yet: it has not joined');
    return id;
  }

  /** The node's container events, the stream open. */
  async containerEvents(): Promise<EngineEvents> {
    const nodeId = this.nodeId();
    if (this.events?.nodeId !== nodeId) {
      this.events?.stream.close();
      const stream = new EngineEvents(this.engine, nodeId, (line) => this.say(line));
      this.events = { nodeId, stream, ready: stream.ready() };
    }
    const { stream, ready } = this.events;
    await ready;
    return stream;
  }

  /** The node's containers of one task, or of all its tasks. */
  async containersOf(taskId?: string): Promise<{ Id: string; Labels?: Record<string, string>; NetworkSettings?: { Networks?: Record<string, unknown> } }[]> {
    const label = [`${LABELS.nodeId}=${this.nodeId()}`, ...(taskId ? [`${LABELS.taskId}=${taskId}`] : [])];
    return this.engine.call('GET', '/containers/json', { query: { all: 1, filters: JSON.stringify({ label }) } });
  }

  /** Runs `work` once the engine networks' work before it is done (whatever its outcome). */
  withNetworks<T>(work: () => Promise<T>): Promise<T> {
    const next = this.networkWork.then(work, work);
    this.networkWork = next.catch(() => undefined);
    return next;
  }

  /** Each of `networks` (engine networks' names) that no container uses any longer goes; best effort: a failure is said, never thrown. */
  releaseNetworks(networks: readonly string[]): Promise<void> {
    return this.withNetworks(async () => {
      for (const name of networks) {
        try {
          if (await removeUnusedNetwork(this.engine, name)) this.say(`removed engine network ${name}: no container uses it any longer`);
        } catch (error) {
          this.say(`could not remove engine network ${name}: ${errorText(error)}`);
        }
      }
    });
  }

  forget(controller: DockerController): void {
    if (this.live.get(controller.taskId) === controller) this.live.delete(controller.taskId);
  }

  say(line: string): void {
    this.options.log?.(line);
  }

  /** Stops following events (the agent is going). Its containers stay, to be adopted by the next agent. */
  close(): void {
    this.events?.stream.close();
    this.events = undefined;
  }

  private track(controller: DockerController): DockerController {
    this.live.set(controller.taskId, controller);
    return controller;
  }

  private async removeAllBut(taskIds: ReadonlySet<string>): Promise<void> {
    for (const container of await this.containersOf()) {
      const taskId = container.Labels?.[LABELS.taskId];
      if (!taskId || taskIds.has(taskId) || this.live.has(taskId)) continue;
      this.say(`removing container ${container.Id.slice(0, 12)} of task ${taskId}, which the node no longer has`);
      await tolerating(this.engine.call('DELETE', `/containers/${container.Id}`, { query: { force: 1, v: 1 } }), [404, 409]);
      await this.configFiles.remove(taskId);
      await this.releaseNetworks(Object.keys(container.NetworkSettings?.Networks ?? {}));
    }
  }
}

class DockerController implements TaskController {
  private containerId: string | undefined;
  /** The container's process while it runs (the engine's State.Pid once started); 0 before and after. */
  private pid = 0;
  private preparing: Promise<void> | undefined;
  private readonly ended: Promise<TaskExit>;
  private settle!: { resolve: (exit: TaskExit) => void; reject: (error: Error) => void };
  private exit: TaskExit | undefined;
  private oomKilled = false;
  /** Waiting to be healthy: what the health events settle. */
  private health: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private unlisten: (() => void) | undefined;
  private readonly logs = new AbortController();
  private removed = false;

  constructor(
    private readonly executor: DockerExecutor,
    private readonly task: AssignedTask,
    private readonly output: TaskOutput,
    private readonly adopted: boolean,
  ) {
    this.ended = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    // The runner may never wait (stopped first): a rejection nobody heard is no error.
    this.ended.catch(() => undefined);
  }

  get taskId(): string {
    return this.task.id;
  }

  private get engine(): EngineClient {
    return this.executor.engine;
  }

  prepare(): Promise<void> {
    this.preparing = this.prepareContainer();
    return this.preparing;
  }

  private async prepareContainer(): Promise<void> {
    const nodeId = this.executor.nodeId();
    // The mapping first: a field it cannot honour rejects the task before anything is made.
    containerConfig({ task: this.task, nodeId });
    const pullFailed = await pullIfMissing(this.engine, this.task.spec.container.image);
    if (pullFailed !== undefined) this.executor.say(`task ${this.task.id}: pulling ${this.task.spec.container.image} failed (${pullFailed}); its container is created without it`);
    const configFiles = await this.executor.configFiles.write(this.task.id, this.task.configs);
    const { name, body, connect } = containerConfig({ task: this.task, nodeId, configFiles, publishAddress: this.executor.publishAddress });
    const networks = nodeNetworks(this.task);
    if (networks.length === 0) {
      await this.createContainer(name, body);
      return;
    }
    await this.executor.withNetworks(async () => {
      for (const network of networks) await ensureNetwork(this.engine, network);
      if (!(await this.createContainer(name, body))) return;
      for (const { network, body: endpoint } of connect) await this.engine.call('POST', `/networks/${encodeURIComponent(network)}/connect`, { body: endpoint });
    });
  }

  /** Creates the task's container; false when an earlier agent had made it for this very task (taken as it is). */
  private async createContainer(name: string, body: Record<string, unknown>): Promise<boolean> {
    try {
      const created = await this.engine.call<{ Id: string }>('POST', '/containers/create', { query: { name }, body });
      this.containerId = created.Id;
      return true;
    } catch (error) {
      if (!(error instanceof EngineError && error.statusCode === 409)) throw error;
      // Made by an earlier agent for this very task (it went before the task was reported further): take it.
      const existing = await this.engine.find<ContainerInspect>('GET', `/containers/${encodeURIComponent(name)}/json`);
      if (existing?.Config?.Labels?.[LABELS.taskId] !== this.task.id) throw error;
      this.containerId = existing.Id;
      return false;
    }
  }

  async start(): Promise<void> {
    const events = await this.executor.containerEvents();
    const id = await this.container();
    if (id === undefined) throw new TaskFailure('the agent restarted and the task did not survive it: its container is gone');
    // Listening before looking: an event between the two is heard, not lost.
    this.unlisten = events.listen(id, (event) => this.heard(event));
    const healthy = new Promise<void>((resolve, reject) => (this.health = { resolve, reject }));
    healthy.catch(() => undefined);
    let state = await this.inspect(id);
    if (!this.adopted || state.State.Status === 'created') {
      await tolerating(this.engine.call('POST', `/containers/${id}/start`), [304]);
      state = await this.inspect(id);
    }
    if (!this.exit) this.pid = state.State.Pid ?? 0;
    this.followLogs(id, state.Config?.Tty === true);
    // A container with a healthcheck has a health status from its start; one without has nothing to wait for.
    const health = state.State.Health?.Status;
    if (health === undefined || health === 'healthy') this.health = undefined;
    if (state.State.Status === 'exited' || state.State.Status === 'dead') this.ends(state);
    if (health !== undefined && health !== 'healthy') {
      if (health === 'unhealthy') this.unhealthy();
      try {
        await healthy;
      } finally {
        this.health = undefined;
      }
    }
    if (this.exit) return;
    await this.executor.vips.taskUp(this.task, state.State.Pid);
    // It ended while its VIPs were being made: they answer it no longer.
    if (this.exit) await this.executor.vips.taskDown(this.task.id);
  }

  wait(): Promise<TaskExit> {
    return this.ended;
  }

  /** The container prepare made (or an adopted task's, once found), with its process while it runs. */
  containerStatus(): TaskContainer | undefined {
    return this.containerId === undefined ? undefined : { containerId: this.containerId, pid: this.pid };
  }

  async endedBefore(): Promise<TaskExit | undefined> {
    const id = await this.container();
    if (id === undefined) return undefined;
    const state = await this.inspect(id);
    if (state.State.Status !== 'exited' && state.State.Status !== 'dead') return undefined;
    this.followLogs(id, state.Config?.Tty === true);
    this.ends(state);
    return this.exit;
  }

  async stop(gracePeriodMs: number): Promise<void> {
    await this.preparing?.catch(() => undefined);
    const id = this.containerId ?? (this.adopted ? await this.container() : undefined);
    if (id === undefined || this.exit) return;
    await tolerating(this.engine.call('POST', `/containers/${id}/stop`, { query: { t: Math.ceil(gracePeriodMs / 1000) } }), [304, 404]);
    // The engine answers once the container stopped: its process is gone.
    this.pid = 0;
  }

  async remove(): Promise<void> {
    if (this.removed) return;
    this.removed = true;
    await this.preparing?.catch(() => undefined);
    this.unlisten?.();
    this.logs.abort();
    await this.executor.vips.taskDown(this.task.id);
    const id = this.containerId ?? (await this.container().catch(() => undefined));
    if (id !== undefined) {
      await tolerating(this.engine.call('DELETE', `/containers/${id}`, { query: { force: 1, v: 1 } }), [404, 409]).catch((error: unknown) =>
        this.executor.say(`task ${this.task.id}: could not remove container ${id.slice(0, 12)}: ${errorText(error)}`),
      );
    }
    await this.executor.configFiles.remove(this.task.id);
    await this.executor.releaseNetworks(nodeNetworks(this.task).map(engineNetworkName));
    this.executor.forget(this);
  }

  /** The task's container: the one prepare made, or for an adopted task the one on the engine with its labels (none: undefined). */
  private async container(): Promise<string | undefined> {
    if (this.containerId !== undefined || !this.adopted) return this.containerId;
    const [found] = await this.executor.containersOf(this.task.id);
    this.containerId = found?.Id;
    return this.containerId;
  }

  private inspect(id: string): Promise<ContainerInspect> {
    return this.engine.call<ContainerInspect>('GET', `/containers/${id}/json`);
  }

  private heard(event: ContainerEvent): void {
    if (event.action === 'oom') this.oomKilled = true;
    else if (event.action === 'health_status: healthy') this.health?.resolve();
    else if (event.action === 'health_status: unhealthy') this.unhealthy();
    else if (event.action === 'die') {
      const code = Number(event.attributes.exitCode ?? 0);
      // The engine's own account (its error, an OOM kill) is in the container's state.
      this.inspect(event.containerId).then(
        (state) => this.ends(state),
        () => this.ends({ Id: event.containerId, State: { Status: 'exited', ExitCode: code } }),
      );
    }
  }

  /** The container ended: the task's exit, with what the engine says of it. */
  private ends(state: ContainerInspect): void {
    if (this.exit) return;
    this.pid = 0;
    const exitCode = state.State.ExitCode ?? 0;
    const oom = this.oomKilled || state.State.OOMKilled === true;
    const detail = [state.State.Error, oom ? 'out of memory (the container was OOM-killed)' : undefined].filter(Boolean).join('; ');
    this.exit = { exitCode, ...(detail ? { detail } : {}) };
    void this.executor.vips.taskDown(this.task.id);
    const before = this.health;
    this.health = undefined;
    before?.reject(new TaskFailure(`the container exited with code ${exitCode} before it was healthy${detail ? `: ${detail}` : ''}`, exitCode));
    this.settle.resolve(this.exit);
  }

  /** Unhealthy: the task fails (before it was up, its start; after, its wait), and its container is stopped. */
  private unhealthy(): void {
    if (this.exit) return;
    const failure = new TaskFailure('the container is unhealthy: its healthcheck failed');
    const before = this.health;
    this.health = undefined;
    if (before) before.reject(failure);
    else this.settle.reject(failure);
    void this.stop(this.task.spec.container.stopGracePeriodMs ?? DEFAULT_STOP_GRACE_PERIOD_MS).catch(() => undefined);
  }

  /** The container's logs (all of them, followed, with their times) into the task's log; the log ends with them. */
  private followLogs(id: string, tty: boolean): void {
    const query = { follow: 1, stdout: 1, stderr: 1, timestamps: 1 };
    this.engine.open('GET', `/containers/${id}/logs`, { query, signal: this.logs.signal }).then(
      (stream) => {
        const reader = tty ? new RawReader(this.output) : new FrameReader(this.output);
        stream.on('data', (chunk: Buffer) => reader.push(chunk));
        stream.once('end', () => {
          if (reader instanceof RawReader) reader.end();
          this.output.end();
        });
        stream.once('error', () => undefined);
      },
      (error: unknown) => {
        if (this.logs.signal.aborted) return;
        this.output.write('stderr', `the engine's logs of this container cannot be read: ${errorText(error)}\n`);
      },
    );
  }
}
