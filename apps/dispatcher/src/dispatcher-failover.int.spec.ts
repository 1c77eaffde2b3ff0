/**
 * Dispatcher failovers on a real broker, with a simulated fleet whose agents stay alive
 * throughout and the control plane (allocator, orchestrator, scheduler) watching the log.
 * First as deployed: the active dispatcher is a process of its own, killed without a
 * chance to say so, and a standby (its own client, its own place in line for the lease)
 * takes over. Then a broker outage on a broker of the test's own: the active dispatcher's
 * process lives on, but its lease is lost, and whichever dispatcher takes the next term
 * must have the agents back. Either way no node whose agent stayed alive is marked DOWN,
 * and no task of one is restarted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL, TaskState, decode } from '@shoal/contracts';
import type { EventOf, EventType } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { ComponentRunner, EventWriter, LiveView, componentCore, newJoinTokens } from '@shoal/runtime';
import type { JoinTokens } from '@shoal/contracts';
import { KafkaTestTopic, eventually, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { LocalKafkaBroker } from '../../../infra/kafka/broker';
import { ShoalProcess } from '../../../libs/testing/src/processes/spawn-shoal';
import { SimulatedFleet } from '../../agent/src/simulated-fleet';
import { DispatcherServer } from './dispatcher-server';

const NODES = 40;
const REPLICAS = 80;
/** Short, so that the grace a node is given runs out well within the test. */
const HEARTBEAT_MS = 1_000;
/** As long as the chaos suite's broker outage. */
const OUTAGE_MS = 10_000;

/** The cluster initialized with the short heartbeat period, a view of it, and the writer that stands for the API. */
const initialize = async (topic: KafkaTestTopic, cluster: string) => {
  const log = await topic.open();
  const view = await topic.start(new LiveView(log));
  const tokens: JoinTokens = newJoinTokens(cluster);
  const api = new EventWriter(log, cluster, 'api', `api-${cluster}`);
  await api.appendAndWait(view, [api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: HEARTBEAT_MS } }, tokens: keptJoinTokens(tokens), logLevel: LOG_LEVEL })]);
  return { log, view, tokens, api };
};

/** The allocator, orchestrator and scheduler, each active. */
const startControlPlane = async (topic: KafkaTestTopic, cluster: string): Promise<void> => {
  for (const component of ['allocator', 'orchestrator', 'scheduler'] as const) {
    const runner = await topic.start(new ComponentRunner(await topic.open(`${cluster}-${component}`), componentCore(component), { cluster, instance: `${component}-${cluster}` }));
    await runner.untilActive();
  }
};

/** Creates the service and waits for all its replicas to run: their ids. */
const runService = async (api: EventWriter, view: LiveView): Promise<string[]> => {
  const web = serviceSpec('web', { kind: 'replicated', replicas: REPLICAS }, { task: { container: { image: 'busybox' } } });
  await api.appendAndWait(view, [api.propose('ServiceCreated', { id: 's-web', spec: web })]);
  await eventually(`${REPLICAS} tasks running`, () => running(view).length === REPLICAS, 60_000);
  return running(view);
};

const running = (view: LiveView): string[] =>
  [...view.state.tasks.values()].filter((task) => task.desiredState === TaskState.RUNNING && task.status.state === TaskState.RUNNING).map((task) => task.id).sort();

/** The events of one type on the log from offset `from`. */
const eventsSince = async <K extends EventType>(log: EventLog, from: number, type: K): Promise<EventOf<K>[]> =>
  (await log.read(from)).flatMap((record) => {
    const decoded = decode(record.value);
    return decoded.ok && decoded.event.type === type ? [decoded.event as EventOf<K>] : [];
  });

/** Nodes marked DOWN since `from`, each with why. */
const downSince = async (log: EventLog, from: number): Promise<string[]> =>
  (await eventsSince(log, from, 'NodeStatusChanged')).flatMap((event) => event.data.nodes.filter((node) => node.state === 'down').map((node) => `${node.id}: ${node.message}`));

/** Tasks whose desired state changed since `from` (restarted, or shut down). */
const restartedSince = async (log: EventLog, from: number): Promise<string[]> =>
  (await eventsSince(log, from, 'TaskDesiredStatesChanged')).flatMap((event) => event.data.tasks.map((task) => task.id));

/** Whether every node of the fleet registered again since `from`. */
const allRegisteredSince = async (log: EventLog, from: number, fleet: SimulatedFleet): Promise<boolean> => {
  const back = new Set((await eventsSince(log, from, 'NodeRegistered')).map((event) => event.data.id));
  return fleet.nodeIds.every((id) => id !== undefined && back.has(id));
};

describe('a dispatcher failover, the active one killed', () => {
  const topic = new KafkaTestTopic('dispatcher-failover');
  const cluster = 'c-failover';
  const dataDir = mkdtempSync(join(tmpdir(), 'shoal-dispatcher-failover-'));
  let active: ShoalProcess | undefined;
  let fleet: SimulatedFleet | undefined;

  afterAll(async () => {
    await fleet?.stop();
    await active?.crash();
    await topic.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('marks no node of a live agent DOWN and restarts none of its tasks', async () => {
    const { log, view, tokens, api } = await initialize(topic, cluster);
    active = ShoalProcess.cli(['run', 'dispatcher'], {
      ...process.env,
      KAFKA_BROKERS: topic.brokers.join(','),
      SHOAL_TOPIC_PREFIX: topic.name.replace(/\.events$/, ''),
      SHOAL_CLUSTER_ID: cluster,
      SHOAL_DISPATCHER_PORT: '0',
      SHOAL_HEALTH_PORT: '0',
      SHOAL_DATA_DIR: dataDir,
      SHOAL_SNAPSHOT_EVERY_MS: '0',
    });
    const [, activeAddress] = await active.waitFor(/active under term \d+: serving agents on (\S+)/, 90_000);
    const standby = await topic.start(new DispatcherServer(await topic.open('dispatcher-standby'), { cluster }));
    expect(standby.runner!.state).toBe('standby');
    await startControlPlane(topic, cluster);

    fleet = new SimulatedFleet({ dispatchers: [activeAddress!, standby.address!], joinToken: tokens.worker, nodes: NODES });
    await fleet.start();
    const before = await runService(api, view);
    const from = await log.highWaterMark();

    await active.crash();
    await standby.runner!.untilActive(60_000);
    const nodes = fleet;
    await eventually('every node registered with the new active dispatcher', () => allRegisteredSince(log, from, nodes), 90_000);
    // What the control plane does about a node DOWN follows within moments.
    await view.waitFor(await log.highWaterMark());
    await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_MS));

    expect(await downSince(log, from)).toEqual([]);
    expect(await restartedSince(log, from)).toEqual([]);
    expect(running(view)).toEqual(before);
  });
});

/**
 * The most sessions a dispatcher held while it had lost its lease and not yet taken
 * another: from its "lost ownership" line (once that has ended every session) to its
 * next "active under term" line, sampled every 20 ms.
 */
class LeaselessSessions {
  most = 0;
  lost = false;
  private sampler?: NodeJS.Timeout;

  constructor(private readonly server: DispatcherServer) {}

  heard(line: string): void {
    if (line.startsWith('lost ownership')) {
      this.lost = true;
      this.stop();
      this.sampler = setInterval(() => (this.most = Math.max(this.most, this.server.sessions.size)), 20);
    } else if (line.startsWith('active under term')) this.stop();
  }

  stop(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.sampler = undefined;
  }
}

describe('a broker outage that costs the active dispatcher its lease', () => {
  let broker: LocalKafkaBroker;
  let topic: KafkaTestTopic;
  const cluster = 'c-outage';
  let fleet: SimulatedFleet | undefined;
  let late: SimulatedFleet | undefined;

  beforeAll(async () => {
    broker = await LocalKafkaBroker.start();
    topic = new KafkaTestTopic('dispatcher-outage', broker.brokers);
  });

  afterAll(async () => {
    await late?.stop();
    await fleet?.stop();
    await topic.close();
    await broker.stop();
  });

  it('leaves every node of a live agent up and restarts none of its tasks', async () => {
    const { log, view, tokens, api } = await initialize(topic, cluster);
    const first = await topic.start(new DispatcherServer(await topic.open('dispatcher-first'), { cluster, log: (line) => leaseless.heard(line) }));
    const leaseless = new LeaselessSessions(first);
    await first.runner!.untilActive();
    const second = await topic.start(new DispatcherServer(await topic.open('dispatcher-second'), { cluster }));
    expect(second.runner!.state).toBe('standby');
    const termBefore = first.runner!.term!;
    await startControlPlane(topic, cluster);

    const dispatchers = [first.address!, second.address!];
    fleet = new SimulatedFleet({ dispatchers, joinToken: tokens.worker, nodes: NODES });
    await fleet.start();
    const before = await runService(api, view);
    const from = await log.highWaterMark();

    await broker.kill();
    // A node joins while the log is away, as nodes do under load: the active dispatcher has
    // a registration to write, and is waiting on the log when its lease goes.
    late = new SimulatedFleet({ dispatchers, joinToken: tokens.worker, nodes: 1, hostnamePrefix: 'late-node-' });
    const joined = late.start();
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    broker = await broker.restart();
    await joined;

    // Whichever dispatcher takes the next term finds every node back, or gives up on some.
    const taken = (): DispatcherServer | undefined => [first, second].find((server) => server.runner!.state === 'active' && server.runner!.term! > termBefore);
    await eventually('a dispatcher active under a later term', () => taken() !== undefined, 90_000);
    const nodes = [fleet, late];
    let settled = false;
    await eventually('every node registered again, or one marked DOWN', async () => {
      settled = (await allRegisteredSince(log, from, nodes[0]!)) && (await allRegisteredSince(log, from, nodes[1]!));
      return settled || (await downSince(log, from)).length > 0;
    }, 90_000);
    // Past the grace an UNKNOWN node has (six periods), so that a node left waiting would be DOWN by now.
    await new Promise((resolve) => setTimeout(resolve, 8 * HEARTBEAT_MS));
    await view.waitFor(await log.highWaterMark());

    leaseless.stop();
    // Agents that found a session there would stay, unseen by whichever instance took the next term.
    expect(leaseless.lost).toBe(true);
    expect(leaseless.most).toBe(0);
    expect(await downSince(log, from)).toEqual([]);
    expect(await restartedSince(log, from)).toEqual([]);
    expect(settled).toBe(true);
    expect(running(view)).toEqual(before);
  }, 240_000);
});
