/**
 * The Dispatcher gRPC service (dispatcher.proto): Session, Heartbeats (the heartbeats of
 * an agent process's sessions on one long-lived stream), Heartbeat (one a call, as agents
 * before it sent them), UpdateTaskStatus (one session's statuses) and UpdateTaskStatuses
 * (many sessions' in one call), Assignments. It checks the caller, fills the session
 * table and wakes the runner; what reaches the log is the dispatcher core's decision. Only the active instance serves: a
 * standby answers FAILED_PRECONDITION, naming the active one in the `shoal-dispatcher`
 * trailer when the log tells it where that one listens — or itself, when that one does
 * not answer (killed, its lease not yet expired): the agent tries the standby again.
 */
import { Metadata, status } from '@grpc/grpc-js';
import type { ServerReadableStream, ServerUnaryCall, ServerWritableStream, UntypedServiceImplementation, sendUnaryData } from '@grpc/grpc-js';
import { ruleApplies } from '@shoal/domain';
import type { DispatcherCore, SessionTable } from '@shoal/domain';
import { RULE_LEVELS } from '@shoal/contracts';
import type { CertificateIssuer, NodeRole, TaskStatusReport } from '@shoal/contracts';
import { DISPATCHER_REDIRECT_KEY, addressOfInstance } from '@shoal/protocol';
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
import type { ServerSurfaceCall } from '@grpc/grpc-js/build/src/server-call';
import type { ComponentRunner } from '@shoal/runtime';
import type { CallerIdentity } from './cluster-tls';
import { AgentSession } from './agent-session';
import type { SessionSource } from './agent-session';
import type { SecretOpener } from './protocol-mapping';
import { peerHost } from './dispatcher-address';
import type { AgentCounters } from './dispatcher-metrics';
import type { LogBroker } from './log-broker';
import { SESSION_NOT_FOUND, quoted, refusal } from './refusal';
import type { Refusal } from './refusal';
import { nodeTlsInfo, toNodeDescription, toStatusReport } from './protocol-mapping';

export interface AgentServiceDeps {
  /** The runner, once started. */
  readonly runner: () => ComponentRunner | undefined;
  readonly core: DispatcherCore;
  readonly sessions: SessionTable;
  /** This instance's own address, so it never sends an agent back to itself. */
  readonly address: () => string | undefined;
  /** Where the dispatchers are, this one first: what session messages list. */
  readonly dispatchers: () => readonly string[];
  readonly now: () => Date;
  readonly newNodeId: () => string;
  readonly newSessionId: () => string;
  readonly log: (line: string) => void;
  /** What the agents sent, for /metrics. */
  readonly counters: AgentCounters;
  /** Where the agents' task output goes (PublishLogs), and who follows their tasks. */
  readonly logs: LogBroker;
  /** Whether the dispatcher at an address does not answer now (a standby does not send agents there). */
  readonly unreachable?: (address: string) => boolean;
  /** Opens the secrets sent to nodes; none without. */
  readonly openSecret?: SecretOpener;
  /**
   * Under mutual TLS: who is calling, by the certificate it presented (or why it is not a
   * node of this cluster). A node then speaks only for itself, and joins by certificate
   * rather than by token.
   */
  readonly identify?: (call: Pick<ServerSurfaceCall, 'getAuthContext'>) => CallerIdentity | string;
}

/** A node id an agent may keep: letters, digits, '.', '_', '-'; at most 128. */
const NODE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

export class AgentService {
  /** How to answer each Heartbeats stream still open. */
  private readonly heartbeatStreams = new Set<(error: Refusal) => void>();

  constructor(private readonly deps: AgentServiceDeps) {}

  /** How many Heartbeats streams are open. */
  get heartbeatStreamCount(): number {
    return this.heartbeatStreams.size;
  }

  /**
   * Answers every open Heartbeats stream with UNAVAILABLE: the dispatcher stops serving
   * (it is stopping, or no longer the active one). Agents open a new one with their next
   * heartbeat, wherever their sessions went.
   */
  endHeartbeats(reason: string): void {
    const streams = [...this.heartbeatStreams];
    this.heartbeatStreams.clear();
    for (const end of streams) end(refusal(status.UNAVAILABLE, reason));
  }

  /** Tells every open session where the dispatchers are now. */
  dispatchersChanged(): void {
    for (const session of this.deps.sessions.all()) {
      if (session.link instanceof AgentSession) session.link.dispatchersChanged();
    }
  }

  /** The implementation for `server.addService(DISPATCHER_SERVICE, …)`. */
  implementation(): UntypedServiceImplementation {
    return {
      session: (call: ServerWritableStream<SessionRequest, SessionMessage>) => this.session(call),
      heartbeats: (call: ServerReadableStream<HeartbeatRequest, HeartbeatsResponse>, done: sendUnaryData<HeartbeatsResponse>) => this.heartbeats(call, done),
      heartbeat: (call: ServerUnaryCall<HeartbeatRequest, HeartbeatResponse>, done: sendUnaryData<HeartbeatResponse>) => this.heartbeat(call, done),
      updateTaskStatus: (call: ServerUnaryCall<UpdateTaskStatusRequest, object>, done: sendUnaryData<object>) => this.updateTaskStatus(call, done),
      updateTaskStatuses: (call: ServerUnaryCall<UpdateTaskStatusesRequest, UpdateTaskStatusesResponse>, done: sendUnaryData<UpdateTaskStatusesResponse>) =>
        this.updateTaskStatuses(call, done),
      assignments: (call: ServerWritableStream<AssignmentsRequest, AssignmentsMessage>) => this.assignments(call),
      publishLogs: (call: ServerReadableStream<PublishLogsMessage, object>, done: sendUnaryData<object>) => this.deps.logs.publish(call, done),
    };
  }

  private session(call: ServerWritableStream<SessionRequest, SessionMessage>): void {
    const runner = this.activeRunner();
    if (!('view' in runner)) return void call.emit('error', runner);
    const request = call.request;
    const admitted = this.admit(call, request, runner);
    if ('code' in admitted) return void call.emit('error', admitted);
    const described = toNodeDescription(request.description, admitted.role);
    if (typeof described === 'string') return void call.emit('error', refusal(status.INVALID_ARGUMENT, described));
    const tls = admitted.issuer && ruleApplies(runner.view.state, RULE_LEVELS.nodeTlsInfo) ? nodeTlsInfo(request.description?.tlsTrustRoot ?? '', admitted.issuer) : undefined;
    if (typeof tls === 'string') return void call.emit('error', refusal(status.INVALID_ARGUMENT, tls));
    const description = tls ? { ...described, tls } : described;
    const nodeId = admitted.nodeId ?? (request.nodeId || this.deps.newNodeId());
    if (!NODE_ID.test(nodeId)) {
      return void call.emit('error', refusal(status.INVALID_ARGUMENT, `invalid node id "${quoted(nodeId)}": letters, digits, '.', '_' and '-', at most 128`));
    }
    if (this.deps.core.wasRemoved(nodeId, runner.view.state)) {
      return void call.emit('error', refusal(status.PERMISSION_DENIED, `node ${nodeId} was removed from the cluster: join again as a new node, without its id`));
    }
    const sessionId = this.deps.newSessionId();
    const session = new AgentSession(nodeId, sessionId, call, this.source(runner));
    this.deps.core.open(
      runner.view.state,
      { nodeId, sessionId, role: admitted.role, description, addr: peerHost(call.getPeer()), link: session },
      this.deps.now().getTime(),
    );
    runner.wake();
  }

  /**
   * Who opens a session: under mutual TLS the node its certificate names (no token needed:
   * the certificate is its membership, and a session may name no other node); else whoever
   * holds a join token the cluster takes.
   */
  private admit(
    call: ServerWritableStream<SessionRequest, SessionMessage>,
    request: SessionRequest,
    runner: ComponentRunner,
  ): { role: NodeRole; nodeId?: string; issuer?: CertificateIssuer } | Refusal {
    if (this.deps.identify) {
      const caller = this.deps.identify(call);
      if (typeof caller === 'string') return refusal(status.UNAUTHENTICATED, caller);
      if (request.nodeId && request.nodeId !== caller.nodeId) {
        return refusal(status.PERMISSION_DENIED, `the session names node ${quoted(request.nodeId)}, but the certificate is node ${caller.nodeId}'s`);
      }
      return { role: caller.role, nodeId: caller.nodeId, issuer: caller.issuer };
    }
    const check = this.deps.core.admit(runner.view.state, request.joinToken ?? '', request.nodeId ?? '');
    return check.ok ? { role: check.role } : refusal(status.UNAUTHENTICATED, check.reason);
  }

  /** Under mutual TLS, why the caller may not speak for these nodes (its certificate names another, or none); else undefined. */
  private speaksFor(call: Pick<ServerSurfaceCall, 'getAuthContext'>, nodeIds: readonly string[]): Refusal | undefined {
    if (!this.deps.identify) return undefined;
    const caller = this.deps.identify(call);
    if (typeof caller === 'string') return refusal(status.UNAUTHENTICATED, caller);
    const other = nodeIds.find((nodeId) => nodeId !== caller.nodeId);
    return other === undefined ? undefined : refusal(status.PERMISSION_DENIED, `node ${caller.nodeId}'s certificate cannot speak for node ${quoted(other)}`);
  }

  /**
   * Heartbeats as messages on one stream, for as long as the agent keeps it open: no
   * answer each, since a new period comes on the node's Session stream and a session that
   * is over ends that stream. One for a session the dispatcher does not know (it expired
   * or was replaced, and its Session stream has ended) is only counted. The stream is
   * answered when the agent ends it; with FAILED_PRECONDITION when a heartbeat comes to an
   * instance that is not the active one; with UNAVAILABLE when this one stops or loses
   * ownership (endHeartbeats).
   */
  private heartbeats(call: ServerReadableStream<HeartbeatRequest, HeartbeatsResponse>, done: sendUnaryData<HeartbeatsResponse>): void {
    let answered = false;
    const answer = (error: Refusal | null, response?: HeartbeatsResponse): void => {
      if (answered) return;
      answered = true;
      this.heartbeatStreams.delete(answer);
      if (error) done(error);
      else done(null, response);
    };
    const counts: HeartbeatsResponse = { taken: 0, unknown: 0 };
    const first = this.activeRunner();
    if (!('view' in first)) return answer(first);
    const unauthorised = this.speaksFor(call, []);
    if (unauthorised) return answer(unauthorised);
    this.heartbeatStreams.add(answer);
    call.on('data', (request: HeartbeatRequest) => {
      if (answered) return;
      const other = this.speaksFor(call, [request.nodeId]);
      if (other) return answer(other);
      const runner = this.activeRunner();
      if (!('view' in runner)) return answer(runner);
      const known = this.deps.core.heartbeat(runner.view.state, request.nodeId, request.sessionId, this.deps.now().getTime()) !== undefined;
      this.deps.counters.heartbeat('stream', known);
      if (known) counts.taken += 1;
      else counts.unknown += 1;
    });
    call.on('end', () => answer(null, counts));
    const gone = (): void => {
      answered = true;
      this.heartbeatStreams.delete(answer);
    };
    call.on('cancelled', gone);
    call.on('error', gone);
  }

  private heartbeat(call: ServerUnaryCall<HeartbeatRequest, HeartbeatResponse>, done: sendUnaryData<HeartbeatResponse>): void {
    const runner = this.activeRunner();
    if (!('view' in runner)) return done(runner);
    const { nodeId, sessionId } = call.request;
    const other = this.speaksFor(call, [nodeId]);
    if (other) return done(other);
    const periodMs = this.deps.core.heartbeat(runner.view.state, nodeId, sessionId, this.deps.now().getTime());
    this.deps.counters.heartbeat('unary', periodMs !== undefined);
    if (periodMs === undefined) return done(refusal(status.NOT_FOUND, SESSION_NOT_FOUND));
    done(null, { periodMs });
  }

  private updateTaskStatus(call: ServerUnaryCall<UpdateTaskStatusRequest, object>, done: sendUnaryData<object>): void {
    const runner = this.activeRunner();
    if (!('view' in runner)) return done(runner);
    const other = this.speaksFor(call, [call.request.nodeId]);
    if (other) return done(other);
    const taken = this.take(call.request, this.deps.now());
    if (taken === undefined) return done(refusal(status.NOT_FOUND, SESSION_NOT_FOUND));
    if (taken > 0) runner.wake();
    done(null, {});
  }

  private updateTaskStatuses(call: ServerUnaryCall<UpdateTaskStatusesRequest, UpdateTaskStatusesResponse>, done: sendUnaryData<UpdateTaskStatusesResponse>): void {
    const runner = this.activeRunner();
    if (!('view' in runner)) return done(runner);
    const other = this.speaksFor(call, (call.request.sessions ?? []).map((entry) => entry.nodeId));
    if (other) return done(other);
    const now = this.deps.now();
    const unknownSessions: string[] = [];
    let taken = 0;
    for (const entry of call.request.sessions ?? []) {
      const count = this.take(entry, now);
      if (count === undefined) unknownSessions.push(entry.sessionId ?? '');
      else taken += count;
    }
    if (taken > 0) runner.wake();
    done(null, { unknownSessions });
  }

  /** Queues one session's statuses for the next batch: how many; undefined when the session is not the node's current one. */
  private take(request: UpdateTaskStatusRequest, now: Date): number | undefined {
    const { nodeId, sessionId, updates } = request;
    if (!this.deps.sessions.current(nodeId, sessionId)) {
      this.deps.counters.statuses('unknown_session', updates?.length ?? 0);
      return undefined;
    }
    const reports: TaskStatusReport[] = [];
    for (const update of updates ?? []) {
      const report = toStatusReport(update, now);
      if (typeof report === 'string') {
        this.deps.counters.statuses('invalid', 1);
        this.deps.log(`ignoring a status from node ${quoted(nodeId)}: ${report}`);
      } else reports.push(report);
    }
    this.deps.counters.statuses('taken', reports.length);
    if (reports.length > 0) this.deps.sessions.report(nodeId, reports);
    return reports.length;
  }

  private assignments(call: ServerWritableStream<AssignmentsRequest, AssignmentsMessage>): void {
    const runner = this.activeRunner();
    if (!('view' in runner)) return void call.emit('error', runner);
    const { nodeId, sessionId } = call.request;
    const other = this.speaksFor(call, [nodeId]);
    if (other) return void call.emit('error', other);
    const link = this.deps.sessions.current(nodeId, sessionId)?.link;
    if (!(link instanceof AgentSession)) return void call.emit('error', refusal(status.NOT_FOUND, SESSION_NOT_FOUND));
    link.attach(call);
  }

  /** The runner when this instance is the active dispatcher, else the refusal to answer with (the Logs service's too). */
  activeRunner(): ComponentRunner | Refusal {
    const runner = this.deps.runner();
    if (runner?.state === 'active') return runner;
    const active = addressOfInstance(this.deps.core.activeInstance);
    if (active === undefined || active === this.deps.address()) {
      return refusal(status.FAILED_PRECONDITION, 'not the active dispatcher: try another instance');
    }
    const trailer = new Metadata();
    const own = this.deps.address();
    if (own !== undefined && this.deps.unreachable?.(active)) {
      // The active one is gone, as far as this one can tell, and its lease not yet expired: the agent waits here.
      trailer.set(DISPATCHER_REDIRECT_KEY, own);
      return refusal(status.FAILED_PRECONDITION, `not the active dispatcher yet: the active one at ${active} does not answer; try again here`, trailer);
    }
    trailer.set(DISPATCHER_REDIRECT_KEY, active);
    return refusal(status.FAILED_PRECONDITION, `not the active dispatcher: the active one is at ${active}`, trailer);
  }

  private source(runner: ComponentRunner): SessionSource {
    return {
      state: () => runner.view.state,
      tasksOf: (nodeId) => this.deps.core.tasksOf(nodeId),
      indexed: () => this.deps.core.indexed,
      whenIndexed: (ready) => this.deps.core.whenIndexed(ready),
      dispatchers: this.deps.dispatchers,
      logs: this.deps.logs,
      ...(this.deps.openSecret ? { openSecret: this.deps.openSecret } : {}),
    };
  }
}
