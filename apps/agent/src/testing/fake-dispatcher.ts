/**
 * A stand-in dispatcher for the agent's specs: a real gRPC server on 127.0.0.1 serving
 * DISPATCHER_SERVICE that records what agents send and lets a spec push assignments,
 * send log subscriptions, break sessions, refuse tokens and redirect.
 */
import { Metadata, Server, ServerCredentials, status as GrpcStatus } from '@grpc/grpc-js';
import type { ServerReadableStream, ServerUnaryCall, ServerWritableStream, sendUnaryData } from '@grpc/grpc-js';
import { DISPATCHER_REDIRECT_KEY, DISPATCHER_SERVICE } from '@shoal/protocol';
import type {
  AssignmentsMessage,
  AssignmentsRequest,
  HeartbeatRequest,
  HeartbeatResponse,
  HeartbeatsResponse,
  LogMessage,
  LogSubscriptionMessage,
  PublishLogsMessage,
  SessionMessage,
  SessionRequest,
  TaskStatusMessage,
  UpdateTaskStatusRequest,
  UpdateTaskStatusesRequest,
  UpdateTaskStatusesResponse,
} from '@shoal/protocol';

/** Ends a server stream with a gRPC status (code, details, trailers) taken from `error`. */
const fail = (stream: ServerWritableStream<unknown, unknown>, error: Error & { code: number; details?: string; metadata?: Metadata }): void => {
  stream.emit('error', error);
};

/** What a node published for one log subscription, on its PublishLogs call. */
export interface Publication {
  readonly nodeId: string;
  readonly sessionId: string;
  /** The messages as they came. */
  readonly batches: PublishLogsMessage[];
  /** A message said `close`. */
  closed: boolean;
  /** The call is over: the agent ended it or cancelled it (a server cannot tell which; `closed` says whether it finished). */
  ended: boolean;
}

export class FakeDispatcher {
  readonly sessionRequests: SessionRequest[] = [];
  /** Heartbeats of sessions it knows, as they came (on a Heartbeats stream or, from older agents, one a call). */
  readonly heartbeats: HeartbeatRequest[] = [];
  /** Heartbeats of sessions it did not know. */
  readonly unknownHeartbeats: HeartbeatRequest[] = [];
  /** Heartbeats streams opened, and unary Heartbeat calls made. */
  heartbeatStreams = 0;
  heartbeatCalls = 0;
  /** Nodes that have sent at least one heartbeat. */
  readonly heartbeatingNodes = new Set<string>();
  /** Each session's statuses as they came, from UpdateTaskStatus or an entry of UpdateTaskStatuses. */
  readonly statusCalls: UpdateTaskStatusRequest[] = [];
  /** How many sessions' entries each UpdateTaskStatuses call carried. */
  readonly multiStatusCalls: number[] = [];
  /** Accepted join tokens. */
  readonly tokens = new Set<string>(['SWMTKN-1-good']);
  heartbeatPeriodMs = 100;
  /** Nodes removed from the cluster: their sessions are refused PERMISSION_DENIED. */
  readonly removedNodes = new Set<string>();
  /** The dispatchers' addresses its session messages list (default none). */
  dispatchers: string[] = [];
  /** When set, every Session is answered FAILED_PRECONDITION naming this address. */
  redirectTo: string | undefined;
  /** The COMPLETE set each node gets when its assignments stream opens. */
  readonly initialAssignments = new Map<string, AssignmentsMessage>();
  /** What nodes published, by subscription id. */
  readonly publications = new Map<string, Publication>();
  private readonly sessions = new Map<string, { sessionId: string; stream: ServerWritableStream<SessionRequest, SessionMessage> }>();
  private readonly assignmentStreams = new Map<string, ServerWritableStream<AssignmentsRequest, AssignmentsMessage>>();
  private readonly heartbeatAnswers = new Set<sendUnaryData<HeartbeatsResponse>>();
  private nextNode = 0;
  private nextSession = 0;

  private constructor(
    private readonly server: Server,
    readonly address: string,
  ) {}

  static async start(port = 0): Promise<FakeDispatcher> {
    const server = new Server();
    const ref: { dispatcher?: FakeDispatcher } = {};
    server.addService(DISPATCHER_SERVICE, {
      session: (call: ServerWritableStream<SessionRequest, SessionMessage>) => ref.dispatcher?.session(call),
      heartbeats: (call: ServerReadableStream<HeartbeatRequest, HeartbeatsResponse>, callback: sendUnaryData<HeartbeatsResponse>) => ref.dispatcher?.heartbeatStream(call, callback),
      heartbeat: (call: ServerUnaryCall<HeartbeatRequest, HeartbeatResponse>, callback: sendUnaryData<HeartbeatResponse>) => ref.dispatcher?.heartbeat(call, callback),
      updateTaskStatus: (call: ServerUnaryCall<UpdateTaskStatusRequest, object>, callback: sendUnaryData<object>) => ref.dispatcher?.updateTaskStatus(call, callback),
      updateTaskStatuses: (call: ServerUnaryCall<UpdateTaskStatusesRequest, UpdateTaskStatusesResponse>, callback: sendUnaryData<UpdateTaskStatusesResponse>) =>
        ref.dispatcher?.updateTaskStatuses(call, callback),
      assignments: (call: ServerWritableStream<AssignmentsRequest, AssignmentsMessage>) => ref.dispatcher?.assignments(call),
      publishLogs: (call: ServerReadableStream<PublishLogsMessage, object>, callback: sendUnaryData<object>) => ref.dispatcher?.publishLogs(call, callback),
    });
    const bound = await new Promise<number>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, ServerCredentials.createInsecure(), (error, actual) => (error ? reject(error) : resolve(actual))),
    );
    const dispatcher = new FakeDispatcher(server, `127.0.0.1:${bound}`);
    ref.dispatcher = dispatcher;
    return dispatcher;
  }

  /** Every status update received, in order. */
  get statuses(): TaskStatusMessage[] {
    return this.statusCalls.flatMap((call) => call.updates);
  }

  /** Node ids with an open session. */
  get connectedNodes(): string[] {
    return [...this.sessions.keys()];
  }

  sessionIdOf(nodeId: string): string | undefined {
    return this.sessions.get(nodeId)?.sessionId;
  }

  /** Whether the node has its assignments stream open. */
  hasAssignments(nodeId: string): boolean {
    return this.assignmentStreams.has(nodeId);
  }

  /** Sends a message on the node's assignments stream; false if it has none. */
  push(nodeId: string, message: AssignmentsMessage): boolean {
    const stream = this.assignmentStreams.get(nodeId);
    if (!stream) return false;
    stream.write(message);
    return true;
  }

  /** Breaks every session, as a dispatcher restart would. */
  breakSessions(): void {
    for (const { stream } of this.sessions.values()) fail(stream, Object.assign(new Error('dispatcher going away'), { code: GrpcStatus.UNAVAILABLE }));
    for (const stream of this.assignmentStreams.values()) fail(stream, Object.assign(new Error('dispatcher going away'), { code: GrpcStatus.UNAVAILABLE }));
    this.sessions.clear();
    this.assignmentStreams.clear();
  }

  async stop(): Promise<void> {
    this.breakSessions();
    this.server.forceShutdown();
  }

  private session(call: ServerWritableStream<SessionRequest, SessionMessage>): void {
    const request = call.request;
    this.sessionRequests.push(request);
    if (this.redirectTo) {
      const trailer = new Metadata();
      trailer.set(DISPATCHER_REDIRECT_KEY, this.redirectTo);
      fail(call, Object.assign(new Error('not the owner'), { code: GrpcStatus.FAILED_PRECONDITION, details: 'this dispatcher does not own the cluster', metadata: trailer }));
      return;
    }
    if (!this.tokens.has(request.joinToken)) {
      fail(call, Object.assign(new Error('invalid join token'), { code: GrpcStatus.UNAUTHENTICATED, details: 'invalid join token' }));
      return;
    }
    if (this.removedNodes.has(request.nodeId)) {
      fail(call, Object.assign(new Error('removed'), { code: GrpcStatus.PERMISSION_DENIED, details: `node ${request.nodeId} was removed from the cluster` }));
      return;
    }
    const nodeId = request.nodeId || `node-${++this.nextNode}`;
    const sessionId = `session-${++this.nextSession}`;
    this.sessions.set(nodeId, { sessionId, stream: call });
    call.on('cancelled', () => {
      if (this.sessions.get(nodeId)?.stream === call) this.sessions.delete(nodeId);
    });
    call.write({ nodeId, sessionId, heartbeatPeriodMs: this.heartbeatPeriodMs, dispatchers: this.dispatchers, logSubscriptions: [] });
  }

  /** Asks the node's session for another heartbeat period, on its Session stream. */
  tellPeriod(nodeId: string, heartbeatPeriodMs: number): void {
    const session = this.sessions.get(nodeId);
    if (!session) throw new Error(`no session for ${nodeId}`);
    session.stream.write({ nodeId, sessionId: session.sessionId, heartbeatPeriodMs, dispatchers: this.dispatchers, logSubscriptions: [] });
  }

  /** Tells the node's session where the dispatchers are now (the period as it stands). */
  tellDispatchers(nodeId: string, dispatchers: string[]): void {
    this.dispatchers = dispatchers;
    this.tellPeriod(nodeId, this.heartbeatPeriodMs);
  }

  /** Sends log subscriptions (new or closed) on the node's Session stream, as the dispatcher does: no period, no dispatchers. */
  sendLogSubscriptions(nodeId: string, ...subscriptions: LogSubscriptionMessage[]): void {
    const session = this.sessions.get(nodeId);
    if (!session) throw new Error(`no session for ${nodeId}`);
    session.stream.write({ nodeId, sessionId: session.sessionId, heartbeatPeriodMs: 0, dispatchers: [], logSubscriptions: subscriptions });
  }

  /** The lines published for a subscription, in the order they came. */
  publishedLines(subscriptionId: string): LogMessage[] {
    return this.publications.get(subscriptionId)?.batches.flatMap((batch) => batch.messages) ?? [];
  }

  /** Forgets the node's session (as an expiry would) without ending its streams. */
  forgetSession(nodeId: string): void {
    this.sessions.delete(nodeId);
  }

  private updateTaskStatus(call: ServerUnaryCall<UpdateTaskStatusRequest, object>, callback: sendUnaryData<object>): void {
    if (this.sessions.get(call.request.nodeId)?.sessionId !== call.request.sessionId) {
      callback({ code: GrpcStatus.NOT_FOUND, details: 'no such session' });
      return;
    }
    this.statusCalls.push(call.request);
    callback(null, {});
  }

  private updateTaskStatuses(call: ServerUnaryCall<UpdateTaskStatusesRequest, UpdateTaskStatusesResponse>, callback: sendUnaryData<UpdateTaskStatusesResponse>): void {
    this.multiStatusCalls.push(call.request.sessions.length);
    const unknownSessions: string[] = [];
    for (const entry of call.request.sessions) {
      if (this.sessions.get(entry.nodeId)?.sessionId === entry.sessionId) this.statusCalls.push(entry);
      else unknownSessions.push(entry.sessionId);
    }
    callback(null, { unknownSessions });
  }

  private heartbeatStream(call: ServerReadableStream<HeartbeatRequest, HeartbeatsResponse>, callback: sendUnaryData<HeartbeatsResponse>): void {
    this.heartbeatStreams += 1;
    this.heartbeatAnswers.add(callback);
    const counts = { taken: 0, unknown: 0 };
    call.on('data', (request: HeartbeatRequest) => {
      if (this.heartbeatAnswers.has(callback) && this.take(request)) counts.taken += 1;
      else counts.unknown += 1;
    });
    call.on('end', () => {
      if (this.heartbeatAnswers.delete(callback)) callback(null, counts);
    });
  }

  /** Ends every Heartbeats stream with UNAVAILABLE, as a dispatcher that drops them would. */
  endHeartbeatStreams(): void {
    for (const answer of this.heartbeatAnswers) answer({ code: GrpcStatus.UNAVAILABLE, details: 'heartbeats going away' });
    this.heartbeatAnswers.clear();
  }

  private heartbeat(call: ServerUnaryCall<HeartbeatRequest, HeartbeatResponse>, callback: sendUnaryData<HeartbeatResponse>): void {
    this.heartbeatCalls += 1;
    if (!this.take(call.request)) {
      callback({ code: GrpcStatus.NOT_FOUND, details: 'no such session' });
      return;
    }
    callback(null, { periodMs: this.heartbeatPeriodMs });
  }

  private take(request: HeartbeatRequest): boolean {
    if (this.sessions.get(request.nodeId)?.sessionId !== request.sessionId) {
      this.unknownHeartbeats.push(request);
      return false;
    }
    this.heartbeats.push(request);
    this.heartbeatingNodes.add(request.nodeId);
    return true;
  }

  /** Answers NOT_FOUND, as the dispatcher does, when the first message is not of the node's current session. */
  private publishLogs(call: ServerReadableStream<PublishLogsMessage, object>, callback: sendUnaryData<object>): void {
    let publication: Publication | undefined;
    let answered = false;
    const answer = (error: { code: number; details: string } | null): void => {
      if (answered) return;
      answered = true;
      if (error) callback(error);
      else callback(null, {});
    };
    call.on('data', (message: PublishLogsMessage) => {
      if (!publication) {
        if (this.sessions.get(message.nodeId)?.sessionId !== message.sessionId) return answer({ code: GrpcStatus.NOT_FOUND, details: 'no such session' });
        publication = { nodeId: message.nodeId, sessionId: message.sessionId, batches: [], closed: false, ended: false };
        this.publications.set(message.subscriptionId, publication);
      }
      publication.batches.push(message);
      if (message.close) publication.closed = true;
    });
    call.on('end', () => {
      if (publication) publication.ended = true;
      answer(null);
    });
    call.on('cancelled', () => {
      if (publication) publication.ended = true;
    });
  }

  private assignments(call: ServerWritableStream<AssignmentsRequest, AssignmentsMessage>): void {
    const { nodeId } = call.request;
    this.assignmentStreams.set(nodeId, call);
    call.on('cancelled', () => {
      if (this.assignmentStreams.get(nodeId) === call) this.assignmentStreams.delete(nodeId);
    });
    call.write(this.initialAssignments.get(nodeId) ?? { type: 'COMPLETE', changes: [], configs: [] });
  }
}
