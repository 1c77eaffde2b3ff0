/**
 * Clusters per process: for each count N of --clusters (1,20,100), a fresh topic of N
 * partitions (one cluster each), every cluster seeded as the API and a dispatcher would
 * (ClusterInitialized, two NodeRegistered, a ServiceCreated of --replicas (10) tasks), then
 * ONE instance each of the orchestrator, allocator, scheduler and reaper serving every
 * partition (SHOAL_PARTITIONS=all), plaintext to the broker, each with its own data dir.
 * Reported per N, in seconds: from starting the four until every cluster's tasks are
 * assigned to nodes (each partition replayed with Projection); each process's RSS, peak RSS,
 * CPU seconds and TCP connections to the broker then (from /proc: socket inodes of
 * /proc/<pid>/fd matched in /proc/<pid>/net/tcp{,6}); after a second scheduler starts, until
 * the partitions are spread over the two (active counts differ by at most one, from both
 * /healthz); after the first is killed with SIGKILL, until the second is active for all N;
 * after a second service is written into every cluster, until every cluster runs both. And
 * per cluster, between the smallest and the largest N: MiB of RSS and broker connections
 * each component adds for each cluster it serves. --runs (1).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encode } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import { KafkaEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, nodeDescription, serviceSpec } from '../../libs/testing/src/builders';
import { runsReplicas } from '../../libs/testing/src/replicas';
import { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { intListOption, intOption } from './args';
import { benchBroker } from './broker';
import { peakRss, processCpu, rss } from './cluster';
import { shoalEntry } from './compiled';
import type { ShoalEntry } from './compiled';
import { publish, result } from './report';
import type { Measure } from './report';

const COMPONENTS = ['orchestrator', 'allocator', 'scheduler', 'reaper'] as const;
type Component = (typeof COMPONENTS)[number];
const MIB = 2 ** 20;

interface PartitionHealth {
  readonly partition: number;
  readonly state: string;
}

interface Instance {
  readonly name: string;
  readonly process: ShoalProcess;
  readonly port: number;
}

interface ProcessCost {
  readonly rssMiB: number;
  readonly peakMiB: number;
  readonly cpuSeconds: number;
  readonly connections: number;
}

interface CountRun {
  readonly clusters: number;
  readonly allAssigned: number;
  readonly costs: Readonly<Record<Component, ProcessCost>>;
  readonly spread: number;
  readonly failover: number;
  readonly convergedAfter: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` every `everyMs` until it returns true; the seconds it took from `since`. */
const until = async (what: string, check: () => Promise<boolean>, since: number, timeoutMs: number, everyMs = 250): Promise<number> => {
  for (;;) {
    if (await check()) return (Date.now() - since) / 1e3;
    if (Date.now() - since > timeoutMs) throw new Error(`${what}: not after ${timeoutMs / 1e3} s`);
    await sleep(everyMs);
  }
};

/** The resident set (VmRSS) of `pid` in bytes. */

/** Established TCP connections of `pid` to any of `ports`: its sockets' inodes (from /proc/<pid>/fd) found in /proc/<pid>/net/tcp{,6}. */
export const brokerConnections = (pid: number, ports: ReadonlySet<number>): number => {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]!);
    } catch {
      // closed between the listing and the read
    }
  }
  let count = 0;
  for (const table of ['tcp', 'tcp6']) {
    const path = `/proc/${pid}/net/${table}`;
    if (!existsSync(path)) continue;
    for (const line of readFileSync(path, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      const remotePort = parseInt(fields[2]!.split(':')[1] ?? '', 16);
      // State 01 is ESTABLISHED; field 10 is the socket's inode.
      if (fields[3] === '01' && ports.has(remotePort) && inodes.has(fields[9]!)) count++;
    }
  }
  return count;
};

/** Each partition's state from /healthz; a process serving one partition answers the single form, `{ state }`. */
const partitionsOf = async (port: number): Promise<PartitionHealth[] | undefined> => {
  const response = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
  if (!response?.ok) return undefined;
  const body = (await response.json()) as { partitions?: PartitionHealth[]; state?: string };
  return body.partitions ?? (body.state === undefined ? undefined : [{ partition: 0, state: body.state }]);
};

/** How many partitions each instance is active for, when every one of `clusters` partitions has exactly one active instance. */
const activeCounts = async (instances: readonly Instance[], clusters: number): Promise<number[] | undefined> => {
  const owners = new Map<number, number>();
  const counts: number[] = [];
  for (const instance of instances) {
    const partitions = await partitionsOf(instance.port);
    const active = partitions ? partitions.filter((p) => p.state === 'active') : [];
    for (const p of active) owners.set(p.partition, (owners.get(p.partition) ?? 0) + 1);
    counts.push(active.length);
  }
  return owners.size === clusters && [...owners.values()].every((n) => n === 1) ? counts : undefined;
};

/** Every cluster's state, kept up to date by reading each partition on from where it was. */
class Clusters {
  private readonly projections: Projection[];
  private readonly next: number[];
  private readonly builders: EventBuilder[];

  constructor(private readonly logs: readonly KafkaEventLog[]) {
    this.projections = logs.map(() => new Projection());
    this.next = logs.map(() => 0);
    this.builders = logs.map((_, partition) => new EventBuilder(`cluster-${partition}`));
  }

  /** Appends to every cluster what the API and the dispatcher would write. */
  async write(events: (b: EventBuilder) => ReturnType<EventBuilder['event']>[]): Promise<void> {
    await Promise.all(this.logs.map((log, partition) => log.append(events(this.builders[partition]!).map((event) => ({ key: event.cluster, value: encode(event) })))));
  }

  async allConverged(replicas: Readonly<Record<string, number>>): Promise<boolean> {
    await Promise.all(
      this.logs.map(async (log, partition) => {
        const records = await log.read(this.next[partition]!);
        this.projections[partition]!.applyAll(records);
        if (records.length > 0) this.next[partition] = records[records.length - 1]!.offset + 1;
      }),
    );
    return this.projections.every((projection) => runsReplicas(projection.state, replicas));
  }
}

const oneCount = async (brokers: readonly string[], entry: ShoalEntry, clusters: number, replicas: number, timeoutMs: number): Promise<CountRun> => {
  const say = (line: string): void => void process.stderr.write(`[${clusters} clusters] ${line}\n`);
  const prefix = `bench-clusters-${randomUUID().slice(0, 8)}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'shoal-bench-clusters-'));
  const ports = new Set(brokers.map((b) => Number(b.slice(b.lastIndexOf(':') + 1))));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KAFKA_BROKERS: brokers.join(','),
    SHOAL_TOPIC_PREFIX: prefix,
    SHOAL_PARTITIONS: 'all',
    SHOAL_HEALTH_PORT: '0',
  };
  const seed = await KafkaEventLog.open({ brokers, topic: `${prefix}.events`, partitions: clusters, clientId: 'bench-clusters-seed' });
  const started: Instance[] = [];
  const start = async (name: string, component: Component): Promise<Instance> => {
    const p = ShoalProcess.node(entry.argv(['run', component]), { ...env, SHOAL_DATA_DIR: join(dataDir, name) });
    const [, port] = await p.waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, timeoutMs);
    const instance = { name, process: p, port: Number(port) };
    started.push(instance);
    return instance;
  };
  try {
    const logs = await Promise.all(Array.from({ length: clusters }, (_, partition) => seed.partitionLog(partition)));
    const state = new Clusters(logs);
    await state.write((b) => [
      clusterInit(b),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
      b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') }),
      b.event('ServiceCreated', { id: 'web', spec: serviceSpec('web', { kind: 'replicated', replicas }) }),
    ]);
    say('seeded; starting one orchestrator, allocator, scheduler and reaper');

    const t0 = Date.now();
    const instances = await Promise.all(COMPONENTS.map((component) => start(component, component)));
    const allAssigned = await until('every cluster has its tasks assigned', () => state.allConverged({ web: replicas }), t0, timeoutMs, 500);
    say(`all tasks assigned ${allAssigned.toFixed(2)} s after start`);

    const costs = {} as Record<Component, ProcessCost>;
    for (const [index, component] of COMPONENTS.entries()) {
      const pid = instances[index]!.process.pid!;
      costs[component] = { rssMiB: (rss(pid) ?? Number.NaN) / MIB, peakMiB: (peakRss(pid) ?? Number.NaN) / MIB, cpuSeconds: processCpu(pid), connections: brokerConnections(pid, ports) };
      say(`${component}: RSS ${costs[component].rssMiB.toFixed(0)} MiB (peak ${costs[component].peakMiB.toFixed(0)}), CPU ${costs[component].cpuSeconds.toFixed(1)} s, ${costs[component].connections} broker connections`);
    }

    const first = instances[COMPONENTS.indexOf('scheduler')]!;
    const t1 = Date.now();
    const second = await start('scheduler-2', 'scheduler');
    let lastCounts: number[] | undefined;
    const spread = await until(
      'the partitions are spread over two schedulers',
      async () => {
        lastCounts = await activeCounts([first, second], clusters);
        return lastCounts !== undefined && Math.abs(lastCounts[0]! - lastCounts[1]!) <= 1;
      },
      t1,
      timeoutMs,
    );
    say(`spread over two schedulers (${lastCounts!.join(' + ')}) ${spread.toFixed(2)} s after the second started`);

    await first.process.crash();
    const t2 = Date.now();
    const failover = await until(
      'the second scheduler is active for every partition',
      async () => (await activeCounts([second], clusters))?.[0] === clusters,
      t2,
      timeoutMs,
      50,
    );
    say(`second scheduler active for all ${clusters} ${failover.toFixed(2)} s after the kill`);

    const t3 = Date.now();
    await state.write((b) => [b.event('ServiceCreated', { id: 'api', spec: serviceSpec('api', { kind: 'replicated', replicas }) })]);
    const convergedAfter = await until('every cluster runs both services', () => state.allConverged({ web: replicas, api: replicas }), t3, timeoutMs, 250);
    say(`a second service in every cluster assigned in ${convergedAfter.toFixed(2)} s`);
    return { clusters, allAssigned, costs, spread, failover, convergedAfter };
  } catch (error) {
    for (const instance of started) process.stderr.write(`--- ${instance.name}\n${instance.process.output.slice(-2_000)}\n`);
    throw error;
  } finally {
    await Promise.all(started.map((instance) => instance.process.stop(15_000)));
    await seed.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
};

export const clustersBench = async (argv: readonly string[]): Promise<void> => {
  const counts = [...new Set(intListOption(argv, 'clusters', [1, 20, 100]))].sort((a, b) => a - b);
  const replicas = intOption(argv, 'replicas', 10);
  const runs = intOption(argv, 'runs', 1);
  const timeoutMs = intOption(argv, 'timeout', 300) * 1_000;
  const entry = shoalEntry(argv);
  const broker = await benchBroker();
  const byRun: CountRun[][] = [];
  try {
    for (let run = 1; run <= runs; run++) {
      const one: CountRun[] = [];
      for (const clusters of counts) one.push(await oneCount(broker.brokers, entry, clusters, replicas, timeoutMs));
      byRun.push(one);
    }
  } finally {
    await broker.stop();
  }
  const at = (index: number): CountRun[] => byRun.map((one) => one[index]!);
  const measures: Measure[] = counts.flatMap((clusters, index) => [
    { name: `${clusters} clusters — start → every cluster's tasks assigned`, unit: 's', runs: at(index).map((r) => r.allAssigned), better: 'lower' as const },
    ...COMPONENTS.flatMap((component) => [
      { name: `${clusters} clusters — ${component} RSS`, unit: 'MiB', runs: at(index).map((r) => r.costs[component].rssMiB), better: 'lower' as const },
      { name: `${clusters} clusters — ${component} peak RSS`, unit: 'MiB', runs: at(index).map((r) => r.costs[component].peakMiB), better: 'lower' as const },
      { name: `${clusters} clusters — ${component} CPU`, unit: 's', runs: at(index).map((r) => r.costs[component].cpuSeconds), better: 'lower' as const },
      { name: `${clusters} clusters — ${component} broker connections`, unit: 'connections', runs: at(index).map((r) => r.costs[component].connections), better: 'lower' as const },
    ]),
    { name: `${clusters} clusters — second scheduler started → partitions spread (±1)`, unit: 's', runs: at(index).map((r) => r.spread), better: 'lower' as const },
    { name: `${clusters} clusters — first scheduler killed → second active for all`, unit: 's', runs: at(index).map((r) => r.failover), better: 'lower' as const },
    { name: `${clusters} clusters — new service in every cluster → all assigned (one scheduler)`, unit: 's', runs: at(index).map((r) => r.convergedAfter), better: 'lower' as const },
  ]);
  const notes: string[] = [];
  if (counts.length > 1) {
    const low = 0;
    const high = counts.length - 1;
    const span = counts[high]! - counts[low]!;
    const slope = (pick: (r: CountRun) => number): number[] => byRun.map((one) => (pick(one[high]!) - pick(one[low]!)) / span);
    for (const component of COMPONENTS) {
      measures.push(
        { name: `per cluster (${counts[low]} → ${counts[high]}) — ${component} RSS`, unit: 'MiB/cluster', runs: slope((r) => r.costs[component].rssMiB), better: 'lower' },
        { name: `per cluster (${counts[low]} → ${counts[high]}) — ${component} broker connections`, unit: 'connections/cluster', runs: slope((r) => r.costs[component].connections), better: 'lower' },
      );
    }
    const rssTotal = (r: CountRun): number => COMPONENTS.reduce((sum, c) => sum + r.costs[c].rssMiB, 0);
    const connTotal = (r: CountRun): number => COMPONENTS.reduce((sum, c) => sum + r.costs[c].connections, 0);
    const totalRss = slope(rssTotal);
    const totalConn = slope(connTotal);
    notes.push(
      `Each cluster served adds about ${(totalRss.reduce((a, b) => a + b, 0) / totalRss.length).toFixed(2)} MiB of RSS and ${(totalConn.reduce((a, b) => a + b, 0) / totalConn.length).toFixed(1)} broker connections over the four components together (slope between ${counts[low]} and ${counts[high]} clusters).`,
    );
  }
  publish(
    result(
      'clusters',
      'Clusters per process: one instance of each component serving N clusters',
      { clusters: counts.join(', '), replicas, runs, components: COMPONENTS.join(', '), shoal: entry.description, transport: 'PLAINTEXT' },
      measures,
      notes,
    ),
    argv,
  );
};
