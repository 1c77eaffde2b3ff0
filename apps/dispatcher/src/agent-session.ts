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
  /**
   * Whether `tasksOf` answers for every task now (not while the dispatcher rebuilds its
   * index after taking over), and how to hear when it does; without them, always.
   */
  indexed?(): boolean;
  whenIndexed?(ready: () => void): void;
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
 * What the streams whose changes are due may cost in one turn of the event loop: a task
 * looked at costs 1, a message STREAM_FLUSH_COST more (one stream's is always sent). A
 * TasksAssigned of thousands of tasks touches as many nodes, whose batches come due
 * together: they go out a budget a turn, not all in one stretch.
 */
export const ASSIGNMENT_FLUSH_BUDGET = 2_000;
export const STREAM_FLUSH_COST = 8;

/**
 * The Assignments streams whose changes are due, in the order they came due: each turn
 * of the event loop sends those that fit in the budget, the rest on the next turns.
 */
export class AssignmentFlushes {
  private readonly due = new Set<AssignmentStream>();
  private immediate?: NodeJS.Immediate;

  constructor(private readonly budget = ASSIGNMENT_FLUSH_BUDGET) {}

  /** How many streams wait to be sent. */
  get size(): number {
    return this.due.size;
  }

  add(stream: AssignmentStream): void {
    this.due.add(stream);
    this.immediate ??= setImmediate(() => this.drain());
  }

  delete(stream: AssignmentStream): void {
    this.due.delete(stream);
  }

  private drain(): void {
    this.immediate = undefined;
    let spent = 0;
    for (const stream of this.due) {
      const cost = stream.cost;
      if (spent > 0 && spent + cost > this.budget) break;
      this.due.delete(stream);
      stream.flush();
      spent += cost;
    }
    if (this.due.size > 0) this.immediate = setImmediate(() => this.drain());
  }
}

/** The process's streams share one budget: they share its event loop. */
const processFlushes = new AssignmentFlushes();

/**
 * One Assignments stream: the complete set first, then the changes, gathered for at
 * most ASSIGNMENT_BATCH_MS; each batch looks only at the tasks said to have changed. The
 * configs those tasks use go in the same message as the tasks. A batch that is due waits
 * its turn among the others due (AssignmentFlushes); changes that come meanwhile join it.
 * While the dispatcher's index of the nodes' tasks is not whole, the stream sends nothing
 * (the set would leave tasks out, the changes remove them): once it is, the stream waits
 * its turn to send the set, or the changes.
 */
export class AssignmentStream {
  private readonly tracker = new AssignmentTracker();
  private touched = new Set<string>();
  private timer?: NodeJS.Timeout;
  private queued = false;
  private started = false;
  private awaitingIndex = false;
  private ended = false;

  constructor(
    private readonly call: Stream<AssignmentsRequest, AssignmentsMessage>,
    private readonly nodeId: string,
    private readonly source: SessionSource,
    private readonly flushes: AssignmentFlushes = processFlushes,
  ) {}

  get done(): boolean {
    return this.ended || this.call.cancelled || this.call.writableEnded;
  }

  /** What sending what waits costs (AssignmentFlushes): the tasks to look at — the node's all for a set not sent yet — and a message. */
  get cost(): number {
    return (this.started ? this.touched.size : this.source.tasksOf(this.nodeId).size) + STREAM_FLUSH_COST;
  }

  /** Sends the COMPLETE set: now, or once the dispatcher's index is whole. */
  start(): void {
    if (this.indexed()) this.sendComplete();
  }

  changed(taskIds: readonly string[]): void {
    for (const id of taskIds) this.touched.add(id);
    if (this.queued || this.awaitingIndex) return;
    if (this.touched.size >= ASSIGNMENT_BATCH_LIMIT) this.due();
    else this.timer ??= setTimeout(() => this.due(), ASSIGNMENT_BATCH_MS);
  }

  /** Sends the changes waiting, or the set not sent yet (the flushes call it when the stream's turn comes). */
  flush(): void {
    this.cancel();
    if (this.done || !this.indexed()) return;
    if (!this.started) return this.sendComplete();
    const touched = this.touched;
    this.touched = new Set();
    if (touched.size === 0) return;
    const changes = this.tracker.changesOf(this.source.state(), this.source.tasksOf(this.nodeId), touched);
    if (!noChanges(changes)) this.call.write(toIncrementalMessage(changes, this.source.openSecret));
  }

  /** Whether the node's tasks can be told now; if not, the stream is due once they can. */
  private indexed(): boolean {
    if (this.source.indexed?.() !== false) return true;
    if (!this.awaitingIndex) {
      this.awaitingIndex = true;
      this.source.whenIndexed?.(() => {
        this.awaitingIndex = false;
        if (!this.done) this.due();
      });
    }
    return false;
  }

  /** The set covers every change before it: those waiting are dropped. */
  private sendComplete(): void {
    this.started = true;
    this.touched = new Set();
    this.call.write(toCompleteMessage(this.tracker.complete(this.source.state(), this.source.tasksOf(this.nodeId)), this.source.openSecret));
  }

  private due(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.queued = true;
    this.flushes.add(this);
  }

  private cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.queued) this.flushes.delete(this);
    this.queued = false;
  }

  end(code: status, details: string): void {
    this.ended = true;
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
