/**
 * One shape of the scheduler benchmark, in a process of its own (so its peak memory is its
 * own): `nodes` ready nodes, one replicated service of `tasks` PENDING tasks, then the
 * scheduler places them all, `reps` times over (1 unless told), each in a view of its own.
 * Prints one JSON line, each time the middle of its repetitions (every one beside it):
 *   core     time spent in SchedulerCore.decide until every task has a node
 *   view     the same through the scheduler's view: decide → stamp → evolve → observe, until
 *            the state has every task ASSIGNED (what the running component does, less the log)
 *   maxRss   the process's peak resident memory
 * With `constraints`, as SwarmKit's BenchmarkSchedulerConstraints*: the tasks attach to an
 * overlay network and only every third node has the overlay network plugin. Grouping
 * `service`: the tasks are one service's replicas, one batch; `per-task`: each task is the
 * one replica of a service of its own, a batch of one each, as SwarmKit's benchmark tasks
 * (no spec version) are each scheduled on their own.
 */
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { NewTask, ServiceSpec, ShoalEvent } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
// The factory's own module, not @shoal/runtime's index: that loads Nest and kafkajs, whose memory would count as the scheduler's.
import { componentCore } from '../../libs/runtime/src/component-cores';
import { benchEvents, benchNode } from './events';

const [nodesArg, tasksArg, constraintsArg, groupingArg = 'service', repsArg = '1'] = process.argv.slice(2);
const reps = Math.max(1, Number(repsArg));
const nodes = Number(nodesArg);
const tasks = Number(tasksArg);
const constraints = constraintsArg === 'constraints';
if (groupingArg !== 'service' && groupingArg !== 'per-task') throw new Error(`grouping ${groupingArg}: service or per-task`);
const grouping: Grouping = groupingArg;

export type Grouping = 'service' | 'per-task';

interface ShapeTiming {
  readonly coreMs: number;
  readonly viewMs: number;
  readonly nodesUsed: number;
}

const place = (nodes: number, tasks: number, constraints: boolean, grouping: Grouping): ShapeTiming => {
  const event = benchEvents();

  const core = componentCore('scheduler');
  const projection = new Projection(undefined, 0, { keepRefusals: 10, onEvent: (e, v, s) => core.observe(e, v, s) });
  let offset = 0;
  const apply = (e: ShoalEvent): void => {
    const verdict = projection.applyDecoded(offset++, { ok: true, event: e });
    if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status ?? 'not read'} ${verdict?.reasons.slice(0, 3).join('; ') ?? ''}`);
  };

  apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
  for (let i = 0; i < nodes; i++) {
    const plugins = constraints ? { plugins: [{ type: 'Network', name: i % 3 === 0 ? 'overlay' : 'bridge' }] } : {};
    apply(event('NodeRegistered', benchNode(i, { nanoCpus: 1_000e9, memoryBytes: 4 * 2 ** 40 }, { version: '28.2.2', ...plugins }), 'dispatcher'));
  }
  if (constraints) apply(event('NetworkCreated', { id: 'net-1', spec: { name: 'backend', driver: 'overlay' } }, 'api'));
  const spec: ServiceSpec = {
    name: 'bench',
    task: { container: { image: 'registry.local/bench:1' }, ...(constraints ? { networks: [{ target: 'net-1' }] } : {}) },
    mode: { kind: 'replicated', replicas: tasks },
  };
  const serviceOf = grouping === 'service' ? (): string => 'svc' : (i: number): string => `svc-${i}`;
  if (grouping === 'service') apply(event('ServiceCreated', { id: 'svc', spec }, 'api'));
  else for (let i = 0; i < tasks; i++) apply(event('ServiceCreated', { id: serviceOf(i), spec: { ...spec, name: `bench-${i}`, mode: { kind: 'replicated', replicas: 1 } } }, 'api'));
  for (let first = 0; first < tasks; first += 10_000) {
    const batch: NewTask[] = [];
    for (let i = first; i < Math.min(tasks, first + 10_000); i++) {
      const slot = grouping === 'service' ? i + 1 : 1;
      batch.push({ id: `task-${i}`, serviceId: serviceOf(i), slot, specVersion: 1, spec: spec.task, desiredState: TaskState.RUNNING });
    }
    apply(event('TasksCreated', { tasks: batch }, 'orchestrator'));
    apply(event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
  }
  const state = projection.state;
  core.reconcileAll(state);

  // The young garbage the setup made is collected before the clock starts, as SwarmKit's driver
  // collects its own (a full collection here would also drop the code the warm-up compiled).
  (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc?.({ type: 'minor' });
  const now = new Date('2026-01-01T01:00:00Z');
  let coreNs = 0n;
  let assigned = 0;
  const started = process.hrtime.bigint();
  for (let round = 0; assigned < tasks; round++) {
    if (round > tasks + 1_000) throw new Error(`only ${assigned} of ${tasks} tasks placed`);
    const t0 = process.hrtime.bigint();
    const proposals = core.decide(state, now);
    coreNs += process.hrtime.bigint() - t0;
    for (const proposal of proposals) {
      if (proposal.type !== 'TasksAssigned') throw new Error(`unexpected ${proposal.type}: ${JSON.stringify(proposal.data).slice(0, 300)}`);
      apply(event('TasksAssigned', proposal.data, 'scheduler'));
      assigned += proposal.data.tasks.length;
    }
  }
  const viewNs = process.hrtime.bigint() - started;
  if ([...state.tasks.values()].some((t) => t.status.state !== TaskState.ASSIGNED)) throw new Error('not every task is ASSIGNED');
  const nodesUsed = new Set([...state.tasks.values()].map((t) => t.nodeId)).size;
  return { coreMs: Number(coreNs) / 1e6, viewMs: Number(viewNs) / 1e6, nodesUsed };
};

// A small shape first, unmeasured, so the measured one runs on warm code as a long-lived scheduler does;
// when it is placed more than once, once more of the measured shape itself.
place(100, 2_000, constraints, grouping);
if (reps > 1) place(nodes, tasks, constraints, grouping);
const timings: ShapeTiming[] = [];
for (let rep = 0; rep < reps; rep++) timings.push(place(nodes, tasks, constraints, grouping));
const middle = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1] as number;

process.stdout.write(
  `${JSON.stringify({
    nodes,
    tasks,
    constraints,
    grouping,
    coreMs: middle(timings.map((t) => t.coreMs)),
    viewMs: middle(timings.map((t) => t.viewMs)),
    nodesUsed: timings[0]?.nodesUsed,
    coreRuns: timings.map((t) => t.coreMs),
    viewRuns: timings.map((t) => t.viewMs),
    maxRssMiB: process.resourceUsage().maxRSS / 1024,
  })}\n`,
);
