import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL, TaskState } from '@shoal/contracts';
import type { NodeDescription, ServiceSpec, Task } from '@shoal/contracts';
import { ComponentRunner, EventWriter, LiveView, controlPlaneCores } from '@shoal/runtime';
import type { ClusterState } from '@shoal/domain';
import { KafkaTestTopic, eventually, keptJoinTokens } from '@shoal/testing';

const CLUSTER = 'c-placement';
const NODES = 100;
const SERVICES: readonly [string, number][] = [
  ['web', 400],
  ['api', 300],
  ['worker', 200],
  ['cache', 100],
];

const description = (hostname: string): NodeDescription => ({
  hostname,
  platform: { os: 'linux', architecture: 'x86_64' },
  resources: { nanoCpus: 16e9, memoryBytes: 64 * 2 ** 30 },
  engine: { version: '28.2.2' },
});

const spec = (name: string, replicas: number): ServiceSpec => ({
  name,
  task: { container: { image: `registry.local/${name}:1` }, resources: { reservations: { nanoCpus: 1e8, memoryBytes: 64 * 2 ** 20 } } },
  mode: { kind: 'replicated', replicas },
});

/** Tasks meant to run (desired RUNNING) and placed on a node. */
const placed = (state: ClusterState): Task[] =>
  [...state.tasks.values()].filter((t) => t.desiredState === TaskState.RUNNING && t.status.state >= TaskState.ASSIGNED && t.nodeId !== undefined);

/** How long placing (or re-placing) 1,000 tasks may take. */
const PLACED_WITHIN_MS = 90_000;

// The orchestrator, allocator and scheduler together on a real broker, each with its own
// client and view as separate processes would have: 1,000 tasks of four services on 100
// nodes, then a node drained and its tasks re-placed.
describe('placement through the log', () => {
  const topic = new KafkaTestTopic('placement-intents');
  afterAll(() => topic.close());

  it('places 1,000 tasks on 100 nodes evenly, and re-places a drained node\'s tasks elsewhere', async () => {
    const intents = await topic.open();
    const view = await topic.start(new LiveView(intents));

    const api = new EventWriter(intents, CLUSTER, 'api', 'api-test');
    const dispatcher = new EventWriter(intents, CLUSTER, 'dispatcher', 'dispatcher-test');
    await api.appendAndWait(view, [api.propose('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'SWMTKN-1-w', manager: 'SWMTKN-1-m' }), logLevel: LOG_LEVEL })]);
    const registered = await dispatcher.appendAndWait(
      view,
      Array.from({ length: NODES }, (_, n) => dispatcher.propose('NodeRegistered', { id: `node-${n}`, role: 'worker', description: description(`node-${n}`) })),
    );
    expect(registered.every((v) => v.status === 'applied')).toBe(true);

    const runners: ComponentRunner[] = [];
    for (const core of controlPlaneCores()) {
      runners.push(await topic.start(new ComponentRunner(await topic.open(`placement-${core.component}`), core, { cluster: CLUSTER, instance: `${core.component}-test` })));
    }
    for (const runner of runners) await runner.untilActive();

    const created = await api.appendAndWait(
      view,
      SERVICES.map(([name, replicas]) => api.propose('ServiceCreated', { id: `svc-${name}`, spec: spec(name, replicas) })),
    );
    expect(created.every((v) => v.status === 'applied')).toBe(true);

    await eventually('1,000 tasks are placed', () => placed(view.state).length === 1_000, PLACED_WITHIN_MS);
    const state = view.state;
    // Identical nodes, no constraints: each service spreads to within one task per node.
    for (const [name, replicas] of SERVICES) {
      const perNode = new Map<string, number>();
      for (const task of placed(state).filter((t) => t.serviceId === `svc-${name}`)) perNode.set(task.nodeId!, (perNode.get(task.nodeId!) ?? 0) + 1);
      const counts = Array.from({ length: NODES }, (_, n) => perNode.get(`node-${n}`) ?? 0);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(replicas);
      expect(Math.max(...counts) - Math.min(...counts)).toBeLessThanOrEqual(1);
    }
    // Every placement says why.
    expect(placed(state).every((t) => typeof t.assignmentReason === 'string' && t.assignmentReason.length > 0)).toBe(true);

    const drained = 'node-7';
    const onDrained = placed(state).filter((t) => t.nodeId === drained).map((t) => t.id);
    expect(onDrained.length).toBeGreaterThanOrEqual(9);
    const node = state.nodes.get(drained)!;
    const [verdict] = await api.appendAndWait(view, [
      api.propose('NodeSpecUpdated', { id: drained, spec: { ...node.spec, availability: 'drain' } }, { expect: { nodeVersions: { [drained]: node.version } } }),
    ]);
    expect(verdict?.status).toBe('applied');

    // The drained node's agent stops what it is told to stop, as an agent does; the
    // replacements start once their old tasks have stopped (SwarmKit's restart waits).
    const reported = new Set<string>();
    await eventually("the drained node's tasks are shut down and replaced elsewhere", () => {
      const s = view.state;
      const stopping = [...s.tasks.values()].filter((t) => t.nodeId === drained && t.desiredState > TaskState.RUNNING && !reported.has(t.id));
      if (stopping.length > 0) {
        for (const t of stopping) reported.add(t.id);
        void dispatcher.append([
          dispatcher.propose('TaskStatusesReported', { nodeId: drained, statuses: stopping.map((t) => ({ id: t.id, state: TaskState.SHUTDOWN, at: new Date().toISOString() })) }),
        ]);
      }
      const running = placed(s);
      return running.length === 1_000 && running.every((t) => t.nodeId !== drained);
    }, PLACED_WITHIN_MS);
    const after = view.state;
    for (const id of onDrained) expect(after.tasks.get(id)?.desiredState).toBeGreaterThan(TaskState.RUNNING);
    // One runnable task per slot: the replacements took the drained tasks' slots.
    for (const [name, replicas] of SERVICES) {
      const slots = placed(after).filter((t) => t.serviceId === `svc-${name}`).map((t) => t.slot);
      expect(new Set(slots).size).toBe(replicas);
    }
  });
});
