/**
 * The dispatcher's gRPC surface under hostile input, on a real broker: bytes that are no
 * protobuf, messages past the size the server takes, fields out of every range, junk on the
 * raw TCP port and a flood of bad calls — each refused on its own, while a well-behaved node
 * keeps its session, its heartbeats and its statuses, and a new node still joins. Both ways
 * the dispatcher serves: plain gRPC with join tokens, and mutual TLS with the cluster's CA.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as GrpcClient, credentials, status } from '@grpc/grpc-js';
import type { ChannelCredentials, ServiceError } from '@grpc/grpc-js';
import { DEFAULT_CLUSTER_SPEC, TaskState } from '@shoal/contracts';
import type { JoinTokens } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { DISPATCHER_TLS_OPTIONS, DispatcherClient, NodeCaClient } from '@shoal/protocol';
import { EventWriter, certificateRequest, ensureCa, managerPeerCheck, newJoinTokens, newKeyPair, privateKeyPem } from '@shoal/runtime';
import { KafkaTestTopic, eventsOn, eventually, newTask, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { DispatcherServer } from './dispatcher-server';
import { WITHIN_MS, keepAlive, openAssignments, openSession, statusOf, unary } from './testing/grpc-agent';
import type { Client } from './testing/grpc-agent';

/** A client that sends whatever bytes it is given as a method's request. */
const rawCall = (address: string, creds: ChannelCredentials, path: string, bytes: Buffer): Promise<ServiceError | Buffer> => {
  const client = new GrpcClient(address, creds, { ...DISPATCHER_TLS_OPTIONS, 'grpc.max_send_message_length': -1 });
  return new Promise((resolve) =>
    client.makeUnaryRequest(
      path,
      (value: Buffer) => value,
      (value: Buffer) => value,
      bytes,
      (error, value) => {
        client.close();
        resolve(error ?? value!);
      },
    ),
  );
};

/** Junk on the raw port: resolves once the server has closed the connection (or after a second). */
const junk = (port: number, bytes: Buffer): Promise<void> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    const timer = setTimeout(() => socket.destroy(), 1_000);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
    socket.on('error', () => undefined);
  });

const UPDATE_STATUSES = '/shoal.agent.v1.Dispatcher/UpdateTaskStatuses';
const HEARTBEAT_PATH = '/shoal.agent.v1.Dispatcher/Heartbeat';
const ISSUE_PATH = '/shoal.agent.v1.NodeCA/IssueNodeCertificate';

describe.each([
  ['plain gRPC with join tokens', false],
  ['mutual TLS', true],
] as const)('the dispatcher under hostile input (%s), on a real broker', (_name, tls) => {
  const cluster = `c-${randomUUID().slice(0, 8)}`;
  const topic = new KafkaTestTopic(`dispatcher-hostile-${tls ? 'tls' : 'plain'}`);
  const ca = tls ? ensureCa(mkdtempSync(join(tmpdir(), 'shoal-hostile-ca-'))) : undefined;
  const spec = serviceSpec('web', { kind: 'replicated', replicas: 1 });
  let log: EventLog;
  let tokens: JoinTokens;
  let server: DispatcherServer;
  let port: number;
  let address: string;
  let creds: ChannelCredentials;
  let client: Client;

  /** A certificate for a new worker, through NodeCA, when the dispatcher speaks TLS. */
  const workerCredentials = async (): Promise<ChannelCredentials> => {
    if (!ca) return credentials.createInsecure();
    const keys = newKeyPair();
    const pinned = credentials.createSsl(Buffer.from(ca.pem), null, null, { checkServerIdentity: managerPeerCheck });
    const nodeCa = new NodeCaClient(address, pinned, { ...DISPATCHER_TLS_OPTIONS });
    const answer = await unary<{ certificate: string }>(nodeCa as unknown as Client, 'issueNodeCertificate', { token: tokens.worker, ...certificateRequest(keys.privateKey) });
    nodeCa.close();
    return credentials.createSsl(Buffer.from(ca.pem), Buffer.from(privateKeyPem(keys.privateKey)), Buffer.from(answer.certificate), { checkServerIdentity: managerPeerCheck });
  };

  beforeAll(async () => {
    log = await topic.open();
    tokens = newJoinTokens(cluster, ca?.certificate);
    const api = new EventWriter(log, cluster, 'api', 'api-hostile');
    await api.append([
      api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 1_000 } }, tokens: keptJoinTokens(tokens) }),
      api.propose('ServiceCreated', { id: 's1', spec }),
    ]);
    server = new DispatcherServer(log, { cluster, ...(ca ? { ca } : {}) });
    ({ port } = await server.start());
    await server.runner!.untilActive();
    address = `127.0.0.1:${port}`;
    creds = await workerCredentials();
    client = new DispatcherClient(address, creds, { ...DISPATCHER_TLS_OPTIONS });
  });

  afterAll(async () => {
    client?.close();
    await server?.stop();
    await topic.close();
  });

  it('refuses every hostile call on its own and keeps serving a well-behaved node, and new ones', async () => {
    // A well-behaved node, with a task, heartbeating all along.
    const session = openSession(client, tls ? '' : tokens.worker);
    const { nodeId, sessionId } = await session.next(0);
    const stopBeating = keepAlive(client, nodeId, sessionId);
    try {
      const [orchestrator, allocator, scheduler] = ['orchestrator', 'allocator', 'scheduler'].map((c) => new EventWriter(log, cluster, c as 'orchestrator', `${c}-hostile`));
      await orchestrator!.append([orchestrator!.propose('TasksCreated', { tasks: [newTask('t1', 's1', spec)] })]);
      await allocator!.append([allocator!.propose('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] })]);
      await scheduler!.append([scheduler!.propose('TasksAssigned', { tasks: [{ id: 't1', nodeId, why: 'test' }] })]);
      const assignments = openAssignments(client, nodeId, sessionId);
      await assignments.next(0);

      // Bytes that are no protobuf.
      const garbage = await rawCall(address, creds, UPDATE_STATUSES, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x12, 0x99]));
      expect(garbage).toMatchObject({ code: expect.any(Number) });
      expect((garbage as ServiceError).code).not.toBe(status.OK);
      // A message past what the server takes (4 MiB).
      const oversized = await rawCall(address, creds, HEARTBEAT_PATH, Buffer.alloc(5 * 1024 * 1024, 0x0a));
      expect(oversized).toMatchObject({ code: status.RESOURCE_EXHAUSTED });
      // Well-formed, with every field out of range: a huge node id, a state no task has, no time at all.
      const hostileStatuses = await unary<{ unknownSessions: string[] }>(client, 'updateTaskStatuses', {
        sessions: [
          { nodeId: 'x'.repeat(100_000), sessionId: 'nope', updates: [statusOf('t1', TaskState.RUNNING)] },
          { nodeId, sessionId, updates: [{ ...statusOf('t1', 987_654), at: 'not a time' }] },
        ],
      }).catch((error: ServiceError) => error);
      // Under TLS a node may not speak for another; in plain gRPC the unknown session is named, and the bad status dropped.
      expect(hostileStatuses).toMatchObject(tls ? { code: status.PERMISSION_DENIED } : { unknownSessions: ['nope'] });
      // A session naming a node id of 100,000 characters, answered (the refusal quotes it short enough to travel).
      const longId = openSession(client, tls ? '' : tokens.worker, 'y'.repeat(100_000));
      expect(await longId.end()).toMatchObject({ code: tls ? status.PERMISSION_DENIED : status.INVALID_ARGUMENT, details: expect.stringMatching(/\(100000 characters\)/) });
      // Junk on the raw port, and a flood of bad calls at once.
      await junk(port, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
      await junk(port, Buffer.alloc(64 * 1024, 0x41));
      const flood = await Promise.all(Array.from({ length: 200 }, () => rawCall(address, creds, UPDATE_STATUSES, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]))));
      expect(flood.every((answer) => 'code' in answer && answer.code !== status.OK)).toBe(true);
      if (ca) {
        const badKey = await rawCall(address, credentials.createSsl(Buffer.from(ca.pem), null, null, { checkServerIdentity: managerPeerCheck }), ISSUE_PATH, Buffer.from([0x0a, 0x03, 0x61, 0x62, 0x63]));
        expect(badKey).toMatchObject({ code: status.UNAUTHENTICATED });
      }

      // The well-behaved node is served still: its session lives, its status reaches the log.
      await unary(client, 'updateTaskStatus', { nodeId, sessionId, updates: [statusOf('t1', TaskState.RUNNING)] });
      await eventually('the RUNNING status on the log', async () =>
        (await eventsOn(log)).some((event) => event.type === 'TaskStatusesReported' && event.data.statuses.some((s) => s.id === 't1' && s.state === TaskState.RUNNING)) || undefined,
        WITHIN_MS,
      );
      expect(server.sessions.current(nodeId, sessionId)).toBeDefined();
      expect(session.ended).toBeUndefined();
      // And a new node still joins.
      const newcomer = new DispatcherClient(address, await workerCredentials(), { ...DISPATCHER_TLS_OPTIONS });
      const second = openSession(newcomer, tls ? '' : tokens.worker);
      expect((await second.next(0)).nodeId).toMatch(/^[0-9a-z]{25}$/);
      second.stream.cancel();
      newcomer.close();
      assignments.stream.cancel();
    } finally {
      await stopBeating();
      session.stream.cancel();
    }
  });
});
