/**
 * A dispatcher failover on a real broker, as deployed: the active dispatcher is a process
 * of its own, killed without a chance to say so; a standby (its own client, its own place
 * in line for the lease) takes over; a simulated fleet keeps running, the control plane
 * (allocator, orchestrator, scheduler) watches the log. No node whose agent stayed alive is
 * marked DOWN, and no task of one is restarted.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CLUSTER_SPEC, TaskState, decode } from '@shoal/contracts';
import type { EventOf, EventType } from '@shoal/contracts';
import { ComponentRunner, EventWriter, LiveView, componentCore, newJoinTokens } from '@shoal/runtime';
import { KafkaTestTopic, eventually, serviceSpec } from '@shoal/testing';
import { ShoalProcess } from '../../../libs/testing/src/processes/spawn-shoal';
import { SimulatedFleet } from '../../agent/src/simulated-fleet';
import { DispatcherServer } from './dispatcher-server';

const NODES = 40;
const REPLICAS = 80;
/** Short, so that the grace a node is given runs out well within the test. */
const HEARTBEAT_MS = 1_000;

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
    const log = await topic.open();
    const view = await topic.start(new LiveView(log));
    const tokens = newJoinTokens(cluster);
    const api = new EventWriter(log, cluster, 'api', 'api-failover');
    const web = serviceSpec('web', { kind: 'replicated', replicas: REPLICAS }, { task: { container: { image: 'busybox' } } });
    await api.appendAndWait(view, [api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: HEARTBEAT_MS } }, tokens })]);

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
    for (const component of ['allocator', 'orchestrator', 'scheduler'] as const) {
      const runner = await topic.start(new ComponentRunner(await topic.open(`failover-${component}`), componentCore(component), { cluster, instance: `${component}-failover` }));
      await runner.untilActive();
    }

    fleet = new SimulatedFleet({ dispatchers: [activeAddress!, standby.address!], joinToken: tokens.worker, nodes: NODES });
    await fleet.start();
    await api.appendAndWait(view, [api.propose('ServiceCreated', { id: 's-web', spec: web })]);
    const running = (): string[] =>
      [...view.state.tasks.values()].filter((task) => task.desiredState === TaskState.RUNNING && task.status.state === TaskState.RUNNING).map((task) => task.id).sort();
    await eventually(`${REPLICAS} tasks running`, () => running().length === REPLICAS, 60_000);
    const before = running();
    const from = await log.highWaterMark();

    await active.crash();
    await standby.runner!.untilActive(60_000);
    const nodeIds = new Set(fleet.nodeIds);
    const since = async <K extends EventType>(type: K): Promise<EventOf<K>[]> =>
      (await log.read(from)).flatMap((record) => {
        const decoded = decode(record.value);
        return decoded.ok && decoded.event.type === type ? [decoded.event as EventOf<K>] : [];
      });
    await eventually('every node registered with the new active dispatcher', async () => {
      const back = new Set((await since('NodeRegistered')).map((event) => event.data.id));
      return [...nodeIds].every((id) => back.has(id!));
    }, 90_000);
    // What the control plane does about a node DOWN follows within moments.
    await view.waitFor(await log.highWaterMark());
    await new Promise((resolve) => setTimeout(resolve, 2 * HEARTBEAT_MS));

    const down = (await since('NodeStatusChanged')).flatMap((event) => event.data.nodes.filter((node) => node.state === 'down').map((node) => `${node.id}: ${node.message}`));
    const restarted = (await since('TaskDesiredStatesChanged')).flatMap((event) => event.data.tasks.map((task) => task.id));
    expect(down).toEqual([]);
    expect(restarted).toEqual([]);
    expect(running()).toEqual(before);
  });
});
