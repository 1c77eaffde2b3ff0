/**
 * A realistic log for benchmarks: a cluster, its nodes and services, then tasks churning
 * through their whole life — created, allocated and assigned in batches, reported on by
 * their nodes state by state, failed, replaced, shut down and removed — so the state stays
 * the size of a running cluster while the log grows to any length. Every record is one
 * evolve applies (none refused), written by the component that owns its type.
 */
import { DEFAULT_CLUSTER_SPEC, EVENT_TYPES, TaskState, encode } from '@shoal/contracts';
import type { Component, CreatedTask, EventDataMap, EventType, ServiceSpec } from '@shoal/contracts';
import { benchNode } from './events';

export interface HistoryOptions {
  readonly records: number;
  readonly nodes?: number;
  readonly services?: number;
  /** Tasks per created/allocated/assigned record. */
  readonly batch?: number;
  readonly cluster?: string;
}

const WRITER: Partial<Record<EventType, Component>> = {
  ClusterInitialized: 'api',
  ServiceCreated: 'api',
  NodeRegistered: 'dispatcher',
  TasksCreated: 'orchestrator',
  TasksAllocated: 'allocator',
  TasksAssigned: 'scheduler',
  TaskStatusesReported: 'dispatcher',
  TaskDesiredStatesChanged: 'orchestrator',
  TasksRemoved: 'reaper',
};

/** Yields encoded records, `records` of them, in log order. */
export function* benchHistory(options: HistoryOptions): Generator<string> {
  const nodes = options.nodes ?? 1_000;
  const services = options.services ?? 100;
  const batch = options.batch ?? 10;
  const cluster = options.cluster ?? 'bench';
  const seqs = new Map<Component, number>();
  let clock = Date.parse('2026-01-01T00:00:00.000Z');
  let ids = 0;
  let written = 0;

  const record = <K extends EventType>(type: K, data: EventDataMap[K]): string => {
    const component = WRITER[type] ?? 'api';
    const seq = (seqs.get(component) ?? 0) + 1;
    seqs.set(component, seq);
    clock += 7;
    written++;
    return encode({
      id: `r${written}`,
      type,
      v: EVENT_TYPES[type].v,
      cluster,
      at: new Date(clock).toISOString(),
      by: { component, instance: `${component}-bench`, term: 0 },
      seq,
      data,
    } as never);
  };
  const at = (): string => new Date(clock).toISOString();

  yield record('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'SWMTKN-1-w', manager: 'SWMTKN-1-m' } });
  for (let n = 0; n < nodes && written < options.records; n++) {
    yield record('NodeRegistered', benchNode(n, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: { zone: `z${n % 3}` } }));
  }
  const specs: ServiceSpec[] = [];
  for (let s = 0; s < services && written < options.records; s++) {
    const spec: ServiceSpec = {
      name: `svc-${s}`,
      labels: { team: `t${s % 7}` },
      task: {
        container: { image: `registry.local/app-${s}:1.0`, env: ['MODE=bench', `INDEX=${s}`], command: ['/bin/app'], args: ['--port', '8080'] },
        resources: { reservations: { nanoCpus: 1e7, memoryBytes: 16 * 2 ** 20 } },
        restartPolicy: { condition: 'any', delayMs: 5_000, maxAttempts: 0, windowMs: 0 },
      },
      mode: { kind: 'replicated', replicas: 1_000 },
    };
    specs.push(spec);
    yield record('ServiceCreated', { id: `svc-${s}`, spec });
  }

  // Churn: each round places a batch of tasks for one service and runs them; nine rounds
  // in ten then fail half of them, shut the rest down and remove them all, so the live
  // state grows by a tenth of the tasks placed (about 90,000 running at 1,000,000 records).
  let round = 0;
  while (written < options.records) {
    const s = round % specs.length;
    const node = `node-${round % nodes}`;
    // As the orchestrator writes them: the service's spec is not repeated per task.
    const tasks: CreatedTask[] = [];
    for (let i = 0; i < batch; i++) {
      tasks.push({ id: `task-${++ids}`, serviceId: `svc-${s}`, slot: (ids % 1_000) + 1, specVersion: 1, desiredState: TaskState.RUNNING });
    }
    const list = tasks.map((t) => t.id);
    const steps: (() => string)[] = [
      () => record('TasksCreated', { tasks }),
      () => record('TasksAllocated', { tasks: list.map((id) => ({ id, attachments: [] })) }),
      () => record('TasksAssigned', { tasks: list.map((id) => ({ id, nodeId: node, why: 'spread: fewest tasks of the service' })) }),
      ...[TaskState.ACCEPTED, TaskState.PREPARING, TaskState.STARTING, TaskState.RUNNING].map(
        (state) => () => record('TaskStatusesReported', { nodeId: node, statuses: list.map((id) => ({ id, state, at: at(), message: 'observed' })) }),
      ),
      () =>
        record('TaskStatusesReported', {
          nodeId: node,
          statuses: list.filter((_, i) => i % 2 === 0).map((id) => ({ id, state: TaskState.FAILED, at: at(), err: 'exit status 1', exitCode: 1 })),
        }),
      () => record('TaskDesiredStatesChanged', { tasks: list.map((id) => ({ id, desiredState: TaskState.SHUTDOWN })) }),
      () =>
        record('TaskStatusesReported', {
          nodeId: node,
          statuses: list.filter((_, i) => i % 2 === 1).map((id) => ({ id, state: TaskState.SHUTDOWN, at: at(), message: 'shutdown' })),
        }),
      () => record('TasksRemoved', { tasks: list.map((id) => ({ id, reason: 'history retention' })) }),
    ];
    const keep = round % 10 === 0;
    for (const step of keep ? steps.slice(0, 7) : steps) {
      if (written >= options.records) return;
      yield step();
    }
    round++;
  }
}
