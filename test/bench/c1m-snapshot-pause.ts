/**
 * How long a component stops to snapshot a view of C1M's size, in memory: a ClusterState of
 * `nodes` nodes and `services` × `replicas` RUNNING tasks (built through evolve, as a view
 * replays it), then the synchronous parts of a snapshot timed one by one — the call that
 * begins it (snapshotInSteps), every step after it (500 entities a step, as SnapshotSaver
 * runs it: the capture, the tasks made into what is written, the sort and the hash), the
 * longest piece of the JSON written to disk — beside what a capture done at once costs
 * (toSnapshotData, as snapshots began before they were captured in steps) and the whole
 * stateHash. Prints one JSON line.
 *
 *   node -r ./bin/register.js test/bench/c1m-snapshot-pause.ts [nodes] [services] [replicas]
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { snapshotInSteps, stateHash, toSnapshotData } from '@shoal/domain';
import { snapshotJson } from '../../libs/eventlog/src/snapshots/file-snapshot-store';
import { c1mRunningState, gcTime } from './events';

const [nodes, services, replicas] = process.argv.slice(2).map(Number);
const NODES = nodes || 5_000;
const SERVICES = services || 1_000;
const REPLICAS = replicas || 1_000;

const projection = c1mRunningState(NODES, SERVICES, REPLICAS);
const { state, position: offset } = projection;

const time = <T>(work: () => T): [T, number] => {
  const t0 = performance.now();
  const out = work();
  return [out, performance.now() - t0];
};

// Garbage collections, to tell a step's own work from a collection that fell in it.
const { gcIn, longestMs: longestGcMs, stop: stopGcTime } = gcTime();
/** `work` timed, less the collections that fell in it. */
const timed = <T>(work: () => T): [T, number, number] => {
  const t0 = performance.now();
  const out = work();
  const t1 = performance.now();
  return [out, t1 - t0, t0];
};

const main = async (): Promise<void> => {
  const [, captureAtOnceMs] = time(() => toSnapshotData(state));
  await nextTurn();
  // As SnapshotSaver runs it: a turn of the event loop between two steps.
  const [steps, startMs] = time(() => snapshotInSteps(state, offset, 500));
  const stepAt: { start: number; ms: number }[] = [];
  let step: IteratorResult<void, unknown>;
  do {
    await nextTurn();
    const [next, ms, start] = timed(() => steps.next());
    step = next;
    stepAt.push({ start, ms });
  } while (!step.done);
  const snapshot = step.value as Parameters<typeof snapshotJson>[0];
  let longestPieceMs = 0;
  let bytes = 0;
  const pieces = snapshotJson(snapshot);
  const pieceAt: { start: number; ms: number }[] = [];
  for (;;) {
    await nextTurn();
    const [next, ms, start] = timed(() => pieces.next());
    if (next.done) break;
    bytes += next.value.length;
    pieceAt.push({ start, ms });
    longestPieceMs = Math.max(longestPieceMs, ms);
  }
  await nextTurn();
  stopGcTime();
  const stepMs = stepAt.map((s) => s.ms);
  const ownMs = stepAt.map((s) => s.ms - gcIn(s.start, s.ms));
  const longestStep = stepMs.reduce((longest, ms, i) => (ms > stepMs[longest]! ? i : longest), 0);
  const longestOwn = ownMs.reduce((longest, ms, i) => (ms > ownMs[longest]! ? i : longest), 0);
  const [, hashMs] = time(() => stateHash(state));
  process.stdout.write(
    `${JSON.stringify({
      nodes: NODES,
      tasks: state.tasks.size,
      captureAtOnceMs,
      snapshotStartMs: startMs,
      steps: stepMs.length,
      longestStepMs: stepMs[longestStep],
      longestStepIndex: longestStep,
      longestStepGcMs: gcIn(stepAt[longestStep]!.start, stepAt[longestStep]!.ms),
      longestStepLessGcMs: ownMs[longestOwn],
      longestPieceLessGcMs: Math.max(0, ...pieceAt.map((p) => p.ms - gcIn(p.start, p.ms))),
      longestGcPauseMs: longestGcMs,
      longestFive: stepMs.map((ms, i) => [i, Math.round(ms * 10) / 10] as const).sort((a, b) => b[1] - a[1]).slice(0, 5),
      stepsOver20Ms: stepMs.filter((ms) => ms > 20).length,
      stepsOver50Ms: stepMs.filter((ms) => ms > 50).length,
      steppedTotalMs: stepMs.reduce((a, b) => a + b, 0),
      longestJsonPieceMs: longestPieceMs,
      jsonMiB: bytes / 2 ** 20,
      wholeStateHashMs: hashMs,
      heapMiB: process.memoryUsage().heapUsed / 2 ** 20,
    })}\n`,
  );
};

void main();
