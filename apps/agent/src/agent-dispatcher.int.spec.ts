/**
 * The agent against the real dispatcher on a real broker: simulated and exec nodes join
 * with the cluster's join token, run what the scheduler assigns them, and their statuses
 * reach the log; a wrong token is refused with the dispatcher's reason; a node follows a
 * dispatcher failover, whether told of a standby only, of both, or of the active one only
 * (it learns of the standby from its session); an exec task's output reaches a Logs
 * subscriber through the dispatcher; an exec task reads the config it was sent, as a file
 * under its root.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials } from '@grpc/grpc-js';
import type { ClientReadableStream } from '@grpc/grpc-js';
import { DEFAULT_CLUSTER_SPEC, MAX_CONFIG_BYTES, TaskState } from '@shoal/contracts';
import type { EventOf, EventType, JoinTokens } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { LogsClient } from '@shoal/protocol';
import type { LogMessage, LogOptionsMessage, SubscribeLogsMessage, SubscribeLogsRequest } from '@shoal/protocol';
import { EventWriter, newJoinTokens } from '@shoal/runtime';
import { KafkaTestTopic, eventsOn, eventually, newTask, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { DispatcherServer } from '../../dispatcher/src/dispatcher-server';
import { AgentSession, JoinRefusedError } from './agent-session';
import { DispatcherChannels } from './dispatcher-channels';
import { ExecExecutor } from './exec-executor';
import { nodeDescription } from './node-description';
import { SimulatedExecutor } from './simulated-executor';
import { SimulatedFleet } from './simulated-fleet';
import { TaskRoots } from './task-root';
import { TimerWheel } from './timers';

/** How long an agent, the dispatcher and the log get to do each thing. */
const WITHIN = { timeoutMs: 30_000, everyMs: 100 };

const eventsOf = async <K extends EventType>(log: EventLog, type: K): Promise<EventOf<K>[]> =>
  (await eventsOn(log)).filter((event): event is EventOf<K> => event.type === type);

/** The states the log has for a task, in order. */
const reportedStates = async (log: EventLog, taskId: string) =>
  (await eventsOf(log, 'TaskStatusesReported')).flatMap((event) => event.data.statuses.filter((status) => status.id === taskId));

describe('the agent with the real dispatcher', () => {
  const cluster = `c-${randomUUID().slice(0, 8)}`;
  const topic = new KafkaTestTopic('agent-int');
  let log: EventLog;
  let tokens: JoinTokens;
  let server: DispatcherServer;
  let address: string;
  const writers: Record<string, EventWriter> = {};
  const as = (component: 'api' | 'orchestrator' | 'allocator' | 'scheduler' | 'reaper'): EventWriter =>
    (writers[component] ??= new EventWriter(log, cluster, component, `${component}-agent-test`));

  /** Puts a task on a node as the managers would: created, allocated, assigned. */
  const assign = async (taskId: string, serviceId: string, spec: ReturnType<typeof serviceSpec>, nodeId: string): Promise<void> => {
    const [orchestrator, allocator, scheduler] = [as('orchestrator'), as('allocator'), as('scheduler')];
    await orchestrator.append([orchestrator.propose('TasksCreated', { tasks: [newTask(taskId, serviceId, spec)] })]);
    await allocator.append([allocator.propose('TasksAllocated', { tasks: [{ id: taskId, attachments: [] }] })]);
    await scheduler.append([scheduler.propose('TasksAssigned', { tasks: [{ id: taskId, nodeId, why: 'test' }] })]);
  };

  const crashing = serviceSpec('crashing', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'busybox', env: ['SIM_RUN_FOR=300ms', 'SIM_EXIT_CODE=3'] } } });
  const shell = serviceSpec('shell', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'busybox', command: ['sh', '-c', 'exit 4'] } } });
  const talker = serviceSpec('talker', { kind: 'replicated', replicas: 1 }, {
    task: { container: { image: 'busybox', command: ['sh', '-c', 'echo ready; echo warned >&2; i=0; while true; do sleep 0.2; i=$((i+1)); echo tick $i; done'] } },
  });
  const greeting = { configId: 'cfg-greeting', configName: 'greeting', file: { name: '/etc/greeting.conf', uid: '0', gid: '0', mode: 0o440 } };
  const reader = serviceSpec('reader', { kind: 'replicated', replicas: 1 }, {
    task: { container: { image: 'busybox', command: ['sh', '-c', 'cat "$SHOAL_TASK_ROOT/etc/greeting.conf"; stat -c "mode %a" "$SHOAL_TASK_ROOT/etc/greeting.conf"'], configs: [greeting] } },
  });

  /** What the service's tasks wrote, as a Logs subscriber that does not follow gets it ("STDOUT line"). */
  const outputOf = async (serviceId: string): Promise<string[]> => {
    const logs = new LogsClient(address, credentials.createInsecure());
    try {
      const stream = (logs as unknown as { subscribeLogs(request: SubscribeLogsRequest): ClientReadableStream<SubscribeLogsMessage> }).subscribeLogs({
        selector: { serviceIds: [serviceId], taskIds: [] },
        options: { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0 },
        managerToken: tokens.manager,
      });
      const lines: string[] = [];
      stream.on('data', (message: SubscribeLogsMessage) => lines.push(...message.messages.map((line) => `${line.stream} ${line.data.toString().trimEnd()}`)));
      await new Promise<void>((resolve, reject) => stream.on('end', resolve).on('error', reject));
      return lines;
    } finally {
      logs.close();
    }
  };

  beforeAll(async () => {
    log = await topic.open();
    tokens = newJoinTokens(cluster);
    const api = as('api');
    await api.append([
      api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 500 } }, tokens: keptJoinTokens(tokens) }),
      api.propose('ServiceCreated', { id: 's-crashing', spec: crashing }),
      api.propose('ServiceCreated', { id: 's-shell', spec: shell }),
      api.propose('ServiceCreated', { id: 's-talker', spec: talker }),
      api.propose('ConfigCreated', { id: 'cfg-greeting', spec: { name: 'greeting', data: Buffer.from('hello from a config\n').toString('base64') } }),
      api.propose('ServiceCreated', { id: 's-reader', spec: reader }),
    ]);
    server = new DispatcherServer(log, { cluster });
    const { port } = await server.start();
    await server.runner!.untilActive();
    address = `127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await server?.stop();
    await topic.close();
  });

  it('a simulated fleet joins, runs an assigned task as its SIM_* env says, and the log has when it ran and how it ended', async () => {
    const fleet = new SimulatedFleet({ dispatchers: [address], joinToken: tokens.worker, nodes: 3, cpus: 2, labels: { zone: ['a', 'b', 'c'] } });
    try {
      await fleet.start();
      expect(fleet.connected).toBe(3);
      const registered = await eventually('three nodes registered', async () => {
        const events = await eventsOf(log, 'NodeRegistered');
        return events.length >= 3 ? events : undefined;
      }, WITHIN);
      expect(registered.map((event) => event.data.description.engine.labels?.zone).sort()).toEqual(['a', 'b', 'c']);
      const nodeId = fleet.nodeIds[1]!;
      expect(registered.map((event) => event.data.id)).toContain(nodeId);

      await assign('t-crash', 's-crashing', crashing, nodeId);
      const statuses = await eventually('the task to fail on the log', async () => {
        const states = await reportedStates(log, 't-crash');
        return states.some((status) => status.state === TaskState.FAILED) ? states : undefined;
      }, WITHIN);
      // Forward only; the states on the way up may have been replaced by RUNNING before they went out.
      const states = statuses.map((status) => status.state);
      expect(states).toEqual([...states].sort((a, b) => a - b));
      expect(states.slice(-2)).toEqual([TaskState.RUNNING, TaskState.FAILED]);
      expect(statuses.at(-1)).toMatchObject({ exitCode: 3, err: 'task exited with code 3' });
    } finally {
      await fleet.stop();
    }
  });

  it('an exec node runs its task as a real process and the exit code reaches the log', async () => {
    const timers = new TimerWheel(25);
    const channels = new DispatcherChannels();
    const executor = new ExecExecutor({ timers, hostname: 'exec-host' });
    const session = new AgentSession({ dispatchers: [address], joinToken: tokens.worker, executor, channels, timers });
    try {
      await session.start();
      await assign('t-shell', 's-shell', shell, session.nodeId!);
      const last = await eventually('the shell task to end on the log', async () => (await reportedStates(log, 't-shell')).find((status) => status.state === TaskState.FAILED), WITHIN);
      expect(last).toMatchObject({ exitCode: 4 });
    } finally {
      await session.stop();
      channels.close();
      await executor.close();
    }
  });

  it("an exec node's task reads the config it was sent, as a file under its root; the file goes with the task, the config with its last task", async () => {
    const timers = new TimerWheel(25);
    const channels = new DispatcherChannels();
    const stateDir = mkdtempSync(join(tmpdir(), 'shoal-agent-configs-'));
    const executor = new ExecExecutor({ timers, hostname: 'exec-configs', roots: new TaskRoots(join(stateDir, 'tasks')) });
    const session = new AgentSession({ dispatchers: [address], joinToken: tokens.worker, executor, channels, timers });
    try {
      await session.start();
      await assign('t-reader', 's-reader', reader, session.nodeId!);
      const last = await eventually('the reader to end on the log', async () => (await reportedStates(log, 't-reader')).find((status) => status.state >= TaskState.COMPLETE), WITHIN);
      expect(last).toMatchObject({ state: TaskState.COMPLETE, exitCode: 0 });
      // What it printed, through the dispatcher: the config's bytes, from a file with the reference's mode.
      const output = await eventually('its output whole', async () => {
        const lines = await outputOf('s-reader');
        return lines.length === 2 ? lines : undefined;
      }, WITHIN);
      expect(output).toEqual(['STDOUT hello from a config', 'STDOUT mode 440']);
      expect(session.worker.heldConfigs().get('cfg-greeting')).toMatchObject({ name: 'greeting' });
      const root = join(stateDir, 'tasks', 't-reader');
      expect(existsSync(join(root, 'etc', 'greeting.conf'))).toBe(true);

      // The reaper removes the ended task: the node forgets it, its root and the config it alone used.
      const reaper = as('reaper');
      await reaper.append([reaper.propose('TasksRemoved', { tasks: [{ id: 't-reader', reason: 'history' }] })]);
      await eventually('the task forgotten', () => (session.worker.size === 0 ? true : undefined), WITHIN);
      await eventually('its root removed', () => (existsSync(root) ? undefined : true), WITHIN);
      expect(session.worker.heldConfigs().size).toBe(0);
    } finally {
      await session.stop();
      channels.close();
      await executor.close();
      rmSync(stateDir, { recursive: true, force: true });
    }
  });

  it("a node whose task uses more config data than gRPC's default 4 MiB message gets all of it with the task", async () => {
    // Five configs of Docker's largest size: the node's set is one message of over 5 MB.
    const big = [1, 2, 3, 4, 5].map((i) => ({ id: `cfg-big-${i}`, bytes: Buffer.alloc(MAX_CONFIG_BYTES, i) }));
    const hoarder = serviceSpec('hoarder', { kind: 'replicated', replicas: 1 }, {
      task: {
        container: {
          image: 'busybox',
          configs: big.map(({ id }) => ({ configId: id, configName: id, file: { name: `/etc/${id}`, uid: '0', gid: '0', mode: 0o444 } })),
        },
      },
    });
    const api = as('api');
    await api.append([
      ...big.map(({ id, bytes }) => api.propose('ConfigCreated', { id, spec: { name: id, data: bytes.toString('base64') } })),
      api.propose('ServiceCreated', { id: 's-hoarder', spec: hoarder }),
    ]);
    const closing: (() => Promise<void> | void)[] = [];
    try {
      const session = nodeThrough([address], tokens.worker, 'hoarder-node', closing);
      await session.start();
      await assign('t-hoarder', 's-hoarder', hoarder, session.nodeId!);
      await eventually('the task running on the log', async () => ((await reportedStates(log, 't-hoarder')).some((status) => status.state === TaskState.RUNNING) ? true : undefined), WITHIN);
      const held = session.worker.heldConfigs();
      expect(big.map(({ id }) => held.get(id)?.data.equals(big.find((config) => config.id === id)!.bytes))).toEqual([true, true, true, true, true]);
    } finally {
      for (const close of closing) await close();
    }
  });

  it("an exec node's task output reaches a Logs subscriber through the dispatcher: what it wrote so far, then, following, what it writes next", async () => {
    const timers = new TimerWheel(25);
    const channels = new DispatcherChannels();
    const executor = new ExecExecutor({ timers, hostname: 'exec-logs' });
    const session = new AgentSession({ dispatchers: [address], joinToken: tokens.worker, executor, channels, timers });
    const logs = new LogsClient(address, credentials.createInsecure());
    const subscribe = (options: Partial<LogOptionsMessage>): ClientReadableStream<SubscribeLogsMessage> =>
      (logs as unknown as { subscribeLogs(request: SubscribeLogsRequest): ClientReadableStream<SubscribeLogsMessage> }).subscribeLogs({
        selector: { serviceIds: ['s-talker'], taskIds: [] },
        options: { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0, ...options },
        managerToken: tokens.manager,
      });
    const text = (message: LogMessage): string => `${message.stream} ${message.data.toString().trimEnd()}`;
    try {
      await session.start();
      await assign('t-talker', 's-talker', talker, session.nodeId!);
      await eventually('the task RUNNING on the log', async () => ((await reportedStates(log, 't-talker')).some((s) => s.state === TaskState.RUNNING) ? true : undefined), WITHIN);

      // Not following: what it has written, and the stream ends.
      const backlog = await eventually('its first tick written', async () => {
        const lines: LogMessage[] = [];
        const stream = subscribe({});
        stream.on('data', (message: SubscribeLogsMessage) => lines.push(...message.messages));
        await new Promise<void>((resolve, reject) => stream.on('end', resolve).on('error', reject));
        return lines.some((line) => text(line) === 'STDOUT tick 1') ? lines : undefined;
      }, WITHIN);
      // Two pipes: which of its first two lines the agent read first is the scheduler's call.
      expect(backlog.slice(0, 2).map(text).sort()).toEqual(['STDERR warned', 'STDOUT ready']);
      for (const line of backlog) expect(line).toMatchObject({ taskId: 't-talker', serviceId: 's-talker', nodeId: session.nodeId });

      // Following, from now on (tail 0): the ticks it writes next, until the caller goes away.
      const seen = Math.max(...backlog.map((line) => Number(/tick (\d+)/.exec(text(line))?.[1] ?? 0)));
      const followed: LogMessage[] = [];
      const following = subscribe({ follow: true, tail: 0 });
      following.on('data', (message: SubscribeLogsMessage) => followed.push(...message.messages));
      following.on('error', () => undefined);
      await eventually('two more ticks followed', () => (followed.length >= 2 ? true : undefined), WITHIN);
      const ticks = followed.map((line) => Number(/^STDOUT tick (\d+)$/.exec(text(line))?.[1]));
      expect(ticks.every((tick, i) => tick > seen && (i === 0 || tick === ticks[i - 1]! + 1))).toBe(true);
      following.cancel();
      await eventually('the subscription over', () => (server.logSubscriptions === 0 ? true : undefined), WITHIN);
    } finally {
      logs.close();
      await session.stop({ stopTasks: true });
      channels.close();
      await executor.close();
    }
  });

  it('a wrong join token is refused with the dispatcher’s reason', async () => {
    const timers = new TimerWheel(25);
    const channels = new DispatcherChannels();
    const session = new AgentSession({ dispatchers: [address], joinToken: newJoinTokens('another-cluster').worker, executor: new ExecExecutor({ timers }), channels, timers });
    try {
      const refused = await session.start().then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(JoinRefusedError);
      expect((refused as Error).message).toMatch(new RegExp(`^the dispatcher at ${address} refused the join token: .*another cluster`));
    } finally {
      await session.stop();
      channels.close();
    }
  });
});

/**
 * A cluster of its own on its own topic, with two dispatchers: the first active, the other
 * standing by. Everything it starts is stopped by `closing`, newest first.
 */
const twoDispatchers = async (name: string, closing: (() => Promise<void> | void)[], specs: Parameters<EventWriter['propose']>[] = []) => {
  const cluster = `c-${randomUUID().slice(0, 8)}`;
  const topic = new KafkaTestTopic(name);
  closing.push(() => topic.close());
  const log = await topic.open();
  const tokens = newJoinTokens(cluster);
  const api = new EventWriter(log, cluster, 'api', `api-${name}`);
  await api.append([
    api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 1_000 } }, tokens: keptJoinTokens(tokens) }),
    ...specs.map((args) => api.propose(...args)),
  ]);
  const active = new DispatcherServer(log, { cluster });
  closing.unshift(() => active.stop());
  await active.start();
  await active.runner!.untilActive();
  const standbyLog = await topic.open(`${name}-standby`);
  const standby = new DispatcherServer(standbyLog, { cluster });
  closing.unshift(async () => {
    // A standby's runner waits for the lease until its log closes.
    const stopping = standby.stop();
    await standbyLog.close();
    await stopping;
  });
  await standby.start();
  expect(standby.runner!.state).toBe('standby');
  return { cluster, log, tokens, active, standby };
};

/** A simulated node's session through `dispatchers`, stopped by `closing`. */
const nodeThrough = (dispatchers: readonly string[], joinToken: string, hostname: string, closing: (() => Promise<void> | void)[]): AgentSession => {
  const timers = new TimerWheel(25);
  const channels = new DispatcherChannels();
  const executor = new SimulatedExecutor(nodeDescription({ hostname, nanoCpus: 1e9, memoryBytes: 2 ** 30, engineVersion: 'sim' }), timers);
  const session = new AgentSession({ dispatchers, joinToken, executor, channels, timers, backoff: { initialMs: 100, maxMs: 1_000 } });
  closing.unshift(async () => {
    await session.stop();
    channels.close();
  });
  return session;
};

describe('the agent through a dispatcher failover', () => {
  const closing: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const close of closing) await close();
  });

  it('a node told to use a standby is sent to the active one, and comes back to the standby when it takes over, as the same node, its task still running', async () => {
    const forever = serviceSpec('forever', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'busybox' } } });
    const { cluster, log, tokens, active, standby } = await twoDispatchers('agent-failover', closing, [['ServiceCreated', { id: 's-forever', spec: forever }]]);
    const session = nodeThrough([standby.address!], tokens.worker, 'failover-1', closing);
    await session.start();
    expect(session.dispatcher).toBe(active.address);
    const nodeId = session.nodeId!;

    const [orchestrator, allocator, scheduler] = (['orchestrator', 'allocator', 'scheduler'] as const).map((component) => new EventWriter(log, cluster, component, `${component}-failover-test`));
    await orchestrator!.append([orchestrator!.propose('TasksCreated', { tasks: [newTask('t-forever', 's-forever', forever)] })]);
    await allocator!.append([allocator!.propose('TasksAllocated', { tasks: [{ id: 't-forever', attachments: [] }] })]);
    await scheduler!.append([scheduler!.propose('TasksAssigned', { tasks: [{ id: 't-forever', nodeId, why: 'test' }] })]);
    await eventually('the task running on the log', async () => (await reportedStates(log, 't-forever')).find((status) => status.state === TaskState.RUNNING), WITHIN);

    await active.stop();
    await standby.runner!.untilActive();
    await eventually('the node back, on the standby', () => session.connected && session.dispatcher === standby.address, { ...WITHIN, timeoutMs: 60_000 });
    expect(session.nodeId).toBe(nodeId);
    // The same run of the task: not started a second time.
    expect(session.worker.statuses()).toEqual([expect.objectContaining({ taskId: 't-forever', state: TaskState.RUNNING })]);
    // The log's RUNNING is the one run the worker still holds.
    const running = (await reportedStates(log, 't-forever')).filter((status) => status.state === TaskState.RUNNING);
    expect(new Set(running.map((status) => status.at))).toEqual(new Set([session.worker.statuses()[0]!.at]));
  });

  it('a node given both dispatchers joins the first, the active one, and when it goes moves on to the other once that takes over, as the same node', async () => {
    const { tokens, active, standby } = await twoDispatchers('agent-dispatcher-list', closing);
    const session = nodeThrough([active.address!, standby.address!], tokens.worker, 'listed-1', closing);
    await session.start();
    expect(session.dispatcher).toBe(active.address);
    const nodeId = session.nodeId!;

    await active.stop();
    await standby.runner!.untilActive();
    await eventually('the node on the other dispatcher', () => session.connected && session.dispatcher === standby.address, { ...WITHIN, timeoutMs: 60_000 });
    expect(session.nodeId).toBe(nodeId);
  });

  it('a node given only the active dispatcher learns of the standby from its session, and moves on to it when the active one goes, as the same node', async () => {
    const { tokens, active, standby } = await twoDispatchers('agent-dispatcher-learned', closing);
    const session = nodeThrough([active.address!], tokens.worker, 'learned-1', closing);
    await session.start();
    await eventually('the standby known to the node', () => session.dispatchers.includes(standby.address!), WITHIN);
    expect(session.dispatchers).toEqual([active.address, standby.address]);
    const nodeId = session.nodeId!;

    await active.stop();
    await standby.runner!.untilActive();
    await eventually('the node on the standby it was never given', () => session.connected && session.dispatcher === standby.address, { ...WITHIN, timeoutMs: 60_000 });
    expect(session.nodeId).toBe(nodeId);
  });
});
