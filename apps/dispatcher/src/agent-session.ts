/**
 * One agent's session on the transport: its Session stream and its Assignments streams.
 * The dispatcher core talks to it through SessionLink; it writes what the core decided.
 * An agent that hangs up detaches its streams; the session itself lives on until its
 * heartbeats stop (then the node goes DOWN).
 */
import { status } from '@grpc/grpc-js';
import type { ServerWritableStream } from '@grpc/grpc-js';
import { AssignmentTracker, noChanges } from '@shoal/domain';
import type { ClusterState, SessionLink } from '@shoal/domain';
import type { AssignmentsMessage, AssignmentsRequest, LogSubscriptionMessage, SessionMessage, SessionRequest } from '@shoal/protocol';
import type { LogSessionLink } from './log-broker';
import { toCompleteMessage, toIncrementalMessage } from './protocol-mapping';
import type { SecretOpener } from './protocol-mapping';

export interface SessionSource {
  /** The dispatcher's view now. */
  state(): ClusterState;
  /** The node's assigned tasks now. */
  tasksOf(nodeId: string): ReadonlySet<string>;
  /** Where the dispatchers are, this one first (the session message's list). */
  dispatchers(): readonly string[];
  /** Opens the secrets the node's tasks use as they are sent; without it none is sent. */
  readonly openSecret?: SecretOpener;
  /** Told when the session opens and when the node's tasks change (log subscriptions that follow). */
  readonly logs?: {
    sessionOpened(link: LogSessionLink): void;
    assignmentsChanged(link: LogSessionLink, taskIds: readonly string[]): void;
  };
}

type Stream<Req, Res> = ServerWritableStream<Req, Res>;

const endWith = <Req, Res>(call: Stream<Req, Res>, code: status, details: string): void => {
  if (call.cancelled || call.writableEnded) return;
  call.emit('error', { code, details });
};

/**
 * Changes of a node's tasks wait this long to go out together (SwarmKit batches its
 * assignment changes the same way), unless ASSIGNMENT_BATCH_LIMIT of them are waiting.
 */
export const ASSIGNMENT_BATCH_MS = 50;
export const ASSIGNMENT_BATCH_LIMIT = 100;

/**
 * One Assignments stream: the complete set first, then the changes, gathered for at
 * most ASSIGNMENT_BATCH_MS; each batch looks only at the tasks said to have changed. The
 * configs those tasks use go in the same message as the tasks.
 */
export class AssignmentStream {
  private readonly tracker = new AssignmentTracker();
  private touched = new Set<string>();
  private timer?: NodeJS.Timeout;
  private immediate?: NodeJS.Immediate;

  constructor(
    private readonly call: Stream<AssignmentsRequest, AssignmentsMessage>,
    private readonly nodeId: string,
    private readonly source: SessionSource,
  ) {}

  get done(): boolean {
    return this.call.cancelled || this.call.writableEnded;
  }

  start(): void {
    this.call.write(toCompleteMessage(this.tracker.complete(this.source.state(), this.source.tasksOf(this.nodeId)), this.source.openSecret));
  }

  changed(taskIds: readonly string[]): void {
    for (const id of taskIds) this.touched.add(id);
    if (this.touched.size >= ASSIGNMENT_BATCH_LIMIT) {
      this.immediate ??= setImmediate(() => this.flush());
    } else {
      this.timer ??= setTimeout(() => this.flush(), ASSIGNMENT_BATCH_MS);
    }
  }

  private flush(): void {
    this.cancel();
    const touched = this.touched;
    this.touched = new Set();
    if (this.done || touched.size === 0) return;
    const changes = this.tracker.changesOf(this.source.state(), this.source.tasksOf(this.nodeId), touched);
    if (!noChanges(changes)) this.call.write(toIncrementalMessage(changes, this.source.openSecret));
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
  }

  end(code: status, details: string): void {
    this.cancel();
    endWith(this.call, code, details);
  }
}

/** How long a session asked to renew its node's certificate is not asked again. */
const RENEW_AGAIN_MS = 30_000;

export class AgentSession implements SessionLink, LogSessionLink {
  private readonly streams = new Set<AssignmentStream>();
  private endedValue?: string;
  /** The period last told (a later message repeats it). */
  private periodMs = 0;
  private askedToRenewAt?: number;

  constructor(
    readonly nodeId: string,
    readonly sessionId: string,
    private readonly call: Stream<SessionRequest, SessionMessage>,
    private readonly source: SessionSource,
  ) {}

  /** Why the session ended, once it has. */
  get ended(): string | undefined {
    return this.endedValue;
  }

  /** Serves an Assignments stream for this session. */
  attach(call: Stream<AssignmentsRequest, AssignmentsMessage>): void {
    const stream = new AssignmentStream(call, this.nodeId, this.source);
    this.streams.add(stream);
    call.on('cancelled', () => this.streams.delete(stream));
    stream.start();
  }

  opened(periodMs: number): void {
    this.send(periodMs);
    this.source.logs?.sessionOpened(this);
  }

  periodChanged(periodMs: number): void {
    this.send(periodMs);
  }

  /** Tells the agent where the dispatchers are now (the period as last told). */
  dispatchersChanged(): void {
    if (this.periodMs > 0) this.send(this.periodMs);
  }

  /**
   * Asks the agent to renew its certificate (a root CA rotation): once on a session, and
   * again only after RENEW_AGAIN_MS, so that an agent that cannot renew is not asked on
   * every look.
   */
  askToRenew(now: number): void {
    if (this.askedToRenewAt !== undefined && now - this.askedToRenewAt < RENEW_AGAIN_MS) return;
    if (this.call.cancelled || this.call.writableEnded || this.periodMs === 0) return;
    this.askedToRenewAt = now;
    this.call.write({ nodeId: this.nodeId, sessionId: this.sessionId, heartbeatPeriodMs: 0, dispatchers: [], logSubscriptions: [], renewCertificate: true });
  }

  /** Asks the agent for its tasks' output, or tells it a subscription is over (on the Session stream). */
  subscribeLogs(subscription: LogSubscriptionMessage): void {
    if (this.call.cancelled || this.call.writableEnded) return;
    this.call.write({ nodeId: this.nodeId, sessionId: this.sessionId, heartbeatPeriodMs: 0, dispatchers: [], logSubscriptions: [subscription] });
  }

  assignmentsChanged(taskIds: readonly string[]): void {
    this.source.logs?.assignmentsChanged(this, taskIds);
    for (const stream of this.streams) {
      if (stream.done) this.streams.delete(stream);
      else stream.changed(taskIds);
    }
  }

  closed(reason: string, final = false): void {
    this.endedValue = reason;
    const [code, details] = final
      ? [status.PERMISSION_DENIED, `the session ended: ${reason}; join again as a new node`]
      : [status.UNAVAILABLE, `the session ended: ${reason}; open a new session`];
    endWith(this.call, code, details);
    for (const stream of this.streams) stream.end(code, details);
    this.streams.clear();
  }

  private send(heartbeatPeriodMs: number): void {
    if (this.call.cancelled || this.call.writableEnded) return;
    this.periodMs = heartbeatPeriodMs;
    this.call.write({ nodeId: this.nodeId, sessionId: this.sessionId, heartbeatPeriodMs, dispatchers: [...this.source.dispatchers()], logSubscriptions: [] });
  }
}
