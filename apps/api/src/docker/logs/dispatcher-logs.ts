/**
 * The API's client of the dispatchers' Logs service: one channel per address, kept for
 * the next request and closed when the API shuts down. A subscription goes to the address
 * it is given; an instance that is not the active dispatcher answers FAILED_PRECONDITION
 * and names the active one in the `shoal-dispatcher` trailer, and the subscription is
 * tried once more there.
 */
import { credentials, status as GrpcStatus } from '@grpc/grpc-js';
import type { CallOptions, ChannelCredentials, Client, ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { issueNodeCertificate, managerPeerCheck, newKeyPair, newObjectId, privateKeyPem, renewalAt } from '@shoal/runtime';
import type { RootCaState } from '@shoal/runtime';
import { DISPATCHER_CHANNEL_OPTIONS, DISPATCHER_TLS_OPTIONS, LogsClient, redirectOf } from '@shoal/protocol';
import type { SubscribeLogsMessage, SubscribeLogsRequest } from '@shoal/protocol';
import { LogsCall } from './logs-call';

/** The Logs service as the API calls it. */
interface LogsApi {
  subscribeLogs(request: SubscribeLogsRequest, options?: CallOptions): ClientReadableStream<SubscribeLogsMessage>;
}

export interface DispatcherLogsOptions {
  /** How long a dispatcher has to take a subscription: the connection, and its first message (default 5 s). */
  readonly answerTimeoutMs?: number;
  /**
   * The cluster's root CA, when the dispatchers speak mutual TLS: the API calls them with a
   * manager certificate of its own (made in memory, a new one once half its life has gone)
   * and takes only a manager at the other end.
   */
  readonly root?: () => RootCaState;
  /** How long each of those certificates lasts; default the CA's 90 days. */
  readonly certificateValidityMs?: number;
}

/**
 * A manager's credentials for the API, signed as node certificates are now (the Logs service
 * is for managers only), trusting the roots nodes trust, and when to make the next.
 */
const managerCredentials = (root: RootCaState, validityMs: number | undefined): { credentials: ChannelCredentials; renewAt: Date; root: RootCaState } => {
  const keys = newKeyPair();
  const signer = root.signer();
  const certificate = issueNodeCertificate(signer, {
    nodeId: `api-${newObjectId()}`,
    role: 'manager',
    publicKey: keys.publicKey,
    now: new Date(),
    ...(validityMs !== undefined ? { validityMs } : {}),
  });
  return {
    credentials: credentials.createSsl(Buffer.from(root.trustBundle), Buffer.from(privateKeyPem(keys.privateKey)), Buffer.from(certificate.toString() + signer.chain), {
      checkServerIdentity: managerPeerCheck,
    }),
    renewAt: renewalAt(certificate, 0),
    root,
  };
};

/** Why a subscription could not start: the address last tried and the gRPC status, if one came. */
export class DispatcherCallError extends Error {
  constructor(
    readonly address: string,
    /** The gRPC status code; undefined when no connection was made in time. */
    readonly code: GrpcStatus | undefined,
    readonly reason: string,
  ) {
    super(`${address}: ${reason}`);
  }
}


const callError = (address: string, error: unknown): DispatcherCallError => {
  if (error instanceof DispatcherCallError) return error;
  const { code, details, message } = error as Partial<ServiceError>;
  return new DispatcherCallError(address, typeof code === 'number' ? code : undefined, details || message || String(error));
};

export class DispatcherLogs {
  private readonly clients = new Map<string, Client>();
  private readonly answerTimeoutMs: number;

  private credentials?: { credentials: ChannelCredentials; renewAt?: Date; root?: RootCaState };

  constructor(private readonly options: DispatcherLogsOptions = {}) {
    this.answerTimeoutMs = options.answerTimeoutMs ?? 5_000;
    // Under mutual TLS made at the first call: a rotated root's key opens only once the cluster key is unlocked.
    this.credentials = options.root ? undefined : { credentials: credentials.createInsecure() };
    this.channelOptions = options.root ? { ...DISPATCHER_CHANNEL_OPTIONS, ...DISPATCHER_TLS_OPTIONS } : { ...DISPATCHER_CHANNEL_OPTIONS };
  }

  private readonly channelOptions: Record<string, string | number>;

  /**
   * Subscribes at `address`, or at the address its refusal names; resolves once the call
   * has started. `signal` cancels it (the HTTP client went away).
   */
  async subscribe(address: string, request: SubscribeLogsRequest, signal?: AbortSignal): Promise<LogsCall> {
    try {
      return await this.start(address, request, signal);
    } catch (error) {
      const redirect = (error as Partial<ServiceError>).code === GrpcStatus.FAILED_PRECONDITION ? redirectOf(error) : undefined;
      if (redirect === undefined || redirect === address || signal?.aborted) throw callError(address, error);
      try {
        return await this.start(redirect, request, signal);
      } catch (again) {
        throw callError(redirect, again);
      }
    }
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  private async start(address: string, request: SubscribeLogsRequest, signal?: AbortSignal): Promise<LogsCall> {
    if (signal?.aborted) throw new DispatcherCallError(address, GrpcStatus.CANCELLED, 'the client went away');
    const client = this.client(address);
    const call = new LogsCall((client as unknown as LogsApi).subscribeLogs(request), this.unanswered(address, client));
    const cancel = (): void => call.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      await call.started;
      return call;
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  }

  /** Rejects when the dispatcher at `address` cannot be reached, or has not taken the call, within the answer timeout. */
  private unanswered(address: string, client: Client): Promise<never> {
    return new Promise<never>((_resolve, reject) => {
      const deadline = Date.now() + this.answerTimeoutMs;
      client.waitForReady(deadline, (error) => {
        if (error) return reject(new DispatcherCallError(address, undefined, `no connection within ${this.answerTimeoutMs} ms (${error.message})`));
        setTimeout(
          () => reject(new DispatcherCallError(address, GrpcStatus.DEADLINE_EXCEEDED, `connected, but the subscription was not taken within ${this.answerTimeoutMs} ms`)),
          Math.max(0, deadline - Date.now()),
        ).unref();
      });
    });
  }

  /** The credentials channels dial with; past half their certificate's life, new ones, and the channels made with the old are closed. */
  private currentCredentials(): ChannelCredentials {
    const root = this.options.root?.();
    // None yet, past half its life, or the cluster's root CA rotating or rotated: new credentials.
    const held = this.credentials;
    if (root && (!held || (held.renewAt && new Date() >= held.renewAt) || root !== held.root)) {
      this.credentials = managerCredentials(root, this.options.certificateValidityMs);
      for (const client of this.clients.values()) client.close();
      this.clients.clear();
    }
    return this.credentials!.credentials;
  }

  private client(address: string): Client {
    const creds = this.currentCredentials();
    let client = this.clients.get(address);
    if (!client) {
      client = new LogsClient(address, creds, this.channelOptions);
      this.clients.set(address, client);
    }
    return client;
  }
}
