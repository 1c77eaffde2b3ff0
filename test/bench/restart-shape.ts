/**
 * Where a component's restart from a snapshot spends its time at C1M's size, in memory and
 * without Kafka: a ClusterState of --nodes (5,000) nodes and --services (1,000) ×
 * --replicas (1,000) RUNNING tasks (or --tasks, spread over the services), built through
 * the wire format as a view replays it, saved with the real snapshot code (snapshotInSteps,
 * FileSnapshotStore), then restored as ComponentRunner.start restores it, each step timed:
 * snapshotFor (the file read and parsed, and checked against the log), the view made from
 * it (new LiveView: Projection.fromSnapshot, the state rebuilt and checked), then each
 * of the five cores learning it (reconcileAll). The longest the event loop waited while the
 * snapshot was read is measured too (a timer every 5 ms): what /healthz would have waited.
 * Prints one JSON line; runs itself again with an 8 GiB heap (as the components run) when
 * started with less.
 *
 *   node -r ./bin/register.js test/bench/restart-shape.ts --tasks 1000000 [--runs 1] [--dir /tmp/x]
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { DEFAULT_CLUSTER_SPEC, TaskState, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection, fromStateData, snapshotInSteps, stateHash } from '@shoal/domain';
import type { Snapshot } from '@shoal/domain';
import { FileSnapshotStore } from '../../libs/eventlog/src/snapshots/file-snapshot-store';
import type { EventLog, LogRecord } from '../../libs/eventlog/src/port';
import { LiveView } from '../../libs/runtime/src/live-view';
import { snapshotFor } from '../../libs/runtime/src/view-snapshots';
import { CORE_COMPONENTS, componentCore } from '../../libs/runtime/src/component-cores';
import { intOption } from './args';
import { benchEvents, benchNode, c1mService } from './events';

const HEAP_MIB = 8_192;

const argv = process.argv.slice(2);
const NODES = intOption(argv, 'nodes', 5_000);
const SERVICES = intOption(argv, 'services', 1_000);
const TASKS = intOption(argv, 'tasks', SERVICES * intOption(argv, 'replicas', 1_000));
const RUNS = intOption(argv, 'runs', 1);
const dirArg = argv.includes('--dir') ? argv[argv.indexOf('--dir') + 1] : undefined;

/** The state, built record by record through the wire format; the last record's value, for the log's check. */
const build = (): { projection: Projection; last: LogRecord } => {
  const event = benchEvents();
  const projection = new Projection(undefined, 0, { keepRefusals: 10 });
  let offset = 0;
  let last: LogRecord = { offset: -1, value: '' } as LogRecord;
  const apply = (e: ShoalEvent): void => {
    const value = encode(e);
    last = { offset, value } as LogRecord;
    const verdict = projection.apply({ offset: offset++, value });
    if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status} ${verdict?.reasons.slice(0, 3).join('; ')}`);
  };
  apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
  for (let i = 0; i < NODES; i++) apply(event('NodeRegistered', benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: {} }), 'dispatcher'));
  const perService = Math.ceil(TASKS / SERVICES);
  const byNode = new Map<string, string[]>();
  let placed = 0;
  for (let s = 0; s < SERVICES && s * perService < TASKS; s++) {
    const { id, spec, tasks } = c1mService(s, Math.min(perService, TASKS - s * perService));
    apply(event('ServiceCreated', { id, spec }, 'api'));
    apply(event('TasksCreated', { tasks }, 'orchestrator'));
    apply(event('TasksAllocated', { tasks: tasks.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
    const assigned = tasks.map((t) => ({ id: t.id, nodeId: `node-${placed++ % NODES}`, why: 'bench' }));
    apply(event('TasksAssigned', { tasks: assigned }, 'scheduler'));
    for (const a of assigned) {
      const ids = byNode.get(a.nodeId);
      if (ids) ids.push(a.id);
      else byNode.set(a.nodeId, [a.id]);
    }
  }
  for (const [nodeId, ids] of byNode) {
    apply(event('TaskStatusesReported', { nodeId, statuses: ids.map((id) => ({ id, state: TaskState.RUNNING, at: '2026-01-01T00:10:00.000Z' })) }, 'dispatcher'));
  }
  return { projection, last };
};

/** Just enough of a log for snapshotFor: its end, and the record before the snapshot. */
const logEndingWith = (last: LogRecord): EventLog =>
  ({
    highWaterMark: () => Promise.resolve(last.offset + 1),
    read: (from: number) => Promise.resolve(from === last.offset ? [last] : []),
  }) as unknown as EventLog;

/** The longest wait of a timer every 5 ms, from start() to stop(): how long the event loop was held. */
const loopWatch = (): { stop: () => number } => {
  let longest = 0;
  let expected = performance.now() + 5;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - expected);
    expected = now + 5;
  }, 5);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(longest, performance.now() - expected);
    },
  };
};

const round = (ms: number): number => Math.round(ms);

const restoreOnce = async (log: EventLog, store: FileSnapshotStore, hash: string): Promise<Record<string, number>> => {
  const times: Record<string, number> = {};
  const watch = loopWatch();
  const began = performance.now();
  let t = began;
  const lap = (name: string): void => {
    const now = performance.now();
    times[name] = round(now - t);
    t = now;
  };
  const { snapshot, refused } = await snapshotFor(log, store);
  if (!snapshot) throw new Error(`no snapshot: ${refused}`);
  lap('snapshotForMs');
  times.snapshotForLongestLoopWaitMs = round(watch.stop());
  // As ComponentRunner makes its view: LiveView restores the snapshot (Projection.fromSnapshot).
  const restored = new LiveView(log, { snapshot });
  if (restored.snapshotRefused !== undefined) throw new Error(`refused: ${restored.snapshotRefused}`);
  if (snapshot.hash !== hash) throw new Error('restored the wrong snapshot');
  lap('liveViewMs');
  for (const component of CORE_COMPONENTS) {
    componentCore(component, { newId: () => 'x' }).reconcileAll(restored.state);
    lap(`reconcileAll.${component}Ms`);
  }
  times.totalMs = round(performance.now() - began);
  // The parts of fromSnapshot, again on their own: the state rebuilt, and its canonical hash.
  t = performance.now();
  const state = fromStateData(snapshot.state);
  lap('part.fromStateDataMs');
  if (stateHash(state) !== hash) throw new Error('the rebuilt state hashes differently');
  lap('part.stateHashMs');
  return times;
};

const main = async (): Promise<void> => {
  if (getHeapStatistics().heap_size_limit < HEAP_MIB * 2 ** 20 && !process.execArgv.some((a) => a.startsWith('--max-old-space-size'))) {
    const again = spawnSync(process.execPath, [`--max-old-space-size=${HEAP_MIB}`, '--expose-gc', ...process.execArgv, ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(again.status ?? 1);
  }
  const collect = (globalThis as { gc?: () => void }).gc ?? (() => undefined);
  let t0 = performance.now();
  const { projection, last } = build();
  const buildMs = performance.now() - t0;
  const dir = dirArg ?? (await mkdtemp(join(tmpdir(), 'shoal-restart-shape-')));
  const store = new FileSnapshotStore(dir);

  t0 = performance.now();
  const steps = snapshotInSteps(projection.state, projection.position, 500);
  let step = steps.next();
  while (!step.done) step = steps.next();
  const snapshot: Snapshot = step.value;
  const takeMs = performance.now() - t0;
  t0 = performance.now();
  await store.save(snapshot);
  const writeMs = performance.now() - t0;
  const offsets = await store.list();
  let bytes = 0;
  for (const name of await readdir(dir)) bytes += (await stat(join(dir, name))).size;
  const hash = snapshot.hash;
  collect();

  const log = logEndingWith(last);
  const runs: Record<string, number>[] = [];
  for (let r = 0; r < RUNS; r++) {
    runs.push(await restoreOnce(log, store, hash));
    collect();
  }
  if (!dirArg) await rm(dir, { recursive: true, force: true });
  process.stdout.write(
    `${JSON.stringify({
      nodes: NODES,
      services: SERVICES,
      tasks: projection.state.tasks.size,
      offset: offsets.at(-1),
      buildMs: round(buildMs),
      snapshot: { takeMs: round(takeMs), writeMs: round(writeMs), mib: Math.round(bytes / 2 ** 20) },
      restore: runs,
      load: readFileSync('/proc/loadavg', 'utf8').trim(),
    })}\n`,
  );
};

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
