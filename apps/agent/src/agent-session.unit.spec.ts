import { TaskState } from '@shoal/contracts';
import { eventually } from '@shoal/testing';
import { AgentSession, JoinRefusedError } from './agent-session';
import { DispatcherChannels } from './dispatcher-channels';
import { nodeDescription } from './node-description';
import { SimulatedExecutor } from './simulated-executor';
import { assignment, complete, incremental, remove, update } from './testing/assignments';
import { FakeDispatcher } from './testing/fake-dispatcher';
import { TimerWheel } from './timers';

/** How long the session gets to do each thing, and how often to look. */
const WITHIN = { timeoutMs: 10_000, everyMs: 10 };

describe('the agent session', () => {
  const timers = new TimerWheel(5);
  let dispatcher: FakeDispatcher;
  let channels: DispatcherChannels;
  const sessions: AgentSession[] = [];
  const executor = new SimulatedExecutor(
    nodeDescription({ hostname: 'sim-7', nanoCpus: 2e9, memoryBytes: 2 ** 30, labels: { zone: 'b' }, engineVersion: 'shoal-agent simulated' }),
    timers,
  );
  const open = (overrides: Partial<ConstructorParameters<typeof AgentSession>[0]> = {}): AgentSession => {
    const session = new AgentSession({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-good', executor, channels, timers, backoff: { initialMs: 20, maxMs: 100 }, ...overrides });
    sessions.push(session);
    return session;
  };
  const statesOf = (taskId: string): number[] => dispatcher.statuses.filter((status) => status.taskId === taskId).map((status) => status.state);

  beforeEach(async () => {
    dispatcher = await FakeDispatcher.start();
    dispatcher.heartbeatPeriodMs = 40;
    channels = new DispatcherChannels();
  });
  afterEach(async () => {
    await Promise.all(sessions.splice(0).map((session) => session.stop()));
    channels.close();
    await dispatcher.stop();
  });

  it('registers with the join token and its description, keeps the node id it is given, and heartbeats at the period it is told', async () => {
    const session = open();
    await session.start();
    expect(session.connected).toBe(true);
    expect(dispatcher.sessionRequests[0]).toMatchObject({
      joinToken: 'SWMTKN-1-good',
      nodeId: '',
      description: { hostname: 'sim-7', nanoCpus: 2e9, memoryBytes: 2 ** 30, engineLabels: { zone: 'b' }, platform: { os: 'linux', architecture: 'x86_64' } },
    });
    expect(session.nodeId).toBe('node-1');
    expect(session.heartbeatPeriodMs).toBe(40);
    await eventually('three heartbeats', () => dispatcher.heartbeats.length >= 3, WITHIN);
    expect(dispatcher.heartbeats[0]).toEqual({ nodeId: 'node-1', sessionId: dispatcher.sessionIdOf('node-1') });
    // On one stream, not a call each.
    expect(dispatcher.heartbeatStreams).toBe(1);
    expect(dispatcher.heartbeatCalls).toBe(0);
  });

  it('sends the heartbeats of every session on a channel on one stream, and opens another when that one ends', async () => {
    const three = [0, 1, 2].map((index) => open({ index }));
    await Promise.all(three.map((session) => session.start()));
    const beats = (nodeId: string): number => dispatcher.heartbeats.filter((beat) => beat.nodeId === nodeId).length;
    await eventually('heartbeats from each node', () => three.every((session) => beats(session.nodeId!) >= 2), WITHIN);
    expect(dispatcher.heartbeatStreams).toBe(1);
    dispatcher.endHeartbeatStreams();
    const before = three.map((session) => beats(session.nodeId!));
    await eventually('heartbeats from each node again', () => three.every((session, i) => beats(session.nodeId!) >= before[i]! + 2), WITHIN);
    expect(dispatcher.heartbeatStreams).toBe(2);
    expect(dispatcher.heartbeatCalls).toBe(0);
    expect(dispatcher.unknownHeartbeats).toEqual([]);
    expect(three.every((session) => session.connected)).toBe(true);
  });

  it('takes a shorter heartbeat period at once, not after the longer one it was waiting out', async () => {
    dispatcher.heartbeatPeriodMs = 60_000;
    const session = open();
    await session.start();
    expect(session.heartbeatPeriodMs).toBe(60_000);
    dispatcher.tellPeriod(session.nodeId!, 40);
    await eventually('heartbeats at the new period', () => dispatcher.heartbeats.length >= 3, WITHIN);
    expect(session.heartbeatPeriodMs).toBe(40);
    dispatcher.tellPeriod(session.nodeId!, 60_000);
    await eventually('the longer period taken', () => session.heartbeatPeriodMs === 60_000, WITHIN);
  });

  it('never puts off a heartbeat already due sooner than a new period asks', async () => {
    dispatcher.heartbeatPeriodMs = 500;
    const session = open();
    await session.start();
    // Due within 500 ms; told a minute, then half a minute, the heartbeat still goes out on time.
    dispatcher.tellPeriod(session.nodeId!, 60_000);
    dispatcher.tellPeriod(session.nodeId!, 30_000);
    await eventually('the heartbeat that was due', () => session.heartbeatPeriodMs === 30_000 && dispatcher.heartbeats.length >= 1, { timeoutMs: 5_000, everyMs: 10 });
  });

  it('runs the COMPLETE set, then follows INCREMENTAL changes: new tasks, desired SHUTDOWN, removal', async () => {
    dispatcher.initialAssignments.set('node-1', complete(update(assignment('a')), update(assignment('b'))));
    const session = open();
    await session.start();
    await eventually('a and b running', () => statesOf('a').includes(TaskState.RUNNING) && statesOf('b').includes(TaskState.RUNNING), WITHIN);
    // Only forward, and RUNNING once (the states on the way up may be replaced by a later one before they go out).
    expect(statesOf('a')).toEqual([...statesOf('a')].sort((x, y) => x - y));
    expect(statesOf('a').filter((state) => state === TaskState.RUNNING)).toHaveLength(1);

    dispatcher.push('node-1', incremental(update(assignment('a', [], { desiredState: TaskState.SHUTDOWN })), update(assignment('c', ['SIM_RUN_FOR=30ms', 'SIM_EXIT_CODE=2']))));
    await eventually('a shut down', () => statesOf('a').includes(TaskState.SHUTDOWN), WITHIN);
    await eventually('c failed', () => statesOf('c').includes(TaskState.FAILED), WITHIN);
    expect(dispatcher.statuses.find((status) => status.taskId === 'c' && status.state === TaskState.FAILED)).toMatchObject({ hasExitCode: true, exitCode: 2 });

    dispatcher.push('node-1', incremental(remove('b')));
    await eventually('b forgotten', () => session.worker.size === 2, WITHIN);
    expect(session.worker.statuses().map((status) => status.taskId).sort()).toEqual(['a', 'c']);

    // A new COMPLETE set replaces the whole set: what is not in it goes.
    dispatcher.push('node-1', complete(update(assignment('c', [], { observedState: TaskState.FAILED }))));
    await eventually('only c left', () => session.worker.size === 1, WITHIN);
  });

  it('batches status updates: many statuses in few calls, none larger than the batch limit', async () => {
    dispatcher.initialAssignments.set('node-1', complete(...Array.from({ length: 30 }, (_, i) => update(assignment(`t${i}`, ['SIM_START_DELAY=20ms'])))));
    const session = open({ batch: { maxDelayMs: 50, maxItems: 12 } });
    await session.start();
    await eventually('thirty running', () => dispatcher.statuses.filter((status) => status.state === TaskState.RUNNING).length === 30, WITHIN);
    const sizes = dispatcher.statusCalls.map((call) => call.updates.length);
    expect(dispatcher.statuses.length).toBeGreaterThanOrEqual(30);
    expect(sizes.length).toBeLessThan(dispatcher.statuses.length / 2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(12);
    for (const call of dispatcher.statusCalls) expect(call).toMatchObject({ nodeId: 'node-1', sessionId: dispatcher.sessionIdOf('node-1') });
  });

  it('reconnects after the session breaks, as the same node, and keeps its tasks', async () => {
    dispatcher.initialAssignments.set('node-1', complete(update(assignment('a'))));
    const changes: boolean[] = [];
    const session = open({ onConnectionChange: (connected) => changes.push(connected) });
    await session.start();
    await eventually('a running', () => statesOf('a').includes(TaskState.RUNNING), WITHIN);
    const firstSession = session.sessionId;

    dispatcher.breakSessions();
    await eventually('a second session', () => dispatcher.sessionRequests.length === 2 && session.connected && dispatcher.hasAssignments('node-1'), WITHIN);
    expect(dispatcher.sessionRequests[1]?.nodeId).toBe('node-1');
    expect(session.sessionId).not.toBe(firstSession);
    expect(changes).toEqual([true, false, true]);
    // The same task, not a second run of it.
    const running = session.worker.statuses().find((status) => status.taskId === 'a');
    expect(running?.state).toBe(TaskState.RUNNING);
    // Said again to the new session perhaps, but always the one run: the same RUNNING.
    expect(new Set(dispatcher.statuses.filter((status) => status.taskId === 'a' && status.state === TaskState.RUNNING).map((status) => status.at))).toEqual(new Set([running!.at]));

    dispatcher.push('node-1', incremental(update(assignment('a', [], { desiredState: TaskState.SHUTDOWN }))));
    await eventually('a shut down over the new session', () => statesOf('a').includes(TaskState.SHUTDOWN), WITHIN);
  });

  it('opens a new session when the dispatcher no longer knows its session, and sends the statuses there', async () => {
    // No heartbeat in the meantime: the status update is what finds the session gone.
    dispatcher.heartbeatPeriodMs = 60_000;
    const session = open();
    await session.start();
    await eventually('the assignments stream', () => dispatcher.hasAssignments('node-1'), WITHIN);
    const first = session.sessionId;
    dispatcher.forgetSession('node-1');
    dispatcher.push('node-1', incremental(update(assignment('x', ['SIM_RUN_FOR=10ms']))));
    await eventually('x complete, reported', () => statesOf('x').includes(TaskState.COMPLETE), WITHIN);
    expect(dispatcher.sessionRequests).toHaveLength(2);
    expect(session.sessionId).not.toBe(first);
    expect(statesOf('x').slice(-2)).toEqual([TaskState.RUNNING, TaskState.COMPLETE]);
    expect(new Set(dispatcher.statusCalls.map((call) => call.sessionId))).toEqual(new Set([session.sessionId]));
  });

  it('reconnects to a dispatcher that comes back on the same address', async () => {
    const session = open();
    await session.start();
    const port = Number(dispatcher.address.split(':')[1]);
    await dispatcher.stop();
    await eventually('the session to drop', () => !session.connected, WITHIN);
    dispatcher = await FakeDispatcher.start(port);
    await eventually('the session to come back', () => session.connected, WITHIN);
    expect(dispatcher.sessionRequests[0]?.nodeId).toBe('node-1');
  });

  it('says again a status the log lost: the COMPLETE set shows an older state than the agent saw', async () => {
    dispatcher.initialAssignments.set('node-1', complete(update(assignment('a'))));
    const session = open();
    await session.start();
    await eventually('a running', () => statesOf('a').includes(TaskState.RUNNING), WITHIN);
    const before = dispatcher.statuses.length;
    dispatcher.push('node-1', complete(update(assignment('a', [], { observedState: TaskState.STARTING }))));
    await eventually('a status re-sent', () => dispatcher.statuses.length > before, WITHIN);
    expect(dispatcher.statuses.slice(before)).toEqual([expect.objectContaining({ taskId: 'a', state: TaskState.RUNNING })]);
  });

  it('follows a redirect to the dispatcher that owns the cluster', async () => {
    const owner = await FakeDispatcher.start();
    try {
      dispatcher.redirectTo = owner.address;
      const session = open();
      await session.start();
      expect(session.dispatcher).toBe(owner.address);
      expect(owner.connectedNodes).toEqual(['node-1']);
    } finally {
      await Promise.all(sessions.splice(0).map((session) => session.stop()));
      await owner.stop();
    }
  });

  it('goes back to the dispatcher it was told to use when the one it was sent to is gone', async () => {
    const owner = await FakeDispatcher.start();
    dispatcher.redirectTo = owner.address;
    const session = open();
    await session.start();
    expect(session.dispatcher).toBe(owner.address);
    // The owner goes away and the first dispatcher takes over.
    dispatcher.redirectTo = undefined;
    await owner.stop();
    await eventually('the node back on the first dispatcher', () => dispatcher.connectedNodes.includes('node-1'), WITHIN);
    expect(session.dispatcher).toBe(dispatcher.address);
    expect(dispatcher.sessionRequests.at(-1)?.nodeId).toBe('node-1');
  });

  it('moves on to the next dispatcher it was given when the one it uses is gone, as the same node', async () => {
    const other = await FakeDispatcher.start();
    try {
      other.heartbeatPeriodMs = 40;
      const session = open({ dispatchers: [dispatcher.address, other.address] });
      await session.start();
      expect(session.dispatcher).toBe(dispatcher.address);
      await dispatcher.stop();
      await eventually('the node on the other dispatcher', () => other.connectedNodes.includes('node-1'), WITHIN);
      expect(session.dispatcher).toBe(other.address);
      expect(other.sessionRequests[0]?.nodeId).toBe('node-1');
      // and back round to the first, should that come back when the other goes
      const port = Number(dispatcher.address.split(':')[1]);
      dispatcher = await FakeDispatcher.start(port);
      await other.stop();
      await eventually('the node back on the first dispatcher', () => dispatcher.connectedNodes.includes('node-1'), WITHIN);
    } finally {
      await Promise.all(sessions.splice(0).map((session) => session.stop()));
      await other.stop();
    }
  });

  it('learns where the other dispatchers are from its session, and moves on to one it was never given when its own is gone', async () => {
    const other = await FakeDispatcher.start();
    try {
      other.heartbeatPeriodMs = 40;
      const lines: string[] = [];
      const session = open({ log: (line) => lines.push(line) });
      await session.start();
      expect(session.dispatchers).toEqual([dispatcher.address]);
      // A standby joins the active one's lease: the active dispatcher says so on the session.
      dispatcher.tellDispatchers('node-1', [dispatcher.address, other.address]);
      await eventually('the standby known', () => session.dispatchers.includes(other.address), WITHIN);
      expect(session.dispatchers).toEqual([dispatcher.address, other.address]);
      expect(lines).toContain(`dispatchers known: ${dispatcher.address}, ${other.address}`);
      // A message that lists none (an older dispatcher's) leaves what it knows as it is.
      dispatcher.dispatchers = [];
      dispatcher.tellPeriod('node-1', 30);
      await eventually('the new period taken', () => session.heartbeatPeriodMs === 30, WITHIN);
      expect(session.dispatchers).toEqual([dispatcher.address, other.address]);
      await dispatcher.stop();
      await eventually('the node on the dispatcher it learned of', () => other.connectedNodes.includes('node-1'), WITHIN);
      expect(session.dispatcher).toBe(other.address);
      expect(other.sessionRequests[0]?.nodeId).toBe('node-1');
    } finally {
      await Promise.all(sessions.splice(0).map((session) => session.stop()));
      await other.stop();
    }
  });

  it('tries the dispatchers the session listed first, then those it was given that the list left out', async () => {
    const other = await FakeDispatcher.start();
    try {
      other.heartbeatPeriodMs = 40;
      const given = '127.0.0.1:1';
      const session = open({ dispatchers: [dispatcher.address, given] });
      await session.start();
      dispatcher.tellDispatchers('node-1', [dispatcher.address, other.address]);
      await eventually('the list learned', () => session.dispatchers.length === 3, WITHIN);
      expect(session.dispatchers).toEqual([dispatcher.address, other.address, given]);
    } finally {
      await Promise.all(sessions.splice(0).map((session) => session.stop()));
      await other.stop();
    }
  });

  it("answers a log subscription on its session with its tasks' output, then closes it, and takes the message as no period or dispatcher change", async () => {
    dispatcher.initialAssignments.set('node-1', complete(update(assignment('a')), update(assignment('z', [], { serviceId: 'svc-9' }))));
    const session = open();
    await session.start();
    await eventually('a running', () => statesOf('a').includes(TaskState.RUNNING), WITHIN);
    const sessionId = session.sessionId;
    dispatcher.sendLogSubscriptions('node-1', {
      id: 'sub-1',
      selector: { serviceIds: ['svc-1'], taskIds: [] },
      options: { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0 },
      close: false,
    });
    await eventually('the subscription answered and closed', () => dispatcher.publications.get('sub-1')?.ended, WITHIN);
    expect(dispatcher.publications.get('sub-1')).toMatchObject({ nodeId: 'node-1', sessionId, closed: true });
    expect(dispatcher.publishedLines('sub-1')).toEqual([
      expect.objectContaining({ taskId: 'a', stream: 'STDOUT', data: Buffer.from('simulated task: image busybox; nothing runs on this simulated node\n') }),
    ]);
    expect(Date.parse(dispatcher.publishedLines('sub-1')[0]!.at)).toBeGreaterThan(0);
    // The message had period 0 and no dispatchers: the session goes on as it was.
    expect(session.heartbeatPeriodMs).toBe(40);
    expect(session.dispatchers).toEqual([dispatcher.address]);
    expect(session.sessionId).toBe(sessionId);
    expect(session.connected).toBe(true);
  });

  it('follows a subscription: a task given later is published, until the dispatcher closes it; a session that ends cancels what it follows', async () => {
    const session = open();
    await session.start();
    const follow = { stdout: true, stderr: true, follow: true, tail: -1, sinceMs: 0 };
    dispatcher.sendLogSubscriptions('node-1', { id: 'sub-f', selector: { serviceIds: [], taskIds: ['b'] }, options: follow, close: false });
    await eventually('the assignments stream', () => dispatcher.hasAssignments('node-1'), WITHIN);
    dispatcher.push('node-1', incremental(update(assignment('b'))));
    await eventually("b's line published", () => dispatcher.publishedLines('sub-f').length === 1, WITHIN);
    expect(dispatcher.publishedLines('sub-f')[0]).toMatchObject({ taskId: 'b', stream: 'STDOUT' });
    expect(dispatcher.publications.get('sub-f')).toMatchObject({ closed: false, ended: false });
    dispatcher.sendLogSubscriptions('node-1', { id: 'sub-f', selector: { serviceIds: [], taskIds: ['b'] }, options: follow, close: true });
    await eventually('the subscription closed', () => dispatcher.publications.get('sub-f')?.ended, WITHIN);
    expect(dispatcher.publications.get('sub-f')?.closed).toBe(true);

    dispatcher.sendLogSubscriptions('node-1', { id: 'sub-g', selector: { serviceIds: ['svc-1'], taskIds: [] }, options: follow, close: false });
    await eventually("b's line published again", () => dispatcher.publishedLines('sub-g').length === 1, WITHIN);
    dispatcher.breakSessions();
    // Cut off, not closed: the node did not say it had sent all.
    await eventually('the call over', () => dispatcher.publications.get('sub-g')?.ended, WITHIN);
    expect(dispatcher.publications.get('sub-g')?.closed).toBe(false);
  });

  it('needs at least one dispatcher', () => {
    expect(() => open({ dispatchers: [] })).toThrow('an agent session needs the address of at least one dispatcher');
  });

  it('fails for good when the node was removed from the cluster', async () => {
    dispatcher.removedNodes.add('node-9');
    const session = open({ nodeId: 'node-9' });
    await expect(session.start()).rejects.toThrow(`the dispatcher at ${dispatcher.address} refused this node: node node-9 was removed from the cluster`);
    expect(session.error).toMatchObject({ name: 'JoinRefusedError', code: 7 });
  });

  it('fails clearly, and for good, when the join token is refused', async () => {
    const session = open({ joinToken: 'SWMTKN-1-wrong' });
    await expect(session.start()).rejects.toThrow(JoinRefusedError);
    expect(session.error?.message).toBe(`the dispatcher at ${dispatcher.address} refused the join token: invalid join token`);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(dispatcher.sessionRequests).toHaveLength(1);
    expect(session.connected).toBe(false);
  });
});
