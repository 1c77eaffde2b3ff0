/**
 * Many clusters, one set of component processes: twenty clusters, one partition of the log
 * topic each, and three instances of each log-driven component (orchestrator, allocator,
 * scheduler, reaper), each serving every partition (SHOAL_PARTITIONS=all). Each cluster's
 * component is active in exactly one instance, and the clusters spread evenly over the
 * instances. Kill one instance of each component: its clusters move to the other two under
 * newer terms, and every cluster converges again — each slot with one task, each task
 * assigned once, whatever the killed owners had under way.
 */
import { encode } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import { KafkaEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, nodeDescription, runsReplicas, serviceSpec } from '@shoal/testing';
import { eventually } from '../../libs/testing/src/eventually';
import { testBrokers } from '../../libs/testing/src/kafka-topic';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';

const CLUSTERS = 20;
const COMPONENTS = ['orchestrator', 'allocator', 'scheduler', 'reaper'] as const;
type Component = (typeof COMPONENTS)[number];

interface PartitionHealth {
  readonly partition: number;
  readonly cluster?: string;
  readonly state: string;
  readonly term?: number;
}

interface Instance {
  readonly component: Component;
  readonly process: ShoalProcess;
  readonly port: number;
}

const partitionsOf = async (instance: Instance): Promise<PartitionHealth[] | undefined> => {
  const response = await fetch(`http://127.0.0.1:${instance.port}/healthz`).catch(() => undefined);
  if (!response?.ok) return undefined;
  return ((await response.json()) as { partitions: PartitionHealth[] }).partitions;
};

/** Which instance is active for each partition, and the term; undefined unless exactly one is, for every partition. */
const owners = async (instances: readonly Instance[]): Promise<Map<number, { owner: number; term: number }> | undefined> => {
  const found = new Map<number, { owner: number; term: number }[]>();
  for (const [index, instance] of instances.entries()) {
    const partitions = await partitionsOf(instance);
    if (!partitions || partitions.length !== CLUSTERS) return undefined;
    for (const part of partitions) {
      if (part.state === 'active') found.set(part.partition, [...(found.get(part.partition) ?? []), { owner: index, term: part.term ?? 0 }]);
    }
  }
  if (found.size !== CLUSTERS || [...found.values()].some((active) => active.length !== 1)) return undefined;
  return new Map([...found].map(([partition, [only]]) => [partition, only!]));
};

const countsOf = (owned: Map<number, { owner: number }>, instances: number): number[] =>
  Array.from({ length: instances }, (_, index) => [...owned.values()].filter(({ owner }) => owner === index).length);

describe('one set of component processes serving twenty clusters', () => {
  let deployment: ShoalProcesses;
  let seed: KafkaEventLog;
  const logs = new Map<number, KafkaEventLog>();
  const builders = new Map<number, EventBuilder>();

  beforeAll(async () => {
    // Plaintext to the broker: each partition served costs a process broker connections of its own (docs/scaling.md), and
    // twelve processes × twenty partitions of TLS and SCRAM handshakes at once would measure this machine's two cores, not Shoal.
    const env = { SHOAL_HEALTH_PORT: '0', SHOAL_PARTITIONS: 'all', SHOAL_SNAPSHOT_EVERY_MS: '2000', KAFKA_BROKERS: testBrokers().join(',') };
    deployment = ShoalProcesses.onKafka('multi', env);
    seed = await KafkaEventLog.open({ brokers: testBrokers(), topic: `${deployment.topicPrefix!}.events`, partitions: CLUSTERS, clientId: 'multi-seed' });
    for (let partition = 0; partition < CLUSTERS; partition++) logs.set(partition, await seed.partitionLog(partition));
  }, 60_000);
  afterAll(async () => {
    await deployment?.close();
    await seed?.close();
  });

  /** Appends what the API and the dispatcher would write to cluster `partition`'s log. */
  const write = async (partition: number, events: (b: EventBuilder) => ReturnType<EventBuilder['event']>[]): Promise<void> => {
    const b = builders.get(partition) ?? new EventBuilder(`cluster-${partition}`);
    builders.set(partition, b);
    await logs.get(partition)!.append(events(b).map((event) => ({ key: event.cluster, value: encode(event) })));
  };

  /** Every cluster's state, replayed from its partition. */
  const states = async (): Promise<Projection[]> =>
    Promise.all([...logs.values()].map(async (log) => new Projection().applyAll(await log.read(0))));

  const start = async (component: Component, index: number): Promise<Instance> => {
    const process = deployment.cli(['run', component], { SHOAL_DATA_DIR: `${deployment.dataDir}/${component}-${index}` });
    const [, port] = await process.waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, 120_000);
    return { component, process, port: Number(port) };
  };

  it('spreads the clusters over the instances, and moves a killed instance\'s clusters to the others without writing anything twice', async () => {
    for (let partition = 0; partition < CLUSTERS; partition++) {
      await write(partition, (b) => [
        clusterInit(b),
        b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') }),
        b.event('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') }),
        b.event('ServiceCreated', { id: 'web', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) }),
      ]);
    }

    const instances = new Map<Component, Instance[]>();
    // One instance of each first, then the others: the later ones join groups that already hold every partition.
    for (let index = 0; index < 3; index++) {
      const started = await Promise.all(COMPONENTS.map((component) => start(component, index)));
      for (const instance of started) instances.set(instance.component, [...(instances.get(instance.component) ?? []), instance]);
    }

    await eventually('every cluster runs its three tasks', async () => (await states()).every((projection) => runsReplicas(projection.state, { web: 3 })) || undefined, {
      timeoutMs: 120_000,
      everyMs: 500,
    });

    const before = new Map<Component, Map<number, { owner: number; term: number }>>();
    for (const component of COMPONENTS) {
      let last: unknown;
      const owned = await eventually(
        `the ${component}'s clusters are spread over its three instances`,
        async () => {
          const found = await owners(instances.get(component)!);
          last = found && countsOf(found, 3);
          return found && Math.max(...countsOf(found, 3)) - Math.min(...countsOf(found, 3)) <= 1 ? found : undefined;
        },
        { timeoutMs: 90_000, everyMs: 500, explain: () => last },
      );
      expect(countsOf(owned, 3).sort()).toEqual([6, 7, 7]);
      // Each cluster has its own terms: the later instances took theirs by moves, some clusters by none.
      expect(new Set([...owned.values()].map(({ term }) => term)).size).toBeGreaterThan(0);
      before.set(component, owned);
    }

    // Kill the first instance of every component at once, mid-flight: a second service is being created in every cluster.
    await Promise.all(COMPONENTS.map((component) => instances.get(component)![0]!.process.crash()));
    for (let partition = 0; partition < CLUSTERS; partition++) {
      await write(partition, (b) => [b.event('ServiceCreated', { id: 'api', spec: serviceSpec('api', { kind: 'replicated', replicas: 2 }) })]);
    }

    for (const component of COMPONENTS) {
      const survivors = instances.get(component)!.slice(1);
      let last: unknown;
      const owned = await eventually(
        `the killed ${component}'s clusters move to the other two`,
        async () => {
          const found = await owners(survivors);
          last = found && countsOf(found, 2);
          return found && Math.abs(countsOf(found, 2)[0]! - countsOf(found, 2)[1]!) <= 1 ? found : undefined;
        },
        { timeoutMs: 90_000, everyMs: 500, explain: () => last },
      );
      expect(countsOf(owned, 2)).toEqual([10, 10]);
      for (const [partition, was] of before.get(component)!) {
        const now = owned.get(partition)!;
        // A cluster the killed instance owned is now another's under a newer term; the rest stayed (or moved, under a newer term) to even the load.
        if (was.owner === 0) expect(now.term).toBeGreaterThan(was.term);
        else expect(now.term).toBeGreaterThanOrEqual(was.term);
      }
    }

    await eventually('every cluster runs both services', async () => (await states()).every((projection) => runsReplicas(projection.state, { web: 3, api: 2 })) || undefined, {
      timeoutMs: 120_000,
      everyMs: 500,
    });

    // Nothing written twice: each cluster holds exactly its five tasks, each assigned once; a stale owner's late writes, if any, were refused.
    for (const [partition, log] of logs) {
      const records = await log.read(0);
      const projection = new Projection();
      const assignedTimes = new Map<string, number>();
      for (const record of records) {
        const verdict = projection.apply(record);
        const event = JSON.parse(record.value) as { type: string; data: { tasks?: { id: string }[] } };
        if (event.type === 'TasksAssigned' && verdict?.status === 'applied') {
          for (const task of event.data.tasks ?? []) assignedTimes.set(task.id, (assignedTimes.get(task.id) ?? 0) + 1);
        }
      }
      expect({ partition, tasks: projection.state.tasks.size }).toEqual({ partition, tasks: 5 });
      expect([...assignedTimes.values()].every((times) => times === 1)).toBe(true);
      expect(projection.state.cluster?.id).toBe(`cluster-${partition}`);
      for (const refusal of projection.refusals) expect(refusal.reasons.join('; ')).toMatch(/superseded|stale|no longer|already/);
    }
  }, 600_000);
});
