/**
 * The dispatcher core against a state built by evolve, with a clock the test moves:
 * `tick` is what the runner does (decide, stamp, apply).
 */
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { ClusterSpec, EventDataMap, EventType, ShoalEvent, TaskState as State } from '@shoal/contracts';
import fc from 'fast-check';
import { EventBuilder, histories, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { Projection } from '../projection';
import { evolve } from '../evolve';
import { emptyState } from '../state';
import type { ClusterState } from '../state';
import type { Verdict } from '../verdict';
import { AssignmentTracker } from './assignments';
import { DispatcherCore } from './dispatcher-core';
import { SessionTable } from './session-table';
import type { SessionLink } from './session-table';

const TOKENS = { worker: `SWMTKN-1-${'a'.repeat(50)}-${'w'.repeat(25)}`, manager: `SWMTKN-1-${'a'.repeat(50)}-${'m'.repeat(25)}` };

/** A link that writes down what it is told. */
class RecordingLink implements SessionLink {
  readonly heard: string[] = [];
  opened(): void {
    this.heard.push('opened');
  }
  closed(reason: string): void {
    this.heard.push(`closed: ${reason}`);
  }
  assignmentsChanged(): void {
    this.heard.push('assignments');
  }
  periodChanged(periodMs: number): void {
    this.heard.push(`period ${periodMs}`);
  }
}

class DispatcherHarness {
  readonly b = new EventBuilder();
  readonly state: ClusterState = emptyState();
  readonly sessions = new SessionTable();
  readonly logged: string[] = [];
  readonly core = new DispatcherCore(this.sessions, { log: (line) => this.logged.push(line) });
  /** Every event the dispatcher proposed, with its verdict. */
  readonly proposed: { event: ShoalEvent; verdict: Verdict }[] = [];
  now = Date.parse('2026-01-01T00:00:00.000Z');

  constructor(spec: Partial<ClusterSpec> = {}) {
    this.apply('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, ...spec }, tokens: TOKENS });
    this.apply('ServiceCreated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) });
  }

  /** Another writer's event, applied and observed. */
  apply<K extends EventType>(type: K, data: EventDataMap[K]): Verdict {
    const event = this.b.event(type, data, { at: new Date(this.now).toISOString() });
    const verdict = evolve(this.state, event);
    this.core.observe(event, verdict, this.state);
    return verdict;
  }

  /** The dispatcher becomes active. */
  takeOver(): void {
    this.core.reconcileAll(this.state);
  }

  /** The runner's tick at the harness's clock: decide, append, apply. */
  tick(): ShoalEvent[] {
    const events: ShoalEvent[] = [];
    for (const proposal of this.core.decide(this.state, new Date(this.now))) {
      const event = this.b.event(proposal.type, proposal.data as never, { by: 'dispatcher', at: new Date(this.now).toISOString() }) as ShoalEvent;
      const verdict = evolve(this.state, event);
      this.core.observe(event, verdict, this.state);
      this.proposed.push({ event, verdict });
      events.push(event);
    }
    return events;
  }

  advance(ms: number): void {
    this.now += ms;
  }

  /** Opens a session for `nodeId` and lets the dispatcher register it. */
  connect(nodeId: string, link = new RecordingLink(), sessionId = `${nodeId}-session`): RecordingLink {
    this.sessions.open({ nodeId, sessionId, role: 'worker', description: nodeDescription(nodeId), addr: '127.0.0.1', link }, this.now);
    this.tick();
    return link;
  }

  /** A task of s1 through creation, allocation and assignment to `nodeId`. */
  assign(id: string, nodeId: string, slot = 1): void {
    const spec = serviceSpec('web', { kind: 'replicated', replicas: 3 });
    this.apply('TasksCreated', { tasks: [newTask(id, 's1', spec, { slot })] });
    this.apply('TasksAllocated', { tasks: [{ id, attachments: [] }] });
    this.apply('TasksAssigned', { tasks: [{ id, nodeId, why: 'test' }] });
  }

  report(nodeId: string, id: string, state: State): void {
    this.sessions.report(nodeId, [{ id, state, at: new Date(this.now).toISOString() }]);
  }

  taskState(id: string): State | undefined {
    return this.state.tasks.get(id)?.status.state;
  }
}


const { ASSIGNED, RUNNING, STARTING, COMPLETE, ORPHANED, SHUTDOWN, REMOVE, FAILED } = TaskState;
const typesOf = (events: readonly ShoalEvent[]) => events.map((e) => e.type);

describe('dispatcher: registration', () => {
  it('registers an opened session: NodeRegistered with the description and role, READY, then the link hears it is open', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    const link = new RecordingLink();
    h.sessions.open({ nodeId: 'n1', sessionId: 's', role: 'manager', description: nodeDescription('host-1'), addr: '127.0.0.1', link }, h.now);
    expect(link.heard).toEqual([]);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeRegistered', data: { id: 'n1', role: 'manager', addr: '127.0.0.1', description: { hostname: 'host-1' } } });
    expect(h.state.nodes.get('n1')?.status.state).toBe('ready');
    expect(link.heard).toEqual(['opened']);
    expect(h.tick()).toEqual([]);
  });

  it('brings a node back READY when it reconnects after DOWN, under the same id', () => {
    const h = new DispatcherHarness({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.takeOver();
    h.connect('n1');
    h.advance(3_000);
    h.tick();
    expect(h.state.nodes.get('n1')?.status.state).toBe('down');
    const link = h.connect('n1', new RecordingLink(), 'second');
    expect(h.state.nodes.get('n1')?.status.state).toBe('ready');
    expect(link.heard).toEqual(['opened']);
    expect([...h.state.nodes.keys()]).toEqual(['n1']);
  });

  it('closes the old session when the node opens a new one', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    const first = h.connect('n1');
    h.connect('n1', new RecordingLink(), 'second');
    expect(first.heard).toEqual(['opened', 'closed: replaced by a new session of the same node']);
    expect(h.sessions.current('n1', 'n1-session')).toBeUndefined();
    expect(h.sessions.current('n1', 'second')).toBeDefined();
  });

  it('ends the session of a node removed from the cluster', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    const link = h.connect('n1');
    h.apply('NodeRemoved', { id: 'n1', force: true });
    expect(link.heard).toContain('closed: the node was removed from the cluster');
    expect(h.sessions.size).toBe(0);
  });
});

describe('dispatcher: heartbeats', () => {
  it('marks a node DOWN once it has been silent for period × 3, not before; heartbeats are not events', () => {
    const h = new DispatcherHarness({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.takeOver();
    const link = h.connect('n1');
    for (let i = 0; i < 5; i++) {
      h.advance(2_500);
      expect(h.sessions.heartbeat('n1', 'n1-session', h.now)).toBe(true);
      expect(h.tick()).toEqual([]);
    }
    expect(h.core.wakeAt(h.state)).toBe(h.now + 3_000);
    h.advance(2_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeStatusChanged', data: { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure' }] } });
    expect(h.state.nodes.get('n1')?.status.state).toBe('down');
    expect(link.heard).toEqual(['opened', 'closed: heartbeat failure: the session expired']);
    expect(h.sessions.heartbeat('n1', 'n1-session', h.now)).toBe(false);
    expect(h.tick()).toEqual([]);
  });

  it('uses the default period of 5 s when the cluster spec does not say', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.advance(14_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    expect(typesOf(h.tick())).toEqual(['NodeStatusChanged']);
  });

  it('refuses a heartbeat for a session that is not the current one', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    expect(h.sessions.heartbeat('n1', 'someone-else', h.now)).toBe(false);
    expect(h.sessions.heartbeat('n2', 'n1-session', h.now)).toBe(false);
  });

  it('gives nodes READY under the previous dispatcher the grace period to reconnect, then marks them DOWN', () => {
    const h = new DispatcherHarness({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.apply('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('n1') });
    h.apply('NodeRegistered', { id: 'n2', role: 'worker', description: nodeDescription('n2') });
    h.takeOver();
    expect(h.tick()).toEqual([]);
    h.advance(2_000);
    h.connect('n2');
    h.advance(1_000);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeStatusChanged', data: { nodes: [{ id: 'n1', state: 'down' }] } });
    expect(h.state.nodes.get('n2')?.status.state).toBe('ready');
  });

  it('tells open sessions when the cluster changes the heartbeat period', () => {
    const h = new DispatcherHarness({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.takeOver();
    const link = h.connect('n1');
    h.apply('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 2_000 } } });
    expect(link.heard).toEqual(['opened', 'period 2000']);
    h.advance(5_000);
    expect(h.tick()).toEqual([]);
  });
});

describe('dispatcher: assignments', () => {
  it('tells the node’s session when its tasks change, not when only their observed state does', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    const n1 = h.connect('n1');
    const n2 = h.connect('n2');
    h.assign('t1', 'n1');
    expect(n1.heard).toEqual(['opened', 'assignments']);
    expect(n2.heard).toEqual(['opened']);
    h.report('n1', 't1', RUNNING);
    h.tick();
    expect(n1.heard).toEqual(['opened', 'assignments']);
    h.apply('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: SHUTDOWN }] });
    expect(n1.heard).toEqual(['opened', 'assignments', 'assignments']);
    expect([...h.core.tasksOf('n1')]).toEqual(['t1']);
  });

  it('a stream gets the complete set first, then only what changed', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.assign('t1', 'n1', 1);
    h.assign('t2', 'n1', 2);
    h.assign('other', 'n2-missing', 3);
    const tracker = new AssignmentTracker();
    const set = tracker.complete(h.state, h.core.tasksOf('n1'));
    expect(set.map((a) => [a.taskId, a.serviceName, a.slot, a.desiredState, a.observedState])).toEqual([
      ['t1', 'web', 1, RUNNING, ASSIGNED],
      ['t2', 'web', 2, RUNNING, ASSIGNED],
    ]);
    expect(tracker.changes(h.state, h.core.tasksOf('n1'))).toEqual([]);

    h.assign('t3', 'n1', 3);
    h.apply('TaskDesiredStatesChanged', { tasks: [{ id: 't1', desiredState: REMOVE }] });
    h.report('n1', 't2', FAILED);
    h.tick();
    h.apply('TasksRemoved', { tasks: [{ id: 't2', reason: 'history' }] });
    const changes = tracker.changes(h.state, h.core.tasksOf('n1'));
    expect(changes).toEqual([
      { action: 'update', assignment: expect.objectContaining({ taskId: 't1', desiredState: REMOVE }) },
      { action: 'update', assignment: expect.objectContaining({ taskId: 't3', desiredState: RUNNING }) },
      { action: 'remove', taskId: 't2' },
    ]);
    expect(tracker.changes(h.state, h.core.tasksOf('n1'))).toEqual([]);
  });

  it('does not hand out tasks before they are assigned', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    const spec = serviceSpec('web', { kind: 'global' });
    h.apply('ServiceCreated', { id: 'g', spec });
    h.apply('TasksCreated', { tasks: [newTask('g1', 'g', spec, { slot: undefined, nodeId: 'n1' })] });
    expect(new AssignmentTracker().complete(h.state, h.core.tasksOf('n1'))).toEqual([]);
  });
});

describe('dispatcher: task statuses', () => {
  it('batches the statuses of each node into one TaskStatusesReported, which evolve applies', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.connect('n2');
    h.assign('a', 'n1', 1);
    h.assign('b', 'n1', 2);
    h.assign('c', 'n2', 3);
    h.report('n1', 'a', STARTING);
    h.report('n2', 'c', RUNNING);
    h.report('n1', 'a', RUNNING);
    h.report('n1', 'b', COMPLETE);
    const events = h.tick();
    expect(events.map((e) => e.type === 'TaskStatusesReported' && [e.data.nodeId, e.data.statuses.map((s) => `${s.id}:${s.state}`)])).toEqual([
      ['n1', [`a:${STARTING}`, `a:${RUNNING}`, `b:${COMPLETE}`]],
      ['n2', [`c:${RUNNING}`]],
    ]);
    expect(h.proposed.every((p) => p.verdict.status === 'applied')).toBe(true);
    expect([h.taskState('a'), h.taskState('b'), h.taskState('c')]).toEqual([RUNNING, COMPLETE, RUNNING]);
  });

  it('ignores, with a log line, statuses for tasks not on the reporting node, and keeps the rest', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.connect('n2');
    h.assign('mine', 'n1', 1);
    h.assign('theirs', 'n2', 2);
    h.report('n1', 'theirs', RUNNING);
    h.report('n1', 'ghost', RUNNING);
    h.report('n1', 'mine', RUNNING);
    const events = h.tick();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ data: { nodeId: 'n1', statuses: [{ id: 'mine', state: RUNNING }] } });
    expect(h.taskState('theirs')).toBe(ASSIGNED);
    expect(h.logged).toEqual([
      'ignoring a status from node n1 for task theirs: it is not assigned to that node',
      'ignoring a status from node n1 for task ghost: no such task',
    ]);
  });

  it('drops a repeated or backward status instead of proposing what evolve would refuse', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    h.connect('n1');
    h.assign('a', 'n1');
    h.report('n1', 'a', RUNNING);
    h.tick();
    h.report('n1', 'a', RUNNING);
    h.report('n1', 'a', STARTING);
    expect(h.tick()).toEqual([]);
  });

  it('puts at most the batch limit of statuses in one decision and the rest in the next', () => {
    const h = new DispatcherHarness();
    const core = new DispatcherCore(h.sessions, { maxStatusBatch: 2 });
    core.reconcileAll(h.state);
    for (const id of ['x', 'y', 'z']) h.sessions.report('n1', [{ id, state: RUNNING, at: 'now' }]);
    core.decide(h.state, new Date(h.now));
    expect(h.sessions.pendingStatuses).toBe(1);
    core.decide(h.state, new Date(h.now));
    expect(h.sessions.pendingStatuses).toBe(0);
  });
});

describe('dispatcher: orphans', () => {
  const setup = () => {
    const h = new DispatcherHarness({ dispatcher: { heartbeatPeriodMs: 1_000 }, nodeDownPeriodMs: 10_000 });
    h.takeOver();
    h.connect('n1');
    h.assign('running', 'n1', 1);
    h.assign('assigned', 'n1', 2);
    h.assign('done', 'n1', 3);
    h.report('n1', 'running', RUNNING);
    h.report('n1', 'done', COMPLETE);
    h.tick();
    h.advance(3_000);
    h.tick();
    expect(h.state.nodes.get('n1')?.status.state).toBe('down');
    return h;
  };

  it('ORPHANs the live tasks of a node DOWN longer than the node-down period, and leaves stopped ones', () => {
    const h = setup();
    expect(h.core.wakeAt(h.state)).toBe(h.now + 10_000);
    h.advance(9_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'TaskStatusesReported', data: { nodeId: 'n1' } });
    expect(h.proposed.at(-1)?.verdict.status).toBe('applied');
    expect([h.taskState('running'), h.taskState('assigned'), h.taskState('done')]).toEqual([ORPHANED, ORPHANED, COMPLETE]);
    expect(h.state.tasks.get('running')?.status.message).toMatch(/node n1 has been down for more than 10000 ms/);
    expect(h.tick()).toEqual([]);
    expect(h.core.wakeAt(h.state)).toBeUndefined();
  });

  it('does not orphan the tasks of a node that came back in time', () => {
    const h = setup();
    h.advance(5_000);
    h.connect('n1');
    h.advance(5_000);
    h.sessions.heartbeat('n1', 'n1-session', h.now);
    expect(h.tick()).toEqual([]);
    expect(h.taskState('running')).toBe(RUNNING);
  });

  it('waits 24 hours by default', () => {
    const h = new DispatcherHarness({ dispatcher: { heartbeatPeriodMs: 1_000 }, nodeDownPeriodMs: undefined });
    h.takeOver();
    h.connect('n1');
    h.assign('t', 'n1');
    h.advance(3_000);
    h.tick();
    h.advance(24 * 3_600_000 - 1);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    h.tick();
    expect(h.taskState('t')).toBe(ORPHANED);
  });
});

describe('dispatcher invariants', () => {
  /** Random sessions, reports and clock moves after a random history. */
  const activity = fc.record({
    sessions: fc.array(fc.nat(4), { maxLength: 4 }),
    reports: fc.array(fc.tuple(fc.nat(4), fc.nat(8), fc.constantFrom(...Object.values(TaskState))), { maxLength: 20 }),
    advanceMs: fc.nat(48 * 3_600_000),
  });

  it('proposes only what evolve applies in full, and keeps each node’s task list as the state has it', () => {
    const proposed = new Map<string, number>();
    fc.assert(
      fc.property(histories(), activity, (log, { sessions, reports, advanceMs }) => {
        const table = new SessionTable();
        const core = new DispatcherCore(table);
        const projection = new Projection(undefined, 0, { onEvent: (event, verdict, state) => core.observe(event, verdict, state) });
        log.forEach((value, offset) => projection.apply({ offset, value }));
        const state = projection.state;
        core.reconcileAll(state);
        const start = Date.parse('2026-01-01T00:00:00.000Z');
        for (const n of sessions) {
          table.open({ nodeId: `n${n}`, sessionId: `s${n}`, role: 'worker', description: nodeDescription(`n${n}`) }, start);
        }
        for (const [n, t, reported] of reports) table.report(`n${n}`, [{ id: `t${t}`, state: reported, at: new Date(start).toISOString() }]);
        const b = new EventBuilder();
        const term = state.terms.get('dispatcher') ?? 0;
        for (const at of [start, start + advanceMs]) {
          for (const proposal of core.decide(state, new Date(at))) {
            const event = b.event(proposal.type, proposal.data as never, { by: 'dispatcher', instance: 'dispatcher-prop', term }) as ShoalEvent;
            const verdict = evolve(state, event);
            core.observe(event, verdict, state);
            expect(verdict).toMatchObject({ status: 'applied' });
            proposed.set(event.type, (proposed.get(event.type) ?? 0) + 1);
          }
        }
        const byScan = new Map<string, string[]>();
        for (const task of state.tasks.values()) {
          if (task.nodeId !== undefined && task.status.state >= ASSIGNED) byScan.set(task.nodeId, [...(byScan.get(task.nodeId) ?? []), task.id]);
        }
        for (const node of new Set([...byScan.keys(), ...state.nodes.keys()])) {
          expect([...core.tasksOf(node)].sort()).toEqual((byScan.get(node) ?? []).sort());
        }
      }),
      { numRuns: 150 },
    );
    // The histories reach every kind of proposal, so the property is about something.
    expect([...proposed.keys()].sort()).toEqual(['NodeRegistered', 'NodeStatusChanged', 'TaskStatusesReported']);
  });
});
