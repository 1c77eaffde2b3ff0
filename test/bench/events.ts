/**
 * Events for the benchmarks' in-process histories, built as a component would stamp them:
 * numbered from 1, a millisecond apart from 2026-01-01, by `<component>-bench` in term 0.
 */
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { DEFAULT_CLUSTER_SPEC, EVENT_TYPES, TaskState, encode } from '@shoal/contracts';
import type { Component, EventDataMap, EventType, NewTask, NodeDescription, ServiceSpec, ShoalEvent } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import type { ComponentCore, ProjectionOptions } from '@shoal/domain';
import { componentCore } from '../../libs/runtime/src/component-cores';

export type BenchEvent = <K extends EventType>(type: K, data: EventDataMap[K], component: Component) => ShoalEvent;

/** A fresh numbering of events on `cluster`: each call makes the next one. */
export const benchEvents = (cluster = 'bench'): BenchEvent => {
  let seq = 0;
  return (type, data, component) => {
    seq++;
    return {
      id: `e${seq}`,
      type,
      v: EVENT_TYPES[type].v,
      cluster,
      at: new Date(Date.parse('2026-01-01T00:00:00Z') + seq).toISOString(),
      by: { component, instance: `${component}-bench`, term: 0 },
      seq,
      data,
    } as unknown as ShoalEvent;
  };
};

/** What a benchmark's node `i` registers with: `node-<i>`, a linux/x86_64 host with these resources and engine. */
export const benchNode = (i: number, resources: NodeDescription['resources'], engine: NodeDescription['engine']): EventDataMap['NodeRegistered'] => ({
  id: `node-${i}`,
  role: 'worker',
  description: { hostname: `node-${i}`, platform: { os: 'linux', architecture: 'x86_64' }, resources, engine },
});

/**
 * The core whose view a memory measurement holds, by name: `state` is the replayed state
 * alone (no core); every other name is that component's core, with ids numbered from 1.
 */
export const viewCore = (name: string | undefined): ComponentCore | undefined => {
  let ids = 0;
  const newId = (): string => `id-${++ids}`;
  switch (name) {
    case 'state':
      return undefined;
    case 'allocator':
    case 'orchestrator':
    case 'scheduler':
    case 'reaper':
    case 'dispatcher':
      return componentCore(name, { newId });
    default:
      throw new Error(`unknown view ${name}`);
  }
};

/** The heap in use after three full collections (the process runs with --expose-gc). */
export const heapAfterGc = (): number => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i++) collect();
  return process.memoryUsage().heapUsed;
};

/** Service `s` of a C1M-shaped backlog (`c1m-<s>`, nginx, `replicas` replicas) and its new tasks, RUNNING desired. */
export const c1mService = (s: number, replicas: number): { readonly id: string; readonly spec: ServiceSpec; readonly tasks: NewTask[] } => {
  const spec: ServiceSpec = { name: `c1m-${s}`, task: { container: { image: 'nginx:1.27' } }, mode: { kind: 'replicated', replicas } };
  const tasks: NewTask[] = [];
  for (let i = 0; i < replicas; i++) tasks.push({ id: `task-${s}-${i}`, serviceId: `svc-${s}`, slot: i + 1, specVersion: 1, spec: spec.task, desiredState: TaskState.RUNNING });
  return { id: `svc-${s}`, spec, tasks };
};

/**
 * A ClusterState of C1M's shape, built through evolve from the wire format as a view replays
 * it: `nodes` nodes, `services` × `replicas` tasks assigned round the nodes and RUNNING.
 * `onEvent` is told of each event, as a core watching the view would be.
 */
export const c1mRunningState = (nodes: number, services: number, replicas: number, onEvent?: ProjectionOptions['onEvent']): Projection => {
  const event = benchEvents();
  const projection = new Projection(undefined, 0, { keepRefusals: 10, ...(onEvent ? { onEvent } : {}) });
  let offset = 0;
  const apply = (e: ShoalEvent): void => {
    const verdict = projection.apply({ offset: offset++, value: encode(e) });
    if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status} ${verdict?.reasons.slice(0, 3).join('; ')}`);
  };
  apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
  for (let i = 0; i < nodes; i++) apply(event('NodeRegistered', benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: {} }), 'dispatcher'));
  let placed = 0;
  for (let s = 0; s < services; s++) {
    const { id, spec, tasks: batch } = c1mService(s, replicas);
    apply(event('ServiceCreated', { id, spec }, 'api'));
    apply(event('TasksCreated', { tasks: batch }, 'orchestrator'));
    apply(event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
    const assigned = batch.map((t) => ({ id: t.id, nodeId: `node-${placed++ % nodes}`, why: 'bench' }));
    apply(event('TasksAssigned', { tasks: assigned }, 'scheduler'));
    const byNode = new Map<string, string[]>();
    for (const a of assigned) byNode.set(a.nodeId, [...(byNode.get(a.nodeId) ?? []), a.id]);
    for (const [nodeId, ids] of byNode) apply(event('TaskStatusesReported', { nodeId, statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: '2026-01-01T00:10:00.000Z' })) }, 'dispatcher'));
  }
  return projection;
};

/**
 * The garbage collections from now on, to tell a stretch's own work from a collection that
 * fell in it: `gcIn(start, ms)` is the collection time within [start, start + ms] (performance.now()),
 * `longestMs()` the longest collection so far.
 */
export const gcTime = (): { readonly gcIn: (start: number, ms: number) => number; readonly longestMs: () => number; readonly stop: () => void } => {
  const gcs: { start: number; end: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) gcs.push({ start: entry.startTime, end: entry.startTime + entry.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    gcIn: (start, ms) => gcs.reduce((sum, gc) => sum + Math.max(0, Math.min(gc.end, start + ms) - Math.max(gc.start, start)), 0),
    longestMs: () => gcs.reduce((longest, gc) => Math.max(longest, gc.end - gc.start), 0),
    stop: () => observer.disconnect(),
  };
};

/** One turn of the event loop: when it began (performance.now()) and how long it ran. */
export interface LoopTurn {
  readonly start: number;
  readonly ms: number;
}

/**
 * Every turn of the event loop timed against the one before it (a setImmediate spinner),
 * from start(at) until stop(endAt): the turns, the last one ended at `endAt` when given
 * (a stretch that ends where the measured work resolves).
 */
export const loopTurns = (): { readonly start: (at?: number) => void; readonly stop: (endAt?: number) => LoopTurn[] } => {
  let spinning = false;
  let last = 0;
  let turns: LoopTurn[] = [];
  const spin = (): void => {
    if (!spinning) return;
    const now = performance.now();
    turns.push({ start: last, ms: now - last });
    last = now;
    setImmediate(spin);
  };
  return {
    start: (at = performance.now()) => {
      turns = [];
      last = at;
      spinning = true;
      setImmediate(spin);
    },
    stop: (endAt) => {
      if (endAt !== undefined) turns.push({ start: last, ms: endAt - last });
      spinning = false;
      return turns;
    },
  };
};
