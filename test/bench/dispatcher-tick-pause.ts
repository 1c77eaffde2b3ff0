/**
 * How long the dispatcher stops the event loop at C1M's size, in memory: `nodes` agents
 * with an open session each (AgentSession, its Session stream and one Assignments stream,
 * both fake: a write serializes the message as gRPC would, and drops it), then
 * `services` × `replicas` tasks created, allocated and assigned a record of `batch` tasks
 * at a time, round robin over the nodes, as the scheduler writes them. Three phases, each
 * with its own numbers:
 *
 * - assign: the TasksAssigned records applied one a turn (evolve → the core's observe), the
 *   sessions' INCREMENTAL messages going out as their timers fire;
 * - report: every task reported RUNNING, `sessionsPerCall` sessions' statuses a call (as a
 *   fleet process's UpdateTaskStatuses carries them), the core deciding as the runner
 *   drives it: decide, the records applied a chunk a turn, decide again;
 * - takeover: the core taking over (reconcileAll, its decisions until it proposes nothing
 *   and asks to go on at once no more), then every node's agent opening a new session
 *   and Assignments stream (its COMPLETE set), one a turn.
 *
 * A turn of the event loop is timed against the last (a setImmediate spinner): the longest
 * gap is the longest synchronous stretch. Each phase also says which of the core's own
 * stretches were longest: its decisions (reconcileAll counted as one), the records applied
 * between two turns, and within them its observe. Prints one JSON line.
 *
 *   node --max-old-space-size=8192 -r ./bin/register.js test/bench/dispatcher-tick-pause.ts [nodes] [services] [replicas] [batch] [sessionsPerCall]
 */
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ShoalEvent, TaskStatusReport } from '@shoal/contracts';
import { DispatcherCore, Projection, SessionTable } from '@shoal/domain';
import type { Proposal } from '@shoal/domain';
import { DISPATCHER_SERVICE } from '@shoal/protocol';
import type { AssignmentsMessage, AssignmentsRequest, SessionMessage, SessionRequest } from '@shoal/protocol';
import { AgentSession } from '../../apps/dispatcher/src/agent-session';
import type { SessionSource } from '../../apps/dispatcher/src/agent-session';
import { benchEvents, benchNode, c1mService, gcTime, loopTurns } from './events';

const [nodesArg, servicesArg, replicasArg, batchArg, perCallArg] = process.argv.slice(2);
const NODES = Number(nodesArg) || 5_000;
const SERVICES = Number(servicesArg) || 1_000;
const REPLICAS = Number(replicasArg) || 1_000;
const BATCH = Number(batchArg) || 2_000;
const SESSIONS_PER_CALL = Number(perCallArg) || 250;
/** Records of the dispatcher's own decisions applied between two turns. */
const APPLY_CHUNK = 200;

const event = benchEvents();
const sessions = new SessionTable();
const core = new DispatcherCore(sessions);
/** How long the core's observe took, each call: a part of each apply. */
let observes: number[] = [];
const projection = new Projection(undefined, 0, {
  keepRefusals: 10,
  onEvent: (e, v, s) => {
    const start = performance.now();
    core.observe(e, v, s);
    observes.push(performance.now() - start);
  },
});
const state = projection.state;
let offset = 0;
const apply = (e: ShoalEvent): void => {
  const verdict = projection.applyDecoded(offset++, { ok: true, event: e });
  if (verdict?.status !== 'applied') throw new Error(`${e.type}: ${verdict?.status ?? 'not read'} ${verdict?.reasons.slice(0, 3).join('; ') ?? ''}`);
};
const toEvent = (proposal: Proposal): ShoalEvent => event(proposal.type, proposal.data as never, 'dispatcher');

// What gRPC does with a message written on a stream: serialize it.
const serializeSession = DISPATCHER_SERVICE.Session!.responseSerialize as (message: SessionMessage) => Buffer;
const serializeAssignments = DISPATCHER_SERVICE.Assignments!.responseSerialize as (message: AssignmentsMessage) => Buffer;
let messages = 0;
let bytes = 0;
const fakeCall = <Req, Res>(serialize: (message: Res) => Buffer): ServerWritableStream<Req, Res> =>
  ({
    cancelled: false,
    writableEnded: false,
    getPeer: () => '127.0.0.1:1',
    write: (message: Res) => {
      messages++;
      bytes += serialize(message).length;
      return true;
    },
    emit: () => true,
    on: () => undefined,
  }) as unknown as ServerWritableStream<Req, Res>;

// As AgentService makes it.
const source: SessionSource = {
  state: () => state,
  tasksOf: (nodeId) => core.tasksOf(nodeId),
  indexed: () => core.indexed,
  whenIndexed: (ready) => core.whenIndexed(ready),
  dispatchers: () => ['127.0.0.1:4242'],
};
const description = (i: number) => benchNode(i, { nanoCpus: 64e9, memoryBytes: 256 * 2 ** 30 }, { version: '28.2.2', labels: {} }).description;
let sessionSeq = 0;

/** Opens node i's session and Assignments stream, as an agent does (the stream's COMPLETE set goes out at once). */
const connect = (i: number, at: number): AgentSession => {
  const nodeId = `node-${i}`;
  const sessionId = `session-${++sessionSeq}`;
  const link = new AgentSession(nodeId, sessionId, fakeCall<SessionRequest, SessionMessage>(serializeSession), source);
  core.open(state, { nodeId, sessionId, role: 'worker', description: description(i), addr: '127.0.0.1', link }, at);
  return link;
};

// Garbage collections, to tell a stretch's own work from a collection that fell in it.
const { gcIn, longestMs: longestGcMs, stop: stopGcTime } = gcTime();

// Every turn of the event loop, timed against the one before it.
const turns = loopTurns();
const round = (ms: number): number => Math.round(ms * 10) / 10;
/** The core's own stretches in a phase: each decide, each chunk of records applied (evolve → observe). */
let decides: number[] = [];
let applies: number[] = [];
const timed = <T>(into: number[], work: () => T): T => {
  const start = performance.now();
  const out = work();
  into.push(performance.now() - start);
  return out;
};
const most = (list: readonly number[]): number => round(list.reduce((a, b) => Math.max(a, b), 0));

/** Runs a phase with the spinner on, until what it sent is out: its longest stretches, its wall time, what it wrote. */
const phase = async (name: string, work: () => Promise<number>): Promise<Record<string, unknown>> => {
  decides = [];
  applies = [];
  observes = [];
  messages = 0;
  bytes = 0;
  const started = performance.now();
  turns.start(started);
  const items = await work();
  // Let the assignments' batches still due go out (until none has for 200 ms), then stop.
  let written = -1;
  while (written !== messages) {
    written = messages;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const wallMs = performance.now() - started - 200;
  const gaps = turns.stop();
  await nextTurn();
  const longest = gaps.reduce((a, b) => (b.ms > a.ms ? b : a), { start: 0, ms: 0 });
  const sorted = gaps.map((g) => g.ms).sort((a, b) => a - b);
  return {
    phase: name,
    items,
    turns: gaps.length,
    longestStretchMs: round(longest.ms),
    longestStretchLessGcMs: round(longest.ms - gcIn(longest.start, longest.ms)),
    longestFive: sorted.slice(-5).reverse().map(round),
    p99StretchMs: round(sorted[Math.floor(sorted.length * 0.99)] ?? 0),
    stretchesOver50Ms: gaps.filter((g) => g.ms > 50).length,
    decides: decides.length,
    longestDecideMs: most(decides),
    decideTopFive: decides.map((ms, i) => [i, round(ms)] as const).sort((a, b) => b[1] - a[1]).slice(0, 5),
    longestApplyMs: most(applies),
    longestObserveMs: most(observes),
    applyTopFive: [...applies].sort((a, b) => b - a).slice(0, 5).map(round),
    wallMs: Math.round(wallMs),
    perSecond: Math.round(items / (wallMs / 1000)),
    messages,
    MiB: Math.round(bytes / 2 ** 20),
  };
};

/** Ticks as the runner drives them until the core proposes nothing and asks to go on at once no more: decide, apply the records a chunk a turn. */
const tickUntilQuiet = async (now: Date): Promise<number> => {
  let records = 0;
  for (;;) {
    const proposals = timed(decides, () => core.decide(state, now));
    if (proposals.length === 0 && core.wakeAt(state) !== 0) return records;
    const events = proposals.map(toEvent);
    for (let first = 0; first < events.length; first += APPLY_CHUNK) {
      await nextTurn();
      timed(applies, () => {
        for (const e of events.slice(first, first + APPLY_CHUNK)) apply(e);
      });
    }
    records += events.length;
    await nextTurn();
  }
};

const main = async (): Promise<void> => {
  const t0 = Date.parse('2026-01-01T01:00:00Z');
  apply(event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: { worker: 'w', manager: 'm' } }, 'api'));
  core.reconcileAll(state);
  core.decide(state, new Date(t0));
  const links: AgentSession[] = [];
  for (let i = 0; i < NODES; i++) links.push(connect(i, t0));
  await tickUntilQuiet(new Date(t0));
  for (const link of links) link.attach(fakeCall<AssignmentsRequest, AssignmentsMessage>(serializeAssignments));
  const assigned: { id: string; nodeId: string; why: string }[][] = [];
  let pendingAssign: { id: string; nodeId: string; why: string }[] = [];
  let k = 0;
  for (let s = 0; s < SERVICES; s++) {
    const { id, spec, tasks: batch } = c1mService(s, REPLICAS);
    apply(event('ServiceCreated', { id, spec }, 'api'));
    apply(event('TasksCreated', { tasks: batch }, 'orchestrator'));
    apply(event('TasksAllocated', { tasks: batch.map((t) => ({ id: t.id, attachments: [] })) }, 'allocator'));
    for (const t of batch) {
      pendingAssign.push({ id: t.id, nodeId: `node-${k++ % NODES}`, why: 'spread' });
      if (pendingAssign.length === BATCH) {
        assigned.push(pendingAssign);
        pendingAssign = [];
      }
    }
  }
  if (pendingAssign.length > 0) assigned.push(pendingAssign);
  const total = SERVICES * REPLICAS;
  const results: Record<string, unknown>[] = [];

  results.push(
    await phase('assign', async () => {
      for (const tasks of assigned) {
        timed(applies, () => apply(event('TasksAssigned', { tasks }, 'scheduler')));
        await nextTurn();
      }
      return total;
    }),
  );

  const now = new Date(t0 + 1_000);
  const byNode = new Map<string, TaskStatusReport[]>();
  for (const tasks of assigned) {
    for (const { id, nodeId } of tasks) {
      const list = byNode.get(nodeId) ?? [];
      list.push({ id, state: TaskState.RUNNING, at: now.toISOString() });
      byNode.set(nodeId, list);
    }
  }
  const entries = [...byNode];
  let records = 0;
  results.push(
    await phase('report', async () => {
      for (let first = 0; first < entries.length; first += SESSIONS_PER_CALL) {
        for (const [nodeId, reports] of entries.slice(first, first + SESSIONS_PER_CALL)) sessions.report(nodeId, reports);
        await nextTurn();
      }
      records += await tickUntilQuiet(now);
      return total;
    }),
  );
  let running = 0;
  for (const task of state.tasks.values()) if (task.status.state === TaskState.RUNNING) running++;
  if (running !== total) throw new Error(`${running} of ${total} tasks RUNNING (${records} records)`);

  results.push(
    await phase('takeover', async () => {
      timed(decides, () => core.reconcileAll(state));
      await nextTurn();
      const at = t0 + 2_000;
      await tickUntilQuiet(new Date(at));
      const fresh: AgentSession[] = [];
      for (let i = 0; i < NODES; i++) {
        fresh.push(connect(i, at));
        if (i % 50 === 49) await nextTurn();
      }
      await tickUntilQuiet(new Date(at));
      for (const link of fresh) {
        link.attach(fakeCall<AssignmentsRequest, AssignmentsMessage>(serializeAssignments));
        await nextTurn();
      }
      return total;
    }),
  );
  stopGcTime();
  process.stdout.write(
    `${JSON.stringify({ nodes: NODES, tasks: total, batch: BATCH, longestGcPauseMs: round(longestGcMs()), heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20), phases: results })}\n`,
  );
};

void main();
