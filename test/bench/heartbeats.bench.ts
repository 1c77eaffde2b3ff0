/**
 * Heartbeats: what answering them costs the dispatcher, to size the rate it asks of a
 * fleet. The components run as their own processes on a real broker (no agents); this
 * process opens --nodes (5,000) sessions over --channels (10) gRPC connections, as agent
 * processes do. With the sessions open and silent for --seconds (10), then at each of
 * --rates (50,250,1000,4000) heartbeats a second for as long, spread evenly over the nodes
 * and over time (those due are sent every millisecond), it reports: the dispatcher
 * process's CPU (from /proc, so nothing of this process's), what each heartbeat adds to it
 * over the silent window, latency as the caller sees it, and whether every node stayed
 * READY. The callers share their connections, so at the higher rates several calls travel
 * in one read or write; agents on nodes of their own would not batch, and cost more. Then,
 * at the same rates, what the transport alone costs a bare grpc-js server per heartbeat:
 * as a unary call, and as a message on a stream already open (grpc-transport.ts).
 */
import { cpus, loadavg } from 'node:os';
import { credentials } from '@grpc/grpc-js';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { DEFAULT_HEARTBEAT_PERIOD_MS, MAX_HEARTBEATS_PER_SECOND } from '@shoal/domain';
import { DispatcherClient } from '@shoal/protocol';
import type { HeartbeatResponse, NodeDescriptionMessage, SessionMessage } from '@shoal/protocol';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { BenchCluster, processCpu } from './cluster';
import { paced } from './paced';
import { shoalEntry } from './compiled';
import { benchBroker } from './broker';
import { intListOption, intOption } from './args';
import { profileFlags } from './profile-summary';
import { transportCost } from './grpc-transport';
import type { TransportCost } from './grpc-transport';
import { median, percentile, publish, result } from './report';
import type { Measure } from './report';

type Client = InstanceType<typeof DispatcherClient>;

/** As an agent's: at least 5 s. */
const DEADLINE_MS = 5_000;

const description = (i: number): NodeDescriptionMessage => ({
  hostname: `hb-${i}`,
  platform: { os: 'linux', architecture: 'x86_64' },
  nanoCpus: 8e9,
  memoryBytes: 32 * 2 ** 30,
  generic: [],
  engineVersion: '28.2.2',
  engineLabels: {},
  plugins: [],
});

interface Session {
  readonly client: Client;
  readonly nodeId: string;
  readonly sessionId: string;
  readonly stream: ClientReadableStream<SessionMessage>;
}

const openSession = (client: Client, joinToken: string, i: number): Promise<Session> =>
  new Promise((resolve, reject) => {
    const stream = client.session({ joinToken, nodeId: '', description: description(i) }) as ClientReadableStream<SessionMessage>;
    stream.once('data', (message: SessionMessage) => resolve({ client, nodeId: message.nodeId, sessionId: message.sessionId, stream }));
    stream.once('error', (error: ServiceError) => reject(new Error(`session ${i}: ${error.details || error.message}`)));
  });

const heartbeat = (session: Session): Promise<number> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    session.client.heartbeat({ nodeId: session.nodeId, sessionId: session.sessionId }, { deadline: Date.now() + DEADLINE_MS }, (error: ServiceError | null, _: HeartbeatResponse) =>
      error ? reject(new Error(`heartbeat: ${error.details || error.message}`)) : resolve(Number(process.hrtime.bigint() - started) / 1e6),
    );
  });

interface Step {
  readonly rate: number;
  readonly sent: number;
  readonly failed: number;
  readonly seconds: number;
  readonly dispatcherCpu: number;
  readonly latencies: number[];
}

/** The dispatcher's CPU over a step, as a percentage of one core. */
const share = (step: Step): number => (step.dispatcherCpu / step.seconds) * 100;

/** CPU each heartbeat of `step` added to the dispatcher's, over its `silent` share, in µs. */
const added = (step: Step, silent: Step): number => ((step.dispatcherCpu - (silent.dispatcherCpu / silent.seconds) * step.seconds) / Math.max(1, step.sent)) * 1e6;

/** The dispatcher's CPU over `seconds` with the sessions open and no heartbeats. */
const idle = async (seconds: number, dispatcherPid: number): Promise<Step> => {
  const cpuBefore = processCpu(dispatcherPid);
  const started = Date.now();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1_000));
  return { rate: 0, sent: 0, failed: 0, seconds: (Date.now() - started) / 1_000, dispatcherCpu: processCpu(dispatcherPid) - cpuBefore, latencies: [] };
};

/** Heartbeats at `rate` a second for `seconds`, spread evenly over time, round robin over the sessions. */
const drive = async (sessions: readonly Session[], rate: number, seconds: number, dispatcherPid: number): Promise<Step> => {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  let failed = 0;
  const cpuBefore = processCpu(dispatcherPid);
  const started = Date.now();
  const sent = await paced(rate, seconds, (n) =>
    pending.push(
      heartbeat(sessions[n % sessions.length]!).then(
        (ms) => void latencies.push(ms),
        () => void failed++,
      ),
    ),
  );
  await Promise.all(pending);
  const elapsed = (Date.now() - started) / 1_000;
  return { rate, sent, failed, seconds: elapsed, dispatcherCpu: processCpu(dispatcherPid) - cpuBefore, latencies };
};

export const heartbeatsBench = async (argv: readonly string[]): Promise<void> => {
  const nodes = intOption(argv, 'nodes', 5_000);
  const channels = intOption(argv, 'channels', 10);
  const seconds = intOption(argv, 'seconds', 10);
  const runs = intOption(argv, 'runs', 3);
  const rates = intListOption(argv, 'rates', [50, 250, 1_000, 4_000]);
  const entry = shoalEntry(argv);
  const flags = profileFlags(argv);
  const broker = await benchBroker();
  const steps = new Map<number, Step[]>(rates.map((rate) => [rate, []]));
  const silent: Step[] = [];
  const transport: TransportCost[] = [];
  const load: number[] = [];
  let downNodes = 0;
  try {
    for (let run = 1; run <= runs; run++) {
      const cluster = await BenchCluster.start({ brokers: broker.brokers, entry, nodes: 0, fleets: 0, schedulers: 1, flags });
      const clients: Client[] = [];
      const sessions: Session[] = [];
      try {
        const dispatcher = cluster.member('dispatcher').process;
        const [, port] = await dispatcher.waitFor(/dispatcher: agents on 127\.0\.0\.1:(\d+)/);
        const swarm = await dockerApi<{ JoinTokens: { Worker: string } }>(cluster.socket, 'GET', '/swarm');
        for (let i = 0; i < channels; i++) clients.push(new DispatcherClient(`127.0.0.1:${port}`, credentials.createInsecure()));
        for (let i = 0; i < nodes; i += 100) {
          const batch = Array.from({ length: Math.min(100, nodes - i) }, (_, j) => openSession(clients[(i + j) % channels]!, swarm.body.JoinTokens.Worker, i + j));
          sessions.push(...(await Promise.all(batch)));
        }
        process.stderr.write(`run ${run}: ${sessions.length} sessions open\n`);
        // Let registration settle, so that the first rate does not pay for it.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        load.push(loadavg()[0]!);
        silent.push(await idle(seconds, dispatcher.pid!));
        process.stderr.write(`  silent: dispatcher CPU ${share(silent[silent.length - 1]!).toFixed(1)}% of a core\n`);
        for (const rate of rates) {
          const step = await drive(sessions, rate, seconds, dispatcher.pid!);
          steps.get(rate)!.push(step);
          process.stderr.write(
            `  ${rate}/s: sent ${step.sent}, failed ${step.failed}, dispatcher CPU ${share(step).toFixed(1)}% of a core, ${added(step, silent[silent.length - 1]!).toFixed(0)} µs a heartbeat, ` +
              `p50 ${percentile(step.latencies, 50).toFixed(1)} ms, p99 ${percentile(step.latencies, 99).toFixed(1)} ms\n`,
          );
        }
        const { body } = await dockerApi<{ Status: { State: string } }[]>(cluster.socket, 'GET', '/nodes');
        downNodes = Math.max(downNodes, body.filter((n) => n.Status.State !== 'ready').length);
      } finally {
        for (const session of sessions) session.stream.cancel();
        for (const client of clients) client.close();
        await cluster.stop();
      }
      transport.push(await transportCost(rates, seconds));
      const last = transport[transport.length - 1]!;
      process.stderr.write(`  bare grpc-js server, µs a heartbeat: ${rates.map((rate) => `${rate}/s unary ${last.unary.get(rate)!.toFixed(0)}, streamed ${last.streamed.get(rate)!.toFixed(0)}`).join('; ')}\n`);
    }
  } finally {
    await broker.stop();
  }

  const measures: Measure[] = [
    { name: 'silent (sessions open, no heartbeats) — dispatcher CPU, share of one core', unit: '%', runs: silent.map(share), better: 'lower' },
    ...rates.flatMap((rate): Measure[] => {
    const runsAt = steps.get(rate)!;
    return [
      { name: `${rate}/s — dispatcher CPU, share of one core`, unit: '%', runs: runsAt.map(share), better: 'lower' },
      { name: `${rate}/s — dispatcher CPU a heartbeat adds`, unit: 'µs', runs: runsAt.map((s, run) => added(s, silent[run]!)), better: 'lower' },
      { name: `${rate}/s — answered per second`, unit: 'heartbeats/s', runs: runsAt.map((s) => (s.sent - s.failed) / s.seconds), better: 'higher' },
      { name: `${rate}/s — latency p50 (caller)`, unit: 'ms', runs: runsAt.map((s) => percentile(s.latencies, 50)), better: 'lower' },
      { name: `${rate}/s — latency p99 (caller)`, unit: 'ms', runs: runsAt.map((s) => percentile(s.latencies, 99)), better: 'lower' },
      { name: `${rate}/s — bare grpc-js server: CPU a unary call adds`, unit: 'µs', runs: transport.map((t) => t.unary.get(rate)!), better: 'lower' },
      { name: `${rate}/s — bare grpc-js server: CPU a message on an open stream adds`, unit: 'µs', runs: transport.map((t) => t.streamed.get(rate)!), better: 'lower' },
    ];
    }),
  ];
  const r = result('heartbeats', 'Heartbeats: what answering them costs the dispatcher', { nodes, channels, 'seconds per rate': seconds, runs }, measures);
  const addedAt = (rate: number): number => median(steps.get(rate)!.map((s, run) => added(s, silent[run]!)));
  const [slowest, fastest] = [Math.min(...rates), Math.max(...rates)];
  const percentOver = (rate: number): string => `${median(steps.get(rate)!.map((s, run) => share(s) - share(silent[run]!))).toFixed(0)}%`;
  const bare = (rate: number, kind: 'unary' | 'streamed'): number => median(transport.map((t) => t[kind].get(rate)!));
  const failed = rates.reduce((sum, rate) => sum + steps.get(rate)!.reduce((n, s) => n + s.failed, 0), 0);
  publish({
    ...r,
    notes: [
      `What heartbeats add to the dispatcher's CPU, as a share of one core: ${rates.map((rate) => `${percentOver(rate)} at ${rate}/s`).join(', ')}. ` +
        `A heartbeat costs ${addedAt(slowest).toFixed(0)} µs at ${slowest}/s and ${addedAt(fastest).toFixed(0)} µs at ${fastest}/s: calls that come close together share reads, writes and wakeups, and agents on nodes of their own come apart, so they cost more than these callers, which share ${channels} connections. A profile at 50/s puts the cost in grpc-js and Node's HTTP/2 (a stream, headers and trailers for every call), not in the dispatcher's handler.`,
      `So the dispatcher asks a fleet for at most ${MAX_HEARTBEATS_PER_SECOND} heartbeats a second (MAX_HEARTBEATS_PER_SECOND, as Nomad's max_heartbeats_per_second): a node calls in every ${DEFAULT_HEARTBEAT_PERIOD_MS / 1_000} s up to ${((DEFAULT_HEARTBEAT_PERIOD_MS / 1_000) * MAX_HEARTBEATS_PER_SECOND).toLocaleString('en-US')} nodes, less often beyond, and a large fleet's failures are seen later. SwarmKit's fixed 5 s period would ask 1,000 a second of 5,000 nodes.`,
      `The transport is most of it. A bare grpc-js server that only notes the heartbeat pays, per unary call, ${rates.map((rate) => `${bare(rate, 'unary').toFixed(0)} µs at ${rate}/s`).join(', ')}; ` +
        `per message on a stream already open, ${rates.map((rate) => `${bare(rate, 'streamed').toFixed(0)} µs at ${rate}/s`).join(', ')}. ` +
        `Heartbeats sent on a long-lived stream would cost ${(bare(slowest, 'unary') / bare(slowest, 'streamed')).toFixed(1)}× less at ${slowest}/s, and the rate asked of a fleet could rise about as much for the same CPU.`,
      `Heartbeats refused or timed out: ${failed}; nodes not READY at the end of a run: ${downNodes}.`,
      `Load average (1 min) as each run's first rate began: ${load.map((l) => l.toFixed(1)).join(' · ')} on ${cpus().length} cores; this process (the callers), the components and the broker share them.`,
    ],
  });
};
