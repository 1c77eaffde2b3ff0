/**
 * How long a component stops to snapshot a view of C1M's size, in memory: a ClusterState of
 * `nodes` nodes and `services` × `replicas` RUNNING tasks (built through evolve, as a view
 * replays it), then the synchronous parts of a snapshot timed one by one — the capture
 * (toSnapshotData, done whole when the snapshot starts), the longest step of the stepped
 * hash (500 entities a step, as SnapshotSaver runs it), the longest piece of the JSON
 * written to disk — beside the whole stateHash. Prints one JSON line.
 *
 *   node -r ./bin/register.js test/bench/c1m-snapshot-pause.ts [nodes] [services] [replicas]
 */
import { performance } from 'node:perf_hooks';
import { DEFAULT_CLUSTER_SPEC, TaskState, encode } from '@shoal/contracts';
import type { NewTask, ServiceSpec, ShoalEvent } from '@shoal/contracts';
import { Projection, snapshotInSteps, stateHash, toSnapshotData } from '@shoal/domain';
import { snapshotJson } from '../../libs/eventlog/src/snapshots/file-snapshot-store';
import { benchEvents, benchNode } from './events';

const [nodes, services, replicas] = process.argv.slice(2).map(Number);
const NODES = nodes || 5_000;
const SERVICES = services || 1_000;
const REPLICAS = replicas || 1_000;

const event = benchEvents();
const projection = new Projection(undefined, 0, { keepRefusals: 10 });
let offset = 0;
const apply = (e: ShoalEvent): void => {
  const verdict = projection.apply({ offset: offset++, value: encode(e) });
  if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status} ${verdict?.reasons.slice(0, 3).join('; ')}`);
};
apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
for (let i = 0; i < NODES; i++) apply(event('NodeRegistered', benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: {} }), 'dispatcher'));
let placed = 0;
for (let s = 0; s < SERVICES; s++) {
  const spec: ServiceSpec = { name: `c1m-${s}`, task: { container: { image: 'nginx:1.27' } }, mode: { kind: 'replicated', replicas: REPLICAS } };
  apply(event('ServiceCreated', { id: `svc-${s}`, spec }, 'api'));
  const batch: NewTask[] = [];
  for (let i = 0; i < REPLICAS; i++) batch.push({ id: `task-${s}-${i}`, serviceId: `svc-${s}`, slot: i + 1, specVersion: 1, spec: spec.task, desiredState: TaskState.RUNNING });
  apply(event('TasksCreated', { tasks: batch }, 'orchestrator'));
  apply(event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
  const assigned = batch.map((t) => ({ id: t.id, nodeId: `node-${placed++ % NODES}`, why: 'bench' }));
  apply(event('TasksAssigned', { tasks: assigned }, 'scheduler'));
  const byNode = new Map<string, string[]>();
  for (const a of assigned) byNode.set(a.nodeId, [...(byNode.get(a.nodeId) ?? []), a.id]);
  for (const [nodeId, ids] of byNode) apply(event('TaskStatusesReported', { nodeId, statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: '2026-01-01T00:10:00.000Z' })) }, 'dispatcher'));
}
const state = projection.state;

const time = <T>(work: () => T): [T, number] => {
  const t0 = performance.now();
  const out = work();
  return [out, performance.now() - t0];
};

const [, captureMs] = time(() => toSnapshotData(state));
// snapshotInSteps captures (toSnapshotData) on the call, then hashes 500 entities a step.
const [steps, startMs] = time(() => snapshotInSteps(state, offset, 500));
let longestStepMs = 0;
let stepCount = 0;
let step: IteratorResult<void, ReturnType<typeof toSnapshotData> | unknown>;
do {
  const [next, ms] = time(() => steps.next());
  step = next;
  longestStepMs = Math.max(longestStepMs, ms);
  stepCount++;
} while (!step.done);
const snapshot = step.value as Parameters<typeof snapshotJson>[0];
let longestPieceMs = 0;
let bytes = 0;
const pieces = snapshotJson(snapshot);
for (;;) {
  const [next, ms] = time(() => pieces.next());
  if (next.done) break;
  bytes += next.value.length;
  longestPieceMs = Math.max(longestPieceMs, ms);
}
const [, hashMs] = time(() => stateHash(state));
process.stdout.write(
  `${JSON.stringify({ nodes: NODES, tasks: state.tasks.size, captureMs, snapshotStartMs: startMs, longestHashStepMs: longestStepMs, hashSteps: stepCount, longestJsonPieceMs: longestPieceMs, jsonMiB: bytes / 2 ** 20, wholeStateHashMs: hashMs, heapMiB: process.memoryUsage().heapUsed / 2 ** 20 })}\n`,
);
