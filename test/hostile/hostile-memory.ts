/**
 * One measurement of the memory guard under hostile input, in a process of its own (run
 * with --expose-gc): the heap a component's view holds after replaying, through the wire
 * format, the largest records admission lets onto the log — a service whose spec is as
 * large as maxSpecBytes allows, made of as many labels as fit, at maxReplicasPerService
 * replicas, its tasks created, allocated, placed and running as the components write them,
 * and a config at MAX_CONFIG_BYTES. Prints one JSON line with what it held.
 */
import { DEFAULT_ADMISSION_LIMITS, DEFAULT_CLUSTER_SPEC, MAX_CONFIG_BYTES, TaskState, encode } from '@shoal/contracts';
import type { NewTask, ServiceSpec, ShoalEvent } from '@shoal/contracts';
import { Projection, canonicalJson } from '@shoal/domain';
// The factory's own module, not @shoal/runtime's index: that loads Nest and kafkajs, whose memory would count as the view's.
import { benchEvents, benchNode, heapAfterGc as gc, viewCore } from '../bench/events';

const VIEW = process.argv[2];
const NODES = 100;
/** Tasks per record, as the orchestrator batches them. */
const BATCH = 1_000;

const specBytes = (spec: ServiceSpec): number => new TextEncoder().encode(canonicalJson(spec)).length;

/** Labels `<prefix><n>`: "" until the spec would pass `bytes`: the most labels a spec of that size holds. */
const labelsUpTo = (prefix: string, bytes: number): Record<string, string> => {
  const labels: Record<string, string> = {};
  // Each label adds `"<key>":"",` to the canonical JSON.
  for (let i = 0, used = 0; used + prefix.length + 12 < bytes; i++) {
    const key = `${prefix}${i}`;
    labels[key] = '';
    used += key.length + 6;
  }
  return labels;
};

/** The largest service spec admission takes: half its bytes service labels, half container labels. */
const largestSpec = (): ServiceSpec => {
  const room = DEFAULT_ADMISSION_LIMITS.maxSpecBytes - 512;
  const spec: ServiceSpec = {
    name: 'hostile',
    labels: labelsUpTo('s', room / 2),
    task: { container: { image: 'registry.local/hostile:1', labels: labelsUpTo('c', room / 2) } },
    mode: { kind: 'replicated', replicas: DEFAULT_ADMISSION_LIMITS.maxReplicasPerService },
  };
  const bytes = specBytes(spec);
  if (bytes > DEFAULT_ADMISSION_LIMITS.maxSpecBytes || bytes < DEFAULT_ADMISSION_LIMITS.maxSpecBytes * 0.99) throw new Error(`the spec is ${bytes} bytes, not just under the limit`);
  return spec;
};

const event = benchEvents();
const spec = largestSpec();
const config = Buffer.alloc(MAX_CONFIG_BYTES, 7).toString('base64');

const before = gc();
const core = viewCore(VIEW);
const projection = new Projection(undefined, 0, { keepRefusals: 10, ...(core ? { onEvent: (e, v, s) => core.observe(e, v, s) } : {}) });
let offset = 0;
let recordBytes = 0;
// Through the wire format, as a view reads the log: every record decoded on its own, and admitted.
const apply = (e: ShoalEvent): void => {
  const value = encode(e);
  recordBytes = Math.max(recordBytes, value.length);
  const verdict = projection.apply({ offset: offset++, value });
  if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status} ${verdict?.reasons.slice(0, 3).join('; ')}`);
};

apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
for (let i = 0; i < NODES; i++) apply(event('NodeRegistered', benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2' }), 'dispatcher'));
apply(event('ConfigCreated', { id: 'cfg', spec: { name: 'hostile', data: config } }, 'api'));
apply(event('ServiceCreated', { id: 'svc', spec }, 'api'));
const tasks = spec.mode.kind === 'replicated' ? spec.mode.replicas : 0;
for (let from = 0; from < tasks; from += BATCH) {
  // As the orchestrator writes them: without the spec they share with their service.
  const batch: Omit<NewTask, 'spec'>[] = [];
  for (let i = from; i < Math.min(tasks, from + BATCH); i++) batch.push({ id: `task-${i}`, serviceId: 'svc', slot: i + 1, specVersion: 1, desiredState: TaskState.RUNNING });
  apply(event('TasksCreated', { tasks: batch as NewTask[] }, 'orchestrator'));
  apply(event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
  const placed = batch.map((t, i) => ({ id: t.id, nodeId: `node-${(from + i) % NODES}`, why: 'hostile' }));
  apply(event('TasksAssigned', { tasks: placed }, 'scheduler'));
  for (let n = 0; n < NODES; n++) {
    const ids = placed.filter((p) => p.nodeId === `node-${n}`).map((p) => p.id);
    apply(event('TaskStatusesReported', { nodeId: `node-${n}`, statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: '2026-01-01T00:10:00.000Z' })) }, 'dispatcher'));
  }
}
core?.reconcileAll(projection.state);
const held = gc() - before;
if (projection.state.tasks.size !== tasks) throw new Error(`expected ${tasks} tasks, have ${projection.state.tasks.size}`);
process.stdout.write(`${JSON.stringify({ view: VIEW, tasks, specBytes: specBytes(spec), configBytes: config.length, recordBytes, bytes: held })}\n`);
// Keep everything reachable until the measure is taken.
if (projection.position < 0 || (core && !core.component)) process.stdout.write('\n');
