import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServerCredentials, status as GrpcStatus } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import type { SubscribeLogsMessage, SubscribeLogsRequest } from '@shoal/protocol';
import { ClusterRootCa, ensureCa, issueNodeCertificate, newKeyPair, nodeIdentity, privateKeyPem } from '@shoal/runtime';
import { freedAddress, logLine, redirectingTo, sending, startFakeLogsServer } from '../../testing/fake-logs-server';
import type { FakeLogsServer } from '../../testing/fake-logs-server';
import { DispatcherCallError, DispatcherLogs } from './dispatcher-logs';
import type { LogsCall } from './logs-call';

const request: SubscribeLogsRequest = {
  selector: { serviceIds: ['s1'], taskIds: [] },
  options: { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0 },
  managerToken: 'SWMTKN-1-manager',
};

/** Everything a call delivers, and how it ended. */
const drain = (call: LogsCall): Promise<{ messages: SubscribeLogsMessage[]; error?: ServiceError }> =>
  new Promise((resolve) => {
    const messages: SubscribeLogsMessage[] = [];
    call.attach({
      message: async (message) => {
        messages.push(message);
      },
      end: (error) => resolve({ messages, ...(error ? { error } : {}) }),
    });
  });


const until = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(check()).toBe(true);
};

describe("the API's client of the dispatchers' Logs service", () => {
  const servers: FakeLogsServer[] = [];
  let client: DispatcherLogs;
  const serve = async (...args: Parameters<typeof startFakeLogsServer>): Promise<FakeLogsServer> => {
    const server = await startFakeLogsServer(...args);
    servers.push(server);
    return server;
  };

  beforeEach(() => {
    client = new DispatcherLogs({ answerTimeoutMs: 1_000 });
  });
  afterEach(async () => {
    client.close();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it('streams the messages of the dispatcher it is sent to, with the request as given', async () => {
    const active = await serve(sending({ messages: [logLine('one'), logLine('two')] }, { warnings: ['node n2 is not connected'] }));
    const { messages, error } = await drain(await client.subscribe(active.address, request));
    expect(error).toBeUndefined();
    expect(messages.flatMap((message) => message.messages.map((line) => line.data.toString()))).toEqual(['one\n', 'two\n']);
    expect(messages[1]?.warnings).toEqual(['node n2 is not connected']);
    expect(active.requests).toEqual([request]);
  });

  it('follows a standby\'s redirect to the active dispatcher, once', async () => {
    const active = await serve(sending({ messages: [logLine('from the active one')] }));
    const standby = await serve(redirectingTo(active.address));
    const { messages } = await drain(await client.subscribe(standby.address, request));
    expect(messages[0]?.messages[0]?.data.toString()).toBe('from the active one\n');
    expect(standby.requests).toHaveLength(1);
    expect(active.requests).toEqual([request]);
  });

  it('does not follow a second redirect', async () => {
    const third = await serve(sending({ messages: [logLine('never')] }));
    const second = await serve(redirectingTo(third.address));
    const first = await serve(redirectingTo(second.address));
    const refused = client.subscribe(first.address, request);
    await expect(refused).rejects.toBeInstanceOf(DispatcherCallError);
    await expect(refused).rejects.toMatchObject({ address: second.address, code: GrpcStatus.FAILED_PRECONDITION });
    expect(third.requests).toHaveLength(0);
  });

  it('answers a refusal that names no dispatcher with the refusal', async () => {
    const lost = await serve((call) => call.emit('error', { code: GrpcStatus.UNAUTHENTICATED, details: 'not the manager token' }));
    await expect(client.subscribe(lost.address, request)).rejects.toMatchObject({ address: lost.address, code: GrpcStatus.UNAUTHENTICATED, reason: 'not the manager token' });
  });

  it('fails before it starts when nothing listens at the address', async () => {
    const address = await freedAddress();
    await expect(client.subscribe(address, request)).rejects.toMatchObject({ address, code: GrpcStatus.UNAVAILABLE });
  });

  it('starts once the dispatcher takes the subscription (its first message, empty), and cancels it', async () => {
    const taking = await serve((call) => call.write({ messages: [], warnings: [] }));
    const call = await client.subscribe(taking.address, { ...request, options: { ...request.options, follow: true } });
    expect(taking.open).toBe(1);
    const ended = jest.fn();
    call.attach({ message: async () => undefined, end: ended });
    call.cancel();
    await until(() => taking.open === 0);
    expect(ended).not.toHaveBeenCalled();
  });

  it('fails, and cancels the call, when a dispatcher that answers the connection does not take the subscription in time', async () => {
    const silent = await serve(() => undefined);
    await expect(client.subscribe(silent.address, request)).rejects.toMatchObject({ address: silent.address, code: GrpcStatus.DEADLINE_EXCEEDED });
    await until(() => silent.open === 0);
  });

  it('cancels a call whose caller went away before it started', async () => {
    const silent = await serve(() => undefined);
    const gone = new AbortController();
    const pending = client.subscribe(silent.address, request, gone.signal);
    await until(() => silent.open === 1);
    gone.abort();
    await expect(pending).rejects.toBeInstanceOf(DispatcherCallError);
    await until(() => silent.open === 0);
  });

  it('delivers what came before a failure, then the failure', async () => {
    const failing = await serve((call) => {
      call.write({ messages: [logLine('last words')], warnings: [] });
      setTimeout(() => call.emit('error', { code: GrpcStatus.INTERNAL, details: 'the dispatcher lost its lease' }), 20);
    });
    const { messages, error } = await drain(await client.subscribe(failing.address, request));
    expect(messages[0]?.messages[0]?.data.toString()).toBe('last words\n');
    expect(error).toMatchObject({ code: GrpcStatus.INTERNAL, details: 'the dispatcher lost its lease' });
  });

  it('hands the sink one message at a time, in order', async () => {
    const many = await serve(sending(...Array.from({ length: 20 }, (_, i) => ({ messages: [logLine(`line ${i}`)] }))));
    const call = await client.subscribe(many.address, request);
    let busy = 0;
    let most = 0;
    const seen: string[] = [];
    await new Promise<void>((resolve) =>
      call.attach({
        message: async (message) => {
          busy += 1;
          most = Math.max(most, busy);
          await new Promise((wait) => setTimeout(wait, 2));
          seen.push(message.messages[0]!.data.toString().trim());
          busy -= 1;
        },
        end: () => resolve(),
      }),
    );
    expect(most).toBe(1);
    expect(seen).toEqual(Array.from({ length: 20 }, (_, i) => `line ${i}`));
  });

  it("under mutual TLS calls with a manager's certificate of the CA, and a new one once half its life has gone", async () => {
    const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-logs-ca-')));
    const keys = newKeyPair();
    const serverCertificate = issueNodeCertificate(ca, { nodeId: 'dispatcher', role: 'manager', publicKey: keys.publicKey, now: new Date(), hosts: ['shoal-dispatcher', '127.0.0.1'] });
    const callers: string[] = [];
    const tlsServer = await serve(
      (call) => {
        const peer = call.getAuthContext().sslPeerCertificate!;
        const identity = nodeIdentity(peer.raw, ca.certificate, new Date());
        callers.push(typeof identity === 'string' ? identity : `${identity.role} ${peer.fingerprint256}`);
        sending({ messages: [logLine('over tls')] })(call);
      },
      ServerCredentials.createSsl(Buffer.from(ca.pem), [{ private_key: Buffer.from(privateKeyPem(keys.privateKey)), cert_chain: Buffer.from(serverCertificate.toString()) }], true),
    );
    // Certificates valid from a minute back (for clocks behind) to 63 s on: half their life is 1.5 s from now.
    const roots = new ClusterRootCa(ca, () => {
      throw new Error('no rotated root here');
    });
    const tls = new DispatcherLogs({ answerTimeoutMs: 2_000, root: () => roots.at(undefined), certificateValidityMs: 63_000 });
    try {
      expect((await drain(await tls.subscribe(tlsServer.address, request))).messages).toHaveLength(1);
      expect((await drain(await tls.subscribe(tlsServer.address, request))).messages).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 1_700));
      expect((await drain(await tls.subscribe(tlsServer.address, request))).messages).toHaveLength(1);
    } finally {
      tls.close();
    }
    expect(callers.every((caller) => caller.startsWith('manager '))).toBe(true);
    // One certificate for the first two calls, another after half its life.
    expect(new Set(callers).size).toBe(2);
    expect(callers[0]).toBe(callers[1]);
  });

  it('under mutual TLS makes its certificate at the first call, not when built: an API whose cluster key is still locked starts', async () => {
    const locked = (): never => {
      throw new Error('the cluster key is locked');
    };
    const tls = new DispatcherLogs({ answerTimeoutMs: 500, root: () => ({ signer: locked }) as never });
    try {
      await expect(tls.subscribe('127.0.0.1:1', request)).rejects.toThrow(/the cluster key is locked/);
    } finally {
      tls.close();
    }
  });
});
