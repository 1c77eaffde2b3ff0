/** The dispatcher core: sessions registered, nodes READY again after DOWN, heartbeats and their expiry. */
import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import { nodeDescription } from '@shoal/testing';
import { DispatcherHarness, RecordingLink, typesOf } from './dispatcher.test-harness';
import { SessionTable } from './session-table';
import { heartbeatPeriodMs } from './heartbeat';


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
    expect(link.heard).toContain('closed for good: the node was removed from the cluster');
    expect(h.sessions.size).toBe(0);
    expect(h.core.wasRemoved('n1', h.state)).toBe(true);
    expect(h.core.wasRemoved('n2', h.state)).toBe(false);
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
    // It may wake early (a lower bound), never late.
    expect(h.core.wakeAt(h.state)).toBeLessThanOrEqual(h.now + 3_000);
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

  it('lengthens the period with the fleet, so that at most 50 heartbeats a second are asked for, and judges silence by it', () => {
    const h = new DispatcherHarness({ dispatcher: { heartbeatPeriodMs: 1_000 } });
    h.takeOver();
    // 500 nodes at 50 heartbeats a second: each calls in every 10 s (not every 1 s), silent for 30 s is DOWN.
    for (let i = 0; i < 500; i++) h.connect(`n${i}`);
    h.tick();
    expect(heartbeatPeriodMs(h.state, h.sessions.size)).toBe(10_000);
    expect(heartbeatPeriodMs(h.state, 3)).toBe(1_000);
    h.advance(29_999);
    expect(h.tick()).toEqual([]);
    h.advance(1);
    const [event] = h.tick();
    expect(event).toMatchObject({ type: 'NodeStatusChanged' });
    expect(event?.type === 'NodeStatusChanged' && event.data.nodes.length).toBe(500);
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


describe('session table', () => {
  it('scans for silent nodes only once one can be silent, and then knows the next one exactly', () => {
    const table = new SessionTable();
    const open = (nodeId: string, at: number) => table.open({ nodeId, sessionId: nodeId, role: 'worker', description: nodeDescription(nodeId) }, at);
    open('a', 0);
    open('b', 100);
    expect(table.silentSince(-1)).toEqual([]);
    table.heartbeat('a', 'a', 500);
    expect(table.oldestLastSeen).toBe(0);
    expect(table.silentSince(50)).toEqual([]);
    expect(table.oldestLastSeen).toBe(100);
    expect(table.silentSince(100)).toEqual(['b']);
    expect(table.oldestLastSeen).toBe(500);
    table.end('b', 'expired');
    table.await('c', 200);
    expect(table.silentSince(300).sort()).toEqual(['c']);
  });
});

describe('dispatcher: join tokens across rotation', () => {
  it('admits a node the cluster has with the token it joined with, after rotation; a new node needs the current one', () => {
    const h = new DispatcherHarness();
    h.takeOver();
    const joinedWith = h.state.cluster!.tokens.worker;
    expect(h.core.admit(h.state, joinedWith, '')).toEqual({ ok: true, role: 'worker' });
    h.connect('n1');
    h.apply('JoinTokensRotated', { worker: `SWMTKN-1-${'a'.repeat(50)}-${'r'.repeat(25)}` });
    expect(h.core.admit(h.state, joinedWith, 'n1')).toEqual({ ok: true, role: 'worker' });
    expect(h.core.admit(h.state, joinedWith, 'n2')).toMatchObject({ ok: false, reason: expect.stringMatching(/rotated/) });
    expect(h.core.admit(h.state, joinedWith, '')).toMatchObject({ ok: false });
    expect(h.core.admit(h.state, h.state.cluster!.tokens.worker, '')).toEqual({ ok: true, role: 'worker' });
  });
});
