/**
 * The deployment a chaos run works on: a broker of its own (so that it can be killed), every
 * component as two processes (one active, one standing by) through ShoalCluster, two API
 * processes (each its own data dir and socket), agent processes of simulated nodes, and a
 * view of the log of the run's own. Faults: kill -9 of a component's active instance (a
 * new standby started in its place), of an API (started again), of the broker (started
 * again on its data dir and port); each resolves once the deployment has recovered, with
 * how long that took.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logLevel } from 'kafkajs';
import { KafkaEventLog } from '@shoal/eventlog';
import { LiveView } from '@shoal/runtime';
import { LocalKafkaBroker } from '../../infra/kafka/broker';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { COMPONENTS, ShoalCluster } from '../../libs/testing/src/processes/shoal-cluster';
import type { ComponentName, RunningComponent } from '../../libs/testing/src/processes/shoal-cluster';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { eventually } from '../../libs/testing/src/eventually';

export type Fault = ComponentName | 'api' | 'broker';
export const FAULTS: readonly Fault[] = [...COMPONENTS, 'api', 'broker'];

export interface ChaosClusterOptions {
  /** Agent processes, and simulated nodes in each. */
  readonly agents: number;
  readonly nodesPerAgent: number;
  /** How long the broker stays down when it is killed. */
  readonly brokerOutageMs: number;
  /** How often each process saves its view (SHOAL_SNAPSHOT_EVERY_MS), so that restarts start from snapshots. */
  readonly snapshotEveryMs: number;
  readonly say: (line: string) => void;
  /** A Kafka of the caller's (a cluster of several nodes, whose faults the caller injects): no broker of the run's own, no 'broker' fault. */
  readonly kafka?: { readonly brokers: readonly string[] };
}

export interface ApiInstance {
  readonly name: string;
  readonly dataDir: string;
  readonly socket: string;
  process: ShoalProcess;
}

/** What one fault cost: from the kill until the deployment was whole again. */
export interface FaultOutcome {
  readonly fault: Fault;
  /** Kill → a standby of the component active (the broker: restart → every component active and every API ready). */
  readonly recoveredSeconds: number;
  /** When it was injected, and when the deployment was whole again (ms since the epoch). */
  readonly at: number;
  readonly wholeAt: number;
}

const WAIT_MS = 120_000;

/** A probe that answers undefined rather than throw (or hang, past `ms`) while a process is not answering. */
export const quietly = async <T>(probe: () => Promise<T>, ms = 10_000): Promise<T | undefined> => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([probe(), new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
};

export class ChaosCluster {
  readonly apis: ApiInstance[] = [];
  readonly agents: ShoalProcess[] = [];
  /** Processes the run killed on purpose: the only ones allowed not to be running at the end. */
  readonly killed = new Set<ShoalProcess>();
  /** What each process killed on purpose had said, by name and pid, for a report on a failed run. */
  private readonly killedOutput: { readonly name: string; readonly process: ShoalProcess }[] = [];
  view!: LiveView;
  private log!: KafkaEventLog;

  private constructor(
    private broker: LocalKafkaBroker | undefined,
    readonly deployment: ShoalProcesses,
    readonly cluster: ShoalCluster,
    private readonly options: ChaosClusterOptions,
  ) {}

  static async start(options: ChaosClusterOptions): Promise<ChaosCluster> {
    if (!options.kafka) options.say('starting a broker of the run\'s own…');
    const broker = options.kafka ? undefined : await LocalKafkaBroker.start();
    const brokers = options.kafka?.brokers ?? broker!.brokers;
    const deployment = ShoalProcesses.onKafka('chaos', {
      KAFKA_BROKERS: brokers.join(','),
      SHOAL_HEALTH_PORT: '0',
      SHOAL_API_PORT: '0',
      SHOAL_DISPATCHER_PORT: '0',
      SHOAL_SNAPSHOT_EVERY_MS: String(options.snapshotEveryMs),
    });
    let cluster: ShoalCluster | undefined;
    try {
      options.say('starting every component twice, and an API…');
      // SwarmKit's default heartbeat period: a loaded machine must not pass for dead nodes.
      cluster = await ShoalCluster.start(deployment, { standbys: true, swarmSpec: { Dispatcher: { HeartbeatPeriod: 5_000_000_000 } } });
      const chaos = new ChaosCluster(broker, deployment, cluster, options);
      chaos.apis.push({ name: 'api-1', dataDir: deployment.dataDir, socket: cluster.socket, process: cluster.api });
      chaos.apis.push(await chaos.startApi('api-2', join(deployment.dataDir, 'api-2')));
      // Quiet: it is meant to lose the broker now and then.
      chaos.log = await KafkaEventLog.open({ brokers: [...brokers], topic: chaos.topic, clientId: 'chaos-judge', logLevel: logLevel.NOTHING });
      chaos.view = new LiveView(chaos.log, { onHalted: () => undefined });
      await chaos.view.start();
      options.say(`starting ${options.agents} agent processes of ${options.nodesPerAgent} simulated nodes…`);
      for (let i = 0; i < options.agents; i++) chaos.agents.push(await cluster.agent(`sim${i + 1}-`, { nodes: options.nodesPerAgent }));
      const nodes = options.agents * options.nodesPerAgent;
      await eventually(`${nodes} nodes are ready`, () => [...chaos.view.state.nodes.values()].filter((n) => n.status.state === 'ready').length === nodes, WAIT_MS);
      return chaos;
    } catch (error) {
      await deployment.close();
      await broker?.stop();
      throw error;
    }
  }

  get brokers(): readonly string[] {
    return this.options.kafka?.brokers ?? this.broker!.brokers;
  }

  get topic(): string {
    return `${this.deployment.topicPrefix!}.events`;
  }

  /** The cluster's id: the key of its records. */
  get clusterId(): string {
    return this.view.state.cluster!.id;
  }

  /** The sockets of the API processes running now. */
  liveSockets(): string[] {
    return this.apis.filter((api) => api.process.running).map((api) => api.socket);
  }

  highWaterMark(): Promise<number> {
    return this.log.highWaterMark();
  }

  /**
   * Every record of the log, from offset 0 to `to`. A read that comes back empty short of
   * `to` is tried again for up to 30 s: right after a broker fault the leader a read reaches
   * may not yet expose records the log's end already counts.
   */
  async records(to: number): Promise<{ offset: number; value: string }[]> {
    const all: { offset: number; value: string }[] = [];
    const giveUpAt = Date.now() + 30_000;
    for (let from = 0; from < to; ) {
      const batch = await this.log.read(from, { to, max: 5_000 }).catch(() => []);
      if (batch.length === 0) {
        if (Date.now() > giveUpAt) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
        continue;
      }
      all.push(...batch);
      from = batch[batch.length - 1]!.offset + 1;
    }
    return all;
  }

  /** Kills `fault`'s active instance (or the broker) and resolves once the deployment is whole again. */
  async inject(fault: Fault): Promise<FaultOutcome> {
    const at = Date.now();
    const recoveredSeconds = await (fault === 'broker' ? this.crashBroker() : fault === 'api' ? this.crashApi() : this.crashActive(fault));
    return { fault, at, wholeAt: Date.now(), recoveredSeconds };
  }

  private async startApi(name: string, dataDir: string): Promise<ApiInstance> {
    const process = this.deployment.cli(['run', 'api'], { SHOAL_DATA_DIR: dataDir });
    await process.waitFor(/api: listening on/, WAIT_MS);
    return { name, dataDir, socket: join(dataDir, 'shoal.sock'), process };
  }

  /** The instance of `name` whose /healthz says active. */
  private async active(name: ComponentName): Promise<RunningComponent> {
    return eventually(`one ${name} is active`, async () => {
      for (const instance of this.cluster.instances(name)) {
        if ((await quietly(() => this.cluster.health(instance)))?.state === 'active') return instance;
      }
      return undefined;
    }, WAIT_MS);
  }

  /** kill -9 of the active instance, a new standby in its place; seconds until another instance is active. */
  private async crashActive(name: ComponentName): Promise<number> {
    const victim = await this.active(name);
    const killedAt = Date.now();
    await victim.process.crash();
    this.kept(victim.name, victim.process);
    await this.cluster.replace(victim);
    await this.active(name);
    const seconds = (Date.now() - killedAt) / 1_000;
    await this.untilWhole();
    return seconds;
  }

  /** kill -9 of an API process, started again on its data dir; seconds until it answers again. */
  private async crashApi(): Promise<number> {
    const victim = this.apis[this.apis.length - 1]!;
    const killedAt = Date.now();
    await victim.process.crash();
    this.kept(victim.name, victim.process);
    const again = await this.startApi(victim.name, victim.dataDir);
    victim.process = again.process;
    await this.untilWhole();
    return (Date.now() - killedAt) / 1_000;
  }

  /** kill -9 of the broker, down for the outage, started again on its data dir and port; seconds from the restart until the deployment is whole. */
  private async crashBroker(): Promise<number> {
    if (!this.broker) throw new Error('the run has no broker of its own to kill: its Kafka is the caller\'s');
    await this.broker.kill();
    await new Promise((resolve) => setTimeout(resolve, this.options.brokerOutageMs));
    this.broker = await this.broker.restart();
    const restartedAt = Date.now();
    await this.untilWhole();
    return (Date.now() - restartedAt) / 1_000;
  }

  /** Every component has one active instance, every API's view has caught up with the log. */
  async untilWhole(): Promise<void> {
    let states: string[] = [];
    await eventually('every component has one active instance', async () => {
      if (await quietly(async () => (await this.cluster.untilEachActive(2_000), true))) return true;
      // What each instance says, for the failure to name the one that did not come back.
      states = await Promise.all(this.cluster.components.map(async (c) => `${c.name} (pid ${c.process.pid}): ${(await quietly(() => this.cluster.health(c)))?.state ?? 'no answer'}`));
      return undefined;
    }, { timeoutMs: WAIT_MS, everyMs: 250, explain: () => states });
    let answers: unknown[] = [];
    await eventually('every API is ready', async () => {
      answers = await Promise.all(this.apis.map((api) => quietly(() => dockerApi(api.socket, 'GET', '/readyz'))));
      return answers.every((answer) => (answer as { status?: number } | undefined)?.status === 200);
    }, { timeoutMs: WAIT_MS, everyMs: 250, explain: () => answers });
  }

  private kept(name: string, process: ShoalProcess): void {
    this.killed.add(process);
    this.killedOutput.push({ name, process });
  }

  /** Every process running now, by name. */
  private running(): { name: string; process: ShoalProcess }[] {
    return [
      ...this.cluster.components.map((c) => ({ name: c.name, process: c.process })),
      ...this.apis.map((api) => ({ name: api.name, process: api.process })),
      ...this.agents.map((process, i) => ({ name: `agents-${i + 1}`, process })),
    ];
  }

  /** Writes what every process of the run said (killed ones too) into `dir`, one `<name>-<pid>.log` each. */
  saveOutput(dir: string): void {
    mkdirSync(dir, { recursive: true });
    for (const { name, process } of [...this.killedOutput, ...this.running()]) writeFileSync(join(dir, `${name}-${process.pid}.log`), process.output);
  }

  /**
   * What each process said last, less the Kafka client's connection noise: a few lines each,
   * for a failed run to be read where its output directory is gone (CI removes the checkout).
   */
  digest(linesEach = 6): string[] {
    const noise = /ECONNREFUSED|BrokerPool|Connection error|KafkaJSNumberOfRetriesExceeded/;
    return [...this.killedOutput, ...this.running()].flatMap(({ name, process }) => {
      const lines = process.output.split('\n').filter((line) => line.trim() !== '' && !noise.test(line)).slice(-linesEach);
      return [`${name} (pid ${process.pid}${process.running ? '' : ', gone'}):`, ...lines.map((line) => `  ${line.slice(0, 400)}`)];
    });
  }

  /** Every process the run started and did not kill: none may have exited. */
  exited(): string[] {
    const mine = this.running();
    return mine.filter(({ process }) => !process.running && !this.killed.has(process)).map(({ name, process }) => `${name} (pid ${process.pid}) exited with ${process.exitCode}:\n${process.output.slice(-2_000)}`);
  }

  /** Stops everything and removes what the run wrote. */
  async stop(): Promise<void> {
    await this.view?.stop();
    await this.log?.close();
    await this.deployment.close();
    await this.broker?.stop();
  }
}
