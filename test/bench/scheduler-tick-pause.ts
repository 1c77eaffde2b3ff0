/**
 * How long the scheduler stops the event loop with a backlog of C1M's kind, in memory:
 * `nodes` ready nodes, then `services` × `replicas` PENDING tasks created and allocated a
 * service a record (as the orchestrator and allocator write them), all observed by the
 * scheduler's core before its first tick — the backlog a scheduler finds when the creates
 * outrun it. Then ticks as the component runner drives them: decide, the proposals applied
 * through the view (evolve → observe, at most 2,000 records between two turns, as LiveView
 * applies a fetched batch), a turn of the event loop, decide again — until every task is
 * ASSIGNED. Every synchronous stretch is timed: each decide and each applied chunk. Prints
 * one JSON line. `budget` is the scheduler's tick budget (tick-budget.ts): its default
 * unless told, `none` for a decision that takes the whole queue at once.
 *
 *   node --max-old-space-size=8192 -r ./bin/register.js test/bench/scheduler-tick-pause.ts [nodes] [services] [replicas] [budget]
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection, SchedulerCore } from '@shoal/domain';
import type { Proposal } from '@shoal/domain';
import { benchEvents, benchNode, c1mService, gcTime } from './events';

const [nodesArg, servicesArg, replicasArg, budgetArg] = process.argv.slice(2);
const NODES = Number(nodesArg) || 5_000;
const SERVICES = Number(servicesArg) || 200;
const REPLICAS = Number(replicasArg) || 1_000;
const BUDGET = budgetArg === 'none' ? Number.POSITIVE_INFINITY : budgetArg ? Number(budgetArg) : undefined;
/** LiveView's APPLY_CHUNK: records applied before the event loop may run. */
const APPLY_CHUNK = 2_000;

const event = benchEvents();
const core = new SchedulerCore(BUDGET === undefined ? {} : { tickBudget: BUDGET });
const projection = new Projection(undefined, 0, { keepRefusals: 10, onEvent: (e, v, s) => core.observe(e, v, s) });
let offset = 0;
const apply = (e: ShoalEvent): void => {
  const verdict = projection.applyDecoded(offset++, { ok: true, event: e });
  if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status ?? 'not read'} ${verdict?.reasons.slice(0, 3).join('; ') ?? ''}`);
};

apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
for (let i = 0; i < NODES; i++) apply(event('NodeRegistered', benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: {} }), 'dispatcher'));
for (let s = 0; s < SERVICES; s++) {
  const { id, spec, tasks: batch } = c1mService(s, REPLICAS);
  apply(event('ServiceCreated', { id, spec }, 'api'));
  apply(event('TasksCreated', { tasks: batch }, 'orchestrator'));
  apply(event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
}
const state = projection.state;
const total = SERVICES * REPLICAS;

// Garbage collections, to tell a stretch's own work from a collection that fell in it.
const { gcIn, longestMs: longestGcMs, stop: stopGcTime } = gcTime();

interface Stretch {
  readonly start: number;
  readonly ms: number;
}

const timed = <T>(work: () => T): [T, Stretch] => {
  const start = performance.now();
  const out = work();
  return [out, { start, ms: performance.now() - start }];
};

const toEvent = (proposal: Proposal): ShoalEvent => event(proposal.type, proposal.data as never, 'scheduler');

const main = async (): Promise<void> => {
  await nextTurn();
  const now = new Date('2026-01-01T01:00:00Z');
  const decides: Stretch[] = [];
  const applies: Stretch[] = [];
  let assigned = 0;
  let unschedulable = 0;
  const started = performance.now();
  while (assigned < total) {
    if (decides.length > 100_000) throw new Error(`only ${assigned} of ${total} tasks placed`);
    const [proposals, decided] = timed(() => core.decide(state, now));
    decides.push(decided);
    const events = proposals.map(toEvent);
    for (let first = 0; first < events.length; first += APPLY_CHUNK) {
      await nextTurn();
      const [, applied] = timed(() => {
        for (const e of events.slice(first, first + APPLY_CHUNK)) apply(e);
      });
      applies.push(applied);
    }
    for (const p of proposals) {
      if (p.type === 'TasksAssigned') assigned += p.data.tasks.length;
      else if (p.type === 'TasksUnschedulable') unschedulable += p.data.tasks.length;
    }
    if (proposals.length === 0 && assigned < total) throw new Error(`a tick proposed nothing with ${total - assigned} tasks to place`);
    await nextTurn();
  }
  const wallMs = performance.now() - started;
  stopGcTime();
  let notAssigned = 0;
  for (const t of state.tasks.values()) if (t.status.state !== TaskState.ASSIGNED) notAssigned++;
  if (notAssigned > 0) throw new Error(`${notAssigned} tasks not ASSIGNED`);
  const longest = (stretches: readonly Stretch[]): Stretch => stretches.reduce((a, b) => (b.ms > a.ms ? b : a), { start: 0, ms: 0 });
  const sorted = decides.map((d) => d.ms).sort((a, b) => a - b);
  const round = (ms: number): number => Math.round(ms * 10) / 10;
  const longestDecide = longest(decides);
  const longestApply = longest(applies);
  const decideMs = decides.reduce((sum, d) => sum + d.ms, 0);
  const applyMs = applies.reduce((sum, d) => sum + d.ms, 0);
  process.stdout.write(
    `${JSON.stringify({
      nodes: NODES,
      tasks: total,
      budget: budgetArg ?? 'default',
      ticks: decides.length,
      unschedulable,
      longestDecideMs: round(longestDecide.ms),
      longestDecideLessGcMs: round(longestDecide.ms - gcIn(longestDecide.start, longestDecide.ms)),
      medianDecideMs: round(sorted[sorted.length >> 1] ?? 0),
      longestFiveDecides: decides.map((d, i) => [i, round(d.ms)] as const).sort((a, b) => b[1] - a[1]).slice(0, 5),
      decidesOver50Ms: decides.filter((d) => d.ms > 50).length,
      longestApplyMs: round(longestApply.ms),
      longestApplyLessGcMs: round(longestApply.ms - gcIn(longestApply.start, longestApply.ms)),
      appliesOver50Ms: applies.filter((d) => d.ms > 50).length,
      longestGcPauseMs: round(longestGcMs()),
      decideTotalMs: Math.round(decideMs),
      applyTotalMs: Math.round(applyMs),
      wallMs: Math.round(wallMs),
      placedPerSecond: Math.round(total / (wallMs / 1000)),
      heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
    })}\n`,
  );
};

void main();
