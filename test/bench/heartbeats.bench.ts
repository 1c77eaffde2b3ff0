/**
 * Heartbeats: what taking them costs the dispatcher, to size the rate it asks of a fleet.
 * The components run as their own processes on a real broker (no agents); this process
 * opens --nodes (5,000) sessions over --channels (10) gRPC connections, as agent processes
 * do, with the cluster's heartbeat period set to an hour: no session expires while the
 * benchmark sends fewer heartbeats than a fleet would, and the rate is only what this
 * process sends. With the sessions open and silent for --seconds (10), then at each of --rates
 * (50,250,1000,4000) heartbeats a second for as long, spread evenly over the nodes and
 * over time (those due are sent every millisecond), sent both ways the protocol has —
 * as messages on one Heartbeats stream per connection, as agents send them, and as unary
 * Heartbeat calls, as older agents did — it reports the dispatcher process's CPU (from
 * /proc, so nothing of this process's), what each heartbeat adds to it over the silent
 * window, how many the dispatcher took, and whether every node stayed READY. The callers
 * share their connections, so at the higher rates several heartbeats travel in one read
 * or write; agents on nodes of their own would not batch, and cost more.
 */
import { cpus, loadavg } from 'node:os';
import { credentials } from '@grpc/grpc-js';
import type { ClientReadableStream, ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import { DEFAULT_HEARTBEAT_PERIOD_MS, GRACE_MULTIPLIER, MAX_HEARTBEATS_PER_SECOND, emptyState, heartbeatPeriodMs } from '@shoal/domain';
import { DispatcherClient } from '@shoal/protocol';
import type { HeartbeatRequest, HeartbeatResponse, HeartbeatsResponse, NodeDescriptionMessage, SessionMessage } from '@shoal/protocol';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { BenchCluster, processCpu } from './cluster';
import { paced } from './paced';
import { shoalEntry } from './compiled';
import { benchBroker } from './broker';
import { intListOption, intOption } from './args';
import { profileFlags } from './profile-summary';
import { median, publish, result } from './report';
import type { Measure } from './report';

type Client = InstanceType<typeof DispatcherClient>;

/** The cluster's heartbeat period while the benchmark runs (Docker's unit: ns). */
const HOUR_NS = 3_600 * 1e9;

/** As an older agent's: at least 5 s. */
const DEADLINE_MS = 5_000;

/** How heartbeats travel: on the agents' stream, or one a call. */
const MODES = ['streamed', 'unary'] as const;
type Mode = (typeof MODES)[number];

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
  readonly channel: number;
  readonly nodeId: string;
  readonly sessionId: string;
  readonly stream: ClientReadableStream<SessionMessage>;
}

const openSession = (client: Client, channel: number, joinToken: string, i: number): Promise<Session> =>
  new Promise((resolve, reject) => {
    const stream = client.session({ joinToken, nodeId: '', description: description(i) }) as ClientReadableStream<SessionMessage>;
    stream.once('data', (message: SessionMessage) => resolve({ channel, nodeId: message.nodeId, sessionId: message.sessionId, stream }));
    stream.once('error', (error: ServiceError) => reject(new Error(`session ${i}: ${error.details || error.message}`)));
  });

const unaryHeartbeat = (client: Client, session: Session): Promise<void> =>
  new Promise((resolve, reject) => {
    client.heartbeat({ nodeId: session.nodeId, sessionId: session.sessionId }, { deadline: Date.now() + DEADLINE_MS }, (error: ServiceError | null, _: HeartbeatResponse) =>
      error ? reject(new Error(`heartbeat: ${error.details || error.message}`)) : resolve(),
    );
  });

/** One Heartbeats stream per connection, as agent processes keep them; `end` ends them all and sums what the dispatcher took. */
const heartbeatStreams = (clients: readonly Client[]): { beat(session: Session): void; end(): Promise<number> } => {
  const answers: Promise<number>[] = [];
  const streams = clients.map((client) => {
    let stream!: ClientWritableStream<HeartbeatRequest>;
    answers.push(
      new Promise((resolve, reject) => {
        stream = client.heartbeats((error: ServiceError | null, response?: HeartbeatsResponse) =>
          error ? reject(new Error(`heartbeats: ${error.details || error.message}`)) : resolve(response?.taken ?? 0),
        ) as ClientWritableStream<HeartbeatRequest>;
      }),
    );
    return stream;
  });
  return {
    beat: (session) => void streams[session.channel]!.write({ nodeId: session.nodeId, sessionId: session.sessionId }),
    end: async () => {
      for (const stream of streams) stream.end();
      return (await Promise.all(answers)).reduce((sum, taken) => sum + taken, 0);
    },
  };
};

interface Step {
  readonly rate: number;
  readonly sent: number;
  /** Heartbeats the dispatcher took (the rest failed or went missing). */
  readonly taken: number;
  readonly seconds: number;
  readonly dispatcherCpu: number;
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
  return { rate: 0, sent: 0, taken: 0, seconds: (Date.now() - started) / 1_000, dispatcherCpu: processCpu(dispatcherPid) - cpuBefore };
};

/** Heartbeats at `rate` a second for `seconds`, spread evenly over time, round robin over the sessions, sent as `mode` says. */
const drive = async (mode: Mode, clients: readonly Client[], sessions: readonly Session[], rate: number, seconds: number, dispatcherPid: number): Promise<Step> => {
  const cpuBefore = processCpu(dispatcherPid);
  const started = Date.now();
  let sent: number;
  let taken = 0;
  if (mode === 'streamed') {
    const streams = heartbeatStreams(clients);
    sent = await paced(rate, seconds, (n) => streams.beat(sessions[n % sessions.length]!));
    taken = await streams.end();
  } else {
    const pending: Promise<void>[] = [];
    sent = await paced(rate, seconds, (n) => {
      const session = sessions[n % sessions.length]!;
      pending.push(unaryHeartbeat(clients[session.channel]!, session).then(() => void taken++, () => undefined));
    });
    await Promise.all(pending);
  }
  const elapsed = (Date.now() - started) / 1_000;
  return { rate, sent, taken, seconds: elapsed, dispatcherCpu: processCpu(dispatcherPid) - cpuBefore };
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
  const key = (mode: Mode, rate: number): string => `${mode} ${rate}`;
  const steps = new Map<string, Step[]>(MODES.flatMap((mode) => rates.map((rate) => [key(mode, rate), []])));
  const silent: Step[] = [];
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
        const swarm = await dockerApi<{ JoinTokens: { Worker: string }; Version: { Index: number }; Spec: object }>(cluster.socket, 'GET', '/swarm');
        const update = await dockerApi(cluster.socket, 'POST', `/swarm/update?version=${swarm.body.Version.Index}`, { ...swarm.body.Spec, Dispatcher: { HeartbeatPeriod: HOUR_NS } });
        if (update.status !== 200) throw new Error(`setting the heartbeat period: ${update.status} ${JSON.stringify(update.body)}`);
        for (let i = 0; i < channels; i++) clients.push(new DispatcherClient(`127.0.0.1:${port}`, credentials.createInsecure()));
        for (let i = 0; i < nodes; i += 100) {
          const batch = Array.from({ length: Math.min(100, nodes - i) }, (_, j) => openSession(clients[(i + j) % channels]!, (i + j) % channels, swarm.body.JoinTokens.Worker, i + j));
          sessions.push(...(await Promise.all(batch)));
        }
        process.stderr.write(`run ${run}: ${sessions.length} sessions open\n`);
        // Let registration settle, so that the first rate does not pay for it.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        load.push(loadavg()[0]!);
        silent.push(await idle(seconds, dispatcher.pid!));
        process.stderr.write(`  silent: dispatcher CPU ${share(silent[silent.length - 1]!).toFixed(1)}% of a core\n`);
        for (const rate of rates) {
          for (const mode of MODES) {
            const step = await drive(mode, clients, sessions, rate, seconds, dispatcher.pid!);
            steps.get(key(mode, rate))!.push(step);
            process.stderr.write(
              `  ${rate}/s ${mode}: sent ${step.sent}, taken ${step.taken}, dispatcher CPU ${share(step).toFixed(1)}% of a core, ${added(step, silent[silent.length - 1]!).toFixed(0)} µs a heartbeat\n`,
            );
          }
        }
        const { body } = await dockerApi<{ Status: { State: string } }[]>(cluster.socket, 'GET', '/nodes');
        downNodes = Math.max(downNodes, body.filter((n) => n.Status.State !== 'ready').length);
      } finally {
        for (const session of sessions) session.stream.cancel();
        for (const client of clients) client.close();
        await cluster.stop();
      }
    }
  } finally {
    await broker.stop();
  }

  const runsOf = (mode: Mode, rate: number): Step[] => steps.get(key(mode, rate))!;
  const addedRuns = (mode: Mode, rate: number): number[] => runsOf(mode, rate).map((s, run) => added(s, silent[run]!));
  const label = { streamed: 'on the Heartbeats stream', unary: 'unary Heartbeat calls' } as const;
  const measures: Measure[] = [
    { name: 'silent (sessions open, no heartbeats) — dispatcher CPU, share of one core', unit: '%', runs: silent.map(share), better: 'lower' },
    ...rates.flatMap((rate): Measure[] => [
      ...MODES.flatMap((mode): Measure[] => [
        { name: `${rate}/s ${label[mode]} — dispatcher CPU, share of one core`, unit: '%', runs: runsOf(mode, rate).map(share), better: 'lower' },
        { name: `${rate}/s ${label[mode]} — dispatcher CPU a heartbeat adds`, unit: 'µs', runs: addedRuns(mode, rate), better: 'lower' },
        { name: `${rate}/s ${label[mode]} — taken per second`, unit: 'heartbeats/s', runs: runsOf(mode, rate).map((s) => s.taken / s.seconds), better: 'higher' },
      ]),
      {
        name: `${rate}/s — a unary heartbeat's CPU over a streamed one's`,
        unit: '×',
        runs: addedRuns('unary', rate).map((unary, run) => unary / addedRuns('streamed', rate)[run]!),
        better: 'higher',
      },
    ]),
  ];
  const r = result('heartbeats', 'Heartbeats: what taking them costs the dispatcher', { nodes, channels, 'seconds per rate': seconds, runs }, measures);
  const addedAt = (mode: Mode, rate: number): number => median(addedRuns(mode, rate));
  const percentOver = (mode: Mode, rate: number): string => `${median(runsOf(mode, rate).map((s, run) => share(s) - share(silent[run]!))).toFixed(0)}%`;
  const [slowest, fastest] = [Math.min(...rates), Math.max(...rates)];
  const missing = [...steps.values()].flat().reduce((n, s) => n + (s.sent - s.taken), 0);
  /** The period, in seconds, the dispatcher asks of a fleet this size under the default cluster spec. */
  const periodAt = (fleet: number): number => heartbeatPeriodMs(emptyState(), fleet) / 1_000;
  publish({
    ...r,
    notes: [
      `What heartbeats on the agents' stream add to the dispatcher's CPU, as a share of one core: ${rates.map((rate) => `${percentOver('streamed', rate)} at ${rate}/s`).join(', ')}; ` +
        `as unary calls: ${rates.map((rate) => `${percentOver('unary', rate)} at ${rate}/s`).join(', ')}.`,
      `A heartbeat on the stream costs ${addedAt('streamed', slowest).toFixed(0)} µs at ${slowest}/s and ${addedAt('streamed', fastest).toFixed(0)} µs at ${fastest}/s; a unary one ${addedAt('unary', slowest).toFixed(0)} µs and ${addedAt('unary', fastest).toFixed(0)} µs ` +
        `(${(addedAt('unary', slowest) / addedAt('streamed', slowest)).toFixed(1)}× and ${(addedAt('unary', fastest) / addedAt('streamed', fastest)).toFixed(1)}×): a call is a new HTTP/2 stream with headers and trailers, a message on a stream already open a DATA frame. ` +
        `Heartbeats that come close together share reads, writes and wakeups; agents on nodes of their own come apart, so they cost more than these callers, which share ${channels} connections.`,
      `So the dispatcher asks a fleet for at most ${MAX_HEARTBEATS_PER_SECOND} heartbeats a second (MAX_HEARTBEATS_PER_SECOND, as Nomad's max_heartbeats_per_second): a node calls in every ${DEFAULT_HEARTBEAT_PERIOD_MS / 1_000} s up to ${((DEFAULT_HEARTBEAT_PERIOD_MS / 1_000) * MAX_HEARTBEATS_PER_SECOND).toLocaleString('en-US')} nodes, ` +
        `every ${periodAt(5_000)} s at 5,000 (DOWN after ${periodAt(5_000) * GRACE_MULTIPLIER} s). SwarmKit's fixed 5 s period would ask 1,000 a second of 5,000 nodes.` +
        (rates.includes(MAX_HEARTBEATS_PER_SECOND) && rates.includes(50)
          ? ` At ${MAX_HEARTBEATS_PER_SECOND}/s on the stream they add ${percentOver('streamed', MAX_HEARTBEATS_PER_SECOND)} of a core: no more than the 50 unary calls a second asked of a fleet before the stream (${percentOver('unary', 50)}).`
          : ''),
      `Heartbeats not taken (refused, timed out or lost): ${missing}; nodes not READY at the end of a run: ${downNodes}.`,
      `Load average (1 min) as each run's first rate began: ${load.map((l) => l.toFixed(1)).join(' · ')} on ${cpus().length} cores; this process (the callers), the components and the broker share them.`,
    ],
  });
};
