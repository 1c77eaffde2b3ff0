/**
 * One node's session with a dispatcher (SwarmKit's agent/session.go): Session registers
 * with the join token and the node's description and answers the node id (kept across
 * reconnects) and the heartbeat period; heartbeats keep it alive at the period the
 * dispatcher asks for, on the stream that carries those of every session on the same
 * channel (Heartbeats), and a shorter period applies at once, a longer one from the next
 * heartbeat; the Assignments stream drives the worker; task statuses go out in batches, with
 * those of the other sessions on the same channel (UpdateTaskStatuses).
 * Log subscriptions that come on the Session stream are answered with the output of the
 * node's tasks, a PublishLogs call each (LogPublisher); they end with the session.
 * Any of these breaking ends the session and a new one starts after a backoff.
 * A refused join token is final: the session stops with a JoinRefusedError.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { redirectOf } from '@shoal/protocol';
import type { AssignmentsMessage, NodeDescriptionMessage, SessionMessage, TaskStatusMessage } from '@shoal/protocol';
import type { DispatcherApi, DispatcherChannels } from './dispatcher-channels';
import type { Executor } from './executor';
import { LogPublisher } from './log-publisher';
import { StatusBatcher } from './status-batcher';
import type { BatchOptions } from './status-batcher';
import type { Cancel, Timers } from './timers';
import { Worker } from './worker';
import type { TaskLogStore } from './worker';

/**
 * The dispatcher refused to let the node join: the join token is wrong or rotated out
 * (UNAUTHENTICATED), the node was removed from the cluster (PERMISSION_DENIED), or its
 * description or id is not acceptable (INVALID_ARGUMENT). Trying again would not help.
 */
export class JoinRefusedError extends Error {
  constructor(
    readonly dispatcher: string,
    readonly code: number,
    readonly detail: string,
  ) {
    super(`the dispatcher at ${dispatcher} refused ${code === GrpcStatus.UNAUTHENTICATED ? 'the join token' : 'this node'}: ${detail}`);
    this.name = 'JoinRefusedError';
  }
}

const REFUSALS: readonly number[] = [GrpcStatus.UNAUTHENTICATED, GrpcStatus.PERMISSION_DENIED, GrpcStatus.INVALID_ARGUMENT];

export interface AgentSessionOptions {
  /**
   * host:port of each dispatcher this node may join through (at least one), tried in turn
   * when the one it uses is gone; one that does not own the cluster names the one that does.
   * Those the active dispatcher lists in its session messages are tried too, first.
   */
  readonly dispatchers: readonly string[];
  /** Dispatchers a session listed in an earlier run (kept in the agent's state directory): known as if this one had listed them. */
  readonly knownDispatchers?: readonly string[];
  /** Told of the dispatchers the sessions list, each time the list changes (to keep it for the next run). */
  readonly onDispatchers?: (dispatchers: readonly string[]) => void;
  readonly joinToken: string;
  readonly executor: Executor;
  /** Where the worker keeps its tasks' logs besides memory (`shoal agent --state-dir`: `<state-dir>/logs`), if anywhere. */
  readonly logStore?: TaskLogStore;
  readonly channels: DispatcherChannels;
  /** This session's number among those sharing `channels` (it picks the channel). */
  readonly index?: number;
  readonly timers: Timers;
  /** The node id from an earlier run, if any. */
  readonly nodeId?: string;
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
  readonly batch?: BatchOptions;
  /** Heartbeat period until the dispatcher says otherwise. */
  readonly defaultHeartbeatMs?: number;
  /** Lines worth telling an operator (connection lost, retrying, redirected). */
  readonly log?: (line: string) => void;
  /** Called once if the session stops for good (the join token was refused). */
  readonly onFailure?: (error: Error) => void;
  /** Called when the session comes up or goes down. */
  readonly onConnectionChange?: (connected: boolean) => void;
  /** Called on each heartbeat sent (for /metrics). */
  readonly onHeartbeat?: () => void;
  readonly random?: () => number;
  /** Under mutual TLS: the root CAs the node trusts now (PEM), reported with each session it opens. */
  readonly trustRoot?: () => string;
  /** Called when the dispatcher asks the node to renew its certificate (a root CA rotation). */
  readonly onRenewCertificate?: () => void;
}

/** A status update may take its time, as SwarmKit's agent lets a call: two periods, 5 s at least. */
const STATUS_TIMEOUT_MS = 5_000;
const HEARTBEAT_JITTER = 0.2;
/** The longest wait between attempts to reach a dispatcher, in heartbeat periods. */
const MAX_BACKOFF_PERIODS = 2;

const describeError = (error: unknown): string => {
  const grpcError = error as Partial<ServiceError>;
  if (typeof grpcError.code === 'number') return `${GrpcStatus[grpcError.code] ?? grpcError.code}: ${grpcError.details || grpcError.message}`;
  return error instanceof Error ? error.message : String(error);
};

/** Addresses as a session message lists them: trimmed, each once, in order. */
const addressList = (addresses: readonly string[]): string[] => [...new Set(addresses.map((address) => address.trim()).filter((address) => address !== ''))];

export class AgentSession {
  readonly worker: Worker;
  private readonly batcher: StatusBatcher;
  private readonly logs: LogPublisher;
  private readonly description: NodeDescriptionMessage;
  private address: string;
  /** The dispatcher it last dialled of those it knows (a redirect may have sent it on from there). */
  private dialled: string;
  /** Where the dispatchers are, as the last session message said (the active one first). */
  private learned: readonly string[] = [];
  private id: string | undefined;
  private session: string | undefined;
  private periodMs: number;
  private generation = 0;
  private attempts = 0;
  private up = false;
  private stopped = false;
  private calls: ClientReadableStream<unknown>[] = [];
  private cancelTimer: Cancel | undefined;
  /** When the next heartbeat goes out (ms since the epoch), while one is scheduled. */
  private heartbeatDue: number | undefined;
  private started: { resolve: () => void; reject: (error: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(private readonly options: AgentSessionOptions) {
    if (options.dispatchers.length === 0) throw new Error('an agent session needs the address of at least one dispatcher');
    this.address = options.dispatchers[0]!;
    this.dialled = this.address;
    this.learned = addressList(options.knownDispatchers ?? []);
    this.id = options.nodeId;
    this.periodMs = options.defaultHeartbeatMs ?? 5_000;
    this.description = options.executor.describe();
    this.batcher = new StatusBatcher(options.timers, options.batch);
    this.worker = new Worker(options.executor, (status) => this.batcher.push(status), undefined, options.logStore);
    this.logs = new LogPublisher({ source: this.worker, open: (done) => this.client().publishLogs((error) => done(error)), timers: options.timers, log: options.log });
  }

  /** The node id the dispatcher gave (kept for every later session). */
  get nodeId(): string | undefined {
    return this.id;
  }

  get sessionId(): string | undefined {
    return this.session;
  }

  get connected(): boolean {
    return this.up;
  }

  get heartbeatPeriodMs(): number {
    return this.periodMs;
  }

  /** The dispatcher this session talks to (it changes when one redirects to another). */
  get dispatcher(): string {
    return this.address;
  }

  /**
   * The dispatchers it tries in turn when the one it uses is gone: those the last session
   * message listed, then those it was given that the message did not list.
   */
  get dispatchers(): readonly string[] {
    return [...this.learned, ...this.options.dispatchers.filter((address) => !this.learned.includes(address))];
  }

  /** Why the session stopped for good, if it did. */
  get error(): Error | undefined {
    return this.failure;
  }

  /** Opens the session; resolves once the node has joined, rejects if the join token is refused. */
  start(): Promise<void> {
    const joined = new Promise<void>((resolve, reject) => (this.started = { resolve, reject }));
    this.connect();
    return joined;
  }

  /** Ends the session. With `stopTasks`, stops the node's tasks first and reports how they ended. */
  async stop(options: { stopTasks?: boolean } = {}): Promise<void> {
    if (options.stopTasks) {
      await this.worker.stopAll();
      // How they ended goes out if the session is up, but a dispatcher that is gone holds no one up for long.
      let cancel = (): void => undefined;
      await Promise.race([this.batcher.flush(), new Promise<void>((resolve) => (cancel = this.options.timers.after(2_000, resolve)))]);
      cancel();
    }
    this.stopped = true;
    this.teardown();
    this.started?.reject(new Error('the agent stopped before it joined'));
    this.started = undefined;
  }

  /**
   * Opens a new session now, on the channels as they are now: a renewed certificate is used
   * from the next connection (and the dispatcher hears of the node's new TLS from the new
   * session). The node's tasks keep running, as on any reconnection.
   */
  reconnect(): void {
    if (this.stopped || !this.up) return;
    this.teardown();
    this.connect();
  }

  private client(): DispatcherApi {
    return this.options.channels.client(this.address, this.options.index ?? 0);
  }

  private connect(): void {
    if (this.stopped) return;
    const generation = ++this.generation;
    const trustRoot = this.options.trustRoot?.();
    const description = trustRoot === undefined ? this.description : { ...this.description, tlsTrustRoot: trustRoot };
    const call = this.client().session({ joinToken: this.options.joinToken, nodeId: this.id ?? '', description });
    this.calls.push(call);
    call.on('data', (message: SessionMessage) => {
      if (generation !== this.generation) return;
      // A message asking for a renewal carries nothing else.
      if (message.renewCertificate) return void this.options.onRenewCertificate?.();
      this.learn(message.dispatchers ?? []);
      if (!this.up) this.established(message, generation);
      else if (message.heartbeatPeriodMs > 0) this.periodChanged(message.heartbeatPeriodMs, generation);
      // A message with subscriptions has no period (0): it changes none of the above.
      if (message.logSubscriptions?.length) this.logs.handle(message.logSubscriptions, { nodeId: this.id ?? '', sessionId: this.session ?? '' });
    });
    call.on('error', (error: Error) => this.broken(generation, error));
    call.on('end', () => this.broken(generation, new Error('the dispatcher ended the session')));
  }

  private established(message: SessionMessage, generation: number): void {
    this.id = message.nodeId || this.id;
    this.session = message.sessionId;
    if (message.heartbeatPeriodMs > 0) this.periodMs = message.heartbeatPeriodMs;
    this.up = true;
    this.attempts = 0;
    this.scheduleHeartbeat(generation);
    this.openAssignments(generation);
    this.batcher.connect((updates) => this.sendStatuses(updates, generation));
    this.options.onConnectionChange?.(true);
    this.started?.resolve();
    this.started = undefined;
  }

  /** Keeps the dispatchers' addresses a session message listed (none listed: it did not say, and the last list stands). */
  private learn(dispatchers: readonly string[]): void {
    const listed = addressList(dispatchers);
    if (listed.length === 0 || listed.join(',') === this.learned.join(',')) return;
    this.learned = listed;
    this.options.log?.(`dispatchers known: ${this.dispatchers.join(', ')}`);
    this.options.onDispatchers?.(listed);
  }

  private openAssignments(generation: number): void {
    const call = this.client().assignments({ nodeId: this.id ?? '', sessionId: this.session ?? '' });
    this.calls.push(call);
    call.on('data', (message: AssignmentsMessage) => {
      if (generation === this.generation) this.worker.apply(message);
    });
    call.on('error', (error: Error) => this.broken(generation, error));
    call.on('end', () => this.broken(generation, new Error('the dispatcher ended the assignments stream')));
  }

  private scheduleHeartbeat(generation: number): void {
    // A little early, at random: nodes that joined together do not beat together.
    const delay = Math.round(this.periodMs * (1 - HEARTBEAT_JITTER * (this.options.random ?? Math.random)()));
    this.heartbeatDue = Date.now() + delay;
    this.cancelTimer = this.options.timers.after(delay, () => {
      this.cancelTimer = undefined;
      this.heartbeatDue = undefined;
      if (generation !== this.generation) return;
      // No answer to wait for: a lost session ends the Session stream, and a new period comes on it.
      this.options.channels.heartbeats(this.address, this.options.index ?? 0).beat({ nodeId: this.id ?? '', sessionId: this.session ?? '' });
      this.options.onHeartbeat?.();
      this.scheduleHeartbeat(generation);
    });
  }

  /**
   * The dispatcher asks for another period. The heartbeat already scheduled goes out no
   * later than the new period from now — sooner, when that is sooner, since the dispatcher
   * may judge the node by the new period from the next heartbeat it takes — and never
   * later than it would have: the dispatcher still counts on it.
   */
  private periodChanged(periodMs: number, generation: number): void {
    this.periodMs = periodMs;
    if (this.heartbeatDue === undefined || Date.now() + periodMs >= this.heartbeatDue) return;
    this.cancelTimer?.();
    this.scheduleHeartbeat(generation);
  }

  private sendStatuses(updates: TaskStatusMessage[], generation: number): Promise<void> {
    const deadline = Date.now() + Math.max(this.periodMs * 2, STATUS_TIMEOUT_MS);
    const uplink = this.options.channels.uplink(this.address, this.options.index ?? 0);
    return uplink.send({ nodeId: this.id ?? '', sessionId: this.session ?? '', updates }, deadline).catch((error: ServiceError) => {
      // The dispatcher no longer knows this session: open a new one (the statuses wait for it).
      if (error.code === GrpcStatus.NOT_FOUND) this.broken(generation, error);
      throw error;
    });
  }

  /** Ends the current session's calls and timers; nothing from them counts any more. */
  private teardown(): void {
    this.generation += 1;
    const calls = this.calls;
    this.calls = [];
    for (const call of calls) call.cancel();
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.heartbeatDue = undefined;
    this.batcher.disconnect();
    this.logs.cancelAll();
    if (this.up) {
      this.up = false;
      this.options.onConnectionChange?.(false);
    }
  }

  /**
   * How long to wait before the next attempt: doubling from `initialMs`, up to `maxMs` and
   * never more than two heartbeat periods, so that a node whose dispatcher went is back
   * well within the grace the next one gives it (period × 6).
   */
  private backoffDelay(): number {
    const { initialMs = 200, maxMs = 10_000 } = this.options.backoff ?? {};
    const base = Math.min(maxMs, Math.max(initialMs, this.periodMs * MAX_BACKOFF_PERIODS), initialMs * 2 ** Math.min(this.attempts, 20));
    return Math.round(base / 2 + (this.options.random ?? Math.random)() * (base / 2));
  }

  /**
   * Where to go once the dispatcher at `lost` is gone, as SwarmKit's agent moves on to
   * another manager: of those it knows, the next after `lost` — that one may be down for
   * good, and a standby sends the node to whichever took over. A dispatcher it was only
   * sent to counts as the one it dialled that sent it there, which may have taken over since.
   */
  private nextDispatcher(lost: string): string {
    const known = this.dispatchers;
    const at = known.indexOf(lost);
    if (at >= 0) this.dialled = known[(at + 1) % known.length]!;
    else if (!known.includes(this.dialled)) this.dialled = known[0]!;
    return this.dialled;
  }

  private broken(generation: number, error: unknown): void {
    if (generation !== this.generation || this.stopped) return;
    const joining = !this.up;
    this.teardown();
    const code = (error as Partial<ServiceError>).code;
    if (joining && code !== undefined && REFUSALS.includes(code)) {
      this.stopped = true;
      this.failure = new JoinRefusedError(this.address, code, (error as ServiceError).details || (error as Error).message);
      this.options.log?.(this.failure.message);
      this.options.onFailure?.(this.failure);
      this.started?.reject(this.failure);
      this.started = undefined;
      return;
    }
    const redirect = code === GrpcStatus.FAILED_PRECONDITION ? redirectOf(error) : undefined;
    if (redirect && redirect !== this.address) {
      // Straight there the first time; dispatchers sending a node round in circles get the backoff.
      const delay = this.attempts === 0 ? 0 : this.backoffDelay();
      this.attempts += 1;
      this.options.log?.(`the dispatcher at ${this.address} sends this node to ${redirect}`);
      this.address = redirect;
      this.cancelTimer = this.options.timers.after(delay, () => this.connect());
      return;
    }
    const delay = this.backoffDelay();
    this.attempts += 1;
    const lost = this.address;
    if (!redirect) this.address = this.nextDispatcher(lost);
    const what = joining ? `no session with the dispatcher at ${lost}` : `session with the dispatcher at ${lost} lost`;
    this.options.log?.(`${what} (${describeError(error).trim()}); trying${this.address === lost ? '' : ` ${this.address}`} again in ${delay} ms`);
    this.cancelTimer = this.options.timers.after(delay, () => {
      this.cancelTimer = undefined;
      this.connect();
    });
  }
}
