/**
 * One measurement of the memory benchmark, in a process of its own (run with --expose-gc):
 * the heap a component's view holds — the ClusterState every view has, plus what the
 * component's core keeps — after replaying `nodes` nodes and `tasks` RUNNING tasks (100
 * services), as a freshly started component has it. Prints one JSON line with the bytes.
 */
import { DEFAULT_CLUSTER_SPEC, TaskState, encode } from '@shoal/contracts';
import type { NewTask, ServiceSpec, ShoalEvent } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
// The factory's own module, not @shoal/runtime's index: that loads Nest and kafkajs, whose memory would count as the view's.
import { benchEvents, benchNode, heapAfterGc as gc, viewCore } from './events';

const [which, nodesArg, tasksArg] = process.argv.slice(2);
const nodes = Number(nodesArg);
const tasks = Number(tasksArg);
const SERVICES = 100;

const event = benchEvents();

const before = gc();
const core = viewCore(which);
const projection = new Projection(undefined, 0, { keepRefusals: 10, ...(core ? { onEvent: (e, v, s) => core.observe(e, v, s) } : {}) });
let offset = 0;
// Through the wire format, as a view reads the log: every record decoded on its own.
const apply = (e: ShoalEvent): void => {
  const verdict = projection.apply({ offset: offset++, value: encode(e) });
  if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status} ${verdict?.reasons.slice(0, 3).join('; ')}`);
};

apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
for (let i = 0; i < nodes; i++) {
  apply(event('NodeRegistered', benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: { zone: `z${i % 3}` } }), 'dispatcher'));
}
const perService = Math.ceil(tasks / SERVICES);
const byNode = new Map<string, string[]>();
for (let s = 0; s < SERVICES && s * perService < tasks; s++) {
  const count = Math.min(perService, tasks - s * perService);
  const spec: ServiceSpec = {
    name: `svc-${s}`,
    task: { container: { image: `registry.local/app-${s}:1`, env: ['MODE=bench'] }, resources: { reservations: { nanoCpus: 1e7, memoryBytes: 2 ** 24 } } },
    mode: { kind: 'replicated', replicas: count },
  };
  apply(event('ServiceCreated', { id: `svc-${s}`, spec }, 'api'));
  if (count === 0) continue;
  const batch: NewTask[] = [];
  for (let i = 0; i < count; i++) batch.push({ id: `task-${s}-${i}`, serviceId: `svc-${s}`, slot: i + 1, specVersion: 1, spec: spec.task, desiredState: TaskState.RUNNING });
  apply(event('TasksCreated', { tasks: batch }, 'orchestrator'));
  apply(event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
  const placed = batch.map((t, i) => ({ id: t.id, nodeId: `node-${(s * perService + i) % nodes}`, why: 'bench' }));
  apply(event('TasksAssigned', { tasks: placed }, 'scheduler'));
  for (const p of placed) byNode.set(p.nodeId, [...(byNode.get(p.nodeId) ?? []), p.id]);
}
for (const [nodeId, ids] of byNode) {
  apply(event('TaskStatusesReported', { nodeId, statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: '2026-01-01T00:10:00.000Z' })) }, 'dispatcher'));
}
core?.reconcileAll(projection.state);
const held = gc() - before;
if (projection.state.tasks.size !== tasks) throw new Error(`expected ${tasks} tasks, have ${projection.state.tasks.size}`);
process.stdout.write(`${JSON.stringify({ view: which, nodes, tasks, bytes: held })}\n`);
// Keep everything reachable until the measure is taken.
if (projection.position < 0 || (core && !core.component)) process.stdout.write('\n');
