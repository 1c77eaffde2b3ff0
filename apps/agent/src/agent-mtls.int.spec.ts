/**
 * The cluster's mutual TLS on a real broker: a dispatcher with a root CA, nodes that join
 * by pinning that CA with the join token's digest, and every refusal a security review
 * asks for — no certificate, another CA's (closed at its handshake), an expired one, a worker's on the managers' Logs
 * service, a token of another CA or one rotated out, a removed node's certificate.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as connectTls } from 'node:tls';
import { credentials, status } from '@grpc/grpc-js';
import type { ChannelCredentials, ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { DEFAULT_CLUSTER_SPEC, LOG_LEVEL, TaskState } from '@shoal/contracts';
import type { EventOf, EventType, JoinTokens } from '@shoal/contracts';
import type { EventLog } from '@shoal/eventlog';
import { DISPATCHER_TLS_OPTIONS, DispatcherClient, LogsClient } from '@shoal/protocol';
import type { SessionMessage, SubscribeLogsMessage, SubscribeLogsRequest } from '@shoal/protocol';
import { EventWriter, ensureCa, issueNodeCertificate, managerPeerCheck, newJoinTokens, newKeyPair, privateKeyPem } from '@shoal/runtime';
import type { SigningCa } from '@shoal/runtime';
import { KafkaTestTopic, eventsOn, eventually, newTask, serviceSpec, keptJoinTokens } from '@shoal/testing';
import { DispatcherServer } from '../../dispatcher/src/dispatcher-server';
import { AgentSession } from './agent-session';
import { DispatcherChannels } from './dispatcher-channels';
import { JoinRefused, NODE_CERT_FILE, NODE_KEY_FILE, NodeCredentials } from './node-credentials';
import { SimulatedExecutor } from './simulated-executor';
import { TimerWheel } from './timers';

const WITHIN = { timeoutMs: 30_000, everyMs: 100 };
const DAY = 24 * 60 * 60 * 1000;

const eventsOf = async <K extends EventType>(log: EventLog, type: K): Promise<EventOf<K>[]> =>
  (await eventsOn(log)).filter((event): event is EventOf<K> => event.type === type);

type Call = (...args: unknown[]) => unknown;

/** A server stream's first message, or the error it was refused with; the stream and its client are closed after. */
const firstOrRefusal = <T>(client: { close(): void }, stream: ClientReadableStream<T>): Promise<T | ServiceError> =>
  new Promise((resolve) => {
    stream.once('data', (message: T) => {
      stream.cancel();
      client.close();
      resolve(message);
    });
    stream.once('error', (error: ServiceError) => {
      client.close();
      resolve(error);
    });
  });

/** How a Session call ends: its first message, or the error it was refused with. */
const sessionOutcome = (creds: ChannelCredentials, address: string, nodeId = ''): Promise<SessionMessage | ServiceError> => {
  const client = new DispatcherClient(address, creds, { ...DISPATCHER_TLS_OPTIONS });
  const description = { hostname: 'probe', platform: { os: 'linux', architecture: 'x86_64' }, nanoCpus: 1e9, memoryBytes: 2 ** 30 };
  return firstOrRefusal(client, (client as unknown as Record<string, Call>).session!.call(client, { joinToken: '', nodeId, description }) as ClientReadableStream<SessionMessage>);
};

/** How a Logs subscription ends or starts: its first message, or its refusal. */
const logsOutcome = (creds: ChannelCredentials, address: string, request: SubscribeLogsRequest): Promise<SubscribeLogsMessage | ServiceError> => {
  const client = new LogsClient(address, creds, { ...DISPATCHER_TLS_OPTIONS });
  return firstOrRefusal(client, (client as unknown as Record<string, Call>).subscribeLogs!.call(client, request) as ClientReadableStream<SubscribeLogsMessage>);
};

/** A node's key and a certificate `ca` signed for `role`, at `now`, for `validityMs`. */
const probe = (ca: SigningCa, role: 'worker' | 'manager', now = new Date(), validityMs?: number): { key: string; cert: string } => {
  const keys = newKeyPair();
  const certificate = issueNodeCertificate(ca, { nodeId: `probe${randomUUID().slice(0, 8)}`, role, publicKey: keys.publicKey, now, ...(validityMs ? { validityMs } : {}) });
  return { key: privateKeyPem(keys.privateKey), cert: certificate.toString() };
};

/** A client's credentials with a certificate `ca` signed for `role`, at `now`, for `validityMs`. */
const certified = (trust: string, ca: SigningCa, role: 'worker' | 'manager', now = new Date(), validityMs?: number): ChannelCredentials => {
  const { key, cert } = probe(ca, role, now, validityMs);
  return credentials.createSsl(Buffer.from(trust), Buffer.from(key), Buffer.from(cert), { checkServerIdentity: managerPeerCheck });
};

/**
 * Whether the dispatcher at `address` closes a TLS connection presenting `client` right after
 * its handshake, before the client has sent a byte of HTTP/2 (false: still open a second on).
 */
const closedAfterHandshake = (address: string, trust: string, client: { key: string; cert: string }): Promise<boolean> =>
  new Promise((resolve, reject) => {
    const [host, port] = [address.slice(0, address.lastIndexOf(':')), Number(address.slice(address.lastIndexOf(':') + 1))];
    const socket = connectTls({ host, port, ca: trust, key: client.key, cert: client.cert, ALPNProtocols: ['h2'], checkServerIdentity: () => undefined });
    let open = false;
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, 1_000);
    socket.on('secureConnect', () => (open = true));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      if (open) resolve(true);
      else reject(new Error('the TLS handshake itself failed'));
    });
  });

describe('mutual TLS between agents and the dispatcher, on a real broker', () => {
  const cluster = `c-${randomUUID().slice(0, 8)}`;
  const topic = new KafkaTestTopic('agent-mtls');
  const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-ca-')));
  const otherCa = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-other-ca-')));
  const spec = serviceSpec('web', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'busybox', env: ['SIM_RUN_FOR=1h'] } } });
  let log: EventLog;
  let tokens: JoinTokens;
  let server: DispatcherServer;
  let address: string;
  const lines: string[] = [];
  const writers: Record<string, EventWriter> = {};
  const as = (component: 'api' | 'orchestrator' | 'allocator' | 'scheduler'): EventWriter =>
    (writers[component] ??= new EventWriter(log, cluster, component, `${component}-mtls-test`));

  beforeAll(async () => {
    log = await topic.open();
    tokens = newJoinTokens(cluster, ca.certificate);
    const api = as('api');
    await api.append([
      api.propose('ClusterInitialized', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 500 }, nodeDownPeriodMs: 60_000 }, tokens: keptJoinTokens(tokens), logLevel: LOG_LEVEL }),
      api.propose('ServiceCreated', { id: 's-web', spec }),
    ]);
    server = new DispatcherServer(log, { cluster, ca, log: (line) => lines.push(line) });
    const { port } = await server.start();
    await server.runner!.untilActive();
    address = `127.0.0.1:${port}`;
  });

  afterAll(async () => {
    await server?.stop();
    await topic.close();
  });

  it('a node pins the root CA by its token, takes a worker certificate, and runs its tasks over mutual TLS as the node the certificate names', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'shoal-agent-mtls-'));
    const identity = await NodeCredentials.join([address], tokens.worker, { stateDir });
    expect(identity.role).toBe('worker');
    expect(identity.nodeId).toMatch(/^[0-9a-z]{25}$/);
    expect(statSync(join(stateDir, NODE_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(stateDir, NODE_CERT_FILE), 'utf8')).toBe(identity.certificate.toString());

    const timers = new TimerWheel(25);
    const channels = new DispatcherChannels(undefined, () => identity.channelCredentials());
    const executor = new SimulatedExecutor({ hostname: 'tls-node', platform: { os: 'linux', architecture: 'x86_64' }, nanoCpus: 2e9, memoryBytes: 2 ** 31, generic: [], engineVersion: '', engineLabels: {}, plugins: [] }, timers);
    const session = new AgentSession({ dispatchers: [address], joinToken: '', executor, channels, timers, nodeId: identity.nodeId });
    try {
      await session.start();
      expect(session.nodeId).toBe(identity.nodeId);
      const registered = await eventually('the node registered', async () => (await eventsOf(log, 'NodeRegistered')).find((event) => event.data.id === identity.nodeId), WITHIN);
      expect(registered.data.role).toBe('worker');

      const [orchestrator, allocator, scheduler] = [as('orchestrator'), as('allocator'), as('scheduler')];
      await orchestrator.append([orchestrator.propose('TasksCreated', { tasks: [newTask('t-web', 's-web', spec)] })]);
      await allocator.append([allocator.propose('TasksAllocated', { tasks: [{ id: 't-web', attachments: [] }] })]);
      await scheduler.append([scheduler.propose('TasksAssigned', { tasks: [{ id: 't-web', nodeId: identity.nodeId, why: 'test' }] })]);
      await eventually('the task RUNNING on the log', async () =>
        (await eventsOf(log, 'TaskStatusesReported')).some((event) => event.data.statuses.some((s) => s.id === 't-web' && s.state === TaskState.RUNNING)) || undefined, WITHIN);
    } finally {
      await session.stop();
      channels.close();
    }

    // Restarted with its state directory, it is the same node, and the dispatcher takes it.
    const again = await NodeCredentials.join(['127.0.0.1:1'], tokens.worker, { stateDir });
    expect(again.nodeId).toBe(identity.nodeId);
    expect(await sessionOutcome(again.channelCredentials(), address)).toMatchObject({ nodeId: identity.nodeId });
    // Sent to another cluster (a token of another root CA), it joins anew there rather than offer this one's certificate.
    const elsewhere = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-elsewhere-ca-')));
    await expect(NodeCredentials.join([address], newJoinTokens('elsewhere', elsewhere.certificate).worker, { stateDir })).rejects.toThrow(/digest is not the join token's/);
    // A node speaks only for itself.
    expect(await sessionOutcome(again.channelCredentials(), address, 'someoneelse')).toMatchObject({ code: status.PERMISSION_DENIED, details: expect.stringMatching(/certificate is node/) });
  });

  it('refuses to join with a token of another root CA before asking for anything, and the dispatcher refuses a token rotated out', async () => {
    const foreign = newJoinTokens(cluster, otherCa.certificate).worker;
    await expect(NodeCredentials.join([address], foreign)).rejects.toThrow(JoinRefused);
    await expect(NodeCredentials.join([address], foreign)).rejects.toThrow(/digest is not the join token's/);
    // The same CA's digest, but not a current token (as after `docker swarm join-token --rotate`).
    const rotatedOut = newJoinTokens(cluster, ca.certificate).worker;
    await expect(NodeCredentials.join([address], rotatedOut)).rejects.toThrow(/refused the join: .*rotated/);
    await expect(NodeCredentials.join([address], 'SWMTKN-1-nonsense')).rejects.toThrow(/not a SWMTKN-1-<root CA digest>-<secret> token/);
  });

  it("serves a node's methods to no one without a valid certificate of this CA: none, another CA's, an expired one, plain gRPC", async () => {
    const none = await sessionOutcome(credentials.createSsl(Buffer.from(ca.pem), null, null, { checkServerIdentity: managerPeerCheck }), address);
    expect(none).toMatchObject({ code: status.UNAUTHENTICATED, details: expect.stringMatching(/node certificate of this cluster is required/) });
    // Another CA's certificate: the connection is closed once its handshake is done, before any call (as SwarmKit's handshake refuses it).
    const foreign = await sessionOutcome(certified(ca.pem, otherCa, 'worker'), address);
    expect(foreign).toMatchObject({ code: status.UNAVAILABLE });
    expect(await closedAfterHandshake(address, ca.pem, probe(otherCa, 'worker'))).toBe(true);
    // Of this CA, valid or out of its dates: kept open (the methods decide).
    expect(await closedAfterHandshake(address, ca.pem, probe(ca, 'worker'))).toBe(false);
    expect(await closedAfterHandshake(address, ca.pem, probe(ca, 'worker', new Date(Date.now() - 10 * DAY), DAY))).toBe(false);
    const expired = await sessionOutcome(certified(ca.pem, ca, 'worker', new Date(Date.now() - 10 * DAY), DAY), address);
    expect(expired).toMatchObject({ code: status.UNAUTHENTICATED });
    const plain = await sessionOutcome(credentials.createInsecure(), address);
    expect(plain).toMatchObject({ code: status.UNAVAILABLE });
    // And a client refuses a dispatcher its pinned CA did not sign.
    const wrongTrust = await sessionOutcome(certified(otherCa.pem, otherCa, 'worker'), address);
    expect(wrongTrust).toMatchObject({ code: status.UNAVAILABLE });
  });

  it("keeps the Logs service for managers: a worker's certificate is refused, a manager's is served", async () => {
    const request: SubscribeLogsRequest = {
      selector: { serviceIds: ['s-web'], taskIds: [] },
      options: { stdout: false, stderr: false, follow: false, tail: -1, sinceMs: 0 },
      managerToken: tokens.manager,
    };
    const worker = await NodeCredentials.join([address], tokens.worker);
    expect(await logsOutcome(worker.channelCredentials(), address, request)).toMatchObject({ code: status.PERMISSION_DENIED, details: expect.stringMatching(/worker certificate/) });
    const manager = await NodeCredentials.join([address], tokens.manager);
    expect(manager.role).toBe('manager');
    // Past the door: refused only for what it asks (no stream chosen).
    expect(await logsOutcome(manager.channelCredentials(), address, request)).toMatchObject({ code: status.INVALID_ARGUMENT, details: expect.stringMatching(/choose at least one stream/) });
  });

  it("renews a node's certificate under the same id, and refuses a removed node's certificate", async () => {
    const identity = await NodeCredentials.join([address], tokens.worker);
    const first = identity.certificate;
    await identity.renew(address);
    expect(identity.nodeId).toBe(first.subject.match(/CN=(\w+)/)![1]);
    expect(identity.certificate.fingerprint256).not.toBe(first.fingerprint256);
    expect(identity.certificate.publicKey.export({ type: 'spki', format: 'pem' })).not.toBe(first.publicKey.export({ type: 'spki', format: 'pem' }));

    // It registers, goes down (no heartbeats after its session), and is removed.
    const opened = await sessionOutcome(identity.channelCredentials(), address);
    expect(opened).toMatchObject({ nodeId: identity.nodeId });
    await eventually('the node registered', async () => (await eventsOf(log, 'NodeRegistered')).find((event) => event.data.id === identity.nodeId), WITHIN);
    const api = as('api');
    await api.append([api.propose('NodeRemoved', { id: identity.nodeId, force: true })]);
    await eventually('the dispatcher to see the removal', async () => (server.runner!.view.state.nodes.has(identity.nodeId) ? undefined : true), WITHIN);

    expect(await sessionOutcome(identity.channelCredentials(), address)).toMatchObject({ code: status.PERMISSION_DENIED, details: expect.stringMatching(/was removed/) });
    await expect(identity.renew(address)).rejects.toMatchObject({ code: status.PERMISSION_DENIED });
  });

  it('issues certificates for the node certificate expiry the cluster spec sets (docker swarm update --cert-expiry), at the next issue or renewal', async () => {
    const before = await NodeCredentials.join([address], tokens.worker);
    const lifeOf = (identity: NodeCredentials): number => Date.parse(identity.certificate.validTo) - Date.parse(identity.certificate.validFrom);
    // SwarmKit's 90 days (less the minute of grace the certificate starts before now).
    expect(lifeOf(before) / 3_600_000).toBeCloseTo(90 * 24, 0);
    const api = as('api');
    const spec = { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: 500 }, nodeDownPeriodMs: 60_000, ca: { nodeCertExpiryMs: 2 * 3_600_000 } };
    await api.append([api.propose('ClusterSpecUpdated', { spec })]);
    await eventually('the dispatcher to see the spec', async () => (server.runner!.view.state.cluster?.spec.ca ? true : undefined), WITHIN);
    const joined = await NodeCredentials.join([address], tokens.worker);
    expect(lifeOf(joined) / 3_600_000).toBeCloseTo(2, 1);
    await before.renew(address);
    expect(lifeOf(before) / 3_600_000).toBeCloseTo(2, 1);
  });

  it('never logs a join token or a key', () => {
    const said = lines.join('\n');
    expect(said).toMatch(/issued node \w+ a worker certificate/);
    for (const secret of [tokens.worker, tokens.manager, ca.pem.split('\n')[1]!]) expect(said).not.toContain(secret);
    expect(said).not.toMatch(/PRIVATE KEY/);
  });
});
