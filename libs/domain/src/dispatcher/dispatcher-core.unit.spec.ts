/** The dispatcher core: sessions registered, nodes READY again after DOWN, heartbeats and their expiry. */
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import { RecordingLink, TOKENS, assigned, beat, connect, dispatcherSpecification, keptJoinToken, nodeDescription, report, typesOf } from '@shoal/testing';
import { SessionTable } from './session-table';
import { MAX_HEARTBEATS_PER_SECOND, heartbeatPeriodMs } from './heartbeat';
import { UNKNOWN_MESSAGE } from './dispatcher-core';


describe('dispatcher: registration', () => {
  it('registers an opened session: NodeRegistered with the description and role, READY, then the link hears it is open', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    const link = new RecordingLink();
    h.core.open(h.state, { nodeId: 'n1', sessionId: 's', role: 'manager', description: nodeDescription('host-1'), addr: '127.0.0.1', link }, h.clock);
    expect(link.heard).toEqual([]);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeRegistered', data: { id: 'n1', role: 'manager', addr: '127.0.0.1', description: { hostname: 'host-1' } } });
    expect(h.state.nodes.get('n1')?.status.state).toBe('ready');
    expect(link.heard).toEqual(['opened, period 5000']);
    expect(h.tick()).toEqual([]);
  });

  it('brings a node back READY when it reconnects after DOWN, under the same id', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.reconcileAll();
    connect(h, 'n1');
    h.advance(3_000);
    h.tick();
    expect(h.state.nodes.get('n1')?.status.state).toBe('down');
    const link = connect(h, 'n1', new RecordingLink(), 'second');
    expect(h.state.nodes.get('n1')?.status.state).toBe('ready');
    expect(link.heard).toEqual(['opened, period 1000']);
    expect([...h.state.nodes.keys()]).toEqual(['n1']);
  });

  it('closes the old session when the node opens a new one', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    const first = connect(h, 'n1');
    connect(h, 'n1', new RecordingLink(), 'second');
    expect(first.heard).toEqual(['opened, period 5000', 'closed: replaced by a new session of the same node']);
    expect(h.core.sessions.current('n1', 'n1-session')).toBeUndefined();
    expect(h.core.sessions.current('n1', 'second')).toBeDefined();
  });

  it('ends the session of a node removed from the cluster', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    const link = connect(h, 'n1');
    h.happen('NodeRemoved', { id: 'n1', force: true });
    expect(link.heard).toContain('closed for good: the node was removed from the cluster');
    expect(h.core.sessions.size).toBe(0);
    expect(h.core.wasRemoved('n1', h.state)).toBe(true);
    expect(h.core.wasRemoved('n2', h.state)).toBe(false);
  });
});

describe('dispatcher: heartbeats', () => {
  it('marks a node DOWN once it has been silent for period × 3, not before; heartbeats are not events', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.reconcileAll();
    const link = connect(h, 'n1');
    for (let i = 0; i < 5; i++) {
      h.advance(2_500);
      expect(beat(h, 'n1')).toBe(1_000);
      expect(h.tick()).toEqual([]);
    }
    // It may wake early (a lower bound), never late.
    expect(h.core.wakeAt(h.state)).toBeLessThanOrEqual(h.clock + 3_000);
    h.advance(2_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeStatusChanged', data: { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure' }] } });
    expect(h.state.nodes.get('n1')?.status.state).toBe('down');
    expect(link.heard).toEqual(['opened, period 1000', 'closed: heartbeat failure: the session expired']);
    expect(beat(h, 'n1')).toBeUndefined();
    expect(h.tick()).toEqual([]);
  });

  it('uses the default period of 5 s when the cluster spec does not say', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    h.advance(14_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    expect(typesOf(h.tick())).toEqual(['NodeStatusChanged']);
  });

  it(`lengthens the period with the fleet, in whole seconds, so that at most ${MAX_HEARTBEATS_PER_SECOND} heartbeats a second are asked for`, () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    expect(heartbeatPeriodMs(h.state, 3)).toBe(1_000);
    expect(heartbeatPeriodMs(h.state, MAX_HEARTBEATS_PER_SECOND)).toBe(1_000);
    expect(heartbeatPeriodMs(h.state, MAX_HEARTBEATS_PER_SECOND + 1)).toBe(2_000);
    expect(heartbeatPeriodMs(h.state, 5_000)).toBe(Math.ceil(5_000 / MAX_HEARTBEATS_PER_SECOND) * 1_000);
    // The cluster's own period stands while the fleet asks for no more than it.
    const slow = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 30_000 } });
    expect(heartbeatPeriodMs(slow.state, 5_000)).toBe(Math.max(30_000, Math.ceil(5_000 / MAX_HEARTBEATS_PER_SECOND) * 1_000));
  });

  it('judges each node by the period it was told; one told a longer period as the fleet grew hears it on its next heartbeat, once', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.reconcileAll();
    const fleet = 2 * MAX_HEARTBEATS_PER_SECOND;
    const links = Array.from({ length: fleet }, (_, i) => connect(h, `n${i}`));
    // The first nodes joined a small fleet (1 s); the last, one that asks for 2 s.
    expect(links[0]!.heard).toEqual(['opened, period 1000']);
    expect(links[fleet - 1]!.heard).toEqual(['opened, period 2000']);
    expect(beat(h, 'n0')).toBe(2_000);
    expect(beat(h, 'n0')).toBe(2_000);
    expect(links[0]!.heard).toEqual(['opened, period 1000', 'period 2000']);
    expect(beat(h, `n${fleet - 1}`)).toBe(2_000);
    expect(links[fleet - 1]!.heard).toEqual(['opened, period 2000']);
    // Silent since they joined, the nodes told 1 s are DOWN after 3 s; n0, which heard of 2 s, and those told 2 s after 6 s.
    h.advance(3_000);
    const [early] = h.tick();
    const downEarly = early?.type === 'NodeStatusChanged' ? early.data.nodes.map((n) => n.id) : [];
    expect(downEarly).toHaveLength(MAX_HEARTBEATS_PER_SECOND - 1);
    expect(downEarly).not.toContain('n0');
    expect(downEarly).toContain('n1');
    h.advance(2_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    const [late] = h.tick();
    expect(late?.type === 'NodeStatusChanged' && late.data.nodes.length).toBe(MAX_HEARTBEATS_PER_SECOND + 1);
  });

  it('does not hold a node to a shorter period than the one it was told when the fleet shrinks', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.reconcileAll();
    const fleet = 3 * MAX_HEARTBEATS_PER_SECOND;
    const last = `n${fleet - 1}`;
    for (let i = 0; i < fleet; i++) connect(h, `n${i}`);
    expect(beat(h, last)).toBe(3_000);
    // Most of the fleet goes away: the period asked for is 1 s again, but the last node calls in every 3 s until it hears so.
    for (let i = 0; i < fleet - 10; i++) h.core.sessions.end(`n${i}`, 'gone');
    for (let i = fleet - 10; i < fleet - 1; i++) beat(h, `n${i}`);
    h.advance(8_999);
    for (let i = fleet - 10; i < fleet - 1; i++) beat(h, `n${i}`);
    expect(h.tick()).toEqual([]);
    expect(h.state.nodes.get(last)?.status.state).toBe('ready');
    h.advance(1);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeStatusChanged', data: { nodes: [{ id: last, state: 'down' }] } });
  });

  it('refuses a heartbeat for a session that is not the current one', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    connect(h, 'n1');
    expect(beat(h, 'n1', 'someone-else')).toBeUndefined();
    expect(beat(h, 'n2', 'n1-session')).toBeUndefined();
  });

  it('on taking over, marks every node it has not heard from UNKNOWN and gives it period × 6 to come back, then marks it DOWN', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    for (const id of ['n1', 'n2', 'n3']) h.happen('NodeRegistered', { id, role: 'worker', description: nodeDescription(id) });
    h.happen('NodeStatusChanged', { nodes: [{ id: 'n3', state: 'down', message: 'heartbeat failure' }] });
    h.reconcileAll();
    const [unknown] = h.tick();
    expect(unknown).toMatchObject({ type: 'NodeStatusChanged', data: { nodes: [{ id: 'n1', state: 'unknown', message: UNKNOWN_MESSAGE }, { id: 'n2', state: 'unknown' }] } });
    expect(h.state.nodes.get('n3')?.status.state).toBe('down');
    // Well past the usual grace, n2 comes back: READY.
    h.advance(5_000);
    expect(h.tick()).toEqual([]);
    connect(h, 'n2');
    expect(h.state.nodes.get('n2')?.status.state).toBe('ready');
    h.advance(999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeStatusChanged', data: { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure for node in "unknown" state' }] } });
    expect(h.state.nodes.get('n2')?.status.state).toBe('ready');
  });

  it('judges no heartbeat while it could not write to the log: the clock of every session starts again when the log is back', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.reconcileAll();
    const link = connect(h, 'n1');
    // Appends fail for 10 s; the agent's heartbeats did not reach this dispatcher either. The runner catches up and starts the core again.
    h.advance(10_000);
    h.reconcileAll();
    expect(h.tick()).toEqual([]);
    h.advance(2_999);
    expect(h.tick()).toEqual([]);
    expect(link.heard).toEqual(['opened, period 1000']);
    h.advance(1);
    expect(h.tick()).toEqual([expect.objectContaining({ type: 'NodeStatusChanged', data: { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure' }] } })]);
  });

  it('tells open sessions when the cluster changes the heartbeat period, and only then', () => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.reconcileAll();
    const link = connect(h, 'n1');
    h.happen('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 2_000 } } });
    h.happen('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 2_000 }, nodeDownPeriodMs: 60_000 } });
    expect(link.heard).toEqual(['opened, period 1000', 'period 2000']);
    beat(h, 'n1');
    expect(link.heard).toEqual(['opened, period 1000', 'period 2000']);
    h.advance(5_000);
    expect(h.tick()).toEqual([]);
  });
});


describe('session table', () => {
  it('scans for expired nodes only once one can have expired, and then knows the next expiry exactly', () => {
    const table = new SessionTable();
    const open = (nodeId: string, at: number) => table.open({ nodeId, sessionId: nodeId, role: 'worker', description: nodeDescription(nodeId) }, at, 100);
    open('a', 0);
    open('b', 100);
    expect(table.nextExpiry).toBe(300);
    expect(table.expiredAt(299)).toEqual([]);
    table.heartbeat('a', 'a', 500, 100);
    expect(table.nextExpiry).toBe(300);
    expect(table.expiredAt(350)).toEqual([]);
    expect(table.nextExpiry).toBe(400);
    expect(table.expiredAt(400)).toEqual(['b']);
    expect(table.nextExpiry).toBe(800);
    // A heartbeat with a shorter period does not bring the expiry forward.
    table.heartbeat('a', 'a', 510, 10);
    table.end('b', 'expired');
    table.await('c', 200, 50);
    expect(table.expiredAt(500)).toEqual(['c']);
    table.end('c', 'expired');
    expect(table.expiredAt(799)).toEqual([]);
    expect(table.expiredAt(800)).toEqual(['a']);
  });
});

describe('dispatcher: join tokens across rotation', () => {
  it('admits a node the cluster has with the token it joined with, after rotation; a new node needs the current one', () => {
    const h = dispatcherSpecification();
    h.reconcileAll();
    const joinedWith = TOKENS.worker;
    expect(h.core.admit(h.state, joinedWith, '')).toEqual({ ok: true, role: 'worker' });
    connect(h, 'n1');
    const rotated = `SWMTKN-1-${'a'.repeat(50)}-${'r'.repeat(25)}`;
    h.happen('JoinTokensRotated', { worker: keptJoinToken(rotated) });
    expect(h.core.admit(h.state, joinedWith, 'n1')).toEqual({ ok: true, role: 'worker' });
    expect(h.core.admit(h.state, joinedWith, 'n2')).toMatchObject({ ok: false, reason: expect.stringMatching(/rotated/) });
    expect(h.core.admit(h.state, joinedWith, '')).toMatchObject({ ok: false });
    expect(h.core.admit(h.state, rotated, '')).toEqual({ ok: true, role: 'worker' });
  });
});

describe('dispatcher: taking over, its index of the nodes’ tasks rebuilt a slice a decision', () => {
  /** n1 DOWN for longer than the node-down period with two live tasks, n2 up with three and a status to report: then the dispatcher takes over. */
  const takenOver = (options: { indexSlice?: number } = {}) => {
    const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: 1_000 }, nodeDownPeriodMs: 10_000 }, options);
    h.reconcileAll();
    connect(h, 'n1');
    connect(h, 'n2');
    h.apply(assigned('a1', 'n1', 1));
    h.apply(assigned('a2', 'n1', 2));
    h.apply(assigned('b1', 'n2', 3));
    h.apply(assigned('b2', 'n2', 4));
    h.apply(assigned('b3', 'n2', 5));
    h.advance(2_000);
    beat(h, 'n2');
    h.advance(1_000);
    h.tick();
    expect(h.state.nodes.get('n1')?.status.state).toBe('down');
    h.advance(10_000);
    beat(h, 'n2');
    report(h, 'n2', 'b1', TaskState.RUNNING);
    h.reconcileAll();
    return h;
  };
  const decided = (events: readonly { type: string; data: unknown }[]) => events.map(({ type, data }) => ({ type, data }));

  it('decides nothing until the index is whole, asking to go on at once; then what a rebuild in one go decides', () => {
    const whole = takenOver();
    expect(whole.core.indexed).toBe(true);
    const expected = decided(whole.tick());
    expect(expected.map((e) => e.type)).toEqual(['TaskStatusesReported', 'TaskStatusesReported']);

    const h = takenOver({ indexSlice: 2 });
    let told = 0;
    h.core.whenIndexed(() => told++);
    // Five tasks: two looked at on taking over, two a decision.
    expect(h.core.indexed).toBe(false);
    expect(h.core.wakeAt(h.state)).toBe(0);
    expect(h.tick()).toEqual([]);
    expect(h.core.indexed).toBe(false);
    expect(told).toBe(0);
    expect(decided(h.tick())).toEqual(expected);
    expect(h.core.indexed).toBe(true);
    expect(told).toBe(1);
    expect([...h.core.tasksOf('n1')]).toEqual(['a1', 'a2']);
    expect([...h.core.tasksOf('n2')]).toEqual(['b1', 'b2', 'b3']);
    expect(h.tick()).toEqual([]);
    expect(h.core.wakeAt(h.state)).toBeGreaterThan(h.clock);
  });

  it('keeps what the log changes while the index is rebuilt', () => {
    const h = takenOver({ indexSlice: 1 });
    // a1, looked at on taking over, ends and goes; c1 comes after the rest.
    expect(h.happen('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 'a1', state: TaskState.FAILED, at: new Date(h.clock).toISOString() }] }, { by: 'dispatcher' }).status).toBe('applied');
    expect(h.happen('TasksRemoved', { tasks: [{ id: 'a1', reason: 'ended' }] }, { by: 'reaper' }).status).toBe('applied');
    expect(h.apply(assigned('c1', 'n2', 6)).status).toBe('applied');
    while (!h.core.indexed) h.tick();
    expect([...h.core.tasksOf('n1')].sort()).toEqual(['a2']);
    expect([...h.core.tasksOf('n2')].sort()).toEqual(['b1', 'b2', 'b3', 'c1']);
  });

  it('tells a waiter at once when the index is whole', () => {
    const h = takenOver();
    let told = 0;
    h.core.whenIndexed(() => told++);
    expect(told).toBe(1);
  });
});
