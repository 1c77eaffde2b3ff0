/**
 * Task output through the dispatcher on a real broker: the API's side (Logs.SubscribeLogs)
 * and the agents' (a LogSubscription on the Session stream, PublishLogs), each dialled by
 * a gRPC client by hand so the spec says exactly what each side sends.
 */
import { randomUUID } from 'node:crypto';
import { credentials, status } from '@grpc/grpc-js';
import type { ClientReadableStream, ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import type { JoinTokens } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { DISPATCHER_REDIRECT_KEY, DispatcherClient, LogsClient } from '@shoal/protocol';
import type { LogMessage, LogOptionsMessage, PublishLogsMessage, SessionMessage, SubscribeLogsMessage, SubscribeLogsRequest } from '@shoal/protocol';
import { EventWriter, newJoinTokens } from '@shoal/runtime';
import { KafkaTestTopic, eventually, newTask, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { DispatcherServer } from './dispatcher-server';
import { WITHIN_MS, findEvent, keepAlive, openSession, sampleOf, startStandby } from './testing/grpc-agent';
import type { Client, Received } from './testing/grpc-agent';

type Call = (...args: unknown[]) => unknown;
type Logs = InstanceType<typeof LogsClient>;

const ALL: LogOptionsMessage = { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0 };
const SILENT_NODE_MS = 1_500;

/** A line as an agent publishes it (the dispatcher fills the service and node). */
const line = (taskId: string, text: string, stream: LogMessage['stream'] = 'STDOUT'): LogMessage => ({
  taskId,
  serviceId: '',
  nodeId: '',
  at: new Date().toISOString(),
  stream,
  data: Buffer.from(`${text}\n`),
});

/** A PublishLogs stream, as an agent opens one per subscription, and how it was answered. */
class Publication {
  private readonly stream: ClientWritableStream<PublishLogsMessage>;
  answered?: ServiceError | null;
  constructor(
    client: Client,
    private readonly nodeId: string,
    private readonly sessionId: string,
    private readonly subscriptionId: string,
  ) {
    this.stream = (client as unknown as Record<string, Call>).publishLogs!.call(client, (error: ServiceError | null) => (this.answered = error)) as ClientWritableStream<PublishLogsMessage>;
    this.stream.on('error', () => undefined);
  }
  send(messages: LogMessage[], close = false): void {
    this.stream.write({ nodeId: this.nodeId, sessionId: this.sessionId, subscriptionId: this.subscriptionId, messages, close });
    if (close) this.stream.end();
  }
  answer(): Promise<ServiceError | null> {
    return eventually('PublishLogs answered', () => this.answered, WITHIN_MS);
  }
}

/** What a SubscribeLogs caller received, and how its stream ended (null: OK). */
class Subscriber {
  readonly messages: SubscribeLogsMessage[] = [];
  ended?: ServiceError | null;
  trailer?: string;
  readonly stream: ClientReadableStream<SubscribeLogsMessage>;
  constructor(logs: Logs, request: SubscribeLogsRequest) {
    this.stream = (logs as unknown as Record<string, Call>).subscribeLogs!.call(logs, request) as ClientReadableStream<SubscribeLogsMessage>;
    this.stream.on('data', (message: SubscribeLogsMessage) => this.messages.push(message));
    this.stream.on('error', (error: ServiceError) => {
      this.ended = error;
      this.trailer = error.metadata?.get(DISPATCHER_REDIRECT_KEY)[0] as string | undefined;
    });
    this.stream.on('end', () => (this.ended ??= null));
  }
  get lines(): { taskId: string; serviceId: string; nodeId: string; stream: string; text: string }[] {
    return this.messages.flatMap((m) => m.messages.map((l) => ({ taskId: l.taskId, serviceId: l.serviceId, nodeId: l.nodeId, stream: l.stream, text: l.data.toString() })));
  }
  get warnings(): string[] {
    return this.messages.flatMap((m) => m.warnings);
  }
  end(): Promise<ServiceError | null> {
    return eventually('the subscription to end', () => this.ended, WITHIN_MS);
  }
}

/** The log subscriptions a node's Session stream carried, from message `from` on. */
const subscriptionsOn = (session: Received<SessionMessage>, from = 1) =>
  session.messages.slice(from).flatMap((m) => m.logSubscriptions ?? []);

describe('task output through the dispatcher on a real broker', () => {
  const cluster = `c-${randomUUID().slice(0, 8)}`;
  const topic = new KafkaTestTopic('log-broker-int');
  const web = serviceSpec('web', { kind: 'replicated', replicas: 2 });
  const db = serviceSpec('db', { kind: 'replicated', replicas: 1 });
  let log: EventLog;
  let tokens: JoinTokens;
  let server: DispatcherServer;
  let client: Client;
  let logs: Logs;
  const closing: (() => Promise<void> | void)[] = [];
  const as = (component: 'api' | 'orchestrator' | 'allocator' | 'scheduler'): EventWriter => new EventWriter(log, cluster, component, `${component}-log-test-${randomUUID().slice(0, 4)}`);

  /** A node with a session kept alive: its id, session id and Session stream. */
  const joinNode = async (): Promise<{ nodeId: string; sessionId: string; session: Received<SessionMessage>; stop: () => Promise<void> }> => {
    const session = openSession(client, tokens.worker);
    const { nodeId, sessionId } = await session.next(0);
    const stop = keepAlive(client, nodeId, sessionId);
    closing.push(stop);
    await findEvent(log, 'NodeRegistered', (e) => e.data.id === nodeId);
    await eventually('the session open', () => server.sessions.get(nodeId)?.registration === 'open', WITHIN_MS);
    return { nodeId, sessionId, session, stop };
  };

  /** Tasks of a service created, allocated and assigned to a node, as the components would. */
  const place = async (serviceId: string, spec: typeof web, placements: readonly { id: string; slot: number; nodeId: string }[]): Promise<void> => {
    const [orchestrator, allocator, scheduler] = [as('orchestrator'), as('allocator'), as('scheduler')];
    await orchestrator.append([orchestrator.propose('TasksCreated', { tasks: placements.map((p) => newTask(p.id, serviceId, spec, { slot: p.slot })) })]);
    await allocator.append([allocator.propose('TasksAllocated', { tasks: placements.map((p) => ({ id: p.id, attachments: [] })) })]);
    await scheduler.append([scheduler.propose('TasksAssigned', { tasks: placements.map((p) => ({ id: p.id, nodeId: p.nodeId, why: 'test' })) })]);
    for (const p of placements) await eventually(`${p.id} assigned in the dispatcher`, () => server.core.tasksOf(p.nodeId).has(p.id), WITHIN_MS);
  };

  const subscribe = (selector: { serviceIds?: string[]; taskIds?: string[] }, options: Partial<LogOptionsMessage> = {}, managerToken = tokens.manager): Subscriber =>
    new Subscriber(logs, { selector: { serviceIds: selector.serviceIds ?? [], taskIds: selector.taskIds ?? [] }, options: { ...ALL, ...options }, managerToken });

  beforeAll(async () => {
    log = await topic.open();
    tokens = newJoinTokens(cluster);
    const api = as('api');
    await api.append([
      api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 1_000 } }, tokens: keptJoinTokens(tokens) }),
      api.propose('ServiceCreated', { id: 'web', spec: web }),
      api.propose('ServiceCreated', { id: 'db', spec: db }),
    ]);
    server = new DispatcherServer(log, { cluster, logNodeTimeoutMs: SILENT_NODE_MS });
    const { port } = await server.start();
    await server.runner!.untilActive();
    client = new DispatcherClient(`127.0.0.1:${port}`, credentials.createInsecure());
    logs = new LogsClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    for (const close of closing) await close();
    client?.close();
    logs?.close();
    await server?.stop();
    await topic.close();
  });

  it("asks the node of a service's tasks, forwards only their lines with the service and node filled in, and ends once the node has sent everything", async () => {
    const node = await joinNode();
    await place('web', web, [{ id: 'w1', slot: 1, nodeId: node.nodeId }]);
    await place('db', db, [{ id: 'd1', slot: 1, nodeId: node.nodeId }]);

    const subscriber = subscribe({ serviceIds: ['web'] }, { tail: 5 });
    const [asked] = await eventually('the node asked', () => (subscriptionsOn(node.session).length > 0 ? subscriptionsOn(node.session) : undefined), WITHIN_MS);
    expect(asked).toMatchObject({ selector: { serviceIds: ['web'], taskIds: [] }, options: { stdout: true, stderr: true, follow: false, tail: 5 }, close: false });
    // The message that carried it changed neither the period nor the dispatchers.
    expect(node.session.messages[1]).toMatchObject({ heartbeatPeriodMs: 0, dispatchers: [] });

    const publication = new Publication(client, node.nodeId, node.sessionId, asked!.id);
    // d1 is the node's, but not the service's; w9 is no task of this node: neither is forwarded.
    publication.send([line('w1', 'listening on :80'), line('d1', 'not asked for'), line('w9', 'not this node'), line('w1', 'oops', 'STDERR')], true);
    expect(await subscriber.end()).toBeNull();
    expect(await publication.answer()).toBeNull();
    expect(subscriber.lines).toEqual([
      { taskId: 'w1', serviceId: 'web', nodeId: node.nodeId, stream: 'STDOUT', text: 'listening on :80\n' },
      { taskId: 'w1', serviceId: 'web', nodeId: node.nodeId, stream: 'STDERR', text: 'oops\n' },
    ]);
    expect(subscriber.warnings).toEqual([]);
    expect(server.logSubscriptions).toBe(0);
  });

  it("refuses a caller without the cluster's manager token, a request for no stream and one selecting nothing", async () => {
    expect(await subscribe({ serviceIds: ['web'] }, {}, tokens.worker).end()).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/manager join token/) });
    expect(await subscribe({ serviceIds: ['web'] }, { stdout: false, stderr: false }).end()).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/stdout or stderr/) });
    expect(await subscribe({}).end()).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/at least one service or task/) });
  });

  it('warns of a node that is not connected, and of one that does not answer, and still ends', async () => {
    const gone = await joinNode();
    const silent = await joinNode();
    await place('web', web, [
      { id: 'w2', slot: 2, nodeId: gone.nodeId },
      { id: 'w3', slot: 3, nodeId: silent.nodeId },
    ]);
    await gone.stop();
    await eventually('the silent node DOWN', () => server.sessions.get(gone.nodeId) === undefined, WITHIN_MS);

    const subscriber = subscribe({ taskIds: ['w2', 'w3'] });
    const started = Date.now();
    expect(await subscriber.end()).toBeNull();
    expect(Date.now() - started).toBeGreaterThanOrEqual(SILENT_NODE_MS - 100);
    expect(subscriber.warnings).toEqual([
      `node worker-1 (${gone.nodeId}) is not connected: the output of its tasks is not available`,
      `node worker-1 (${silent.nodeId}) did not answer: the output of its tasks is missing`,
    ]);
    // The node that never answered is told the subscription is over.
    const told = subscriptionsOn(silent.session);
    expect(told.map((s) => s.close)).toEqual([false, true]);
  });

  it('following: forwards lines as they come, asks a node that starts a task of the service later, and closes the subscription on every node when the caller goes away', async () => {
    const first = await joinNode();
    await place('web', web, [{ id: 'w4', slot: 4, nodeId: first.nodeId }]);
    const subscriber = subscribe({ serviceIds: ['web'] }, { follow: true, tail: 0 });
    const [asked] = await eventually('the first node asked', () => (subscriptionsOn(first.session).length > 0 ? subscriptionsOn(first.session) : undefined), WITHIN_MS);
    expect(asked!.options).toMatchObject({ follow: true, tail: 0 });
    const publication = new Publication(client, first.nodeId, first.sessionId, asked!.id);
    publication.send([line('w4', 'one')]);
    await eventually('the line forwarded', () => subscriber.lines.length === 1, WITHIN_MS);
    publication.send([line('w4', 'two')]);
    await eventually('the next line forwarded', () => subscriber.lines.length === 2, WITHIN_MS);

    // A node that gets a task of the followed service is asked for it, under the same subscription.
    const later = await joinNode();
    expect(subscriptionsOn(later.session)).toEqual([]);
    await place('web', web, [{ id: 'w5', slot: 5, nodeId: later.nodeId }]);
    const [laterAsked] = await eventually('the later node asked', () => (subscriptionsOn(later.session).length > 0 ? subscriptionsOn(later.session) : undefined), WITHIN_MS);
    expect(laterAsked!.id).toBe(asked!.id);
    new Publication(client, later.nodeId, later.sessionId, asked!.id).send([line('w5', 'three')]);
    await eventually('the later node line forwarded', () => subscriber.lines.length === 3, WITHIN_MS);
    expect(subscriber.lines.map((l) => `${l.taskId}@${l.nodeId} ${l.text.trim()}`)).toEqual([`w4@${first.nodeId} one`, `w4@${first.nodeId} two`, `w5@${later.nodeId} three`]);
    expect(subscriber.ended).toBeUndefined();
    expect(await sampleOf(server, 'shoal_dispatcher_log_subscriptions', {})).toBe(1);

    subscriber.stream.cancel();
    for (const node of [first, later]) {
      await eventually('the subscription closed on the node', () => subscriptionsOn(node.session).some((s) => s.id === asked!.id && s.close), WITHIN_MS);
    }
    await eventually('no subscription left', async () => (await sampleOf(server, 'shoal_dispatcher_log_subscriptions', {})) === 0, WITHIN_MS);
  });

  it('a standby refuses with FAILED_PRECONDITION and names the active instance', async () => {
    const { port } = await startStandby(topic, 'log-broker-int-standby', cluster, closing);
    const other = new LogsClient(`127.0.0.1:${port}`, credentials.createInsecure());
    closing.push(() => other.close());
    const refused = new Subscriber(other, { selector: { serviceIds: ['web'], taskIds: [] }, options: ALL, managerToken: tokens.manager });
    expect(await refused.end()).toMatchObject({ code: status.FAILED_PRECONDITION, details: expect.stringMatching(/not the active dispatcher/) });
    expect(refused.trailer).toBe(server.address);
  });
});
