/**
 * gRPC clients to dispatchers, shared by sessions: one channel (one HTTP/2 connection)
 * carries the calls of up to `sessionsPerChannel` nodes, so a fleet of thousands opens a
 * handful of connections, not thousands. Each channel has one status uplink: the task
 * statuses of its sessions go out together (UpdateTaskStatuses); and one heartbeat
 * stream, which carries the heartbeats of all its sessions (Heartbeats).
 */
import { credentials } from '@grpc/grpc-js';
import type { CallOptions, ChannelCredentials, Client, ClientReadableStream, ClientUnaryCall, ClientWritableStream, ServiceError } from '@grpc/grpc-js';
import { DISPATCHER_CHANNEL_OPTIONS, DISPATCHER_TLS_OPTIONS, DispatcherClient } from '@shoal/protocol';
import type {
  AssignmentsMessage,
  AssignmentsRequest,
  HeartbeatRequest,
  HeartbeatResponse,
  HeartbeatsResponse,
  PublishLogsMessage,
  SessionMessage,
  SessionRequest,
  UpdateTaskStatusRequest,
  UpdateTaskStatusesRequest,
  UpdateTaskStatusesResponse,
} from '@shoal/protocol';
import { HeartbeatStream } from './heartbeat-stream';
import { StatusUplink } from './status-uplink';

type Callback<T> = (error: ServiceError | null, response?: T) => void;

/** The Dispatcher service as an agent calls it. */
export interface DispatcherApi {
  session(request: SessionRequest, options?: CallOptions): ClientReadableStream<SessionMessage>;
  heartbeats(callback: Callback<HeartbeatsResponse>): ClientWritableStream<HeartbeatRequest>;
  heartbeat(request: HeartbeatRequest, options: CallOptions, callback: Callback<HeartbeatResponse>): ClientUnaryCall;
  updateTaskStatus(request: UpdateTaskStatusRequest, options: CallOptions, callback: Callback<object>): ClientUnaryCall;
  updateTaskStatuses(request: UpdateTaskStatusesRequest, options: CallOptions, callback: Callback<UpdateTaskStatusesResponse>): ClientUnaryCall;
  assignments(request: AssignmentsRequest, options?: CallOptions): ClientReadableStream<AssignmentsMessage>;
  /** One log subscription's output (PublishLogsResponse is empty). */
  publishLogs(callback: Callback<object>): ClientWritableStream<PublishLogsMessage>;
}

const insecure = credentials.createInsecure();

export class DispatcherChannels {
  private readonly pools = new Map<string, Client[]>();
  private readonly uplinks = new Map<Client, StatusUplink>();
  private readonly heartbeatStreams = new Map<Client, HeartbeatStream>();

  /**
   * @param tls what each new channel dials with under mutual TLS: the node's
   *   certificate (NodeCredentials.channelCredentials); without, plain gRPC
   */
  constructor(
    private readonly sessionsPerChannel = 500,
    tls?: () => ChannelCredentials,
  ) {
    this.credentials = tls ?? (() => insecure);
    this.tlsOptions = tls ? DISPATCHER_TLS_OPTIONS : {};
  }

  private readonly credentials: () => ChannelCredentials;
  private readonly tlsOptions: Readonly<Record<string, string>>;

  /** The client the session numbered `index` uses to reach `address` (host:port). */
  client(address: string, index = 0): DispatcherApi {
    let pool = this.pools.get(address);
    if (!pool) this.pools.set(address, (pool = []));
    const slot = Math.floor(index / this.sessionsPerChannel);
    let client = pool[slot];
    if (!client) {
      // Its own subchannel pool: each client is its own connection, not one shared by all.
      client = new DispatcherClient(address, this.credentials(), {
        'grpc.use_local_subchannel_pool': 1,
        ...DISPATCHER_CHANNEL_OPTIONS,
        ...this.tlsOptions,
      });
      pool[slot] = client;
    }
    return client as unknown as DispatcherApi;
  }

  /** The status uplink of the channel the session numbered `index` uses to reach `address`. */
  uplink(address: string, index = 0): StatusUplink {
    const api = this.client(address, index);
    const client = api as unknown as Client;
    let uplink = this.uplinks.get(client);
    if (!uplink) {
      uplink = new StatusUplink((request, deadline, callback) => void api.updateTaskStatuses(request, { deadline }, callback));
      this.uplinks.set(client, uplink);
    }
    return uplink;
  }

  /** The heartbeat stream of the channel the session numbered `index` uses to reach `address`. */
  heartbeats(address: string, index = 0): HeartbeatStream {
    const api = this.client(address, index);
    const client = api as unknown as Client;
    let stream = this.heartbeatStreams.get(client);
    if (!stream) {
      stream = new HeartbeatStream((callback) => api.heartbeats(callback));
      this.heartbeatStreams.set(client, stream);
    }
    return stream;
  }

  /** Channels open now. */
  get size(): number {
    return [...this.pools.values()].reduce((count, pool) => count + pool.filter(Boolean).length, 0);
  }

  close(): void {
    for (const stream of this.heartbeatStreams.values()) stream.close();
    this.heartbeatStreams.clear();
    for (const pool of this.pools.values()) for (const client of pool) client?.close();
    this.pools.clear();
    this.uplinks.clear();
  }
}
