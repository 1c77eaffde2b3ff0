/**
 * A local KRaft cluster of several combined broker + controller nodes (three by default),
 * each a LocalKafkaBroker with its own data dir and loopback ports, all voters of one
 * controller quorum. The internal topics are replicated min(3, n) times with
 * min.insync.replicas min(2, n), as Shoal's start-up check wants of a cluster.
 * Faults: kill() a node (SIGKILL, data kept) and restart() it; stop() a node cleanly (SIGTERM)
 * and start it again; the node that leads the controller quorum, and the one that leads a
 * partition.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { LocalKafkaBroker, freePorts, randomClusterId } from '../../../../infra/kafka/broker';
import type { KraftNode } from '../../../../infra/kafka/broker';

export interface KafkaClusterOptions {
  /** Nodes (default 3). */
  readonly nodes?: number;
  /** Node i's files go to `<dataDir>/node-<i>` (default: a fresh folder under os.tmpdir(), removed by stop()). */
  readonly dataDir?: string;
  /** Leave the JVMs running when this process exits (npm run kafka:start -- --brokers 3). */
  readonly detached?: boolean;
  /** Node i binds `hosts[i - 1]` (loopback addresses: 127.0.0.1 for all by default). */
  readonly hosts?: readonly string[];
  /** Node i's JVM runs in the network namespace `namespaces[i - 1]`, which holds its host (fault-network.ts). */
  readonly namespaces?: readonly string[];
}

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

export class LocalKafkaCluster {
  private constructor(
    /** Node i is nodes[i - 1]; a killed or stopped node stays in its place until it is started again. */
    readonly nodes: LocalKafkaBroker[],
    readonly dataDir: string,
    private readonly removeDataDir: boolean,
  ) {}

  /** Starts every node at once (a node answers only once a majority of the quorum is up). */
  static async start(options: KafkaClusterOptions = {}): Promise<LocalKafkaCluster> {
    const count = options.nodes ?? 3;
    const dataDir = resolve(options.dataDir ?? mkdtempSync(join(tmpdir(), 'shoal-kafka-cluster-')));
    const ports = await freePorts(2 * count);
    const hosts = Array.from({ length: count }, (_, i) => options.hosts?.[i] ?? '127.0.0.1');
    const clusterId = randomClusterId();
    const voters = hosts.map((host, i) => `${i + 1}@${host}:${ports[2 * i + 1]!}`).join(',');
    const started = await Promise.allSettled(
      hosts.map((host, i) => {
        const netns = options.namespaces?.[i];
        const node: KraftNode = { id: i + 1, voters, clusterId, brokers: count, host, ...(netns ? { netns } : {}) };
        return LocalKafkaBroker.start({
          dataDir: join(dataDir, `node-${i + 1}`),
          ports: { broker: ports[2 * i]!, controller: ports[2 * i + 1]! },
          node,
          startTimeoutMs: 90_000,
          ...(options.detached ? { detached: true } : {}),
        });
      }),
    );
    const nodes = started.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const failed = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) {
      await Promise.all(nodes.map((node) => node.stop()));
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
      throw failed.reason;
    }
    const cluster = new LocalKafkaCluster(nodes, dataDir, options.dataDir === undefined);
    await cluster.untilBrokers(count, 90_000);
    return cluster;
  }

  /** Every node's `host:port`: the bootstrap servers. */
  get brokers(): string[] {
    return this.nodes.flatMap((node) => node.brokers);
  }

  /** The node with this Kafka node id. */
  node(id: number): LocalKafkaBroker {
    const found = this.nodes[id - 1];
    if (!found) throw new Error(`there is no node ${id} (the cluster has ${this.nodes.length})`);
    return found;
  }

  /** SIGKILL of node `id`, its data kept. */
  async kill(id: number): Promise<void> {
    await this.node(id).kill();
  }

  /** Node `id` again, after kill(), on its data dir and ports; resolves once every node is registered. */
  async restart(id: number): Promise<void> {
    this.nodes[id - 1] = await this.node(id).restart();
    await this.untilBrokers(this.nodes.length, 90_000);
  }

  /** SIGTERM (a controlled shutdown: its leaderships move first), its data kept. */
  async shutdown(id: number): Promise<void> {
    await this.node(id).shutdown();
  }

  /** A kafkajs client on the nodes that answer (or on `brokers` alone). */
  private client(brokers: readonly string[] = this.brokers): Kafka {
    return new Kafka({ clientId: 'shoal-cluster-probe', brokers: [...brokers], logLevel: logLevel.NOTHING, connectionTimeout: 2_000, requestTimeout: 5_000, retry: { retries: 2 } });
  }

  private async withAdmin<T>(use: (admin: ReturnType<Kafka['admin']>) => Promise<T>, brokers?: readonly string[]): Promise<T> {
    const admin = this.client(brokers).admin();
    await admin.connect();
    try {
      return await use(admin);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
  }

  /**
   * Until `count` brokers are registered as every node sees it (describeCluster asked of each
   * node alone): each keeps its own copy of the cluster's metadata, and a client that asks
   * one that has not caught up would find fewer brokers than there are.
   */
  async untilBrokers(count: number, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let seen = -1;
    for (;;) {
      const views = await Promise.all(this.nodes.map((node) => this.withAdmin(async (admin) => (await admin.describeCluster()).brokers.length, node.brokers).catch(() => -1)));
      seen = Math.min(...views);
      if (seen >= count) return;
      if (Date.now() > deadline) throw new Error(`${seen} of ${count} Kafka nodes registered after ${timeoutMs / 1000} s`);
      await sleep(500);
    }
  }

  /** The node that leads `topic[partition]`, and its in-sync replicas. */
  async partition(topic: string, partition = 0): Promise<{ leader: number; isr: number[]; replicas: number[] }> {
    return this.withAdmin(async (admin) => {
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      const found = topics[0]?.partitions.find((p) => p.partitionId === partition);
      if (!found) throw new Error(`no partition ${topic}[${partition}]`);
      return { leader: found.leader, isr: [...found.isr].sort(), replicas: [...found.replicas].sort() };
    });
  }

  /** The node that leads the controller quorum now (its metadata log's leader, from the quorum state file a node keeps). */
  activeController(): number {
    const leaders = this.nodes.map((node) => node.quorumLeader()).filter((leader): leader is number => leader !== undefined);
    const [first] = leaders.sort((a, b) => leaders.filter((l) => l === b).length - leaders.filter((l) => l === a).length);
    if (first === undefined) throw new Error('no node names a controller quorum leader');
    return first;
  }

  /** Stops every node and removes the data dir (when the cluster made it). */
  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.stop()));
    if (this.removeDataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
