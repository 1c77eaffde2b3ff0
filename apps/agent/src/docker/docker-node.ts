/**
 * One node whose tasks are containers on a Docker engine, for an in-process host (the
 * all-in-one with SHOAL_EXECUTOR=docker): its session with the dispatcher and its docker
 * executor. Given a state directory it keeps its node id there, so that restarted it is
 * the same node and adopts the containers it left.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentSession } from '../agent-session';
import { DispatcherChannels } from '../dispatcher-channels';
import { TimerWheel } from '../timers';
import { DockerExecutor } from './docker-executor';
import { EngineClient } from './engine-client';

export interface DockerNodeOptions {
  readonly dispatchers: readonly string[];
  readonly joinToken: string;
  /** The engine's address (unix:///var/run/docker.sock, tcp://host:port). */
  readonly engine: string;
  /** Where the node keeps its id (`node-id`). */
  readonly stateDir?: string;
  readonly hostname?: string;
  readonly labels?: Readonly<Record<string, string>>;
  /** The host address published ports bind to (default: every address). */
  readonly publishAddress?: string;
  readonly log?: (line: string) => void;
  /** Told once if the node stops for good (its join token refused). */
  readonly onError?: (error: Error) => void;
}

const NODE_ID_FILE = 'node-id';

export class DockerNode {
  private readonly timers = new TimerWheel(25);
  private readonly channels = new DispatcherChannels();
  private session: AgentSession | undefined;
  private executor: DockerExecutor | undefined;

  constructor(private readonly options: DockerNodeOptions) {}

  get nodeId(): string | undefined {
    return this.session?.nodeId;
  }

  get connected(): boolean {
    return this.session?.connected ?? false;
  }

  /** Connects to the engine and joins; resolves once the node has joined. */
  async start(): Promise<void> {
    const kept = this.keptId();
    const executor = await DockerExecutor.connect({
      engine: new EngineClient(this.options.engine),
      nodeId: () => this.session?.nodeId ?? kept,
      hostname: this.options.hostname,
      labels: this.options.labels,
      publishAddress: this.options.publishAddress,
      log: this.options.log,
    });
    this.executor = executor;
    this.session = new AgentSession({
      dispatchers: this.options.dispatchers,
      joinToken: this.options.joinToken,
      executor,
      channels: this.channels,
      timers: this.timers,
      nodeId: kept,
      log: this.options.log,
      onFailure: this.options.onError,
    });
    await this.session.start();
    this.keepId(this.session.nodeId);
  }

  /** Stops the node's containers (reporting how they ended) and leaves. */
  async stop(): Promise<void> {
    await this.session?.stop({ stopTasks: true });
    this.channels.close();
    this.executor?.close();
  }

  private keptId(): string | undefined {
    if (!this.options.stateDir) return undefined;
    try {
      return readFileSync(join(this.options.stateDir, NODE_ID_FILE), 'utf8').trim() || undefined;
    } catch {
      return undefined;
    }
  }

  private keepId(nodeId: string | undefined): void {
    if (!this.options.stateDir || !nodeId) return;
    mkdirSync(this.options.stateDir, { recursive: true });
    writeFileSync(join(this.options.stateDir, NODE_ID_FILE), `${nodeId}\n`);
  }
}
