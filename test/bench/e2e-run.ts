/**
 * One end-to-end run: a fresh cluster of processes (cluster.ts), the log watched
 * (log-watch.ts), --services services of --replicas replicas created through the API as
 * fast as it takes them, then waiting until every task is RUNNING. `during` is called on
 * every poll while tasks are being placed (the failover benchmark kills a scheduler there).
 */
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { BenchCluster } from './cluster';
import type { ClusterOptions } from './cluster';
import { LogWatch } from './log-watch';

export interface RunOptions extends ClusterOptions {
  readonly services: number;
  readonly replicas: number;
  /** Create requests in flight at once. */
  readonly concurrency: number;
  /** Give up when no task has become RUNNING for this long (ms). */
  readonly stallMs: number;
  /** How often to look at the log while waiting (ms). */
  readonly pollMs?: number;
  /** A pause between one create and the next, to keep tasks arriving for a while (ms; none by default). */
  readonly createIntervalMs?: number;
}

export interface RunOutcome {
  readonly total: number;
  /** When the first create request was sent (ms since the epoch). */
  readonly start: number;
  /** When the last create was answered. */
  readonly createsDone: number;
  readonly watch: LogWatch;
  readonly highWaterMark: number;
  readonly peakRss: ReadonlyMap<string, number>;
  /** Set when the run ended before every task ran. */
  readonly incomplete?: string;
  /** The machine's 1-minute load average when the creates began. */
  readonly loadAverage: number;
}

/** A sentence on how loaded the machine was when the runs began. */
export const loadNote = (outcomes: readonly { readonly loadAverage: number }[]): string =>
  `The machine's 1-minute load average when the creates began: ${outcomes.map((o) => o.loadAverage.toFixed(1)).join(' · ')} on ${cpus().length} CPUs (every process — components, agents, Kafka, this benchmark reading the log, and anything else running — shares them).`;

export interface RunContext {
  readonly cluster: BenchCluster;
  readonly watch: LogWatch;
  readonly total: number;
  readonly start: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const say = (line: string): void => void process.stderr.write(`${line}\n`);

const createServices = async (cluster: BenchCluster, options: RunOptions, prefix: string): Promise<void> => {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.services) {
      const i = next++;
      const created = await dockerApi(cluster.socket, 'POST', '/v1.47/services/create', {
        Name: `${prefix}${i + 1}`,
        TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' }, RestartPolicy: { Condition: 'any', Delay: 0 } },
        Mode: { Replicated: { Replicas: options.replicas } },
      });
      if (created.status !== 201) throw new Error(`creating service ${i + 1} answered ${created.status}: ${JSON.stringify(created.body)}`);
      if (options.createIntervalMs) await sleep(options.createIntervalMs);
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, options.services) }, worker));
};

/**
 * `during` runs on every poll while tasks are placed; the run ends once every task is
 * RUNNING and `settled` (if given) says there is nothing more to wait for.
 */
export const runEndToEnd = async (options: RunOptions, during?: (context: RunContext) => Promise<void>, settled?: () => boolean): Promise<RunOutcome> => {
  const cluster = await BenchCluster.start(options);
  let watch: LogWatch | undefined;
  try {
    watch = await LogWatch.follow(options.brokers, cluster.topic);
    const total = options.services * options.replicas;
    say(`creating ${options.services} services × ${options.replicas} replicas (${total.toLocaleString('en-US')} tasks)…`);
    const loadAverage = loadavg()[0]!;
    const start = Date.now();
    let createsDone = 0;
    let createError: unknown;
    const creating = createServices(cluster, options, 'bench-').then(
      () => void (createsDone = Date.now()),
      (error: unknown) => void (createError = error),
    );
    const context: RunContext = { cluster, watch, total, start };
    let lastRunning = -1;
    let lastChange = Date.now();
    let lastSay = 0;
    let lastSample = 0;
    let incomplete: string | undefined;
    for (;;) {
      if (createError) throw createError;
      const now = Date.now();
      if (watch.live.size !== lastRunning) {
        lastRunning = watch.live.size;
        lastChange = now;
      }
      if (now - lastSay >= 5_000) {
        say(`${((now - start) / 1e3).toFixed(0)} s: ${watch.servicesCreated} services, ${watch.assigned.size} assigned, ${watch.live.size} running, ${watch.records} records`);
        lastSay = now;
      }
      if (now - lastSample >= 2_000) {
        cluster.samplePeaks();
        lastSample = now;
      }
      if (watch.live.size >= total && createsDone > 0 && (settled?.() ?? true)) break;
      const dead = cluster.members.find((m) => m.process.exitCode !== null && !m.name.startsWith('scheduler'));
      if (dead) {
        incomplete = `${dead.name} exited with ${dead.process.exitCode}`;
        break;
      }
      if (now - lastChange > options.stallMs) {
        incomplete = `the number of RUNNING tasks did not change for ${options.stallMs / 1e3} s (${watch.live.size} of ${total} running)`;
        break;
      }
      if (during) await during(context);
      await sleep(options.pollMs ?? 250);
    }
    await creating;
    if (incomplete) say(`incomplete: ${incomplete}`);
    const highWaterMark = await watch.highWaterMark();
    cluster.samplePeaks();
    return { total, start, createsDone, watch, highWaterMark, loadAverage, peakRss: new Map(cluster.peakRss()), ...(incomplete ? { incomplete } : {}) };
  } finally {
    await watch?.close().catch(() => undefined);
    const logs = join(__dirname, '..', '..', '.shoal', 'bench-logs', cluster.topic.replace(/\.events$/, ''));
    await cluster.stop(logs);
    say(`each process's output: ${logs}/<name>.log`);
  }
};
