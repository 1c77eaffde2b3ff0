/**
 * A simulated fleet: N nodes in one process, each its own session over the agent
 * protocol, each running its tasks with the simulated executor. They share one timer
 * wheel and a few gRPC channels, so thousands fit in one process.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { AgentSession, JoinRefusedError } from './agent-session';
import { DispatcherChannels } from './dispatcher-channels';
import { dispatcherKeeper, keptDispatchers } from './kept-dispatchers';
import { NANO_CPUS_PER_CPU, nodeDescription } from './node-description';
import { SimulatedExecutor } from './simulated-executor';
import { TimerWheel } from './timers';

/** A label value for every node, or values dealt out in turn (node i gets values[i % n]). */
export type FleetLabels = Readonly<Record<string, string | readonly string[]>>;

export interface SimulatedFleetOptions {
  /** host:port of each dispatcher the nodes may join through (see AgentSessionOptions). */
  readonly dispatchers: readonly string[];
  readonly joinToken: string;
  readonly nodes: number;
  /** CPUs per node (default 4). */
  readonly cpus?: number;
  /** Memory per node in bytes (default 8 GiB). */
  readonly memoryBytes?: number;
  /** Engine labels: `{ tier: 'web', zone: ['a', 'b', 'c'] }` spreads the zones across nodes. */
  readonly labels?: FleetLabels;
  /** Node i is named `${hostnamePrefix}${i + 1}` (default "sim-node-"). */
  readonly hostnamePrefix?: string;
  /** How many nodes share one gRPC channel (default 500). */
  readonly sessionsPerChannel?: number;
  /** Nodes started together before the next ones (default 250). */
  readonly joinWave?: number;
  /** Where the fleet keeps its node ids, so a restarted fleet joins as the same nodes, and the dispatchers its sessions listed. */
  readonly stateDir?: string;
  /** Told once when a node's join token is refused after the fleet started (a rotated token). */
  readonly onError?: (error: Error) => void;
  readonly log?: (line: string) => void;
  /** Called on each heartbeat any node sends (for /metrics). */
  readonly onHeartbeat?: () => void;
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
}

const GIB = 2 ** 30;

/** The labels of node `index`: fixed values as they are, lists dealt out in turn. */
export const labelsOfNode = (labels: FleetLabels, index: number): Record<string, string> => {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(labels)) {
    if (typeof value === 'string') result[key] = value;
    else if (value.length > 0) result[key] = value[index % value.length] as string;
  }
  return result;
};

export class SimulatedFleet {
  private readonly timers = new TimerWheel(25);
  private readonly channels: DispatcherChannels;
  private readonly sessions: AgentSession[] = [];
  private keptIds: (string | undefined)[] = [];
  /** The dispatchers an earlier run's sessions listed (with a state directory). */
  private knownDispatchers: string[] = [];
  private connectedCount = 0;
  private stopped = false;
  private reportedError = false;
  private started = false;

  constructor(private readonly options: SimulatedFleetOptions) {
    if (!Number.isInteger(options.nodes) || options.nodes < 0) throw new Error(`a fleet needs a whole number of nodes, not ${options.nodes}`);
    if (options.cpus !== undefined && !(options.cpus > 0)) throw new Error(`cpus per node must be positive, not ${options.cpus}`);
    if (options.memoryBytes !== undefined && !(options.memoryBytes > 0)) throw new Error(`memory per node must be positive, not ${options.memoryBytes}`);
    this.channels = new DispatcherChannels(options.sessionsPerChannel ?? 500);
  }

  /** Nodes with a session up now. */
  get connected(): number {
    return this.connectedCount;
  }

  get size(): number {
    return this.options.nodes;
  }

  /** The node ids the dispatcher gave, in node order (undefined until a node has joined). */
  get nodeIds(): (string | undefined)[] {
    return this.sessions.map((session) => session.nodeId);
  }

  /** gRPC channels (connections) the fleet has open. */
  get channelCount(): number {
    return this.channels.size;
  }

  /** Tasks the fleet's nodes hold. */
  get tasks(): number {
    return this.sessions.reduce((count, session) => count + session.worker.size, 0);
  }

  /** Starts every node; resolves once all have joined, rejects (and stops the fleet) if the join token is refused. */
  async start(): Promise<void> {
    const { nodes, joinWave = 250 } = this.options;
    this.keptIds = this.readKeptIds();
    this.knownDispatchers = keptDispatchers(this.options.stateDir);
    try {
      for (let first = 0; first < nodes && !this.stopped; first += joinWave) {
        const wave: Promise<void>[] = [];
        for (let index = first; index < Math.min(nodes, first + joinWave); index += 1) wave.push(this.startNode(index));
        await Promise.all(wave);
      }
    } catch (error) {
      await this.stop();
      throw error;
    }
    this.started = true;
    this.keepIds();
    this.options.log?.(`${nodes} simulated nodes joined the dispatcher at ${this.options.dispatchers.join(' or ')}`);
  }

  /** Ends every node's session (their simulated tasks end with the process). */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.sessions.map((session) => session.stop()));
    this.channels.close();
  }

  private get idsFile(): string | undefined {
    return this.options.stateDir ? join(this.options.stateDir, 'node-ids.json') : undefined;
  }

  private readKeptIds(): (string | undefined)[] {
    const file = this.idsFile;
    if (!file) return [];
    try {
      const ids: unknown = JSON.parse(readFileSync(file, 'utf8'));
      return Array.isArray(ids) ? ids.map((id) => (typeof id === 'string' && id !== '' ? id : undefined)) : [];
    } catch {
      return [];
    }
  }

  private keepIds(): void {
    const file = this.idsFile;
    if (!file || !this.options.stateDir) return;
    mkdirSync(this.options.stateDir, { recursive: true });
    writeFileSync(`${file}.tmp`, JSON.stringify(this.nodeIds));
    renameSync(`${file}.tmp`, file);
  }

  private async startNode(index: number): Promise<void> {
    const keptId = this.keptIds[index];
    try {
      await this.openNode(index, keptId);
    } catch (error) {
      // A kept node that was removed from the cluster since: this run's node joins as a new one.
      if (!(keptId && error instanceof JoinRefusedError && error.code === GrpcStatus.PERMISSION_DENIED)) throw error;
      this.options.log?.(`node ${keptId} was removed from the cluster; joining as a new node instead`);
      await this.openNode(index, undefined);
    }
  }

  private openNode(index: number, nodeId: string | undefined): Promise<void> {
    const { cpus = 4, memoryBytes = 8 * GIB, labels = {}, hostnamePrefix = 'sim-node-' } = this.options;
    const description = nodeDescription({
      hostname: `${hostnamePrefix}${index + 1}`,
      nanoCpus: Math.round(cpus * NANO_CPUS_PER_CPU),
      memoryBytes,
      labels: labelsOfNode(labels, index),
      engineVersion: 'shoal-agent simulated',
    });
    const session = new AgentSession({
      dispatchers: this.options.dispatchers,
      knownDispatchers: this.knownDispatchers,
      // Every node hears the same list: the first keeps it for the fleet.
      ...(index === 0 ? { onDispatchers: dispatcherKeeper(this.options.stateDir, (line) => this.options.log?.(line)) } : {}),
      joinToken: this.options.joinToken,
      executor: new SimulatedExecutor(description, this.timers),
      channels: this.channels,
      index,
      nodeId,
      timers: this.timers,
      backoff: this.options.backoff,
      onConnectionChange: (connected) => {
        this.connectedCount += connected ? 1 : -1;
      },
      ...(this.options.onHeartbeat ? { onHeartbeat: this.options.onHeartbeat } : {}),
      onFailure: (error) => {
        if (this.started && !this.stopped && !this.reportedError) {
          this.reportedError = true;
          this.options.onError?.(error);
        }
      },
      // One node speaks for the fleet: thousands of identical lines help no one.
      log: index === 0 ? (line) => this.options.log?.(`${description.hostname}: ${line}`) : undefined,
    });
    this.sessions[index] = session;
    return session.start();
  }
}
