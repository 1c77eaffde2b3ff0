/**
 * How long a view stops the event loop while it catches up on a log of C1M's kind: an
 * embedded log holding `nodes` registered nodes, then per service its ServiceCreated, the
 * TasksCreated and TasksAllocated records of its `replicas` tasks (one record each, as the
 * orchestrator and allocator write them) and a few small NodeStatusChanged records. A
 * LiveView (with `view`'s core observing it, as the component runner wires it; `state` for
 * none) replays the log from 0 while a turn of the event loop is timed against the last:
 * the longest gap is the longest synchronous stretch. Prints one JSON line: that stretch
 * (and the collections in it), how many chunks the view applied, and the catch-up's wall
 * time.
 *
 *   node --max-old-space-size=8192 -r ./bin/register.js test/bench/live-view-catch-up-pause.ts [services] [replicas] [nodes] [view]
 */
import { performance } from 'node:perf_hooks';
import { DEFAULT_CLUSTER_SPEC, encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { openEmbeddedTestLog } from '@shoal/testing';
import { LiveView } from '../../libs/runtime/src/live-view';
import { benchEvents, benchNode, c1mService, gcTime, loopTurns, viewCore } from './events';

const [servicesArg, replicasArg, nodesArg, viewArg] = process.argv.slice(2);
const SERVICES = Number(servicesArg) || 1_000;
const REPLICAS = Number(replicasArg) || 1_000;
const NODES = Number(nodesArg) || 5_000;
const VIEW = viewArg ?? 'scheduler';
/** Small records after each service's tasks: node status changes, a node each. */
const SMALL_PER_SERVICE = 5;

const event = benchEvents();

const main = async (): Promise<void> => {
  const { log, close } = await openEmbeddedTestLog('shoal-bench-view-');
  const append = (events: readonly ShoalEvent[]) => log.append(events.map((e) => ({ key: 'bench', value: encode(e) })));
  await append([event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api')]);
  const nodes: ShoalEvent[] = [];
  for (let i = 0; i < NODES; i++) nodes.push(event('NodeRegistered', benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: {} }), 'dispatcher'));
  await append(nodes);
  for (let s = 0; s < SERVICES; s++) {
    const { id, spec, tasks: batch } = c1mService(s, REPLICAS);
    const small = Array.from({ length: SMALL_PER_SERVICE }, (_, k) => event('NodeStatusChanged', { nodes: [{ id: `node-${(s * SMALL_PER_SERVICE + k) % NODES}`, state: 'ready' }] }, 'dispatcher'));
    await append([
      event('ServiceCreated', { id, spec }, 'api'),
      event('TasksCreated', { tasks: batch }, 'orchestrator'),
      event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'),
      ...small,
    ]);
  }
  const records = await log.highWaterMark();

  // Garbage collections, to tell the stretch's own work from a collection that fell in it.
  const { gcIn, longestMs: longestGcMs, stop: stopGcTime } = gcTime();

  // Every turn of the event loop, timed against the one before it.
  const turns = loopTurns();

  const core = viewCore(VIEW);
  let chunks = 0;
  const view = new LiveView(log, {
    keepRefusals: 10,
    onApplied: () => chunks++,
    ...(core ? { onEvent: (e, v, s) => core.observe(e, v, s) } : {}),
  });
  const started = performance.now();
  turns.start(started);
  await view.start();
  // The view resolves in the stretch that applied its last record: that stretch ends here.
  const caughtUp = performance.now();
  const gaps = turns.stop(caughtUp);
  const catchUpMs = caughtUp - started;
  await new Promise((resolve) => setImmediate(resolve)); // the collections' entries are told a turn later
  stopGcTime();
  await view.stop();
  await close();

  if (view.position !== records) throw new Error(`the view is at ${view.position} of ${records}`);
  if (view.projection.tally.applied !== records) throw new Error(`${view.projection.tally.applied} of ${records} records applied`);
  if (view.state.tasks.size !== SERVICES * REPLICAS) throw new Error(`${view.state.tasks.size} tasks in the view`);
  const round = (ms: number): number => Math.round(ms * 10) / 10;
  const longest = gaps.reduce((a, b) => (b.ms > a.ms ? b : a), { start: 0, ms: 0 });
  const sorted = gaps.map((g) => g.ms).sort((a, b) => a - b);
  process.stdout.write(
    `${JSON.stringify({
      view: VIEW,
      records,
      tasks: SERVICES * REPLICAS,
      chunks,
      turns: gaps.length,
      longestStretchMs: round(longest.ms),
      longestStretchLessGcMs: round(longest.ms - gcIn(longest.start, longest.ms)),
      medianStretchMs: round(sorted[sorted.length >> 1] ?? 0),
      p99StretchMs: round(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
      stretchesOver50Ms: gaps.filter((g) => g.ms > 50).length,
      longestGcPauseMs: round(longestGcMs()),
      catchUpMs: Math.round(catchUpMs),
      heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    })}\n`,
  );
};

void main();
