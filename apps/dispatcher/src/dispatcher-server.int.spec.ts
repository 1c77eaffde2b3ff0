/**
 * The dispatcher on a real broker, dialled by a real gRPC client of the agent protocol:
 * registration, assignments (and the configs that go with them), statuses on the log,
 * heartbeats (on the stream agents keep, and one a call) and their expiry, orphans, refusals.
 */
import { randomUUID } from 'node:crypto';
import { credentials, status } from '@grpc/grpc-js';
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { JoinTokens } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { DISPATCHER_REDIRECT_KEY, DispatcherClient } from '@shoal/protocol';
import type { SessionMessage } from '@shoal/protocol';
import { EventWriter, newJoinTokens } from '@shoal/runtime';
import { KafkaTestTopic, eventsOn, eventually, newTask, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { DispatcherServer } from './dispatcher-server';
import { Heartbeats, WITHIN_MS, findEvent, keepAlive, openAssignments, openSession, sampleOf, startStandby, statusOf, unary } from './testing/grpc-agent';
import type { Client } from './testing/grpc-agent';

describe('dispatcher on a real broker, with a gRPC agent', () => {
  const cluster = `c-${randomUUID().slice(0, 8)}`;
  const topic = new KafkaTestTopic('dispatcher-int');
  const spec = serviceSpec('web', { kind: 'replicated', replicas: 1 });
  let log: EventLog;
  let tokens: JoinTokens;
  let server: DispatcherServer;
  let client: Client;
  const lines: string[] = [];
  const writers: EventWriter[] = [];
  const as = (component: 'api' | 'orchestrator' | 'allocator' | 'scheduler' | 'reaper'): EventWriter => {
    const writer = new EventWriter(log, cluster, component, `${component}-test-${writers.length}`);
    writers.push(writer);
    return writer;
  };
  const closing: (() => Promise<void> | void)[] = [];

  beforeAll(async () => {
    log = await topic.open();
    tokens = newJoinTokens(cluster);
    const api = as('api');
    await api.append([
      api.propose('ClusterInitialized', {
        spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 1_000 }, nodeDownPeriodMs: 1_500 },
        tokens: keptJoinTokens(tokens),
      }),
      api.propose('ServiceCreated', { id: 's1', spec }),
    ]);
    server = new DispatcherServer(log, { cluster, log: (line) => lines.push(line) });
    const { port } = await server.start();
    await server.runner!.untilActive();
    client = new DispatcherClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    for (const close of closing) await close();
    client?.close();
    await server?.stop();
    await topic.close();
  });

  it('refuses a wrong or rotated-out token with UNAUTHENTICATED and says why', async () => {
    const foreign = openSession(client, newJoinTokens('another-cluster').worker);
    expect(await foreign.end()).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/another cluster/) });
    const rotated = openSession(client, newJoinTokens(cluster).worker);
    expect(await rotated.end()).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/rotated/) });
    expect(foreign.messages).toEqual([]);
  });

  it('registers a node, hands it its tasks, puts its statuses on the log; a silent node goes DOWN, its tasks ORPHANED; it comes back READY', async () => {
    const session = openSession(client, tokens.worker);
    const first = await session.next(0);
    expect(first).toMatchObject({ heartbeatPeriodMs: 1_000 });
    const { nodeId, sessionId } = first;
    expect(nodeId).toMatch(/^[0-9a-z]{25}$/);
    const stopBeating = keepAlive(client, nodeId, sessionId);
    closing.push(stopBeating);

    const registered = await findEvent(log, 'NodeRegistered', (e) => e.data.id === nodeId);
    expect(registered.data).toMatchObject({
      role: 'worker',
      addr: '127.0.0.1',
      description: {
        hostname: 'worker-1',
        platform: { os: 'linux', architecture: 'x86_64' },
        resources: { nanoCpus: 2e9, memoryBytes: 2 ** 30, generic: [{ kind: 'gpu', discrete: 1 }] },
        engine: { version: '28.2.2', labels: { zone: 'a' }, plugins: [{ type: 'Volume', name: 'local' }] },
      },
    });

    const assignments = openAssignments(client, nodeId, sessionId);
    expect(await assignments.next(0)).toEqual({ type: 'COMPLETE', changes: [], configs: [] });

    const [orchestrator, allocator, scheduler] = [as('orchestrator'), as('allocator'), as('scheduler')];
    await orchestrator.append([orchestrator.propose('TasksCreated', { tasks: [newTask('t1', 's1', spec), newTask('t2', 's1', spec, { slot: 2 })] })]);
    await allocator.append([allocator.propose('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }, { id: 't2', attachments: [] }] })]);
    await scheduler.append([scheduler.propose('TasksAssigned', { tasks: [{ id: 't1', nodeId, why: 'test' }] })]);

    const incremental = await assignments.next(1);
    expect(incremental.type).toBe('INCREMENTAL');
    expect(incremental.changes).toHaveLength(1);
    expect(incremental.changes[0]).toMatchObject({
      action: 'UPDATE',
      assignment: { taskId: 't1', serviceId: 's1', serviceName: 'web', slot: 1, desiredState: TaskState.RUNNING, observedState: TaskState.ASSIGNED },
    });
    expect(JSON.parse(incremental.changes[0]!.assignment.specJson)).toEqual(spec.task);

    await unary(client, 'updateTaskStatus', { nodeId, sessionId, updates: [statusOf('t1', TaskState.RUNNING), statusOf('t2', TaskState.RUNNING)] });
    const reported = await findEvent(log, 'TaskStatusesReported', (e) => e.data.nodeId === nodeId);
    expect(reported.data.statuses).toEqual([expect.objectContaining({ id: 't1', state: TaskState.RUNNING, message: 'started' })]);
    expect(lines).toContain(`ignoring a status from node ${nodeId} for task t2: it is not assigned to that node`);

    // The agent goes silent: DOWN after period × 3, then its running task is ORPHANED.
    await stopBeating();
    const down = await findEvent(log, 'NodeStatusChanged', (e) => e.data.nodes.some((n) => n.id === nodeId && n.state === 'down'));
    expect(down.data.nodes[0]).toMatchObject({ message: 'heartbeat failure' });
    expect(await session.end()).toMatchObject({ code: status.UNAVAILABLE, details: expect.stringMatching(/heartbeat failure/) });
    await findEvent(log, 'TaskStatusesReported', (e) => e.data.statuses.some((s) => s.id === 't1' && s.state === TaskState.ORPHANED));
    // A heartbeat one a call, as older agents send them, for the session that expired.
    await expect(unary(client, 'heartbeat', { nodeId, sessionId })).rejects.toMatchObject({ code: status.NOT_FOUND });

    // It reconnects with its id: READY again, same node.
    const again = openSession(client, tokens.worker, nodeId);
    expect((await again.next(0)).nodeId).toBe(nodeId);
    const registrations = (await eventsOn(log)).filter((e) => e.type === 'NodeRegistered');
    expect(registrations.map((e) => e.type === 'NodeRegistered' && e.data.id)).toEqual([nodeId, nodeId]);
    await eventually('the node READY again', () => server.runner!.view.state.nodes.get(nodeId)?.status.state === 'ready', WITHIN_MS);
    expect(server.runner!.view.state.nodes.size).toBe(1);
    again.stream.cancel();
  });

  it('sends a node the bytes of a config with the task that uses it, and removes the config with the task', async () => {
    const data = Buffer.from('listen 8080;\n\u0000binary-safe\n');
    const reference = { configId: 'cfg-nginx', configName: 'nginx.conf', file: { name: '/etc/nginx/nginx.conf', uid: '0', gid: '0', mode: 0o444 } };
    const withConfig = serviceSpec('configured', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'nginx', configs: [reference] } } });
    const api = as('api');
    await api.append([
      api.propose('ConfigCreated', { id: 'cfg-nginx', spec: { name: 'nginx.conf', data: data.toString('base64') } }),
      api.propose('ServiceCreated', { id: 's-cfg', spec: withConfig }),
    ]);
    const session = openSession(client, tokens.worker);
    const { nodeId, sessionId } = await session.next(0);
    closing.push(keepAlive(client, nodeId, sessionId));
    await findEvent(log, 'NodeRegistered', (e) => e.data.id === nodeId);
    const assignments = openAssignments(client, nodeId, sessionId);
    closing.push(() => assignments.stream.cancel());
    expect(await assignments.next(0)).toEqual({ type: 'COMPLETE', changes: [], configs: [] });

    const [orchestrator, allocator, scheduler, reaper] = [as('orchestrator'), as('allocator'), as('scheduler'), as('reaper')];
    await orchestrator.append([orchestrator.propose('TasksCreated', { tasks: [newTask('c1', 's-cfg', withConfig)] })]);
    await allocator.append([allocator.propose('TasksAllocated', { tasks: [{ id: 'c1', attachments: [] }] })]);
    await scheduler.append([scheduler.propose('TasksAssigned', { tasks: [{ id: 'c1', nodeId, why: 'test' }] })]);
    const added = await assignments.next(1);
    expect(added.changes.map((change) => `${change.action} ${change.assignment.taskId}`)).toEqual(['UPDATE c1']);
    expect(added.configs).toEqual([{ action: 'UPDATE', config: { id: 'cfg-nginx', name: 'nginx.conf', data, secret: false } }]);

    // The task ends and the reaper removes it: the node loses the config with it.
    await unary(client, 'updateTaskStatus', { nodeId, sessionId, updates: [statusOf('c1', TaskState.RUNNING), statusOf('c1', TaskState.COMPLETE)] });
    await eventually('c1 COMPLETE in the view', () => server.runner!.view.state.tasks.get('c1')?.status.state === TaskState.COMPLETE, WITHIN_MS);
    await reaper.append([reaper.propose('TasksRemoved', { tasks: [{ id: 'c1', reason: 'history' }] })]);
    const removed = await assignments.next(2);
    expect(removed.changes.map((change) => `${change.action} ${change.assignment.taskId}`)).toEqual(['REMOVE c1']);
    expect(removed.configs.map((change) => `${change.action} ${change.config.id}`)).toEqual(['REMOVE cfg-nginx']);
    expect(assignments.messages).toHaveLength(3);
  });

  it('ends the session of a node removed from the cluster, and refuses its id afterwards', async () => {
    const session = openSession(client, tokens.worker);
    const { nodeId, sessionId } = await session.next(0);
    const stopBeating = keepAlive(client, nodeId, sessionId);
    closing.push(stopBeating);
    await findEvent(log, 'NodeRegistered', (e) => e.data.id === nodeId);
    const api = as('api');
    await api.append([api.propose('NodeRemoved', { id: nodeId, force: true })]);
    expect(await session.end()).toMatchObject({ code: status.PERMISSION_DENIED, details: expect.stringMatching(/removed from the cluster/) });
    const back = openSession(client, tokens.worker, nodeId);
    expect(await back.end()).toMatchObject({ code: status.PERMISSION_DENIED, details: expect.stringMatching(/join again as a new node/) });
  });

  it('takes the statuses of many sessions in one UpdateTaskStatuses call, one record per node, and names the sessions it does not know', async () => {
    const opened = await Promise.all([openSession(client, tokens.worker), openSession(client, tokens.worker)].map((s) => s.next(0)));
    for (const { nodeId, sessionId } of opened) closing.push(keepAlive(client, nodeId, sessionId));
    const [a, b] = opened as [SessionMessage, SessionMessage];
    await findEvent(log, 'NodeRegistered', (e) => e.data.id === b.nodeId);
    const [orchestrator, allocator, scheduler] = [as('orchestrator'), as('allocator'), as('scheduler')];
    await orchestrator.append([orchestrator.propose('TasksCreated', { tasks: [newTask('m1', 's1', spec, { slot: 3 }), newTask('m2', 's1', spec, { slot: 4 })] })]);
    await allocator.append([allocator.propose('TasksAllocated', { tasks: [{ id: 'm1', attachments: [] }, { id: 'm2', attachments: [] }] })]);
    await scheduler.append([scheduler.propose('TasksAssigned', { tasks: [{ id: 'm1', nodeId: a.nodeId, why: 'test' }, { id: 'm2', nodeId: b.nodeId, why: 'test' }] })]);
    await eventually('both assigned in the dispatcher', () => server.core.tasksOf(b.nodeId).has('m2'), WITHIN_MS);

    const answer = await unary<{ unknownSessions: string[] }>(client, 'updateTaskStatuses', {
      sessions: [
        { nodeId: a.nodeId, sessionId: a.sessionId, updates: [statusOf('m1', TaskState.RUNNING)] },
        { nodeId: b.nodeId, sessionId: b.sessionId, updates: [statusOf('m2', TaskState.STARTING), statusOf('m2', TaskState.RUNNING)] },
        { nodeId: a.nodeId, sessionId: 'an-expired-session', updates: [statusOf('m1', TaskState.COMPLETE)] },
      ],
    });
    expect(answer.unknownSessions).toEqual(['an-expired-session']);
    const ofA = await findEvent(log, 'TaskStatusesReported', (e) => e.data.nodeId === a.nodeId);
    const ofB = await findEvent(log, 'TaskStatusesReported', (e) => e.data.nodeId === b.nodeId);
    expect(ofA.data.statuses.map((s) => [s.id, s.state])).toEqual([['m1', TaskState.RUNNING]]);
    expect(ofB.data.statuses.map((s) => [s.id, s.state])).toEqual([['m2', TaskState.STARTING], ['m2', TaskState.RUNNING]]);
  });

  it('keeps sessions alive with the heartbeats of many on one stream, counts those of sessions it does not know, and answers when the agent ends it', async () => {
    const opened = await Promise.all([openSession(client, tokens.worker), openSession(client, tokens.worker)].map((s) => s.next(0)));
    const [a, b] = opened as [SessionMessage, SessionMessage];
    await findEvent(log, 'NodeRegistered', (e) => e.data.id === b.nodeId);
    const heartbeats = new Heartbeats(client);
    // Four seconds of heartbeats: beyond the 3 s (period × 3) a silent node is given.
    const started = Date.now();
    let sent = 0;
    while (Date.now() - started < 4_000) {
      heartbeats.beat(a.nodeId, a.sessionId);
      heartbeats.beat(b.nodeId, b.sessionId);
      sent += 2;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    heartbeats.beat(a.nodeId, 'an-expired-session');
    for (const { nodeId } of opened) expect(server.runner!.view.state.nodes.get(nodeId)?.status.state).toBe('ready');
    expect(await heartbeats.end()).toEqual({ error: null, response: { taken: sent, unknown: 1 } });
    // Once the stream ends, they are silent: DOWN.
    await findEvent(log, 'NodeStatusChanged', (e) => e.data.nodes.some((n) => n.id === a.nodeId && n.state === 'down'));
    const down = (await eventsOn(log)).filter((e) => e.type === 'NodeStatusChanged' && e.data.nodes.some((n) => n.id === a.nodeId));
    expect(Date.parse(down[0]!.at)).toBeGreaterThanOrEqual(started + 4_000);
  });

  it('a standby instance refuses sessions with FAILED_PRECONDITION, names the active one, and takes over when it stops', async () => {
    const { standby, log: standbyLog, port } = await startStandby(topic, 'dispatcher-int-standby', cluster, closing);
    expect(standby.runner!.state).toBe('standby');
    const other = new DispatcherClient(`127.0.0.1:${port}`, credentials.createInsecure());
    closing.push(() => other.close());
    const refused = openSession(other, tokens.worker);
    expect(await refused.end()).toMatchObject({ code: status.FAILED_PRECONDITION, details: expect.stringMatching(/not the active dispatcher/) });
    expect(refused.trailers?.get(DISPATCHER_REDIRECT_KEY)).toEqual([server.address]);
    const refusedBeats = new Heartbeats(other);
    refusedBeats.beat('a-node', 'a-session');
    const { error } = await refusedBeats.answer();
    expect(error).toMatchObject({ code: status.FAILED_PRECONDITION, details: expect.stringMatching(/not the active dispatcher/) });
    expect(error?.metadata.get(DISPATCHER_REDIRECT_KEY)).toEqual([server.address]);

    // A node READY under the active one, which then stops: the standby takes over under a
    // newer term and serves agents; the node, which does not come back, goes DOWN.
    const leaving = openSession(client, tokens.worker);
    const left = await leaving.next(0);
    // The active one tells its agents where the standby is: they can go there should it take over.
    const listing = (received: typeof leaving, dispatchers: (string | undefined)[]) => () =>
      received.messages.find((message) => message.dispatchers.join(',') === dispatchers.join(','));
    await eventually('the standby listed to the agent', listing(leaving, [server.address, standby.address]), WITHIN_MS);
    expect(server.dispatchers).toEqual([server.address, standby.address]);
    await findEvent(log, 'NodeRegistered', (e) => e.data.id === left.nodeId);
    const lastSeen = (): number => server.sessions.get(left.nodeId)?.lastSeen ?? 0;
    const opened = lastSeen();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const heartbeats = new Heartbeats(client);
    heartbeats.beat(left.nodeId, left.sessionId);
    await eventually('the heartbeat taken', () => lastSeen() > opened, WITHIN_MS);
    await server.stop();
    // Its open Heartbeats streams are answered as it stops, not left to hold the server up.
    expect((await heartbeats.answer()).error).toMatchObject({ code: status.UNAVAILABLE, details: 'the dispatcher is stopping' });
    await standby.runner!.untilActive();
    expect(standby.runner!.term).toBe(2);
    const joined = openSession(other, tokens.worker);
    const { nodeId } = await joined.next(0);
    closing.unshift(() => joined.stream.cancel());
    // The instance that stopped left the lease's group: the new active one lists only itself.
    await eventually('the stopped instance no longer listed', listing(joined, [standby.address]), WITHIN_MS);
    expect(standby.dispatchers).toEqual([standby.address]);
    await findEvent(standbyLog, 'NodeRegistered', (e) => e.data.id === nodeId && e.by.instance.endsWith(`@${standby.address}`));
    // A node that was READY under the old dispatcher and does not come back goes DOWN after the grace period.
    await findEvent(standbyLog, 'NodeStatusChanged', (e) => e.by.term === 2 && e.data.nodes.some((n) => n.id === left.nodeId && n.state === 'down'));
  });
});

describe("the dispatcher's /metrics, on a real broker", () => {
  const cluster = `c-${randomUUID().slice(0, 8)}`;
  const topic = new KafkaTestTopic('dispatcher-metrics-int');
  let log: EventLog;
  let tokens: JoinTokens;
  let server: DispatcherServer;
  let client: Client;

  beforeAll(async () => {
    log = await topic.open();
    tokens = newJoinTokens(cluster);
    const api = new EventWriter(log, cluster, 'api', 'api-test');
    await api.append([api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 1_000 } }, tokens: keptJoinTokens(tokens) })]);
    server = new DispatcherServer(log, { cluster });
    const { port } = await server.start();
    await server.runner!.untilActive();
    client = new DispatcherClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
    await topic.close();
  });

  it('counts what agents sent: heartbeats by transport and session, open streams, sessions, statuses', async () => {
    const metric = (name: string, labels: Record<string, string> = {}): Promise<number> => sampleOf(server, name, labels);
    const heartbeatsTotal = (transport: 'stream' | 'unary', session: 'known' | 'unknown'): Promise<number> => metric('shoal_dispatcher_heartbeats_total', { transport, session });
    const statusesTotal = (outcome: 'taken' | 'invalid' | 'unknown_session'): Promise<number> => metric('shoal_dispatcher_task_statuses_total', { outcome });
    expect(await metric('shoal_dispatcher_active')).toBe(1);
    const session = openSession(client, tokens.worker);
    const { nodeId, sessionId } = await session.next(0);
    await findEvent(log, 'NodeRegistered', (e) => e.data.id === nodeId);
    expect(await metric('shoal_dispatcher_sessions', { registration: 'open' })).toBe(1);
    // The cluster's period (1 s): one node is far below the cap.
    expect(await metric('shoal_dispatcher_heartbeat_period_seconds')).toBe(1);

    const heartbeats = new Heartbeats(client);
    for (let i = 0; i < 3; i++) heartbeats.beat(nodeId, sessionId);
    heartbeats.beat(nodeId, 'an-expired-session');
    await eventually('the stream heartbeats counted', async () => (await heartbeatsTotal('stream', 'known')) + (await heartbeatsTotal('stream', 'unknown')) === 4, WITHIN_MS);
    expect([await heartbeatsTotal('stream', 'known'), await heartbeatsTotal('stream', 'unknown')]).toEqual([3, 1]);
    expect(await metric('shoal_dispatcher_heartbeat_streams')).toBe(1);
    await unary(client, 'heartbeat', { nodeId, sessionId });
    await expect(unary(client, 'heartbeat', { nodeId, sessionId: 'an-expired-session' })).rejects.toMatchObject({ code: status.NOT_FOUND });
    expect([await heartbeatsTotal('unary', 'known'), await heartbeatsTotal('unary', 'unknown')]).toEqual([1, 1]);
    expect(await heartbeats.end()).toEqual({ error: null, response: { taken: 3, unknown: 1 } });
    expect(await metric('shoal_dispatcher_heartbeat_streams')).toBe(0);

    await unary(client, 'updateTaskStatus', { nodeId, sessionId, updates: [statusOf('t9', TaskState.RUNNING), statusOf('t9', 999)] });
    await expect(
      unary(client, 'updateTaskStatus', { nodeId, sessionId: 'an-expired-session', updates: [statusOf('t9', TaskState.RUNNING), statusOf('t9', TaskState.COMPLETE)] }),
    ).rejects.toMatchObject({ code: status.NOT_FOUND });
    expect([await statusesTotal('taken'), await statusesTotal('invalid'), await statusesTotal('unknown_session')]).toEqual([1, 1, 2]);

    session.stream.cancel();
    await eventually('the session gone', () => server.sessions.size === 0, WITHIN_MS);
    expect(await metric('shoal_dispatcher_sessions', { registration: 'open' })).toBe(0);
    // What /metrics answers: Prometheus' text, a line per sample.
    expect(await server.metrics.text()).toContain('shoal_dispatcher_heartbeats_total{transport="unary",session="unknown"} 1\n');
  });
});
