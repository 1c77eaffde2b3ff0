/**
 * Kafka leases whose group members run on a thread of their own (lease-worker.ts). The lease
 * timeout is a group session: the holder must heartbeat within it. On the process's main
 * thread a heartbeat waits for whatever runs there (a component's tick over 100,000 tasks,
 * a large collection), and a busy holder would lose its lease to a standby — or, alone,
 * to itself, under a new term — again and again on a loaded machine. On its own thread
 * a member heartbeats whatever the main thread does; only a process gone (killed,
 * paused, cut off) or a main thread stuck for the stall limit lets a lease go.
 *
 * A LeaseHost runs the leases of one log family: a process that runs a component for many
 * partitions holds many leases, and they share one thread and one Kafka client on it (each
 * lease one consumer-group member of that client). The thread starts with the host's first
 * lease and ends when the last lease's member has left its group; a later lease starts a
 * new one. LeaseThread is the handle of one lease: it keeps what the thread reports of it
 * (granted, the members in line, lost).
 *
 * The stall limit is a lease's own: the host's when it was given one, else five of that
 * lease's timeouts, and at least MAIN_THREAD_STALL_MS. The thread hears from the main thread
 * once a second, and gives up each lease whose limit the silence passed.
 */
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { KafkaConfig } from 'kafkajs';
import { defaultSettings } from '@shoal/config';
import type { OwnershipLease } from '../port';
import { eventLogSay } from '../log-sink';
import { groupTiming } from './group-timing';
import type { GroupTiming } from './group-timing';
import type { KafkaLeaseOptions } from './kafka-lease';
import type { FromLeaseWorker, LeaseWorkerData, ToLeaseWorker } from './lease-worker';

/** The lease timeout when none is given: the declared default of SHOAL_LEASE_TIMEOUT_MS. */
export const DEFAULT_LEASE_TIMEOUT_MS = defaultSettings().SHOAL_LEASE_TIMEOUT_MS;

/** A main thread silent this long (and at least five lease timeouts) is stuck: its leases go to standbys. */
export const MAIN_THREAD_STALL_MS = 30_000;

/** How long a release waits for its member to leave the group before the member is left to its session's expiry. */
const RELEASE_WAIT_MS = 10_000;

const WORKER = join(__dirname, `lease-worker${extname(__filename)}`);
const REGISTER = join(__dirname, '..', '..', '..', '..', 'bin', 'register.js');

/** The thread's node options: from TypeScript sources it compiles them as this process does. */
const workerArgv = (): string[] => {
  const inherited = [...process.execArgv];
  if (extname(__filename) !== '.ts' || inherited.some((arg) => arg.endsWith('register.js'))) return inherited;
  return [...inherited, '-r', REGISTER];
};

/** What a lease's thread needs of the log's Kafka client settings (everything but functions). */
export type LeaseKafkaConfig = Omit<KafkaConfig, 'logCreator' | 'socketFactory'>;

/** A lease's options as a caller gives them: the lease timeout defaults to DEFAULT_LEASE_TIMEOUT_MS. */
export type LeaseStartOptions = Omit<KafkaLeaseOptions, 'leaseTimeoutMs'> & { readonly leaseTimeoutMs?: number };

/** What the thread says of one lease. */
type LeaseEvent = Extract<FromLeaseWorker, { readonly kind: 'granted' | 'members' | 'lost' }>;

/** One lease's line between its handle and its member on the host's thread. */
class LeaseLink {
  /** What the thread says of the lease: the handle puts its own receiver here. */
  receive: (event: LeaseEvent) => void = () => undefined;
  /** Resolves once the member has left the group, or its thread is gone, or the wait was given up. */
  readonly left: Promise<void>;
  markLeft!: () => void;

  constructor(
    readonly id: number,
    private readonly thread: HostThread,
  ) {
    this.left = new Promise((resolve) => (this.markLeft = resolve));
  }

  /** Asks the thread to end the member: it leaves the group, then `left` resolves. */
  release(): void {
    this.thread.send({ kind: 'release', id: this.id });
  }

  /** Stops waiting for the member to leave: the thread may end without it. */
  abandon(): void {
    this.thread.forget(this.id);
  }
}

/** One thread of a host's, with the members on it that have not left their groups yet. */
class HostThread {
  readonly exited: Promise<void>;
  private readonly links = new Map<number, LeaseLink>();
  private readonly worker: Worker;
  private readonly pulse: NodeJS.Timeout;
  private ended = false;

  constructor(
    config: LeaseKafkaConfig,
    /** Told once, as the thread is told to end: it takes no lease from then on. */
    private readonly onEnd: (thread: HostThread) => void,
  ) {
    const data: LeaseWorkerData = { config };
    this.worker = new Worker(WORKER, { workerData: data, execArgv: workerArgv() });
    this.exited = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (message: FromLeaseWorker) => this.receive(message));
    this.worker.on('error', (error) => this.fail(`the lease's thread failed: ${error.message}`));
    this.worker.on('exit', (code) => this.fail(`the lease's thread ended (code ${code})`));
    // The thread gives a lease up when the main thread stops answering (see lease-worker.ts).
    this.pulse = setInterval(() => this.send({ kind: 'alive' }), 1_000);
    this.pulse.unref();
  }

  /** The members on the thread that have not left their groups. */
  get size(): number {
    return this.links.size;
  }

  /** Starts a lease's member on the thread. */
  add(id: number, options: KafkaLeaseOptions, stallLimitMs: number): LeaseLink {
    const link = new LeaseLink(id, this);
    this.links.set(id, link);
    this.send({ kind: 'start', id, options, stallLimitMs });
    return link;
  }

  send(message: ToLeaseWorker): void {
    try {
      this.worker.postMessage(message);
    } catch {
      // the thread is gone: its exit ends the leases
    }
  }

  /** The member has left (or is no longer waited for); the thread ends with its last member. */
  forget(id: number): void {
    const link = this.links.get(id);
    if (!link) return;
    this.links.delete(id);
    link.markLeft();
    if (this.links.size === 0) this.end();
  }

  /** Ends the thread: it takes no lease from now on (the host starts another for the next). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    clearInterval(this.pulse);
    this.onEnd(this);
    void this.worker.terminate();
  }

  private receive(message: FromLeaseWorker): void {
    switch (message.kind) {
      case 'granted':
      case 'members':
      case 'lost':
        this.links.get(message.id)?.receive(message);
        return;
      case 'done':
        this.forget(message.id);
        return;
      case 'log':
        eventLogSay(message.level, message.message, { library: 'kafkajs' });
        return;
      default: {
        const _exhaustive: never = message;
        return _exhaustive;
      }
    }
  }

  /** The thread failed or ended: every lease still on it is lost, for `reason`. */
  private fail(reason: string): void {
    const links = [...this.links.values()];
    this.links.clear();
    for (const link of links) {
      link.receive({ kind: 'lost', id: link.id, reason });
      link.markLeft();
    }
    this.end();
  }
}

/**
 * The leases of one log family, on one thread with one Kafka client. `start` a lease per
 * partition and component; `close` releases them all and ends the thread.
 */
export class LeaseHost {
  /** The thread new leases start on; a thread told to end is never one. */
  private thread?: HostThread;
  /** Threads not exited yet: the current one, and ones ending. */
  private readonly running = new Set<HostThread>();
  /** Leases whose members have not left their groups. */
  private readonly handles = new Set<LeaseThread>();
  private nextId = 0;
  private closing?: Promise<void>;

  constructor(
    private readonly config: LeaseKafkaConfig,
    /** The stall limit of every lease; by default each lease's own (see the top of this file). */
    private readonly stallLimitMs?: number,
  ) {}

  /** The host's threads not exited yet: one while it holds leases (and briefly another, ending). */
  get threads(): number {
    return this.running.size;
  }

  /** The host's leases whose members have not left their groups yet. */
  get leases(): number {
    return [...this.running].reduce((sum, thread) => sum + thread.size, 0);
  }

  /** Starts a lease's member on the host's thread (starting the thread if none runs); `granted` settles when it is held or cannot be. */
  start(options: LeaseStartOptions): LeaseThread {
    if (this.closing) throw new Error('the lease host is closed: no lease starts on it');
    const leaseTimeoutMs = options.leaseTimeoutMs ?? DEFAULT_LEASE_TIMEOUT_MS;
    const stallLimitMs = this.stallLimitMs ?? Math.max(MAIN_THREAD_STALL_MS, 5 * leaseTimeoutMs);
    const full: KafkaLeaseOptions = { ...options, leaseTimeoutMs };
    const thread = (this.thread ??= this.spawn());
    const lease = new LeaseThread(full, thread.add(++this.nextId, full, stallLimitMs));
    this.handles.add(lease);
    void lease.left.then(() => this.handles.delete(lease));
    return lease;
  }

  /** Releases every lease (standbys take over at once) and ends the thread. Safe to call twice. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await Promise.all([...this.handles].map((lease) => lease.release()));
      this.thread?.end();
      await Promise.all([...this.running].map((thread) => thread.exited));
    })();
    return this.closing;
  }

  private spawn(): HostThread {
    const thread = new HostThread(this.config, (ending) => {
      if (this.thread === ending) this.thread = undefined;
    });
    this.running.add(thread);
    void thread.exited.then(() => this.running.delete(thread));
    return thread;
  }
}

type Phase = 'waiting' | 'held' | 'ended';

/** One lease on a host's thread (LeaseHost.start makes it): what the thread reports of it. */
export class LeaseThread implements OwnershipLease {
  readonly component: string;
  readonly instance: string;
  readonly partition: number;
  readonly lost: Promise<string>;
  /** Resolves once the lease is held; rejects if it ends (timeout, release, failure) before. */
  readonly granted: Promise<LeaseThread>;
  /** The timing the lease's group member joins with: its session timeout is the lease timeout. */
  readonly timing: GroupTiming;
  private phase: Phase = 'waiting';
  private generationValue = -1;
  private membersValue: readonly string[];
  private readonly watchers = new Set<(members: readonly string[]) => void>();
  private markLost!: (reason: string) => void;
  private grant!: (lease: LeaseThread) => void;
  private refuse!: (error: Error) => void;

  constructor(
    options: KafkaLeaseOptions,
    private readonly link: LeaseLink,
  ) {
    this.component = options.component;
    this.instance = options.instance;
    this.partition = options.partition;
    this.membersValue = [options.instance];
    this.timing = groupTiming(options.leaseTimeoutMs);
    this.lost = new Promise((resolve) => (this.markLost = resolve));
    this.granted = new Promise((resolve, reject) => {
      this.grant = resolve;
      this.refuse = reject;
    });
    // Nobody need handle a refusal of a lease that was never awaited.
    this.granted.catch(() => undefined);
    link.receive = (event) => this.receive(event);
  }

  /** A host of its own for one lease: its thread joins the group, and ends when the member has left. */
  static start(config: LeaseKafkaConfig, options: LeaseStartOptions, stallLimitMs?: number): LeaseThread {
    return new LeaseHost(config, stallLimitMs).start(options);
  }

  /** The group generation in which the lease was granted (-1 until then). */
  get generation(): number {
    return this.generationValue;
  }

  /** Resolves once the lease's member has left its group (or its thread is gone). */
  get left(): Promise<void> {
    return this.link.left;
  }

  isHeld(): boolean {
    return this.phase === 'held';
  }

  /** Ends the lease and waits until its member has left the group (a standby gets the partition at once). */
  async release(): Promise<void> {
    this.end('released');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, RELEASE_WAIT_MS)));
    // A member that cannot say goodbye in time is left to its session's expiry (dropped with its thread if it was the last).
    await Promise.race([this.link.left, late.then(() => this.link.abandon())]);
    clearTimeout(timer);
  }

  members(): readonly string[] {
    return this.membersValue;
  }

  onMembers(listener: (members: readonly string[]) => void): () => void {
    this.watchers.add(listener);
    return () => this.watchers.delete(listener);
  }

  private receive(event: LeaseEvent): void {
    switch (event.kind) {
      case 'granted':
        if (this.phase !== 'waiting') return;
        this.phase = 'held';
        this.generationValue = event.generation;
        this.grant(this);
        return;
      case 'members':
        if (this.phase === 'ended') return;
        this.membersValue = event.members;
        for (const listener of [...this.watchers]) listener(event.members);
        return;
      case 'lost':
        this.end(event.reason);
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  /** The lease is over for this side at once; the thread's member leaves the group. */
  private end(reason: string): void {
    if (this.phase === 'ended') return;
    const wasHeld = this.phase === 'held';
    this.phase = 'ended';
    this.markLost(reason);
    if (!wasHeld) this.refuse(new Error(reason));
    this.link.release();
  }
}
